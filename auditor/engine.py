"""read -> normalise -> replay -> rules -> sorted findings; a rule that crashes is reported."""

from __future__ import annotations

import hashlib
import multiprocessing
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from typing import IO, Protocol

from auditor import sources
from auditor.config import Settings
from auditor.findings import Finding, Severity, Violation, fingerprint
from auditor.formats import FORMATS, FileReader, Problem
from auditor.formats import detect as detect_format
from auditor.jsonpos import pointer_lines
from auditor.model import Conversation
from auditor.replay import ApprovalOptions, replay
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


def audit(
    paths: Iterable[str],
    settings: Settings,
    progress: Progress | None = None,
    jobs: int = 1,
) -> Report:
    """Audit every path and return the sorted report."""
    return audit_plan(plan(paths, settings), settings, progress, jobs)


def audit_plan(
    planned: Iterable[Planned],
    settings: Settings,
    progress: Progress | None = None,
    jobs: int = 1,
) -> Report:
    """Audit what `plan` found and return the sorted report.

    With `jobs` > 1, files (and large JSON Lines files cut into spans of whole lines) are
    audited in worker processes; their results are merged in input order, so the report is
    the same, byte for byte, as with one job.
    """
    findings: list[Finding] = []
    counts = Counts()
    skipped: dict[tuple[str, str], int] = defaultdict(int)
    errors: list[RunError] = []
    unread: list[Unread] = []
    files: list[FileSummary] = []
    if jobs > 1:
        planned = _split(planned, settings, jobs)
    for item in _results(iter(planned), settings, jobs, progress):
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
        if progress is not None:
            progress.finished(source, result.counts.conversations, len(result.findings))
        if not result.unread:
            _summarise(files, source, result)
        findings.extend(result.findings)
        counts += result.counts
        for key, n in result.skipped.items():
            skipped[key] += n
        errors.extend(result.errors)
        unread.extend(result.unread)
    findings.sort(key=Finding.sort_key)
    return Report(
        tuple(findings),
        counts,
        settings.rules,
        _gaps(skipped),
        tuple(errors),
        severity=dict(settings.severity),
        unread=tuple(unread),
        files=tuple(files),
    )


def _summarise(files: list[FileSummary], source: sources.Source, result: _Result) -> None:
    """One line of `-v` per file; the spans of a file cut for --jobs are added together."""
    formats = dict(result.formats)
    c = result.counts
    if files and source.span is not None and source.span.start > 0:
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
    """The spans a file may be audited in, in parallel: only when no span would cut a
    conversation, that is when no span starts with a format whose conversations span lines."""
    parts = sources.split(source, jobs * 4)
    if len(parts) == 1:
        return parts
    for i, part in enumerate(parts):
        first = next(iter(sources.read(part)), None)
        if not isinstance(first, sources.Record):
            continue
        fmt = FORMATS.get(settings.input_format or "") or detect_format(first)
        if fmt is not None and hasattr(fmt, "Collector"):
            return [source]
        if fmt is None and i == 0 and _may_be_sidecar(source, settings):
            return [source]  # whether it is a log at all is decided on the whole file
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
    source: sources.Source, settings: Settings, progress: Progress | None = None
) -> _Result:
    """Audit one file (or stdin).

    A side-car file (see `_may_be_sidecar`) none of whose records has the shape of any log is
    not audited: it is listed as unread, with no IN002 for each of its records. A file named
    on the command line, or holding one record of a known shape, gets IN002 for the others.
    """
    result = _Result()
    auditor = _Auditor(settings, result)
    reader = FileReader(settings.input_format)
    records = invalid = 0
    sidecar = _may_be_sidecar(source, settings)
    kind = "no log shape"
    try:
        for record in sources.read(source, progress.opened if progress else None):
            records += 1
            if progress is not None:
                progress.step(result.counts.conversations, len(result.findings))
            if isinstance(record, sources.InvalidRecord):
                invalid += 1
                auditor.invalid(record)
                continue
            if sidecar and detect_format(record) is not None:
                sidecar = False
            elif sidecar and record.kind == "text":
                kind = "no transcript"
            start = len(result.findings)
            auditor.feed(reader.feed(record), record)
            if record.document is not None:
                _resolve_lines(result.findings, start, record.document)
        auditor.feed(reader.finish(), None)
    except OSError as exc:
        result.errors.append(
            RunError("path", f"{source.name}: {sources.os_reason(exc)}", source.name)
        )
    if sidecar and records and not invalid and not result.errors:
        return _Result(unread=[Unread(source.path, kind)])
    dropped = settings.ignored_in(source.path) if settings.per_file_ignores else ()
    if dropped:
        result.findings = [f for f in result.findings if f.code not in dropped]
    # A file cut into spans for --jobs is one file: its first span counts it.
    files = 0 if source.span is not None and source.span.start > 0 else 1
    result.counts = result.counts + Counts(files=files, records=records)
    result.formats = reader.seen
    return result


class _Auditor:
    """Turns the items a format yields into findings, running the rules on each conversation."""

    def __init__(self, settings: Settings, result: _Result) -> None:
        self.settings = settings
        self.result = result
        self.in001 = BY_CODE[in001.CODE] if settings.enabled(in001.CODE) else None
        self.in002 = BY_CODE[in002.CODE] if settings.enabled(in002.CODE) else None
        self.checks = [
            (rule, settings.options_of(rule)) for rule in settings.rules if rule.check is not None
        ]
        # Replay finds approvals in chat logs the way the enabled CF rules' options say.
        self.approvals = ApprovalOptions.merge(options for _, options in self.checks)

    def invalid(self, record: sources.InvalidRecord) -> None:
        if self.in001 is None:
            return
        loc = record.location
        self.result.findings.append(
            self._finding(
                self.in001,
                Violation(record.reason, -1, loc, evidence=record.excerpt),
                conversation=None,
                key=_unindexed(loc.pointer),
            )
        )

    def feed(self, items: Iterable[Conversation | Problem], record: sources.Record | None) -> None:
        try:
            for item in items:
                if isinstance(item, Problem):
                    self._problem(item)
                else:
                    self.conversation(item)
        except Exception as exc:  # a format that crashes loses one record, not the run
            where = record.location if record is not None else None
            place = (
                f"{where.path}:{where.line}"
                if where and where.line
                else (where.path if where else "")
            )
            self.result.errors.append(
                RunError(
                    "format",
                    f"{place}: reading the record failed: {type(exc).__name__}: {exc}",
                    place,
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
        rep = replay(conversation, self.approvals)
        result.counts = result.counts + Counts(conversations=1, assistant_turns=len(rep.turns))
        key: str | None = None
        for rule, options in self.checks:
            missing = [r for r in rule.requires if not REQUIREMENTS[r][0](rep)]
            if missing:
                result.skipped[(rule.code, REQUIREMENTS[missing[0]][1])] += 1
                continue
            try:
                for violation in rule.check(rep, options):  # type: ignore[misc]
                    if key is None:
                        key = conversation_key(conversation)
                    result.findings.append(self._finding(rule, violation, conversation.id, key))
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
