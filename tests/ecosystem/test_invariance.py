"""Invariance on real logs: what a rule finds does not hang on how the log spells what it says.

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

The same logs are audited again with the dates and amounts of their prose written in another
common form (`2024-05-20` as `May 20, 2024`, `$1250.00` as `$1,250.00`; in the words people
and models write, not in call arguments, ids or JSON a tool returned), and the browser
agents' logs with every click moved by a pixel: the findings must be the same again.
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


_MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
_ISO_DATE = re.compile(r"(?<![\w/-])(\d{4})-(\d{2})-(\d{2})(?![\w/:-])")
_AMOUNT = re.compile(r"(?<![\w.,])\$(\d{4,9})(\.\d{2})?(?![\w.,]*\d)")
_CLICK = re.compile(r"\b(Click at|Double click at|Right click at|Move to) \((\d+), (\d+)\)")
_PROSE_KEYS = frozenset(("content", "text", "message", "thought", "thoughts", "value"))


def _prose(text: str) -> bool:
    """Words people and models write: not JSON, a path, code or an id."""
    stripped = text.lstrip()
    return len(text.split()) >= 4 and not stripped.startswith(("{", "[", "<"))


def respelled(text: str) -> str:
    """`text` with its ISO dates and dollar amounts in another common form."""

    def date(m: re.Match[str]) -> str:
        year, month, day = int(m[1]), int(m[2]), int(m[3])
        if not (1 <= month <= 12 and 1 <= day <= 31):
            return m.group()
        return f"{_MONTHS[month - 1]} {day}, {year}"

    text = _ISO_DATE.sub(date, text)
    return _AMOUNT.sub(lambda m: f"${int(m[1]):,}{m[2] or ''}", text)


def _respell(value: Any, key: str = "") -> Any:
    if isinstance(value, str):
        return respelled(value) if key in _PROSE_KEYS and _prose(value) else value
    if isinstance(value, list):
        return [_respell(v, key) for v in value]
    if isinstance(value, dict):
        if "arguments" in value or "tool_calls" in value or "function" in value:
            # the call's own arguments stay as the tool took them
            return {
                k: (v if k in ("arguments", "function", "input") else _respell(v, k))
                for k, v in value.items()
            }
        return {k: _respell(v, k) for k, v in value.items()}
    return value


def _moved(value: Any) -> Any:
    """Every click of a browser agent's steps moved by one pixel, alternately right and down."""
    turn = iter(range(1_000_000))

    def move(m: re.Match[str]) -> str:
        dx, dy = (1, 0) if next(turn) % 2 else (0, 1)
        return f"{m[1]} ({int(m[2]) + dx}, {int(m[3]) + dy})"

    def walk(v: Any) -> Any:
        if isinstance(v, str):
            return _CLICK.sub(move, v)
        if isinstance(v, list):
            return [walk(x) for x in v]
        if isinstance(v, dict):
            return {k: walk(x) for k, x in v.items()}
        return v

    return walk(value)


def rewritten(source: Path, target: Path, how: Any) -> None:
    """Write `source` to `target`, each record passed through `how`."""
    data = source.read_bytes()
    if source.suffix == ".jsonl":
        rows = [orjson.loads(line) if line.strip() else None for line in data.splitlines()]
        lines = [b"" if r is None else orjson.dumps(how(r)) for r in rows]
        target.write_bytes(b"\n".join(lines) + b"\n")
    else:
        target.write_bytes(orjson.dumps(how(orjson.loads(data))))


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


def _all_logs() -> list[str]:
    """Every JSON and JSON Lines log of the labelled corpora, with the ledger's: the labelled
    ones were read whole by a person, so a finding a respelling adds there is a false one."""
    found = set(_logs())
    for corpus in sorted(check.SHARED.glob("labelled-*")):
        found.update(
            str(p.relative_to(check.SHARED))
            for p in corpus.rglob("*")
            if p.suffix in (".json", ".jsonl") and p.name not in ("labels.json", "judgments.json")
        )
    return sorted(found)


def _browser_logs() -> list[str]:
    """Every browser agent's result file of `../shared`."""
    return sorted(
        str(p.relative_to(check.SHARED)) for p in check.SHARED.glob("*/**/abp_run/*/result.json")
    )


def _source(log: str) -> Path:
    source = check.SHARED / log
    if not source.is_file():
        pytest.skip(f"{log} is not in this ../shared")
    return source


def _changes(source: Path, target: Path, renaming: Renaming | None = None) -> tuple[Any, Any]:
    """(findings only the original has, findings only the rewritten log has)."""
    settings = config.build()
    before = _seen(engine.audit([str(source)], settings).findings, renaming)
    after = _seen(engine.audit([str(target)], settings).findings, None)
    return before - after, after - before


@requires_corpora
@pytest.mark.parametrize("log", _logs())
def test_renaming_ids_through_a_log_changes_no_finding(log, tmp_path):
    source = _source(log)
    target = tmp_path / source.name
    renaming = renamed(source, target)
    assert _changes(source, target, renaming) == (Counter(), Counter())


@requires_corpora
@pytest.mark.parametrize("log", _all_logs())
def test_respelling_dates_and_amounts_changes_no_finding(log, tmp_path):
    source = _source(log)
    target = tmp_path / source.name
    rewritten(source, target, _respell)
    assert _changes(source, target) == (Counter(), Counter())


@requires_corpora
@pytest.mark.parametrize("log", _browser_logs())
def test_moving_clicks_by_a_pixel_changes_no_finding(log, tmp_path):
    source = _source(log)
    target = tmp_path / source.name
    rewritten(source, target, _moved)
    assert _changes(source, target) == (Counter(), Counter())


def test_a_respelling_changes_prose_only():
    assert respelled("Fly on 2024-05-20 for $1250.00, not $99.") == (
        "Fly on May 20, 2024 for $1,250.00, not $99."
    )
    assert respelled("see /logs/2024-05-20/run and id 2024-05-20T10:00") == (
        "see /logs/2024-05-20/run and id 2024-05-20T10:00"
    )
    record = {
        "role": "assistant",
        "content": "I will book it on 2024-05-20 for $1250.",
        "tool_calls": [{"function": {"arguments": '{"date": "2024-05-20"}'}}],
    }
    out = _respell(record)
    assert out["content"] == "I will book it on May 20, 2024 for $1,250."
    assert out["tool_calls"] == record["tool_calls"]
    assert _moved({"a": ["Click at (973, 761)", "Click at (973, 761)"]}) == {
        "a": ["Click at (973, 762)", "Click at (974, 761)"]
    }


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
