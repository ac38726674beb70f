"""The checks a policy can make: each a pure function of the replayed conversation.

- `require-before`: a successful call matching `call` needs an earlier successful call of a
  tool `before` names (with `same`, one with the same value of that argument);
- `forbid-call`: no call matching `call` (tool globs and a `where` on its arguments);
- `max-calls`: at most `most` calls matching `call` per conversation (`per = "user-turn"`:
  between two messages of the user);
- `grounded-argument`: the value of `argument` in a call matching `call` was given before it,
  in a system, developer or user message or a tool result (an identifier as FB004 reads one,
  in any of its written forms; other text as it is written, in any case);
- `forbid-text`: no assistant message to the user whose text `pattern` (a regular expression)
  matches.

Each yields the policy's finding at the call or the message, with the values its message
template names (`FIELDS`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from auditor.findings import Violation, excerpt
from auditor.policies.calls import Calls
from auditor.reading import identifiers

if TYPE_CHECKING:
    from auditor.replay import Exchange, Replay

Fields = dict[str, Any]
Check = Callable[["Replay", dict[str, Any]], Iterator[tuple["Exchange | None", int, Fields]]]
"""A check: for a replay and the policy's parameters, each (call, message index, fields) that
breaks the policy; the call is None for a finding about a message's text."""


def require_before(
    replay: Replay, p: dict[str, Any]
) -> Iterator[tuple[Exchange | None, int, Fields]]:
    calls: Calls = p["call"]
    before: Calls = p["before"]
    same: str | None = p.get("same")
    done: set[str] = set()  # the values of `same` (or "" without it) an earlier call had
    for e in replay.exchanges:
        ok = e.result is not None and not e.failed
        if calls.match(e) and ok:
            value = (_value(e.call.arguments, same) or "") if same else ""
            if value not in done:
                yield e, e.turn, {"before": str(before), "same": same or "", "value": value}
        if ok and e.caller == "assistant" and before.names(e.call.name):
            done.add((_value(e.call.arguments, same) or "") if same else "")


def forbid_call(replay: Replay, p: dict[str, Any]) -> Iterator[tuple[Exchange | None, int, Fields]]:
    calls: Calls = p["call"]
    for e in replay.exchanges:
        if calls.match(e):
            yield e, e.turn, {}


def max_calls(replay: Replay, p: dict[str, Any]) -> Iterator[tuple[Exchange | None, int, Fields]]:
    calls: Calls = p["call"]
    most: int = p["most"]
    per_turn = p.get("per") == "user-turn"
    users = [m.index for m in replay.conversation.messages if m.role == "user"]
    counted: dict[int, int] = {}  # the user turn (or 0) -> calls matched since
    at = 0
    for e in replay.exchanges:
        if not calls.match(e):
            continue
        while per_turn and at < len(users) and users[at] < e.turn:
            at += 1
        key = at if per_turn else 0
        counted[key] = count = counted.get(key, 0) + 1
        if count == most + 1:  # once, at the first call past the limit
            per = "user turn" if per_turn else "conversation"
            yield e, e.turn, {"count": count, "most": most, "per": per}


def grounded_argument(
    replay: Replay, p: dict[str, Any]
) -> Iterator[tuple[Exchange | None, int, Fields]]:
    calls: Calls = p["call"]
    argument: str = p["argument"]
    given: _Given | None = None  # read once per conversation, for every rule that asks
    for e in replay.exchanges:
        if not calls.match(e):
            continue
        value = _value(e.call.arguments, argument)
        if value is None or not value.strip():
            continue
        given = given or replay.shared("policies.given", _Given)
        if not given.grounds(value.strip(), e.turn):
            yield e, e.turn, {"argument": argument, "value": value}


def forbid_text(replay: Replay, p: dict[str, Any]) -> Iterator[tuple[Exchange | None, int, Fields]]:
    pattern: re.Pattern[str] = p["pattern"]
    for turn in replay.turns:
        message = turn.message
        if message.role != "assistant" or message.tool_calls or not message.text:
            continue  # words beside a call are for the harness, not the user
        m = pattern.search(message.text)
        if m is not None:
            yield None, message.index, {"text": excerpt(m.group(), 80)}


CHECKS: dict[str, tuple[Check, tuple[str, ...], str]] = {
    "require-before": (
        require_before,
        ("before", "same", "value"),
        "`{tool}` ran at turn {turn} with no successful call of {before} before it",
    ),
    "forbid-call": (forbid_call, (), "`{tool}` was called with {arguments}, which {name} forbids"),
    "max-calls": (
        max_calls,
        ("count", "most", "per"),
        "`{tool}` was called {count} times in one {per}: {name} allows {most}",
    ),
    "grounded-argument": (
        grounded_argument,
        ("argument", "value"),
        "`{tool}` was called with `{argument}` = `{value}`, which no user turn, system prompt or "
        "tool result gave before",
    ),
    "forbid-text": (
        forbid_text,
        ("text",),
        "the assistant wrote `{text}` to the user, which {name} forbids",
    ),
}
"""Each check: its function, the fields its message template may name beyond `COMMON`, and its
default message."""
COMMON = ("code", "name", "tool", "turn", "arguments")


def run(
    check: str, replay: Replay, params: dict[str, Any], template: str, ids: Fields
) -> Iterator[Violation]:
    """The findings of one policy on a replay."""
    function = CHECKS[check][0]
    for exchange, index, fields in function(replay, params):
        message = replay.conversation.messages[index]
        tool = exchange.call.name if exchange is not None else None
        arguments = _shown(exchange.call.arguments) if exchange is not None else ""
        values = {**ids, "tool": tool or "", "turn": replay.at(index), "arguments": arguments}
        values.update(fields)
        location = message.location
        if exchange is not None and exchange.call.location is not None:
            location = exchange.call.location
        yield Violation(
            template.format_map(values),
            index,
            location,
            tool=tool,
            call_id=exchange.call.id if exchange is not None else None,
            evidence=f"{tool}({arguments})"
            if exchange is not None
            else str(fields.get("text", "")),
        )


def _value(arguments: Any, path: str | None) -> str | None:
    """The argument at a dotted path (`passenger.email`), as text; None when there is none."""
    if path is None:
        return None
    value = arguments
    for key in path.split("."):
        if not isinstance(value, dict) or key not in value:
            return None
        value = value[key]
    if value is None or isinstance(value, dict | list):
        return None if value is None else _shown(value)
    return str(value)


def _shown(value: Any) -> str:
    try:
        return excerpt(json.dumps(value, ensure_ascii=False, sort_keys=True), 160)
    except (TypeError, ValueError):
        return excerpt(str(value), 160)


class _Given:
    """What each system, developer and user message and each tool result of a conversation
    gave, and where first: identifiers by the forms FB004 indexes them under, other text as
    written, in lower case. Read once per conversation (`Replay.shared`), whatever rules ask."""

    def __init__(self, replay: Replay) -> None:
        self.first: dict[str, int] = {}  # a key -> the first message that gave it
        self.texts: list[tuple[int, str]] = []  # (message, text)
        self._phones: dict[str, int] | None = None
        for m in replay.conversation.messages:
            if m.result is not None:
                text = m.result.text
            elif m.role in ("system", "developer", "user"):
                text = m.text
            else:
                continue
            self.texts.append((m.index, text))
            keys: set[str] = set()
            identifiers.index(keys, text, False)
            for key in keys:
                self.first.setdefault(key, m.index)

    def grounds(self, value: str, turn: int) -> bool:
        """Some message before `turn` gave the value."""
        sort = identifiers.kind(value)
        if sort is not None:
            forms = identifiers.lookups(value, sort)
            first = self.first if sort != "phone number" else self.phones()
            return any(first.get(form, turn) < turn for form in forms)
        wanted = value.lower()
        return any(at < turn and wanted in text.lower() for at, text in self.texts)

    def phones(self) -> dict[str, int]:
        """`first`, and the digits of phone numbers written with spaces or brackets: read
        only when a value is a phone number."""
        if self._phones is None:
            self._phones = dict(self.first)
            for at, text in self.texts:
                keys: set[str] = set()
                identifiers.index(keys, text, True)
                for key in keys:
                    self._phones.setdefault(key, at)
        return self._phones
