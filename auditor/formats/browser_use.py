"""browser-use agent history (`AgentHistoryList`): `{history: [{model_output, result, state}]}`.

One item per step. `model_output.current_state` holds the model's evaluation of its previous
goal, its memory and its next goal (the turn's text); `model_output.action` is one action
object `{name: params}` (0.1.x) or a list of them (later versions), each a call of origin
`structured` with id `step-<i>-<k>`; `result` (an object, or a list parallel to the actions)
answers them: `error` makes the result an error, `extracted_content` is its text. `state` is
the page the step started on, so the page the next step starts on (`url`, `title`) is what the
action led to and is added to its result. A step whose `model_output` is null (the model's
output could not be parsed) is a turn without calls whose error is said as a user turn.
The task itself is not in the file: the conversation starts with the first step.

Early versions (2024-11) also dumped each step's prompt as text (`temp/<run>/conversation_N.txt`):
`system: `, `user: ` and `assistant: ` line groups, the earlier actions as the assistant's JSON
(`{"action", "params", "goal", "valuation_previous_goal"}`, each a call with id `line-<n>`),
the page as a `user: Elements: …` dump and the model's answer after `Model output:`. The dump
keeps no outcome but the page the last action led to (that action's result); the others are
answered by results whose outcome is not recorded.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import orjson

from auditor.common.patterns import lazy
from auditor.formats import contract
from auditor.formats._common import (
    MessageDraft,
    Problem,
    conversation,
    excerpt_json,
    freeze,
    json_text,
    positioned,
    result_draft,
    unrecorded_draft,
)
from auditor.model import Conversation, Location, ToolCall
from auditor.sources import Record

NAME = "browser-use"
KIND = None  # a text dump of the conversation, or its JSON history
DETECT_KEYS = frozenset(("history",))
Collector = None
inferred = contract.no_inference
"""`detect` is false for a JSON object with none of these keys (`formats.FileReader`)."""
_STEP_KEYS = ("model_output", "result", "state")


_DUMP = lazy(rb"\Asystem: *\n")
_DUMP_LINE = lazy(r"^(system|user|assistant): |^Model output:$", re.M)


def sniff(head: bytes) -> bool:
    """The first bytes of a file are an early browser-use prompt dump's."""
    return _DUMP.match(head) is not None and b"\nuser: " in head


def detect(record: Record) -> bool:
    value = record.value
    if record.kind == "text":
        return sniff(value[:4096].encode("utf-8", "replace")) and "\nModel output:" in value
    if record.kind != "json" or not isinstance(value, dict):
        return False
    history = value.get("history")
    if not isinstance(history, list) or not history:
        return False
    first = history[0]
    return isinstance(first, dict) and all(k in first for k in _STEP_KEYS)


def parse(record: Record) -> Iterator[Conversation | Problem]:
    value, location = record.value, record.location
    if record.kind == "text":
        yield from conversation(NAME, {}, location, freeze(_dump(value, location)), [])
        return
    problems: list[Problem] = []
    drafts: list[MessageDraft] = []
    steps = value["history"]
    for i, step in enumerate(steps):
        here = location.child("history", i)
        if not isinstance(step, dict):
            problems.append(Problem(here, "expected a history step", evidence=excerpt_json(step)))
            continue
        following = steps[i + 1] if i + 1 < len(steps) else None
        page = _page(following.get("state")) if isinstance(following, dict) else ""
        drafts.extend(_step(step, i, here, page))
    steps = positioned(freeze(drafts), location, ("history",))
    yield from conversation(NAME, {}, location, steps, problems)


def _step(step: dict, index: int, here: Location, page: str) -> list[MessageDraft]:
    output = step.get("model_output")
    results = step.get("result")
    results = results if isinstance(results, list) else [results]
    if not isinstance(output, dict):
        errors = [r.get("error") for r in results if isinstance(r, dict) and r.get("error")]
        text = "\n".join(json_text(e) for e in errors)
        return [MessageDraft("user", here.child("result"), [text])] if text else []
    turn = MessageDraft(
        "assistant", here.child("model_output"), [_thought(output.get("current_state"))]
    )
    actions = output.get("action")
    actions = actions if isinstance(actions, list) else [actions]
    drafts = [turn]
    for k, action in enumerate(actions):
        if not isinstance(action, dict) or not action:
            continue
        name, params = next(iter(action.items()))
        call_id = f"step-{index}-{k}"
        where = here.child("model_output", "action", k) if len(actions) > 1 else None
        turn.calls.append(
            ToolCall(call_id, str(name), params if params is not None else {}, location=where)
        )
        result = results[k] if k < len(results) else None
        drafts.append(_result(call_id, str(name), result, here.child("result"), page))
    return drafts


def _result(call_id: str, name: str, result: object, here: Location, page: str) -> MessageDraft:
    if not isinstance(result, dict):
        return result_draft(call_id, page, here, None, name)
    error = result.get("error")
    content = result.get("extracted_content")
    parts = [json_text(error) if error else "", content if isinstance(content, str) else "", page]
    text = "\n".join(p for p in parts if p)
    return result_draft(call_id, text, here, bool(error), name)


def _thought(state: object) -> str:
    """The turn's text: what the model made of its last step, what it remembers, its next goal."""
    if not isinstance(state, dict):
        return ""
    labels = (
        ("evaluation_previous_goal", "Evaluation of the previous goal"),
        ("valuation_previous_goal", "Evaluation of the previous goal"),
        ("memory", "Memory"),
        ("next_goal", "Next goal"),
        ("thinking", "Thinking"),
    )
    lines = [f"{label}: {state[key]}" for key, label in labels if _said(state.get(key))]
    return "\n".join(lines)


def _said(value: object) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _page(state: object) -> str:
    """The page a step started on, as the outcome of the step before it."""
    if not isinstance(state, dict):
        return ""
    url, title = state.get("url"), state.get("title")
    if not isinstance(url, str) or not url:
        return ""
    return f"Page: {title} ({url})" if isinstance(title, str) and title else f"Page: {url}"


def _dump(text: str, location: Location) -> list[MessageDraft]:
    """An early prompt dump (`temp/<run>/conversation_N.txt`): the prompt sent at step N, one
    message per `role: ` line group, the earlier actions as the assistant's JSON, and the
    model's answer after `Model output:`. The dump keeps no action's outcome but the page the
    last one led to (`user: Elements: …`)."""
    drafts: list[MessageDraft] = []
    marks = list(_DUMP_LINE.finditer(text))
    pending: list[ToolCall] = []
    line, counted = 1, 0  # the line of `counted`: lines are counted once, mark to mark
    for k, m in enumerate(marks):
        end = marks[k + 1].start() if k + 1 < len(marks) else len(text)
        body = text[m.end() : end].strip()
        line += text.count("\n", counted, m.start())
        counted = m.start()
        here = Location(location.path, line)
        role = m.group(1) or "assistant"
        if role != "assistant":
            page = pending.pop() if pending and body.startswith("Elements:") else None
            drafts.extend(unrecorded_draft(c.id, here, c.name) for c in pending)
            pending = []
            if page is not None:  # the page the last action led to: its outcome
                drafts.append(result_draft(page.id, body, here, None, page.name))
            else:
                drafts.append(MessageDraft(role, here, [body]))
            continue
        drafts.extend(unrecorded_draft(c.id, here, c.name) for c in pending)
        pending = []
        turn, call = _dumped_action(body, here)
        drafts.append(turn)
        if call is not None:
            pending.append(call)
    drafts.extend(unrecorded_draft(c.id, location, c.name) for c in pending)
    return drafts


def _dumped_action(body: str, here: Location) -> tuple[MessageDraft, ToolCall | None]:
    """A turn of the dump: `{"action", "params", "goal", "valuation_previous_goal"}`."""
    try:
        value = orjson.loads(body)
    except orjson.JSONDecodeError:
        return MessageDraft("assistant", here, [body]), None
    if not isinstance(value, dict) or not isinstance(value.get("action"), str):
        return MessageDraft("assistant", here, [body]), None
    said = {
        "valuation_previous_goal": value.get("valuation_previous_goal"),
        "next_goal": value.get("goal"),
    }
    turn = MessageDraft("assistant", here, [_thought(said)])
    params = value.get("params")
    arguments = (
        {k: v for k, v in params.items() if v is not None} if isinstance(params, dict) else {}
    )
    call = ToolCall(f"line-{here.line}", value["action"], arguments, location=here)
    turn.calls.append(call)
    return turn, call
