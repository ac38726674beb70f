"""The audit of one source: a file, stdin or a span of a JSON Lines file, read record by record
and handed to the checker (`audit_source`), a pure function of the source and the settings
that the runners call in this process, in worker processes or on a Dask cluster.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import TypeGuard

from auditor import sources
from auditor.common.jsonpos import pointer_lines
from auditor.config import Settings
from auditor.engine.checker import ConversationChecker
from auditor.engine.results import Progress, SourceResult
from auditor.findings import Finding
from auditor.formats import FileReader, Format, Found, Problem, claims, companion, describe
from auditor.report import Counts, RunError, Unread


def may_be_sidecar(source: sources.Source, settings: Settings) -> bool:
    """A file found by walking a directory, read whole, with no format forced: it may be a
    side-car (`package.json`, `tools.json`, a `.txt` of notes) rather than a log."""
    return not source.explicit and source.span is None and settings.input_format is None


def audit_source(
    source: sources.Source,
    settings: Settings,
    progress: Progress | None = None,
    only: list[int] | None = None,
) -> SourceResult:
    """Audit one file (or stdin), or a span of it; with `only`, just those lines of it.

    A side-car file (see `may_be_sidecar`) none of whose records has the shape of any log is
    not audited: it is listed as unread, with no IN002 for each of its records. A file named
    on the command line, or holding one record of a known shape, gets IN002 for the others.
    In a span (`--jobs`), records of a format whose conversations run over several lines are
    not read but deferred (`SourceResult.deferred`): the parent reads them all, in order, with
    `only`, once every span of the file is done.
    """
    if sources.is_url(source.path):  # in a worker, on a Dask worker: as the settings say
        from auditor.sources import remote

        remote.configure(settings.read_timeout, settings.follow_links)
    result = SourceResult()
    dropped = settings.ignored_in(source.path) if settings.per_file_ignores else frozenset()
    auditor = ConversationChecker(settings, result, dropped)
    reader = FileReader(settings.input_format, _rereader(source, settings, only), settings.formats)
    records = invalid = 0
    sidecar = may_be_sidecar(source, settings) and only is None
    if sidecar and source.kind == "sniff":
        skipped = sniffed(source)
        if skipped is not None:
            return SourceResult(unread=[skipped])
    kind, detail = "no log shape", ""
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
            found = reader.format_of(record)  # once: the side-car test and the span read it
            if sidecar and is_format(found):
                sidecar = False
            elif sidecar and not detail:
                kind, detail = unread_as(record)
            if source.span is not None and reader.grouped(found):
                result.deferred.append(record.location.line or 0)
                continue
            start = len(result.findings)
            auditor.feed(reader.read(record, found), record)
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
    # A sniffed file (`.log`, no suffix) promised no JSON: lines that are not JSON do not make
    # it a broken log.
    if sidecar and records and (not invalid or source.kind == "sniff") and not result.errors:
        return SourceResult(unread=[Unread(source.path, kind, detail)])
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


def sniffed(source: sources.Source) -> Unread | None:
    """A file a walk decides on by its first bytes, left unread when they are no log's: text
    no text format knows, or binary. None when it is to be read (or cannot be: the read says
    why)."""
    try:
        head = sources.head(source)
    except OSError:
        return None
    if claims(head):
        return None
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 4:  # not a character cut at the end of the head
            return Unread(source.path, "no transcript", "binary: not UTF-8 text")
    return Unread(source.path, "no transcript", "text in no known transcript format")


def unread_as(record: sources.Record) -> tuple[str, str]:
    """(reason, detail) of a walked file whose record no format reads."""
    known = companion(record)
    if known is not None:
        return "not a transcript", known[0]
    return ("no transcript" if record.kind == "text" else "no log shape"), describe(record)


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


def is_format(found: Found) -> TypeGuard[Format]:
    """What `FileReader.format_of` said of a record is a format that reads it."""
    return found is not None and not isinstance(found, Problem)


def _resolve_lines(findings: list[Finding], start: int, document: bytes) -> None:
    """Give the findings in a JSON document the line their pointer starts at."""
    todo = [i for i in range(start, len(findings)) if findings[i].line is None]
    if not todo:
        return
    lines = pointer_lines(document, {findings[i].pointer for i in todo})
    for i in todo:
        line = lines.get(findings[i].pointer, 1)
        findings[i] = replace(findings[i], line=line)
