"""Folders that keep one conversation as one event per file: one source for the folder.

OpenHands' agent SDK persists a conversation as `events/event-<NNNNN>-<event id>.json`, an event
a file, numbered in order. A walk that meets such files makes them one source of kind `events`
(`grouped` names them, in event order), and framing reads it as their records in that order,
each at its own path, so that the reader can join them into one conversation. A leaf.
"""

from __future__ import annotations

from collections.abc import Iterable

from auditor.common.patterns import lazy

EVENT_FILE = lazy(r"event-(\d{1,12})-[^/\\]{0,200}\.json")


def grouped(names: Iterable[str]) -> list[str]:
    """The event files among a folder's names, in event order; [] when there are none."""
    found = [(int(m.group(1)), name) for name in names if (m := EVENT_FILE.fullmatch(name))]
    return [name for _, name in sorted(found)]
