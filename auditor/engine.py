"""read -> normalise -> replay -> rules -> sorted findings; a rule that crashes is reported."""

from __future__ import annotations

import hashlib
import multiprocessing
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace

from auditor import sources
from auditor.config import Settings
from auditor.findings import Finding, Severity, Violation, fingerprint
from auditor.formats import FORMATS, FileReader, Problem
from auditor.formats import detect as detect_format
from auditor.jsonpos import pointer_lines
from auditor.model import Conversation
from auditor.replay import ApprovalOptions, replay
from auditor.report import Counts, Gap, Report, RunError
from auditor.rules import BY_CODE, REQUIREMENTS, Rule
from auditor.rules import invalid_record as in001
from auditor.rules import unrecognized_record as in002

Progress = Callable[[str], None]


@dataclass
class _Result:
    """What auditing one source produced; merged in source order."""

    findings: list[Finding] = field(default_factory=list)
    counts: Counts = field(default_factory=Counts)
    skipped: dict[tuple[str, str], int] = field(default_factory=lambda: defaultdict(int))
    """(rule code, reason) -> conversations that rule could not examine."""
    errors: list[RunError] = field(default_factory=list)


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
    if jobs > 1:
        planned = _split(planned, settings, jobs)
    for item in _results(iter(planned), settings, jobs):
        if isinstance(item, RunError):
            errors.append(item)
            continue
        if isinstance(item, Counts):
            counts += item
            continue
        source, result = item
        if progress is not None:
            progress(source.path)
        findings.extend(result.findings)
        counts += result.counts
        for key, n in result.skipped.items():
            skipped[key] += n
        errors.extend(result.errors)
    findings.sort(key=Finding.sort_key)
    return Report(
        tuple(findings),
        counts,
        settings.rules,
        _gaps(skipped),
        tuple(errors),
        severity=dict(settings.severity),
    )


Planned = sources.Source | RunError | Counts


def plan(paths: Iterable[str], settings: Settings) -> Iterator[Planned]:
    """What to audit, in input order: sources, errors for unreadable paths, and counts for
    excluded ones. Nothing is read yet."""
    exclude = sources.Exclude(settings.exclude, settings.root)
    for item in sources.discover(paths, exclude):
        if isinstance(item, sources.PathError):
            yield RunError("path", f"{item.path}: {item.reason}", item.path)
        elif isinstance(item, sources.Excluded):
            yield Counts(excluded=1)
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
    for part in parts:
        first = next(iter(sources.read(part)), None)
        if not isinstance(first, sources.Record):
            continue
        fmt = FORMATS.get(settings.input_format or "") or detect_format(first)
        if fmt is not None and hasattr(fmt, "Collector"):
            return [source]
    return parts


def _results(
    plan: Iterator[Planned], settings: Settings, jobs: int
) -> Iterator[RunError | Counts | tuple[sources.Source, _Result]]:
    """Each planned item with its result, in plan order."""
    if jobs <= 1:
        for item in plan:
            yield (item, audit_source(item, settings)) if isinstance(item, sources.Source) else item
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
                yield item, audit_source(item, settings)
            else:
                yield item, next(done)


_worker_settings: Settings | None = None


def _start_worker(settings: Settings) -> None:
    global _worker_settings
    _worker_settings = settings


def _work(source: sources.Source) -> _Result:
    assert _worker_settings is not None
    return audit_source(source, _worker_settings)


def audit_source(source: sources.Source, settings: Settings) -> _Result:
    """Audit one file (or stdin)."""
    result = _Result()
    auditor = _Auditor(settings, result)
    reader = FileReader(settings.input_format)
    records = 0
    try:
        for record in sources.read(source):
            records += 1
            if isinstance(record, sources.InvalidRecord):
                auditor.invalid(record)
                continue
            if record.kind == "text" and not source.explicit and detect_format(record) is None:
                result.counts = result.counts + Counts(skipped_files=1)
                records -= 1
                continue
            start = len(result.findings)
            auditor.feed(reader.feed(record), record)
            if record.document is not None:
                _resolve_lines(result.findings, start, record.document)
        auditor.feed(reader.finish(), None)
    except OSError as exc:
        result.errors.append(
            RunError("path", f"{source.path}: {sources.os_reason(exc)}", source.path)
        )
    # A file cut into spans for --jobs is one file: its first span counts it.
    files = 0 if source.span is not None and source.span.start > 0 else 1
    result.counts = result.counts + Counts(files=files, records=records)
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
