"""What a completion claim says was done: the values of its clause, read as CF001 reads them.

FB007 compares them with the calls that did the action. A claim states the values its own
clause names (`values.in_text`: amounts, dates, payment methods, flight numbers, e-mail
addresses, ids), the files it names (`report.pdf`), and the new value of a setting it quotes
("the password has been changed to 'Tr0ub4dor'"). Values written as what was there before
("changed from HAT001", "instead of May 20") are not what was done and are left out, as are
counts ("2 bags have been added" says nothing of whether the call sent the total or the bags
added).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from auditor.common.patterns import lazy
from auditor.reading.values import Argument, Value, in_arguments, in_text, leaves

_BEFORE = lazy(
    r"\b(?:from|instead of|rather than|replacing|replaced|previous(?:ly)?|original(?:ly)?|old"
    r"|was|were|formerly|no longer)\W+(?:[\w-]+\W+){0,2}$",
    re.I,
)
_FILE = lazy(
    r"(?<![\w./-])[\w-]{1,80}(?:\.[\w-]{1,40}){0,3}\.(?i:pdf|docx?|xlsx?|csv|txt|pptx?|png|jpe?g"
    r"|gif|md|json|ya?ml|zip|html?|py|js|ts|odt|rtf|mp3|mp4|wav)\b"
)
_SETTING = lazy(
    r"\b(?:to|as)\s+(?:[\"'`](?P<q>[^\"'`\n]{1,100})[\"'`]|[“‘](?P<c>[^”’\n]{1,100})[”’])"
)
SETTING_VERBS = frozenset(("update", "change", "set", "reset", "modify", "edit", "rename"))
"""Verbs of a claim whose quoted `to '…'` is the new value of what it changed."""
_KINDS = frozenset(
    ("money", "date", "birthdate", "payment", "flight", "email", "id", "code", "handle")
)


def stated(clause: str, verb: str) -> list[Value]:
    """The values the claim's clause states were acted on, in order of kind."""
    files = [m.group() for m in _FILE.finditer(clause)]
    found = [
        v
        for v in in_text(clause)
        if v.kind in _KINDS
        and not _earlier(clause, v.text)
        and not any(v.text in f for f in files)  # `report_2024` of `report_2024.pdf`
    ]
    found += [Value("file", f.lower(), f) for f in files if not _earlier(clause, f)]
    if verb in SETTING_VERBS:
        for m in _SETTING.finditer(clause):
            literal = (m["q"] or m["c"]).strip()
            if literal:
                found.append(Value("setting", literal.casefold(), literal))
    return found


def _earlier(clause: str, text: str) -> bool:
    """The value is written as what was there before: "changed from `HAT001`"."""
    at = clause.find(text)
    return at > 0 and _BEFORE.search(clause, max(0, at - 40), at) is not None


def sent(arguments: Any) -> Iterator[Argument]:
    """The values a call's arguments carry (`values.in_arguments`), and each string that names
    a file, as a `file` value of its last path part."""
    yield from in_arguments(arguments)
    for path, _, leaf in leaves(arguments):
        if not isinstance(leaf, str):
            continue
        name = leaf.replace("\\", "/").rstrip("/").rpartition("/")[2]
        if _FILE.fullmatch(name):
            yield Argument(path, Value("file", name.lower(), leaf))
