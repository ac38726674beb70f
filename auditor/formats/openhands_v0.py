"""OpenHands V0 event lists (before the agent SDK): `[{id, source, message, action | observation}]`.

Three containers: a bare list of events (`tests/runtime/trajs/*.json`), an evaluation record
`{instance_id, instruction, history: [events], test_result, metadata, …}` (one per line of an
`output.jsonl`, named by its `instance_id`), and the older resolver record `{issue,
instruction, git_patch, history, …}` whose events have no `id` or `source`.

An action event the model made carries `tool_call_metadata{function_name, tool_call_id,
model_response}`: it is a call of that function, with the arguments the model sent (read from
`model_response`, else the event's `args`) and `args.thought` as the assistant's text; actions
of one model response make one turn. Its observation names it in `cause` (`tool_call_metadata`
repeats the call id) and is its result. Whether it failed is read as OpenHands marks it
(`_failed`), the log's fields first:

- an `error` observation (OpenHands' `ErrorObservation`) is an error;
- a command (`run`): `success`, else its exit code (`extras.metadata.exit_code`; before 2025
  `extras.exit_code`, and the resolver's top-level `exit_code`) not 0;
- a browser page: its `extras.error`; an MCP tool: the `isError` of the JSON result it returns;
- the file editor (`read`, `edit` with `extras.impl_source` `oh_aci`): OpenHands has no field
  for its failures but writes each as `ERROR:\n` and the editor's message ("No replacement was
  performed, old_str … did not appear verbatim"); every other answer of the editor succeeded;
- an IPython cell (`run_ipython`): its `success` is true whatever happened, so only the text
  says: the editor skills' failures (`ERROR: …`, "[No exact match found in … for", "[Error
  editing file …") are errors; any other output is left to the text, as replay reads it;
- the edit linter refused the edit ("Your proposed edit has introduced new syntax error(s)",
  `swe_agent.REFUSAL`): an error, and the edit did not run.

An `error` observation without a `cause` answers a call the model wrote but OpenHands could not
turn into an action (its parameters failed validation): the log does not keep that call, so
the error stays a user turn from `environment`, as OpenHands showed it to the model.

`message` actions are the user's and the agent's words, `system` the system prompt; `finish`
ends the run without an observation, so it is the agent's last turn (its thought and
`final_thought`), not a call. Bookkeeping (`recall`, `change_agent_state`,
`agent_state_changed`, `null` observations) holds no turn. Resolver events pair by position:
each observation answers the action before it, a call named by its `action` (`run`,
`run_ipython`) with its `command` or `code`, and answered as above by its `observation` kind.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson

from auditor.common.patterns import lazy
from auditor.formats import contract
from auditor.formats._common import (
    MessageDraft,
    Problem,
    as_id,
    as_object,
    conversation,
    excerpt_json,
    freeze,
    positioned,
    result_draft,
    text_of,
    tool_call,
)
from auditor.formats.swe_agent import REFUSAL
from auditor.model import Conversation, Location
from auditor.sources import Record

NAME = "openhands-v0"
KIND = contract.JSON
DETECT_KEYS = None
sniff = contract.no_sniff
Collector = None
inferred = contract.no_inference
BOOKKEEPING = frozenset(
    ("recall", "change_agent_state", "agent_state_changed", "null", "condensation", "delegate")
)
# `args` keys that say how OpenHands ran an action, not what the model asked for.
_RUN_KEYS = frozenset(
    (
        "thought",
        "is_input",
        "blocking",
        "hidden",
        "confirmation_state",
        "impl_source",
        "translated_ipython_code",
        "keep_prompt",
        "is_confirmed",
        "action_risk",
        "security_risk",
        "kernel_init_code",
        "include_extra",
        "images_urls",
        "wait_for_response",
        "action",
    )
)


def detect(record: Record) -> bool:
    value = record.value
    if isinstance(value, list):
        return bool(value) and is_event(value[0])
    if not isinstance(value, dict) or not isinstance(value.get("history"), list):
        return False
    history = value["history"]
    first = history[0] if history else None
    if is_event(first):
        return True
    # the resolver's flattened events: `action`/`observation` strings, no id or source
    return (
        isinstance(first, dict)
        and isinstance(first.get("action") or first.get("observation"), str)
        and "role" not in first
        and ("instruction" in value or "issue" in value)
    )


def is_event(value: Any) -> bool:
    """A V0 event: an integer `id`, a `source`, and an `action` or an `observation`."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("id"), int)
        and isinstance(value.get("source"), str)
        and isinstance(value.get("action", value.get("observation")), str)
    )


def parse(record: Record) -> Iterator[Conversation | Problem]:
    value, location = record.value, record.location
    problems: list[Problem] = []
    if isinstance(value, list):
        events, here = value, location
    else:
        events, here = value["history"], location.child("history")
    reader = _Reader(problems)
    if isinstance(value, dict) and not any(map(is_event, events[:1])):
        reader.resolver(events, here, value.get("instruction"))
    else:
        reader.events(events, here)
        if isinstance(value, dict):
            reader.instruction(value.get("instruction"), location.child("instruction"))
    own = {"id": value.get("instance_id")} if isinstance(value, dict) else {}
    messages = positioned(freeze(reader.drafts), location, ("history", ""))
    yield from conversation(NAME, own, location, messages, problems)


class _Reader:
    """The drafts of one event list as its events are read."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        self.drafts: list[MessageDraft] = []
        self.calls: dict[int, str] = {}  # action event id -> the call id it made
        self.turns: dict[str, MessageDraft] = {}  # model response id -> the turn of its calls

    def instruction(self, text: Any, here: Location) -> None:
        """An evaluation's task, when no user message of the history holds it."""
        if isinstance(text, str) and text and not any(d.role == "user" for d in self.drafts):
            at = next((i for i, d in enumerate(self.drafts) if d.role != "system"), 0)
            self.drafts.insert(at, MessageDraft("user", here, [text]))

    def events(self, events: list, here: Location) -> None:
        for i, event in enumerate(events):
            where = here.child(i)
            if not is_event(event):
                self.problems.append(
                    Problem(where, "expected an OpenHands event", evidence=excerpt_json(event))
                )
            elif "action" in event:
                self.action(event, where)
            else:
                self.observation(event, where)

    def action(self, event: dict, here: Location) -> None:
        kind = event["action"]
        args = as_object(event.get("args"))
        metadata = event.get("tool_call_metadata")
        if kind in BOOKKEEPING:
            return
        if kind == "finish":
            thought = [args.get("thought"), args.get("final_thought")]
            texts = [t for t in thought if isinstance(t, str) and t] or [_text(event, args)]
            self.drafts.append(MessageDraft("assistant", here, texts))
        elif isinstance(metadata, dict) and isinstance(metadata.get("function_name"), str):
            self.call(event, args, metadata, here)
        elif kind == "system":
            self.drafts.append(MessageDraft("system", here, [_text(event, args)]))
        elif kind == "message":
            role = "user" if event["source"] == "user" else "assistant"
            self.drafts.append(MessageDraft(role, here, [_text(event, args)]))

    def call(self, event: dict, args: dict, metadata: dict, here: Location) -> None:
        call_id = as_id(metadata.get("tool_call_id"))
        response = metadata.get("model_response")
        response_id = as_id(response.get("id")) if isinstance(response, dict) else None
        draft = self.turns.get(response_id) if response_id is not None else None
        if draft is None or self.drafts[-1] is not draft:
            thought = args.get("thought")
            draft = MessageDraft("assistant", here, [thought] if isinstance(thought, str) else [])
            self.drafts.append(draft)
            if response_id is not None:
                self.turns[response_id] = draft
        sent = _sent_arguments(response, call_id)
        if sent is None:
            sent = {k: v for k, v in args.items() if k not in _RUN_KEYS}
        name = metadata["function_name"]
        draft.calls.append(tool_call(call_id, name, sent, here.child("tool_call_metadata")))
        if call_id is not None:
            self.calls[event["id"]] = call_id

    def observation(self, event: dict, here: Location) -> None:
        kind = event["observation"]
        if kind in BOOKKEEPING:
            return
        cause = event.get("cause")
        call_id = self.calls.get(cause) if isinstance(cause, int) else None
        text = text_of(event.get("content"))
        if call_id is None:
            if kind == "error":  # answers a call the log does not keep
                self.drafts.append(MessageDraft("user", here, [text], name="environment"))
            return
        self.drafts.append(_result(call_id, event, kind, text, here))

    def resolver(self, events: list, here: Location, instruction: Any) -> None:
        """The resolver's flattened events: each observation answers the action before it."""
        waiting: str | None = None
        for i, event in enumerate(events):
            where = here.child(i)
            if not isinstance(event, dict):
                self.problems.append(
                    Problem(where, "expected an OpenHands event", evidence=excerpt_json(event))
                )
                continue
            kind = event.get("action")
            if isinstance(kind, str) and kind not in BOOKKEEPING:
                waiting = None
                if kind == "message":
                    role = "user" if not self.drafts else "assistant"
                    self.drafts.append(MessageDraft(role, where, [text_of(event.get("content"))]))
                elif kind == "finish":
                    self.drafts.append(
                        MessageDraft("assistant", where, [text_of(event.get("thought"))])
                    )
                else:
                    thought = text_of(event.get("thought"))
                    arguments = {k: v for k, v in event.items() if k not in _RUN_KEYS}
                    waiting = f"action-{i}"
                    draft = MessageDraft("assistant", where, [thought])
                    draft.calls.append(tool_call(waiting, kind, arguments, where))
                    self.drafts.append(draft)
            elif isinstance(event.get("observation"), str) and waiting is not None:
                text = text_of(event.get("content"))
                self.drafts.append(_result(waiting, event, event["observation"], text, where))
                waiting = None
        self.instruction(instruction, here)


def _text(event: dict, args: dict) -> str:
    content = args.get("content")
    return content if isinstance(content, str) and content else text_of(event.get("message"))


def _sent_arguments(response: Any, call_id: str | None) -> Any:
    """The arguments the model sent for the call, from the logged model response."""
    if not isinstance(response, dict) or call_id is None:
        return None
    choices = response.get("choices")
    message = choices[0].get("message") if isinstance(choices, list) and choices else None
    if not isinstance(message, dict) or not isinstance(message.get("tool_calls"), list):
        return None
    for call in message["tool_calls"]:
        if isinstance(call, dict) and call.get("id") == call_id:
            function = call.get("function")
            return function.get("arguments") if isinstance(function, dict) else None
    return None


def _result(call_id: str, event: dict, kind: str, text: str, here: Location) -> MessageDraft:
    draft = result_draft(call_id, text, here, _failed(event, kind, text))
    if REFUSAL.match(text.lstrip("[")):
        draft.result.ran = False  # type: ignore[union-attr]
    return draft


# openhands-aci's file editor answers a failure `ERROR:\n<message>` (`_execute_file_editor`).
_EDITOR_ERROR = "ERROR:\n"
# The IPython editor skills (agent_skills `file_ops`, openhands-aci run in a cell before 2025-02)
# print their failures so: `_output_error`'s `ERROR: …`, the editor's `ERROR:\n…`,
# `edit_file_by_replace`'s "[No exact match found in FILE for", `_edit_file_impl`'s "[Error
# editing file FILE. …]". Their other bracketed notes ("[No matches found for …]") are no error.
_SKILL_ERROR = lazy(r"ERROR:\s|\[No exact match found in |\[Error editing file ")


def _failed(event: dict, kind: str, text: str) -> bool | None:
    """Whether an observation reports a failure, as OpenHands marks it (see the module)."""
    if kind == "error" or REFUSAL.match(text.lstrip("[")):
        return True
    extras = as_object(event.get("extras"))
    if kind in ("read", "edit") and extras.get("impl_source") == "oh_aci":
        return text.startswith(_EDITOR_ERROR)
    if kind == "run_ipython":  # `success` is always true for a cell
        return True if _SKILL_ERROR.match(text) else None
    if kind == "mcp":
        return _mcp_error(text)
    if isinstance(extras.get("error"), bool):  # a browser page
        return bool(extras["error"])
    success = event.get("success")
    if isinstance(success, bool):
        return not success
    metadata = as_object(extras.get("metadata"))
    code = metadata.get("exit_code", extras.get("exit_code", event.get("exit_code")))
    if isinstance(code, int) and not isinstance(code, bool):
        return code != 0
    return None


def _mcp_error(text: str) -> bool | None:
    """The `isError` of the MCP tool result OpenHands keeps as JSON text."""
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    flag = value.get("isError") if isinstance(value, dict) else None
    return flag if isinstance(flag, bool) else None
