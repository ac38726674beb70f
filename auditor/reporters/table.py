"""The default output on a terminal: findings grouped by file, coloured by severity, a summary.

Each finding takes at most three lines, however narrow the terminal: the line, code,
severity, conversation and turn on the first (the conversation id shortened at its end if it
must be, never wrapped), then the message in two lines at most, cut with `…`. `-v` shows
whole messages, and `--show-evidence` or `-v` each finding's excerpt of the log.

A path is never broken across lines: terminals open `path` and `path:line` on a click, and
not the halves of one. Each file's path heads its findings on a line of its own; when a path
is wider than the terminal, the run's findings are one line each instead, `path:line: CODE
message [conversation turn N]` as `-f concise` writes them, which the terminal wraps whole.

Every string that comes from a log goes through `safe()` and into a `Text`, never through
markup: a log cannot colour, move or hyperlink anything on the reader's terminal.
"""

from __future__ import annotations

import io
import os
from itertools import groupby
from typing import TextIO

from rich.cells import cell_len
from rich.console import Console
from rich.table import Table
from rich.text import Text

from auditor.common.text import plural, safe
from auditor.findings import Finding, Severity
from auditor.report import Context, Report
from auditor.reporters.concise import place, rest

STYLES = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.NOTE: "cyan"}
FILE_WIDTH = 120
"""Columns when writing to a file or a pipe (COLUMNS wins)."""
MESSAGE_LINES = 2


def write(report: Report, out: TextIO, context: Context) -> None:
    terminal = out.isatty() if hasattr(out, "isatty") else False
    # Off a terminal, render to a buffer first so that lines carry no padding at their end.
    buffer = None if terminal else io.StringIO()
    console = _console(buffer or out, terminal, context)
    cut = False
    wide = any(cell_len(safe(path)) > console.width for path in {f.path for f in report.findings})
    if wide:
        for f in report.findings:
            _line(console, f, context)
        console.print()
    else:
        for path, group in groupby(report.findings, key=lambda f: f.path):
            console.print(Text(safe(path), style="bold underline"), soft_wrap=True)
            findings = list(group)
            digits = max((len(str(f.line)) for f in findings if f.line is not None), default=0)
            for f in findings:
                cut |= _finding(console, f, digits, context)
            console.print()
    if not context.quiet:
        _summary(console, report, context, cut, wide)
    if buffer is not None:
        out.writelines(line.rstrip() + "\n" for line in buffer.getvalue().splitlines())


def _console(out: TextIO, terminal: bool, context: Context) -> Console:
    width = context.width
    if width is None and not terminal and not os.environ.get("COLUMNS"):
        width = FILE_WIDTH
    color = terminal if context.color is None else context.color
    return Console(
        file=out,
        width=width,
        highlight=False,
        markup=False,
        emoji=False,
        force_terminal=color,
        no_color=not color or None,
        soft_wrap=False,
    )


def _finding(console: Console, f: Finding, digits: int, context: Context) -> bool:
    """Print one finding; True when its message had to be cut."""
    width = console.width
    indent = digits + 1 if digits else 2  # messages always sit under the code
    number = "" if f.line is None else str(f.line)
    head = Text(number.rjust(digits) + (" " if digits else ""))
    head.append(f.code, style=STYLES[f.severity])
    head.append(" " + f.severity.value.ljust(7), style=STYLES[f.severity])
    where = _where(f)
    if where:
        head.append("  " + where, style="dim")
    head.truncate(width, overflow="ellipsis")
    console.print(head, no_wrap=True, overflow="ellipsis")
    room = max(width - indent, 20)
    lines = list(Text(safe(f.message)).wrap(console, room))
    cut = not context.whole and len(lines) > MESSAGE_LINES
    if cut:
        lines = lines[:MESSAGE_LINES]
        last = lines[-1]
        last.truncate(room - 1)
        last.rstrip()
        last.append("…")
    for line in lines:
        console.print(Text(" " * indent) + line, no_wrap=True)
    _evidence(console, f, context, indent)
    return cut


def _line(console: Console, f: Finding, context: Context) -> None:
    """One finding on one line, as `-f concise` writes it: not wrapped here, so that the
    terminal wraps it without a line break inside its path."""
    text = Text(place(f), style="bold")
    text.append(" ")
    text.append(f.code, style=STYLES[f.severity])
    text.append(" " + rest(f))
    console.print(text, soft_wrap=True)
    _evidence(console, f, context, 2)


def _evidence(console: Console, f: Finding, context: Context, indent: int) -> None:
    if f.evidence and (context.show_evidence or context.whole):
        room = max(console.width - indent, 20)
        for line in Text(safe(f.evidence), style="dim").wrap(console, room):
            console.print(Text(" " * indent) + line, no_wrap=True)


def _where(f: Finding) -> str:
    """Conversation and turn, with an id made of the file's own path shortened: the path is
    the heading above (`logs/a.jsonl:12` -> `line 12`, `logs/a.json#3` -> `#3`)."""
    parts = []
    conversation = f.conversation
    if conversation is not None:
        if conversation == f.path:
            conversation = ""
        elif conversation.startswith(f.path + ":"):
            conversation = "line " + conversation[len(f.path) + 1 :]
        elif conversation.startswith(f.path + "#"):
            conversation = conversation[len(f.path) :]
        if conversation:
            parts.append(safe(conversation))
    if f.turn is not None:
        parts.append(f"turn {f.turn}")
    return " · ".join(parts)


def _summary(console: Console, report: Report, context: Context, cut: bool, wide: bool) -> None:
    c = report.counts
    read = [
        plural(c.files, "file"),
        plural(c.records, "record"),
        plural(c.conversations, "conversation"),
        plural(c.assistant_turns, "assistant turn"),
        plural(c.tool_calls, "tool call"),
    ]
    if c.excluded:
        read.append(f"{c.excluded:,} excluded by the configuration")
    if c.gitignored:
        read.append(f"{c.gitignored:,} ignored by .gitignore")
    console.print(Text("Read " + ", ".join(read), style="bold"))
    skipped = report.skipped_note()
    if skipped:  # it names files: wrapped by the terminal, never inside a path
        console.print(Text(safe(skipped[0].upper() + skipped[1:])), soft_wrap=True)
    if report.findings:
        severities = report.by_severity()
        parts = [plural(n, s) for s, n in severities.items() if n]
        console.print(Text(f"{plural(len(report.findings), 'finding')}: " + ", ".join(parts)))
        names = {r.code: r.name for r in report.rules}
        for code, n in report.by_rule().items():
            console.print(Text(f"  {code}  {names.get(code, ''):<32} {n:>6,}"))
    else:
        none = "No new findings." if report.baselined or report.suppressed else "No findings."
        console.print(Text(none, style="green"))
    for note in report.baseline_notes() + report.suppression_notes():
        console.print(Text(safe(note[0].upper() + note[1:])))
    coverage = report.coverage_notes(verbose=context.whole)
    if coverage:  # one block, each note's lines under its first
        block = Table.grid(padding=(0, 1))
        block.add_column(no_wrap=True)
        block.add_column()
        for i, note in enumerate(coverage):
            block.add_row(Text("Coverage:" if i == 0 else ""), Text(safe(note)))
        console.print(block, style="yellow")
    if report.errors:
        console.print(
            Text(
                f"{plural(len(report.errors), 'error')} stopped part of the run (see stderr)",
                style="red",
            )
        )
    if cut:
        console.print(Text("Messages cut to two lines: -v shows them whole.", style="dim"))
    if wide:
        console.print(
            Text(
                f"A path is wider than {console.width} columns: one line a finding, "
                "as -f concise writes them.",
                style="dim",
            )
        )
    if context.elapsed is not None and console.is_terminal:
        console.print(Text(f"Done in {context.elapsed:.2f} s", style="dim"))
