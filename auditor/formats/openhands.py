"""OpenHands agent-SDK (V1) events: `{id, timestamp, source, kind: …Event, …}`.

Three containers: a conversation folder with one event per file (`events/event-NNNNN-<id>.json`,
read as one source, `auditor.sources.events`), a JSON Lines file of events (`events.jsonl`), both
one conversation named by its folder or file; and benchmark records `{instance_id, instruction,
history: [events], …}`, one conversation each, named by `instance_id`, whose task is
`instruction` when no user message of the history holds it.

- `SystemPromptEvent`: the system prompt, and the tools declared to the model;
- `MessageEvent`: `llm_message{role, content[{type: text, text}]}`, the user's words (also the
  critic's automatic follow-ups) or the agent's;
- `ActionEvent`: a call: `tool_name`, `tool_call_id`, `tool_call.arguments` as the model sent them
  (else the parsed `action`), with `thought[]` as the assistant's text and `reasoning_content`
  as its reasoning; the actions of one model response (`llm_response_id`) make one turn;
- `ObservationEvent`: the result of the call named by `tool_call_id`: `observation.content`, an
  error when `observation.is_error` says so or its `exit_code` is not 0 (or, where that is
  null, the terminal's `metadata.exit_code`, -1 meaning still running). Before the SDK's 1.0
  (2025-11) an observation had no `content` or `is_error`: its text was `output`, and `error`
  said it failed (a flag for the terminal; for the file editor and the browser the message,
  which the model saw instead of `output`, or null);
- `AgentErrorEvent`: an error result for the call it names (`tool_call_id`, `error`); when the
  log holds no such call (it failed validation before it became an action), the error stays a
  user turn from `environment`, as the model was shown it;
- `UserRejectObservation`: the person refused the call (`rejection_reason`): its result, with
  a denied approval, as a Claude Code rejection is read;
- `ConversationStateUpdateEvent`, `PauseEvent`, condensations and the like hold no turn.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from auditor.formats import contract
from auditor.formats._common import (
    MessageDraft,
    Problem,
    as_id,
    attach,
    excerpt_json,
    freeze,
    positioned,
    positioned_by_line,
    read_each,
    result_draft,
    text_of,
    tool_call,
    tool_specs,
)
from auditor.model import ApprovalDecision, Conversation, Location, ToolSpec
from auditor.sources import Record
from auditor.sources.events import EVENT_FILE

NAME = "openhands"
KIND = contract.JSON
DETECT_KEYS = frozenset(("kind", "history"))
sniff = contract.no_sniff
inferred = contract.no_inference
"""`detect` is false for a JSON object with none of these keys (`formats.FileReader`)."""
_EVENT_KINDS = ("Event", "Observation")


def detect(record: Record) -> bool:
    value = record.value
    if not isinstance(value, dict):
        return False
    if is_event(value):
        return True
    history = value.get("history")
    if not isinstance(history, list):
        return False
    if not history:
        # A benchmark record of a run that logged no event (it failed to start): read as a
        # conversation with no messages, so it is counted, not an unknown record.
        return "instance_id" in value and "instruction" in value
    return is_event(history[0])


def is_event(value: Any) -> bool:
    """An SDK event: a `kind` naming an event or observation class, and a `source`."""
    if not isinstance(value, dict):
        return False
    kind = value.get("kind")
    source = value.get("source")
    return isinstance(kind, str) and kind.endswith(_EVENT_KINDS) and isinstance(source, str)


def parse(record: Record) -> Iterator[Conversation | Problem]:
    collector = Collector()
    yield from collector.add(record)
    yield from collector.finish()


class Collector(contract.Collector):
    """The events of one file, or of one folder of event files, joined into a conversation."""

    def __init__(self, reread: contract.Reread | None = None) -> None:
        self._open: dict[str, _Events] = {}

    def add(self, record: Record) -> Iterator[Conversation | Problem]:
        value, location = record.value, record.location
        if "history" in value and "kind" not in value:  # a benchmark record: one conversation
            return _record(value, location)
        key = _conversation_of(location)
        opened = self._open.get(key)
        if opened is None:
            opened = self._open[key] = _Events(None, Location(key), fallback=key)
        opened.add(value, location)
        return iter(())  # an event a line: no generator made for each

    def finish(self) -> Iterator[Conversation | Problem]:
        opened, self._open = self._open, {}
        yield from read_each(((e, e.location) for e in opened.values()), _Events.close)


def _record(value: dict, location: Location) -> Iterator[Conversation | Problem]:
    """A benchmark record's conversation."""
    events = _Events(as_id(value.get("instance_id")), location)
    events.listed = True
    here = location.child("history")
    for i, event in enumerate(value["history"]):
        if is_event(event):
            events.add(event, here.child(i))
        else:
            events.problems.append(
                Problem(
                    here.child(i),
                    "expected an OpenHands event",
                    evidence=excerpt_json(event),
                )
            )
    events.instruction(value.get("instruction"), location.child("instruction"))
    yield from read_each([(events, location)], _Events.close)


def _conversation_of(location: Location) -> str:
    """An event file's folder, or the JSON Lines file the event is a line of."""
    if location.line is None and EVENT_FILE.fullmatch(os.path.basename(location.path)):
        return os.path.dirname(location.path) or "."
    return location.path


class _Events:
    """One conversation as its events arrive."""

    def __init__(self, own: str | None, location: Location, fallback: str = "") -> None:
        self.id = own or fallback or location.path
        self.own = own is not None
        self.location = location
        self.problems: list[Problem] = []
        self.drafts: list[MessageDraft] = []
        self.tools: dict[str, ToolSpec] = {}
        self.calls: set[str] = set()
        self.turns: dict[str, MessageDraft] = {}  # model response id -> the turn of its actions
        self.first: Location | None = None
        self.listed = False
        """The events are a record's `history` list, not lines or files of their own."""

    def add(self, event: dict, here: Location) -> None:
        """One event (`is_event` holds for it)."""
        if self.first is None:
            self.first = here
        kind = event["kind"]
        if kind == "SystemPromptEvent":
            self.drafts.append(MessageDraft("system", here, [text_of(event.get("system_prompt"))]))
            for spec in _declared(event.get("tools")):
                self.tools.setdefault(spec.name, spec)
        elif kind == "MessageEvent":
            self.message(event, here)
        elif kind == "ActionEvent":
            self.action(event, here)
        elif kind == "ObservationEvent":
            self.observation(event, here)
        elif kind == "AgentErrorEvent":
            self.error(event, here)
        elif kind == "UserRejectObservation":
            self.rejection(event, here)

    def message(self, event: dict, here: Location) -> None:
        message = event.get("llm_message")
        if not isinstance(message, dict):
            self.problems.append(Problem(here, "message event has no `llm_message`"))
            return
        role = message.get("role")
        if not isinstance(role, str):
            role = "user" if event.get("source") == "user" else "assistant"
        draft = MessageDraft(role, here, [text_of(message.get("content"))])
        reasoning = message.get("reasoning_content")
        if isinstance(reasoning, str):
            draft.reasoning.append(reasoning)
        self.drafts.append(draft)

    def action(self, event: dict, here: Location) -> None:
        response = as_id(event.get("llm_response_id"))
        draft = self.turns.get(response) if response is not None else None
        if draft is None or self.drafts[-1] is not draft:
            draft = MessageDraft("assistant", here, [text_of(event.get("thought"))])
            reasoning = event.get("reasoning_content")
            if isinstance(reasoning, str):
                draft.reasoning.append(reasoning)
            self.drafts.append(draft)
            if response is not None:
                self.turns[response] = draft
        sent = event.get("tool_call")
        if isinstance(sent, dict) and "arguments" in sent:
            arguments, where = sent["arguments"], here.child("tool_call")
        else:
            action = event.get("action")
            arguments = (
                {k: v for k, v in action.items() if k != "kind"}
                if isinstance(action, dict)
                else None
            )
            where = here.child("action")
        call_id = as_id(event.get("tool_call_id"))
        draft.calls.append(tool_call(call_id, event.get("tool_name"), arguments, where))
        if call_id is not None:
            self.calls.add(call_id)

    def observation(self, event: dict, here: Location) -> None:
        observation = event.get("observation")
        if not isinstance(observation, dict):
            self.problems.append(Problem(here, "observation event has no `observation`"))
            return
        text = _observed(observation)
        result = result_draft(
            event.get("tool_call_id"), text, here, _failed(observation), event.get("tool_name")
        )
        self.drafts.append(result)

    def error(self, event: dict, here: Location) -> None:
        text = text_of(event.get("error"))
        call_id = as_id(event.get("tool_call_id"))
        if call_id is not None and call_id in self.calls:
            self.drafts.append(result_draft(call_id, text, here, True, event.get("tool_name")))
        else:  # a call that never became an action: the log does not keep it
            self.drafts.append(MessageDraft("user", here, [text], name="environment"))

    def rejection(self, event: dict, here: Location) -> None:
        call_id = as_id(event.get("tool_call_id"))
        reason = text_of(event.get("rejection_reason"))
        draft = result_draft(call_id, reason, here, False, event.get("tool_name"))
        draft.approval_decision = ApprovalDecision(call_id or "", False, None, reason)
        self.drafts.append(draft)

    def instruction(self, text: Any, here: Location) -> None:
        """A benchmark's task, when no user message of the history holds it."""
        if isinstance(text, str) and text and not any(d.role == "user" for d in self.drafts):
            at = next((i for i, d in enumerate(self.drafts) if d.role != "system"), 0)
            self.drafts.insert(at, MessageDraft("user", here, [text]))

    def close(self, _: Location) -> Iterator[Conversation | Problem]:
        yield from attach(self.problems, self.id)
        if not self.drafts:
            return
        first = self.first or self.location
        yield Conversation(
            self.id,
            NAME,
            Location(first.path, first.line),
            positioned(freeze(self.drafts), self.location, ("history",))
            if self.listed
            else positioned_by_line(freeze(self.drafts)),
            tools=tuple(self.tools.values()) or None,
            own_id=self.own,
        )


def _declared(tools: Any) -> tuple[ToolSpec, ...]:
    """The tools a system prompt declares: SDK tool objects name themselves in `title` and
    describe their arguments by class (`action_type`), not by schema."""
    if not isinstance(tools, list):
        return ()
    named = [
        {"name": t["title"], "description": t.get("description", "")}
        if isinstance(t, dict) and "name" not in t and isinstance(t.get("title"), str)
        else t
        for t in tools
    ]
    return tool_specs(named) or ()


def _observed(observation: dict) -> str:
    """What the model was shown: `content`; before 1.0 the `error` message, else `output`."""
    if "content" in observation:
        return text_of(observation["content"])
    error = observation.get("error")
    return error if isinstance(error, str) and error else text_of(observation.get("output"))


def _failed(observation: dict) -> bool | None:
    flagged = observation.get("is_error")
    code = observation.get("exit_code")
    metadata = observation.get("metadata")
    if code is None and isinstance(metadata, dict):
        # The terminal's own record ("[The command completed with exit code 1.]"), where the
        # observation leaves `exit_code` null; -1 is a command that has not exited.
        code = metadata.get("exit_code")
        if code == -1:
            code = None
    error = observation.get("error")  # before 1.0: a flag, or the message (null: none)
    if flagged is True or error is True or (isinstance(error, str) and error):
        return True
    if isinstance(code, int) and not isinstance(code, bool) and code != 0:
        return True
    said = flagged is False or error is False or ("error" in observation and error in (None, ""))
    return False if said else None
