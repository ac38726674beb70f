"""Structure-aware fuzzing of every format's reader and every rule, from real records.

Each example takes a real record of the fixtures (a JSON Lines line, a whole document or a
harmony transcript) and mutates it: a value replaced by one of another type, by a value nested
hundreds deep, by text full of chat-template markers and terminal controls; a key deleted; an
item duplicated. The mutant is read, replayed and audited with every rule. The promise held:
nothing raises, no rule crashes, every finding has a place, and the report can be written.

Written for 100 examples per fixture file, scaled by `AUDITOR_FUZZ` (`tests.helpers.examples`):
`make test` runs a fifth of them, a few thousand in all; `make fuzz` thirty times them.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor import config, engine, sources
from auditor.formats import FileReader
from auditor.model import Location
from tests.helpers import FIXTURES, examples

EXAMPLES = examples(100)
SOURCES = sorted(
    p
    for p in (FIXTURES / "formats").rglob("*")
    if p.suffix in (".json", ".jsonl", ".traj", ".txt") and p.stat().st_size < 400_000
)
SETTINGS = config.build()

MARKERS = [
    "<|channel|>",
    "<|call|>",
    "<|start|>functions.f to=assistant<|message|>",
    "Action: f\nAction Input: {}\nObservation: ok\nFinal Answer: done",
    '<tool_call>{"name": "f", "arguments": {}}</tool_call>',
    "[TOOL_CALLS]",
    "\x1b]0;title\x07\x1b[31m",
    "\u202e\u2066\x9b\x85\u2028",
    "[link=javascript:x]y[/link]",
    "::error::x",
    "(a+)+$" * 20,
    "yes, go ahead",
    "confirmation_required",
]


def deep(depth: int, leaf: object) -> object:
    for _ in range(depth):
        leaf = [leaf] if depth % 2 else {"k": leaf}
    return leaf


scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
    | st.sampled_from(MARKERS)
)
json_values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=8,
)
nasty = (
    json_values
    | st.builds(deep, st.sampled_from([130, 300, 900]), json_values)
    | st.sampled_from(MARKERS).map(lambda m: m * 50)
)


def _slots(value: object) -> list[tuple[object, object]]:
    """Every (container, key) of a JSON value, without recursion."""
    out: list[tuple[object, object]] = []
    stack = [value]
    while stack:
        item = stack.pop()
        keys = item.keys() if isinstance(item, dict) else range(len(item))  # type: ignore[arg-type]
        for key in list(keys):
            out.append((item, key))
            child = item[key]  # type: ignore[index]
            if isinstance(child, dict | list):
                stack.append(child)
    return out


@st.composite
def mutated_json(draw, data: bytes) -> object:
    value = orjson.loads(data)
    for _ in range(draw(st.integers(1, 3))):
        slots = _slots(value)
        if not slots:
            return draw(nasty)
        parent, key = draw(st.sampled_from(slots))
        action = draw(st.sampled_from(["replace", "replace", "wrap", "delete", "duplicate"]))
        if action == "replace":
            parent[key] = draw(nasty)  # type: ignore[index]
        elif action == "wrap":
            parent[key] = [parent[key]]  # type: ignore[index]
        elif action == "delete":
            del parent[key]  # type: ignore[attr-defined]
        elif isinstance(parent, list):
            parent.insert(key, parent[key])  # type: ignore[arg-type]
    return value


@st.composite
def mutated_text(draw, text: str) -> str:
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(text)))
        cut = draw(st.integers(0, 40))
        text = text[:at] + draw(st.sampled_from(MARKERS) | st.text(max_size=10)) + text[at + cut :]
    return text


def _records(path: Path) -> list[tuple[str, bytes]]:
    """(kind, bytes) of each record of a fixture: lines, a document, or a text."""
    data = path.read_bytes()
    if path.suffix == ".txt":
        return [("text", data)]
    if path.suffix == ".jsonl":
        return [("json", line) for line in data.splitlines() if line.strip()]
    return [("json", data)]


def audit_records(records: list[sources.Record]) -> engine.SourceResult:
    """Read, replay and audit records in memory, as `engine.audit_source` does for a file."""
    result = engine.SourceResult()
    auditor = engine.ConversationChecker(SETTINGS, result)
    reader = FileReader()
    for record in records:
        start = len(result.findings)
        auditor.feed(reader.feed(record), record)
        auditor.route_unread(start)
    start = len(result.findings)
    auditor.feed(reader.finish(), None)
    auditor.route_unread(start)
    return result


def check(result: engine.SourceResult, path: str) -> None:
    assert result.errors == [], result.errors
    findings = result.findings + [f for g in result.repeats.values() for f in g.findings()]
    for finding in findings:
        assert finding.path == path and finding.message
        orjson.dumps(finding.to_dict())  # every finding can be written


@pytest.mark.parametrize("path", SOURCES, ids=[f"{p.parent.name}/{p.name}" for p in SOURCES])
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_mutated_real_records_are_read_and_audited_without_a_crash(path, data):
    originals = _records(path)
    index = data.draw(st.integers(0, len(originals) - 1), label="record")
    kind, raw = originals[index]
    where = Location(str(path), index + 1 if path.suffix == ".jsonl" else None)
    if kind == "text":
        text = data.draw(mutated_text(raw.decode("utf-8")), label="mutant")
        mutant = sources.Record(where, text, kind="text")
    else:
        value = data.draw(mutated_json(raw), label="mutant")
        mutant = sources.Record(where, value)
    others = [
        sources.Record(Location(str(path), i + 1), orjson.loads(line))
        for i, (k, line) in enumerate(originals)
        if k == "json" and i != index and path.suffix == ".jsonl"
    ]
    check(audit_records([*others[:index], mutant, *others[index:]]), str(path))
