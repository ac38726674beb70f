"""read -> normalise -> replay -> rules -> sorted findings; a rule that crashes is reported.

Tool sets: a conversation's own declarations win; else the tools of `--tools` (`Settings.tools`);
else its tools are inferred from its input file: every tool some conversation of the file
called and got a result from that was not an error (and, for what no tool of the file does,
those of the run's other logs of the same format: one run often spreads a benchmark's tasks
over files; never another format's). Those sets are known only once every file was read,
which with `--jobs` happens in several worker processes, so a rule that needs them (FB003)
yields its findings with `deferred` data instead of deciding them; each source reports its
tools and those findings (keyed by fingerprint, as lines are resolved and unread records
regrouped in place), and `audit_plan` decides them (`Rule.resolve`) after merging every source
in input order. The report is thus the same with any number of jobs, memory holds sets of
tool names and the few undecided findings, and rules stay functions of one replayed
conversation.
"""

from __future__ import annotations

import contextlib
import hashlib
import multiprocessing
import os
import re
from bisect import insort
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from typing import IO, Any, Protocol

from auditor import sources, timeline
from auditor.config import Settings
from auditor.findings import Finding, Severity, Violation, excerpt, fingerprint
from auditor.formats import FileReader, Problem, unreadable
from auditor.formats import detect as detect_format
from auditor.jsonpos import pointer_lines
from auditor.model import Conversation, validate
from auditor.replay import ApprovalOptions, Replay, replay
from auditor.report import Counts, FileSummary, Gap, Report, RunError, Unread
from auditor.rules import BY_CODE, REQUIREMENTS, Rule
from auditor.rules import invalid_record as in001
from auditor.rules import unrecognized_record as in002


class Progress(Protocol):
    """What the engine tells a progress display (`auditor.progress.Bar`)."""

    def opened(self, raw: IO[bytes]) -> None:
        """A file being read in this process: how far it got is `raw.tell()`."""

    def step(self, conversations: int, findings: int) -> None:
        """A record of the file being read in this process was audited (counts so far)."""

    def finished(self, source: sources.Source, conversations: int, findings: int) -> None:
        """A source (or a span of one) is done, here or in a worker."""


@dataclass
class _Result:
    """What auditing one source produced; merged in source order."""

    findings: list[Finding] = field(default_factory=list)
    counts: Counts = field(default_factory=Counts)
    skipped: dict[tuple[str, str], int] = field(default_factory=lambda: defaultdict(int))
    """(rule code, reason) -> conversations that rule could not examine."""
    errors: list[RunError] = field(default_factory=list)
    unread: list[Unread] = field(default_factory=list)
    """Files a directory walk found and did not audit."""
    formats: dict[str, int] = field(default_factory=dict)
    """Records read per log format."""
    repeats: dict[tuple[str, str], _Repeats] = field(default_factory=dict)
    """IN001/IN002 findings by (code, shape): reported one by one up to a limit, then counted."""
    deferred: list[int] = field(default_factory=list)
    """Lines of a span (`--jobs`) holding records of a format whose conversations span lines:
    the parent reads them after every span of the file, so no conversation is cut."""
    tools: dict[str, set[str]] = field(default_factory=dict)
    """Log format -> the tools that answered a call with something other than an error."""
    untooled: dict[str, int] = field(default_factory=dict)
    """Log format -> conversations with neither declared nor given tools."""
    undecided: dict[str, tuple[str, Any]] = field(default_factory=dict)
    """Fingerprint -> (log format, data) of findings a rule decides once the tools inferred
    from the file are known (`Violation.deferred`)."""
    timelines: list[timeline.Timeline] = field(default_factory=list)
    """With `Settings.timelines`: one per conversation that got findings."""


class _FileMerge:
    """The results of one file, whole or in spans (`--jobs`), merged in the file's order.

    Unread-record groups are joined across spans before they become findings, and lines
    deferred by the spans are read here, so the report is the same for any number of jobs.
    """

    def __init__(self, settings: Settings, source: sources.Source | None) -> None:
        self.settings = settings
        self.source = source
        self.path = source.path if source is not None else None
        self.repeats: dict[tuple[str, str], _Repeats] = {}
        self.deferred: list[int] = []

    def add(self, result: _Result) -> None:
        _join(self.repeats, result.repeats)
        self.deferred.extend(result.deferred)

    def finish(self) -> _Result | None:
        """What the file still holds: its deferred lines audited, its groups as findings."""
        if self.source is None or not (self.repeats or self.deferred):
            return None
        result = _Result()
        if self.deferred:
            whole = replace(self.source, span=None)
            result = audit_source(whole, self.settings, only=self.deferred)
            _join(self.repeats, result.repeats)
        settings = self.settings
        dropped = settings.ignored_in(self.source.path) if settings.per_file_ignores else ()
        for (code, _), group in self.repeats.items():
            if code not in dropped:
                result.findings.extend(group.findings())
        return result


def _join(mine: dict[tuple[str, str], _Repeats], theirs: dict[tuple[str, str], _Repeats]) -> None:
    for key, group in theirs.items():
        if key in mine:
            mine[key].absorb(group)
        else:
            mine[key] = group


def audit(
    paths: Iterable[str],
    settings: Settings,
    progress: Progress | None = None,
    jobs: int = 1,
) -> Report:
    """Audit every path and return the sorted report."""
    return audit_plan(plan(paths, settings), settings, progress, jobs)


Results = Callable[
    [Iterator["Planned"], Settings, "Progress | None"],
    Iterator["Planned | tuple[sources.Source, _Result]"],
]
"""Another engine's way to audit a plan (`auditor.scaleout`, on Dask): each planned item,
and each source with what `audit_source` returns for it, in plan order."""


def audit_plan(
    planned: Iterable[Planned],
    settings: Settings,
    progress: Progress | None = None,
    jobs: int = 1,
    results: Results | None = None,
) -> Report:
    """Audit what `plan` found and return the sorted report.

    With `jobs` > 1, files (and large JSON Lines files cut into spans of whole lines) are
    audited in worker processes; their results are merged in input order, so the report is
    the same, byte for byte, as with one job. `results` replaces the worker processes by
    another engine, which gets the plan cut for `jobs` workers; what it returns is merged
    here in the same way, so its report is the same too.
    """
    findings: list[Finding] = []
    counts = Counts()
    skipped: dict[tuple[str, str], int] = defaultdict(int)
    errors: list[RunError] = []
    unread: list[Unread] = []
    files: list[FileSummary] = []
    timelines: list[timeline.Timeline] = []
    tooled: dict[str, _Result] = {}  # input file -> its inferred tools and undecided findings
    if jobs > 1:
        planned = _split(planned, settings, jobs)
    file = _FileMerge(settings, None)

    def take(source: sources.Source, result: _Result, continued: bool) -> None:
        nonlocal counts
        if not result.unread:
            _summarise(files, source, result, continued)
        merged = tooled.setdefault(source.path, _Result())
        for fmt, names in result.tools.items():
            merged.tools.setdefault(fmt, set()).update(names)
        for fmt, n in result.untooled.items():
            merged.untooled[fmt] = merged.untooled.get(fmt, 0) + n
        merged.undecided.update(result.undecided)
        findings.extend(result.findings)
        counts += result.counts
        for key, n in result.skipped.items():
            skipped[key] += n
        errors.extend(result.errors)
        unread.extend(result.unread)
        timelines.extend(result.timelines)

    def close(file: _FileMerge) -> None:
        rest = file.finish()
        if rest is not None and file.source is not None:
            take(file.source, rest, True)

    if results is None:
        done = _results(iter(planned), settings, jobs, progress)
    else:
        done = results(iter(planned), settings, progress)
    for item in done:
        if isinstance(item, RunError):
            errors.append(item)
            continue
        if isinstance(item, Counts):
            counts += item
            continue
        if isinstance(item, Unread):
            unread.append(item)
            continue
        source, result = item
        if source.path != file.path or source.span is None or source.span.start == 0:
            close(file)
            file = _FileMerge(settings, source)
        if progress is not None:
            progress.finished(source, result.counts.conversations, len(result.findings))
        file.add(result)
        take(source, result, source.span is not None and source.span.start > 0)
    close(file)
    findings = _decide(findings, tooled, skipped, settings)
    findings.sort(key=Finding.sort_key)
    if timelines:
        timelines = _shown(timelines, findings)
    return Report(
        tuple(findings),
        counts,
        settings.rules,
        _gaps(skipped),
        tuple(errors),
        severity=dict(settings.severity),
        unread=tuple(unread),
        files=tuple(files),
        timelines=tuple(timelines),
    )


def _shown(timelines: list[timeline.Timeline], findings: list[Finding]) -> list[timeline.Timeline]:
    """The timelines of conversations that still have findings once the undecided ones are
    decided (a rule may drop them), sorted, not in completion order: spans defer some
    conversations to the end of their file."""
    kept = {(f.path, f.conversation) for f in findings if f.conversation is not None}
    shown = [t for t in timelines if (t.path, t.conversation) in kept]
    shown.sort(key=timeline.Timeline.sort_key)
    return shown


def _summarise(
    files: list[FileSummary], source: sources.Source, result: _Result, continued: bool
) -> None:
    """One line of `-v` per file; what the spans of a file cut for --jobs found, and what its
    groups and deferred lines add at its end (`continued`), are added together."""
    formats = dict(result.formats)
    c = result.counts
    if files and continued:
        last = files.pop()
        for name, n in last.formats:
            formats[name] = formats.get(name, 0) + n
        c = c + Counts(records=last.records, conversations=last.conversations)
        found = last.findings + len(result.findings)
    else:
        found = len(result.findings)
    files.append(
        FileSummary(source.name, tuple(formats.items()), c.records, c.conversations, found)
    )


UNTOOLED = "no tools declared, given with --tools, or inferred from the calls of its logs"


def _decide(
    findings: list[Finding],
    tooled: dict[str, _Result],
    skipped: dict[tuple[str, str], int],
    settings: Settings,
) -> list[Finding]:
    """The findings with each undecided one decided by its rule, given the inferred tools."""
    run: dict[str, set[str]] = defaultdict(set)  # log format -> tools, over every file
    undecided: dict[str, tuple[frozenset[str], frozenset[str], str, Any]] = {}
    for merged in tooled.values():
        for fmt, names in merged.tools.items():
            run[fmt] |= names
    for merged in tooled.values():
        for key, (fmt, data) in merged.undecided.items():
            own = frozenset(merged.tools.get(fmt, ()))
            undecided[key] = (own, frozenset(run[fmt]), fmt, data)
        for fmt, n in merged.untooled.items():
            if n and not run[fmt]:
                for rule in settings.rules:
                    if rule.resolve is not None:
                        skipped[(rule.code, UNTOOLED)] += n
    if not undecided:
        return findings
    kept = []
    for finding in findings:
        entry = undecided.get(finding.fingerprint)
        resolve = BY_CODE[finding.code].resolve
        if entry is None or resolve is None:
            kept.append(finding)
            continue
        own, kin, fmt, data = entry
        # the tools of its file first; then those of the run's other logs of its format (one
        # benchmark run spread over files), never another format's (SWE-agent's `create`
        # says nothing of a multi-agent chat)
        outcome = resolve(data, own, "this file")
        if outcome is None and kin != own:
            outcome = resolve(data, kin, f"another {fmt} log of this run")
        if outcome is not None:
            message, tool = outcome
            kept.append(replace(finding, message=message, tool=tool))
    return kept


Planned = sources.Source | RunError | Counts | Unread


def plan(paths: Iterable[str], settings: Settings) -> Iterator[Planned]:
    """What to audit, in input order: sources, errors for unreadable paths, counts for
    excluded and gitignored ones, and the files of other types a walk found. Nothing is read
    yet."""
    exclude = settings.excluder()
    for item in sources.discover(paths, exclude, gitignore=settings.respect_gitignore):
        if isinstance(item, sources.PathError):
            yield RunError("path", f"{item.path}: {item.reason}", item.path)
        elif isinstance(item, sources.Excluded):
            yield Counts(excluded=1)
        elif isinstance(item, sources.Ignored):
            yield Counts(gitignored=1)
        elif isinstance(item, sources.Skipped):
            yield Unread(item.path, "type")
        else:
            yield item


def _split(planned: Iterable[Planned], settings: Settings, jobs: int) -> Iterator[Planned]:
    """The plan with large files cut into spans, for `jobs` worker processes."""
    for item in planned:
        if isinstance(item, sources.Source):
            yield from _spans(item, settings, jobs)
        else:
            yield item


def _spans(source: sources.Source, settings: Settings, jobs: int) -> list[sources.Source]:
    """The spans a file may be audited in, in parallel; the file whole when a span starts with
    a format whose conversations span lines (spans defer such lines to the parent, which would
    then read them all), or when it may be a side-car (decided on the whole file)."""
    parts = sources.split(source, jobs * 4)
    if len(parts) == 1:
        return parts
    reader = FileReader(settings.input_format)
    for i, part in enumerate(parts):
        first = next(iter(sources.read(part, limit=settings.max_record_bytes)), None)
        if not isinstance(first, sources.Record):
            continue
        if _grouped(reader, first):
            return [source]
        if i == 0 and _may_be_sidecar(source, settings) and _format(reader, first) is None:
            return [source]
    return parts


def _results(
    plan: Iterator[Planned], settings: Settings, jobs: int, progress: Progress | None = None
) -> Iterator[Planned | tuple[sources.Source, _Result]]:
    """Each planned item with its result, in plan order."""
    if jobs <= 1:
        for item in plan:
            if isinstance(item, sources.Source):
                yield item, audit_source(item, settings, progress)
            else:
                yield item
        return
    items = list(plan)
    parallel = [i for i in items if isinstance(i, sources.Source) and i.path != "-"]
    context = multiprocessing.get_context(
        "fork" if "fork" in multiprocessing.get_all_start_methods() else None
    )
    with ProcessPoolExecutor(
        max_workers=jobs, mp_context=context, initializer=_start_worker, initargs=(settings,)
    ) as pool:
        done = pool.map(_work, parallel)
        for item in items:
            if not isinstance(item, sources.Source):
                yield item
            elif item.path == "-":  # stdin belongs to this process
                yield item, audit_source(item, settings, progress)
            else:
                yield item, next(done)


_worker_settings: Settings | None = None


def _start_worker(settings: Settings) -> None:
    global _worker_settings
    _worker_settings = settings


def _work(source: sources.Source) -> _Result:
    assert _worker_settings is not None
    return audit_source(source, _worker_settings)


def _may_be_sidecar(source: sources.Source, settings: Settings) -> bool:
    """A file found by walking a directory, read whole, with no format forced: it may be a
    side-car (`package.json`, `tools.json`, a `.txt` of notes) rather than a log."""
    return not source.explicit and source.span is None and settings.input_format is None


def audit_source(
    source: sources.Source,
    settings: Settings,
    progress: Progress | None = None,
    only: list[int] | None = None,
) -> _Result:
    """Audit one file (or stdin), or a span of it; with `only`, just those lines of it.

    A side-car file (see `_may_be_sidecar`) none of whose records has the shape of any log is
    not audited: it is listed as unread, with no IN002 for each of its records. A file named
    on the command line, or holding one record of a known shape, gets IN002 for the others.
    In a span (`--jobs`), records of a format whose conversations run over several lines are
    not read but deferred (`_Result.deferred`): the parent reads them all, in order, with
    `only`, once every span of the file is done.
    """
    result = _Result()
    dropped = settings.ignored_in(source.path) if settings.per_file_ignores else frozenset()
    auditor = _Auditor(settings, result, dropped)
    reader = FileReader(settings.input_format, _rereader(source, settings, only))
    records = invalid = 0
    sidecar = _may_be_sidecar(source, settings) and only is None
    kind = "no log shape"
    limit = settings.max_record_bytes
    try:
        if only is None:
            stream = sources.read(source, progress.opened if progress else None, limit)
        else:
            stream = sources.read_only(source, only)
        for record in stream:
            records += 1
            if progress is not None:
                progress.step(auditor.conversations, len(result.findings))
            if isinstance(record, sources.InvalidRecord):
                if sidecar and source.kind == "text":
                    kind = "no transcript"  # not even text: a walk found no transcript here
                    continue
                invalid += 1
                auditor.invalid(record)
                continue
            if sidecar and detect_format(record) is not None:
                sidecar = False
            elif sidecar and record.kind == "text":
                kind = "no transcript"
            if source.span is not None and _grouped(reader, record):
                result.deferred.append(record.location.line or 0)
                continue
            start = len(result.findings)
            auditor.feed(reader.feed(record), record)
            if record.document is not None:
                _resolve_lines(result.findings, start, record.document)
            auditor.route_unread(start)
        start = len(result.findings)
        auditor.feed(reader.finish(), None)
        auditor.route_unread(start)
    except OSError as exc:
        result.errors.append(
            RunError("path", f"{source.name}: {sources.os_reason(exc)}", source.name)
        )
    if sidecar and records and not invalid and not result.errors:
        return _Result(unread=[Unread(source.path, kind)])
    if dropped:
        result.findings = [f for f in result.findings if f.code not in dropped]
    # A file cut into spans for --jobs is one file: its first span counts it; deferred lines
    # were counted by their span.
    if only is not None:
        records = files = 0
    else:
        files = 0 if source.span is not None and source.span.start > 0 else 1
    result.counts = auditor.counts() + Counts(files=files, records=records)
    result.formats = reader.seen
    return result


REREAD_AT_LEAST = 16 * 1024 * 1024
"""Files this large may be read twice by collectors that close conversations early."""


def _rereader(
    source: sources.Source, settings: Settings, only: list[int] | None
) -> Callable[[], Iterable[object]] | None:
    """A way to read a large regular file again, so session streams hold only open sessions."""
    if only is not None or source.span is not None or source.path == "-":
        return None
    try:
        if os.path.getsize(source.path) < REREAD_AT_LEAST:
            return None
    except OSError:
        return None
    return lambda: sources.read(source, limit=settings.max_record_bytes)


def _format(reader: FileReader, record: sources.Record) -> object | None:
    try:
        return reader.format_of(record)
    except Exception:  # the record boundary reports it when the record is read
        return None


def _grouped(reader: FileReader, record: sources.Record) -> bool:
    """The record is of a format whose conversations span records (it has a Collector)."""
    return hasattr(_format(reader, record), "Collector")


class _Auditor:
    """Turns the items a format yields into findings, running the rules on each conversation."""

    def __init__(
        self, settings: Settings, result: _Result, ignored: Collection[str] = frozenset()
    ) -> None:
        self.settings = settings
        self.result = result
        self.ignored = ignored
        """Codes `per-file-ignores` drops in this file: no timeline marks their findings."""
        self.in001 = BY_CODE[in001.CODE] if settings.enabled(in001.CODE) else None
        self.in002 = BY_CODE[in002.CODE] if settings.enabled(in002.CODE) else None
        self.checks = [
            (rule, settings.options_of(rule), rule.screen if settings.screens else None)
            for rule in settings.rules
            if rule.check is not None
        ]
        # Replay finds approvals in chat logs the way the enabled CF rules' options say, and
        # pairs them only when an enabled rule needs them.
        self.approvals = ApprovalOptions.merge(options for _, options, _ in self.checks)
        self.pairs = any("approvals" in rule.requires for rule, _, _ in self.checks)
        self.conversations = self.assistant_turns = 0
        self.tools_given = self.tools_declared = self.tools_inferred = 0

    def counts(self) -> Counts:
        """What the conversations read so far add to the report's counts."""
        return Counts(
            conversations=self.conversations,
            assistant_turns=self.assistant_turns,
            tools_given=self.tools_given,
            tools_declared=self.tools_declared,
            tools_inferred=self.tools_inferred,
        )

    def invalid(self, record: sources.InvalidRecord) -> None:
        if self.in001 is None:
            return
        loc = record.location
        finding = self._finding(
            self.in001,
            Violation(record.reason, -1, loc, evidence=record.excerpt),
            conversation=None,
            key=_unindexed(loc.pointer),
        )
        self._unread(finding)

    def route_unread(self, start: int) -> None:
        """Move the IN findings added since `start` (lines resolved) into their groups."""
        findings = self.result.findings
        if len(findings) == start:
            return
        kept = [f for f in findings[start:] if f.code not in _UNREAD]
        for f in findings[start:]:
            if f.code in _UNREAD:
                self._unread(f)
        findings[start:] = kept

    def _unread(self, finding: Finding) -> None:
        key = (finding.code, _shape(finding.message))
        group = self.result.repeats.get(key)
        if group is None:
            group = self.result.repeats[key] = _Repeats()
        group.add(finding)

    def feed(self, items: Iterable[Conversation | Problem], record: sources.Record | None) -> None:
        try:
            for item in items:
                if isinstance(item, Problem):
                    self._problem(item)
                else:
                    self.conversation(item)
        except Exception as exc:  # FileReader never raises: this is the last net
            where = record.location if record is not None else None
            place = f"{where.path}:{where.line}" if where and where.line else ""
            self.result.errors.append(
                RunError(
                    "format",
                    f"{place}: reading the record failed: {type(exc).__name__}: {exc}",
                    where.path if where else None,
                )
            )

    def _problem(self, problem: Problem) -> None:
        if self.in002 is None:
            return
        loc = problem.location
        violation = Violation(problem.reason, -1, loc, evidence=problem.evidence)
        self.result.findings.append(
            self._finding(self.in002, violation, problem.conversation, key=_unindexed(loc.pointer))
        )

    def conversation(self, conversation: Conversation) -> None:
        result = self.result
        given = conversation.tools is None and self.settings.tools is not None
        if given:
            conversation = replace(conversation, tools=self.settings.tools)
        try:
            validate(conversation)
            rep = replay(conversation, self.approvals)
            if self.pairs:
                rep.approvals  # noqa: B018 (paired here, inside the record boundary)
        except Exception as exc:  # the record boundary: this conversation, not the run
            where = conversation.location
            reason = f"conversation {excerpt(conversation.id, 60)} {unreadable(exc)}"
            self._problem(Problem(where, reason, conversation.id))
            return
        self._count(conversation, rep, given)
        start = len(result.findings)
        self._check(conversation, rep)
        if self.settings.timelines and len(result.findings) > start:
            self._timeline(conversation, result.findings[start:])

    def _count(self, conversation: Conversation, rep: Replay, given: bool) -> None:
        """What every conversation adds to the report, whatever its findings: counts, where its
        tools came from, and the tools it called successfully (inferred tool sets)."""
        result = self.result
        declared = conversation.tools is not None and not given
        inferred = not given and not declared
        self.conversations += 1  # plain integers: a Counts per conversation cost 5% of a run
        self.assistant_turns += len(rep.turns)
        self.tools_given += given
        self.tools_declared += declared
        self.tools_inferred += inferred
        fmt = conversation.format
        if inferred:
            result.untooled[fmt] = result.untooled.get(fmt, 0) + 1
        result.tools.setdefault(fmt, set()).update(
            e.call.name
            for e in rep.exchanges
            if e.caller == "assistant" and e.result is not None and not e.failed
        )

    def _check(self, conversation: Conversation, rep: Replay) -> None:
        """Each enabled rule on the replay: skipped (and counted) where the conversation lacks
        what it requires, left out where its screen says it cannot fire, checked otherwise."""
        result = self.result
        met: dict[str, bool] = {}  # requirement -> whether the conversation meets it
        key: str | None = None
        for rule, options, screen in self.checks:
            missing = None
            for need in rule.requires:
                ok = met.get(need)
                if ok is None:
                    ok = met[need] = REQUIREMENTS[need][0](rep)
                if not ok:
                    missing = need
                    break
            if missing is not None:
                result.skipped[(rule.code, REQUIREMENTS[missing][1])] += 1
                continue
            try:
                if screen is not None and not screen(rep, options):
                    continue  # it cannot fire here: most conversations, most rules
                for violation in rule.check(rep, options):  # type: ignore[misc]
                    if key is None:
                        key = conversation_key(conversation)
                    finding = self._finding(rule, violation, conversation.id, key)
                    if violation.deferred is not None:
                        result.undecided[finding.fingerprint] = (
                            conversation.format,
                            violation.deferred,
                        )
                    result.findings.append(finding)
            except Exception as exc:  # a crashing rule is reported and the run goes on
                result.errors.append(
                    RunError(
                        "rule",
                        f"{rule.code} ({rule.name}) crashed on conversation {conversation.id}: "
                        f"{type(exc).__name__}: {exc}",
                        conversation.location.path,
                        rule.code,
                    )
                )

    def _timeline(self, conversation: Conversation, findings: list[Finding]) -> None:
        """The conversation's bounded timeline, its findings marked (not those `per-file-ignores`
        drops: a conversation left with none gets no timeline)."""
        hits = [(f.turn, f.evidence) for f in findings if f.code not in self.ignored]
        if not hits:
            return
        # A page without this timeline (it says so) beats no page.
        with contextlib.suppress(Exception):
            self.result.timelines.append(timeline.build(conversation, hits))

    def _severity(self, rule: Rule, v: Violation) -> Severity:
        """The configured severity of the rule, else the finding's own, else the rule's default."""
        if v.severity is not None and rule.code not in self.settings.severity:
            return v.severity
        return self.settings.severity_of(rule)

    def _finding(self, rule: Rule, v: Violation, conversation: str | None, key: str) -> Finding:
        loc = v.location
        turn = v.turn if v.turn >= 0 else None
        return Finding(
            code=rule.code,
            name=rule.name,
            severity=self._severity(rule, v),
            message=v.message,
            path=loc.path,
            line=loc.line,
            pointer=loc.pointer,
            conversation=conversation,
            turn=turn,
            tool=v.tool,
            call_id=v.call_id,
            evidence=v.evidence,
            fingerprint=fingerprint(rule.code, key, turn, v.evidence or v.message),
        )


_UNREAD = frozenset({in001.CODE, in002.CODE})
UNREAD_SHOWN = 20
"""IN findings of one kind listed one by one per file; the rest are counted in one finding."""
_UNREAD_SAMPLE = 5
_NUMBERS = re.compile(r"\d+")


def _shape(message: str) -> str:
    """What makes two unread records alike: their reason, columns and counts aside."""
    return _NUMBERS.sub("#", message)


class _Repeats:
    """The IN findings of one kind in one file: the first `UNREAD_SHOWN` in file order, and how
    many more there are with the first few of them, so that a megabyte of `{}` lines is one
    screen, not a million findings. Joining two groups gives what one group would have been
    given every finding of both (so spans merge into what a whole-file run reports)."""

    __slots__ = ("more", "sample", "shown")

    def __init__(self) -> None:
        self.shown: list[Finding] = []
        self.sample: list[Finding] = []
        self.more = 0

    def add(self, finding: Finding) -> None:
        shown = self.shown
        if len(shown) < UNREAD_SHOWN:
            insort(shown, finding, key=Finding.sort_key)
        elif Finding.sort_key(finding) >= Finding.sort_key(shown[-1]):
            self._spill(finding)  # the common case: records arrive in file order
        else:
            insort(shown, finding, key=Finding.sort_key)
            self._spill(shown.pop())

    def _spill(self, finding: Finding) -> None:
        self.more += 1
        sample = self.sample
        if len(sample) < _UNREAD_SAMPLE:
            insort(sample, finding, key=Finding.sort_key)
        elif Finding.sort_key(finding) < Finding.sort_key(sample[-1]):
            insort(sample, finding, key=Finding.sort_key)
            sample.pop()

    def absorb(self, other: _Repeats) -> None:
        for finding in other.shown:
            self.add(finding)
        self.more += other.more - len(other.sample)
        for finding in other.sample:
            self._spill(finding)

    def findings(self) -> list[Finding]:
        if not self.more:
            return list(self.shown)
        sample = self.sample
        first = sample[0]
        lines = ", ".join(str(f.line) for f in sample if f.line is not None)
        where = f" (lines {lines}{', …' if self.more > len(sample) else ''})" if lines else ""
        summary = replace(
            first,
            message=f"{self.more} more like this{where}: {first.message}",
            conversation=None,
            fingerprint=fingerprint(first.code, "unread", None, _shape(first.message)),
        )
        return [*self.shown, summary]


def conversation_key(conversation: Conversation) -> str:
    """The identity baselines key on: the log's own id, or a digest of how the conversation starts.

    A `path:line` id would change whenever lines are inserted above the conversation; the first
    messages do not, and stay the same when the conversation grows at its end.
    """
    if conversation.own_id:
        return conversation.id
    digest = hashlib.sha256()
    for message in conversation.messages[:8]:
        digest.update(message.role.encode())
        digest.update(message.text[:2000].encode("utf-8", "surrogatepass"))
        for call in message.tool_calls:
            digest.update(call.name.encode("utf-8", "surrogatepass"))
        digest.update(b"\x1e")
    return "sha256:" + digest.hexdigest()[:20]


_INDEX = re.compile(r"/\d+(?=/|$)")


def _unindexed(pointer: str) -> str:
    """A pointer without its array indexes: `/3/messages/5` -> `/#/messages/#`.

    Records that never became a conversation have no identity of their own; their place in a
    JSON document moves when items are inserted above them, so baselines must not key on it.
    """
    return _INDEX.sub("/#", pointer)


def _resolve_lines(findings: list[Finding], start: int, document: bytes) -> None:
    """Give the findings in a JSON document the line their pointer starts at."""
    todo = [i for i in range(start, len(findings)) if findings[i].line is None]
    if not todo:
        return
    lines = pointer_lines(document, {findings[i].pointer for i in todo})
    for i in todo:
        line = lines.get(findings[i].pointer, 1)
        findings[i] = replace(findings[i], line=line)


def _gaps(skipped: dict[tuple[str, str], int]) -> tuple[Gap, ...]:
    grouped: dict[tuple[str, str, int], list[str]] = defaultdict(list)
    for (code, reason), n in sorted(skipped.items()):
        grouped[(code[:2], reason, n)].append(code)
    return tuple(
        Gap(family, reason, tuple(codes), n)
        for (family, reason, n), codes in sorted(grouped.items())
    )
