"""Property tests: any record, however malformed, is read without a crash and is counted."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from auditor.sources.kinds import BINARY_HEAD, why_not_a_log
from tests.helpers import audit, examples

scalars = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8)
)
json_values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=12,
)
roles = st.sampled_from(["user", "assistant", "tool", "system", "function", "developer", 7, None])
ids = st.sampled_from(["a", "b", "c", None, 1, ""])
call = st.fixed_dictionaries(
    {},
    optional={
        "id": ids,
        "type": st.just("function"),
        "function": st.fixed_dictionaries(
            {},
            optional={
                "name": st.sampled_from(["f", "g", "", None, 3]),
                "arguments": json_values | st.text(max_size=12),
            },
        )
        | json_values,
        "name": st.sampled_from(["f", "g"]),
        "arguments": json_values,
    },
)
message = st.fixed_dictionaries(
    {"role": roles},
    optional={
        "content": json_values,
        "tool_calls": st.lists(call | json_values, max_size=3) | json_values,
        "tool_call_id": ids,
        "id": ids,
        "function_call": json_values,
        "error": json_values,
    },
)
conversation = st.fixed_dictionaries(
    {"messages": st.lists(message | json_values, max_size=6)},
    optional={"id": ids, "tools": json_values},
)
tau_entry = st.fixed_dictionaries(
    {"traj": st.lists(message, max_size=5)}, optional={"task_id": json_values, "trial": json_values}
)
tau_and_openai = conversation | tau_entry | st.lists(message, min_size=1, max_size=4)


# The other formats' shapes, built from the same loose parts.
block = st.fixed_dictionaries(
    {
        "type": st.sampled_from(
            [
                "text",
                "tool_use",
                "tool_result",
                "thinking",
                "server_tool_use",
                "web_search_tool_result",
                "image",
                3,
            ]
        )
    },
    optional={
        "id": ids,
        "name": st.sampled_from(["f", "", None]),
        "input": json_values,
        "tool_use_id": ids,
        "content": json_values | st.just("The user doesn't want to proceed with this tool use."),
        "is_error": json_values,
        "text": json_values,
        "thinking": json_values,
    },
)
anthropic_message = st.fixed_dictionaries(
    {"role": roles, "content": st.lists(block | json_values, max_size=4) | json_values},
    optional={"id": ids},
)
item = st.fixed_dictionaries(
    {
        "type": st.sampled_from(
            [
                "message",
                "reasoning",
                "function_call",
                "function_call_output",
                "custom_tool_call",
                "mcp_call",
                "mcp_approval_request",
                "mcp_approval_response",
                "mcp_list_tools",
                "web_search_call",
                "computer_call",
                "shell_call_output",
                "unknown",
                None,
            ]
        )
    },
    optional={
        "role": roles,
        "content": json_values,
        "call_id": ids,
        "id": ids,
        "name": st.sampled_from(["f", "", None, 1]),
        "arguments": json_values | st.text(max_size=12),
        "output": json_values,
        "error": json_values,
        "approval_request_id": ids,
        "approve": json_values,
        "summary": json_values,
        "tools": json_values,
        "input": json_values,
    },
)
anthropic_conversation = st.fixed_dictionaries(
    {"messages": st.lists(anthropic_message, min_size=1, max_size=4)},
    optional={"system": json_values, "tools": st.just([{"name": "f", "input_schema": {}}])},
)
responses_record = st.fixed_dictionaries(
    {"input": st.lists(item, min_size=1, max_size=4) | json_values},
    optional={
        "output": st.lists(item, max_size=4),
        "tools": json_values,
        "instructions": json_values,
    },
) | st.lists(item, min_size=1, max_size=4)
body = anthropic_conversation | responses_record | conversation | json_values
exchange = st.fixed_dictionaries(
    {"request": st.fixed_dictionaries({}, optional={"body": body | st.text(max_size=8)}) | body},
    optional={
        "response": st.fixed_dictionaries({}, optional={"status": json_values, "body": body})
        | st.fixed_dictionaries(
            {
                "object": st.just("chat.completion"),
                "choices": st.lists(
                    json_values | st.fixed_dictionaries({"message": message}), max_size=2
                ),
            }
        )
        | st.fixed_dictionaries(
            {
                "type": st.just("message"),
                "role": st.just("assistant"),
                "model": st.just("m"),
                "content": st.lists(block, max_size=3),
            }
        )
        | json_values
    },
)
keys = st.sampled_from(["session_id", "sessionId", "conversation_id", "thread_id", "trace_id"])
stream_line = (
    st.builds(lambda k, v, rest: {k: v, **rest}, keys, ids, anthropic_message | item | message)
    | st.builds(
        lambda k, v, m, kind, agent: {k: v, "type": kind, "message": m, **agent},
        keys,
        ids,
        anthropic_message | json_values,
        st.sampled_from(["user", "assistant", "progress", "system"]),
        st.fixed_dictionaries({}, optional={"agentId": ids, "isSidechain": json_values}),
    )
    | st.builds(
        lambda k, v, kind, rest: {k: v, "type": kind, **rest},
        keys,
        ids,
        st.sampled_from(["approval_request", "approval_response", "span"]),
        st.fixed_dictionaries(
            {},
            optional={
                "id": ids,
                "request_id": ids,
                "call_id": ids,
                "approved": json_values,
                "arguments": json_values,
                "name": json_values,
            },
        ),
    )
    | st.builds(
        lambda kind, payload: {"type": kind, "payload": payload},
        st.sampled_from(["session_meta", "response_item", "event_msg", "turn_context"]),
        item
        | st.fixed_dictionaries(
            {"type": st.just("user_message")}, optional={"message": json_values, "id": ids}
        ),
    )
)
history = st.lists(
    st.fixed_dictionaries(
        {"role": roles, "content": json_values},
        optional={
            "name": json_values,
            "agent": st.just("primary"),
            "action": json_values,
            "tool_calls": json_values,
            "tool_call_ids": json_values,
        },
    )
    | json_values,
    min_size=1,
    max_size=5,
)
other_record = (
    anthropic_conversation
    | responses_record
    | exchange
    | stream_line
    | st.fixed_dictionaries({"history": history}, optional={"trajectory": json_values})
    | st.fixed_dictionaries(
        {
            "conversations": st.lists(
                st.fixed_dictionaries(
                    {
                        "from": st.sampled_from(
                            ["human", "gpt", "function_call", "observation", "x"]
                        )
                    },
                    optional={"value": json_values | st.text(max_size=12)},
                )
                | json_values,
                min_size=1,
                max_size=5,
            )
        },
        optional={"tools": json_values | st.text(max_size=8), "system": json_values},
    )
)

record = tau_and_openai | other_record | json_values


@settings(
    max_examples=examples(300),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(st.lists(record, min_size=1, max_size=5))
def test_any_records_are_read_without_crash_and_counted(tmp_path, records):
    path = tmp_path / "fuzz.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    report = audit([path])
    assert report.errors == (), report.errors
    assert report.counts.records == len(records)
    for f in report.findings:
        assert f.line is not None and 1 <= f.line <= len(records)


@settings(
    max_examples=examples(300),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(st.binary(max_size=400))
@example(b"\x1f\x8b")  # a .gz that ends after its magic: one IN001, not silence
@example(b"\x00\n\x00")  # a NUL byte: a binary file, one finding
def test_any_bytes_are_read_without_crash_and_every_line_counted(tmp_path, data):
    path = tmp_path / "noise.jsonl"
    path.write_bytes(data)
    report = audit([path])
    assert report.errors == ()
    unreadable = [f for f in report.findings if f.code == "IN001"]
    if why_not_a_log(data[:BINARY_HEAD]) is not None:  # an image or archive: one finding
        assert report.counts.records == 1 and len(unreadable) == 1
        return
    # A UTF-8 byte order mark at the start of the file is not content.
    text = data.removeprefix(b"\xef\xbb\xbf")
    non_blank = [line for line in text.split(b"\n") if line.strip()]
    assert report.counts.records == len(non_blank)
    assert len(unreadable) <= len(non_blank)


@settings(
    max_examples=examples(200),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(record)
# one message-shaped document that holds no conversation: the structural reader's IN002, found
# by this test once with no line
@example({"session_id": None, "type": "function_call_output"})
def test_any_document_is_read_without_crash_and_its_findings_have_lines(tmp_path, value):
    path = tmp_path / "fuzz.json"
    path.write_text(json.dumps(value, indent=1))
    report = audit([path])
    assert report.errors == (), report.errors
    lines = path.read_text().count("\n") + 1
    assert all(f.line is not None and 1 <= f.line <= lines for f in report.findings)


harmony_text = st.lists(
    st.sampled_from(
        [
            "<|start|>",
            "<|message|>",
            "<|end|>",
            "<|call|>",
            "<|return|>",
            "<|channel|>",
            "<|constrain|>",
            "assistant",
            "user",
            "system",
            "developer",
            " to=functions.f",
            "to=browser.search",
            "functions.f",
            "analysis",
            "final",
            " json",
            '{"a": 1}',
            "{",
            "\n",
            "x",
            "# Tools\n\n## functions\n\nnamespace functions {\ntype f = () => any;\n",
        ]
    ),
    max_size=30,
).map("".join)


@settings(
    max_examples=examples(300),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(harmony_text)
def test_any_harmony_text_is_read_without_crash(tmp_path, text):
    path = tmp_path / "fuzz.txt"
    path.write_text(text)
    report = audit([path])
    assert report.errors == (), report.errors
    if "<|start|>" in text and "<|message|>" in text:
        lines = text.count("\n") + 1
        assert all(f.line is not None and 1 <= f.line <= lines for f in report.findings)
    else:  # not a harmony transcript: named on the command line, it is one unrecognised record
        assert [f.code for f in report.findings] == ["IN002"]
