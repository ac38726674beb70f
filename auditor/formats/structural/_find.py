"""Where a JSON value holds transcripts: its lists of message-like objects, at any depth.

One walk over the value, each node once (`_NODES` at most, `_DEPTH` deep), so a document four
times as large costs four times as much. A list whose items are nearly all message-like is a
candidate and is not walked into. Then, among candidates that are items of one list: a list
that repeats the start of a longer one is left out (ToolBench keeps every step's prefix of
the conversation in `train_messages`), and steps are joined: the lists of a list of `{messages}`
objects each but the first of which opens with an assistant's turn or a result.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from auditor.formats._common import ID_KEYS, MessageDraft, own_id
from auditor.formats.structural._read import Reading, read_items, role
from auditor.model import Location

_NODES = 200_000
_DEPTH = 14
_SHARE = 0.8
"""Of the objects of a list, the share that must be message-like for it to be messages."""


@dataclass
class Candidate:
    """A list of message-like objects, where it is, and what holds it."""

    items: list
    path: tuple
    parent: Any
    """The list or object the list is an item or a value of."""
    owner: dict | None
    """The nearest object above the list: the tools it declares are the conversation's."""


@dataclass
class Unit:
    """One conversation found: its messages read, how, where, and the object holding it."""

    drafts: list[MessageDraft]
    reading: Reading
    location: Location
    container: dict | None
    own_id: str | None = None
    passed_over: int = 0

    def transcript(self) -> bool:
        """Whether it is a conversation at all: a user's and an assistant's words, or a call
        answered by its result."""
        user = assistant = False
        for d in self.drafts:
            if d.role == "user" and d.text.strip():
                user = True
            elif d.role == "assistant" and (d.text.strip() or d.calls):
                assistant = True
        return (user and assistant) or self.reading.paired > 0


def units(value: Any, location: Location) -> list[Unit]:
    """The conversations `value` (a record at `location`) holds, in document order."""
    found = _candidates(value)
    if not found:
        return []
    found = _final_attempts(found)
    out: list[Unit] = []
    steps: dict[tuple, list[Candidate]] = {}
    for c in found:
        path = c.path
        if len(path) >= 2 and type(path[-1]) is str and type(path[-2]) is int:
            steps.setdefault((*path[:-2], path[-1]), []).append(c)
    joined: set[int] = set()
    for group in steps.values():
        if len(group) < 2:
            continue
        if not all(_continues(c.items) for c in group[1:]):
            continue  # each opens with a user's or the system's words: conversations, not steps
        together = _joined(group, location)
        if together.transcript():
            out.append(together)
            joined.update(id(c.items) for c in group)
    for c in found:
        if id(c.items) in joined:
            continue
        unit = _unit(c, location)
        if unit.transcript():
            out.append(unit)
    out.sort(key=lambda u: u.location.pointer)
    return out


def _unit(c: Candidate, location: Location) -> Unit:
    here = location.child(*c.path)
    reading = Reading()
    drafts, _ = read_items([(item, here.child(i)) for i, item in enumerate(c.items)], reading)
    cid = own_id(c.parent, *ID_KEYS) if type(c.parent) is dict else None
    return Unit(drafts, reading, here, c.owner, cid)


def _joined(group: list[Candidate], location: Location) -> Unit:
    reading = Reading()
    pairs: list[tuple[Any, Location]] = []
    for c in group:
        here = location.child(*c.path)
        pairs.extend((item, here.child(i)) for i, item in enumerate(c.items))
    drafts, _ = read_items(pairs, reading)
    first = group[0]
    return Unit(drafts, reading, location.child(*first.path[:-2]), first.owner)


def _continues(items: list) -> bool:
    """The list opens with an assistant's turn or a result: it continues what came before."""
    for item in items:
        found = role(item)
        if found is not None:
            return found[0] in ("assistant", "tool", "call")
    return False


def _candidates(value: Any) -> list[Candidate]:
    """Each list of message-like objects, in document order."""
    out: list[Candidate] = []
    stack: list[tuple[Any, tuple, Any, dict | None]] = [(value, (), None, None)]
    visited = 0
    while stack and visited < _NODES:
        node, path, parent, owner = stack.pop()
        visited += 1
        if type(node) is list:
            if _messages(node):
                out.append(Candidate(node, path, parent, owner))
                continue
            if len(path) < _DEPTH:
                stack.extend(
                    (node[i], (*path, i), node, owner)
                    for i in range(len(node) - 1, -1, -1)
                    if type(node[i]) in (list, dict)
                )
        elif type(node) is dict and len(path) < _DEPTH:
            stack.extend(
                (v, (*path, k), node, node)
                for k, v in reversed(node.items())
                if type(v) in (list, dict) and type(k) is str
            )
    return out


def _messages(items: list) -> bool:
    objects = roled = 0
    for item in items:
        if item is None:
            continue
        if type(item) is not dict:
            return False
        objects += 1
        if role(item) is not None:
            roled += 1
        elif objects >= 3 and not roled:
            return False  # three objects of no role: not messages, whatever follows
    return roled >= 2 and roled >= _SHARE * objects


def _final_attempts(found: list[Candidate]) -> list[Candidate]:
    """The candidates, less each that opens as a later one held by the same list does: the
    attempts at one task (ToolBench's `train_messages`, one per branch of its search, each
    repeating the system and user messages) are read as the last, the answer given."""
    by_parent: dict[int, list[Candidate]] = {}
    for c in found:
        if type(c.parent) is list and len(c.items) >= 2:
            by_parent.setdefault(id(c.parent), []).append(c)
    if not any(len(group) > 1 for group in by_parent.values()):
        return found
    dropped: set[int] = set()
    for group in by_parent.values():
        for i, c in enumerate(group):
            if any(later.items[:2] == c.items[:2] for later in group[i + 1 :]):
                dropped.add(id(c.items))
    return [c for c in found if id(c.items) not in dropped]
