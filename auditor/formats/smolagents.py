"""smolagents decentralized teams: the message bus, one message per line (`messages.jsonl`).

A line is `{id, timestamp, sender, type, content, recipients, thread_id, reply_to}`; the file is
one run of the team, read as one conversation in line order whatever the thread. `task` (sent
by `system`) is the user's request; every agent's `channel_message`, `private_message`, `poll`
(a proposed final answer: its `proposal`), `vote` (`YES`/`NO`, confidence and rationale) is an
assistant turn named by its sender; `final_answer` is the coordinator's verdict, the team's
answer. A poll posted again with a poll id already seen is the bus updating its status, not a
new message; `channel_created` lines are bookkeeping. The members' own steps (their tool calls)
are not on the bus: a run has no tool calls here.

The run's `run.log` (events with message previews) and the benchmark's `results_*.jsonl`
(answers only) hold no transcript: see `_companions`.
"""

from __future__ import annotations

from collections.abc import Iterator

from auditor.formats import contract
from auditor.formats._common import (
    Problem,
    as_id,
    attach,
    fallback_id,
    json_text,
    positioned_by_line,
)
from auditor.model import Conversation, Location, Message
from auditor.sources import Record

NAME = "smolagents"
KIND = contract.JSON
DETECT_KEYS = frozenset(("sender",))
sniff = contract.no_sniff
inferred = contract.no_inference
"""`detect` is false for a JSON object with none of these keys (`formats.FileReader`)."""
TYPES = frozenset(
    (
        "task",
        "channel_message",
        "private_message",
        "poll",
        "vote",
        "final_answer",
        "channel_created",
    )
)
_SPOKEN = frozenset(("channel_message", "private_message"))


def detect(record: Record) -> bool:
    value = record.value
    return (
        isinstance(value, dict)
        and isinstance(value.get("sender"), str)
        and value.get("type") in TYPES
        and "recipients" in value
    )


def parse(record: Record) -> Iterator[Conversation | Problem]:
    return contract.collected(Collector(), record)


class Collector(contract.Collector):
    """The lines of one run, read as they come."""

    def __init__(self, reread: contract.Reread | None = None) -> None:
        self._messages: list[Message] = []
        self._polls: set[str] = set()
        self._location: Location | None = None
        self._problems: list[Problem] = []

    def add(self, record: Record) -> Iterator[Conversation | Problem]:
        value, location = record.value, record.location
        if self._location is None:
            self._location = location
        turn = self._turn(value)
        if turn is not None:  # one text a turn: the message is built here, with no draft
            role, text, name = turn
            messages = self._messages
            text = "" if text.isspace() else text  # as freezing a draft leaves it
            messages.append(Message(len(messages), role, text, location, name=name))
        return iter(())

    def _turn(self, value: dict) -> tuple[str, str, str | None] | None:
        """(role, text, sender) of the line's turn; None for a line that holds none."""
        kind, sender, content = value["type"], value["sender"], value.get("content")
        if kind in _SPOKEN:  # most lines
            return "assistant", _text(content), sender
        if kind == "task":
            return "user", _text(content), None
        if kind == "channel_created":
            return None
        body = content if isinstance(content, dict) else {}
        if kind == "poll":
            poll = as_id(body.get("poll_id"))
            if poll is not None and poll in self._polls:
                return None  # the bus re-posting a poll with its new status
            if poll is not None:
                self._polls.add(poll)
            text = f"{body.get('question', '')}\n{_text(body.get('proposal'))}".strip()
        elif kind == "vote":
            text = (
                f"{body.get('vote', '')} (confidence {body.get('confidence', '?')}): "
                f"{_text(body.get('rationale'))}"
            )
        else:  # final_answer
            text = _text(body.get("answer")) if body else _text(content)
        return "assistant", text, sender

    def finish(self) -> Iterator[Conversation | Problem]:
        messages, self._messages = self._messages, []
        self._polls = set()
        location, self._location = self._location, None
        if location is None:
            return
        cid = fallback_id(Location(location.path))
        yield from attach(self._problems, cid)
        yield Conversation(cid, NAME, location, positioned_by_line(tuple(messages)))


def _text(value: object) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json_text(value)
