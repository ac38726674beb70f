"""The command line's options, each declared once as a type, and the command class that turns a
usage error into one `audit: error: …` line."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

# typer 0.28 vendors Click; the pin in pyproject.toml keeps this private path stable.
from typer._click.exceptions import ClickException
from typer.core import TyperCommand

from auditor.cli.values import Color, Engine, FailOn, format_error, parse_jobs, parse_outputs
from auditor.findings import DEFAULT_FAIL_ON
from auditor.reporters import help_text

__all__ = ["Color", "Engine", "FailOn", "parse_jobs", "parse_outputs"]


_FAIL_ON_LEVELS = (
    ", ".join(
        f"{level} (the default)" if level == DEFAULT_FAIL_ON else level
        for level in list(FailOn)[:-1]
    )
    + f" or {list(FailOn)[-1]}"
)


class Command(TyperCommand):
    """The command, with usage errors as one `audit: error: …` line (exit 2) instead of
    typer's boxed panel, which wraps badly in a narrow CI log."""

    help_hint = "audit -h"

    def main(self, *args: Any, **kwargs: Any) -> Any:
        kwargs["standalone_mode"] = False
        try:
            status = super().main(*args, **kwargs)
        except ClickException as exc:
            message = exc.format_message().rstrip(".")
            print(f"audit: error: {message} ({self.help_hint} for help)", file=sys.stderr)
            sys.exit(exc.exit_code)
        except typer.Abort:
            sys.exit(130)
        sys.exit(status or 0)


PANEL_RULES = "Rule selection"
PANEL_FILES = "File selection"
PANEL_OUTPUT = "Output"
PANEL_CI = "Configuration and baselines"
PANEL_INFO = "Information"
PANEL_MISC = "Miscellaneous"
FLAG = ""
"""The metavar of an option that takes no value: no `<bool>` in the help."""


# Each option once, as a type: the command's signature (cli/audit.py) stays one line per option.
Paths = Annotated[
    list[str] | None,
    typer.Argument(
        metavar="PATHS...",
        help="Log files or directories (searched for *.jsonl, *.ndjson, *.json, *.traj, "
        "*.txt, also .gz, and Inspect *.eval); - reads standard input.",
        show_default=False,
    ),
]
SelectOption = Annotated[
    list[str] | None,
    typer.Option(
        "--select",
        metavar="CODES",
        help="Only these rules: codes, prefixes (EX, CF00) or names, comma-separated. "
        "Replaces the configuration's select and ignore. Default: ALL.",
        rich_help_panel=PANEL_RULES,
    ),
]
ExtendSelectOption = Annotated[
    list[str] | None,
    typer.Option(
        "--extend-select",
        metavar="CODES",
        help="Also these rules, on top of the configuration's selection.",
        rich_help_panel=PANEL_RULES,
    ),
]
IgnoreOption = Annotated[
    list[str] | None,
    typer.Option(
        "--ignore",
        metavar="CODES",
        help="Skip these rules, besides the configuration's ignore. IN001 always runs.",
        rich_help_panel=PANEL_RULES,
    ),
]
ExtendIgnoreOption = Annotated[
    list[str] | None,
    typer.Option(
        "--extend-ignore",
        metavar="CODES",
        help="The same as --ignore (as in ruff).",
        rich_help_panel=PANEL_RULES,
    ),
]
FailOnOption = Annotated[
    FailOn | None,
    typer.Option(
        "--fail-on",
        metavar="LEVEL",
        help=f"Lowest severity that makes the exit status 1: {_FAIL_ON_LEVELS}.",
        rich_help_panel=PANEL_RULES,
        show_default=False,
    ),
]
ExitZeroOption = Annotated[
    bool,
    typer.Option(
        "--exit-zero",
        metavar=FLAG,
        help="Exit 0 even when there are findings (2 still means an error).",
        rich_help_panel=PANEL_RULES,
    ),
]
ExcludeOption = Annotated[
    list[str] | None,
    typer.Option(
        "--exclude",
        metavar="GLOB",
        help="Leave out paths matching GLOB (relative to the working directory), besides "
        "the configuration's exclude.",
        rich_help_panel=PANEL_FILES,
    ),
]
NoGitignoreOption = Annotated[
    bool,
    typer.Option(
        "--no-respect-gitignore",
        metavar=FLAG,
        help="Also read what .gitignore files list (directories are walked respecting them).",
        rich_help_panel=PANEL_FILES,
    ),
]
FollowLinksOption = Annotated[
    bool,
    typer.Option(
        "--follow-links",
        metavar=FLAG,
        help="Follow symbolic links whose target lies outside the directory named, and HTTP "
        "redirects to another URL (never links into /proc, /sys or /dev).",
        rich_help_panel=PANEL_FILES,
    ),
]
ForceExcludeOption = Annotated[
    bool,
    typer.Option(
        "--force-exclude",
        metavar=FLAG,
        help="Take files named on the command line as a directory walk takes them: only "
        "those a walk would audit (by type and content, outside hidden, ignored and excluded "
        "directories) are read, the rest skipped. The pre-commit hook passes it.",
        rich_help_panel=PANEL_FILES,
    ),
]
InputFormatOption = Annotated[
    str,
    typer.Option(
        "--input-format",
        metavar="NAME",
        help="Read every record as this log format instead of detecting each record's "
        "own; `audit --formats` lists them.",
        rich_help_panel=PANEL_FILES,
        show_default=False,
    ),
]
ToolsOption = Annotated[
    str | None,
    typer.Option(
        "--tools",
        metavar="FILE",
        help="Tool declarations for logs that declare none: an OpenAI or Anthropic `tools` "
        "array, or an MCP tools/list result (JSON-RPC response, bare result, or a JSON Lines "
        "recording holding one). A log's own declarations win. Without it, the tools of a log "
        "are inferred from the calls in its file, enough for FB003 but not EX005/EX007.",
        rich_help_panel=PANEL_FILES,
        show_default=False,
    ),
]
AllowEmptyOption = Annotated[
    bool,
    typer.Option(
        "--allow-empty",
        metavar=FLAG,
        help="Exit 0 when no conversation was read (by default that is an error, exit 2).",
        rich_help_panel=PANEL_FILES,
    ),
]


def _formats(values: list[str] | None) -> list[str] | None:
    """`-f`'s values checked as Click checks choices: a known FORMAT, with `:FILE` or not."""
    for value in values or ():
        error = format_error(value)
        if error is not None:
            raise typer.BadParameter(error)
    return values


FormatOption = Annotated[
    list[str] | None,
    typer.Option(
        "--format",
        "-f",
        metavar="FORMAT[:FILE]",
        help=f"{help_text()}. Default: table on a terminal, concise otherwise. "
        "FORMAT:FILE writes that format to FILE; repeat for several outputs of one run "
        "(-f github -f sarif:audit.sarif -f html:report.html).",
        callback=_formats,
        rich_help_panel=PANEL_OUTPUT,
        show_default=False,
    ),
]
OutputOption = Annotated[
    str | None,
    typer.Option(
        "--output",
        "-o",
        metavar="FILE",
        help="Write the report (of the one -f without a FILE) to FILE instead of stdout.",
        rich_help_panel=PANEL_OUTPUT,
    ),
]
ShowEvidenceOption = Annotated[
    bool,
    typer.Option(
        "--show-evidence",
        metavar=FLAG,
        help="Show each finding's excerpt of the log in the table.",
        rich_help_panel=PANEL_OUTPUT,
    ),
]
VerboseOption = Annotated[
    bool,
    typer.Option(
        "--verbose",
        "-v",
        metavar=FLAG,
        help="Whole messages and evidence in the table; each file's format and counts on stderr.",
        rich_help_panel=PANEL_OUTPUT,
    ),
]
QuietOption = Annotated[
    bool,
    typer.Option(
        "--quiet",
        "-q",
        metavar=FLAG,
        help="Print findings only: no summary, no progress.",
        rich_help_panel=PANEL_OUTPUT,
    ),
]
StatisticsOption = Annotated[
    bool,
    typer.Option(
        "--statistics",
        metavar=FLAG,
        help="Print how often each rule fired (also per 100 conversations) instead of "
        "the findings; as text, or with -f json / -f jsonl.",
        rich_help_panel=PANEL_OUTPUT,
    ),
]
ColorOption = Annotated[
    Color,
    typer.Option(
        "--color",
        metavar="WHEN",
        help="Colour: auto (on a terminal, unless NO_COLOR is set or FORCE_COLOR forces it), "
        "always or never.",
        rich_help_panel=PANEL_OUTPUT,
        show_default=False,
    ),
]
NoProgressOption = Annotated[
    bool,
    typer.Option(
        "--no-progress",
        metavar=FLAG,
        help="No progress bar on stderr (it only shows on a terminal).",
        rich_help_panel=PANEL_OUTPUT,
    ),
]
ConfigOption = Annotated[
    str | None,
    typer.Option(
        "--config",
        metavar="FILE",
        help="Read settings from FILE (a pyproject.toml, or a TOML file with the keys of "
        "\\[tool.auditor] at its top) instead of the nearest pyproject.toml.",
        rich_help_panel=PANEL_CI,
    ),
]
IsolatedOption = Annotated[
    bool,
    typer.Option(
        "--isolated",
        metavar=FLAG,
        help="Read no configuration file: the defaults and the command line only (for logs "
        "from an untrusted checkout, whose own .auditor.toml or pyproject.toml would decide "
        "the run).",
        rich_help_panel=PANEL_CI,
    ),
]
BaselineOption = Annotated[
    str | None,
    typer.Option(
        "--baseline",
        metavar="FILE",
        help="Leave out the findings recorded in FILE: only new findings are shown and "
        "count for the exit status.",
        rich_help_panel=PANEL_CI,
    ),
]
WriteBaselineOption = Annotated[
    str | None,
    typer.Option(
        "--write-baseline",
        metavar="FILE",
        help="Record every finding of this run in FILE, to pass to --baseline later; "
        "prints one line, no report unless -f or -o asks for one; exits 0 unless something "
        "could not be audited.",
        rich_help_panel=PANEL_CI,
    ),
]
ShowFilesOption = Annotated[
    bool,
    typer.Option(
        "--show-files",
        metavar=FLAG,
        help="List the files a run would read, with the log format of each, and exit.",
        rich_help_panel=PANEL_INFO,
    ),
]
ShowReadingOption = Annotated[
    bool,
    typer.Option(
        "--show-reading",
        metavar=FLAG,
        help="Show how each file is read: its readers, each conversation's messages, calls and "
        "results, and its first messages as the auditor holds them; and exit.",
        rich_help_panel=PANEL_INFO,
    ),
]
ShowSettingsOption = Annotated[
    bool,
    typer.Option(
        "--show-settings",
        metavar=FLAG,
        help="Print the resolved settings, and where each came from, and exit.",
        rich_help_panel=PANEL_INFO,
    ),
]
RulesOption = Annotated[
    bool,
    typer.Option(
        "--rules",
        metavar=FLAG,
        help="List the rules the selection enables (all by default; -f json for JSON) and exit.",
        rich_help_panel=PANEL_INFO,
    ),
]
FormatsOption = Annotated[
    bool,
    typer.Option(
        "--formats",
        metavar=FLAG,
        help="List the log formats --input-format accepts and exit.",
        rich_help_panel=PANEL_INFO,
    ),
]
ExplainOption = Annotated[
    str | None,
    typer.Option(
        "--explain",
        metavar="CODE",
        help="Explain a rule (code or name) and exit.",
        rich_help_panel=PANEL_INFO,
    ),
]
VersionOption = Annotated[
    bool,
    typer.Option(
        "--version",
        metavar=FLAG,
        help="Print the version and exit.",
        rich_help_panel=PANEL_INFO,
    ),
]
JobsOption = Annotated[
    str,
    typer.Option(
        "--jobs",
        "-j",
        metavar="N",
        help="Audit in N processes. The default, `auto`, is one per core, as many as the "
        "input keeps busy (none for a small one: it is audited in this process). Large JSON "
        "Lines files are split; the report is the same as with -j 1.",
        rich_help_panel=PANEL_MISC,
        show_default=False,
    ),
]
EngineOption = Annotated[
    Engine,
    typer.Option(
        "--engine",
        metavar="NAME",
        help="local (this machine's processes, see --jobs) or dask: files and byte ranges "
        "audited by a Dask cluster, --scheduler's or one of -j N local workers; PATHS may then "
        "be URLs (s3://bucket/logs/**/*.jsonl). Needs pip install 'auditor\\[dask]'.",
        rich_help_panel=PANEL_MISC,
        show_default=False,
    ),
]
SchedulerOption = Annotated[
    str | None,
    typer.Option(
        "--scheduler",
        metavar="ADDRESS",
        help="The Dask scheduler of --engine dask (tcp://host:8786).",
        rich_help_panel=PANEL_MISC,
        show_default=False,
    ),
]
DebugOption = Annotated[
    bool, typer.Option("--debug", help="Show a traceback on internal errors.", hidden=True)
]


def _help(context: typer.Context, value: bool) -> None:
    if value:
        print(context.get_help())
        raise typer.Exit(0)


HelpOption = Annotated[
    bool,
    typer.Option(
        "--help",
        "-h",
        metavar=FLAG,
        help="Show this message and exit.",
        rich_help_panel=PANEL_INFO,
        is_eager=True,
        expose_value=False,
        callback=_help,
    ),
]
