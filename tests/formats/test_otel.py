"""Trace spans (`otel/`): OpenTelemetry GenAI and OpenInference spans in each container, read into
conversations, joined across traces, and held in memory only while their traces are open."""

from __future__ import annotations

import json

import orjson

from auditor import sources
from auditor.formats import otel
from auditor.model import Location
from tests.formats.shared import shape_of
from tests.helpers import FORMAT_DIR, audit, brief, conversations, normalised

OTEL = FORMAT_DIR / "otel"


def test_otel_trace_spread_over_lines_is_one_conversation_with_its_errors():
    ops, ping = normalised(OTEL / "written-errors-across-lines.jsonl")
    assert ping["id"] == "b2" * 16 and [m["text"] for m in ping["messages"]] == ["ping", "pong"]
    assert ops["id"] == "conv-ops-7" and ops["own_id"] is True
    assert shape_of(ops) == [
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
        assert shape_of(conversation) == [
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
    assert shape_of(langchain)[2:6] == [
        ("assistant", (None,), None),
        ("tool", (), (None, None)),
        ("assistant", (None,), None),
        ("tool", (), (None, None)),
    ]
    (google,) = normalised(OTEL / "any-agent-google.json")
    assert shape_of(google)[2:4] == [
        ("assistant", ("jbUWqgIUr",), None),
        ("tool", (), ("jbUWqgIUr", None)),
    ]
    report = audit([OTEL / "any-agent-langchain.json", OTEL / "any-agent-google.json"])
    assert [brief(f) for f in report.findings] == []


def test_otel_langfuse_exports_read_through_their_attributes():
    (claude,) = normalised(OTEL / "langfuse-claude-agent-2025-12-22.trace.json")
    # the Claude Agent SDK logs each block of one answer as a generation: one turn, two calls
    assert shape_of(claude)[1] == (
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
    assert shape_of(agno)[2:] == [
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
    assert shape_of(deprecated) == [
        ("user", (), None),
        ("assistant", ("1234",), None),
        ("tool", (), ("1234", None)),
    ]
    # a tool span whose call no model span shows: the call and its result
    assert shape_of(tool_span) == [("assistant", ("1234",), None), ("tool", (), ("1234", None))]
    assert tool_span["own_id"] is False
    assert shape_of(openinference) == shape_of(current)


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
    (conversation,) = conversations(path, strict=True)
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
