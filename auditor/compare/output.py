"""A comparison written out: aligned text, a JSON document, or an HTML page."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, TextIO

from auditor import __version__
from auditor.common.text import plural, safe
from auditor.compare import Comparison, Limit, Run

SCHEMA_VERSION = 1


SHOWN = 50
"""Changed conversations listed in the text output (all of them are in JSON and HTML)."""


def _number(value: float | None, digits: int = 1) -> str:
    return "" if value is None else f"{value:.{digits}f}"


def growth_text(growth: float | None) -> str:
    if growth is None:
        return ""
    if math.isinf(growth):
        return "new"
    return f"{growth:+.0f}%"


def limit_text(limit: Limit) -> str:
    """`limit LP001 +10%: 2.0 -> 3.5 per 100 conversations (+75%): EXCEEDED`."""
    rates = f"{_number(limit.base_rate)} -> {_number(limit.new_rate)} per 100 conversations"
    change = growth_text(limit.growth) or "+0%"
    verdict = "EXCEEDED" if limit.exceeded else "ok"
    return f"limit {limit.code} +{limit.percent:g}%: {rates} ({change}): {verdict}"


def document(c: Comparison) -> dict[str, Any]:
    def side(run: Run) -> dict[str, Any]:
        return {
            "label": run.label,
            "auditor_version": run.version,
            "conversations": run.conversations,
            "findings": run.total,
        }

    def rounded(value: float | None) -> float | None:
        return None if value is None else round(value, 2)

    return {
        "version": SCHEMA_VERSION,
        "tool": {"name": "auditor", "version": __version__},
        "base": side(c.base),
        "new": side(c.new),
        "rules": [
            {
                "code": row.code,
                "name": row.name,
                "base": row.base,
                "new": row.new,
                "base_per_100_conversations": rounded(row.base_rate),
                "new_per_100_conversations": rounded(row.new_rate),
                "change_per_100_conversations": rounded(row.change),
                "change_percent": None
                if row.growth is None or math.isinf(row.growth)
                else round(row.growth, 1),
            }
            for row in c.rows
        ],
        "conversations": {
            "with_findings_in_both": c.matched,
            "changed": [
                {
                    "conversation": ch.conversation,
                    "base": ch.base,
                    "new": ch.new,
                    "gained": ch.gained,
                    "lost": ch.lost,
                }
                for ch in c.changed
            ],
        },
        "left_out": {
            "rules_only_in_base": list(c.only_base),
            "rules_only_in_new": list(c.only_new),
            "findings_only_in_base": c.left_out[0],
            "findings_only_in_new": c.left_out[1],
        },
        "limits": [
            {
                "code": limit.code,
                "percent": limit.percent,
                "change_percent": None
                if limit.growth is None or math.isinf(limit.growth)
                else round(limit.growth, 1),
                "exceeded": limit.exceeded,
            }
            for limit in c.limits
        ],
        "notes": list(c.notes),
    }


def write_json(c: Comparison, out: TextIO) -> None:
    from auditor.common.text import dumps

    out.write(dumps(document(c), indent=True) + "\n")


def write_html(c: Comparison, out: TextIO) -> None:
    from auditor.reporters import html

    out.write(html.page("compare.html.j2", _html_view(c)))


def _html_view(c: Comparison) -> dict[str, Any]:
    top = max([row.base_rate or 0 for row in c.rows] + [row.new_rate or 0 for row in c.rows] + [1])
    return {
        "c": c,
        "rows": [
            {
                "row": row,
                "base_rate": _number(row.base_rate),
                "new_rate": _number(row.new_rate),
                "change": "" if row.change is None else f"{row.change:+.1f}",
                "growth": growth_text(row.growth),
                "direction": "up"
                if (row.change or 0) > 0
                else "down"
                if (row.change or 0) < 0
                else "",
                "base_width": round(100 * (row.base_rate or 0) / top, 1),
                "new_width": round(100 * (row.new_rate or 0) / top, 1),
            }
            for row in c.rows
        ],
        "left_out": _left_out_lines(c),
        "quiet_text": quiet_text(c),
        "limit_text": limit_text,
    }


def quiet_text(c: Comparison) -> str:
    return f"{plural(c.quiet_rules, 'more rule', 'more rules')} ran in both and fired in neither."


def _left_out_lines(c: Comparison) -> list[str]:
    lines = []
    for codes, n, name in (
        (c.only_base, c.left_out[0], "BASE"),
        (c.only_new, c.left_out[1], "NEW"),
    ):
        if codes:
            lines.append(
                f"rules that ran only in {name}: {', '.join(codes)} "
                f"({plural(n, 'finding')} left out)"
            )
    return lines


def write_text(c: Comparison, out: TextIO, quiet: bool = False) -> None:
    # Every line escaped once more: what came from a report never reaches a terminal raw.
    out.writelines(safe(line.rstrip()) + "\n" for line in text_lines(c, quiet))


def text_lines(c: Comparison, quiet: bool = False) -> list[str]:
    """The comparison as aligned text; labels and ids from the reports are escaped."""
    lines = []
    if not quiet:
        for name, run in (("BASE", c.base), ("NEW ", c.new)):
            lines.append(
                f"{name} {safe(run.label)}: {run.conversations:,} conversations, "
                f"{plural(run.total, 'finding')}"
                + (f" (auditor {safe(run.version)})" if run.version else "")
            )
        lines.append("")
    head = ("code", "name", "BASE", "per 100", "NEW", "per 100", "change", "")
    cells = [
        (
            row.code,
            safe(row.name),
            f"{row.base:,}",
            _number(row.base_rate),
            f"{row.new:,}",
            _number(row.new_rate),
            "" if row.change is None else f"{row.change:+.1f}",
            growth_text(row.growth),
        )
        for row in c.rows
    ]
    if cells:
        widths = [max(len(r[i]) for r in [head, *cells]) for i in range(len(head))]
        right = (False, False, True, True, True, True, True, True)
        lines.extend(
            "  ".join(
                cell.rjust(w) if r else cell.ljust(w)
                for cell, w, r in zip(row, widths, right, strict=True)
            ).rstrip()
            for row in [head, *cells]
        )
    else:
        lines.append("No finding in either run.")
    if c.quiet_rules:
        lines.append(quiet_text(c))
    lines.append("")
    lines.extend(_conversation_lines(c, safe))
    lines.extend(limit_text(limit) for limit in c.limits)
    lines.extend(f"left out: {line}" for line in _left_out_lines(c))
    lines.extend(f"note: {note}" for note in c.notes)
    return lines


def _conversation_lines(c: Comparison, safe: Callable[[str], str]) -> list[str]:
    if not (c.base.per_conversation and c.new.per_conversation):
        return []
    gained = [ch for ch in c.changed if ch.gained]
    lost = [ch for ch in c.changed if ch.lost]
    lines = [
        f"Conversations (by id): {c.matched:,} with findings in both runs, "
        f"{len(gained):,} gained findings, {len(lost):,} lost findings"
    ]

    def codes(counts: dict[str, int], sign: str) -> str:
        return " ".join(f"{sign}{code}" + (f"×{n}" if n > 1 else "") for code, n in counts.items())

    for ch in c.changed[:SHOWN]:
        change = " ".join(x for x in (codes(ch.gained, "+"), codes(ch.lost, "-")) if x)
        lines.append(f"  {safe(ch.conversation)}  {change}")
    if len(c.changed) > SHOWN:
        lines.append(f"  … and {len(c.changed) - SHOWN:,} more (all of them with -f json)")
    lines.append("")
    return lines
