"""Plain chat messages, one per line: `{role, content, tool_calls?}` with no conversation id.

A JSON Lines file of bare messages (OpenAI's shape, or Anthropic's content blocks) is a
conversation, not a heap of records: its lines are read in order as the messages of one
conversation, named by its first line (`path:line`), each message keeping its own line. A new
conversation starts at a `system` message that follows other messages, and at a user message
that asks again, word for word, what the conversation's first user message asked, after the
assistant gave a final answer (a text reply, no call waiting): the same task run again. Lines
with a session key (`session_id`, `thread_id`, …) are the session stream's (`stream`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from auditor.formats import anthropic, contract, exchange, openai, stream
from auditor.formats._common import (
    Problem,
    as_id,
    attach,
    fallback_id,
    positioned_by_line,
    read_each,
    text_of,
)
from auditor.model import Conversation, Location, Message
from auditor.sources import Record

NAME = "message-lines"
KIND = contract.JSON
DETECT_KEYS = frozenset(("role",))
sniff = contract.no_sniff
inferred = contract.no_inference
"""`detect` is false for a JSON object with none of these keys (`formats.FileReader`)."""


# Keys that make a record another format's: a session stream's line, or a container of messages
# or items (a conversation, an exchange, a trajectory).
_OTHERS = frozenset(
    (
        *stream.KEYS,
        "messages",
        "input",
        "output",
        "conversations",
        "history",
        "chat_history",
        "request",
        "response",
        "trajectory_format",
        "payload",
    )
)


def detect(record: Record) -> bool:
    value = record.value
    if type(value) is not dict or type(value.get("role")) is not str:
        return False
    return (
        ("content" in value or "tool_calls" in value or "function_call" in value)
        and (_OTHERS.isdisjoint(value) or not _claimed(value))
        and not exchange.is_response(value)
    )


def _claimed(value: dict) -> bool:
    """A container key holds a container, or a session key an id: another format's record."""
    return any(k in value and as_id(value[k]) for k in stream.KEYS) or any(
        isinstance(value.get(k), list | dict) for k in _OTHERS.difference(stream.KEYS)
    )


def parse(record: Record) -> Iterator[Conversation | Problem]:
    return contract.collected(Collector(), record)


_RESTARTING = frozenset(("system", "user"))
"""The roles of a line that may start another conversation (`_Lines.restarts`)."""


class Collector(contract.Collector):
    """The conversations of one file's message lines, one at a time."""

    def __init__(self, reread: contract.Reread | None = None) -> None:
        self._current: _Lines | None = None

    def add(self, record: Record) -> Iterator[Conversation | Problem]:
        value, location = record.value, record.location
        current = self._current
        done: Iterable[Conversation | Problem] = ()  # most lines: no generator made
        if current is not None and value["role"] in _RESTARTING and current.restarts(value):
            done = list(self.finish())
            current = None
        if current is None:
            current = self._current = _Lines(location)
        current.add(value, location)
        if record.document is not None:  # a document is the whole file: nothing can follow
            done = [*done, *self.finish()]
        return iter(done)

    def finish(self) -> Iterator[Conversation | Problem]:
        current, self._current = self._current, None
        if current is not None:
            yield from read_each([(current, current.location)], _Lines.close)


class _Lines:
    """One conversation as its lines arrive."""

    def __init__(self, location: Location) -> None:
        self.id = fallback_id(location)
        self.location = location
        self.problems: list[Problem] = []
        self.messages: list[Message] = []
        self.task: str | None = None  # the first user message
        self.waiting: set[str] = set()  # calls without a result yet
        self.answered = False  # the last assistant turn is a final answer

    def restarts(self, value: dict) -> bool:
        """The line starts another conversation: a system prompt after messages, or the first
        user message again after a final answer."""
        role = value["role"]
        if role == "system":
            return any(m.role != "system" for m in self.messages)
        if role != "user" or not self.answered or self.task is None:
            return False
        return _same(text_of(value.get("content")), self.task)

    def add(self, value: dict, here: Location) -> None:
        content = value.get("content")
        if content is None or type(content) is str:  # most lines: OpenAI's, without drafts
            message = openai.message(value, len(self.messages), here, self.problems)
            if message.text.isspace():
                message.text = ""  # as a draft leaves it
            self._took(message)
            return
        drafts = anthropic.read_message(value, here, self.problems)
        for draft in drafts:
            self._took(draft.freeze(len(self.messages)))

    def _took(self, message: Message) -> None:
        role, result, calls = message.role, message.result, message.tool_calls
        if role == "user" and result is None and self.task is None:
            self.task = message.text
        if result is not None and result.call_id is not None:
            self.waiting.discard(result.call_id)
        for call in calls:
            if call.id is not None:
                self.waiting.add(call.id)
        if role == "assistant":
            self.answered = bool(message.text) and not calls and not self.waiting
        self.messages.append(message)

    def close(self, _: Location) -> Iterator[Conversation | Problem]:
        yield from attach(self.problems, self.id)
        if self.messages:
            messages = positioned_by_line(tuple(self.messages))
            yield Conversation(self.id, NAME, self.location, messages)


def _same(a: str, b: str) -> bool:
    return " ".join(a.split()) == " ".join(b.split())
