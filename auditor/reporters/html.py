"""One self-contained HTML page: run summary, charts, and each conversation with findings.

The page loads nothing: its CSS and script are inline, allowed by a Content-Security-Policy
that names their hashes and nothing else (no other script, style, image, frame or connection,
no inline event handler). Everything that comes from a log is untrusted text: Jinja2 escapes
it (autoescape on), and control, bidi and invisible characters are shown as visible escapes
before that. The script never parses HTML: it only shows, hides, opens and clones elements.

Conversations come as the engine's bounded timelines (`auditor.timeline`, asked for with
`Settings.timelines`); a finding whose conversation has none is still listed, without one.
"""

from __future__ import annotations

import base64
import hashlib
from collections import Counter
from dataclasses import field
from functools import cache
from pathlib import Path
from typing import Any, TextIO

from auditor import __version__, ruledocs
from auditor.common.structs import dataclass
from auditor.common.text import safe_lines
from auditor.findings import Finding, Severity
from auditor.report import Context, Report
from auditor.reporters import _markdown
from auditor.rules import Rule
from auditor.timeline import Entry, Timeline, find

TEMPLATES = Path(__file__).resolve().parent / "templates"
ROLES = frozenset({"system", "developer", "user", "assistant", "tool", "approval"})
FOLD_AT = 3
"""Quiet messages in a row (far from every finding) that are folded under one line."""
TOP_FILES = 20
MAX_TIMELINES = 1000
"""Conversations shown with their timeline; past it they are listed with their findings only,
so that a run with findings in tens of thousands of conversations still makes a page a browser
opens (about 10-40 KB per timeline)."""
EVIDENCE_WORDS = 64


def write(report: Report, out: TextIO, context: Context) -> None:
    out.write(render(report))


def render(report: Report) -> str:
    """The page for `report`."""
    return page("report.html.j2", _view(report))


def page(template: str, values: dict[str, Any]) -> str:
    """A page of this package's templates, with the shared style, script and policy."""
    style, script = _asset("report.css"), _asset("report.js")
    return (
        _environment()
        .get_template(template)
        .render(
            **values,
            style=_markup(style),
            script=_markup(script),
            csp=csp(style, script),
            version=__version__,
        )
    )


def csp(style: str, script: str) -> str:
    """The policy: the page's own style and script by hash, and nothing from anywhere else."""
    return (
        "default-src 'none'; "
        f"style-src '{_digest(style)}'; script-src '{_digest(script)}'; "
        "img-src data:; base-uri 'none'; form-action 'none'"
    )


def _digest(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


@cache
def _asset(name: str) -> str:
    return (TEMPLATES / name).read_text(encoding="utf-8")


def _markup(text: str) -> Any:
    from markupsafe import Markup

    return Markup(text)  # our own CSS and script, hashed into the policy: never log text


@cache
def _environment() -> Any:
    import jinja2
    from markupsafe import Markup

    def finalize(value: Any) -> Any:
        # Every value printed by the template passes here before autoescaping.
        if isinstance(value, str) and not isinstance(value, Markup):
            return safe_lines(value)
        return value

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        finalize=finalize,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


# -- the view: plain data the template walks ---------------------------------------------------


@dataclass
class FindingView:
    finding: Finding
    anchor: str
    target: str | None
    """The anchor of the message it is pinned to; None when the timeline lacks that turn."""
    file: int


@dataclass
class EntryView:
    entry: Entry
    anchor: str
    role_class: str
    text: list[tuple[str, bool]]
    """The text in segments, True for a highlighted (evidence) segment."""
    result: list[tuple[str, bool]]
    marked_calls: set[int]
    marked_result: bool
    findings: list[FindingView] = field(default_factory=list)


@dataclass
class Fold:
    entries: list[EntryView]

    @property
    def first(self) -> int:
        return self.entries[0].entry.shown

    @property
    def last(self) -> int:
        return self.entries[-1].entry.shown


@dataclass
class ConversationView:
    anchor: str
    path: str
    conversation: str
    file: int
    findings: list[FindingView]
    timeline: Timeline | None
    items: list[EntryView | Fold]
    unpinned: list[FindingView]
    """Findings of the whole conversation, or of turns the timeline does not hold."""

    @property
    def codes(self) -> str:
        return " ".join(sorted({f.finding.code for f in self.findings}))

    @property
    def severities(self) -> str:
        return " ".join(sorted({f.finding.severity.value for f in self.findings}))


def _view(report: Report) -> dict[str, Any]:
    findings = report.findings
    files = sorted({f.path for f in findings})
    file_index = {path: i for i, path in enumerate(files)}
    timelines: dict[tuple[str, str], list[Timeline]] = {}
    for t in report.timelines:
        timelines.setdefault((t.path, t.conversation), []).append(t)
    grouped: dict[tuple[str, str], list[Finding]] = {}
    problems: list[FindingView] = []
    for f in findings:
        if f.conversation is None:
            problems.append(FindingView(f, f"p{len(problems)}", None, file_index[f.path]))
        else:
            grouped.setdefault((f.path, f.conversation), []).append(f)
    conversations = [
        _conversation(
            f"c{i}",
            key,
            group,
            timelines.get(key, []) if i < MAX_TIMELINES else [],
            file_index[key[0]],
        )
        for i, (key, group) in enumerate(grouped.items())
    ]
    codes = sorted({f.code for f in findings})
    names = {r.code: r.name for r in report.catalog()}
    rules = [r for r in report.catalog() if r.code in set(codes) or r in report.rules]
    return {
        "report": report,
        "summary": report.summary(),
        "severities": [s.value for s in Severity],
        "rule_chart": _rule_chart(report),
        "file_chart": _file_chart(findings),
        "files": files,
        "codes": [(code, names.get(code, code)) for code in codes],
        "conversations": conversations,
        "problems": problems,
        "rules": rules,
        "rule_docs": {r.code: rule_doc(r) for r in rules},
        "notes": report.notes(),
        "errors": [e.message for e in report.errors],
        "timelines_recorded": bool(report.timelines),
        "timelines_cut": len(conversations) > MAX_TIMELINES and bool(report.timelines),
        "max_timelines": MAX_TIMELINES,
    }


def rule_doc(rule: Rule) -> Any:
    """A rule's documentation as HTML: its docstring's Markdown with the examples as
    conversations (`auditor.ruledocs`), every character of it escaped (`_markdown`)."""
    from markupsafe import Markup

    return Markup(_markdown.html(ruledocs.markdown(rule)))


def _rule_chart(report: Report) -> list[dict[str, Any]]:
    rows = report.statistics()
    top = max((row["count"] for row in rows), default=1)
    return [{**row, "width": round(100 * row["count"] / top, 1)} for row in rows]


def _file_chart(findings: tuple[Finding, ...]) -> dict[str, Any]:
    counts = Counter(f.path for f in findings).most_common()
    top = counts[0][1] if counts else 1
    rows = [
        {"path": path, "count": n, "width": round(100 * n / top, 1)}
        for path, n in counts[:TOP_FILES]
    ]
    rest = counts[TOP_FILES:]
    return {"rows": rows, "more_files": len(rest), "more_findings": sum(n for _, n in rest)}


def _conversation(
    anchor: str,
    key: tuple[str, str],
    findings: list[Finding],
    timelines: list[Timeline],
    file: int,
) -> ConversationView:
    # A conversation read twice (a stream that resumed) shows its longest timeline.
    timeline = max(timelines, key=lambda t: len(t.entries)) if timelines else None
    entries = {e.turn: e for e in timeline.entries} if timeline else {}
    views = []
    pinned: dict[int, list[FindingView]] = {}
    unpinned = []
    for k, f in enumerate(findings):
        at = f.index if f.index is not None and f.index in entries else None
        view = FindingView(f, f"{anchor}-f{k}", None if at is None else f"{anchor}-t{at}", file)
        views.append(view)
        if at is None:
            unpinned.append(view)
        else:
            pinned.setdefault(at, []).append(view)
    items: list[EntryView | Fold] = []
    if timeline is not None:
        shown = [_entry(anchor, e, pinned.get(e.turn, [])) for e in timeline.entries]
        items = _fold(shown)
    return ConversationView(anchor, key[0], key[1], file, views, timeline, items, unpinned)


def _entry(anchor: str, entry: Entry, findings: list[FindingView]) -> EntryView:
    text_marks: list[tuple[int, int]] = []
    result_marks: list[tuple[int, int]] = []
    calls: set[int] = set()
    marked_result = False
    result = entry.result
    for view in findings:
        f = view.finding
        hit = _call_of(entry, f)
        if hit is not None:
            calls.add(hit)
            continue
        if result is not None:
            span = _span(result.text, f.evidence)
            if span is not None:
                result_marks.append(span)
                continue
            if f.call_id is not None and f.call_id == result.call_id:
                marked_result = True
                continue
        span = _span(entry.text, f.evidence)
        if span is not None:
            text_marks.append(span)
    role = entry.role if entry.role in ROLES else "other"
    return EntryView(
        entry,
        f"{anchor}-t{entry.turn}",
        role,
        _segments(entry.text, text_marks),
        _segments(result.text, result_marks) if result is not None else [],
        calls,
        marked_result,
        findings,
    )


def _span(text: str, evidence: str) -> tuple[int, int] | None:
    """Where the evidence is in an excerpt: all of it, else its first words (the excerpt may
    have been cut before the evidence ends)."""
    if not evidence:
        return None
    return find(text, evidence, EVIDENCE_WORDS) or find(text, evidence)


def _call_of(entry: Entry, f: Finding) -> int | None:
    """The call of the message a finding is about: by id, else by `name(` in its evidence."""
    for i, call in enumerate(entry.calls):
        if f.call_id is not None and call.id == f.call_id:
            return i
    for i, call in enumerate(entry.calls):
        if f.evidence.startswith(call.name + "("):
            return i
    return None


def _segments(text: str, marks: list[tuple[int, int]]) -> list[tuple[str, bool]]:
    if not marks:
        return [(text, False)]
    out: list[tuple[str, bool]] = []
    at = 0
    for start, end in sorted(marks):
        start = max(start, at)
        if end <= start:
            continue
        if start > at:
            out.append((text[at:start], False))
        out.append((text[start:end], True))
        at = end
    if at < len(text):
        out.append((text[at:], False))
    return out


def _fold(entries: list[EntryView]) -> list[EntryView | Fold]:
    """Runs of `FOLD_AT` or more quiet messages become one fold."""
    items: list[EntryView | Fold] = []
    run: list[EntryView] = []

    def flush() -> None:
        if len(run) >= FOLD_AT:
            items.append(Fold(list(run)))
        else:
            items.extend(run)
        run.clear()

    for view in entries:
        if not view.entry.near and not view.findings:
            if view.entry.omitted_before and run:
                flush()
            run.append(view)
        else:
            flush()
            items.append(view)
    flush()
    return items
