"""Gemini CLI: its chat recordings and its `--output-format stream-json` event lines.

Both as google-gemini/gemini-cli writes them (`packages/core/src/services/
chatRecordingService.ts`, `docs/cli/headless.md`):

- A chat recording (`~/.gemini/tmp/<project>/chats/session-*.json`) is one JSON document
  `{sessionId, projectHash, startTime, lastUpdated, messages: [...]}`. A message is typed
  `user` or `gemini` (`info`, `error` and `warning` are the CLI's own notices, no turn); its
  `content` is a string or a list of parts. A `gemini` message's `thoughts` (`subject`,
  `description`) are its reasoning, and each of its `toolCalls` (`id`, `name`, `args`,
  `status`, `result`: the `functionResponse` parts sent back to the model, `resultDisplay`:
  what the user saw) is a call answered right after it: the response's `output`, else its
  `error`, else the displayed text; a status of `error` or `cancelled` makes it an error, and
  so does the shell tool's `Exit Code: N` (not 0) in an answer it reports as a success.
- Since 2026 the recording is also written as JSON Lines (`session-*.jsonl`): a metadata line
  (`sessionId`, `projectHash`, `startTime`, …), then one message a line, written again whole
  each time it changes (the last write of an `id` wins: at its first place among the messages,
  at the line of that write), `{"$rewindTo":
  ID}` dropping that message and all after it, and `{"$set": {"messages": [...]}}` starting
  over from a checkpoint.
- A stream-json run is one event a line: `init` (`session_id`, `model`) opens a session,
  `message` (`role` `user` or `assistant`, `content`; `delta: true` chunks of one message are
  joined), `tool_use` (`tool_name`, `tool_id`, `parameters`) is a call of the assistant's
  current turn, `tool_result` (`tool_id`, `status`, `output`, `error.message`) its result,
  `error` a notice (no turn) and `result` the run's end. A file may hold several runs, each
  opened by its `init`.

Turns are the file's own places: the index in `messages` for a recording (its calls and
results at their message's), the event's line for a stream.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from auditor.common.patterns import lazy
from auditor.formats import contract
from auditor.formats._common import (
    MessageDraft,
    Problem,
    as_id,
    as_object,
    attach,
    fallback_id,
    freeze,
    json_text,
    positioned,
    positioned_by_line,
    result_draft,
    text_of,
    tool_call,
)
from auditor.model import Conversation, Location
from auditor.sources import Record

NAME = "gemini-cli"
KIND = contract.JSON
DETECT_KEYS = frozenset(("sessionId", "type", "$rewindTo", "$set"))
sniff = contract.no_sniff
inferred = contract.no_inference
EVENTS = frozenset(("init", "message", "tool_use", "tool_result", "error", "result"))
_TYPES = frozenset(("user", "gemini", "info", "error", "warning"))
_FAILED = frozenset(("error", "cancelled"))
_SESSION_KEYS = frozenset(("thread_id", "conversation_id", "sessionId", "trace_id", "uuid"))


def detect(record: Record) -> bool:
    value = record.value
    if not isinstance(value, dict):
        return False
    kind = value.get("type")
    if isinstance(kind, str):
        return (kind in EVENTS and _event(value, kind)) or _recorded(value)
    if isinstance(value.get("$rewindTo"), str) or isinstance(value.get("$set"), dict):
        return len(value) == 1
    if not isinstance(value.get("sessionId"), str):
        return False
    messages = value.get("messages")
    if messages is None:  # a recording's metadata line
        return "projectHash" in value and "startTime" in value
    return isinstance(messages, list) and (not messages or _recorded(messages[0]))


def _event(value: dict, kind: str) -> bool:
    """The keys each stream-json event has: every one a `timestamp` and none a session key
    beyond `init`'s (an Anthropic message body is `type: message` too, with a list of
    content blocks; a stream line of another writer carries its `thread_id`)."""
    if not isinstance(value.get("timestamp"), str) or not _SESSION_KEYS.isdisjoint(value):
        return False
    if kind == "init":
        return "session_id" in value and "model" in value
    if kind == "message":
        return isinstance(value.get("role"), str) and isinstance(value.get("content"), str)
    if kind == "tool_use":
        return "tool_name" in value and "tool_id" in value
    if kind == "tool_result":
        return "tool_id" in value and "status" in value
    if kind == "result":
        return "stats" in value or ("status" in value and "session_id" not in value)
    return "severity" in value and "message" in value  # error


def _recorded(message: Any) -> bool:
    """A recording's message: typed, with an id and content (a Claude Code line has a
    `message` and a `uuid` instead)."""
    return (
        isinstance(message, dict)
        and message.get("type") in _TYPES
        and "id" in message
        and "content" in message
        and "role" not in message
        and "message" not in message
    )


def parse(record: Record) -> Iterator[Conversation | Problem]:
    return contract.collected(Collector(), record)


class Collector(contract.Collector):
    """The recordings and stream-json runs of one file."""

    def __init__(self, reread: contract.Reread | None = None) -> None:
        self._run: _Run | None = None
        self._log: _Log | None = None

    def add(self, record: Record) -> Iterator[Conversation | Problem]:
        value, location = record.value, record.location
        kind = value.get("type")
        if isinstance(kind, str) and kind in EVENTS and _event(value, kind):
            yield from self._finish_log()
            if kind == "init" and self._run is not None:
                yield from self._finish_run()
            if self._run is None:
                self._run = _Run(value, location)
            self._run.event(kind, value, location)
            if kind == "result":
                yield from self._finish_run()
            return
        yield from self._finish_run()
        if isinstance(value.get("messages"), list):  # a whole recording
            yield from self._finish_log()
            yield from _recording(value, location)
            return
        if self._log is None or (kind is None and "sessionId" in value and self._log.started):
            yield from self._finish_log()
            self._log = _Log(location)
        self._log.add(value, location)

    def finish(self) -> Iterator[Conversation | Problem]:
        yield from self._finish_run()
        yield from self._finish_log()

    def _finish_run(self) -> Iterator[Conversation | Problem]:
        run, self._run = self._run, None
        if run is not None:
            yield from run.finish()

    def _finish_log(self) -> Iterator[Conversation | Problem]:
        log, self._log = self._log, None
        if log is not None:
            yield from log.finish()


class _Log:
    """A recording written as JSON Lines: its metadata, then its messages by id."""

    def __init__(self, location: Location) -> None:
        self.location = location
        self.id: str | None = None
        self.messages: dict[str, tuple[dict, Location]] = {}
        self.started = False
        """A message was read: a metadata line now opens the next recording."""

    def add(self, value: dict, here: Location) -> None:
        if "$rewindTo" in value:
            # the message named and every later one go, from the end: a rewind costs what it
            # drops, not the whole recording (an unknown id drops them all)
            target = value["$rewindTo"]
            if not isinstance(target, str) or target not in self.messages:
                self.messages.clear()
            while self.messages:
                if self.messages.popitem()[0] == target:
                    break
        elif "$set" in value:
            reset = value["$set"].get("messages")
            if isinstance(reset, list):
                self.messages = {
                    str(m["id"]): (m, here) for m in reset if _recorded(m) and as_id(m["id"])
                }
        elif "type" in value:
            mid = as_id(value.get("id"))
            if mid is not None:
                self.messages[mid] = (value, here)  # a rewrite keeps its first place
                self.started = True
        else:
            self.id = self.id or as_id(value.get("sessionId"))

    def finish(self) -> Iterator[Conversation | Problem]:
        drafts = [d for m, here in self.messages.values() for d in _drafts(m, here)]
        if not drafts:
            return
        cid = self.id or fallback_id(self.location)
        messages = positioned_by_line(freeze(drafts))
        yield Conversation(cid, NAME, self.location, messages, own_id=self.id is not None)


class _Run:
    """One stream-json run, as its events arrive."""

    def __init__(self, first: dict, location: Location) -> None:
        self.id = as_id(first.get("session_id")) or fallback_id(location)
        self.own = as_id(first.get("session_id")) is not None
        self.location = location
        self.drafts: list[MessageDraft] = []
        self.open: MessageDraft | None = None  # the message its `delta` chunks extend
        self.problems: list[Problem] = []

    def event(self, kind: str, value: dict, here: Location) -> None:
        if kind == "message":
            role = "assistant" if value["role"] in ("assistant", "model", "gemini") else "user"
            text = text_of(value.get("content"))
            if value.get("delta") is True and self.open is not None and self.open.role == role:
                self.open.texts[-1] += text
                return
            self.open = MessageDraft(role, here, [text])
            self.drafts.append(self.open)
            if value.get("delta") is not True:
                self.open = None
        elif kind == "tool_use":
            call = tool_call(
                value.get("tool_id"), value.get("tool_name"), value.get("parameters"), here
            )
            turn = self._turn(here)
            turn.calls.append(call)
        elif kind == "tool_result":
            error = as_object(value.get("error"))
            text = json_text(value.get("output") or "") or str(error.get("message") or "")
            failed = value.get("status") != "success" or _exited(text)
            if failed and error.get("message") and not text.strip():
                text = str(error["message"])
            self.drafts.append(result_draft(value.get("tool_id"), text, here, failed))
            self.open = None

    def _turn(self, here: Location) -> MessageDraft:
        """The assistant's current turn: its last message when nothing answered it yet."""
        last = self.drafts[-1] if self.drafts else None
        if last is None or last.role != "assistant" or any(d.result for d in self.drafts[-1:]):
            last = MessageDraft("assistant", here)
            self.drafts.append(last)
        self.open = None
        return last

    def finish(self) -> Iterator[Conversation | Problem]:
        yield from attach(self.problems, self.id)
        if self.drafts:
            messages = positioned_by_line(freeze(self.drafts))
            yield Conversation(self.id, NAME, self.location, messages, own_id=self.own)


def _recording(value: dict, location: Location) -> Iterator[Conversation | Problem]:
    """A chat recording's conversation."""
    drafts: list[MessageDraft] = []
    problems: list[Problem] = []
    here = location.child("messages")
    for i, message in enumerate(value.get("messages") or ()):
        at = here.child(i)
        if not isinstance(message, dict):
            problems.append(Problem(at, "expected a Gemini CLI message object"))
            continue
        drafts.extend(_drafts(message, at))
    cid = as_id(value.get("sessionId")) or fallback_id(location)
    yield from attach(problems, cid)
    messages = positioned(freeze(drafts), location, ("messages",))
    yield Conversation(
        cid, NAME, location, messages, own_id=as_id(value.get("sessionId")) is not None
    )


def _drafts(message: dict, at: Location) -> Iterator[MessageDraft]:
    """A recorded message's turns: a user's, or the model's with its calls' results; the CLI's
    own notices (`info`, `error`, `warning`) hold none."""
    kind = message.get("type")
    if kind == "user":
        yield MessageDraft("user", at, [text_of(message.get("content"))])
    elif kind == "gemini":
        yield from _model_turn(message, at)


def _model_turn(message: dict, at: Location) -> Iterator[MessageDraft]:
    thoughts = [
        f"{t.get('subject', '')}: {t.get('description', '')}".strip(": ")
        for t in message.get("thoughts") or ()
        if isinstance(t, dict)
    ]
    turn = MessageDraft("assistant", at, [text_of(message.get("content"))], thoughts)
    results = []
    for j, record in enumerate(message.get("toolCalls") or ()):
        if not isinstance(record, dict):
            continue
        where = at.child("toolCalls", j)
        turn.calls.append(
            tool_call(record.get("id"), record.get("name"), record.get("args"), where)
        )
        answer = _answer(record)
        failed = record.get("status") in _FAILED or _exited(answer)
        results.append(result_draft(record.get("id"), answer, where, failed, record.get("name")))
    yield turn
    yield from results


_EXIT = lazy(r"^Exit Code: (-?\d+)$", re.M)


def _exited(text: str) -> bool:
    """The shell tool's answer says its command failed: `run_shell_command` reports success
    for the call and writes the command's `Exit Code: N` (N not 0) in its output."""
    m = _EXIT.search(text) if "Exit Code:" in text else None
    return m is not None and m.group(1) != "0"


def _answer(record: dict) -> str:
    """What the tool answered: the `functionResponse` sent to the model (its `output`, else its
    `error`, else the whole response), else the text parts of `result` (a `PartListUnion`: parts,
    strings or `{"text": …}`), else what the user was shown."""
    parts = record.get("result")
    texts = []
    for part in parts if isinstance(parts, list) else [parts]:
        if isinstance(part, str):
            texts.append(part)
            continue
        response = as_object(as_object(as_object(part).get("functionResponse")).get("response"))
        for key in ("output", "error"):
            if response.get(key) not in (None, ""):
                return json_text(response[key])
        if response:
            return json_text(response)
        if isinstance(as_object(part).get("text"), str):
            texts.append(as_object(part)["text"])
    if any(texts):
        return "\n".join(texts)
    shown = record.get("resultDisplay")
    return shown if isinstance(shown, str) else json_text(shown or "")
