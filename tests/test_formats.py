"""Each format's fixtures, normalised into the one model and compared with a reviewed snapshot.

`AUDITOR_UPDATE_EXPECTED=1 make test` rewrites the snapshots; review the diff like code.
"""

from __future__ import annotations

import dataclasses
import json
import os

import pytest

from auditor import formats, sources
from auditor.formats import FileReader, Problem
from auditor.model import Conversation, Location
from tests.conftest import FIXTURES, SNAPSHOTS, UPDATE

FORMAT_DIR = FIXTURES / "formats"
CASES = sorted(
    p for p in FORMAT_DIR.glob("*/*") if p.suffix in (".json", ".jsonl", ".traj", ".txt")
)


def normalise(path) -> list[dict]:
    """Every conversation and problem a file yields, as plain data."""
    source = sources.Source(str(path.relative_to(FIXTURES)), *sources.kind_of(path.name), True)
    reader = FileReader()
    items: list = []
    cwd = os.getcwd()
    os.chdir(FIXTURES)
    try:
        for record in sources.read(source):
            assert isinstance(record, sources.Record), record
            items.extend(reader.feed(record))
        items.extend(reader.finish())
    finally:
        os.chdir(cwd)
    return [{"problem" if isinstance(i, Problem) else "conversation": plain(i)} for i in items]


def plain(value):
    """Model objects as plain data: locations as `path:line/pointer`, empty fields left out."""
    if isinstance(value, Location):
        line = "" if value.line is None else f":{value.line}"
        return f"{value.path}{line}{value.pointer}"
    if dataclasses.is_dataclass(value):
        out = {}
        for f in dataclasses.fields(value):
            v = getattr(value, f.name)
            if v in (None, "", ()) and f.name not in ("arguments",):
                continue
            out[f.name] = plain(v)
        return out
    if isinstance(value, tuple | list):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


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


def _conversations(path) -> list[Conversation]:
    return [next(iter(i.values())) for i in normalise(path) if "conversation" in i]


def test_openai_calls_results_and_parts():
    (chat, bare, named, unnamed) = _conversations(FORMAT_DIR / "openai" / "chat-completions.jsonl")
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
    _small, loop = _conversations(FORMAT_DIR / "tau" / "tau-bench-gpt-4o-airline-excerpt.json")
    assert loop["id"] == "task-8-trial-1"
    assert loop["location"].endswith("tau-bench-gpt-4o-airline-excerpt.json/1")
    assert loop["messages"][30]["tool_calls"][0]["name"] == "book_reservation"
    assert loop["messages"][30]["tool_calls"][0]["location"].endswith("/1/traj/30/tool_calls/0")


def test_tau2_dict_arguments_error_flag_and_user_calls():
    telecom, airline = _conversations(FORMAT_DIR / "tau" / "tau2-bench-excerpt.json")
    user_calls = [m for m in telecom["messages"] if m["role"] == "user" and m.get("tool_calls")]
    assert user_calls, "the telecom simulation has calls made by the simulated user"
    first = user_calls[0]["tool_calls"][0]
    assert "raw_arguments" not in first and isinstance(first["arguments"], dict)
    errors = [m["result"] for m in airline["messages"] if m.get("result", {}).get("is_error")]
    assert errors and all(e["call_id"] for e in errors)
