"""The `audit` command: arguments in, exit status out, nothing else.

Exit status (SPEC §7): 0 when no finding reaches `--fail-on`, 1 when one does, 2 for a usage
error, an unreadable path or an internal error, each with one line on stderr and never a
traceback (unless `--debug`). A broken pipe (`audit … | head`) ends the run quietly.
"""

from __future__ import annotations

import os
import sys
from enum import StrEnum
from typing import Annotated, NoReturn

import typer

from auditor.__main__ import VERSION
from auditor.errors import AuditorError

EXAMPLES = """\
Examples:

  audit runs.jsonl                        audit one log, findings as a table
  audit logs/ -f json | jq '.summary'     every log below logs/, JSON for jq
  audit logs/ -f sarif -o audit.sarif     SARIF for GitHub code scanning
  cat run.jsonl | audit -                 read standard input
  audit logs/ --select EX,FB --fail-on error
  audit logs/ --write-baseline .audit-baseline.json   accept today's findings
  audit logs/ --baseline .audit-baseline.json         then fail only on new ones
  audit logs/ --statistics                counts per rule
  audit --explain EX003                   what a rule reports, and why

Settings come from \\[tool.auditor] in the nearest pyproject.toml (or --config FILE); the
command line wins.

Exit status: 0 no finding at or above --fail-on; 1 there are; 2 usage error, bad
configuration, unreadable path or internal error.
"""


class OutputFormat(StrEnum):
    table = "table"
    json = "json"
    jsonl = "jsonl"
    sarif = "sarif"
    github = "github"


class FailOn(StrEnum):
    error = "error"
    warning = "warning"
    note = "note"
    never = "never"


app = typer.Typer(
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)

_OUTPUT = "Output"
_RULES = "Rules"
_CI = "Configuration and CI"
_INFO = "Information"


# Each option once, as a type: the command's signature below stays one line per option.
Paths = Annotated[
    list[str] | None,
    typer.Argument(
        metavar="PATHS...",
        help="Log files or directories (searched for *.jsonl, *.ndjson, *.json, *.traj, "
        "*.txt, also .gz); - reads standard input.",
        show_default=False,
    ),
]
FormatOption = Annotated[
    OutputFormat,
    typer.Option("--format", "-f", help="How to print findings.", rich_help_panel=_OUTPUT),
]
OutputOption = Annotated[
    str | None,
    typer.Option(
        "--output",
        "-o",
        metavar="FILE",
        help="Write the report to FILE instead of stdout.",
        rich_help_panel=_OUTPUT,
    ),
]
InputFormatOption = Annotated[
    str,
    typer.Option(
        "--input-format",
        metavar="NAME",
        help="Read every record as this log format instead of detecting each record's "
        "own; `audit --formats` lists them.",
    ),
]
SelectOption = Annotated[
    list[str] | None,
    typer.Option(
        "--select",
        metavar="CODES",
        help="Only these rules: codes, prefixes (EX, CF00) or names, comma-separated. "
        "Replaces the configuration's select and ignore. Default: ALL.",
        rich_help_panel=_RULES,
    ),
]
IgnoreOption = Annotated[
    list[str] | None,
    typer.Option(
        "--ignore",
        metavar="CODES",
        help="Skip these rules (codes, prefixes or names), besides the configuration's ignore.",
        rich_help_panel=_RULES,
    ),
]
FailOnOption = Annotated[
    FailOn | None,
    typer.Option(
        "--fail-on",
        help="Lowest severity that makes the exit status 1. Default: warning.",
        rich_help_panel=_RULES,
        show_default=False,
    ),
]
ExitZeroOption = Annotated[
    bool,
    typer.Option(
        "--exit-zero",
        help="Exit 0 even when there are findings (2 still means an error).",
        rich_help_panel=_RULES,
    ),
]
ConfigOption = Annotated[
    str | None,
    typer.Option(
        "--config",
        metavar="FILE",
        help="Read settings from FILE (a pyproject.toml, or a TOML file with the keys of "
        "\\[tool.auditor] at its top) instead of the nearest pyproject.toml.",
        rich_help_panel=_CI,
    ),
]
BaselineOption = Annotated[
    str | None,
    typer.Option(
        "--baseline",
        metavar="FILE",
        help="Leave out the findings recorded in FILE: only new findings are shown and "
        "count for the exit status.",
        rich_help_panel=_CI,
    ),
]
WriteBaselineOption = Annotated[
    str | None,
    typer.Option(
        "--write-baseline",
        metavar="FILE",
        help="Record every finding of this run in FILE, to pass to --baseline later; "
        "exits 0 unless something could not be audited.",
        rich_help_panel=_CI,
    ),
]
StatisticsOption = Annotated[
    bool,
    typer.Option(
        "--statistics",
        help="Print how often each rule fired (also per 100 conversations) instead of "
        "the findings; as text, or with -f json / -f jsonl.",
        rich_help_panel=_OUTPUT,
    ),
]
JobsOption = Annotated[
    str,
    typer.Option(
        "--jobs",
        "-j",
        metavar="N",
        help="Audit in N processes (`auto`: one per core). Large JSON Lines files are "
        "split; the report is the same as with one.",
    ),
]
NoProgressOption = Annotated[
    bool,
    typer.Option("--no-progress", help="No progress bar on stderr.", rich_help_panel=_OUTPUT),
]
QuietOption = Annotated[
    bool,
    typer.Option(
        "--quiet",
        "-q",
        help="Print findings only: no summary, no progress.",
        rich_help_panel=_OUTPUT,
    ),
]
RulesOption = Annotated[
    bool,
    typer.Option(
        "--rules",
        help="List the rules (as a table, or JSON with -f json) and exit.",
        rich_help_panel=_INFO,
    ),
]
FormatsOption = Annotated[
    bool,
    typer.Option(
        "--formats",
        help="List the log formats --input-format accepts and exit.",
        rich_help_panel=_INFO,
    ),
]
ExplainOption = Annotated[
    str | None,
    typer.Option(
        "--explain",
        metavar="CODE",
        help="Explain a rule (code or name) and exit.",
        rich_help_panel=_INFO,
    ),
]
VersionOption = Annotated[
    bool, typer.Option("--version", help="Print the version and exit.", rich_help_panel=_INFO)
]
DebugOption = Annotated[
    bool, typer.Option("--debug", help="Show a traceback on internal errors.", hidden=True)
]


@app.command(epilog=EXAMPLES, no_args_is_help=False)
def audit(
    paths: Paths = None,
    output_format: FormatOption = OutputFormat.table,
    output: OutputOption = None,
    input_format: InputFormatOption = "auto",
    select: SelectOption = None,
    ignore: IgnoreOption = None,
    fail_on: FailOnOption = None,
    exit_zero: ExitZeroOption = False,
    config_file: ConfigOption = None,
    baseline_file: BaselineOption = None,
    write_baseline: WriteBaselineOption = None,
    statistics: StatisticsOption = False,
    jobs: JobsOption = "1",
    no_progress: NoProgressOption = False,
    quiet: QuietOption = False,
    list_rules: RulesOption = False,
    list_formats: FormatsOption = False,
    explain: ExplainOption = None,
    version: VersionOption = False,
    debug: DebugOption = False,
) -> None:
    """Audit the transcripts of tool-using LLM agents.

    Reads agent logs (OpenAI, Anthropic and Responses API logs, gateway recordings, Claude
    Code and Codex sessions, tau-bench, SWE-agent, multi-agent chats, gpt-oss harmony text),
    replays every assistant turn and reports fabricated observations, tool calls nobody
    executed, approved arguments that changed before execution, and loops. Deterministic: no
    model, no network.
    """
    from auditor import info, run

    try:
        if version:
            print(VERSION)
            return
        if explain is not None:
            info.explain(explain, sys.stdout)
            return
        if list_rules:
            info.rules(sys.stdout, as_json=output_format in (OutputFormat.json, OutputFormat.jsonl))
            return
        if list_formats:
            info.formats(sys.stdout)
            return
        if not paths:
            _fail("no paths given: try `audit logs.jsonl`, `audit logs/` or `audit -` for stdin")
        invocation = run.Invocation(
            paths=tuple(paths),
            output_format=output_format.value,
            output=output,
            input_format=input_format,
            select=tuple(select or ()),
            ignore=tuple(ignore or ()),
            fail_on=fail_on.value if fail_on is not None else None,
            exit_zero=exit_zero,
            progress=not no_progress,
            quiet=quiet,
            config_file=config_file,
            baseline_file=baseline_file,
            write_baseline=write_baseline,
            statistics=statistics,
            jobs=_jobs(jobs),
        )
        status = run.main(invocation)
    except typer.Exit:
        raise
    except AuditorError as exc:
        _fail(str(exc))
    except KeyboardInterrupt:
        _stderr("audit: interrupted")
        raise typer.Exit(130) from None
    except BrokenPipeError:
        run.silence_stdout()
        raise typer.Exit(1) from None
    except Exception as exc:
        if debug:
            raise
        _fail(f"internal error: {type(exc).__name__}: {exc} (run with --debug for a traceback)")
    raise typer.Exit(status)


def _jobs(value: str) -> int:
    """`--jobs`: a number of processes, or `auto` for one per core."""
    if value.strip().lower() == "auto":
        return os.cpu_count() or 1
    try:
        jobs = int(value)
    except ValueError:
        jobs = 0
    if jobs < 1:
        raise AuditorError(f"invalid --jobs `{value}`: use a number >= 1 or `auto`")
    return jobs


def _stderr(line: str) -> None:
    from auditor.reporters._escape import safe

    print(safe(line), file=sys.stderr)


def _fail(message: str) -> NoReturn:
    _stderr(f"audit: error: {message}")
    raise typer.Exit(2)


def main() -> None:
    """Console-script entry point."""
    app(prog_name="audit")
