"""Invariance on real logs: what a rule finds does not hang on the spelling of the ids it saw.

Every JSON or JSON Lines log of `../shared` that the ecosystem ledger holds findings on is
audited as it is and again with its ids renamed consistently through the file: each run of
four or more digits that some id holds (`credit_card_7334`, `#W2575533`, `omar_davis_3817`,
`NPK151515`, a uuid's digits) becomes another run of the same length wherever it stands as a
whole run — in the user's words, the system prompt, tool results and the calls' arguments
alike. The findings must be the same: codes, conversations, turns and tools (messages quote
the ids, so they differ).

Left alone, because renaming them would change what the log says rather than how it spells
it: years, digits the file also writes with separators (`15-15-15` beside `NPK151515`: the
same value to a reader that normalises them), and the digits of hex digests (AutoGen names a
code block's file by the hash of its code). An event folder (`event-*.json`) is one
conversation and is not audited file by file.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from auditor import config, engine
from auditor.findings import Finding
from tests.ecosystem import check
from tests.helpers import requires_corpora

_ID_RUN = re.compile(r"(?<=[A-Za-z_#])\d{4,}|\d{4,}(?=[A-Za-z_])")
_HEX = re.compile(r"(?<![0-9A-Za-z])[0-9a-f]{16,}(?![0-9A-Za-z])")
_SPELLED = re.compile(r"\d(?:[\d.\- ]*\d)?")
_FAMILIES = ("FB", "EX", "CF", "LP")


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)


class Renaming:
    """A consistent renaming of the id digits of one log (see the module's docstring)."""

    def __init__(self, values: list[Any], seed: int = 7) -> None:
        texts = [s for v in values for s in _strings(v)]
        digests = {m.group() for t in texts for m in _HEX.finditer(t)}
        spelled = {
            re.sub(r"\D", "", m.group())
            for t in texts
            for m in _SPELLED.finditer(t)
            if not m.group().isdigit()
        }
        runs = {m.group() for t in texts for m in _ID_RUN.finditer(t)}
        runs = {
            r
            for r in runs
            if r not in spelled
            and not (len(r) == 4 and 1900 <= int(r) <= 2099)
            and not any(r in d for d in digests)
        }
        rng = random.Random(seed)
        self.map: dict[str, str] = {}
        for run in sorted(runs):
            new = run
            while new == run or new in runs or new in self.map.values():
                new = str(rng.randint(1, 9)) + "".join(str(rng.randint(0, 9)) for _ in run[1:])
            self.map[run] = new
        longest_first = sorted(self.map, key=len, reverse=True)
        self._pattern = (
            re.compile(r"(?<!\d)(?:" + "|".join(longest_first) + r")(?!\d)") if runs else None
        )

    def text(self, text: str) -> str:
        if self._pattern is None:
            return text
        return self._pattern.sub(lambda m: self.map[m.group()], text)

    def value(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self.value(v) for v in value]
        if isinstance(value, dict):
            return {k: self.value(v) for k, v in value.items()}
        return value


def renamed(source: Path, target: Path) -> Renaming:
    """Write `source` to `target` with its ids renamed; the renaming used."""
    data = source.read_bytes()
    if source.suffix == ".jsonl":
        rows = [orjson.loads(line) if line.strip() else None for line in data.splitlines()]
        renaming = Renaming([r for r in rows if r is not None])
        lines = [b"" if r is None else orjson.dumps(renaming.value(r)) for r in rows]
        target.write_bytes(b"\n".join(lines) + b"\n")
    else:
        document = orjson.loads(data)
        renaming = Renaming([document])
        target.write_bytes(orjson.dumps(renaming.value(document)))
    return renaming


def _seen(findings: list[Finding], renaming: Renaming | None) -> Counter[tuple[Any, ...]]:
    """What a finding says where, less its words: conversation, turn, code and tool. The
    conversation of a log without ids is named after its path, which is not renamed."""
    out: Counter[tuple[Any, ...]] = Counter()
    for f in findings:
        if not f.code.startswith(_FAMILIES):
            continue
        conversation = f.conversation or ""
        if conversation.startswith(f.path):
            conversation = conversation[len(f.path) :]
        elif renaming is not None:
            conversation = renaming.text(conversation)
        out[(conversation, f.turn, f.code, f.tool)] += 1
    return out


def _logs() -> list[str]:
    """The JSON and JSON Lines logs the ledger holds findings on, relative to `../shared`."""
    if not check.LEDGER.is_file():
        return []
    paths = {e["path"] for e in check.read_ledger(check.LEDGER)}
    return sorted(
        p for p in paths if p.endswith((".json", ".jsonl")) and "/event-" not in p and "/" in p
    )


@requires_corpora
@pytest.mark.parametrize("log", _logs())
def test_renaming_ids_through_a_log_changes_no_finding(log, tmp_path):
    source = check.SHARED / log
    if not source.is_file():
        pytest.skip(f"{log} is not in this ../shared")
    target = tmp_path / source.name
    renaming = renamed(source, target)
    settings = config.build()
    before = _seen(engine.audit([str(source)], settings).findings, renaming)
    after = _seen(engine.audit([str(target)], settings).findings, None)
    assert (before - after, after - before) == (Counter(), Counter())


def test_a_renaming_is_consistent_and_leaves_what_it_must_alone():
    rows = [
        {"user": "I'm omar_davis_3817; pay with credit_card_7334 on #W2575533."},
        {"tool": "credit_card_7334 ok; product NPK151515 is NPK 15-15-15; 2024-05-01"},
        {"args": {"id": "omar_davis_3817", "file": "tmp_code_29cc7cfc9edb76f239e084ed57898771"}},
    ]
    r = Renaming(rows)
    assert set(r.map) == {"3817", "7334", "2575533"}
    user, tool, args = (r.value(row) for row in rows)
    card = f"credit_card_{r.map['7334']}"
    assert (
        user["user"] == f"I'm omar_davis_{r.map['3817']}; pay with {card} on #W{r.map['2575533']}."
    )
    assert tool["tool"] == f"{card} ok; product NPK151515 is NPK 15-15-15; 2024-05-01"
    assert args["args"]["id"] == f"omar_davis_{r.map['3817']}"
    assert args["args"]["file"] == rows[2]["args"]["file"]
    assert all(len(new) == len(old) and new != old for old, new in r.map.items())
