"""The `audit` command: arguments in, exit status out, nothing else.

Exit status (SPEC §7): 0 when no finding reaches `--fail-on`, 1 when one does, 2 for a usage
error, an unreadable path or an internal error, each with one line on stderr and never a
traceback (unless `--debug`). A broken pipe (`audit … | head`) ends the run quietly.
"""

from __future__ import annotations

import functools
import os
import sys
import time
from enum import StrEnum
from typing import Annotated, NoReturn, TextIO

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
  audit runs.jsonl --tools tools.json     tools the logs do not declare (OpenAI, Anthropic
                                          tools array, or an MCP tools/list result)

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


@app.command(epilog=EXAMPLES, no_args_is_help=False)
def audit(
    paths: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="PATHS...",
            help="Log files or directories (searched for *.jsonl, *.ndjson, *.json, *.traj, "
            "*.txt, also .gz); - reads standard input.",
            show_default=False,
        ),
    ] = None,
    output_format: Annotated[
        OutputFormat,
        typer.Option("--format", "-f", help="How to print findings.", rich_help_panel=_OUTPUT),
    ] = OutputFormat.table,
    output: Annotated[
        str | None,
        typer.Option(
            "--output",
            "-o",
            metavar="FILE",
            help="Write the report to FILE instead of stdout.",
            rich_help_panel=_OUTPUT,
        ),
    ] = None,
    tools_file: Annotated[
        str | None,
        typer.Option(
            "--tools",
            metavar="FILE",
            help="Tool declarations for logs that declare none: an OpenAI or Anthropic `tools` "
            "array, or an MCP tools/list result (JSON-RPC response, bare result, or a JSON Lines "
            "recording holding one). A log's own declarations win. Without it, the tools of a "
            "log are inferred from the calls in its file, enough for FB003 but not EX005/EX007.",
        ),
    ] = None,
    input_format: Annotated[
        str,
        typer.Option(
            "--input-format",
            metavar="NAME",
            help="Read every record as this log format instead of detecting each record's "
            "own; `audit --formats` lists them.",
        ),
    ] = "auto",
    select: Annotated[
        list[str] | None,
        typer.Option(
            "--select",
            metavar="CODES",
            help="Only these rules: codes, prefixes (EX, CF00) or names, comma-separated. "
            "Replaces the configuration's select and ignore. Default: ALL.",
            rich_help_panel=_RULES,
        ),
    ] = None,
    ignore: Annotated[
        list[str] | None,
        typer.Option(
            "--ignore",
            metavar="CODES",
            help="Skip these rules (codes, prefixes or names), besides the configuration's ignore.",
            rich_help_panel=_RULES,
        ),
    ] = None,
    fail_on: Annotated[
        FailOn | None,
        typer.Option(
            "--fail-on",
            help="Lowest severity that makes the exit status 1. Default: warning.",
            rich_help_panel=_RULES,
            show_default=False,
        ),
    ] = None,
    exit_zero: Annotated[
        bool,
        typer.Option(
            "--exit-zero",
            help="Exit 0 even when there are findings (2 still means an error).",
            rich_help_panel=_RULES,
        ),
    ] = False,
    config_file: Annotated[
        str | None,
        typer.Option(
            "--config",
            metavar="FILE",
            help="Read settings from FILE (a pyproject.toml, or a TOML file with the keys of "
            "\\[tool.auditor] at its top) instead of the nearest pyproject.toml.",
            rich_help_panel=_CI,
        ),
    ] = None,
    baseline_file: Annotated[
        str | None,
        typer.Option(
            "--baseline",
            metavar="FILE",
            help="Leave out the findings recorded in FILE: only new findings are shown and "
            "count for the exit status.",
            rich_help_panel=_CI,
        ),
    ] = None,
    write_baseline: Annotated[
        str | None,
        typer.Option(
            "--write-baseline",
            metavar="FILE",
            help="Record every finding of this run in FILE, to pass to --baseline later; "
            "exits 0 unless something could not be audited.",
            rich_help_panel=_CI,
        ),
    ] = None,
    statistics: Annotated[
        bool,
        typer.Option(
            "--statistics",
            help="Print how often each rule fired (also per 100 conversations) instead of "
            "the findings; as text, or with -f json / -f jsonl.",
            rich_help_panel=_OUTPUT,
        ),
    ] = False,
    jobs: Annotated[
        str,
        typer.Option(
            "--jobs",
            "-j",
            metavar="N",
            help="Audit in N processes (`auto`: one per core). Large JSON Lines files are "
            "split; the report is the same as with one.",
        ),
    ] = "1",
    no_progress: Annotated[
        bool,
        typer.Option("--no-progress", help="No progress bar on stderr.", rich_help_panel=_OUTPUT),
    ] = False,
    quiet: Annotated[
        bool,
        typer.Option(
            "--quiet",
            "-q",
            help="Print findings only: no summary, no progress.",
            rich_help_panel=_OUTPUT,
        ),
    ] = False,
    list_rules: Annotated[
        bool,
        typer.Option(
            "--rules",
            help="List the rules (as a table, or JSON with -f json) and exit.",
            rich_help_panel=_INFO,
        ),
    ] = False,
    list_formats: Annotated[
        bool,
        typer.Option(
            "--formats",
            help="List the log formats --input-format accepts and exit.",
            rich_help_panel=_INFO,
        ),
    ] = False,
    explain: Annotated[
        str | None,
        typer.Option(
            "--explain",
            metavar="CODE",
            help="Explain a rule (code or name) and exit.",
            rich_help_panel=_INFO,
        ),
    ] = None,
    version: Annotated[
        bool, typer.Option("--version", help="Print the version and exit.", rich_help_panel=_INFO)
    ] = False,
    debug: Annotated[
        bool, typer.Option("--debug", help="Show a traceback on internal errors.", hidden=True)
    ] = False,
) -> None:
    """Audit the transcripts of tool-using LLM agents.

    Reads agent logs (OpenAI, Anthropic and Responses API logs, gateway recordings, Claude
    Code and Codex sessions, tau-bench, SWE-agent, multi-agent chats, gpt-oss harmony text),
    replays every assistant turn and reports fabricated observations, tool calls nobody
    executed, approved arguments that changed before execution, and loops. Deterministic: no
    model, no network.
    """
    try:
        if version:
            print(VERSION)
            return
        if explain is not None:
            _explain(explain)
            return
        if list_rules:
            _list_rules(output_format)
            return
        if list_formats:
            _list_formats()
            return
        if not paths:
            _usage("no paths given: try `audit logs.jsonl`, `audit logs/` or `audit -` for stdin")
        status = _run(
            paths,
            output_format=output_format.value,
            output=output,
            input_format=input_format,
            tools_file=tools_file,
            select=select,
            ignore=ignore,
            fail_on=fail_on.value if fail_on is not None else None,
            exit_zero=exit_zero,
            progress=not (no_progress or quiet),
            quiet=quiet,
            config_file=config_file,
            baseline_file=baseline_file,
            write_baseline=write_baseline,
            statistics=statistics,
            jobs=_jobs(jobs),
        )
    except typer.Exit:
        raise
    except AuditorError as exc:
        _fail(str(exc))
    except KeyboardInterrupt:
        _stderr("audit: interrupted")
        raise typer.Exit(130) from None
    except BrokenPipeError:
        _silence_stdout()
        raise typer.Exit(1) from None
    except Exception as exc:
        if debug:
            raise
        _fail(f"internal error: {type(exc).__name__}: {exc} (run with --debug for a traceback)")
    raise typer.Exit(status)


def _run(
    paths: list[str],
    *,
    output_format: str,
    output: str | None,
    input_format: str,
    select: list[str] | None,
    ignore: list[str] | None,
    fail_on: str | None,
    exit_zero: bool,
    progress: bool,
    quiet: bool,
    tools_file: str | None = None,
    config_file: str | None = None,
    baseline_file: str | None = None,
    write_baseline: str | None = None,
    statistics: bool = False,
    jobs: int = 1,
) -> int:
    from auditor import baseline, config, engine
    from auditor import statistics as stats
    from auditor.reporters import Context, writer

    file = config.read(config_file) if config_file else config.discover()
    settings = config.build(
        select=select,
        ignore=ignore,
        fail_on=fail_on,
        input_format=input_format,
        file=file,
        tools=tools_file,
    )
    if statistics and output_format not in stats.FORMATS:
        _usage(f"--statistics prints as {', '.join(stats.FORMATS)}, not as {output_format}")
    accepted = baseline.load(baseline_file) if baseline_file else None
    started = time.perf_counter()
    with _Progress(enabled=progress) as on_file:
        report = engine.audit(paths, settings, progress=on_file, jobs=jobs)
    elapsed = time.perf_counter() - started
    for error in report.errors:
        _stderr(f"audit: error: {error.message}")
    if write_baseline:
        written = baseline.write(write_baseline, report.findings)
        if not quiet:
            n, kinds = len(report.findings), len(written["findings"])
            _stderr(
                f"audit: wrote {n} finding{'' if n == 1 else 's'} "
                f"({kinds} fingerprint{'' if kinds == 1 else 's'}) to {write_baseline}"
            )
    if accepted is not None:
        report = baseline.apply(report, accepted)
    context = Context(elapsed=elapsed, quiet=quiet, notes=sys.stderr)
    write = (
        functools.partial(stats.write, output_format=output_format)
        if statistics
        else writer(output_format)
    )
    if output is None:
        out = _stdout()
        try:
            write(report, out, context)
            out.flush()
        except BrokenPipeError:
            _silence_stdout()
    else:
        try:
            with open(output, "w", encoding="utf-8", newline="\n") as out:
                write(report, out, context)
        except OSError as exc:
            raise AuditorError(f"cannot write {output}: {exc.strerror or exc}") from exc
    return exit_status(report, settings, exit_zero or bool(write_baseline))


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


def exit_status(report, settings, exit_zero: bool) -> int:  # type: ignore[no-untyped-def]
    """2 when something could not be audited; else 1 when a finding reaches --fail-on."""
    if report.errors:
        return 2
    if exit_zero or settings.fail_on is None:
        return 0
    threshold = settings.fail_on.rank
    return 1 if any(f.severity.rank >= threshold for f in report.findings) else 0


class _Progress:
    """A rich progress line on stderr, only on a terminal; stdout is never redirected (SPEC §9)."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled and sys.stderr.isatty()
        self._progress = None
        self._task = None

    def __enter__(self):  # type: ignore[no-untyped-def]
        if not self.enabled:
            return None
        from rich.console import Console
        from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

        self._progress = Progress(
            SpinnerColumn(),
            TextColumn("{task.description}", markup=False),
            TimeElapsedColumn(),
            console=Console(stderr=True, highlight=False, markup=False),
            transient=True,
            redirect_stdout=False,
            redirect_stderr=False,
        )
        self._progress.start()
        self._task = self._progress.add_task("auditing", total=None)

        def on_file(path: str) -> None:
            from auditor.reporters._escape import safe

            self._progress.update(self._task, description=f"auditing {safe(path)}")  # type: ignore[union-attr]

        return on_file

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.stop()


def _stdout() -> TextIO:
    stream = sys.stdout
    if hasattr(stream, "reconfigure"):
        stream.reconfigure(encoding="utf-8", errors="replace")  # type: ignore[union-attr]
    return stream


def _silence_stdout() -> None:
    """After a broken pipe, point stdout at /dev/null so the interpreter's final flush is quiet."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _stderr(line: str) -> None:
    from auditor.reporters._escape import safe

    print(safe(line), file=sys.stderr)


def _usage(message: str) -> NoReturn:
    _stderr(f"audit: error: {message}")
    raise typer.Exit(2)


def _fail(message: str) -> NoReturn:
    _stderr(f"audit: error: {message}")
    raise typer.Exit(2)


def _explain(selector: str) -> None:
    from auditor.rules import lookup

    rule = lookup(selector)
    if rule is None:
        _usage(f"unknown rule `{selector}`: `audit --rules` lists them")
    print(f"# {rule.code} {rule.name} ({rule.severity.value})\n")
    print(rule.summary + "\n")
    print(rule.doc)


def _list_rules(output_format: OutputFormat) -> None:
    from auditor.rules import RULES

    if output_format in (OutputFormat.json, OutputFormat.jsonl):
        import orjson

        rows = [
            {
                "code": r.code,
                "name": r.name,
                "severity": r.severity.value,
                "family": r.family,
                "summary": r.summary,
                "requires": list(r.requires),
            }
            for r in RULES
        ]
        print(orjson.dumps(rows, option=orjson.OPT_INDENT_2).decode())
        return
    width = max(len(r.name) for r in RULES)
    for r in RULES:
        print(f"{r.code}  {r.name:<{width}}  {r.severity.value:<7}  {r.summary}")


def _list_formats() -> None:
    from auditor.formats import FORMATS

    for name, module in FORMATS.items():
        summary = (module.__doc__ or "").strip().splitlines()[0]
        print(f"{name:<12} {summary}")


def main() -> None:
    """Console-script entry point."""
    app(prog_name="audit")
