"""`audit compare BASE NEW`: how two runs differ, per rule and per conversation.

Each side is the `-f json` report of a run, or a path audited on the spot. Rates are findings
per 100 conversations, so runs of different sizes compare. Conversations are matched by id;
a report lists only the conversations that have findings, so a conversation that is in one
report only either had no finding in the other run or was not part of it.

Two runs are compared on what both hold: rules that ran in one run only (another version of
the auditor, another `select`) are left out and named. `--fail-on-increase CODE=PCT` (and
`fail-on-increase = {CODE = PCT}` in the configuration) makes the exit status 1 when a rule's
rate grows by more than PCT percent; a rule that never fired in BASE and fires in NEW has grown
without bound.

`output` writes a comparison as aligned text, a JSON document or an HTML page.
"""

from __future__ import annotations

import functools
import math
import os
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import field
from typing import Any

import orjson

from auditor import __version__
from auditor import rules as registry
from auditor.common.errors import ConfigError, InputError
from auditor.common.structs import dataclass
from auditor.common.text import safe
from auditor.report import Report

CONFIG_KEY = "fail-on-increase"


@dataclass(frozen=True)
class Run:
    """What a comparison needs of one run."""

    label: str
    """The report file or the audited path, as given."""
    conversations: int
    findings: tuple[tuple[str, str | None], ...]
    """(code, conversation id) of each finding."""
    rules: frozenset[str] | None
    """Codes of the rules that ran; None when the report does not say."""
    names: Mapping[str, str] = field(default_factory=dict)
    version: str | None = None
    """The auditor version that wrote the report (None: unknown)."""
    per_conversation: bool = True
    """False for a `--statistics` report: counts per rule only."""
    counted: Mapping[str, int] | None = None
    """Findings per code, as a `--statistics` report states them (never one tuple each: a
    count may say 300,000,000); None to count `findings`."""

    @functools.cached_property
    def tally(self) -> Counter[str]:
        """Findings per code."""
        if self.counted is not None:
            return Counter(self.counted)
        return Counter(code for code, _ in self.findings)

    @property
    def total(self) -> int:
        return sum(self.tally.values())


@dataclass(frozen=True)
class RuleRow:
    code: str
    name: str
    base: int
    new: int
    base_rate: float | None
    new_rate: float | None

    @property
    def change(self) -> float | None:
        """Rate difference, in findings per 100 conversations."""
        if self.base_rate is None or self.new_rate is None:
            return None
        return self.new_rate - self.base_rate

    @property
    def growth(self) -> float | None:
        """Relative change of the rate in percent; inf when BASE had none and NEW has some."""
        if self.base_rate is None or self.new_rate is None:
            return None
        if self.base_rate == 0:
            return math.inf if self.new_rate > 0 else 0.0
        return 100 * (self.new_rate - self.base_rate) / self.base_rate


@dataclass(frozen=True)
class Changed:
    """A conversation whose findings differ between the runs (common rules only)."""

    conversation: str
    base: dict[str, int]
    new: dict[str, int]

    @property
    def gained(self) -> dict[str, int]:
        return {c: n - self.base.get(c, 0) for c, n in self.new.items() if n > self.base.get(c, 0)}

    @property
    def lost(self) -> dict[str, int]:
        return {c: n - self.new.get(c, 0) for c, n in self.base.items() if n > self.new.get(c, 0)}


@dataclass(frozen=True)
class Limit:
    code: str
    percent: float
    growth: float | None
    base_rate: float | None = None
    new_rate: float | None = None

    @property
    def exceeded(self) -> bool:
        return self.growth is not None and self.growth > self.percent


@dataclass(frozen=True)
class Comparison:
    base: Run
    new: Run
    rows: tuple[RuleRow, ...]
    quiet_rules: int
    """Rules both runs ran that fired in neither."""
    matched: int
    """Conversations with findings in both runs."""
    changed: tuple[Changed, ...]
    only_base: tuple[str, ...]
    """Rules that ran only in BASE (left out), and so on."""
    only_new: tuple[str, ...]
    left_out: tuple[int, int]
    """Findings of BASE and of NEW left out with those rules."""
    limits: tuple[Limit, ...]
    notes: tuple[str, ...]

    @property
    def failed(self) -> bool:
        return any(limit.exceeded for limit in self.limits)


# -- reading the two sides ---------------------------------------------------------------------


def load(arg: str, audit: Callable[[str], Report]) -> Run:
    """A run from its `-f json` report, or by auditing `arg` when it is not one."""
    document = _report_document(arg)
    if document is None:
        return from_report(arg, audit(arg))
    return from_document(arg, document)


REPORT_BYTES = 1024 * 1024 * 1024
"""A report larger than this is not read as one."""


def _report_document(path: str) -> dict[str, Any] | None:
    """The parsed report when `path` is an auditor JSON report, else None (a log to audit).
    A document that says it is one (`tool.name`) must be one: InputError when it breaks the
    report's schema (`auditor/report.schema.json`)."""
    from auditor.sources import read_regular

    if path == "-" or not path.endswith(".json") or not os.path.isfile(path):
        return None
    try:
        with open(path, "rb") as fp:
            head = fp.read(4096)
        if b'"auditor"' not in head:  # `tool.name` comes second in a report
            return None  # a log: not worth parsing twice
        data = orjson.loads(read_regular(path, REPORT_BYTES))
    except (OSError, orjson.JSONDecodeError):
        return None
    tool = data.get("tool") if isinstance(data, dict) else None
    if not isinstance(tool, dict) or tool.get("name") != "auditor":
        return None
    problem = schema_problem(data)
    if problem is not None:
        raise InputError(f"{path}: not an auditor report: {problem}")
    return data


SCHEMA = os.path.join(os.path.dirname(os.path.dirname(__file__)), "report.schema.json")
"""The JSON Schema of `-f json` reports, published with the package."""


@functools.cache
def _validator() -> Any:
    from jsonschema import Draft202012Validator

    with open(SCHEMA, "rb") as fp:
        return Draft202012Validator(orjson.loads(fp.read()))


def schema_problem(document: Any) -> str | None:
    """What makes `document` break the report schema, in one line; None when nothing does."""
    from jsonschema.exceptions import best_match

    error = best_match(_validator().iter_errors(document))
    if error is None:
        return None
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
    said = error.message if len(error.message) <= 120 else error.message[:119] + "…"
    return f"{where.lstrip('.') or 'the document'}: {said}"


def from_report(label: str, report: Report) -> Run:
    return Run(
        label=label,
        conversations=report.counts.conversations,
        findings=tuple((f.code, f.conversation) for f in report.findings),
        rules=frozenset(r.code for r in report.rules),
        names={r.code: r.name for r in report.rules},
        version=__version__,
    )


def from_document(label: str, data: dict[str, Any]) -> Run:
    """A run from a `-f json` (or `--statistics -f json`) document, tolerant of other versions."""
    summary = summary if isinstance(summary := data.get("summary"), dict) else {}
    conversations = summary.get("conversations")
    if not isinstance(conversations, int) or isinstance(conversations, bool):
        raise InputError(f"{label}: the report has no conversation count (summary.conversations)")
    names: dict[str, str] = {}
    findings: list[tuple[str, str | None]] = []
    counted: Counter[str] | None = None
    per_conversation = isinstance(data.get("findings"), list)
    for item in data.get("findings") or data.get("statistics") or []:
        if not isinstance(item, dict) or not isinstance(item.get("code"), str):
            continue
        if item.get("suppressed"):  # a finding a suppression entry matched counts for nothing
            continue
        code = safe(item["code"])  # every text of a report is escaped as it is read
        if isinstance(item.get("name"), str):
            names.setdefault(code, safe(item["name"]))
        if per_conversation:
            cid = item.get("conversation")
            findings.append((code, safe(cid) if isinstance(cid, str) else None))
        else:
            count = item.get("count")
            counted = counted if counted is not None else Counter()
            if isinstance(count, int) and count > 0:
                counted[code] += count
    tool = data.get("tool") or {}
    version = safe(tool["version"]) if isinstance(tool.get("version"), str) else None
    return Run(label, conversations, tuple(findings), _rules_of(data), names, version,
               per_conversation, counted)  # fmt: skip


def _rules_of(data: dict[str, Any]) -> frozenset[str] | None:
    families = (data.get("coverage") or {}).get("families")
    if not isinstance(families, dict):
        return None
    codes = [
        code
        for family in families.values()
        if isinstance(family, dict)
        for code in family.get("rules") or []
        if isinstance(code, str)
    ]
    codes = [safe(code) for code in codes]
    return frozenset(codes)


# -- comparing -----------------------------------------------------------------------------------


def compare(base: Run, new: Run, limits: Mapping[str, float] | None = None) -> Comparison:
    """Compare two runs on the rules both ran; `limits` are selector -> percent."""
    notes: list[str] = []
    known = [r for r in (base.rules, new.rules) if r is not None]
    if len(known) == 2:
        common = known[0] & known[1]
    elif known:
        common = known[0]
    else:
        common = frozenset(base.tally) | frozenset(new.tally)
    for run, name in ((base, "BASE"), (new, "NEW")):
        if run.rules is None:
            notes.append(f"{name} does not say which rules ran: its findings are taken as is")
    if base.version != new.version:
        notes.append(
            f"the reports were written by different auditor versions "
            f"({base.version or 'unknown'} and {new.version or 'unknown'})"
        )
    only_base = tuple(sorted((base.rules or frozenset()) - common)) if base.rules else ()
    only_new = tuple(sorted((new.rules or frozenset()) - common)) if new.rules else ()
    left_out = (
        sum(n for c, n in base.tally.items() if c not in common),
        sum(n for c, n in new.tally.items() if c not in common),
    )
    rows, quiet = _rows(base, new, common)
    matched, changed = _conversations(base, new, common)
    if not (base.per_conversation and new.per_conversation):
        notes.append("a --statistics report has no conversations: only rates are compared")
    elif changed and not matched and base.total and new.total:
        notes.append(
            "no conversation id has findings in both runs: if the two runs name the same "
            "conversations differently, the gained and lost lists pair nothing"
        )
    by_code = {row.code: row for row in rows}
    checked = []
    for code, (percent, exact) in sorted(_limits_by_code(limits or {}, base, new).items()):
        if code not in common:
            if exact:
                notes.append(f"the limit on {code} was not checked: the rule did not run in both")
            continue
        row = by_code.get(code)
        if row is None:  # ran in both, fired in neither
            checked.append(Limit(code, percent, 0.0, _rate(0, base.conversations),
                                 _rate(0, new.conversations)))  # fmt: skip
        else:
            checked.append(Limit(code, percent, row.growth, row.base_rate, row.new_rate))
    return Comparison(
        base, new, tuple(rows), quiet, matched, tuple(changed), only_base, only_new, left_out,
        tuple(checked), tuple(notes),
    )  # fmt: skip


def _rate(count: int, conversations: int) -> float | None:
    return 100 * count / conversations if conversations else None


def _rows(base: Run, new: Run, common: frozenset[str]) -> tuple[list[RuleRow], int]:
    b = Counter({c: k for c, k in base.tally.items() if c in common})
    n = Counter({c: k for c, k in new.tally.items() if c in common})
    codes = sorted(set(b) | set(n))
    rows = [
        RuleRow(
            code,
            new.names.get(code) or base.names.get(code) or _registry_name(code),
            b[code],
            n[code],
            _rate(b[code], base.conversations),
            _rate(n[code], new.conversations),
        )
        for code in codes
    ]
    return rows, len(common) - len(codes)


def _registry_name(code: str) -> str:
    rule = registry.BY_CODE.get(code)
    return rule.name if rule is not None else ""


def _conversations(base: Run, new: Run, common: frozenset[str]) -> tuple[int, list[Changed]]:
    def by_conversation(run: Run) -> dict[str, Counter[str]]:
        out: dict[str, Counter[str]] = {}
        for code, cid in run.findings:
            if cid is not None and code in common:
                out.setdefault(cid, Counter())[code] += 1
        return out

    b, n = by_conversation(base), by_conversation(new)
    matched = len(b.keys() & n.keys())
    changed = [
        Changed(cid, dict(sorted(b.get(cid, {}).items())), dict(sorted(n.get(cid, {}).items())))
        for cid in sorted(b.keys() | n.keys())
        if b.get(cid) != n.get(cid)
    ]
    return matched, changed


def _limits_by_code(
    limits: Mapping[str, float], base: Run, new: Run
) -> dict[str, tuple[float, bool]]:
    """Selectors (codes, prefixes, names, ALL) -> (percent, named exactly) by code; the
    narrowest selector wins. A code of another auditor version's report counts as known."""
    seen = set(base.tally) | set(new.tally) | (base.rules or set()) | (new.rules or set())
    known = seen | set(registry.BY_CODE)
    chosen: list[tuple[int, str, float, bool]] = []
    for selector, percent in limits.items():
        token = selector.strip().upper()
        rule = registry.lookup(selector)
        if rule is not None or token in known:
            codes, exact = [rule.code if rule is not None else token], True
        elif token == "ALL":
            codes, exact = sorted(seen), False
        else:
            codes, exact = sorted(c for c in known if c.startswith(token)), False
            if not codes:
                raise ConfigError(
                    f"unknown rule selector `{selector.strip()}` in a fail-on-increase limit: "
                    "use a code (LP001), a prefix (LP), a name or ALL"
                )
        chosen.extend((len(codes), code, percent, exact) for code in codes)
    chosen.sort(key=lambda c: -c[0])  # broad selectors first: a code's own limit wins
    return {code: (percent, exact) for _, code, percent, exact in chosen}


def parse_limits(values: Iterable[str]) -> dict[str, float]:
    """`--fail-on-increase LP001=10 --fail-on-increase EX=25,CF003=0` -> selector: percent."""
    limits: dict[str, float] = {}
    for value in values:
        for part in value.split(","):
            if not part.strip():
                continue
            selector, sep, number = part.partition("=")
            try:
                percent = float(number.strip().rstrip("%"))
            except ValueError:
                percent = -1.0
            if not sep or not selector.strip() or not 0 <= percent < math.inf:
                raise ConfigError(
                    f"invalid --fail-on-increase `{part.strip()}`: use CODE=PERCENT, e.g. "
                    "LP001=10 (a code, prefix, name or ALL, and a percent >= 0)"
                )
            limits[selector.strip()] = percent
    return limits


def config_limits(values: Mapping[str, Any], error: Callable[[str], Exception]) -> dict[str, float]:
    """The `fail-on-increase` table of the configuration, checked."""
    table = values.get(CONFIG_KEY, {})
    if not isinstance(table, dict):
        raise error(f"{CONFIG_KEY} must be a table of rule = percent, e.g. {{ LP001 = 10 }}")
    limits = {}
    for selector, percent in table.items():
        if isinstance(percent, bool) or not isinstance(percent, int | float) or not percent >= 0:
            raise error(f"{CONFIG_KEY}.{selector} must be a number >= 0 (a percent)")
        limits[selector] = float(percent)
    return limits
