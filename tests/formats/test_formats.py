"""Each format's fixtures, normalised into the one model and compared with a reviewed snapshot.

`AUDITOR_UPDATE_EXPECTED=1 make test` rewrites the snapshots; review the diff like code.
"""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor import formats
from auditor.formats import Problem
from auditor.model import Location
from tests.helpers import FORMAT_DIR, SNAPSHOTS, UPDATE, audit, examples, normalise, normalised

CASES = sorted(
    p
    for p in FORMAT_DIR.glob("*/*")
    if p.suffix in (".json", ".jsonl", ".traj", ".txt", ".eval", ".log", ".af", ".md")
    and p.name != "NOTICE.md"
)


@pytest.mark.parametrize("case", CASES, ids=[f"{p.parent.name}/{p.name}" for p in CASES])
def test_format_snapshot(case):
    got = normalise(case)
    assert any("conversation" in item for item in got), "a format fixture must yield conversations"
    snapshot = SNAPSHOTS / "formats" / f"{case.parent.name}__{case.name}.snapshot"
    text = json.dumps(_shorten(got), indent=1, ensure_ascii=False) + "\n"
    if os.environ.get(UPDATE):
        snapshot.write_text(text)
    assert text == snapshot.read_text()


def _shorten(value):
    """Long texts cut in the snapshot: the model's shape is what is under review."""
    if isinstance(value, str) and len(value) > 100:
        return f"{value[:80]}… ({len(value)} chars)"
    if isinstance(value, list):
        return [_shorten(v) for v in value]
    if isinstance(value, dict):
        return {k: _shorten(v) for k, v in value.items()}
    return value


def test_fixture_folder_names_are_formats():
    assert {p.name for p in FORMAT_DIR.iterdir() if p.is_dir()} <= set(formats.FORMATS)


def test_every_format_has_fixtures():
    for name in formats.FORMATS:
        assert any((FORMAT_DIR / name).glob("*.*")), f"format {name} has no fixture"


def test_openai_calls_results_and_parts():
    (chat, bare, named, unnamed) = normalised(FORMAT_DIR / "openai" / "chat-completions.jsonl")
    assert chat["id"] == "chat-1" and chat["own_id"] is True
    assert chat["tools"][0]["name"] == "get_weather"
    user = chat["messages"][1]
    assert user["text"] == "Weather in Paris\nand Rome?"
    calls = chat["messages"][2]["tool_calls"]
    assert calls[0]["arguments"] == {"city": "Paris"}
    assert calls[1]["arguments"] is None
    assert calls[1]["arguments_error"].startswith("unexpected end of data")
    assert chat["messages"][2]["reasoning"] == "Two cities: two calls."
    assert chat["messages"][3]["result"] == {"call_id": "call_a", "text": "sunny"}
    assert bare["id"] == "formats/openai/chat-completions.jsonl:2" and not bare.get("own_id")
    assert bare["messages"][1]["tool_calls"][0]["name"] == "now"
    assert bare["messages"][2]["role"] == "tool"
    assert named["id"] == "conv-x"
    assert unnamed["id"] == "formats/openai/chat-completions.jsonl:3#1"


def test_tau_bench_ids_and_pointers():
    _small, loop = normalised(FORMAT_DIR / "tau" / "tau-bench-gpt-4o-airline-excerpt.json")
    assert loop["id"] == "task-8-trial-1"
    assert loop["location"].endswith("tau-bench-gpt-4o-airline-excerpt.json/1")
    assert loop["messages"][30]["tool_calls"][0]["name"] == "book_reservation"
    assert loop["messages"][30]["tool_calls"][0]["location"].endswith("/1/traj/30/tool_calls/0")


def test_tau2_dict_arguments_error_flag_and_user_calls():
    telecom, airline = normalised(FORMAT_DIR / "tau" / "tau2-bench-excerpt.json")
    user_calls = [m for m in telecom["messages"] if m["role"] == "user" and m.get("tool_calls")]
    assert user_calls, "the telecom simulation has calls made by the simulated user"
    first = user_calls[0]["tool_calls"][0]
    assert "raw_arguments" not in first and isinstance(first["arguments"], dict)
    errors = [m["result"] for m in airline["messages"] if m.get("result", {}).get("is_error")]
    assert errors and all(e["call_id"] for e in errors)


def _by_id(path) -> dict[str, dict]:
    return {c["id"]: c for c in normalised(path)}


def _problems(path) -> list[dict]:
    return [i["problem"] for i in normalise(path) if "problem" in i]


def _roles(conversation) -> str:
    return " ".join(m["role"] for m in conversation["messages"])


def _lines(conversation) -> list[int]:
    return [int(m["location"].split(":")[1].split("/")[0]) for m in conversation["messages"]]


def test_anthropic_results_leave_the_user_message_and_keep_their_error_flag():
    weather = _by_id(FORMAT_DIR / "anthropic" / "tool-use.jsonl")["conv_weather"]
    assert weather["format"] == "anthropic" and weather["tools"][0]["name"] == "get_weather"
    assert _roles(weather) == "system user assistant tool tool user assistant"
    turn = weather["messages"][2]
    assert turn["reasoning"] == "Two cities, so two calls."
    assert [c["id"] for c in turn["tool_calls"]] == [
        "toolu_01A09q90qw90lq917835lq9",
        "toolu_01B09q90qw90lq917835lq9",
    ]
    assert weather["messages"][3]["result"] == {
        "call_id": "toolu_01A09q90qw90lq917835lq9",
        "text": "59°F, foggy",
    }
    failed = weather["messages"][4]
    assert failed["result"]["is_error"] is True
    assert failed["location"].endswith(":1/messages/2/content/1")
    assert weather["messages"][5]["text"] == "Never mind Paris."


def test_anthropic_server_tool_results_follow_the_assistant_turn():
    convs = _by_id(FORMAT_DIR / "anthropic" / "tool-use.jsonl")
    search = convs["conv_search"]["messages"]
    assert [m["role"] for m in search] == ["user", "assistant", "tool"]
    assert search[1]["tool_calls"][0]["name"] == "web_search"
    assert search[2]["result"]["call_id"] == search[1]["tool_calls"][0]["id"]
    fetch = convs["conv_fetch_failed"]["messages"][2]["result"]
    assert fetch == {
        "call_id": "srvtoolu_013gia34XNKyTfwHxaPCKEVd",
        "text": "web_fetch_tool_result_error: unavailable",
        "is_error": True,
    }


def test_anthropic_list_is_read_whole_when_a_later_conversation_has_blocks():
    plain, with_tool = normalised(FORMAT_DIR / "anthropic" / "conversations.json")
    assert plain["format"] == with_tool["format"] == "anthropic"
    assert plain["messages"][0] == {
        "index": 0,
        "role": "system",
        "text": "Answer in one word.",
        "location": "formats/anthropic/conversations.json/0/system",
    }
    assert with_tool["messages"][2]["result"]["is_error"] is False


def test_responses_items_of_one_response_are_one_turn():
    history = normalised(FORMAT_DIR / "responses" / "items.jsonl")[1]
    assert _roles(history) == "user assistant tool tool assistant tool assistant"
    patch, search = history["messages"][1]["tool_calls"]
    assert patch["name"] == "apply_patch" and patch["arguments"]["input"].startswith("*** Begin")
    assert "raw_arguments" not in patch
    assert (search["id"], search["name"]) == ("ws_67ccf18ef5fc", "web_search")
    assert history["messages"][2]["result"] == {
        "call_id": "ws_67ccf18ef5fc",
        "text": "completed",
        "is_error": False,
        "name": "web_search",
    }
    assert history["messages"][5]["result"]["text"] == "3 passed"


def test_responses_api_call_record_waits_for_the_next_request():
    weather = normalised(FORMAT_DIR / "responses" / "items.jsonl")[0]
    assert weather["complete"] is False
    assert weather["messages"][0] == {
        "index": 0,
        "role": "system",
        "text": "You are a weather bot.",
        "location": "formats/responses/items.jsonl:1/instructions",
    }
    assert weather["messages"][2]["reasoning"] == "The user wants the weather: call the tool."
    report = audit([FORMAT_DIR / "responses" / "items.jsonl"], select=["EX001", "EX002"])
    assert report.findings == ()


def test_responses_mcp_approvals_become_approval_events():
    approved, denied = normalised(FORMAT_DIR / "responses" / "items.jsonl")[2:]
    assert [t["name"] for t in approved["tools"]] == ["ask_question"]
    request, decision, turn, result = approved["messages"][1:]
    assert request["role"] == decision["role"] == "approval"
    assert request["approval_request"]["id"] == "mcpr_682d498e3bd4"
    # As logged: a JSON string stays text, so CF002 can compare it with the call's.
    assert json.loads(request["approval_request"]["arguments"])["repoName"].startswith(
        "modelcontext"
    )
    assert decision["approval_decision"] == {
        "request_id": "mcpr_682d498e3bd4",
        "approved": True,
        "arguments": None,
    }
    assert turn["tool_calls"][0]["approval_request_id"] == "mcpr_682d498e3bd4"
    assert result["result"]["text"] == "stdio and Streamable HTTP"
    assert denied["messages"][2]["approval_decision"]["approved"] is False
    assert denied["messages"][2]["approval_decision"]["reason"] == "Not today."
    assert denied["messages"][4]["result"]["is_error"] is True


def test_exchanges_that_repeat_a_conversation_add_only_what_is_new():
    path = FORMAT_DIR / "exchange" / "gateway-chat-completions.jsonl"
    cancel, weather, joke = normalised(path)
    assert cancel["id"] == "formats/exchange/gateway-chat-completions.jsonl:1"
    assert _lines(cancel) == [1, 1, 1, 3, 3]
    assert cancel["messages"][3]["result"]["call_id"] == "call_a1"
    # the request of line 4 failed (500): its tool result counts, the retry adds only its answer
    assert _lines(weather) == [2, 2, 4, 5]
    assert weather["messages"][0]["location"].endswith(":2/request/body/messages/0")
    assert weather["messages"][3]["tool_calls"][0]["id"] == "call_b2"
    assert all(c["complete"] is False for c in (cancel, weather, joke))
    (streamed,) = _problems(path)
    assert streamed["location"].endswith(":6/response/body")
    assert streamed["reason"] == "body is not JSON (a streamed response?)"
    assert streamed["conversation"] == joke["id"]


def test_exchange_trailing_call_waits_for_a_request_the_log_does_not_hold():
    report = audit([FORMAT_DIR / "exchange"], select=["EX001", "EX002"])
    assert report.findings == ()
    assert report.counts.conversations == 17


def test_exchange_recordings_of_each_api():
    (anthropic,) = normalised(
        FORMAT_DIR / "exchange" / "pydantic-ai-anthropic-strict-tool-run.jsonl"
    )
    assert _roles(anthropic) == "system user assistant tool assistant tool assistant"
    assert _lines(anthropic) == [1, 1, 1, 2, 2, 3, 3]
    (retry,) = normalised(FORMAT_DIR / "exchange" / "pydantic-ai-openai-responses-retry.jsonl")
    assert len(retry["messages"][1]["tool_calls"]) == 2
    assert [m["result"]["call_id"] for m in retry["messages"][2:4]] == [
        "call_LWVp74L5HaH2KNvgVz9PJsrj",
        "call_YnRAWeTyxI91m5uNa5bxXwVO",
    ]
    (body,) = normalised(FORMAT_DIR / "exchange" / "responses-response-body.json")
    assert body["id"] == "resp_68c1d3a0" and body["own_id"] is True
    assert body["tools"] == [
        {"name": "create_short_url", "parameters": body["tools"][0]["parameters"]}
    ]
    assert body["messages"][0]["tool_calls"][0]["approval_request_id"] == "mcpr_04f6b174"
    (message,) = normalised(FORMAT_DIR / "exchange" / "anthropic-response-body.json")
    assert message["id"] == "msg_01Aq9w938a90dw8q" and message["complete"] is False


def test_stream_groups_interleaved_sessions_each_message_at_its_line():
    sessions = _by_id(FORMAT_DIR / "stream" / "sessions.jsonl")
    assert list(sessions) == ["c1", "c2", "t1", "tr-7"]
    c1 = sessions["c1"]
    assert _lines(c1) == [1, 3, 4, 5, 7, 9, 10]  # line 8 is an event with no message
    assert c1["tools"][0]["name"] == "book_flight"
    assert c1["messages"][3]["approval_request"]["call_id"] == "call_1"
    assert c1["messages"][4]["approval_decision"] == {
        "request_id": "apr_1",
        "approved": True,
        "arguments": '{"flight": "LX318", "date": "2025-06-03"}',
    }
    assert _lines(sessions["c2"]) == [2, 6]
    assert sessions["t1"]["messages"][1]["tool_calls"][0]["id"] == "fc_1"
    merged = sessions["tr-7"]["messages"][1]
    assert merged["text"] == "Pinging."
    assert (
        merged["tool_calls"][0]["location"] == "formats/stream/sessions.jsonl:17/message/content/0"
    )


def test_claude_code_blocks_merge_and_a_rejection_is_a_denied_approval():
    (session,) = normalised(FORMAT_DIR / "stream" / "claude-code-short.jsonl")
    assert session["id"] == "55604662-cf2a-4331-851a-ec234028f8ca"
    assert _roles(session) == "user assistant tool tool user"
    turn = session["messages"][1]
    assert [c["location"].split(":")[1] for c in turn["tool_calls"]] == [
        "8/message/content/0",
        "10/message/content/0",
    ]
    for message, call in zip(session["messages"][2:4], turn["tool_calls"], strict=True):
        assert message["result"]["is_error"] is False
        assert message["approval_decision"] == {
            "request_id": call["id"],
            "approved": False,
            "arguments": None,
        }


def test_claude_code_progress_lines_and_subagents():
    path = FORMAT_DIR / "stream" / "claude-code-subagent-excerpt.jsonl"
    (main,) = normalised(path)
    kinds = [json.loads(line)["type"] for line in path.read_text().splitlines()]
    progress = {i for i, kind in enumerate(kinds, 1) if kind == "progress"}
    # hook output, and a copy of the subagent's own messages: no message comes from them
    assert {26, 27, 28} <= progress and not progress & set(_lines(main))
    second = main["messages"][7]
    assert [c["name"] for c in second["tool_calls"]] == ["Glob", "WebSearch"]
    assert _lines(main)[7:10] == [17, 21, 23]  # a result logged between two blocks of one turn
    (agent,) = normalised(FORMAT_DIR / "stream" / "claude-code-agent-file-excerpt.jsonl")
    assert agent["id"] == "4d5611e5-241a-462a-8d15-5122611a9569/agent-a2898e3"


def test_codex_rollouts_read_response_items_once():
    (cli,) = normalised(FORMAT_DIR / "stream" / "codex-cli-rollout-excerpt.jsonl")
    assert cli["id"] == "019e1625-789d-76c0-80ab-3724b5ddb799" and cli["own_id"] is True
    users = [m for m in cli["messages"] if m["role"] == "user"]
    assert [m["text"] for m in users][1:] == [
        "show tools",
        "let's update the defailt context compart to 90 in env var",
    ]
    assert all(m["location"].endswith("/payload") for m in cli["messages"])
    calls = [c for m in cli["messages"] for c in m.get("tool_calls", [])]
    assert [c["name"] for c in calls] == [
        "exec_command",
        "write_stdin",
        "web_search",
        "update_plan",
        "apply_patch",
    ]
    assert calls[2]["id"] == "web_search_call@26"
    assert set(calls[4]["arguments"]) == {"input"}
    (desktop,) = normalised(FORMAT_DIR / "stream" / "codex-desktop-rollout-excerpt.jsonl")
    users = [m for m in desktop["messages"] if m["role"] == "user"]
    assert [int(m["location"].split(":")[1].split("/")[0]) for m in users] == [2, 8, 10]
    report = audit([FORMAT_DIR / "stream"], select=["EX001", "EX002"])
    assert report.findings == ()


def test_sharegpt_calls_and_observations_pair_in_order():
    single, parallel = normalised(FORMAT_DIR / "sharegpt" / "glaive-function-calling.json")
    assert single["tools"][0]["name"] == "get_weather"
    assert single["messages"][2]["tool_calls"][0]["arguments"] == {"city": "Paris"}
    assert single["messages"][3]["result"]["text"] == '{"temperature": 21, "sky": "clear"}'
    assert _roles(parallel) == "user assistant tool tool assistant"
    assert [m["result"]["text"] for m in parallel["messages"][2:4]] == [
        '{"temperature":21}',
        '{"temperature":27}',
    ]
    (bad,) = _problems(FORMAT_DIR / "sharegpt" / "chat.jsonl")
    assert bad["location"] == "formats/sharegpt/chat.jsonl:3/conversations/1"
    assert bad["evidence"] == "search(query='cats')"


def test_swe_agent_text_actions_are_executed_calls():
    (run,) = normalised(FORMAT_DIR / "swe-agent" / "networking_1.traj")
    calls = [c for m in run["messages"] for c in m.get("tool_calls", [])]
    assert {c["origin"] for c in calls} == {"text"}
    assert calls[0] == {
        "id": "action-2",
        "name": "tshark",
        "arguments": {"command": "tshark -n -r networking.pcap -q -z io,phs"},
        "origin": "text",
        "location": "formats/swe-agent/networking_1.traj/history/2/action",
    }
    results = [m["result"]["call_id"] for m in run["messages"] if "result" in m]
    assert results == [c["id"] for c in calls[:-1]]  # the final submit has no observation
    assert calls[-1]["name"] == "submit"
    (fenced,) = normalised(FORMAT_DIR / "swe-agent" / "fenced-actions.traj")
    assert _roles(fenced) == "system user assistant tool assistant user assistant tool assistant"
    assert "tool_calls" not in fenced["messages"][4]  # no command: SWE-agent's format error
    (structured,) = normalised(FORMAT_DIR / "swe-agent" / "function_calling_simple.traj")
    assert structured["messages"][3]["result"]["call_id"] == "call_PbWErNIge3YTrli3fiVvmIid"
    assert audit([FORMAT_DIR / "swe-agent"], select=["EX001", "EX002"]).findings == ()


def test_multiagent_speakers_and_roles():
    (hand,) = normalised(FORMAT_DIR / "multiagent" / "who-and-when-hand-crafted-1.json")
    assert [(m["role"], m.get("name")) for m in hand["messages"][:5]] == [
        ("user", None),
        ("assistant", "Orchestrator (thought)"),
        ("assistant", "Orchestrator (thought)"),
        ("assistant", "Orchestrator (-> WebSurfer)"),
        ("assistant", "WebSurfer"),
    ]
    (algo,) = normalised(FORMAT_DIR / "multiagent" / "who-and-when-algorithm-generated-17.json")
    assert [m["role"] for m in algo["messages"][:3]] == ["user", "assistant", "user"]
    assert algo["messages"][2]["name"] == "Computer_terminal"
    (ag2,) = normalised(FORMAT_DIR / "multiagent" / "ag2-chat-history.json")
    assert _roles(ag2) == "user assistant tool assistant tool assistant"


def test_multiagent_code_blocks_an_executor_ran_are_calls_and_its_report_their_result():
    (ag2,) = normalised(FORMAT_DIR / "multiagent" / "ag2-chat-history.json")
    python, sh = (ag2["messages"][i]["tool_calls"] for i in (1, 3))
    assert [(c["id"], c["name"], c["origin"]) for c in python + sh] == [
        ("exec-2-0", "python", "text"),
        ("exec-4-0", "sh", "text"),
    ]
    assert sh[0]["arguments"] == {"code": "pip install yfinance"}
    assert [ag2["messages"][i]["result"]["is_error"] for i in (2, 4)] == [True, False]
    # AG2 ran both blocks of the task message, stopped at the first (an IndentationError: its
    # traceback names tmp_code_<md5 of that block>), so the second block never ran
    (weather,) = normalised(FORMAT_DIR / "multiagent" / "who-and-when-algorithm-generated-112.json")
    first, report = weather["messages"][:2]
    assert first["role"] == "user" and [c["id"] for c in first["tool_calls"]] == ["exec-1-0"]
    assert first["tool_calls"][0]["arguments"]["code"].startswith("   import pandas as pd\n")
    assert report["role"] == "tool" and report["result"]["is_error"] is True
    assert "YOUR_API_KEY" in weather["messages"][4]["tool_calls"][0]["arguments"]["code"]
    assert weather["messages"][5]["result"]["is_error"] is True
    # Magentic-One: the terminal runs the first block of the latest message that holds one,
    # past the orchestrator's instruction and its `(thought)` notes
    (m1,) = normalised(FORMAT_DIR / "multiagent" / "who-and-when-hand-crafted-58-excerpt.json")
    assert _roles(m1) == "user assistant assistant assistant assistant assistant assistant tool"
    (call,) = m1["messages"][3]["tool_calls"]
    assert (call["id"], call["name"]) == ("exec-7-0", "python")
    assert call["arguments"]["code"].startswith("# filename: fetch_issues.py\n")
    assert m1["messages"][7]["result"] == {
        "call_id": "exec-7-0",
        "text": "The script ran, then exited with Unix exit code: 0\nIts output was:\n"
        "No issues found with the specified label.",
        "is_error": False,
    }


def test_multiagent_web_surfer_actions_are_calls_and_the_page_their_result():
    (hand,) = normalised(FORMAT_DIR / "multiagent" / "who-and-when-hand-crafted-1.json")
    action, page = hand["messages"][4:6]
    assert action["text"] == (
        "I typed 'martial arts schools near the New York Stock Exchange' into "
        "'0 characters out of 2000'."
    )
    assert action["tool_calls"] == [
        {
            "id": "web-4",
            "name": "input_text",
            "arguments": {
                "text_value": "martial arts schools near the New York Stock Exchange",
                "input_field": "0 characters out of 2000",
            },
            "origin": "text",
        }
    ]
    assert page["role"] == "tool" and page["result"]["call_id"] == "web-4"
    assert page["text"].startswith("Here is a screenshot of [martial arts schools")
    assert page["location"] == action["location"]  # one history entry, two messages


def test_harmony_frames_calls_results_and_declared_tools():
    (weather,) = normalised(FORMAT_DIR / "harmony" / "test_does_not_drop_if_ongoing_analysis.txt")
    turn, result = weather["messages"][1:]
    assert turn["reasoning"].startswith("User asks")
    assert turn["tool_calls"][0]["name"] == "lookup_weather"
    assert turn["tool_calls"][0]["arguments"] == {"location": "San Francisco"}
    assert result["result"]["name"] == "lookup_weather"
    (streamed,) = normalised(FORMAT_DIR / "harmony" / "test_streamable_parser.txt")
    assert streamed["messages"][0]["tool_calls"][0]["name"] == "browser.search"
    (declared,) = normalised(FORMAT_DIR / "harmony" / "test_browser_and_function_tool.txt")
    assert [t["name"] for t in declared["tools"]] == [
        "browser.search",
        "browser.open",
        "browser.find",
        "lookup_weather",
    ]
    (finals,) = normalised(FORMAT_DIR / "harmony" / "test_keep_analysis_between_finals.txt")
    assert [(m["role"], m["text"], m.get("reasoning")) for m in finals["messages"]] == [
        ("user", "What is 2 + 2?", None),
        ("assistant", "4", None),
        ("user", "What is 3 + 5?", None),
        ("assistant", "8", "thinking 3+5"),
    ]


def test_harmony_transcript_ending_on_a_call_reports_it():
    report = audit([FORMAT_DIR / "harmony"], select=["EX001", "EX002"])
    (finding,) = report.findings
    assert finding.path.endswith("test_multi_turn_auto_drop_analysis.txt")
    assert (finding.code, finding.line, finding.turn, finding.tool) == ("EX001", 6, 6, "python")
    assert finding.message == "the transcript ends on `python` call with no result"


def test_exchange_requests_naming_a_stored_conversation_continue_it():
    path = FORMAT_DIR / "exchange" / "responses-stored-state.jsonl"
    chain, stored = normalised(path)
    assert _roles(chain) == "user assistant tool assistant user assistant"
    assert _lines(chain) == [1, 1, 2, 2, 3, 3]
    assert chain["messages"][2]["result"]["call_id"] == "call_001"
    # the Conversations API: each request sends only its new input
    assert stored["id"] == "conv_689667905b048191b4740501625afd940c7533ace33a2dab"
    assert stored["own_id"] is True
    assert _roles(stored) == "user assistant user assistant"
    assert _lines(stored) == [4, 4, 5, 5]


def test_a_session_of_events_without_messages_is_reported(tmp_path):
    path = tmp_path / "spans.jsonl"
    lines = [
        {"trace_id": "t1", "type": "span", "name": "retrieve"},
        {"trace_id": "t1", "type": "span", "name": "generate"},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    report = audit([path])
    (finding,) = report.findings
    assert (finding.code, finding.line, finding.conversation) == ("IN002", 1, "t1")
    assert finding.message == "no line of session `t1` holds a message (`span`)"
    assert report.counts.records == 2 and report.counts.conversations == 0


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


# Anthropic's reader takes a body without blocks (a Chat Completions request in a gateway log)
# message by message, without drafts: it must give what the drafts give, problems included.
_TEXTS = st.sampled_from(["", " ", "\n\t", "hello", " hi ", "a\nb"])
_CONTENTS = st.one_of(
    st.none(),
    _TEXTS,
    st.lists(st.fixed_dictionaries({"type": st.just("text"), "text": _TEXTS}), max_size=2),
    st.just([{"type": "tool_use", "id": "t1", "name": "f", "input": {}}]),  # blocks: drafts
    st.just([{"type": "web_search_tool_result", "tool_use_id": "s1", "content": []}]),
    st.just(7),
)
_CALLS = st.lists(
    st.fixed_dictionaries(
        {
            "id": st.sampled_from(["c1", "c2"]),
            "type": st.just("function"),
            "function": st.fixed_dictionaries(
                {"name": st.sampled_from(["f", ""]), "arguments": st.sampled_from(["{}", "{"])}
            ),
        }
    ),
    max_size=2,
)
_MESSAGES = st.one_of(
    st.fixed_dictionaries(
        {"role": st.sampled_from(["user", "assistant", "system", "tool", "function"])},
        optional={
            "content": _CONTENTS,
            "tool_calls": st.one_of(_CALLS, st.just("x")),
            "tool_call_id": st.sampled_from(["c1", "c9"]),
            "name": st.sampled_from(["bob", 3]),
            "reasoning_content": st.one_of(_TEXTS, st.just(1)),
            "is_error": st.booleans(),
        },
    ),
    st.sampled_from([{"content": "no role"}, "text", 1, {"role": 2}]),
)


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(_MESSAGES, max_size=6),
    st.one_of(st.none(), _TEXTS, st.just([{"type": "text", "text": "be brief"}])),
)
def test_anthropic_plain_bodies_read_as_their_drafts(items, system):
    from auditor.formats import anthropic
    from auditor.formats._common import freeze

    body: dict = {"messages": items}
    if system is not None:
        body["system"] = system
    here = Location("gateway.jsonl", 3, "/request")
    fast: list[Problem] = []
    slow: list[Problem] = []
    assert anthropic.messages(body, here, fast) == freeze(anthropic.drafts(body, here, slow))
    assert fast == slow
