"""Browser-agent result files: `{task_id, task, action_history, thoughts, final_result_response}`.

The Online-Mind2Web result shape ("agent browser protocol" runs): `task` is the user's request,
`action_history[i]` the i-th action as a sentence and `thoughts[i]` the model's text before it
(a turn that took several actions repeats its thought, so consecutive equal thoughts are one
turn with several calls), `final_result_response` the answer (empty when the run ran out of
turns, `result_status: error_max_turns`).

The first action, when it comes before any thought (`thoughts[0]` empty) and navigates, is the
benchmark opening the task's website: a call of the user turn (as a simulated user's calls
are), not of the model. The others are the model's calls, of origin `text`, id `action-<i>`:
`Navigate to <url>` (`navigate`, `url`), `Navigate back` (`navigate_back`), `Click at (x, y)`
(`click`, `x`, `y`), `Hover at (x, y)` (`hover`), `Type "<text>"` (`type`, `text`), `Press
<KEY>` (`press`, `key`), `Scroll (delta_x=…, delta_y=…)` (`scroll`), `Select picker <id> ->
<choice>` (`select`, `picker`, `choice`); any other sentence is a call named by its first word
with the sentence as `action`.

The file keeps no observations (they were screenshots): each call is answered by a result
that says its outcome was not recorded (`ToolResult.unrecorded`), not an error, so a repeated
action is still visible to the loop rules, and the outcome is read nowhere else.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from auditor.formats._common import (
    Draft,
    Problem,
    as_id,
    conversation,
    excerpt_json,
    freeze,
    unrecorded_draft,
)
from auditor.model import Conversation, ToolCall
from auditor.sources import Record

NAME = "browser-result"

_NUMBER = r"(-?\d+(?:\.\d+)?)"
_ACTIONS: tuple[tuple[re.Pattern[str], str, tuple[str, ...]], ...] = (
    (re.compile(r"Navigate to (\S.*)"), "navigate", ("url",)),
    (re.compile(r"Navigate back"), "navigate_back", ()),
    (re.compile(rf"Click at \({_NUMBER}, {_NUMBER}\)"), "click", ("x", "y")),
    (re.compile(rf"Hover at \({_NUMBER}, {_NUMBER}\)"), "hover", ("x", "y")),
    (re.compile(r'Type "(.*)"', re.S), "type", ("text",)),
    (re.compile(r"Press (\S+)"), "press", ("key",)),
    (
        re.compile(rf"Scroll \(delta_x={_NUMBER}, delta_y={_NUMBER}\)"),
        "scroll",
        ("delta_x", "delta_y"),
    ),
    (re.compile(r"Select picker (\S+) -> (.*)", re.S), "select", ("picker", "choice")),
)


def detect(record: Record) -> bool:
    value = record.value
    return (
        record.kind == "json"
        and isinstance(value, dict)
        and isinstance(value.get("action_history"), list)
        and isinstance(value.get("thoughts"), list)
        and "task" in value
    )


def parse(record: Record) -> Iterator[Conversation | Problem]:
    value, location = record.value, record.location
    problems: list[Problem] = []
    task = value.get("task")
    user = Draft("user", location.child("task"), [task if isinstance(task, str) else ""])
    drafts = [user]
    thoughts = value["thoughts"]
    turn: Draft | None = None
    thought: object = None
    results: list[Draft] = []
    for i, action in enumerate(value["action_history"]):
        here = location.child("action_history", i)
        if i == 0 and _opens_site(action, thoughts):
            call = _call(action, f"action-{i}")  # the benchmark's, so the user turn's call
            call.location = here
            user.calls.append(call)
            drafts.append(unrecorded_draft(call.id, here, call.name))
            continue
        if not isinstance(action, str):
            problems.append(
                Problem(here, "expected an action sentence", evidence=excerpt_json(action))
            )
            continue
        said = thoughts[i] if i < len(thoughts) else None
        if turn is None or said != thought:
            drafts.extend(results)
            results = []
            text = said.strip() if isinstance(said, str) else ""
            turn = Draft("assistant", location.child("thoughts", i), [text])
            drafts.append(turn)
            thought = said
        call = _call(action, f"action-{i}")
        call.location = here
        turn.calls.append(call)
        results.append(unrecorded_draft(call.id, here, call.name))
    drafts.extend(results)
    final = value.get("final_result_response")
    if isinstance(final, str) and final.strip():
        drafts.append(Draft("assistant", location.child("final_result_response"), [final]))
    if len(thoughts) != len(value["action_history"]):
        problems.append(
            Problem(
                location.child("thoughts"),
                f"{len(thoughts)} thoughts for {len(value['action_history'])} actions: "
                "turns paired by position",
            )
        )
    key = as_id(value.get("task_id"))
    record_id = {"id": key} if key else {}
    yield from conversation(NAME, record_id, location, freeze(drafts), problems)


def _opens_site(action: object, thoughts: list) -> bool:
    """The first action, taken before the model said anything, is the benchmark opening the
    task's website (every Online-Mind2Web task names one)."""
    said = thoughts[0] if thoughts else ""
    return (
        isinstance(action, str)
        and action.startswith("Navigate to ")
        and (not isinstance(said, str) or not said.strip())
    )


def _call(action: str, call_id: str) -> ToolCall:
    """The call an action sentence describes."""
    sentence = action.strip()
    for pattern, name, keys in _ACTIONS:
        m = pattern.fullmatch(sentence)
        if m is not None:
            arguments = {k: _value(v) for k, v in zip(keys, m.groups(), strict=True)}
            return ToolCall(call_id, name, arguments, origin="text")
    name = sentence.split(None, 1)[0].lower() if sentence else "action"
    return ToolCall(call_id, name, {"action": sentence}, origin="text")


def _value(text: str) -> object:
    """Coordinates and deltas as numbers, as a structured log would give them."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text
