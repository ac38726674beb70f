"""Format invariance on real logs: a conversation gives the same findings in every encoding.

Every conversation of `../shared` that the OpenAI chat or tau readers read (tau2's policy put
first as a system message), and that every encoding can hold (`encodings.representable`), is
written again as OpenAI chat messages, Anthropic messages, Responses items and Gemini
`contents` (`encodings.py`), and audited in each: the findings must be the same, their codes,
tools, and the message each is on as read (`Finding.index`: each encoding's own list differs,
so the turn a person counts in its file does too). The conversations a flat stream of events
holds turn by turn (`encodings.one_event_a_turn`) are also written as one, which only the
structural reader reads, with the same demand. Left out, and why (`representable`): calls read
from text or paired by position, results the log does not keep, calls of a simulated user,
named agents, and system messages after the first turns (Anthropic's is beside the messages).

What the test found and fixed in the readers: a `{system, messages}` body with no content
block was read as OpenAI chat, its system prompt dropped; a Gemini request body on its own was
read by shape, its `systemInstruction` dropped and each result a JSON object; a Gemini
`functionResponse` holding an `output` was taken for a success whatever its text said.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson
import pytest

from auditor import config, engine
from auditor.model import Conversation
from tests.ecosystem import check
from tests.ecosystem.encodings import (
    WRITERS,
    events,
    one_event_a_turn,
    representable,
    with_policy,
)
from tests.helpers import conversations, requires_corpora

SOURCES = ("openai", "tau")
"""The readers whose conversations are written again."""
MOST = 400
"""Conversations taken from each log at most, so that the test stays minutes, not hours."""


def _logs() -> list[str]:
    """The JSON and JSON Lines logs of the ledger and of the labelled corpora."""
    if not check.SHARED.is_dir():
        return []
    found = {
        e["path"]
        for e in check.read_ledger(check.LEDGER)
        if e["path"].endswith((".json", ".jsonl"))
    }
    for corpus in sorted(check.SHARED.glob("labelled-*")):
        found.update(
            str(p.relative_to(check.SHARED))
            for p in corpus.rglob("*.json*")
            if p.name not in ("labels.json", "judgments.json")
        )
    return sorted(found)


def _seen(findings: list[Any]) -> Counter[tuple[Any, ...]]:
    return Counter(
        (f.conversation, f.code, f.tool, f.index)
        for f in findings
        if f.code[:2] in ("FB", "EX", "CF", "LP")
    )


def _write(path: Path, records: list[dict[str, Any]]) -> None:
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))


def _taken(source: Path) -> list[Conversation]:
    taken: list[Conversation] = []
    for c in map(with_policy, conversations(source)):
        if c.format in SOURCES and representable(c) is None and len(taken) < MOST:
            taken.append(c)
    return taken


@requires_corpora
def test_the_encodings_compare_hundreds_of_real_conversations():
    taken = [
        c for log in _logs() if (check.SHARED / log).is_file() for c in _taken(check.SHARED / log)
    ]
    calls = sum(len(m.tool_calls) for c in taken for m in c.messages)
    streamed = [c for c in taken if one_event_a_turn(c)]
    assert (len(taken) >= 500, calls >= 2_000, len(streamed) >= 100) == (True, True, True), (
        len(taken),
        calls,
        len(streamed),
    )


@requires_corpora
@pytest.mark.parametrize("log", _logs())
def test_a_conversation_gives_the_same_findings_in_every_encoding(log, tmp_path):
    source = check.SHARED / log
    if not source.is_file():
        pytest.skip(f"{log} is not in this ../shared")
    taken = _taken(source)
    if not taken:
        return  # nothing a chat API's encoding holds: nothing to compare
    settings = config.build()
    seen: dict[str, Counter[tuple[Any, ...]]] = {}
    for name, writer in WRITERS.items():
        path = tmp_path / f"{name}.jsonl"
        _write(path, [writer(c) for c in taken])
        seen[name] = _seen(engine.audit([str(path)], settings).findings)
    # a stream of events only the structural reader reads: a file a conversation, named by it
    paths = {}
    streamed = [c for c in taken if one_event_a_turn(c)]
    for i, c in enumerate(streamed):
        path = tmp_path / "events" / f"{i}.jsonl"
        path.parent.mkdir(exist_ok=True)
        _write(path, events(c))
        paths[str(path)] = c.id
    found = engine.audit(list(paths), settings).findings
    seen["events"] = _seen([replace(f, conversation=paths[f.path]) for f in found])
    first = seen["openai"]
    ids = {c.id for c in streamed}
    for name, found_here in seen.items():
        if name == "events":  # only the conversations a stream of events holds turn by turn
            first = Counter({k: n for k, n in seen["openai"].items() if k[0] in ids})
        assert (first - found_here, found_here - first) == (Counter(), Counter()), name
