"""Each format's fixtures, normalised into the one model and compared with a reviewed snapshot,
and a folder of fixtures for every format.

`AUDITOR_UPDATE_EXPECTED=1 make test` rewrites the snapshots; review the diff like code.
"""

from __future__ import annotations

import json
import os

import pytest

from auditor import formats
from tests.helpers import FIXTURES, FORMAT_DIR, SNAPSHOTS, UPDATE, normalise

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


def test_fixture_folders_cover_every_new_format():
    for name in ("otel", "inspect-ai", "openai-agents", "mcp"):
        assert any((FIXTURES / "formats" / name).glob("*.*"))
