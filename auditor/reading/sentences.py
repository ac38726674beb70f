"""Where sentences end: one splitter for every reader of claims, facts and replies.

A sentence ends at `.`, `!` or `?` followed by white space or the end of the text (not the full
stop in `$2.00`, `e.g` or `v1.2`), or at a line's end: an answer's bullet list is a list of
sentences though none ends with a full stop. Readers look for ends within a bounded reach of a
place, so hostile text stays linear.
"""

from __future__ import annotations

from auditor.common.patterns import lazy

END = lazy(r"[.!?](?=\s|$)|\n")
"""A sentence's end: its mark (or the line's end), the white space after it not included."""
_END_IN_LINE = lazy(r"[.!?](?=\s|$)")


def last_end(text: str, start: int, stop: int, default: int) -> int:
    """Where a sentence starts that holds `stop`: just after the last end in `text[start:stop]`;
    `default` when there is none."""
    at = default
    for m in END.finditer(text, start, stop):
        at = m.end()
    return at


def next_end(text: str, start: int, stop: int) -> int | None:
    """Just after the first end in `text[start:stop]`; None when the sentence runs on."""
    m = END.search(text, start, stop)
    return m.end() if m is not None else None


def ends_between(text: str, start: int, stop: int, *, lines: bool = True) -> bool:
    """Some sentence ends in `text[start:stop]`; with `lines` False, a line's end is not one
    (a reply's "No\\nok, go ahead" is one sentence)."""
    return (END if lines else _END_IN_LINE).search(text, start, stop) is not None
