"""Trace spans (otel), Inspect logs, Gemini/Bedrock exchanges, Managed Agents streams, Agents SDK
run state and MCP traffic: what each reader makes of real samples, and the findings they give."""

from __future__ import annotations

import io
import json
import sys
import zipfile

import orjson
import pytest

from auditor import config, engine, sources
from auditor.formats import FileReader, otel
from auditor.model import Location
from auditor.replay import replay
from tests.helpers import FIXTURES, FORMAT_DIR, ROOT, audit, brief, normalised

OTEL = FORMAT_DIR / "otel"
INSPECT = FORMAT_DIR / "inspect-ai"
REALDATA_NEXT = ROOT.parent / "shared" / "realdata-next"
requires_realdata_next = pytest.mark.skipif(
    not REALDATA_NEXT.is_dir(),
    reason="../shared/realdata-next is not present (it exists on dev machines only)",
)


def _model(path):
    """The Conversations a file gives (model objects, for replay)."""
    reader = FileReader()
    source = sources.Source(str(path), *sources.kind_of(path.name), True)
    out = []
    for record in sources.read(source):
        assert isinstance(record, sources.Record), record
        out.extend(c for c in reader.feed(record) if hasattr(c, "messages"))
    out.extend(c for c in reader.finish() if hasattr(c, "messages"))
    return out


def _shape(conversation: dict) -> list[tuple]:
    """(role, call ids, result id and error flag) of each message."""
    rows = []
    for m in conversation["messages"]:
        calls = tuple(c.get("id") for c in m.get("tool_calls", ()))
        result = m.get("result")
        rows.append(
            (m["role"], calls, (result.get("call_id"), result.get("is_error")) if result else None)
        )
    return rows


# --- OpenTelemetry GenAI / OpenInference spans -------------------------------------------


def test_otel_trace_spread_over_lines_is_one_conversation_with_its_errors():
    ops, ping = normalised(OTEL / "written-errors-across-lines.jsonl")
    assert ping["id"] == "b2" * 16 and [m["text"] for m in ping["messages"]] == ["ping", "pong"]
    assert ops["id"] == "conv-ops-7" and ops["own_id"] is True
    assert _shape(ops) == [
        ("user", (), None),
        ("assistant", ("call_r1",), None),
        ("tool", (), ("call_r1", True)),  # span status ERROR + exception event
        ("assistant", ("call_r2",), None),
        ("tool", (), ("call_r2", True)),  # MCP result with isError: true
        ("assistant", (), None),
    ]
    assert ops["messages"][2]["location"].endswith("jsonl:3/resourceSpans/0/scopeSpans/0/spans/0")
    assert [t["name"] for t in ops["tools"]] == ["restart_service", "run_mcp"]


def test_otel_nested_model_calls_and_the_three_containers_give_one_turn_each():
    """ADK's call_llm wraps OpenLLMetry's openai.chat: the history is read once, not twice."""
    for name in ("tempo-kagent-excerpt.json", "collector-file-exporter.jsonl"):
        (conversation,) = normalised(OTEL / name)
        assert conversation["id"] == "ctx-eff35888-55ab-4eb0-b90d-7b21f711f91f"
        assert _shape(conversation) == [
            ("system", (), None),
            ("user", (), None),
            ("assistant", ("call_w0eKlvnaE7S9GQJeSSs0gn05",), None),
            ("tool", (), ("call_w0eKlvnaE7S9GQJeSSs0gn05", False)),  # MCP isError: false
            ("assistant", (), None),
        ]
    (jaeger,) = normalised(OTEL / "jaeger-kagent-excerpt.json")
    assert jaeger["id"] == "ctx-7ed9780f-3688-4fc0-b10b-2e4df2f83cf0"
    assert [m["role"] for m in jaeger["messages"]] == [
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
    ]


def test_otel_tool_spans_pair_with_calls_that_carry_no_id():
    """any-agent logs calls without ids (LangChain) or ids only on the tool span (Google)."""
    (langchain,) = normalised(OTEL / "any-agent-langchain.json")
    assert _shape(langchain)[2:6] == [
        ("assistant", (None,), None),
        ("tool", (), (None, None)),
        ("assistant", (None,), None),
        ("tool", (), (None, None)),
    ]
    (google,) = normalised(OTEL / "any-agent-google.json")
    assert _shape(google)[2:4] == [
        ("assistant", ("jbUWqgIUr",), None),
        ("tool", (), ("jbUWqgIUr", None)),
    ]
    report = audit([OTEL / "any-agent-langchain.json", OTEL / "any-agent-google.json"])
    assert [brief(f) for f in report.findings] == []


def test_otel_langfuse_exports_read_through_their_attributes():
    (claude,) = normalised(OTEL / "langfuse-claude-agent-2025-12-22.trace.json")
    # the Claude Agent SDK logs each block of one answer as a generation: one turn, two calls
    assert _shape(claude)[1] == (
        "assistant",
        ("toolu_01TKoqQLvY2UWuC49qnD48y7", "toolu_01NtVat4vJLFfVd5TqdLHcA7"),
        None,
    )
    main, evaluator = normalised(OTEL / "langfuse-pydantic-ai-tools-2025-12-04.trace.json")
    assert main["id"] == "7a38edd8123db47ad8dcb8aa4c5e3926"
    assert evaluator["id"] == "7a38edd8123db47ad8dcb8aa4c5e3926/evaluator_agent"
    # the output tool's result exists only in the agent span's `pydantic_ai.all_messages`
    assert evaluator["messages"][-1]["result"]["text"] == "Final result processed."
    (agno,) = normalised(OTEL / "langfuse-agno-2025-06-11.trace.json")
    assert agno["id"] == "35cc6c90-b657-4819-b66c-c931c03ad569"  # the trace's sessionId
    assert _shape(agno)[2:] == [
        ("assistant", ("call_VybxG748CQId8Xxo6wb2pWy1",), None),  # from output.value only
        ("tool", (), ("call_VybxG748CQId8Xxo6wb2pWy1", None)),
        ("assistant", (), None),
    ]
    report = audit(sorted(OTEL.glob("langfuse-*.json")))
    assert [brief(f) for f in report.findings] == []
    assert report.counts.conversations == 8


def test_otel_attribute_maps_one_per_line():
    current, deprecated, tool_span, openinference = normalised(OTEL / "genai-attribute-maps.jsonl")
    assert [m["text"] for m in current["messages"]][-1].startswith("The weather in Paris")
    assert _shape(deprecated) == [
        ("user", (), None),
        ("assistant", ("1234",), None),
        ("tool", (), ("1234", None)),
    ]
    # a tool span whose call no model span shows: the call and its result
    assert _shape(tool_span) == [("assistant", ("1234",), None), ("tool", (), ("1234", None))]
    assert tool_span["own_id"] is False
    assert _shape(openinference) == _shape(current)


def _otlp_line(trace: str, conversation: str) -> bytes:
    attrs = [
        {"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}},
        {"key": "gen_ai.conversation.id", "value": {"stringValue": conversation}},
        {
            "key": "gen_ai.input.messages",
            "value": {"stringValue": '[{"role":"user","parts":[{"type":"text","content":"hi"}]}]'},
        },
    ]
    span = {"traceId": trace, "spanId": "01", "name": "chat", "attributes": attrs}
    return orjson.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]})


def _chat(trace: str, start: int, messages: list, answer: str) -> dict:
    attrs = {
        "gen_ai.operation.name": "chat",
        "gen_ai.conversation.id": "c-1",
        "gen_ai.input.messages": json.dumps(messages),
        "gen_ai.output.messages": json.dumps(
            [{"role": "assistant", "parts": [{"type": "text", "content": answer}]}]
        ),
    }
    return {
        "name": "chat",
        "context": {"trace_id": trace, "span_id": f"{trace}-1"},
        "start_time": start,
        "attributes": attrs,
    }


def test_otel_traces_of_one_conversation_join_in_time_order_each_turn_once(tmp_path):
    def user(text):
        return {"role": "user", "parts": [{"type": "text", "content": text}]}

    def said(text):
        return {"role": "assistant", "parts": [{"type": "text", "content": text}]}

    first = _chat("t1", 1_000, [user("Hi")], "Hello!")
    second = _chat("t2", 2_000, [user("Hi"), said("Hello!"), user("Bye")], "Goodbye!")
    path = tmp_path / "spans.json"
    path.write_text(json.dumps({"spans": [second, first]}))  # exported out of order
    (conversation,) = _model(path)
    assert conversation.id == "c-1"
    assert [(m.role, m.text) for m in conversation.messages] == [
        ("user", "Hi"),
        ("assistant", "Hello!"),
        ("user", "Bye"),
        ("assistant", "Goodbye!"),
    ]


def test_otel_spans_without_genai_attributes_say_so_once(tmp_path):
    http = {"traceId": "ab" * 16, "spanId": "01", "name": "GET /", "attributes": []}
    line = orjson.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [http]}]}]})
    path = tmp_path / "http.jsonl"
    path.write_bytes(line + b"\n" + line.replace(b"ab", b"cd") + b"\n")
    report = audit([path])
    assert [(f.code, f.line, f.message) for f in report.findings] == [
        (
            "IN002",
            1,
            "2 trace(s) of spans, none with GenAI or OpenInference attributes (model calls, "
            "tool executions): nothing to audit",
        )
    ]


def test_otel_memory_is_bounded_by_open_traces_not_by_the_file():
    collector = otel.Collector()
    emitted_early = 0
    for n in range(3 * otel.CONVERSATION_IDLE):
        record = sources.Record(
            Location("t.jsonl", n + 1), orjson.loads(_otlp_line(f"{n:032x}", f"c{n}"))
        )
        emitted_early += sum(1 for item in collector.add(record) if hasattr(item, "messages"))
        assert len(collector._traces) <= otel.TRACE_IDLE
        assert len(collector._conversations) <= otel.CONVERSATION_IDLE
    rest = sum(1 for item in collector.finish() if hasattr(item, "messages"))
    assert emitted_early == 3 * otel.CONVERSATION_IDLE - rest > 0


# --- Inspect ----------------------------------------------------------------------------


def _approvals(path) -> list[tuple]:
    (conversation,) = _model(path)
    return [
        (
            a.name,
            a.approved,
            a.edited,
            a.arguments.get("amount") if isinstance(a.arguments, dict) else a.arguments,
            a.execution.call.arguments.get("amount") if a.execution else None,
        )
        for a in replay(conversation).approvals
    ]


@pytest.mark.parametrize(
    "name", ["approval-demo.json", "approval-demo.eval", "approval-demo-zstd.eval"]
)
def test_inspect_approval_events_are_approvals_the_cf_rules_read(name):
    if name.endswith("zstd.eval") and sys.version_info < (3, 14):
        pytest.importorskip("zstandard")
    assert _approvals(INSPECT / name) == [
        ("get_balance", True, False, None, None),
        ("transfer_funds", True, False, 500, 500),
        ("transfer_funds", False, False, 200, None),  # rejected: it did not run
        ("transfer_funds", True, True, 1000, 1000),  # modified from 2000, ran with 1000
        ("get_balance", True, False, None, None),
    ]
    report = audit([INSPECT / name])
    # the modify was followed and the rejection respected: no CF finding, no tool error loop
    assert [brief(f) for f in report.findings] == []


def test_inspect_approval_error_is_a_denial_not_a_tool_failure():
    (conversation,) = _model(INSPECT / "approval-demo.json")
    rejected = next(m for m in conversation.messages if m.result and m.result.call_id == "call_3")
    assert rejected.result.is_error is False
    assert rejected.approval_decision.approved is False
    assert rejected.approval_decision.reason == "transfers to external accounts are not allowed"
    failed = next(m for m in conversation.messages if m.result and m.result.call_id == "call_5")
    assert failed.result.is_error is True and failed.result.text == "unknown account NOPE-0"


def test_inspect_eval_archive_locations_name_the_member():
    (conversation,) = normalised(INSPECT / "metr-small-excerpt.eval")
    assert conversation["id"] == "CLPhCQJvY7wQmn2ueDnBSn:default:3"
    first_call = next(m for m in conversation["messages"] if m.get("tool_calls"))
    assert first_call["location"].startswith(
        "formats/inspect-ai/metr-small-excerpt.eval/samples/default_epoch_3.json/messages/"
    )


def _zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def test_a_corrupt_eval_is_one_invalid_record(tmp_path):
    path = tmp_path / "broken.eval"
    path.write_bytes(b"PK\x03\x04 not really a zip")
    report = audit([path])
    assert [(f.code, f.line, f.message[:40]) for f in report.findings] == [
        ("IN001", None, "not a readable zip archive (an Inspect .")
    ]


def test_a_bad_member_loses_only_itself(tmp_path, monkeypatch):
    sample = (INSPECT / "approval-demo.json").read_bytes()
    one = orjson.dumps(orjson.loads(sample)["samples"][0])
    path = tmp_path / "two.eval"
    path.write_bytes(
        _zip(
            {
                "header.json": b'{"version": 2, "eval": {"eval_id": "e1"}}',
                "samples/1_epoch_1.json": b"{oops",
                "samples/2_epoch_1.json": one,
            }
        )
    )
    report = audit([path])
    assert [(f.code, f.pointer, f.message) for f in report.findings] == [
        (
            "IN001",
            "/samples/1_epoch_1.json",
            "not valid JSON: unexpected character, expected a string key at line 1",
        )
    ]
    assert report.counts.conversations == 1
    settings = config.build()
    small = type(settings)(**{**settings.__dict__, "max_record_bytes": 100})
    report = engine.audit([str(path)], small)
    assert sorted((f.code, f.pointer, f.message) for f in report.findings) == [
        (
            "IN001",
            "/samples/1_epoch_1.json",
            "not valid JSON: unexpected character, expected a string key at line 1",
        ),
        (
            "IN001",
            "/samples/2_epoch_1.json",
            "zip member larger than 100 bytes uncompressed (`max-record-mb` raises the limit)",
        ),
    ]


def test_zstd_members_without_zstandard_say_how_to_read_them(monkeypatch):
    monkeypatch.setitem(sys.modules, "zstandard", None)
    if sys.version_info >= (3, 14):
        pytest.skip("Python 3.14 reads Zstandard members itself")
    report = audit([INSPECT / "approval-demo-zstd.eval"])
    assert {f.message for f in report.findings} == {
        "zip member compressed with Zstandard (INSPECT_USE_ZSTD): install `zstandard` "
        "(pip install 'transcript-auditor[zstd]') or use Python 3.14+"
    }


# --- exchange dialects: Gemini and Bedrock ----------------------------------------------


def test_gemini_function_response_error_and_ids_named_by_the_next_request():
    (conversation,) = normalised(FORMAT_DIR / "exchange" / "gemini-pydantic-ai-model-retry.jsonl")
    # the answers name no call id; the next request does, and the call takes it
    assert _shape(conversation)[2:6] == [
        ("assistant", ("pyd_ai_1f2bdea4ea804905a3f05dfe5b96a7fb",), None),
        ("tool", (), ("pyd_ai_1f2bdea4ea804905a3f05dfe5b96a7fb", True)),
        ("assistant", ("pyd_ai_9f63eafb0eac47419f4f6c19975e924b",), None),
        # an `output` does not say the call succeeded: its text decides (`None`)
        ("tool", (), ("pyd_ai_9f63eafb0eac47419f4f6c19975e924b", None)),
    ]
    assert [t["name"] for t in conversation["tools"]] == ["get_capital"]


def test_bedrock_tool_result_status_error():
    (conversation,) = normalised(FORMAT_DIR / "exchange" / "bedrock-pydantic-ai-model-retry.jsonl")
    assert _shape(conversation)[3] == ("tool", (), ("tooluse_Ze_bgl9CSqu8aJv7XD-_Dw", True))
    (nock,) = normalised(FORMAT_DIR / "exchange" / "bedrock-nock-recording.json")
    assert nock["tools"][0]["name"] == "calculate"


# --- stream: Claude Managed Agents ------------------------------------------------------


def test_managed_agents_denied_call_is_a_denial_not_a_failure():
    path = FORMAT_DIR / "stream" / "anthropic-managed-mcp-tools-reject.jsonl"
    (conversation,) = _model(path)
    (approval,) = replay(conversation).approvals
    assert (approval.name, approval.approved, approval.execution) == ("web_search_exa", False, None)
    assert approval.decision.reason == "This tool is not allowed in this demo."
    denied = next(m for m in conversation.messages if m.result and m.approval_decision)
    assert denied.result.is_error is False
    assert [brief(f) for f in audit([path]).findings] == []


# --- OpenAI Agents SDK run state --------------------------------------------------------


def test_agents_sdk_pending_approval_is_asked_and_not_an_unanswered_call():
    path = FORMAT_DIR / "openai-agents" / "v1_13_pending_tool_approval.json"
    (conversation,) = _model(path)
    assert conversation.id == "trace_179a5e809d614cf89ac5a1f24b415704" and not conversation.complete
    (approval,) = replay(conversation).approvals
    assert (approval.name, approval.approved, approval.execution) == (
        "historical_approval",
        None,
        None,
    )
    assert [brief(f) for f in audit([path]).findings] == []


def test_agents_sdk_decision_for_every_call_of_a_tool_decides_the_pending_one(tmp_path):
    state = json.loads(
        (FORMAT_DIR / "openai-agents" / "v1_13_pending_tool_approval.json").read_text()
    )
    state["context"]["approvals"] = {"historical_approval": {"approved": True, "rejected": []}}
    path = tmp_path / "state.json"
    path.write_text(json.dumps(state))
    (conversation,) = _model(path)
    (approval,) = replay(conversation).approvals
    assert (approval.approved, approval.decided_at) == (True, 3)


def test_agents_sdk_js_state_reads_camel_case():
    (conversation,) = normalised(FORMAT_DIR / "openai-agents" / "v1.2-nested-approval.json")
    assert [m["role"] for m in conversation["messages"]] == ["user", "assistant", "approval"]
    assert conversation["messages"][2]["location"].endswith(
        "/currentStep/data/interruptions/0/rawItem"
    )


# --- MCP --------------------------------------------------------------------------------


def test_mcp_calls_results_and_declared_tools():
    (cassette,) = normalised(FORMAT_DIR / "mcp" / "mcp-recorder-mock_session.json")
    assert [t["name"] for t in cassette["tools"]] == ["add", "multiply", "echo", "get_weather"]
    assert [c for row in _shape(cassette) for c in row[1]] == ["2", "3", "4", "5"]
    (deepwiki,) = normalised(FORMAT_DIR / "mcp" / "deepwiki-temporal.mcp-jsonrpc.jsonl")
    assert _shape(deepwiki) == [("assistant", ("1",), None), ("tool", (), ("1", False))]


def test_mcp_error_results(tmp_path):
    path = tmp_path / "mcp.jsonl"
    lines = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}},
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "rm", "arguments": {}},
        },
        {
            "jsonrpc": "2.0",
            "id": 1,
            "result": {"content": [{"type": "text", "text": "denied"}], "isError": True},
        },
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "nope", "arguments": {}},
        },
        {"jsonrpc": "2.0", "id": 2, "error": {"code": -32602, "message": "Unknown tool: nope"}},
    ]
    path.write_bytes(b"\n".join(orjson.dumps(line) for line in lines))
    (conversation,) = _model(path)
    results = [m.result for m in conversation.messages if m.result]
    assert [(r.call_id, r.text, r.is_error) for r in results] == [
        ("1", "denied", True),
        ("2", "Unknown tool: nope", True),
    ]


# --- directory walks --------------------------------------------------------------------


def test_walked_json_document_of_no_known_shape_is_skipped_named_one_is_reported(tmp_path):
    (tmp_path / "sources.json").write_text(json.dumps({"baseline": "v0.19.4", "features": []}))
    walked = audit([tmp_path])
    assert walked.findings == ()
    assert [(u.path.rsplit("/", 1)[-1], u.reason) for u in walked.unread] == [
        ("sources.json", "no log shape")
    ]
    named = audit([tmp_path / "sources.json"])
    assert [f.code for f in named.findings] == ["IN002"]


# --- the real samples -------------------------------------------------------------------


@requires_realdata_next
def test_every_real_sample_is_read_and_these_are_its_findings():
    report = audit([REALDATA_NEXT])
    assert not report.errors
    found = sorted((f.code, f.path.rsplit("/", 1)[-1], f.turn) for f in report.findings)
    assert found == [("EX002", "log_tool_call_error.json", turn) for turn in range(11)] + [
        ("LP001", "log_message_deduplication.eval", 1)
    ]
    # JSON that is no log (licences and notes are text of no transcript, read 16 KB each)
    not_logs = [u.path.split("approvals/")[-1] for u in report.unread if u.reason == "no log shape"]
    assert {u.reason for u in report.unread} <= {"type", "no log shape", "no transcript"}
    assert [p.split("/")[0] + "/…/" + p.rsplit("/", 1)[-1] for p in sorted(not_logs)] == [
        "openai-agents-js/…/sources.json",  # the SDKs' provenance lists
        "openai-agents-python/…/sources.json",
    ]
    assert report.counts.conversations == 49


def test_fixture_folders_cover_every_new_format():
    for name in ("otel", "inspect-ai", "openai-agents", "mcp"):
        assert any((FIXTURES / "formats" / name).glob("*.*"))
