"""The `audit compare BASE NEW` command."""

from __future__ import annotations

from dataclasses import replace

import typer

from auditor.cli import table
from auditor.cli.exits import exit_with
from auditor.cli.options import Command, Given, command
from auditor.cli.values import CompareFormat, Kind, Opt
from auditor.common.text import reflow

# `audit compare`'s own options; the rest are the run's (`table`).
BASE = Opt((), "base", Kind.ARGUMENT, metavar="BASE", help="The earlier run: a report or a path.")
NEW = Opt((), "new", Kind.ARGUMENT, metavar="NEW", help="The later run: a report or a path.")
COMPARE_FORMAT = replace(
    table.FORMAT,
    kind=Kind.CHOICE,
    help="table, json or html (one self-contained page). Default: table.",
    metavar="FORMAT",
    default=CompareFormat.table.value,
    choices=CompareFormat,
    check=None,
)
COMPARE_QUIET = replace(table.QUIET, help="The table and limits only, no header.")
FAIL_ON_INCREASE = Opt(
    ("--fail-on-increase",),
    "fail_on_increase",
    Kind.MANY,
    panel=table.PANEL_CI,
    metavar="CODE=PCT",
    help="Exit 1 when the rule's findings per 100 conversations grow by more than PCT percent "
    "(a code, prefix, name or ALL; repeat or separate with commas). A rule that did not fire in "
    "BASE and fires in NEW exceeds any limit.",
)

COMPARE = (
    BASE,
    NEW,
    COMPARE_FORMAT,
    table.OUTPUT,
    COMPARE_QUIET,
    FAIL_ON_INCREASE,
    table.CONFIG,
    table.JOBS,
    table.HELP,
    table.DEBUG,
)
"""The `audit compare` command's: its `-f` and `-q` are the run's flags with values of their own."""


COMPARE_EXAMPLES = reflow(
    """\
Examples:

  audit logs-v1/ -f json -o v1.json && audit logs-v2/ -f json -o v2.json
  audit compare v1.json v2.json
      per rule, per 100 conversations
  audit compare v1.json v2.json --fail-on-increase LP001=10,EX=25
      exit 1 when a rule's rate grows past its limit
  audit compare logs-v1/ logs-v2/ -f html -o compare.html
      audit both on the spot; one page

BASE and NEW are each the `-f json` report of a run, or a path to audit. Limits also come
from `fail-on-increase = { LP001 = 10 }` in \\[tool.auditor]; the command line replaces them.

Exit status: 0 no limit exceeded; 1 a rule's rate grew past its limit; 2 usage error, bad
configuration, unreadable path, no conversation read or internal error.
"""
)


class CompareCommand(Command):
    help_hint = "audit compare -h"


compare_app = typer.Typer(
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
    context_settings={"max_content_width": 100},
)


@compare_app.command(epilog=COMPARE_EXAMPLES, cls=CompareCommand, add_help_option=False)
@command(COMPARE)
def compare(given: Given) -> None:
    """Compare two runs: findings per 100 conversations for each rule, and the conversations
    (matched by id) that gained or lost findings."""

    def act() -> int:
        from auditor.commands import run

        invocation = table.invocation(
            {
                table.PATHS: (given[BASE], given[NEW]),
                table.FORMAT: (COMPARE_FORMAT.value(given[COMPARE_FORMAT]),),
                table.OUTPUT: given[table.OUTPUT],
                table.QUIET: given[COMPARE_QUIET],
                table.CONFIG: given[table.CONFIG],
                table.JOBS: given[table.JOBS],
            }
        )
        return run.compare(invocation, tuple(given[FAIL_ON_INCREASE] or ()))

    exit_with(act, given[table.DEBUG])
