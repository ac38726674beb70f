"""The default output: findings grouped by file, coloured by severity, then a summary.

Every string that comes from a log goes through `safe()` and into a `Text`, never through
markup: a log cannot colour, move or hyperlink anything on the reader's terminal.
"""

from __future__ import annotations

import io
import os
from itertools import groupby
from typing import TextIO

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from auditor.findings import Finding, Severity
from auditor.report import Context, Report
from auditor.reporters._escape import safe

STYLES = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.NOTE: "cyan"}
FILE_WIDTH = 120


def write(report: Report, out: TextIO, context: Context) -> None:
    terminal = out.isatty() if hasattr(out, "isatty") else False
    # Off a terminal, render to a buffer first so that lines carry no padding at their end.
    buffer = None if terminal else io.StringIO()
    console = _console(buffer or out, terminal)
    for path, group in groupby(report.findings, key=lambda f: f.path):
        console.print(Text(safe(path), style="bold underline"))
        console.print(_table(list(group)))
        console.print()
    if not context.quiet:
        _summary(console, report, context)
    if buffer is not None:
        out.writelines(line.rstrip() + "\n" for line in buffer.getvalue().splitlines())


def _console(out: TextIO, terminal: bool) -> Console:
    width = None if terminal or os.environ.get("COLUMNS") else FILE_WIDTH
    return Console(
        file=out,
        width=width,
        highlight=False,
        markup=False,
        emoji=False,
        force_terminal=terminal,
        no_color=not terminal or None,  # type: ignore[arg-type]
        soft_wrap=False,
    )


def _table(findings: list[Finding]) -> Table:
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, header_style="bold")
    table.add_column("Line", justify="right", no_wrap=True)
    table.add_column("Conversation", overflow="fold", max_width=30)
    table.add_column("Turn", justify="right", no_wrap=True)
    table.add_column("Code", no_wrap=True)
    table.add_column("Severity", no_wrap=True)
    table.add_column("Message", overflow="fold")
    for f in findings:
        message = Text(safe(f.message))
        if f.evidence:
            message.append("\n" + safe(f.evidence), style="dim")
        table.add_row(
            Text("" if f.line is None else str(f.line)),
            Text(safe(f.conversation or "")),
            Text("" if f.turn is None else str(f.turn)),
            Text(f.code, style=STYLES[f.severity]),
            Text(f.severity.value, style=STYLES[f.severity]),
            message,
        )
    return table


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}" + ("" if n == 1 else "s")


def _summary(console: Console, report: Report, context: Context) -> None:
    c = report.counts
    read = [
        _plural(c.files, "file"),
        _plural(c.records, "record"),
        _plural(c.conversations, "conversation"),
        _plural(c.assistant_turns, "assistant turn"),
    ]
    if c.skipped_files:
        read.append(f"{c.skipped_files:,} skipped (no transcript)")
    if c.excluded:
        read.append(f"{c.excluded:,} excluded by the configuration")
    console.print(Text("Read " + ", ".join(read), style="bold"))
    if report.findings:
        severities = report.by_severity()
        parts = [_plural(n, s) for s, n in severities.items() if n]
        console.print(Text(f"{_plural(len(report.findings), 'finding')}: " + ", ".join(parts)))
        names = {r.code: r.name for r in report.rules}
        for code, n in report.by_rule().items():
            console.print(Text(f"  {code}  {names.get(code, ''):<32} {n:>6,}"))
    else:
        none = "No new findings." if report.baselined else "No findings."
        console.print(Text(none, style="green"))
    if report.baselined:
        console.print(Text(f"{_plural(report.baselined, 'finding')} in the baseline not shown"))
    for note in report.coverage_notes():
        console.print(Text(f"Coverage: {note}", style="yellow"))
    if report.errors:
        console.print(
            Text(
                f"{_plural(len(report.errors), 'error')} stopped part of the run (see stderr)",
                style="red",
            )
        )
    if context.elapsed is not None and console.is_terminal:
        console.print(Text(f"Done in {context.elapsed:.2f} s", style="dim"))
