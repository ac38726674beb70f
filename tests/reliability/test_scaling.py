"""Every reader linear in its input (issue 37, item 4): each reads its fixture grown to 1x, 2x
and 4x (one conversation made longer: its list of messages or events, or its lines, repeated),
and the shapes that were once quadratic (aider's unclosed fences and `<think>` tags, Cline's
calls answered by another tool's sections, results in reverse order, a chain of nested spans,
a recording rewound at every line).

What is compared is the CPU time of this process reading each size (best of a few runs, with
the cyclic garbage collector off: its cost is CPython's, see docs/performance.md), as a ratio:
a linear reader takes about 4x as long for 4x the input, a quadratic one about 16x. A ratio
past the bound is measured once more before the test fails, so a burst of load on the machine
is not a failure. No time is asserted, only how it grows.
"""

from __future__ import annotations

import gc
import json
import math
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from auditor import formats, sources
from auditor.formats import FileReader
from auditor.model import Conversation
from tests.helpers import FORMAT_DIR

BASE_BYTES = 400_000
"""The least size of the 1x input."""
LEAST_SECONDS = 0.02
"""The 1x input is grown until it takes at least this long to read (up to 16 times
`BASE_BYTES`): a read of a few milliseconds is mostly noise."""
RUNS = 3
MOST_GROWTH = 9
"""The bound on the ratio of 4x to 1x: linear is 4 (up to about 7 where the larger input no
longer fits the processor's caches), quadratic 16 (12.5 to 16 measured on the shapes below
before their fixes)."""


# --- growing a fixture ----------------------------------------------------------------------


def _longest_list(value: object) -> tuple | None:
    """The path to the list of a document holding the most bytes: its messages or events."""
    best: tuple[int, tuple | None] = (0, None)
    stack: list[tuple[object, tuple]] = [(value, ())]
    while stack:
        node, path = stack.pop()
        if isinstance(node, list):
            if len(node) >= 2:
                best = max(best, (len(json.dumps(node)), path), key=lambda b: b[0])
            stack.extend((child, (*path, i)) for i, child in enumerate(node))
        elif isinstance(node, dict):
            stack.extend((child, (*path, key)) for key, child in node.items())
    return best[1]


def grown(fixture: Path, times: int, paths: tuple[tuple, ...] = ()) -> bytes:
    """The fixture with its conversation `times` as long: the items after the first of each
    list at `paths` (by default the longest list) repeated; for JSON Lines and text logs, the
    lines after the first."""
    data = fixture.read_bytes()
    if fixture.parent.name == "openai-agents":  # its items must differ: ids are read once
        return _numbered_items(json.loads(data), times)
    if fixture.suffix not in (".json", ".traj", ".af"):
        first, *rest = data.splitlines(keepends=True)
        return first + b"".join(rest) * times
    document = {"": json.loads(data)}  # a holder, so that the document itself may be the list
    for path in paths or (_longest_list(document[""]),):
        holder, key = document, ""
        for step in path or ():
            holder, key = holder[key], step
        holder[key] = holder[key][:1] + holder[key][1:] * times
    return json.dumps(document[""]).encode()


def _numbered_items(state: dict, times: int) -> bytes:
    """A run state whose call and its approval request are repeated `times`, ids numbered."""
    items = []
    for i in range(times):
        for item in state["generated_items"]:
            raw = item["raw_item"] | {"call_id": f"c{i}", "id": str(i)}
            items.append(item | {"raw_item": raw})
    return json.dumps(state | {"generated_items": items}).encode()


# --- the hostile shapes ---------------------------------------------------------------------


def aider_unclosed(n: int) -> bytes:
    reply = "Here it is.\n```python\nx = 1\n<think>why\n" * n
    return f"# aider chat started at 2024-08-09 17:24:39\n\n#### go\n\n{reply}\n".encode()


def cline_other_sections(n: int) -> bytes:
    def say(kind: str, text: str) -> dict:
        return {"ts": 1, "type": "say", "say": kind, "text": text}

    request = "".join(f"[search_files for 'x{i}'] Result:\nnothing\n" for i in range(n))
    items = [say("task", "go"), say("api_req_started", json.dumps({"request": "go"}))]
    items += [say("tool", json.dumps({"tool": "readFile", "path": f"f{i}"})) for i in range(n)]
    items.append(say("api_req_started", json.dumps({"request": request})))
    return json.dumps(items).encode()


def structural_reversed(n: int) -> bytes:
    calls = [{"name": "f", "args": {"a": i}, "id": f"c{i}", "type": "tool_call"} for i in range(n)]
    items = [
        {"type": "human", "data": {"content": "go", "type": "human"}},
        {"type": "ai", "data": {"content": "", "type": "ai", "tool_calls": calls}},
    ]
    items += [
        {"type": "tool", "data": {"content": "ok", "type": "tool", "tool_call_id": f"c{i}"}}
        for i in reversed(range(n))
    ]
    return json.dumps(items).encode()


def _spans(spans: list[dict]) -> bytes:
    scope = {"scope": {"name": "x"}, "spans": spans}
    return json.dumps({"resourceSpans": [{"resource": {}, "scopeSpans": [scope]}]}).encode()


def _span(i: int, parent: str, attributes: dict) -> dict:
    return {
        "traceId": "a" * 32,
        "spanId": f"{i:016x}",
        "parentSpanId": parent,
        "name": attributes["gen_ai.operation.name"],
        "startTimeUnixNano": 1000 + i,
        "endTimeUnixNano": 1001 + i,
        "attributes": [{"key": k, "value": {"stringValue": v}} for k, v in attributes.items()],
    }


def _chat(said: str, parts: list[dict]) -> dict:
    asked = [{"role": "user", "parts": [{"type": "text", "content": said}]}]
    return {
        "gen_ai.operation.name": "chat",
        "gen_ai.input.messages": json.dumps(asked),
        "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": parts}]),
    }


def otel_reversed(n: int) -> bytes:
    calls = [
        {"type": "tool_call", "id": f"c{i}", "name": "f", "arguments": {"n": i}} for i in range(n)
    ]
    spans = [_span(0, "", _chat("go", calls))]
    for j, i in enumerate(reversed(range(n)), 1):
        executed = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "f"}
        executed |= {"gen_ai.tool.call.id": f"c{i}", "gen_ai.tool.call.result": "ok"}
        spans.append(_span(j, "", executed))
    return _spans(spans)


def otel_nested(n: int) -> bytes:
    said = [{"type": "text", "content": "a"}]
    return _spans([_span(i, f"{i - 1:016x}" if i else "", _chat(f"q{i}", said)) for i in range(n)])


def gemini_rewound(n: int) -> bytes:
    lines: list[dict] = [{"sessionId": "s", "projectHash": "p", "startTime": "2025-01-01T00:00Z"}]
    for i in range(n):
        said = {"timestamp": "2025-01-01T00:00:01Z", "type": "user", "content": [{"text": "go"}]}
        lines += [said | {"id": f"u{i}"}, said | {"id": f"x{i}"}, {"$rewindTo": f"x{i}"}]
    return b"\n".join(json.dumps(line).encode() for line in lines) + b"\n"


HOSTILE: dict[str, tuple[Callable[[int], bytes], int, str]] = {
    "aider-unclosed-fences-and-think": (aider_unclosed, 6_000, ".md"),
    "cline-calls-and-other-sections": (cline_other_sections, 1_500, ".json"),
    "structural-results-reversed": (structural_reversed, 1_500, ".json"),
    "otel-executions-reversed": (otel_reversed, 1_000, ".json"),
    "otel-nested-spans": (otel_nested, 1_000, ".json"),
    "gemini-cli-rewound-each-line": (gemini_rewound, 3_000, ".jsonl"),
}


# --- measuring ------------------------------------------------------------------------------


def read(path: Path) -> int:
    """Read a file as the engine does; the messages of its conversations."""
    kind, compressed = sources.kind_of(str(path))
    reader = FileReader()
    found = []
    for record in sources.read(sources.Source(str(path), kind, compressed, True)):
        if isinstance(record, sources.Record):
            found += reader.feed(record)
    found += reader.finish()
    return sum(len(c.messages) for c in found if isinstance(c, Conversation))


def cost(path: Path) -> tuple[float, int]:
    """The least CPU time of `RUNS` reads of the file, and the messages read."""
    best, messages = math.inf, 0
    gc.collect()
    gc.disable()
    try:
        for _ in range(RUNS):
            start = time.process_time()
            messages = read(path)
            best = min(best, time.process_time() - start)
    finally:
        gc.enable()
    return best, messages


def assert_linear(files: list[Path], what: str, messages: bool = True) -> None:
    """Reading 4x the input costs about 4x (`messages`: and gives 4x the messages)."""
    for attempt in range(2):
        times, read_ = zip(*(cost(f) for f in files), strict=True)
        if messages and not attempt:
            assert read_[2] >= 3.5 * read_[0] > 0, f"{what}: the input did not grow ({read_})"
        if times[2] / times[0] <= MOST_GROWTH:
            return
    ratios = f"{times[1] / times[0]:.2f} for 2x, {times[2] / times[0]:.2f} for 4x"
    pytest.fail(f"{what}: the time grew {ratios} the input")


# (fixture, the lists to grow) per reader; the longest list when none is named
FIXTURES: dict[str, tuple[str, tuple[tuple, ...]]] = {
    "openhands": ("goal-events-excerpt.jsonl", ()),
    "gemini-cli": ("chat-recording.json", ()),
    "message-lines": ("three-runs.jsonl", ()),
    "browser-result": ("abp-5e1b8254-success.json", (("action_history",), ("thoughts",))),
    "browser-use": ("agent-history-list-excerpt.json", ()),
    "letta": ("loop-agentfile-1.0-excerpt.af", ()),
    "autogen": ("agent_history.json", ()),
    "cline": ("edit-fixed-ui_messages.json", ()),
    "smolagents": ("run-56371001-messages.jsonl", ()),
    "chatdev": ("gomoku-2023-06-excerpt.log", ()),
    "aider": ("aider-author-chat-history-excerpt.md", ()),
    "otel": ("genai-attribute-maps.jsonl", ()),
    "inspect-ai": ("log_tool_call_error.json", ()),
    "openai-agents": ("v1_13_pending_tool_approval.json", (("generated_items",),)),
    "mcp": ("mcp-recorder-mock_session.json", ()),
    "mini-swe-agent": ("requests-1921-text-actions-excerpt.traj.json", ()),
    "medagentbench": ("runs-excerpt.jsonl", ()),
    "litellm": ("claude-fncall-log-excerpt.json", ()),
    "openhands-v0": ("wrong-initial-state.json", ()),
    "exchange": ("gateway-chat-completions.jsonl", ()),
    "tau": ("tau2-bench-excerpt.json", ()),
    "anthropic": ("tool-use.jsonl", ()),
    "responses": ("items.jsonl", ()),
    "sharegpt": ("glaive-function-calling.json", ()),
    "swe-agent": ("function_calling_simple.traj", ()),
    "multiagent": ("who-and-when-hand-crafted-1.json", ()),
    "openai": ("chat-completions.jsonl", ()),
    "stream": ("claude-code-short.jsonl", ()),
    "harmony": ("test_multi_turn_auto_drop_analysis.txt", ()),
    "structural": ("langchain-messages-to-dict.json", ()),
}


def test_every_reader_has_a_scaling_case():
    assert set(FIXTURES) == set(formats.FORMATS)


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_each_reader_reads_in_time_linear_in_its_input(tmp_path, name):
    fixture, paths = FIXTURES[name]
    seed = FORMAT_DIR / name / fixture
    times = max(1, BASE_BYTES // len(grown(seed, 1, paths)))
    path = tmp_path / f"seed{''.join(seed.suffixes)}"
    path.write_bytes(grown(seed, times, paths))
    times *= min(16, math.ceil(LEAST_SECONDS / max(cost(path)[0], 1e-4)))
    files = []
    for scale in (1, 2, 4):
        path = tmp_path / f"{scale}x{''.join(seed.suffixes)}"
        path.write_bytes(grown(seed, times * scale, paths))
        files.append(path)
    assert_linear(files, name)


@pytest.mark.parametrize("shape", sorted(HOSTILE))
def test_shapes_once_quadratic_are_read_in_linear_time(tmp_path, shape):
    make, n, suffix = HOSTILE[shape]
    files = []
    for scale in (1, 2, 4):
        path = tmp_path / f"{scale}x{suffix}"
        path.write_bytes(make(n * scale))
        files.append(path)
    assert_linear(files, shape, messages=shape.startswith(("cline", "structural", "gemini")))
