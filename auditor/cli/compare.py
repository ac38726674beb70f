"""The `audit compare BASE NEW` command."""

from __future__ import annotations

import typer

from auditor.cli import table
from auditor.cli.exits import exit_with
from auditor.cli.options import Command, Given, command
from auditor.text import reflow

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
@command(table.COMPARE)
def compare(given: Given) -> None:
    """Compare two runs: findings per 100 conversations for each rule, and the conversations
    (matched by id) that gained or lost findings."""

    def act() -> int:
        from auditor.commands import run

        invocation = table.invocation(
            {
                table.PATHS: (given[table.BASE], given[table.NEW]),
                table.FORMAT: (table.COMPARE_FORMAT.value(given[table.COMPARE_FORMAT]),),
                table.OUTPUT: given[table.OUTPUT],
                table.QUIET: given[table.COMPARE_QUIET],
                table.CONFIG: given[table.CONFIG],
                table.JOBS: given[table.JOBS],
            }
        )
        return run.compare(invocation, tuple(given[table.FAIL_ON_INCREASE] or ()))

    exit_with(act, given[table.DEBUG])
