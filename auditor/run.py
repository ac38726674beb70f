"""One run of `audit`: the command line's options -> Settings -> a Report -> the output.

`cli.py` parses the arguments into an `Invocation` and maps what `main` returns (or raises)
to an exit status; everything between lives here, in three steps a reader can follow:
`settings()` (options and configuration file -> Settings), `audit()` (the engine, with
progress, and the baseline) and `write()` (the report in the chosen format).
"""

from __future__ import annotations

import functools
import os
import sys
import time
from dataclasses import dataclass
from typing import TextIO

from auditor.config import Settings
from auditor.errors import AuditorError, ConfigError
from auditor.report import Context, Report


@dataclass(frozen=True)
class Invocation:
    """The command line of one run, parsed and typed, before any file is read."""

    paths: tuple[str, ...]
    output_format: str = "table"
    output: str | None = None
    input_format: str = "auto"
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    fail_on: str | None = None
    exit_zero: bool = False
    progress: bool = True
    quiet: bool = False
    config_file: str | None = None
    baseline_file: str | None = None
    write_baseline: str | None = None
    statistics: bool = False
    jobs: int = 1


def settings(invocation: Invocation) -> Settings:
    """The configuration file (`--config`, else the nearest pyproject.toml) and the command line."""
    from auditor import config

    file = config.read(invocation.config_file) if invocation.config_file else config.discover()
    return config.build(
        select=list(invocation.select) or None,
        ignore=list(invocation.ignore) or None,
        fail_on=invocation.fail_on,
        input_format=invocation.input_format,
        file=file,
    )


@dataclass(frozen=True)
class Outcome:
    """What `audit()` hands to `write()`."""

    report: Report
    elapsed: float


def audit(invocation: Invocation, chosen: Settings) -> Outcome:
    """Run the engine over the paths, write the baseline if asked, then apply the one given."""
    from auditor import baseline, engine
    from auditor.progress import Progress

    accepted = baseline.load(invocation.baseline_file) if invocation.baseline_file else None
    started = time.perf_counter()
    planned = list(engine.plan(invocation.paths, chosen))
    refuse_to_overwrite(invocation, planned)
    with Progress(enabled=invocation.progress and not invocation.quiet) as on_file:
        report = engine.audit_plan(planned, chosen, progress=on_file, jobs=invocation.jobs)
    elapsed = time.perf_counter() - started
    for error in report.errors:
        stderr(f"audit: error: {error.message}")
    if invocation.write_baseline:
        written = baseline.write(invocation.write_baseline, report.findings)
        if not invocation.quiet:
            n, kinds = len(report.findings), len(written["findings"])
            stderr(
                f"audit: wrote {n} finding{'' if n == 1 else 's'} "
                f"({kinds} fingerprint{'' if kinds == 1 else 's'}) to {invocation.write_baseline}"
            )
    if accepted is not None:
        report = baseline.apply(report, accepted)
    return Outcome(report, elapsed)


def refuse_to_overwrite(invocation: Invocation, planned: list[object]) -> None:
    """`-o FILE` or `--write-baseline FILE` naming a log this run reads would destroy it (and
    `-o` naming the baseline, or both naming one file, would lose one of the two outputs):
    stop before anything is read or written."""
    from auditor import sources

    logs = {
        _identity(item.path): item.path
        for item in planned
        if isinstance(item, sources.Source) and item.path != "-"
    }
    report, baseline = invocation.output, invocation.write_baseline
    for option, path in (("-o", report), ("--write-baseline", baseline)):
        if path is not None and _identity(path) in logs:
            raise ConfigError(
                f"{option} {path} would overwrite {logs[_identity(path)]}, which this run "
                "reads: write it somewhere else"
            )
    accepted = invocation.baseline_file
    if report is not None and accepted is not None and _identity(report) == _identity(accepted):
        raise ConfigError(f"-o {report} would overwrite the baseline this run reads")
    if report is not None and baseline is not None and _identity(report) == _identity(baseline):
        raise ConfigError(f"-o and --write-baseline name the same file {report}")


def _identity(path: str) -> tuple[int, int] | str:
    """What makes two paths the same file: device and inode when it exists (links, `./a`
    and `a` alike), else the absolute path."""
    try:
        st = os.stat(path)
    except OSError:
        return os.path.abspath(path)
    return (st.st_dev, st.st_ino)


def write(invocation: Invocation, outcome: Outcome) -> None:
    """The report, in the chosen format, to stdout or `-o FILE`."""
    from auditor import statistics as stats
    from auditor.reporters import writer

    context = Context(elapsed=outcome.elapsed, quiet=invocation.quiet, notes=sys.stderr)
    write_to = (
        functools.partial(stats.write, output_format=invocation.output_format)
        if invocation.statistics
        else writer(invocation.output_format)
    )
    if invocation.output is None:
        out = _stdout()
        try:
            write_to(outcome.report, out, context)
            out.flush()
        except BrokenPipeError:  # `audit … | head`: the reader has what it wanted
            silence_stdout()
        return
    try:
        with open(invocation.output, "w", encoding="utf-8", newline="\n") as out:
            write_to(outcome.report, out, context)
    except OSError as exc:
        raise AuditorError(f"cannot write {invocation.output}: {exc.strerror or exc}") from exc


def main(invocation: Invocation) -> int:
    """Audit, write the report, and return the exit status (errors raise AuditorError)."""
    from auditor import statistics as stats

    chosen = settings(invocation)
    if invocation.statistics and invocation.output_format not in stats.FORMATS:
        raise ConfigError(
            f"--statistics prints as {', '.join(stats.FORMATS)}, not as {invocation.output_format}"
        )
    outcome = audit(invocation, chosen)
    write(invocation, outcome)
    return exit_status(
        outcome.report, chosen, invocation.exit_zero or bool(invocation.write_baseline)
    )


def exit_status(report: Report, chosen: Settings, exit_zero: bool) -> int:
    """2 when something could not be audited; else 1 when a finding reaches --fail-on."""
    if report.errors:
        return 2
    if exit_zero or chosen.fail_on is None:
        return 0
    threshold = chosen.fail_on.rank
    return 1 if any(f.severity.rank >= threshold for f in report.findings) else 0


def _stdout() -> TextIO:
    stream = sys.stdout
    if hasattr(stream, "reconfigure"):
        stream.reconfigure(encoding="utf-8", errors="replace")  # type: ignore[union-attr]
    return stream


def silence_stdout() -> None:
    """After a broken pipe, point stdout at /dev/null so the interpreter's final flush is quiet."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def stderr(line: str) -> None:
    """One line on stderr, with anything from a log made harmless."""
    from auditor.reporters._escape import safe

    print(safe(line), file=sys.stderr)
