"""The `audit` command: arguments in, exit status out, nothing else.

Exit status (SPEC §7): 0 when no finding reaches `--fail-on`, 1 when one does, 2 for a usage
error, an unreadable path or an internal error, each with one line on stderr and never a
traceback (unless `--debug`). A broken pipe (`audit … | head`) ends the run quietly.

`audit compare BASE NEW` is a command of its own (`compare_app`), with the same exit statuses
and error handling; `main` sends the command line to it when its first word is `compare`.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Callable
from enum import StrEnum
from typing import Annotated, Any, NoReturn

import typer

# typer 0.28 vendors Click; the pin in pyproject.toml keeps this private path stable.
from typer._click.exceptions import ClickException
from typer.core import TyperCommand

from auditor import VERSION
from auditor.errors import AuditorError, Terminated

EXAMPLES = """\
Examples:

  audit runs.jsonl                        a table on a terminal, one line a finding in a pipe
  audit logs/ -f json | jq '.summary'     every log below logs/, JSON for jq
  audit logs/ -f sarif -o audit.sarif     SARIF for GitHub code scanning (also: -f github,
                                          -f gitlab, -f junit)
  cat run.jsonl | audit -                 read standard input
  audit logs/ --select EX,FB --fail-on error
  audit logs/ --write-baseline .audit-baseline.json   accept today's findings
  audit logs/ --baseline .audit-baseline.json         then fail only on new ones
  audit logs/ --show-files                what would be read, and in which log format
  audit logs/ -f html -o report.html      one page to read, with each conversation's timeline
  audit compare old.json new.json         how two runs differ (`audit compare --help`)
  audit --explain EX003                   what a rule reports, and why
  audit 's3://bucket/logs/**/*.jsonl' --engine dask --scheduler tcp://host:8786
                                          on a Dask cluster (pip install 'auditor\\[dask]')
  audit runs.jsonl --tools tools.json     tools the logs do not declare (OpenAI, Anthropic
                                          tools array, or an MCP tools/list result)

Settings come from \\[tool.auditor] in the nearest pyproject.toml (or --config FILE); the
command line wins (audit --show-settings). Directories are walked respecting .gitignore.

Exit status: 0 no finding at or above --fail-on; 1 there are; 2 usage error, bad
configuration, unreadable path, no conversation read (see --allow-empty) or internal error.
"""


class OutputFormat(StrEnum):
    table = "table"
    concise = "concise"
    json = "json"
    jsonl = "jsonl"
    sarif = "sarif"
    github = "github"
    gitlab = "gitlab"
    junit = "junit"
    html = "html"


class FailOn(StrEnum):
    error = "error"
    warning = "warning"
    note = "note"
    never = "never"


class Engine(StrEnum):
    local = "local"
    dask = "dask"


class Color(StrEnum):
    auto = "auto"
    always = "always"
    never = "never"


class _Command(TyperCommand):
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


app = typer.Typer(
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
    context_settings={"max_content_width": 100},
)

_RULES = "Rule selection"
_FILES = "File selection"
_OUTPUT = "Output"
_CI = "Configuration and baselines"
_INFO = "Information"
_MISC = "Miscellaneous"
_FLAG = ""
"""The metavar of an option that takes no value: no `<bool>` in the help."""


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
ExtendSelectOption = Annotated[
    list[str] | None,
    typer.Option(
        "--extend-select",
        metavar="CODES",
        help="Also these rules, on top of the configuration's selection.",
        rich_help_panel=_RULES,
    ),
]
IgnoreOption = Annotated[
    list[str] | None,
    typer.Option(
        "--ignore",
        metavar="CODES",
        help="Skip these rules, besides the configuration's ignore. IN001 always runs.",
        rich_help_panel=_RULES,
    ),
]
ExtendIgnoreOption = Annotated[
    list[str] | None,
    typer.Option(
        "--extend-ignore",
        metavar="CODES",
        help="The same as --ignore (as in ruff).",
        rich_help_panel=_RULES,
    ),
]
FailOnOption = Annotated[
    FailOn | None,
    typer.Option(
        "--fail-on",
        metavar="LEVEL",
        help="Lowest severity that makes the exit status 1: error, warning (the default), "
        "note or never.",
        rich_help_panel=_RULES,
        show_default=False,
    ),
]
ExitZeroOption = Annotated[
    bool,
    typer.Option(
        "--exit-zero",
        metavar=_FLAG,
        help="Exit 0 even when there are findings (2 still means an error).",
        rich_help_panel=_RULES,
    ),
]
ExcludeOption = Annotated[
    list[str] | None,
    typer.Option(
        "--exclude",
        metavar="GLOB",
        help="Leave out paths matching GLOB (relative to the working directory), besides "
        "the configuration's exclude.",
        rich_help_panel=_FILES,
    ),
]
NoGitignoreOption = Annotated[
    bool,
    typer.Option(
        "--no-respect-gitignore",
        metavar=_FLAG,
        help="Also read what .gitignore files list (directories are walked respecting them).",
        rich_help_panel=_FILES,
    ),
]
FollowLinksOption = Annotated[
    bool,
    typer.Option(
        "--follow-links",
        metavar=_FLAG,
        help="Follow symbolic links whose target lies outside the directory named, and HTTP "
        "redirects to another URL (never links into /proc, /sys or /dev).",
        rich_help_panel=_FILES,
    ),
]
InputFormatOption = Annotated[
    str,
    typer.Option(
        "--input-format",
        metavar="NAME",
        help="Read every record as this log format instead of detecting each record's "
        "own; `audit --formats` lists them.",
        rich_help_panel=_FILES,
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
        rich_help_panel=_FILES,
        show_default=False,
    ),
]
AllowEmptyOption = Annotated[
    bool,
    typer.Option(
        "--allow-empty",
        metavar=_FLAG,
        help="Exit 0 when no conversation was read (by default that is an error, exit 2).",
        rich_help_panel=_FILES,
    ),
]
FormatOption = Annotated[
    OutputFormat | None,
    typer.Option(
        "--format",
        "-f",
        metavar="FORMAT",
        help="table, concise, json, jsonl, sarif, github, gitlab, junit or html (one "
        "self-contained page). Default: table on a terminal, concise otherwise.",
        rich_help_panel=_OUTPUT,
        show_default=False,
    ),
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
ShowEvidenceOption = Annotated[
    bool,
    typer.Option(
        "--show-evidence",
        metavar=_FLAG,
        help="Show each finding's excerpt of the log in the table.",
        rich_help_panel=_OUTPUT,
    ),
]
VerboseOption = Annotated[
    bool,
    typer.Option(
        "--verbose",
        "-v",
        metavar=_FLAG,
        help="Whole messages and evidence in the table; each file's format and counts on stderr.",
        rich_help_panel=_OUTPUT,
    ),
]
QuietOption = Annotated[
    bool,
    typer.Option(
        "--quiet",
        "-q",
        metavar=_FLAG,
        help="Print findings only: no summary, no progress.",
        rich_help_panel=_OUTPUT,
    ),
]
StatisticsOption = Annotated[
    bool,
    typer.Option(
        "--statistics",
        metavar=_FLAG,
        help="Print how often each rule fired (also per 100 conversations) instead of "
        "the findings; as text, or with -f json / -f jsonl.",
        rich_help_panel=_OUTPUT,
    ),
]
ColorOption = Annotated[
    Color,
    typer.Option(
        "--color",
        metavar="WHEN",
        help="Colour: auto (on a terminal, unless NO_COLOR is set or FORCE_COLOR forces it), "
        "always or never.",
        rich_help_panel=_OUTPUT,
        show_default=False,
    ),
]
NoProgressOption = Annotated[
    bool,
    typer.Option(
        "--no-progress",
        metavar=_FLAG,
        help="No progress bar on stderr (it only shows on a terminal).",
        rich_help_panel=_OUTPUT,
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
ShowFilesOption = Annotated[
    bool,
    typer.Option(
        "--show-files",
        metavar=_FLAG,
        help="List the files a run would read, with the log format of each, and exit.",
        rich_help_panel=_INFO,
    ),
]
ShowSettingsOption = Annotated[
    bool,
    typer.Option(
        "--show-settings",
        metavar=_FLAG,
        help="Print the resolved settings, and where each came from, and exit.",
        rich_help_panel=_INFO,
    ),
]
RulesOption = Annotated[
    bool,
    typer.Option(
        "--rules",
        metavar=_FLAG,
        help="List the rules the selection enables (all by default; -f json for JSON) and exit.",
        rich_help_panel=_INFO,
    ),
]
FormatsOption = Annotated[
    bool,
    typer.Option(
        "--formats",
        metavar=_FLAG,
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
    bool,
    typer.Option(
        "--version",
        metavar=_FLAG,
        help="Print the version and exit.",
        rich_help_panel=_INFO,
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
        rich_help_panel=_MISC,
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
        rich_help_panel=_MISC,
        show_default=False,
    ),
]
SchedulerOption = Annotated[
    str | None,
    typer.Option(
        "--scheduler",
        metavar="ADDRESS",
        help="The Dask scheduler of --engine dask (tcp://host:8786).",
        rich_help_panel=_MISC,
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
        metavar=_FLAG,
        help="Show this message and exit.",
        rich_help_panel=_INFO,
        is_eager=True,
        expose_value=False,
        callback=_help,
    ),
]


@app.command(epilog=EXAMPLES, no_args_is_help=False, cls=_Command, add_help_option=False)
def audit(
    paths: Paths = None,
    select: SelectOption = None,
    extend_select: ExtendSelectOption = None,
    ignore: IgnoreOption = None,
    extend_ignore: ExtendIgnoreOption = None,
    fail_on: FailOnOption = None,
    exit_zero: ExitZeroOption = False,
    exclude: ExcludeOption = None,
    no_respect_gitignore: NoGitignoreOption = False,
    follow_links: FollowLinksOption = False,
    input_format: InputFormatOption = "auto",
    tools_file: ToolsOption = None,
    allow_empty: AllowEmptyOption = False,
    output_format: FormatOption = None,
    output: OutputOption = None,
    show_evidence: ShowEvidenceOption = False,
    verbose: VerboseOption = False,
    quiet: QuietOption = False,
    statistics: StatisticsOption = False,
    color: ColorOption = Color.auto,
    no_progress: NoProgressOption = False,
    config_file: ConfigOption = None,
    baseline_file: BaselineOption = None,
    write_baseline: WriteBaselineOption = None,
    show_files: ShowFilesOption = False,
    show_settings: ShowSettingsOption = False,
    list_rules: RulesOption = False,
    list_formats: FormatsOption = False,
    explain: ExplainOption = None,
    version: VersionOption = False,
    jobs: JobsOption = "1",
    engine: EngineOption = Engine.local,
    scheduler: SchedulerOption = None,
    show_help: HelpOption = False,
    debug: DebugOption = False,
) -> None:
    """Audit the transcripts of tool-using LLM agents.

    Reads agent logs (OpenAI, Anthropic and Responses API logs, gateway recordings, Claude
    Code and Codex sessions, tau-bench, SWE-agent, multi-agent chats, gpt-oss harmony text),
    replays every assistant turn and reports fabricated observations, tool calls nobody
    executed, approved arguments that changed before execution, and loops. Deterministic: no
    model, no network.
    """
    options = dict(locals())

    def act() -> int:
        from auditor import info, run

        if version:
            print(VERSION)
            return 0
        if explain is not None:
            info.explain(explain, sys.stdout)
            return 0
        if list_formats:
            info.formats(sys.stdout)
            return 0
        invocation = _invocation(**options)
        if list_rules or show_settings or show_files:
            info.show(invocation, rules=list_rules, settings=show_settings, files=show_files)
            return 0
        if not paths:
            _fail("no paths given: try `audit logs.jsonl`, `audit logs/` or `audit -` for stdin")
        return run.main(invocation)

    _exit(act, debug)


def _exit(act: Callable[[], int], debug: bool) -> NoReturn:
    """Run a command and exit with its status; an error is one line on stderr (exit 2)."""
    from auditor import run

    signal.signal(signal.SIGTERM, _terminated)
    try:
        status = act()
    except typer.Exit:
        raise
    except AuditorError as exc:
        _fail(str(exc))
    except KeyboardInterrupt:
        _stderr("audit: interrupted")
        raise typer.Exit(130) from None
    except Terminated:
        _stderr("audit: terminated")
        raise typer.Exit(143) from None
    except BrokenPipeError:
        run.silence_stdout()
        raise typer.Exit(1) from None
    except Exception as exc:
        if debug:
            raise
        _fail(f"internal error: {type(exc).__name__}: {exc} (run with --debug for a traceback)")
    raise typer.Exit(status)


def _terminated(signum: int, frame: object) -> NoReturn:
    """SIGTERM: unwind as SIGINT does, so that worker processes are ended on the way out."""
    raise Terminated


def _invocation(**o: Any) -> Any:
    """The parsed command line as the run's typed Invocation."""
    from auditor.run import Invocation

    return Invocation(
        paths=tuple(o["paths"] or ()),
        output_format=o["output_format"].value if o["output_format"] else None,
        output=o["output"],
        input_format=o["input_format"],
        tools=o["tools_file"],
        select=tuple(o["select"] or ()),
        extend_select=tuple(o["extend_select"] or ()),
        ignore=tuple(o["ignore"] or ()),
        extend_ignore=tuple(o["extend_ignore"] or ()),
        exclude=tuple(o["exclude"] or ()),
        respect_gitignore=False if o["no_respect_gitignore"] else None,
        follow_links=o["follow_links"],
        fail_on=o["fail_on"].value if o["fail_on"] is not None else None,
        exit_zero=o["exit_zero"],
        allow_empty=o["allow_empty"],
        progress=not o["no_progress"],
        quiet=o["quiet"],
        verbose=o["verbose"],
        show_evidence=o["show_evidence"] or o["verbose"],
        color=o["color"].value,
        config_file=o["config_file"],
        baseline_file=o["baseline_file"],
        write_baseline=o["write_baseline"],
        statistics=o["statistics"],
        jobs=_jobs(o["jobs"]),
        engine=o["engine"].value,
        scheduler=_scheduler(o["engine"], o["scheduler"], o["jobs"]),
    )


def _jobs(value: str) -> int:
    """`--jobs`: a number of processes, or `auto` for one per core."""
    if value.strip().lower() == "auto":
        from auditor.engine.runners import cpus

        return cpus()
    try:
        jobs = int(value)
    except ValueError:
        jobs = 0
    if jobs < 1:
        raise AuditorError(f"invalid --jobs `{value}`: use a number >= 1 or `auto`")
    return jobs


def _scheduler(engine: Engine, scheduler: str | None, jobs: str) -> str | None:
    """`--scheduler` belongs to `--engine dask`, whose cluster then decides the parallelism."""
    if scheduler is None:
        return None
    if engine is not Engine.dask:
        raise AuditorError("--scheduler needs --engine dask")
    if jobs != "1":
        raise AuditorError("--jobs sizes a local run: with --scheduler, the cluster's workers do")
    return scheduler


def _stderr(line: str) -> None:
    from auditor.reporters._escape import safe

    print(safe(line), file=sys.stderr)


def _fail(message: str) -> NoReturn:
    _stderr(f"audit: error: {message}")
    raise typer.Exit(2)


# -- audit compare ------------------------------------------------------------------------------

COMPARE_EXAMPLES = """\
Examples:

  audit logs-v1/ -f json -o v1.json && audit logs-v2/ -f json -o v2.json
  audit compare v1.json v2.json                       per rule, per 100 conversations
  audit compare v1.json v2.json --fail-on-increase LP001=10 --fail-on-increase EX=25
  audit compare logs-v1/ logs-v2/ -f html -o compare.html

BASE and NEW are each the `-f json` report of a run, or a path to audit. Limits also come
from `fail-on-increase = { LP001 = 10 }` in \\[tool.auditor]; the command line replaces them.

Exit status: 0 no limit exceeded; 1 a rule's rate grew past its limit; 2 usage error, bad
configuration, unreadable path, no conversation read or internal error.
"""


class CompareFormat(StrEnum):
    table = "table"
    json = "json"
    html = "html"


class _CompareCommand(_Command):
    help_hint = "audit compare -h"


compare_app = typer.Typer(
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
    context_settings={"max_content_width": 100},
)


@compare_app.command(epilog=COMPARE_EXAMPLES, cls=_CompareCommand, add_help_option=False)
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
            rich_help_panel=_OUTPUT,
            show_default=False,
        ),
    ] = CompareFormat.table,
    output: OutputOption = None,
    quiet: Annotated[
        bool,
        typer.Option(
            "--quiet",
            "-q",
            metavar=_FLAG,
            help="The table and limits only, no header.",
            rich_help_panel=_OUTPUT,
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
            rich_help_panel=_CI,
        ),
    ] = None,
    config_file: ConfigOption = None,
    jobs: JobsOption = "1",
    show_help: HelpOption = False,
    debug: DebugOption = False,
) -> None:
    """Compare two runs: findings per 100 conversations for each rule, and the conversations
    (matched by id) that gained or lost findings."""

    def act() -> int:
        from auditor import run
        from auditor.run import Invocation

        invocation = Invocation(
            paths=(base, new),
            output_format=output_format.value,
            output=output,
            config_file=config_file,
            quiet=quiet,
            jobs=_jobs(jobs),
        )
        return run.compare(invocation, tuple(fail_on_increase or ()))

    _exit(act, debug)


def main() -> None:
    """Console-script entry point: `audit compare …` is a command of its own, the rest is
    `audit PATHS…` (a log file named `compare` is `./compare`)."""
    if sys.argv[1:2] == ["compare"]:
        compare_app(prog_name="audit compare", args=sys.argv[2:])
        return
    app(prog_name="audit")
