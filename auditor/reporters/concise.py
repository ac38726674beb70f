"""One line per finding, `path:line: CODE message [conversation turn N]`, like ruff, mypy and gcc.

A finding without a line (inside a member of an Inspect `.eval` zip) is placed by its pointer,
which names the member: `run.eval:/samples/1_epoch_1.json/messages/3: EX001 …`.

Editors and terminals make `path:line:` clickable, `grep` and `wc -l` work on it, and it is
what `audit` prints when stdout is not a terminal and no `-f` is given. Nothing but findings
goes to the output: the summary, coverage and the baseline count go to stderr (`-q` drops
them), as with `-f jsonl`.
"""

from __future__ import annotations

from typing import TextIO

from auditor.common.text import plural, safe
from auditor.findings import Finding, Severity
from auditor.report import Context, Report

# SGR sequences for a terminal: bold path, the code coloured by severity.
_BOLD, _RESET = "\x1b[1m", "\x1b[0m"
_COLORS = {Severity.ERROR: "\x1b[1;31m", Severity.WARNING: "\x1b[33m", Severity.NOTE: "\x1b[36m"}


def line(f: Finding, color: bool = False) -> str:
    """A finding as one line; every piece of log text made safe to print."""
    where, code = place(f), f.code
    if color:
        where = f"{_BOLD}{where}{_RESET}"
        code = f"{_COLORS[f.severity]}{code}{_RESET}"
    return f"{where} {code} {rest(f)}"


def place(f: Finding) -> str:
    """`path:line:`, what editors and terminals open; inside an Inspect `.eval` member, which
    has no lines, `path:pointer:`."""
    where = safe(f.path) + (f":{f.line}:" if f.line is not None else ":")
    if f.line is None and f.pointer:
        where += f"{safe(f.pointer)}:"
    return where


def rest(f: Finding) -> str:
    """What follows the code: the message, then `[conversation turn N]`."""
    context = []
    if f.conversation is not None and f.conversation != f.path:  # a whole-file transcript
        context.append(safe(f.conversation))
    if f.turn is not None:
        context.append(f"turn {f.turn}")
    tail = f" [{' '.join(context)}]" if context else ""
    return f"{safe(f.message)}{tail}"


def write(report: Report, out: TextIO, context: Context) -> None:
    color = bool(context.color)
    out.writelines(line(f, color) + "\n" for f in report.findings)
    if context.notes is None or context.quiet:
        return
    for note in summary(report, verbose=context.whole):
        context.notes.write(f"audit: {safe(note)}\n")


def summary(report: Report, verbose: bool = True) -> list[str]:
    """What was read and found, then the notes (baseline, skipped files, coverage)."""
    c = report.counts
    read = (
        f"{plural(c.files, 'file')}, {plural(c.conversations, 'conversation')}, "
        f"{plural(c.assistant_turns, 'assistant turn')}, {plural(c.tool_calls, 'tool call')}"
    )
    severities = [plural(n, s) for s, n in report.by_severity().items() if n]
    found = (
        f"{plural(len(report.findings), 'finding')} ({', '.join(severities)})"
        if report.findings
        else "no findings"
    )
    return [f"read {read}: {found}", *report.notes(verbose)]
