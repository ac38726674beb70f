"""One run of `audit`: the command line's options -> Settings -> a Report -> the output.

`cli` parses the arguments into an `Invocation` and maps what `main` returns (or raises)
to an exit status; everything between lives here, in three steps a reader can follow:
`settings()` (options and configuration file -> Settings), `audit()` (the engine, with
progress, and the baseline) and `write()` (the report in the chosen format). `compare()` runs
`audit compare` with the same steps: each side audited by `audit()` unless it is a report,
the comparison written as `write()` writes a report.
"""

from __future__ import annotations

import functools
import os
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, TextIO, cast

from auditor.commands import guards
from auditor.common.errors import AuditorError, ConfigError
from auditor.common.structs import dataclass
from auditor.common.text import plural
from auditor.config import Settings
from auditor.report import Context, Report

if TYPE_CHECKING:
    from auditor.config import FileConfig
    from auditor.engine import Planned
    from auditor.progress import Bar


@dataclass(frozen=True)
class Output:
    """One report a run writes (`-f FORMAT`, `-o FILE`, or `-f FORMAT:FILE`)."""

    format: str | None = None
    """None: `table` when it goes to a terminal, `concise` when it does not."""
    path: str | None = None
    """None: stdout."""


@dataclass(frozen=True)
class Invocation:
    """The command line of one run, parsed and typed, before any file is read: made by
    `cli.table.invocation`, whose table gives each option's default."""

    paths: tuple[str, ...]
    outputs: tuple[Output, ...]
    """Every report to write, each in its format to its file or stdout (at most one there)."""
    input_format: str
    tools: str | None
    """`--tools FILE`: declarations for logs that declare none."""
    select: tuple[str, ...]
    extend_select: tuple[str, ...]
    ignore: tuple[str, ...]
    extend_ignore: tuple[str, ...]
    exclude: tuple[str, ...]
    respect_gitignore: bool | None
    force_exclude: bool
    """`--force-exclude`: named files are read only when a directory walk would read them."""
    follow_links: bool
    """`--follow-links`: walk symbolic links out of the directories named."""
    fail_on: str | None
    exit_zero: bool
    allow_empty: bool
    progress: bool
    quiet: bool
    verbose: bool
    show_evidence: bool
    color: str
    config_file: str | None
    isolated: bool
    """`--isolated`: no configuration file is read, none found nor named."""
    baseline_file: str | None
    write_baseline: str | None
    statistics: bool
    jobs: int
    fitted_jobs: bool
    """`--jobs auto`: no more workers than the work keeps busy (none for a small input)."""
    engine: str
    """`dask`: audited on a Dask cluster (`auditor.engine.dask`)."""
    scheduler: str | None
    """The Dask scheduler's address; None starts a local cluster of `jobs` workers."""

    @property
    def output_format(self) -> str | None:
        """The format of the first output (`audit compare` and the listings have one)."""
        return self.outputs[0].format if self.outputs else None

    @property
    def output(self) -> str | None:
        """The file of the first output; None for stdout."""
        return self.outputs[0].path if self.outputs else None


def settings(invocation: Invocation) -> Settings:
    """The configuration file (`--config`, else the nearest pyproject.toml) and the command line."""
    return _build(invocation, config_file(invocation))


def config_file(invocation: Invocation) -> FileConfig | None:
    """`--config FILE`, else the configuration nearest to the audited paths, else None; None
    with `--isolated`."""
    from auditor import config

    if invocation.isolated:
        if invocation.config_file:
            raise ConfigError("--isolated reads no configuration file: drop --config, or it")
        return None
    if invocation.config_file:
        return config.read(invocation.config_file)
    return config.discover(config.start_of(invocation.paths))


def _build(invocation: Invocation, file: FileConfig | None) -> Settings:
    from auditor import config

    return config.build(
        select=invocation.select or None,
        ignore=invocation.ignore or None,
        extend_select=invocation.extend_select or None,
        extend_ignore=invocation.extend_ignore or None,
        fail_on=invocation.fail_on,
        input_format=invocation.input_format,
        exclude=invocation.exclude or None,
        respect_gitignore=invocation.respect_gitignore,
        force_exclude=invocation.force_exclude,
        file=file,
        tools=invocation.tools,
        follow_links=invocation.follow_links,
    )


@dataclass(frozen=True)
class Outcome:
    """What `audit()` hands to `write()`."""

    report: Report
    elapsed: float


def audit(invocation: Invocation, chosen: Settings) -> Outcome:
    """Run the engine over the paths, write the baseline if asked, then apply the one given."""
    from auditor import engine, sources
    from auditor.progress import Bar

    if invocation.engine == "dask":
        from auditor.engine import dask

        dask.require()
    accepted = None
    if invocation.baseline_file:
        from auditor.commands import baseline  # here, and below: most runs keep no baseline

        accepted = baseline.load(invocation.baseline_file)
    started = time.perf_counter()
    planned = list(engine.plan(invocation.paths, chosen))
    outputs = [o.path for o in invocation.outputs]
    guards.refuse_to_overwrite(
        planned, chosen, outputs, invocation.write_baseline, invocation.baseline_file
    )
    total = sum(item.size or 0 for item in planned if isinstance(item, sources.Source))
    shown = invocation.progress and not invocation.quiet
    with Bar(total, enabled=shown, color=color(invocation.color, sys.stderr)) as bar:
        shown_bar = bar if bar.enabled else None  # no per-record calls when nothing is drawn
        report = _audit_plan(invocation, planned, chosen, shown_bar)
    if chosen.config_file:
        report = replace(report, config_file=chosen.config_file)
    elapsed = time.perf_counter() - started
    for error in report.errors:
        stderr(f"audit: error: {error.message}")
    if chosen.suppressions:  # before the baseline: it records no suppressed finding
        from auditor import suppress

        report = suppress.apply(report, chosen.suppressions)
    recorded = report.findings
    if invocation.write_baseline:
        from auditor.commands import baseline

        baseline.write(invocation.write_baseline, recorded)
    if accepted is not None:
        from auditor.commands import baseline

        report = baseline.apply(report, accepted)
    if invocation.verbose:  # after the baseline: a file's findings add up to the summary's
        for line in verbose_lines(report):
            stderr(f"audit: {line}")
    if invocation.write_baseline and not invocation.quiet:
        stderr(f"audit: wrote {plural(len(recorded), 'finding')} to {invocation.write_baseline}")
    return Outcome(report, elapsed)


def _audit_plan(
    invocation: Invocation, planned: list[Planned], chosen: Settings, progress: Bar | None
) -> Report:
    """The plan audited by the engine `--engine` names."""
    from auditor import engine

    if invocation.engine == "dask":
        from auditor.engine import dask

        with dask.runner(invocation.scheduler, invocation.jobs) as runner:
            return engine.audit_plan(planned, chosen, progress, runner=runner)
    return engine.audit_plan(
        planned, chosen, progress=progress, jobs=invocation.jobs, fitted=invocation.fitted_jobs
    )


def verbose_lines(report: Report) -> list[str]:
    """`-v`: what each file held, and each file a walk left unread. A file's findings are
    those the report holds, so that they add up to the summary's; the baseline's are counted
    apart, as the summary counts them."""
    found = Counter(f.path for f in report.findings)
    accepted = Counter(f.path for f in report.accepted)
    suppressed = Counter(s.finding.path for s in report.suppressed)
    lines = []
    for f in report.files:
        formats = ", ".join(name for name, _ in f.formats) or "no log format"
        baselined = f" ({accepted[f.path]:,} in the baseline not shown)" if accepted[f.path] else ""
        if suppressed[f.path]:
            baselined += f" ({suppressed[f.path]:,} suppressed)"
        lines.append(
            f"{f.path}: {formats}; {plural(f.records, 'record')}, "
            f"{plural(f.conversations, 'conversation')}, {plural(found[f.path], 'finding')}"
            f"{baselined}"
        )
    why = {
        "type": "not a log file type",
        "no log shape": "JSON of no log shape",
        "link": "a symbolic link out of the path named, not followed (--follow-links)",
    }
    lines.extend(f"{u.path}: skipped, {why.get(u.reason, u.reason)}" for u in report.unread)
    lines.extend(
        f"suppress {t.described}: {plural(t.count, 'finding')} suppressed ({t.reason})"
        for t in report.suppressions
    )
    return lines


def color(when: str, stream: TextIO) -> bool:
    """`--color`: `always`, `never`, or `auto`: NO_COLOR (https://no-color.org) turns it
    off, FORCE_COLOR on, else colour when `stream` is a terminal."""
    if when != "auto":
        return when == "always"
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return hasattr(stream, "isatty") and stream.isatty()


def output_format(output: Output) -> str:
    """The output's format, or when none is given: `table` for a terminal, `concise` for a
    pipe or a file."""
    if output.format is not None:
        return output.format
    if output.path is None and sys.stdout.isatty():
        return "table"
    return "concise"


def write(invocation: Invocation, outcome: Outcome, output: Output, first: bool) -> str | None:
    """The report, in the output's format, to stdout or its file; what the reporter says it
    left out, if anything. The `first` output writes the notes a format keeps on stderr."""
    from auditor.reporters import REPORTERS, writer

    fmt = output_format(output)
    if invocation.statistics:
        from auditor.commands import statistics as stats

        write_to: Callable[[Report, TextIO, Context], str | None] = functools.partial(
            stats.write, output_format=REPORTERS[fmt].statistics
        )
    else:
        write_to = writer(fmt)
    root = None
    if REPORTERS[fmt].repository_root:
        from auditor.sources.gitignore import repository_root

        root = repository_root(".")
    context = Context(
        elapsed=outcome.elapsed,
        quiet=invocation.quiet,
        notes=sys.stderr if first else None,
        show_evidence=invocation.show_evidence,
        whole=invocation.verbose,
        root=root,
    )
    said: list[str | None] = []

    def report(out: TextIO, colour: bool) -> None:
        said.append(write_to(outcome.report, out, replace(context, color=colour)))

    emit(output.path, invocation.color, report)
    return said[0] if said else None


def emit(path: str | None, when: str, write_to: Callable[[TextIO, bool], None]) -> None:
    """`write_to(out, colour)` to stdout (`path` None) or the file `path`: colour as `--color`
    (`when`) says for stdout, only with `always` for a file. A closed pipe ends it quietly; a
    file that cannot be written is one error."""
    if path is None:
        out = _stdout()
        try:
            write_to(out, color(when, out))
            out.flush()
        except BrokenPipeError:  # `audit … | head`: the reader has what it wanted
            silence_stdout()
        return
    from auditor.common.atomic import replaced

    try:
        with replaced(path) as file:
            write_to(cast(TextIO, file), when == "always")
    except OSError as exc:
        raise AuditorError(f"cannot write {path}: {exc.strerror or exc}") from exc


def written(invocation: Invocation, report: Report) -> str | None:
    """The one line that says which files the run wrote, in which format, and how much."""
    files = [f"{o.path} ({output_format(o)})" for o in invocation.outputs if o.path is not None]
    if not files:
        return None
    what = "the statistics" if invocation.statistics else plural(len(report.findings), "finding")
    where = files[0] if len(files) == 1 else ", ".join(files[:-1]) + " and " + files[-1]
    return f"wrote {what} to {where}"


def reports(invocation: Invocation) -> tuple[Output, ...]:
    """The outputs the run writes: all those asked for. `--write-baseline` without `-f` or `-o`
    writes no report, only its one line on what it recorded where (as ruff's `--add-noqa`
    says what it added): the findings it accepts are in the file it wrote."""
    if invocation.write_baseline and not invocation.statistics:
        return tuple(o for o in invocation.outputs if o != Output())
    return invocation.outputs


def main(invocation: Invocation) -> int:
    """Audit, write the report, and return the exit status (errors raise AuditorError)."""
    from auditor.reporters import REPORTERS

    chosen = settings(invocation)
    beside = guards.found_beside_the_logs(chosen, invocation.config_file)
    if beside:
        stderr(f"audit: {beside}")
    outputs = reports(invocation)
    formats = [REPORTERS[output_format(o)] for o in outputs]
    for fmt in map(output_format, outputs):
        if invocation.statistics and not REPORTERS[fmt].statistics:
            from auditor.commands import statistics as stats

            raise ConfigError(f"--statistics prints as {', '.join(stats.FORMATS)}, not as {fmt}")
    if any(f.timelines for f in formats) and not invocation.statistics:
        chosen = replace(chosen, timelines=True)
    outcome = audit(invocation, chosen)
    for i, output in enumerate(outputs):
        said = write(invocation, outcome, output, first=i == 0)
        if said:
            stderr(f"audit: {output_format(output)}: {said}")
    report = outcome.report
    line = written(invocation, report)
    if line and not invocation.quiet:
        stderr(f"audit: {line}")
    if empty(invocation, report):
        return 2
    return exit_status(report, chosen, invocation.exit_zero or bool(invocation.write_baseline))


def empty(invocation: Invocation, report: Report, allow: str = "--allow-empty") -> bool:
    """No conversation was read (and that was not allowed): says so in one line, naming the
    option that `allow`s it, if any. An unreadable path already said why nothing was read (and
    exits 2): one line is enough."""
    if report.counts.conversations or invocation.allow_empty or report.errors:
        return False
    stderr(f"audit: error: {nothing_read(invocation.paths, report, allow)}")
    return True


def compare(invocation: Invocation, limits: tuple[str, ...]) -> int:
    """`audit compare BASE NEW` (the two paths of `invocation`): each side read from its `-f
    json` report or audited, the comparison written; 1 when a limit of `--fail-on-increase`
    (else of the configuration's `fail-on-increase`) is exceeded, 2 when a side could not be
    audited or read no conversation."""
    from auditor import compare as comparing
    from auditor.compare import output as compare_output

    base, new = invocation.paths
    written = invocation.output
    guards.refuse_to_overwrite_sides(written, (base, new))
    file = config_file(invocation)
    if limits:
        chosen_limits = comparing.parse_limits(limits)
    else:
        chosen_limits = comparing.config_limits(file.values, file.error) if file else {}
    chosen = _build(invocation, file)
    failed = False

    def audit_path(path: str) -> Report:
        nonlocal failed
        side = replace(invocation, paths=(path,))
        report = audit(side, chosen).report
        failed = failed or bool(report.errors) or empty(side, report, allow="")
        return report

    result = comparing.compare(
        comparing.load(base, audit_path), comparing.load(new, audit_path), chosen_limits
    )
    writers: dict[str, Callable[[comparing.Comparison, TextIO], None]] = {
        "json": compare_output.write_json,
        "html": compare_output.write_html,
        "table": functools.partial(compare_output.write_text, quiet=invocation.quiet),
    }
    write_to = writers[invocation.output_format or "table"]
    emit(invocation.output, invocation.color, lambda out, _colour: write_to(result, out))
    if failed:
        return 2
    return 1 if result.failed else 0


def nothing_read(paths: tuple[str, ...], report: Report, allow: str = "--allow-empty") -> str:
    """The one line of a run that read no conversation: what it looked at, and what it found."""
    named = ["standard input" if p == "-" else p for p in paths]
    where = ", ".join(named[:3]) + (f" and {len(named) - 3:,} more" if len(named) > 3 else "")
    c = report.counts
    found = [plural(c.files, "file") + " read"]
    if c.records:
        found.append(plural(c.records, "record"))
    skipped = report.skipped_note()
    if skipped:
        found.append(skipped)
    if c.excluded:
        found.append(f"{c.excluded:,} excluded")
    if c.gitignored:
        found.append(f"{c.gitignored:,} ignored by .gitignore (--no-respect-gitignore reads them)")
    advice = f"Check the paths, or pass {allow} if that is expected" if allow else "Check the paths"
    return f"no conversation found in {where}: {'; '.join(found)}. {advice}"


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
        stream.reconfigure(encoding="utf-8", errors="replace")
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
    from auditor.common.text import safe

    print(safe(line), file=sys.stderr)
