"""Agent frameworks' own files (browser agents, ChatDev, Letta, AutoGen, Cline, smolagents, aider),
discovery by content, and formats declared in the configuration or shipped as plugins.

Fixture findings are asserted with their code, line and message; the real files of
`../shared/realdata-3` (some with no stated licence, read here and never copied) are counted.
"""

from __future__ import annotations

import json
import re
import sys
import types
from pathlib import Path

import pytest

from auditor import config, engine, formats, sources
from auditor.common import entrypoints
from auditor.common.errors import ConfigError
from auditor.formats import FileReader, catalog, contract
from auditor.model import UNRECORDED, Conversation
from tests.helpers import FIXTURES, ROOT, audit, audit_process

FORMATS = FIXTURES / "formats"
REALDATA_3 = ROOT.parent / "shared" / "realdata-3"
requires_realdata_3 = pytest.mark.skipif(
    not REALDATA_3.is_dir(),
    reason="../shared/realdata-3 is not present (it exists on dev machines only)",
)


def read(path: Path | str) -> list[Conversation]:
    """The conversations a file gives, as a named file is read."""
    path = str(path)
    reader = FileReader()
    out = []
    for record in sources.read(sources.Source(path, *sources.kind_of(path), True)):
        if isinstance(record, sources.Record):  # a run log's broken lines are no records
            out.extend(c for c in reader.feed(record) if isinstance(c, Conversation))
    out.extend(c for c in reader.finish() if isinstance(c, Conversation))
    return out


def found(*paths: Path | str) -> list[tuple[str, int | None, str]]:
    """(code, line, message) of each finding, in report order."""
    return [(f.code, f.line, f.message) for f in audit(paths).findings]


def calls(conversation: Conversation) -> list[str]:
    return [c.name for m in conversation.messages for c in m.tool_calls]


# --- browser agents ------------------------------------------------------------------------


def test_browser_result_actions_are_calls_whose_outcome_is_not_recorded():
    (run,) = read(FORMATS / "browser-result" / "abp-0b838cd5-excerpt.json")
    assert run.id == "0b838cd54f826c59c71f600c56b89a11" and run.own_id
    opening = run.messages[0]  # the benchmark opens the task's website: the user turn's call
    assert opening.role == "user" and opening.tool_calls[0].arguments == {
        "url": "https://www.bbb.org/"
    }
    assert calls(run) == ["navigate", *["click"] * 4, "type", "click", "type", "click"]
    clicks = [m for m in run.messages if m.role == "assistant"][:3]
    assert [m.tool_calls[0].arguments for m in clicks] == [{"x": 973, "y": 761}] * 3
    results = [m.result for m in run.messages if m.result is not None]
    assert {(r.text, r.is_error, r.unrecorded) for r in results} == {(UNRECORDED, None, True)}
    # the cookie banner clicked three times in a row, the thoughts saying it is still there:
    # a loop, though the file keeps no page (LP001 says the outcome was not logged)
    assert found(FORMATS / "browser-result") == [
        (
            "LP001",
            8,
            "`click` called 3 times in a row with the same arguments (turns 1, 2, 3); the log "
            "does not record what came of them, and nothing came between them: no other call, "
            "no result, no user turn",
        )
    ]


def test_browser_use_results_carry_the_page_the_next_step_starts_on():
    (history,) = read(FORMATS / "browser-use" / "agent-history-list-excerpt.json")
    assert calls(history) == ["search_google", "click_element", "click_element", "done"]
    first = history.messages[1].result
    assert (
        first.text == "Page: elon musk - Google Suche (https://www.google.com/search?q=elon%20musk)"
    )
    assert history.messages[0].text.endswith("Next goal: Search for 'elon musk' on Google.")
    (dump,) = read(FORMATS / "browser-use" / "conversation_10-excerpt.txt")
    assert len(calls(dump)) == 11 and calls(dump)[-1] == "input"
    page = dump.messages[21]
    assert page.result.call_id == "line-39" and page.result.text.startswith("Elements: 0:")
    assert dump.messages[22].tool_calls[0].arguments == {"id": 50, "text": "Zürich"}
    assert dump.messages[23].result.unrecorded  # the dump ends before that action's outcome


# --- ChatDev -------------------------------------------------------------------------------


def test_chatdev_test_reports_answer_runs_and_the_same_traceback_six_times_is_a_loop():
    log = FORMATS / "chatdev" / "background-removal-test-cycles-excerpt.log"
    (run,) = read(log)
    assert run.messages[0].text.startswith("Create a Python program that offers a one-click")
    assert calls(run) == ["write_code", *(["run_software", "run_software", "sh"] * 3)]
    write = run.messages[1].tool_calls[0]
    assert [f["path"] for f in write.arguments["files"]] == ["background_removal.py", "main.py"]
    assert run.messages[2].result.text.startswith("background_removal.py updated.")
    report = run.messages[4].result
    assert report.is_error is True and "No module named 'cv2'" in report.text
    pip = run.messages[7]
    assert pip.name == "Programmer" and pip.tool_calls[0].arguments == {
        "command": "pip install cv2"
    }
    assert run.messages[8].result.unrecorded
    assert found(log) == [
        (
            "LP001",
            101,
            "`run_software` called 6 times with the same arguments, each answered with the same "
            'error `Traceback (most recent call last): File "main.py", line 7, in <module> '
            "import b…` (turns 13, 15, 38, 40, 63, 65)",
        ),
        (  # the Programmer's answer to each test report, unfenced and never applied
            "LP004",
            191,
            "the assistant sent the same message 3 times (turns 33, 58, 82): `FILENAME: main.py "
            "LANGUAGE: Python DOCSTRING: ''' …[trimmed]`",
        ),
    ]


def test_chatdev_nearest_negatives_a_passing_test_and_the_2023_06_log():
    passing = FORMATS / "chatdev" / "car-demo-2024-test-passes-excerpt.log"
    (run,) = read(passing)
    report = next(m.result for m in run.messages if m.result and m.result.name == "run_software")
    assert report.text == "The software run successfully without errors." and not report.is_error
    (old,) = read(FORMATS / "chatdev" / "gomoku-2023-06-excerpt.log")
    assert calls(old) == []  # the 2023-06 logs log no harness action: truly no call
    assert [m.name for m in old.messages][:3] == [
        "Chief Product Officer",
        "Chief Product Officer",
        "Chief Executive Officer",
    ]
    assert found(passing, FORMATS / "chatdev" / "gomoku-2023-06-excerpt.log") == []


def test_chatdev_an_entry_tag_counts_only_at_the_start_of_a_line(tmp_path):
    log = tmp_path / "run.log"
    log.write_text(
        "[2023-25-06 20:10:30 INFO] AgentTech Starts (20230625201030)\n\n"
        "[2023-25-06 20:10:32 INFO] [0] AI Assistant (Chief Product Officer):\n\n"
        "<INFO> GUI. Quoted: [2023-25-06 20:10:33 INFO] [0] AI Assistant (Programmer):\n\n"
        "[2023-25-06 20:11:07 INFO] [0] AI Assistant (Programmer):\n\nmain.py\nprint(1)\n"
    )
    (run,) = read(log)
    assert [(m.name, m.text, m.location.line) for m in run.messages] == [
        (
            "Chief Product Officer",
            "<INFO> GUI. Quoted: [2023-25-06 20:10:33 INFO] [0] AI Assistant (Programmer):",
            3,
        ),
        ("Programmer", "main.py\nprint(1)", 7),
    ]


# --- Letta, AutoGen, Cline, smolagents ------------------------------------------------------


def test_letta_send_message_is_the_reply_and_the_boot_sequence_is_not_the_models():
    (agent,) = read(FORMATS / "letta" / "composio_github_star_agent.af")
    roles = [m.role for m in agent.messages]
    assert roles[:5] == ["system", "system", "system", "system", "user"]  # boot, then login
    assert agent.messages[4].text == "please star this repo https://github.com/letta-ai/letta"
    star = agent.messages[5]
    assert star.reasoning.startswith("User requested to star") and star.text == ""
    assert calls(agent)[0] == "github_star_a_repository_for_the_authenticated_user"
    heartbeat = agent.messages[7]
    assert heartbeat.role == "system" and '"type": "heartbeat"' in heartbeat.text
    (loop,) = read(FORMATS / "letta" / "loop-agentfile-1.0-excerpt.af")
    assert loop.id == "agent-0" and [m.role for m in loop.messages] == ["system"] * 3
    assert (
        found(FORMATS / "letta") == []
    )  # the boot send_message lacks request_heartbeat: not EX007


def test_autogen_tool_events_and_saved_team_state():
    unanswered = FORMATS / "autogen" / "agent_history-unanswered-call.json"
    (chat,) = read(unanswered)
    assert chat.messages[1].reasoning == "Two cities: two lookups."
    assert [c.id for c in chat.messages[1].tool_calls] == ["call_1", "call_2"]
    assert found(unanswered) == [
        (
            "EX001",
            29,
            "`get_weather` call `call_2` got no result before the assistant spoke again at turn 4; "
            "it went on without the tool's output",
        )
    ]
    assert found(FORMATS / "autogen" / "agent_history.json") == []
    weather, critic = read(FORMATS / "autogen" / "team_state.json")
    assert weather.id.endswith("team_state.json#0") and critic.messages[1].name == "critic"
    assert weather.messages[2].result.is_error is True


def test_cline_results_come_from_the_next_request_and_a_failing_edit_retried_is_a_loop():
    retried = FORMATS / "cline" / "edit-retried-ui_messages.json"
    (task,) = read(retried)
    assert calls(task) == ["read_file", *["replace_in_file"] * 3, "execute_command"]
    assert task.messages[1].tool_calls[0].arguments == {"path": "shop/cart.py"}
    assert task.messages[2].result.text.startswith("def total(items: list) -> int:")
    assert task.messages[4].result.is_error is True
    assert task.messages[10].result.text == "Command executed.\nOutput:\n1 passed in 0.02s"
    assert task.messages[12].role == "user" and task.messages[12].text == "thanks"
    (loop,) = found(retried)
    assert loop[:2] == ("LP001", 67)
    assert loop[2].startswith("`replace_in_file` called 3 times with the same arguments")
    assert found(FORMATS / "cline" / "edit-fixed-ui_messages.json") == []


def test_cline_reads_a_request_only_for_the_calls_it_answers(tmp_path):
    request = (
        "Quoted: [read_file for 'b.py'] Result:\nno\n[read_file for 'a.py'] Result:\nhello\n"
        "\n<environment_details>\nx\n</environment_details>"
    )
    entries = [
        {"ts": 1, "type": "say", "say": "task", "text": "Fix a.py"},
        {"ts": 2, "type": "say", "say": ["not", "a", "kind"], "text": "ignored"},
        {"ts": 3, "type": "say", "say": "api_req_started", "text": "not JSON, answers no call"},
        {
            "ts": 4,
            "type": "say",
            "say": "tool",
            "text": json.dumps({"tool": "readFile", "path": "a.py"}),
        },
        {
            "ts": 5,
            "type": "say",
            "say": "api_req_started",
            "text": json.dumps({"request": request}),
        },
        {"ts": 6, "type": "say", "say": "completion_result", "text": "Done."},
    ]
    log = tmp_path / "ui_messages.json"
    log.write_text(json.dumps(entries))
    (task,) = read(log)
    assert [(m.role, m.text) for m in task.messages] == [
        ("user", "Fix a.py"),
        ("assistant", ""),
        ("tool", "hello"),
        ("assistant", "Done."),
    ]
    assert task.messages[2].result.call_id == task.messages[1].tool_calls[0].id == "ui-3"
    assert found(log) == []


def test_smolagents_bus_is_one_conversation_and_poll_updates_are_not_messages():
    path = FORMATS / "smolagents" / "run-56371001-messages.jsonl"
    (run,) = read(path)
    assert run.messages[0].role == "user" and "Caesar cipher" in run.messages[0].text
    assert len(run.messages) == 12  # 13 lines: a poll re-posted with its status is no message
    assert (
        run.messages[9].name == "Coordinator" and run.messages[9].text == "Meet me at Central Park."
    )
    assert run.messages[2].text.startswith("YES (confidence 1.0): ")
    assert found(path) == []


# --- aider -------------------------------------------------------------------------------


def test_aider_edits_are_answered_by_the_console():
    session, hello = read(FORMATS / "aider" / "aider-author-chat-history-excerpt.md")
    assert session.id.endswith("aider-author-chat-history-excerpt.md:1")
    two = session.messages[11]
    assert [c.arguments["path"] for c in two.tool_calls] == ["aider/commands.py"] * 2
    failed, applied = session.messages[12].result, session.messages[13].result
    assert failed.is_error and failed.text.startswith("## SearchReplaceNoExactMatch")
    assert not applied.is_error and "were applied successfully" in applied.text
    assert session.messages[3].text == "/add aider/coders/base_coder.py"
    assert [m.text for m in hello.messages[:2]] == ["hi", "Hello! How can I assist you today?"]
    (whole,) = read(FORMATS / "aider" / "mozgoslav-whole-format-excerpt.md")
    write = whole.messages[1].tool_calls[0]
    assert write.name == "write" and write.arguments["path"] == "Topology"  # aider's misparse
    assert whole.messages[2].result.text == "Applied edit to Topology"
    assert whole.messages[4].reasoning.startswith("Here's a thinking process:")
    # "don't paginate cmd_web from Coder" is no denial; "hi" answered six times is no loop
    assert found(FORMATS / "aider") == []


def test_aider_each_failed_edit_gets_its_own_section_of_the_console(tmp_path):
    # Two SEARCH blocks that failed in one reply: each edit's result is its own section, not
    # both sections run together under the first heading.
    failed = "> ## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in"
    history = tmp_path / "chat.md"
    history.write_text(
        "# aider chat started at 2024-08-09 17:24:39\n\n"
        "#### go ahead  \n\n"
        "a.py\n```python\n<<<<<<< SEARCH\nold one\n=======\nnew one\n>>>>>>> REPLACE\n```\n"
        "a.py\n```python\n<<<<<<< SEARCH\nold two\n=======\nnew two\n>>>>>>> REPLACE\n```\n"
        "> Tokens: 1 sent, 2 received.  \n"
        "> # 2 SEARCH/REPLACE blocks failed to match!  \n>   \n"
        f"{failed} a.py  \n"
        "> <<<<<<< SEARCH  \n> old one  \n> =======  \n> new one  \n> >>>>>>> REPLACE  \n>   \n"
        f"{failed} a.py  \n"
        "> <<<<<<< SEARCH  \n> old two  \n> =======  \n> new two  \n> >>>>>>> REPLACE  \n>   \n"
        "> Did you mean to match some of these actual lines from a.py?  \n"
    )
    (session,) = read(history)
    first, second = (m.result for m in session.messages if m.result is not None)
    assert first.is_error and second.is_error
    assert "old one" in first.text and "old two" not in first.text
    assert "old two" in second.text and "old one" not in second.text


def test_aider_marks_count_only_at_the_start_of_a_line(tmp_path):
    history = tmp_path / "chat.md"
    history.write_text(
        "# aider chat started at 2024-08-09 17:24:39\n\n"
        "> aider --model x  \n> Aider v0.48.2  \n\n"
        "#### rename foo  \n#### in a.py\n\n"
        "Sure. Not a session: # aider chat started at 2024-01-01 00:00:00\n\n"
        "a.py\n```python\n<<<<<<< SEARCH\nfoo\n=======\nbar\n>>>>>>> REPLACE\n```\n\n"
        "> Tokens: 1 sent, 2 received.\nCost: $0.01 message.  \n> Applied edit to a.py  \n\n"
        "# aider chat started at 2024-08-09 18:00:00\n\n#### show the markers\n\n"
        "Ten are no marker:\n<<<<<<<<<< SEARCH\nx\n==========\ny\n>>>>>>>>>> REPLACE\n\n"
        "> Tokens: 3 sent"  # a console line that ends the file, with no newline
    )
    edit, markers = read(history)
    assert [(m.role, m.text, m.location.line) for m in edit.messages] == [
        ("user", "rename foo\nin a.py", 6),
        (
            "assistant",
            "Sure. Not a session: # aider chat started at 2024-01-01 00:00:00\n\na.py\n```python"
            "\n<<<<<<< SEARCH\nfoo\n=======\nbar\n>>>>>>> REPLACE\n```",
            9,
        ),
        ("tool", "Applied edit to a.py", 20),
    ]
    (call,) = edit.messages[1].tool_calls
    assert call.arguments == {"path": "a.py", "search": "foo", "replace": "bar"}
    assert edit.messages[2].result.call_id == call.id and not edit.messages[2].result.is_error
    assert markers.id.endswith("chat.md:24") and calls(markers) == []


# --- the real files ----------------------------------------------------------------------


@requires_realdata_3
@pytest.mark.parametrize(
    ("folder", "files", "conversations", "n_calls", "fmt"),
    [
        ("browser-agent-results", 25, 25, 662, "browser-result"),
        ("browser-use-history", 3, 3, 16, "browser-use"),
        ("chatdev-warehouse", 5, 5, 39, "chatdev"),
        ("letta-agent-file", 4, 4, 32, "letta"),
        ("autogen-agentchat", 2, 2, 0, "autogen"),
        ("cline-ui-messages", 1, 1, 67, "cline"),
        ("smolagents-decentralized-example", 3, 3, 0, "smolagents"),
        ("aider-chat-history", 2, 466, 709, "aider"),
    ],
)
def test_realdata_3_files_are_read(folder, files, conversations, n_calls, fmt):
    root = REALDATA_3 / folder
    report = audit([root])
    assert report.counts.files == files and report.counts.conversations == conversations
    walked = [s.path for s in sources.discover([str(root)]) if isinstance(s, sources.Source)]
    read_here = [c for path in walked for c in read(path)]
    assert {c.format for c in read_here} == {fmt}
    assert sum(len(calls(c)) for c in read_here) == n_calls
    # every skipped file says why, in words
    assert all(u.reason in ("no transcript", "not a transcript", "hidden") for u in report.unread)


@requires_realdata_3
def test_realdata_3_findings_of_these_readers():
    report = audit(
        [REALDATA_3 / "chatdev-warehouse", REALDATA_3 / "smolagents-decentralized-example"]
    )
    assert [(f.code, f.line, f.conversation.rsplit("/", 1)[-1]) for f in report.findings] == [
        ("LP001", 2464, "BackgroundRemoval_THUNLP_20231015220703.log"),
        ("LP004", 2649, "BackgroundRemoval_THUNLP_20231015220703.log"),
        ("LP004", 8, "messages.jsonl"),
    ]
    skipped = {Path(u.path).name: (u.reason, u.detail) for u in report.unread}
    assert skipped["run.log"] == ("not a transcript", "run event logs")
    assert skipped["results_2025-09-01.jsonl"] == ("not a transcript", "results files")


@requires_realdata_3
def test_realdata_3_cline_task_reads_its_results_from_the_requests():
    (task,) = read(
        REALDATA_3
        / "cline-ui-messages"
        / "CoreGems-Cline-Xray"
        / "task_sample"
        / "ui_messages.json"
    )
    results = [m.result for m in task.messages if m.result is not None]
    assert len(results) == 67 and sum(r.unrecorded for r in results) == 0
    assert sum(m.role == "user" for m in task.messages) == 7  # the task and 6 follow-ups


# --- discovery by content -------------------------------------------------------------------


def test_a_walk_reads_logs_by_their_first_bytes_and_says_why_it_skips_the_rest(tmp_path):
    logs = tmp_path / "project"
    logs.mkdir()
    aider = (FORMATS / "aider" / "mozgoslav-whole-format-excerpt.md").read_text()
    (logs / ".aider.chat.history.md").write_text(aider)  # hidden, but its name promises a log
    chatdev = FORMATS / "chatdev" / "car-demo-2024-test-passes-excerpt.log"
    (logs / "run.log").write_bytes(chatdev.read_bytes())
    # a README whose first 16 KB are prose is not read further, whatever comes after
    (logs / "README.md").write_text("# project\n\n" + "prose line\n" * 3000 + aider)
    (logs / "LICENSE").write_text("MIT License\n")
    (logs / "events").write_text('{"kind": "Unknown", "x": 1}\n')  # no suffix: JSON is read
    (logs / "app.log").write_text("2024-01-01 INFO started\n{broken json\n")
    (logs / ".sessions").mkdir()
    (logs / ".sessions" / "a.jsonl").write_text("{}\n")
    (logs / ".git").mkdir()
    (logs / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    proc = audit_process("project", "--show-files", cwd=tmp_path)
    assert proc.stdout.decode().splitlines() == [
        "project/.aider.chat.history.md\taider",
        "project/.sessions\tskipped: a hidden directory: name it on the command line to read it",
        "project/LICENSE\tskipped: no transcript: text in no known transcript format",
        "project/README.md\tskipped: no transcript: text in no known transcript format",
        "project/app.log\tskipped: no transcript: text in no known transcript format",
        "project/events\tskipped: no log shape: JSON object of no known log format (keys: kind, x)",
        "project/run.log\tchatdev",
    ]
    run = json.loads(audit_process("project", "-f", "json", cwd=tmp_path).stdout)
    assert run["summary"]["files"] == 2 and run["findings"] == []
    assert {u["path"]: u["reason"] for u in run["coverage"]["skipped_files"]} == {
        "project/.sessions": "hidden",
        "project/LICENSE": "no transcript",
        "project/README.md": "no transcript",
        "project/app.log": "no transcript",
        "project/events": "no log shape",
    }
    named = audit_process("project/.sessions", "--show-files", cwd=tmp_path)
    assert named.stdout.decode().splitlines() == [
        "project/.sessions/a.jsonl\tskipped: no log shape: JSON object of no known log format "
        "(keys: no keys)"
    ]


def test_a_tagged_log_line_opens_text_not_a_json_array(tmp_path):
    path = tmp_path / "x.log"
    path.write_bytes((FORMATS / "chatdev" / "gomoku-2023-06-excerpt.log").read_bytes())
    (record,) = sources.read(sources.Source(str(path), "sniff", False, True))
    assert record.kind == "text"
    assert sources.opens_json(b'[{"a": 1}]') and not sources.opens_json(b"[2023-15-10 INFO] x")


# --- your own formats ---------------------------------------------------------------------


FORMATS_DOC = (ROOT / "docs" / "formats.md").read_text()
SECTION = FORMATS_DOC[FORMATS_DOC.index("## Your own formats") :]


def _example(tmp_path: Path) -> Path:
    toml, document = re.findall(r"```(?:toml|json)\n(.*?)```", SECTION, re.S)[:2]
    (tmp_path / "pyproject.toml").write_text(toml)
    (tmp_path / "runs.json").write_text(document)
    return tmp_path


def test_the_readmes_declared_format_is_read_as_it_says(tmp_path):
    _example(tmp_path)
    proc = audit_process("runs.json", "-q", cwd=tmp_path)
    (said,) = re.findall(r"```console\n\$ audit runs.json -q\n(.*?)\n```", SECTION, re.S)
    assert proc.stdout.decode().strip() == said
    assert proc.returncode == 1
    # the same with worker processes: a declared format crosses to them
    jobs = audit_process("runs.json", "-q", "--jobs", "2", cwd=tmp_path)
    assert jobs.stdout.decode().strip() == said
    listed = audit_process("runs.json", "--show-files", cwd=tmp_path)
    assert listed.stdout.decode() == "runs.json\tacme-runs\n"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            ('messages = "steps"', 'messages = "events"'),
            "[tool.auditor.formats.acme-runs] `messages` = `events` matches nothing in runs.json, "
            "a record its `detect` takes: check the expression against the record",
        ),
        (
            ('detect = "schema', 'detect = "schema =='),
            "[tool.auditor.formats.acme-runs] `detect` = `schema == == 'acme.run/2'` is not a "
            "JMESPath expression: ",
        ),
        (
            ('call-id = "ref"', 'call_id = "ref"'),
            "[tool.auditor.formats.acme-runs] unknown key `call_id` (did you mean `call-id`?)",
        ),
        (('role = "actor"\n', ""), "[tool.auditor.formats.acme-runs] `role` is required"),
        (
            ('bot = "assistant"', 'bot = "agent"'),
            "[tool.auditor.formats.acme-runs] `roles` maps to `agent`; map to one of user, ",
        ),
        (
            ("formats.acme-runs]", "formats.openai]"),
            "[tool.auditor.formats.openai] is named as a built-in or plugin format: rename it",
        ),
        # issue 37, item 3: a hostile expression is a configuration error, not a crash
        (
            ('detect = "schema', 'detect = "' + "(" * 990 + "schema"),
            "[tool.auditor.formats.acme-runs] `detect` is nested too deep to be read as a "
            "JMESPath expression",
        ),
        (  # issue 40: a key that finds nothing would give calls with no name
            ('call-name = "fn"', 'call-name = "function"'),
            "[tool.auditor.formats.acme-runs] `call-name` = `function` finds nothing in any of "
            "the 4 calls of runs.json, a record its `detect` takes: check the expression",
        ),
        (  # issue 37: an expression that doubles its input at every stage
            ('detect = "schema', 'detect = "' + "[@,@][] | " * 11 + "[0].schema"),
            "[tool.auditor.formats.acme-runs] `detect` could build 2,834,348 times the size of "
            "the record it reads (lists of `@` piped into lists of `@`, `to_string` of",
        ),
        (
            ('id = "run_id"', 'id = "' + "run_id || " * 300 + 'run_id"'),
            "[tool.auditor.formats.acme-runs] `id` is 3,006 characters long: at most 2,000",
        ),
    ],
)
def test_a_wrong_mapping_is_one_line_naming_the_table_and_key(tmp_path, change, message):
    _example(tmp_path)
    toml = tmp_path / "pyproject.toml"
    toml.write_text(toml.read_text().replace(*change, 1))
    proc = audit_process("runs.json", cwd=tmp_path)
    assert proc.returncode == 2
    (line,) = proc.stderr.decode().splitlines()
    assert line.startswith(f"audit: error: invalid config in pyproject.toml: {message}")
    assert "Traceback" not in proc.stderr.decode()


def test_a_declared_format_reads_json_lines_and_documents_alike(tmp_path):
    declared = formats.declare(
        "ticket",
        {"detect": "ticket", "messages": "log", "role": "who", "text": "said", "id": "ticket"},
        "[formats.ticket]",
    )
    (tmp_path / "t.jsonl").write_text(
        '{"ticket": "T-1", "log": [{"who": "user", "said": "hi there, my printer is broken"}, '
        '{"who": "assistant", "said": "Sorry to hear it."}]}\n'
        '{"ticket": "T-2", "log": [{"who": "user"}, {"said": "no role"}]}\n'
    )
    settings = config.Settings(rules=config.build().rules, formats=(declared,))
    report = engine.audit([str(tmp_path / "t.jsonl")], settings)
    assert report.counts.conversations == 2
    (problem,) = [f for f in report.findings if f.code == "IN002"]
    assert problem.line == 2 and problem.message.startswith("`role` found no string here (ticket)")


def test_a_declared_format_passes_headers_pairs_by_position_and_reads_the_final_call(tmp_path):
    declared = formats.declare(
        "toolbench",
        {
            "detect": "answer_generation.train_messages",
            "skip": "summary",
            "messages": "answer_generation.train_messages[-1]",
            "role": "role",
            "roles": {"function": "tool"},
            "text": "content",
            "calls": "function_call",
            "call-name": "name",
            "call-arguments": "arguments",
            "final-call": "Finish",
        },
        "[formats.toolbench]",
    )
    finish = '{"return_type": "give_answer", "final_answer": "It is 12C in Paris."}'
    chain = [
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "function_call": {"name": "get_weather", "arguments": "{}"}},
        {"role": "function", "name": "get_weather", "content": "12C"},
        {"role": "assistant", "function_call": {"name": "get_weather", "arguments": "{}"}},
        {"role": "function", "name": "get_weather", "content": "12C"},
        {"role": "assistant", "function_call": {"name": "Finish", "arguments": finish}},
    ]
    log = tmp_path / "run.jsonl"
    log.write_text(
        json.dumps({"summary": {"runs": 1}})
        + "\n"
        + json.dumps({"answer_generation": {"train_messages": [chain]}})
        + "\n"
    )
    settings = config.Settings(rules=config.build().rules, formats=(declared,))
    report = engine.audit([str(log)], settings)
    counts = report.counts
    assert (counts.records, counts.conversations, counts.tool_calls) == (2, 1, 2)
    assert counts.tool_results == 2  # paired by position: no id anywhere
    assert [f.code for f in report.findings] == []  # no EX001, EX002, no IN002 for the header
    (run,) = read_with(log, declared)
    assert run.messages[-1].role == "assistant"
    assert run.messages[-1].text == "It is 12C in Paris." and not run.messages[-1].tool_calls


def read_with(path: Path, declared) -> list[Conversation]:
    reader = FileReader(declared=(declared,))
    found = []
    kind, compressed = sources.kind_of(str(path))
    for record in sources.read(sources.Source(str(path), kind, compressed, True)):
        if isinstance(record, sources.Record):
            found += [c for c in reader.feed(record) if isinstance(c, Conversation)]
    found += [c for c in reader.finish() if isinstance(c, Conversation)]
    return found


# --- plugins ------------------------------------------------------------------------------


class _EntryPoint:
    def __init__(self, name: str, load) -> None:
        self.name, self.value, self.load = name, f"tests.{name}", load


@pytest.fixture
def entry_points(monkeypatch):
    """Install fake `auditor.formats` entry points for one test."""
    installed: list[_EntryPoint] = []
    import importlib.metadata

    monkeypatch.setattr(
        importlib.metadata,
        "entry_points",
        lambda group=None: [e for e in installed if group == formats.ENTRY_POINTS],
    )
    monkeypatch.setattr(entrypoints, "may_declare", lambda group: True)
    formats.plugins.cache_clear()
    catalog._builtin_and_plugins.cache_clear()
    yield installed
    formats.plugins.cache_clear()
    catalog._builtin_and_plugins.cache_clear()


def _plugin(**members) -> types.ModuleType:
    """A plugin's reader module stating every member, the defaults `contract`'s."""
    reader = types.ModuleType("acme_reader")
    reader.KIND = contract.JSON
    reader.DETECT_KEYS = None
    reader.sniff = contract.no_sniff
    reader.Collector = None
    reader.inferred = contract.no_inference
    reader.parse = lambda record: iter([])
    for name, value in members.items():
        setattr(reader, name, value)
    return reader


def test_a_plugin_reader_is_tried_before_the_built_in_ones(tmp_path, entry_points):
    reader = _plugin(
        NAME="acme-openai",
        detect=lambda record: isinstance(record.value, dict) and "acme" in record.value,
        parse=lambda record: iter([Conversation("acme-1", "acme-openai", record.location, ())]),
    )
    entry_points.append(_EntryPoint("acme", lambda: reader))
    path = tmp_path / "a.json"
    path.write_text('{"acme": 1, "messages": [{"role": "user", "content": "hi"}]}')
    (conversation,) = read(path)
    assert conversation.format == "acme-openai"  # not read as OpenAI's `messages`
    assert "acme-openai" in config.build(input_format="acme-openai").input_format


def test_plugins_are_looked_for_without_importlib_metadata_only_where_none_can_be(
    tmp_path, monkeypatch
):
    # importlib.metadata costs a sixth of a run's start: it is imported only when the
    # entry_points.txt of some installed distribution names the group.
    import importlib.metadata

    found = bool(list(importlib.metadata.entry_points(group=formats.ENTRY_POINTS)))
    assert entrypoints.may_declare(formats.ENTRY_POINTS) or not found
    info = tmp_path / "acme_reader-1.0.dist-info"
    info.mkdir()
    (info / "entry_points.txt").write_text("[console_scripts]\nacme = acme:main\n")
    from importlib.machinery import PathFinder

    # Only this folder, and the standard library's finder (a library imported by another test
    # may have added a finder of distributions of its own: then importlib always decides).
    monkeypatch.setattr(sys, "path", [str(tmp_path), str(tmp_path / "absent")])
    monkeypatch.setattr(sys, "meta_path", [PathFinder])
    entrypoints._scan.cache_clear()
    assert not entrypoints.may_declare("acme.readers")
    (info / "entry_points.txt").write_text("[acme.readers]\nacme = acme_reader\n")
    entrypoints._scan.cache_clear()  # read once a process: installs do not change in a run
    assert entrypoints.may_declare("acme.readers")


def test_a_broken_plugin_is_a_config_error(entry_points):
    def fail():
        raise ImportError("no module named acme_reader")

    entry_points.append(_EntryPoint("acme", fail))
    with pytest.raises(ConfigError, match=r"plugin `acme` .* failed to load: ImportError"):
        formats.plugins()
    entry_points[:] = [_EntryPoint("clash", lambda: _plugin(NAME="openai", detect=len))]
    formats.plugins.cache_clear()
    with pytest.raises(ConfigError, match="is named `openai`, as another format is"):
        formats.plugins()
    assert sys.modules.get("acme_reader") is None


def test_a_plugin_states_every_member_of_the_contract(entry_points):
    # The reader's members are never looked up by name: one it lacks is named when it loads.
    lacking = _plugin(NAME="acme", detect=len)
    del lacking.KIND, lacking.inferred
    entry_points.append(_EntryPoint("acme", lambda: lacking))
    with pytest.raises(ConfigError) as raised:
        formats.plugins()
    assert str(raised.value) == (
        "the `auditor.formats` plugin `acme` has no `KIND`, `inferred`: a reader states every "
        "member of auditor.formats.contract.Format (its defaults are in that module)"
    )
    entry_points[:] = [_EntryPoint("acme", lambda: _plugin(NAME=b"acme", detect=len))]
    formats.plugins.cache_clear()
    with pytest.raises(ConfigError, match="plugin `acme` has a NAME that is not a string"):
        formats.plugins()


# --- records that hold no transcript inside a log that does -------------------------------


CHAT = {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "ok"}]}


def test_a_header_line_is_counted_not_reported_and_the_file_is_what_follows(tmp_path):
    # AgentDojo's runs open with `{"metadata": {...}}`; the other lines are OpenAI chat.
    header = {"metadata": {"benchmark": "agent-dojo", "name": "command-r-plus"}}
    lines = [header, CHAT, CHAT, {"summary": {"accuracy": 0.25}, "version": "1"}]
    log = tmp_path / "run.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in lines))
    report = audit([log])
    assert [f.code for f in report.findings] == []
    assert (report.counts.records, report.counts.conversations) == (4, 2)
    listed = audit_process("run.jsonl", "--show-files", cwd=tmp_path)
    assert listed.stdout.decode() == "run.jsonl\topenai\n"
    verbose = audit_process("run.jsonl", "-v", "-f", "concise", cwd=tmp_path).stderr.decode()
    assert "run.jsonl: header, openai; 4 records, 2 conversations" in verbose


@pytest.mark.parametrize(
    "record",
    [
        {"metadata": {"benchmark": "x"}, "messages_seen": 3},  # a key no header has
        {"version": "1", "name": "run"},  # no key that makes it a header
        {"metadata": {}, "results": [{"task": 1, "passed": True}]},  # what the run gave
    ],
)
def test_nearest_negatives_of_a_header_stay_records_nobody_could_read(tmp_path, record):
    log = tmp_path / "run.jsonl"
    log.write_text(json.dumps(CHAT) + "\n" + json.dumps(record) + "\n")
    report = audit([log])
    assert [(f.code, f.line) for f in report.findings] == [("IN002", 2)]


def test_a_file_of_a_header_alone_is_no_log(tmp_path):
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "h.jsonl").write_text('{"metadata": {"a": 1}}\n')
    listed = audit_process("logs", "--show-files", cwd=tmp_path)
    assert listed.stdout.decode() == (
        "logs/h.jsonl\tskipped: no log shape: JSON object of no known log format (keys: metadata)\n"
    )


def test_a_benchmark_record_with_an_empty_history_is_a_conversation_with_no_calls(tmp_path):
    record = FORMATS / "openhands" / "benchmark-record.jsonl"
    empty = {"instance_id": "task-2", "instruction": "do it", "history": [], "error": None}
    log = tmp_path / "output.jsonl"
    log.write_text(record.read_text().rstrip("\n") + "\n" + json.dumps(empty) + "\n")
    report = audit([log])
    assert [f.code for f in report.findings if f.code.startswith("IN")] == []
    assert report.counts.conversations == 2
    # a record of another shape with an empty history is not taken for one
    (tmp_path / "other.jsonl").write_text(json.dumps({"history": [], "id": 1}) + "\n")
    assert [f.code for f in audit([tmp_path / "other.jsonl"]).findings] == ["IN002"]


def test_aider_reasoning_blocks_are_cut_from_the_reply_in_one_pass():
    from auditor.formats.aider import _thinking

    reply = "<think>plan A</think>Here is the edit.<thinking-content-7>why</thinking-content-7>!"
    assert _thinking(reply) == (["plan A", "why"], "Here is the edit.!")
    # an unclosed block is left in the reply, and blocks after it are still read
    assert _thinking("<think>cut off<think>a</think>b") == (["cut off<think>a"], "b")
    assert _thinking("<thinking-content-x>never closed <think>b</think>") == (
        ["b"],
        "<thinking-content-x>never closed",
    )
    assert _thinking("<think> no end") == ([], "<think> no end")
