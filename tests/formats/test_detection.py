"""Which reader takes what, across readers: a bare item list and what `--input-format` forces,
a walk that reads files by their first bytes and says why it skips the rest, JSON of no known
shape."""

from __future__ import annotations

import json

from auditor import sources
from tests.helpers import FORMAT_DIR, audit, audit_process


def test_bare_item_list_is_responses_and_input_format_forces_another_reading(tmp_path):
    # the first item is `{role, content}` as in an OpenAI list; the second is typed
    items = [
        {"role": "user", "content": "How many open issues?"},
        {"type": "function_call", "call_id": "fc_1", "name": "count", "arguments": "{}"},
    ]
    path = tmp_path / "items.json"
    path.write_text(json.dumps(items))
    (finding,) = audit([path], select=["EX001"]).findings
    assert finding.message == "the transcript ends on `count` call `fc_1` with no result"
    (as_openai,) = audit([path], input_format="openai").findings
    assert (as_openai.code, as_openai.pointer) == ("IN002", "/1")
    assert as_openai.message == "expected a message object with a string `role`"
    (wrong,) = audit([path], input_format="stream").findings
    assert wrong.code == "IN002" and wrong.message.startswith("not a stream record")


def test_walked_json_document_of_no_known_shape_is_skipped_named_one_is_reported(tmp_path):
    (tmp_path / "sources.json").write_text(json.dumps({"baseline": "v0.19.4", "features": []}))
    walked = audit([tmp_path])
    assert walked.findings == ()
    assert [(u.path.rsplit("/", 1)[-1], u.reason) for u in walked.unread] == [
        ("sources.json", "no log shape")
    ]
    named = audit([tmp_path / "sources.json"])
    assert [f.code for f in named.findings] == ["IN002"]


def test_a_walk_reads_logs_by_their_first_bytes_and_says_why_it_skips_the_rest(tmp_path):
    logs = tmp_path / "project"
    logs.mkdir()
    aider = (FORMAT_DIR / "aider" / "mozgoslav-whole-format-excerpt.md").read_text()
    (logs / ".aider.chat.history.md").write_text(aider)  # hidden, but its name promises a log
    chatdev = FORMAT_DIR / "chatdev" / "car-demo-2024-test-passes-excerpt.log"
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
    path.write_bytes((FORMAT_DIR / "chatdev" / "gomoku-2023-06-excerpt.log").read_bytes())
    (record,) = sources.read(sources.Source(str(path), "sniff", False, True))
    assert record.kind == "text"
    assert sources.opens_json(b'[{"a": 1}]') and not sources.opens_json(b"[2023-15-10 INFO] x")
