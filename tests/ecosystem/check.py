"""The ecosystem check: what the auditor says on real logs nobody tuned it to, held against a
ledger of judged findings, as ruff's ecosystem check and pylint's primer do.

`make ecosystem` (`python tests/ecosystem/check.py`) audits every corpus `../shared/realdata*`
as a whole directory, from `../shared` with the default settings, as a user would; then it
compares each finding with `tests/ecosystem/judged.jsonl` by fingerprint and prints the
findings nobody judged, the judged findings that are gone, the findings judged false that
still fire, and per rule the verdicts and the precision of what fires. How to judge, and the
options that write stubs and drop gone entries: `tests/ecosystem/README.md`.

Exit status: 0 when every finding is judged and none judged false fires (except those whose
entry is `"open": true`, a false alarm known and not fixed yet; `--strict` fails on those
too); 1 otherwise; 2 when the ledger is malformed or there is nothing to audit.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from auditor.rules import RULES

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the checkout, run as a script
from scripts.docs import precision, read_ledger

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
SHARED = ROOT.parent / "shared"
LEDGER = HERE / "judged.jsonl"
DEFAULTS = HERE / "defaults.toml"
VERDICTS = ("true", "false", "unclear")
FIELDS = (
    "path",
    "line",
    "conversation",
    "turn",
    "code",
    "fingerprint",
    "message",
    "verdict",
    "open",
    "reason",
    "class",
)
"""The fields of an entry, in the order they are written; `line` only helps the reader find
the finding, and `open` is written only when true."""
REQUIRED = ("path", "conversation", "turn", "code", "fingerprint", "message", "verdict")

Entry = dict[str, Any]
Finding = dict[str, Any]


CORPORA = ("realdata", "labelled-")
"""What the names of the corpora below `shared` start with: the real logs (`realdata*`) and the
labelled ones (`labelled-*`, whose parts hold a person's labels and judgments)."""


def corpora(shared: Path) -> list[str]:
    """The corpora below `shared`: its directories named `realdata*` and `labelled-*`."""
    if not shared.is_dir():
        return []
    return sorted(p.name for p in shared.iterdir() if p.is_dir() and p.name.startswith(CORPORA))


@functools.cache
def findings(shared: Path) -> tuple[Finding, ...]:
    """Every finding on every corpus of `shared`, each corpus audited as one run (cached: the
    test session asks more than once)."""
    return tuple(f for corpus in corpora(shared) for f in audit(shared, corpus))


def audit(shared: Path, corpus: str) -> list[Finding]:
    """`audit CORPUS -f jsonl` run from `shared` with this checkout's auditor and the default
    settings, so each finding's `path` is relative to `shared`, as the ledger's are (run from
    a labelled corpus on one of its parts, the paths are relative to the corpus, as its
    judgments' are)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (str(ROOT), env.get("PYTHONPATH"))))
    command = [sys.executable, "-m", "auditor", corpus, "-f", "jsonl", "--exit-zero", "-q"]
    command += ["--no-progress", "--config", str(DEFAULTS)]
    # Rules in preview are audited too: judging their findings is how they leave preview.
    command += [f"--extend-select={r.code}" for r in RULES if r.preview]
    proc = subprocess.run(command, cwd=shared, env=env, capture_output=True, check=False)
    if proc.returncode != 0:
        error = proc.stderr.decode(errors="replace").strip()
        raise RuntimeError(f"`audit {corpus}` exited {proc.returncode}: {error}")
    return [json.loads(line) for line in proc.stdout.splitlines()]


# The ledger.


def problems(entries: Iterable[Entry]) -> list[str]:
    """What is wrong with the ledger's entries; empty when it is well formed."""
    out = []
    seen: set[str] = set()
    for i, e in enumerate(entries, 1):
        where = f"entry {i} ({e.get('code')} {e.get('path')})"
        missing = [k for k in REQUIRED if k not in e]
        if missing:
            out.append(f"{where}: missing {', '.join(missing)}")
        if e.get("verdict") not in (*VERDICTS, ""):
            out.append(f"{where}: verdict {e.get('verdict')!r} is not true, false or unclear")
        if e.get("verdict") in VERDICTS and not e.get("reason"):
            out.append(f"{where}: a verdict needs its reason")
        if "open" in e and (e["open"] is not True or e.get("verdict") != "false"):
            out.append(f"{where}: `open` is only `true`, on a false verdict")
        if e.get("fingerprint") in seen:
            out.append(f"{where}: fingerprint {e.get('fingerprint')} appears twice")
        seen.add(e.get("fingerprint"))
    return out


def order(entry: Entry) -> tuple[Any, ...]:
    """Ledger order: by file, then where in it (the order a reader goes through a log)."""
    line, turn = entry.get("line"), entry.get("turn")
    return (
        entry.get("path") or "",
        -1 if line is None else line,
        -1 if turn is None else turn,
        entry.get("code") or "",
        entry.get("fingerprint") or "",
    )


def write(path: Path, entries: Iterable[Entry]) -> None:
    with path.open("w", encoding="utf-8") as out:
        for e in sorted(entries, key=order):
            row = {k: e.get(k) for k in FIELDS if k != "open" or e.get("open")}
            row.update({k: v for k, v in e.items() if k not in FIELDS})  # kept, never dropped
            out.write(json.dumps(row, ensure_ascii=False) + "\n")


def stub(f: Finding) -> Entry:
    """A ledger entry for a finding nobody judged yet: verdict, reason and class to fill."""
    keys = ("path", "line", "conversation", "turn", "code", "fingerprint", "message")
    return {**{k: f.get(k) for k in keys}, "verdict": "", "reason": "", "class": ""}


def judged_elsewhere(
    shared: Path, found: Iterable[Finding], extra: Iterable[Path] = ()
) -> tuple[list[Entry], list[str]]:
    """The verdicts of every labelled corpus's `PART/judgments.json`, and of `extra` files
    written in their shape (`file`, `conversation`, `code`, `turn`, `verdict`, `why`; `file`
    and a conversation named after it start with the part, as `score_labelled.py` reports
    them), put on the findings of `found` they name, in the ledger's shape; and what could
    not be put on one. A judgment names its finding by file, conversation, turn and code (its
    fingerprint is another build's): several findings alike take the judgments' one verdict,
    and are left unjudged where those disagree."""
    rows: list[tuple[str, dict[str, Any]]] = []
    for corpus in corpora(shared):
        for judgments in sorted((shared / corpus).glob("*/judgments.json")):
            rows += [(corpus, r) for r in json.loads(judgments.read_text(encoding="utf-8"))]
    for path in extra:
        for row in read_ledger(path):
            corpus = next((c for c in corpora(shared) if (shared / c / row["file"]).exists()), "")
            rows.append((corpus, row))
    by_key: dict[tuple[Any, ...], list[Finding]] = {}
    for f in found:
        by_key.setdefault((f["path"], f.get("conversation"), f.get("turn"), f["code"]), []).append(
            f
        )
    wanted: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for corpus, row in rows:
        conversation = row.get("conversation")
        if isinstance(conversation, str) and conversation.startswith(row["file"]):
            conversation = f"{corpus}/{conversation}"
        key = (f"{corpus}/{row['file']}", conversation, row.get("turn"), row["code"])
        wanted.setdefault(key, []).append(row)
    verdicts, notes = [], []
    for key, judged in wanted.items():
        where = f"{key[0]}: {key[3]} [conversation {key[1]}, turn {key[2]}]"
        if key not in by_key:
            notes.append(f"fires no more: {where} ({judged[0]['why']})")
            continue
        if len({r["verdict"] for r in judged}) != 1:
            notes.append(f"judged {' and '.join(r['verdict'] for r in judged)}: {where}")
            continue
        row = judged[0]
        entry: Entry = {"verdict": row["verdict"], "reason": row["why"]}
        entry["class"] = row.get("class") or ("true" if row["verdict"] == "true" else "labelled")
        if row["verdict"] == "false":
            entry["open"] = True  # known, and not fixed yet: judged on the corpus
        verdicts += [{**stub(f), **entry} for f in by_key[key]]
    return verdicts, notes


# The comparison.


@dataclass
class Comparison:
    """The findings of a run held against the ledger."""

    matched: list[tuple[Finding, Entry]] = field(default_factory=list)
    """Findings with a judged entry of their fingerprint."""
    unjudged: list[Finding] = field(default_factory=list)
    """Findings with no entry, or an entry without a verdict (a stub)."""
    gone: list[Entry] = field(default_factory=list)
    """Entries no finding has any more."""

    @property
    def false_firing(self) -> list[tuple[Finding, Entry]]:
        """Judged false and still firing, not marked open: a false alarm that came back, or
        one a change claims to fix and does not."""
        return [(f, e) for f, e in self.matched if e["verdict"] == "false" and not e.get("open")]

    @property
    def open_firing(self) -> list[tuple[Finding, Entry]]:
        """Judged false, marked open: known false alarms not fixed yet."""
        return [(f, e) for f, e in self.matched if e["verdict"] == "false" and e.get("open")]

    @property
    def reworded(self) -> list[tuple[Finding, Entry]]:
        """The same finding (fingerprint) saying something else than what was judged."""
        return [(f, e) for f, e in self.matched if f["message"] != e["message"]]

    def failures(self, strict: bool = False) -> int:
        open_ones = len(self.open_firing) if strict else 0
        return len(self.unjudged) + len(self.false_firing) + open_ones


def compare(found: Iterable[Finding], entries: Iterable[Entry]) -> Comparison:
    left = {e["fingerprint"]: e for e in entries}
    c = Comparison()
    for f in found:
        e = left.pop(f["fingerprint"], None)
        if e is None or e["verdict"] not in VERDICTS:
            c.unjudged.append(f)
        else:
            c.matched.append((f, e))
    c.gone = sorted(left.values(), key=order)
    return c


def describe(item: Finding | Entry) -> str:
    """A finding or entry on one line: path, line, code, conversation, turn and message."""
    line = f":{item['line']}" if item.get("line") is not None else ""
    where = f"conversation {item.get('conversation')}, turn {item.get('turn')}"
    return f"{item['path']}{line}: {item['code']} [{where}] {item['message']}"


def precision_lines(matched: Iterable[tuple[Finding, Entry]]) -> list[str]:
    """Per rule, the verdicts on what fires now, and the precision (true / all judged)."""
    pairs = list(matched)
    names = {f["code"]: f.get("name", "") for f, _ in pairs}
    head = f"{'rule':<6} {'name':<28} {'judged':>6} {'true':>5} {'false':>5} {'unclear':>7}"
    rows = [
        f"{p.code:<6} {names.get(p.code, ''):<28} {p.judged:>6} {p.true:>5} {p.false:>5} "
        f"{p.unclear:>7}  {p.percent():>9}"
        for p in precision(e for _, e in pairs)
    ]
    return [f"{head}  precision", *rows]


def show(c: Comparison, ledger: int, runs: list[str], out: TextIO) -> None:
    """The comparison, section by section."""
    found = len(c.matched) + len(c.unjudged)
    print(f"ecosystem: {found} findings on {', '.join(runs)}; {ledger} ledger entries", file=out)

    def section(title: str, items: list[str], note: str = "") -> None:
        print(f"\n{title}: {len(items)}{note if items else ''}", file=out)
        for item in items:
            print(f"  {item}", file=out)

    section(
        "New findings nobody judged (FAIL)",
        [describe(f) for f in c.unjudged],
        " -- read each in its log, then `--write-stubs` and fill verdict, reason, class",
    )
    section(
        "Judged false, still firing (FAIL)",
        [f"{describe(f)}  <- {e.get('class')}" for f, e in c.false_firing],
    )
    section(
        "Open false alarms, still firing (known; --strict fails on them)",
        [f"{describe(f)}  <- {e.get('class')}" for f, e in c.open_firing],
    )
    classes = Counter(e.get("class") for _, e in c.open_firing)
    if classes:
        listed = ", ".join(f"{name} {n}" for name, n in sorted(classes.items()))
        print(f"  by class: {listed}", file=out)
    section(
        "Judged findings that are gone",
        [f"[{e['verdict']}{', open' if e.get('open') else ''}] {describe(e)}" for e in c.gone],
        " -- a fixed false alarm, or a lost true finding: `--drop-gone` once read",
    )
    section(
        "Reworded (same fingerprint, another message than was judged)",
        [f"{describe(f)}\n    was: {e['message']}" for f, e in c.reworded],
        " -- check the verdict still holds, then `--refresh`",
    )
    print("\nPer rule, on the findings that fire now:", file=out)
    for line in precision_lines(c.matched):
        print(f"  {line}", file=out)


def updated(
    c: Comparison, entries: list[Entry], stubs: bool, drop_gone: bool, refresh: bool
) -> list[Entry]:
    """The ledger with stubs for the unjudged findings, without the gone entries, and with the
    wording and lines of the matched entries refreshed, as asked."""
    gone = {e["fingerprint"] for e in c.gone} if drop_gone else set()
    now = {f["fingerprint"]: f for f, _ in c.matched} if refresh else {}
    kept = []
    for e in entries:
        if e["fingerprint"] in gone:
            continue
        f = now.get(e["fingerprint"])
        kept.append({**e, "message": f["message"], "line": f.get("line")} if f else e)
    if stubs:
        have = {e["fingerprint"] for e in kept}
        kept += [stub(f) for f in c.unjudged if f["fingerprint"] not in have]
    return kept


def adopt(
    found: Iterable[Finding], entries: list[Entry], verdicts: Iterable[Entry]
) -> tuple[list[Entry], list[str]]:
    """The ledger with verdicts judged elsewhere (a branch's `verdicts-NAME.jsonl`, written
    with other fingerprints, or run from the checkout: paths and conversations under
    `../shared/`) put on the findings they name, matched by path, conversation, turn, code and
    message (and line, where that leaves several); and what could not be adopted."""
    by_key: dict[tuple[Any, ...], list[Finding]] = {}
    for f in found:
        by_key.setdefault(_key(f), []).append(f)
    ledger = {e["fingerprint"]: e for e in entries}
    notes = []
    for v in verdicts:
        candidates = by_key.get(_key(v), [])
        if len(candidates) > 1:
            candidates = [f for f in candidates if f.get("line") == v.get("line")]
        if len(candidates) != 1:
            notes.append(f"no single finding for {describe(v)}")
            continue
        (f,) = candidates
        old = ledger.get(f["fingerprint"])
        if old is not None and old["verdict"] in VERDICTS and old["verdict"] != v.get("verdict"):
            notes.append(
                f"kept the ledger's {old['verdict']!r}, not {v.get('verdict')!r}: {describe(f)}"
            )
            continue
        ledger[f["fingerprint"]] = {
            **stub(f),
            **{k: v[k] for k in ("verdict", "open", "reason", "class") if k in v},
        }
    return list(ledger.values()), notes


def put(entries: list[Entry], verdicts: Iterable[Entry]) -> tuple[list[Entry], list[str]]:
    """The ledger with `verdicts` (entries of findings that fire) put in by fingerprint, where
    it holds no other verdict of its own; and a note for each it kept."""
    ledger = {e["fingerprint"]: e for e in entries}
    notes = []
    for v in verdicts:
        old = ledger.get(v["fingerprint"])
        if old is not None and old["verdict"] in VERDICTS and old["verdict"] != v["verdict"]:
            notes.append(
                f"kept the ledger's {old['verdict']!r}, not {v['verdict']!r}: {describe(v)}"
            )
        else:
            ledger[v["fingerprint"]] = v
    return list(ledger.values()), notes


def _key(item: Finding | Entry) -> tuple[Any, ...]:
    def local(value: Any) -> Any:
        return value.removeprefix("../shared/") if isinstance(value, str) else value

    return (
        local(item.get("path")),
        local(item.get("conversation")),
        item.get("turn"),
        item.get("code"),
        item.get("message"),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=SHARED, help="where realdata* are")
    parser.add_argument("--ledger", type=Path, default=LEDGER)
    parser.add_argument(
        "--write-stubs", action="store_true", help="add unjudged findings to the ledger"
    )
    parser.add_argument("--drop-gone", action="store_true", help="remove gone entries")
    parser.add_argument(
        "--refresh", action="store_true", help="rewrite matched entries' message and line"
    )
    parser.add_argument("--strict", action="store_true", help="fail on open false alarms too")
    parser.add_argument(
        "--adopt",
        type=Path,
        action="append",
        default=[],
        metavar="FILE",
        help="take the verdicts of FILE (judged elsewhere) into the ledger",
    )
    parser.add_argument(
        "--adopt-labelled",
        type=Path,
        nargs="*",
        metavar="FILE",
        help="take the labelled corpora's judgments.json (and FILEs in their shape) into the "
        "ledger",
    )
    args = parser.parse_args(argv)
    try:
        entries = read_ledger(args.ledger) if args.ledger.is_file() else []
    except ValueError as exc:  # orjson.JSONDecodeError
        print(f"{args.ledger}: malformed ledger: {exc}", file=sys.stderr)
        return 2
    bad = problems(entries)
    if bad:
        print(f"{args.ledger}: malformed ledger", *bad, sep="\n  ", file=sys.stderr)
        return 2
    runs = corpora(args.shared)
    if not runs:
        print(f"error: no corpus: {args.shared}/realdata* does not exist", file=sys.stderr)
        return 2
    try:
        found = findings(args.shared.resolve())
    except RuntimeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    before = len(entries)
    for path in args.adopt:
        entries, notes = adopt(found, entries, read_ledger(path))
        for note in notes:
            print(f"{path}: {note}", file=sys.stderr)
    if args.adopt_labelled is not None:
        verdicts, notes = judged_elsewhere(args.shared.resolve(), found, args.adopt_labelled)
        entries, more = put(entries, verdicts)
        for note in notes + more:
            print(f"labelled: {note}", file=sys.stderr)
    c = compare(found, entries)
    show(c, len(entries), runs, sys.stdout)
    adopted = args.adopt or args.adopt_labelled is not None
    if args.write_stubs or args.drop_gone or args.refresh or adopted:
        entries = updated(c, entries, args.write_stubs, args.drop_gone, args.refresh)
        write(args.ledger, entries)
        print(f"\nwrote {args.ledger}: {before} -> {len(entries)} entries")
    failures = c.failures(args.strict)
    print(f"\n{'FAIL' if failures else 'ok'}: {failures} finding(s) to read or fix")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
