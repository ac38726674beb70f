"""The `audit compare BASE NEW` command."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer

from auditor.cli.exits import exit_with
from auditor.cli.options import (
    FLAG,
    PANEL_CI,
    PANEL_OUTPUT,
    Command,
    ConfigOption,
    DebugOption,
    HelpOption,
    JobsOption,
    OutputOption,
    parse_jobs,
)
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


class CompareFormat(StrEnum):
    table = "table"
    json = "json"
    html = "html"


class CompareCommand(Command):
    help_hint = "audit compare -h"


compare_app = typer.Typer(
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
    context_settings={"max_content_width": 100},
)


@compare_app.command(epilog=COMPARE_EXAMPLES, cls=CompareCommand, add_help_option=False)
def compare(
    base: Annotated[
        str, typer.Argument(metavar="BASE", help="The earlier run: a report or a path.")
    ],
    new: Annotated[str, typer.Argument(metavar="NEW", help="The later run: a report or a path.")],
    output_format: Annotated[
        CompareFormat,
        typer.Option(
            "--format",
            "-f",
            metavar="FORMAT",
            help="table, json or html (one self-contained page). Default: table.",
            rich_help_panel=PANEL_OUTPUT,
            show_default=False,
        ),
    ] = CompareFormat.table,
    output: OutputOption = None,
    quiet: Annotated[
        bool,
        typer.Option(
            "--quiet",
            "-q",
            metavar=FLAG,
            help="The table and limits only, no header.",
            rich_help_panel=PANEL_OUTPUT,
        ),
    ] = False,
    fail_on_increase: Annotated[
        list[str] | None,
        typer.Option(
            "--fail-on-increase",
            metavar="CODE=PCT",
            help="Exit 1 when the rule's findings per 100 conversations grow by more than PCT "
            "percent (a code, prefix, name or ALL; repeat or separate with commas). A rule "
            "that did not fire in BASE and fires in NEW exceeds any limit.",
            rich_help_panel=PANEL_CI,
        ),
    ] = None,
    config_file: ConfigOption = None,
    jobs: JobsOption = "auto",
    show_help: HelpOption = False,
    debug: DebugOption = False,
) -> None:
    """Compare two runs: findings per 100 conversations for each rule, and the conversations
    (matched by id) that gained or lost findings."""

    def act() -> int:
        from auditor.commands import run
        from auditor.commands.run import Invocation, Output

        invocation = Invocation(
            paths=(base, new),
            outputs=(Output(output_format.value, output),),
            config_file=config_file,
            quiet=quiet,
            jobs=parse_jobs(jobs),
            fitted_jobs=jobs.strip().lower() == "auto",
        )
        return run.compare(invocation, tuple(fail_on_increase or ()))

    exit_with(act, debug)
