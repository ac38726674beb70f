"""Every option of `audit` and `audit compare`, each declared once, and what a run's values mean.

An `Opt` says everything about one option: its flags, its `dest` (the parameter of the typer
command and, for most, the field of the run's `Invocation` it fills), its kind, its default,
metavar, help and panel. Both readers of a command line are made from this table: the typer
commands (`cli/options.py` writes their signatures from it) and the reader of a plain run
(`cli/fast.py`, which iterates it without importing typer). Each hands `invocation()` the
values it read, keyed by the `Opt` itself, and `invocation()` makes the typed `Invocation`.

`tests/cli/test_table.py` holds each flag to one string of the command line's modules, here
(`--version`'s is `auditor.VERSION_FLAG`, which `__main__` answers before importing this).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from auditor import VERSION_FLAG
from auditor.cli.values import (
    Color,
    Engine,
    FailOn,
    Kind,
    Opt,
    format_error,
    parse_jobs,
    parse_outputs,
    scheduler,
)
from auditor.findings import DEFAULT_FAIL_ON
from auditor.reporters import help_text

if TYPE_CHECKING:
    from auditor.commands.run import Invocation


PANEL_RULES = "Rule selection"
PANEL_FILES = "File selection"
PANEL_OUTPUT = "Output"
PANEL_CI = "Configuration and baselines"
PANEL_INFO = "Information"
PANEL_MISC = "Miscellaneous"


PATHS = Opt(
    (),
    "paths",
    Kind.ARGUMENTS,
    metavar="PATHS...",
    help="Log files or directories (searched for *.jsonl, *.ndjson, *.json, *.traj, *.txt, also "
    ".gz, and Inspect *.eval); - reads standard input.",
)
SELECT = Opt(
    ("--select",),
    "select",
    Kind.MANY,
    panel=PANEL_RULES,
    metavar="CODES",
    help="Only these rules: codes, prefixes (EX, CF00) or names, comma-separated. Replaces the "
    "configuration's select and ignore. Default: ALL.",
)
EXTEND_SELECT = Opt(
    ("--extend-select",),
    "extend_select",
    Kind.MANY,
    panel=PANEL_RULES,
    metavar="CODES",
    help="Also these rules, on top of the configuration's selection.",
)
IGNORE = Opt(
    ("--ignore",),
    "ignore",
    Kind.MANY,
    panel=PANEL_RULES,
    metavar="CODES",
    help="Skip these rules, besides the configuration's ignore. IN001 always runs.",
)
EXTEND_IGNORE = Opt(
    ("--extend-ignore",),
    "extend_ignore",
    Kind.MANY,
    panel=PANEL_RULES,
    metavar="CODES",
    help="The same as --ignore (as in ruff).",
)
_LEVELS = [f"{level} (the default)" if level == DEFAULT_FAIL_ON else level for level in FailOn]
FAIL_ON = Opt(
    ("--fail-on",),
    "fail_on",
    Kind.CHOICE,
    panel=PANEL_RULES,
    metavar="LEVEL",
    choices=FailOn,
    help=f"Lowest severity that makes the exit status 1: {', '.join(_LEVELS[:-1])} or "
    f"{_LEVELS[-1]}.",
)
EXIT_ZERO = Opt(
    ("--exit-zero",),
    "exit_zero",
    Kind.FLAG,
    panel=PANEL_RULES,
    help="Exit 0 even when there are findings (2 still means an error).",
)
EXCLUDE = Opt(
    ("--exclude",),
    "exclude",
    Kind.MANY,
    panel=PANEL_FILES,
    metavar="GLOB",
    help="Leave out paths matching GLOB (relative to the working directory), besides the "
    "configuration's exclude.",
)
NO_RESPECT_GITIGNORE = Opt(
    ("--no-respect-gitignore",),
    "no_respect_gitignore",
    Kind.FLAG,
    panel=PANEL_FILES,
    field=False,
    help="Also read what .gitignore files list (directories are walked respecting them).",
)
FOLLOW_LINKS = Opt(
    ("--follow-links",),
    "follow_links",
    Kind.FLAG,
    panel=PANEL_FILES,
    help="Follow symbolic links whose target lies outside the directory named, and HTTP redirects "
    "to another URL (never links into /proc, /sys or /dev).",
)
FORCE_EXCLUDE = Opt(
    ("--force-exclude",),
    "force_exclude",
    Kind.FLAG,
    panel=PANEL_FILES,
    help="Take files named on the command line as a directory walk takes them: only those a walk "
    "would audit (by type and content, outside hidden, ignored and excluded directories) are "
    "read, the rest skipped. The pre-commit hook passes it.",
)
INPUT_FORMAT = Opt(
    ("--input-format",),
    "input_format",
    Kind.VALUE,
    panel=PANEL_FILES,
    metavar="NAME",
    default="auto",
    help="Read every record as this log format instead of detecting each record's own; "
    "`audit --formats` lists them.",
)
TOOLS = Opt(
    ("--tools",),
    "tools",
    Kind.VALUE,
    panel=PANEL_FILES,
    metavar="FILE",
    help="Tool declarations for logs that declare none: an OpenAI or Anthropic `tools` array, or "
    "an MCP tools/list result (JSON-RPC response, bare result, or a JSON Lines recording "
    "holding one). A log's own declarations win. Without it, the tools of a log are inferred "
    "from the calls in its file, enough for FB003 but not EX005/EX007.",
)
ALLOW_EMPTY = Opt(
    ("--allow-empty",),
    "allow_empty",
    Kind.FLAG,
    panel=PANEL_FILES,
    help="Exit 0 when no conversation was read (by default that is an error, exit 2).",
)
FORMAT = Opt(
    ("--format", "-f"),
    "formats",
    Kind.MANY,
    panel=PANEL_OUTPUT,
    metavar="FORMAT[:FILE]",
    check=format_error,
    field=False,
    help=f"{help_text()}. Default: table on a terminal, concise otherwise. FORMAT:FILE writes that "
    "format to FILE; repeat for several outputs of one run (-f github -f sarif:audit.sarif "
    "-f html:report.html).",
)
OUTPUT = Opt(
    ("--output", "-o"),
    "output",
    Kind.VALUE,
    panel=PANEL_OUTPUT,
    metavar="FILE",
    field=False,
    help="Write the report (of the one -f without a FILE) to FILE instead of stdout.",
)
SHOW_EVIDENCE = Opt(
    ("--show-evidence",),
    "show_evidence",
    Kind.FLAG,
    panel=PANEL_OUTPUT,
    field=False,
    help="Show each finding's excerpt of the log in the table.",
)
VERBOSE = Opt(
    ("--verbose", "-v"),
    "verbose",
    Kind.FLAG,
    panel=PANEL_OUTPUT,
    help="Whole messages and evidence in the table; each file's format and counts on stderr.",
)
QUIET = Opt(
    ("--quiet", "-q"),
    "quiet",
    Kind.FLAG,
    panel=PANEL_OUTPUT,
    help="Print findings only: no summary, no progress.",
)
STATISTICS = Opt(
    ("--statistics",),
    "statistics",
    Kind.FLAG,
    panel=PANEL_OUTPUT,
    help="Print how often each rule fired (also per 100 conversations) instead of the findings; as "
    "text, or with -f json / -f jsonl.",
)
COLOR = Opt(
    ("--color",),
    "color",
    Kind.CHOICE,
    panel=PANEL_OUTPUT,
    metavar="WHEN",
    default=Color.auto.value,
    choices=Color,
    help="Colour: auto (on a terminal, unless NO_COLOR is set or FORCE_COLOR forces it), always "
    "or never.",
)
NO_PROGRESS = Opt(
    ("--no-progress",),
    "progress",
    Kind.FLAG,
    panel=PANEL_OUTPUT,
    default=True,
    help="No progress bar on stderr (it only shows on a terminal).",
)
CONFIG = Opt(
    ("--config",),
    "config_file",
    Kind.VALUE,
    panel=PANEL_CI,
    metavar="FILE",
    help="Read settings from FILE (a pyproject.toml, or a TOML file with the keys of "
    "\\[tool.auditor] at its top) instead of the nearest pyproject.toml.",
)
ISOLATED = Opt(
    ("--isolated",),
    "isolated",
    Kind.FLAG,
    panel=PANEL_CI,
    help="Read no configuration file: the defaults and the command line only (for logs from an "
    "untrusted checkout, whose own .auditor.toml or pyproject.toml would decide the run).",
)
BASELINE = Opt(
    ("--baseline",),
    "baseline_file",
    Kind.VALUE,
    panel=PANEL_CI,
    metavar="FILE",
    help="Leave out the findings recorded in FILE: only new findings are shown and count for the "
    "exit status.",
)
WRITE_BASELINE = Opt(
    ("--write-baseline",),
    "write_baseline",
    Kind.VALUE,
    panel=PANEL_CI,
    metavar="FILE",
    help="Record every finding of this run in FILE, to pass to --baseline later; prints one line, "
    "no report unless -f or -o asks for one; exits 0 unless something could not be audited.",
)
ADD_IGNORE = Opt(
    ("--add-ignore",),
    "add_ignore",
    Kind.VALUE,
    panel=PANEL_CI,
    run=False,
    metavar="FINGERPRINT",
    help="Add a suppress entry for the finding of this FINGERPRINT, with --reason, to the "
    "configuration (--config, the one found, else a new .auditor.toml here), and exit.",
)
REASON = Opt(
    ("--reason",),
    "reason",
    Kind.VALUE,
    panel=PANEL_CI,
    run=False,
    metavar="TEXT",
    help="Why the finding --add-ignore suppresses is acceptable (required with it).",
)
SHOW_FILES = Opt(
    ("--show-files",),
    "show_files",
    Kind.FLAG,
    panel=PANEL_INFO,
    run=False,
    help="List the files a run would read, with the log format of each, and exit.",
)
SHOW_READING = Opt(
    ("--show-reading",),
    "show_reading",
    Kind.FLAG,
    panel=PANEL_INFO,
    run=False,
    help="Show how each file is read: its readers, each conversation's messages, calls and "
    "results, and its first messages as the auditor holds them; and exit.",
)
SHOW_SETTINGS = Opt(
    ("--show-settings",),
    "show_settings",
    Kind.FLAG,
    panel=PANEL_INFO,
    run=False,
    help="Print the resolved settings, and where each came from, and exit.",
)
RULES = Opt(
    ("--rules",),
    "list_rules",
    Kind.FLAG,
    panel=PANEL_INFO,
    run=False,
    help="List the rules the selection enables (all by default; -f json for JSON) and exit.",
)
FORMATS = Opt(
    ("--formats",),
    "list_formats",
    Kind.FLAG,
    panel=PANEL_INFO,
    run=False,
    help="List the log formats --input-format accepts and exit.",
)
EXPLAIN = Opt(
    ("--explain",),
    "explain",
    Kind.VALUE,
    panel=PANEL_INFO,
    metavar="CODE",
    run=False,
    help="Explain a rule (code or name) and exit.",
)
VERSION = Opt(
    (VERSION_FLAG,),
    "version",
    Kind.FLAG,
    panel=PANEL_INFO,
    run=False,
    help="Print the version and exit.",
)
JOBS = Opt(
    ("--jobs", "-j"),
    "jobs",
    Kind.VALUE,
    panel=PANEL_MISC,
    metavar="N",
    default="auto",
    field=False,
    help="Audit in N processes. The default, `auto`, is one per core, as many as the input keeps "
    "busy (none for a small one: it is audited in this process). Large JSON Lines files are "
    "split; the report is the same as with -j 1.",
)
ENGINE = Opt(
    ("--engine",),
    "engine",
    Kind.CHOICE,
    panel=PANEL_MISC,
    metavar="NAME",
    default=Engine.local.value,
    choices=Engine,
    help="local (this machine's processes, see --jobs) or dask: files and byte ranges audited by a "
    "Dask cluster, --scheduler's or one of -j N local workers; PATHS may then be URLs "
    "(s3://bucket/logs/**/*.jsonl). Needs pip install 'auditor\\[dask]'.",
)
SCHEDULER = Opt(
    ("--scheduler",),
    "scheduler",
    Kind.VALUE,
    panel=PANEL_MISC,
    metavar="ADDRESS",
    field=False,
    help="The Dask scheduler of --engine dask (tcp://host:8786).",
)
HELP = Opt(
    ("--help", "-h"),
    "show_help",
    Kind.HELP,
    panel=PANEL_INFO,
    run=False,
    help="Show this message and exit.",
)
DEBUG = Opt(
    ("--debug",),
    "debug",
    Kind.FLAG,
    field=False,
    hidden=True,
    help="Show a traceback on internal errors.",
)

AUDIT = (
    PATHS,
    SELECT,
    EXTEND_SELECT,
    IGNORE,
    EXTEND_IGNORE,
    FAIL_ON,
    EXIT_ZERO,
    EXCLUDE,
    NO_RESPECT_GITIGNORE,
    FOLLOW_LINKS,
    FORCE_EXCLUDE,
    INPUT_FORMAT,
    TOOLS,
    ALLOW_EMPTY,
    FORMAT,
    OUTPUT,
    SHOW_EVIDENCE,
    VERBOSE,
    QUIET,
    STATISTICS,
    COLOR,
    NO_PROGRESS,
    CONFIG,
    ISOLATED,
    BASELINE,
    WRITE_BASELINE,
    ADD_IGNORE,
    REASON,
    SHOW_FILES,
    SHOW_READING,
    SHOW_SETTINGS,
    RULES,
    FORMATS,
    EXPLAIN,
    VERSION,
    JOBS,
    ENGINE,
    SCHEDULER,
    HELP,
    DEBUG,
)
"""The `audit` command's options, in the order of its signature (and of its help's panels)."""


def invocation(given: Mapping[Opt, Any]) -> Invocation:
    """The run's typed Invocation from the values given for the run's options (those not
    given take their default): each fills the field of its `dest`, but `-f` and `-o` make the
    outputs, `-v` implies `--show-evidence`, `-j` is a number of processes or `auto`,
    `--scheduler` goes with `--engine dask` only, and `--no-respect-gitignore` is False against
    None (the configuration decides)."""
    from auditor.commands.run import Invocation

    value = {opt: opt.value(given.get(opt, opt.absent)) for opt in AUDIT if opt.run}
    jobs = value[JOBS]
    return Invocation(
        **{opt.dest: value[opt] for opt in value if opt.field},
        outputs=parse_outputs(value[FORMAT], value[OUTPUT]),
        respect_gitignore=False if value[NO_RESPECT_GITIGNORE] else None,
        show_evidence=value[SHOW_EVIDENCE] or value[VERBOSE],
        jobs=parse_jobs(jobs),
        fitted_jobs=jobs.strip().lower() == "auto",
        scheduler=scheduler(value[ENGINE], value[SCHEDULER], jobs),
    )
