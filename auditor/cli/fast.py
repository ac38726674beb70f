"""A plain `audit PATHS…` run, read from its arguments without typer.

typer and its Click take about 40 ms of every start, a third of a small file's audit and what
a pre-commit hook pays on every commit. The arguments of a run that names paths and the
table's run options only (`cli/table.py`, whose options the typer command is made of too) are
read here as typer reads them: a long option as `--name VALUE` or `--name=VALUE`, a short one
as `-x VALUE`, a repeated one's values collected (`Kind.MANY`) or its last kept, options and
paths in any order, a choice checked against its values. Anything else (help, a listing,
`--explain`, `audit compare`, an unknown option, `--`, short options run together, a value
typer would refuse or would read differently) goes to typer, which reads it or says what is
wrong. `tests/cli/test_fast.py` reads a corpus of command lines both ways.
"""

from __future__ import annotations

import os
from typing import Any

from auditor.cli import table
from auditor.cli.values import Kind, Opt

FLAGS = {flag: opt for opt in table.AUDIT if opt.run for flag in opt.flags}
"""The options of a plain run, by each of their flags."""


def read(argv: list[str]) -> dict[Opt, Any] | None:
    """The values of the options `argv` gives, as typer would pass them; None when the
    arguments are not those of a plain run (typer reads them)."""
    if not argv or argv[0] == "compare" or "_AUDIT_COMPLETE" in os.environ:
        return None
    given: dict[Opt, Any] = {}
    paths: list[str] = []
    i = 0
    while i < len(argv):
        word = argv[i]
        i += 1
        if word == "-" or not word.startswith("-"):
            paths.append(word)
            continue
        name, equals, attached = word.partition("=") if word.startswith("--") else (word, "", "")
        opt = FLAGS.get(name)
        if opt is None:
            return None  # help, a listing, `--`, an unknown option, `-qv`, `-fjson`
        if opt.kind is Kind.FLAG:
            if equals:
                return None
            given[opt] = True
            continue
        if equals:
            value = attached
        elif i < len(argv) and not argv[i].startswith("-"):
            value, i = argv[i], i + 1
        else:
            return None  # no value, or one that starts with a dash: typer decides
        if opt.kind is Kind.MANY:
            given.setdefault(opt, []).append(value)
        else:
            given[opt] = value
    if not paths or not all(_valid(opt, value) for opt, value in given.items()):
        return None
    given[table.PATHS] = paths
    return given


def _valid(opt: Opt, value: Any) -> bool:
    """Whether typer takes the value (each value, of a repeated option) given to `opt`."""
    if opt.choices is not None and value not in opt.choices.__members__.values():
        return False
    check = opt.check
    return check is None or not any(
        check(one) for one in (value if isinstance(value, list) else [value])
    )


def run(argv: list[str]) -> None:
    """Run `audit ARGV` and exit with its status when it is a plain run; return (having done
    nothing) when it is not."""
    given = read(argv)
    if given is None:
        return
    from auditor.cli.exits import exit_with
    from auditor.commands import run as audit_run

    exit_with(lambda: audit_run.main(table.invocation(given)), given.get(table.DEBUG, False))
