"""Tool names read as words: `update_reservation_flights`, `WebFetch`, `send-email`."""

from __future__ import annotations

import re

_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")

_READ_VERBS = """
    get search list find read fetch lookup calculate compute check view show query describe count
    grep glob ls
"""
READ_VERBS = frozenset(_READ_VERBS.split())
"""First words of tool names that say the tool only looks something up."""


def words(name: str) -> list[str]:
    """The words of a tool name, lowercased."""
    return [w.lower() for w in _WORDS.findall(name)]


def reads_only(name: str) -> bool:
    """The tool's name starts with a verb that only looks something up (`get_user`, `Grep`)."""
    first = words(name)[:1]
    return bool(first) and first[0] in READ_VERBS
