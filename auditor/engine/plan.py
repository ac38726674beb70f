"""The plan: what to audit, in input order (`plan`), and the plan cut for `--jobs` worker
processes (`cut_for_jobs`: large JSON Lines files in spans of whole lines). Nothing is read
but the first line of each span.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from auditor import sources
from auditor.config import Settings
from auditor.engine.source import is_format, may_be_sidecar
from auditor.formats import FileReader
from auditor.report import Counts, RunError, Unread

Planned = sources.Source | RunError | Counts | Unread


def plan(paths: Iterable[str], settings: Settings) -> Iterator[Planned]:
    """What to audit, in input order: sources, errors for unreadable paths, counts for
    excluded and gitignored ones, and the files of other types a walk found. Nothing is read
    yet."""
    exclude = settings.excluder()
    paths = tuple(paths)
    if any(sources.is_url(path) for path in paths):
        read_urls_as(settings)
    found = sources.discover(
        paths,
        exclude,
        gitignore=settings.respect_gitignore,
        force_exclude=settings.force_exclude,
        follow_links=settings.follow_links,
    )
    for item in found:
        if isinstance(item, sources.PathError):
            yield RunError("path", f"{_shown(item.path)}: {item.reason}", item.path)
        elif isinstance(item, sources.Excluded):
            yield Counts(excluded=1)
        elif isinstance(item, sources.Ignored):
            yield Counts(gitignored=1)
        elif isinstance(item, sources.Skipped):
            yield Unread(item.path, item.reason)
        elif isinstance(item, sources.Linked):
            yield Unread(item.path, "link")
        else:
            yield item


SHOWN_PATH = 240
"""A path longer than this (a tree past PATH_MAX) is cut in the middle in an error line."""


def _shown(path: str) -> str:
    if len(path) <= SHOWN_PATH:
        return path
    half = SHOWN_PATH // 2
    return f"{path[:half]}…{path[-half:]}"


def read_urls_as(settings: Settings) -> None:
    """URLs in this process are read as the settings say (`remote.configure`), when any is."""
    from auditor.sources import remote

    remote.configure(settings.read_timeout, settings.follow_links)


def cut_for_jobs(planned: Iterable[Planned], settings: Settings, jobs: int) -> Iterator[Planned]:
    """The plan with large files cut into spans, for `jobs` worker processes."""
    for item in planned:
        if isinstance(item, sources.Source):
            yield from spans(item, settings, jobs)
        else:
            yield item


def spans(source: sources.Source, settings: Settings, jobs: int) -> list[sources.Source]:
    """The spans a file may be audited in, in parallel; the file whole when a span starts with
    a format whose conversations span lines (spans defer such lines to the parent, which would
    then read them all), or when it may be a side-car (decided on the whole file). The file's
    first record is read before its lines are counted: a session stream is known by it."""
    if not sources.may_split(source, jobs * 4):
        return [source]
    reader = FileReader(settings.input_format, declared=settings.formats)
    if _whole(source, source, reader, settings):
        return [source]
    parts = sources.split(source, jobs * 4)
    if len(parts) == 1 or any(_whole(source, part, reader, settings) for part in parts[1:]):
        return [source]
    return parts


def _whole(
    source: sources.Source, part: sources.Source, reader: FileReader, settings: Settings
) -> bool:
    """`source` must be read whole, as its record at the start of `part` shows (the file's
    first record when `part` is the file)."""
    try:
        first = next(iter(sources.read(part, limit=settings.max_record_bytes)), None)
    except OSError:
        return True  # reading it whole reports the error
    if not isinstance(first, sources.Record):
        return False
    found = reader.format_of(first)
    if reader.grouped(found):
        return True
    return part is source and may_be_sidecar(source, settings) and not is_format(found)
