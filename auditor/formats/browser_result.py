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

from auditor.common.patterns import lazy
from auditor.formats import contract
from auditor.formats._common import Problem, as_id, conversation, excerpt_json, positioned
from auditor.model import UNRECORDED, Conversation, Location, Message, ToolCall, ToolResult
from auditor.sources import Record

NAME = "browser-result"
KIND = contract.JSON
DETECT_KEYS = frozenset(("action_history",))
sniff = contract.no_sniff
Collector = None
inferred = contract.no_inference
"""`detect` is false for a JSON object with none of these keys (`formats.FileReader`)."""

_NUMBER = r"(-?\d+(?:\.\d+)?)"
_ACTIONS: tuple[tuple[re.Pattern[str], str, tuple[str, ...]], ...] = (
    (lazy(r"Navigate to (\S.*)"), "navigate", ("url",)),
    (lazy(r"Navigate back"), "navigate_back", ()),
    (lazy(rf"Click at \({_NUMBER}, {_NUMBER}\)"), "click", ("x", "y")),
    (lazy(rf"Hover at \({_NUMBER}, {_NUMBER}\)"), "hover", ("x", "y")),
    (lazy(r'Type "(.*)"', re.S), "type", ("text",)),
    (lazy(r"Press (\S+)"), "press", ("key",)),
    (
        lazy(rf"Scroll \(delta_x={_NUMBER}, delta_y={_NUMBER}\)"),
        "scroll",
        ("delta_x", "delta_y"),
    ),
    (lazy(r"Select picker (\S+) -> (.*)", re.S), "select", ("picker", "choice")),
)


def detect(record: Record) -> bool:
    value = record.value
    return (
        isinstance(value, dict)
        and isinstance(value.get("action_history"), list)
        and isinstance(value.get("thoughts"), list)
        and "task" in value
    )


def parse(record: Record) -> Iterator[Conversation | Problem]:
    # Hot for its size: a result file holds many small actions, so messages are built
    # directly, not through drafts, each action's result right after its turn's calls.
    value, location = record.value, record.location
    problems: list[Problem] = []
    actions, thoughts = value["action_history"], value["thoughts"]
    path, line, prefix = location.path, location.line, location.pointer
    task = value.get("task")
    task = task if isinstance(task, str) else ""
    out: list[Message] = []
    turn: list[ToolCall] = []
    turn_at: tuple[str, Location] | None = None
    pending: list[ToolCall] = []
    thought: object = None

    def close() -> None:
        if turn_at is not None:
            out.append(Message(len(out), "assistant", turn_at[0], turn_at[1], tuple(turn)))
        for call in pending:
            result = ToolResult(call.id, UNRECORDED, None, call.name, unrecorded=True)
            out.append(Message(len(out), "tool", UNRECORDED, call.location, (), result))  # type: ignore[arg-type]

    for i, action in enumerate(actions):
        here = Location(path, line, f"{prefix}/action_history/{i}")
        if i == 0 and _opens_site(action, thoughts):  # the benchmark's, so the user turn's call
            opened = _call(action, f"action-{i}", here)
            out.append(Message(0, "user", task, location.child("task"), (opened,)))
            pending = [opened]
            continue
        if i == 0:
            out.append(Message(0, "user", task, location.child("task")))
        if not isinstance(action, str):
            problems.append(
                Problem(here, "expected an action sentence", evidence=excerpt_json(action))
            )
            continue
        said = thoughts[i] if i < len(thoughts) else None
        if turn_at is None or said != thought:
            close()
            text = said.strip() if isinstance(said, str) else ""
            turn, pending = [], []
            turn_at = (text, Location(path, line, f"{prefix}/thoughts/{i}"))
            thought = said
        call = _call(action, f"action-{i}", here)
        turn.append(call)
        pending.append(call)
    if not out:
        out.append(Message(0, "user", task, location.child("task")))
    close()
    final = value.get("final_result_response")
    if isinstance(final, str) and final.strip():
        out.append(Message(len(out), "assistant", final, location.child("final_result_response")))
    if len(thoughts) != len(actions):
        problems.append(
            Problem(
                location.child("thoughts"),
                f"{len(thoughts)} thoughts for {len(actions)} actions: turns paired by position",
            )
        )
    key = as_id(value.get("task_id"))
    record_id = {"id": key} if key else {}
    steps = positioned(tuple(out), location, ("action_history", "thoughts"))
    yield from conversation(NAME, record_id, location, steps, problems)


def _opens_site(action: object, thoughts: list) -> bool:
    """The first action, taken before the model said anything, is the benchmark opening the
    task's website (every Online-Mind2Web task names one)."""
    said = thoughts[0] if thoughts else ""
    return (
        isinstance(action, str)
        and action.startswith("Navigate to ")
        and (not isinstance(said, str) or not said.strip())
    )


def _call(action: str, call_id: str, here: Location) -> ToolCall:
    """The call an action sentence describes."""
    sentence = action.strip()
    for pattern, name, keys in _BY_VERB.get(sentence[:5], _ACTIONS):
        m = pattern.fullmatch(sentence)
        if m is not None:
            arguments = {  # coordinates are digits: no call to `_value` for them
                k: int(v) if v.isdigit() else _value(v)
                for k, v in zip(keys, m.groups(), strict=True)
            }
            return ToolCall(call_id, name, arguments, None, None, "text", here)
    name = sentence.split(None, 1)[0].lower() if sentence else "action"
    return ToolCall(call_id, name, {"action": sentence}, None, None, "text", here)


_BY_VERB = {pattern.pattern[:5]: [(pattern, name, keys)] for pattern, name, keys in _ACTIONS}
_BY_VERB["Navig"] = [a for a in _ACTIONS if a[0].pattern.startswith("Navig")]
"""The patterns to try by an action's first five characters (`Click`, `Scrol`, `Navig`…)."""


def _value(text: str) -> object:
    """Coordinates and deltas as numbers, as a structured log would give them."""
    if text.isdigit() or (text[:1] == "-" and text[1:].isdigit()):
        return int(text)
    try:
        return float(text)
    except ValueError:
        return text
