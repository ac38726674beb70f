r"""An assistant turn that holds a tool result it wrote itself.

## What it does
Reads the text of every assistant turn for a tool's output written by the model: a ReAct
`Observation:` (with text) after an `Action:` in the same message, a `<tool_response>` after a
`<tool_call>` in the same message, or a harmony frame authored by a tool
(`<|start|>functions.NAME to=assistant…`). One finding per kind and message; the message
counts how many observations the turn made up.

Also reads bare JSON written as a tool's answer: after a call the assistant wrote as text
(any dialect EX003 reads) that nothing executed, a JSON object the assistant writes itself,
later in the same message or in its next turn with no tool result between, that is not a
call and holds the record the call asked for: it repeats one of the call's argument values
(`"cliente_id": "C004"` after `consultar_datos_del_cliente(cliente_id="C004")`), has at least
two keys the arguments do not, and at least two values no earlier message gave. Later in the
call's own message, a list of three or more `Key: value` lines (`**Teléfono:** 987654321`)
with at least two values no earlier message gave is such an answer too, written as a list.

## Why is this bad?
The model did not wait for the tool: it imagined the result and reasoned on from it. The
framework either never ran the tool (its stop sequence failed, or it parsed the final answer
first) or ran it and threw the real result away. The answer rests on an observation nobody
observed, and the log reads as if the tool had said it.

## Example
```jsonl
{"id": "react-fabricated", "tools": [{"type": "function", "function": {"name": "web_search", "parameters": {"type": "object", "properties": {"query": {"type": "string"}}}}}], "messages": [{"role": "user", "content": "How many people live in Oslo?"}, {"role": "assistant", "content": "Thought: I should look this up.\nAction: web_search\nAction Input: {\"query\": \"Oslo population 2024\"}\nObservation: Oslo has 1,204,515 inhabitants as of 2024.\nThought: I now know the final answer.\nFinal Answer: About 1.2 million people live in Oslo."}]}
```

## How to fix
In the harness: end generation at the observation (add `Observation:` to a ReAct agent's stop
sequences, `<tool_response>` to a Hermes-style one's; serve harmony models with a parser that ends
the turn at `<|call|>`), and when a reply still holds an observation, cut the text there and run
the action. For calls written as text (EX003), move the agent to structured tool calls, which
the framework executes. In the prompt: the tool's result comes in the next message; stop after
the action. An answer that rests on a made-up observation is a failed step: retry it rather
than show it to the user.

## Does not fire on
- an `Observation:` in the next message, written by the framework that ran the action;
- an `Observation:` label the model stopped at, with nothing after it;
- the labels inside an Action Input's JSON, or inside backticks and code fences (a model
  explaining the ReAct format);
- reasoning text;
- JSON after a text call that a tool result answered, JSON that repeats none of the call's
  argument values (a new request, an unrelated record), that only restates values earlier
  messages gave (the user's order summarised as JSON), or that redrafts the call's own
  arguments (no two keys beyond them), and JSON in a fence of another language;
- a list of fields after a text call that restates what earlier messages gave (a summary to
  confirm), or has fewer than three fields or fewer than two new values, and a list in a
  later message (the model may be quoting what it remembers).
```jsonl
{"id": "react-ok", "tools": [{"type": "function", "function": {"name": "web_search", "parameters": {"type": "object", "properties": {"query": {"type": "string"}}}}}], "messages": [{"role": "user", "content": "How many people live in Oslo?"}, {"role": "assistant", "content": "Thought: I should look this up.\nAction: web_search\nAction Input: {\"query\": \"Oslo population\"}\nObservation:"}, {"role": "user", "content": "Observation: Oslo has 709,037 inhabitants."}, {"role": "assistant", "content": "The format is:\n```\nAction: web_search\nObservation: the result\n```\nFinal Answer: About 709,000."}]}
```
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from auditor.common.patterns import lazy
from auditor.dialects import (
    HARMONY_TOOL_AUTHORS,
    Reading,
    TextCall,
    marked_turns,
    read_turns,
    records,
)
from auditor.findings import Violation, excerpt
from auditor.model import Message
from auditor.replay import Replay
from auditor.rules.tool_call_in_text import RESULT_OPENINGS

_MADE_UP = "no tool ran, the result is made up"


def screen(replay: Replay, options: None) -> bool:
    """Some answer holds a marker the dialect reader looks for."""
    return bool(marked_turns(replay))


def check(replay: Replay, options: None) -> Iterator[Violation]:
    for message, reading in read_turns(replay):
        for text, tool, evidence in (*_react(reading), *_hermes(reading), *_harmony(reading)):
            yield Violation(text, message.index, message.location, tool=tool, evidence=evidence)
    yield from _written_results(replay)


def _written_results(replay: Replay) -> Iterator[Violation]:
    """Bare JSON records the assistant wrote as the answer of its own unexecuted text call."""
    messages = replay.conversation.messages
    pending: tuple[Message, list[TextCall]] | None = None
    for message, reading in read_turns(replay):
        if pending is not None and not _answered(messages, pending[0].index, message.index):
            waiting = [(c, 0) for c in pending[1]]
        else:
            waiting = []
        calls = [c for c in reading.calls if not c.observed] if not message.tool_calls else []
        waiting += [(c, c.span[1]) for c in calls]
        found = _made_up(messages, message, reading, waiting) if waiting else None
        if found is not None:
            call, record, before = found
            at = (
                "earlier in this message"
                if before is None
                else f"at turn {replay.at(before.index)}"
            )
            form = "JSON" if record.lstrip().startswith("{") else "a list of fields"
            text = (
                f"the assistant wrote the answer of its own `{call.name}` call as {form} (the "
                f"call was written as text {at} and nothing executed it); {_MADE_UP}"
            )
            yield Violation(
                text, message.index, message.location, tool=call.name, evidence=excerpt(record)
            )
        pending = (message, calls) if calls else None


def _answered(messages: tuple[Message, ...], after: int, before: int) -> bool:
    """A tool result (or a framework's observation) comes between the two turns."""
    for m in messages[after + 1 : before]:
        if m.role == "tool" or m.result is not None or m.tool_calls:
            return True
        if m.role == "user" and m.text.lstrip().startswith(RESULT_OPENINGS):
            return True
    return False


def _made_up(
    messages: tuple[Message, ...],
    message: Message,
    reading: Reading,
    waiting: list[tuple[TextCall, int]],
) -> tuple[TextCall, str, Message | None] | None:
    """(call, record text, the earlier message that wrote the call) for the first JSON record
    in `message` that answers a call still waiting for its result."""
    text = message.text
    taken = [c.span for c in reading.calls]
    earlier = _Earlier(messages, message.index)
    for (start, end), value in records(text):
        if any(s <= start < e for s, e in taken):
            continue  # a call itself (a retry), not an answer
        for call, after in waiting:
            if start >= after and _answers(value, call, earlier):
                before = None if after else _writer(messages, message.index)
                return call, text[start:end], before
    for call, after in waiting:
        listed = _listed(text, after, call, earlier) if after else None
        if listed is not None:
            return call, listed, None
    return None


_FIELD = lazy(
    r"[ \t]*(?:[-*•][ \t]+)?(?:\*\*)?(?P<key>[^\n:*`{}\[\]\"]{2,40}?)(?:\*\*)?[ \t]*:"
    r"[ \t]*(?:\*\*)?[ \t]*(?P<value>[^\n]{1,120})"
)
_MOST_LINES = 200
"""Lines after a text call read for a list of fields."""


def _listed(text: str, after: int, call: TextCall, earlier: _Earlier) -> str | None:
    """The first list of three or more `Key: value` lines after the call in its own message
    (`**Teléfono:** 987654321`, one per line) of which two values or more are facts no
    earlier message gave: the call's answer, written by the model as a list."""
    asked = {v for _, v in _scalars(call.arguments if isinstance(call.arguments, dict) else {})}
    run: list[tuple[str, str]] = []
    lines = text[after:].split("\n", _MOST_LINES)[:_MOST_LINES]
    for line in [*lines, ""]:
        m = _FIELD.fullmatch(line.rstrip())
        value = m["value"].strip(" *_.,;") if m is not None else ""
        if m is not None and value and len(value.split()) <= 10:
            run.append((line.strip(), value))
            continue
        if len(run) >= 3:
            new = {v for _, v in run if len(v) >= 3 and v not in asked and not earlier.holds(v)}
            if len(new) >= 2:
                return "\n".join(line for line, _ in run)
        run = []
    return None


class _Earlier:
    """The text of the messages before one, joined once and only when asked."""

    def __init__(self, messages: tuple[Message, ...], index: int) -> None:
        self.messages, self.index = messages, index
        self._text: str | None = None

    def holds(self, value: str) -> bool:
        if self._text is None:
            self._text = "\x00".join(m.text for m in self.messages[: self.index])
        return value in self._text


def _answers(value: dict[str, Any], call: TextCall, earlier: _Earlier) -> bool:
    """`value` is the record `call` asked for, with facts nobody gave: it repeats an argument
    value, has two keys beyond the arguments and two values no earlier message holds."""
    arguments = call.arguments if isinstance(call.arguments, dict) else {}
    asked = {v for _, v in _scalars(arguments)}
    pairs = _scalars(value)
    if not asked or not asked & {v for _, v in pairs}:
        return False
    if len({k for k, _ in pairs} - {k for k, _ in _scalars(arguments)}) < 2:
        return False
    new: set[str] = set()
    for _, v in pairs:
        if len(v) >= 3 and v not in new and not earlier.holds(v):
            new.add(v)
            if len(new) >= 2:
                return True
    return False


def _scalars(value: Any, key: str = "", depth: int = 0) -> list[tuple[str, str]]:
    """(key, value as text) of the strings and numbers in a JSON value, at most 200."""
    out: list[tuple[str, str]] = []
    if depth > 8:
        return out
    if isinstance(value, dict):
        for k, v in list(value.items())[:100]:
            out += _scalars(v, str(k), depth + 1)
    elif isinstance(value, list):
        for v in value[:100]:
            out += _scalars(v, key, depth + 1)
    elif isinstance(value, str) and len(value.strip()) >= 2:
        out.append((key, value.strip()))
    elif isinstance(value, int | float) and not isinstance(value, bool):
        out.append((key, str(value)))
    return out[:200]


def _writer(messages: tuple[Message, ...], index: int) -> Message | None:
    """The assistant turn before `index`: where the waiting call was written."""
    return next((m for m in reversed(messages[:index]) if m.role == "assistant"), None)


def _react(reading: Reading) -> Iterator[tuple[str, str | None, str]]:
    made_up = [
        (s.action, s.observation)
        for s in reading.steps
        if s.action.value and s.observation is not None and s.observation.value
    ]
    if not made_up:
        return
    action, observation = made_up[0]
    name = action.value.split("\n", 1)[0].strip()
    text = (
        f"the assistant wrote the `Observation:` of its own `Action: {excerpt(name, 60)}` "
        f"in the same message; {_MADE_UP}"
    )
    if len(made_up) > 1:
        text += f" ({len(made_up)} observations in this message)"
    yield text, name or None, excerpt(f"Observation: {observation.value}")


def _hermes(reading: Reading) -> Iterator[tuple[str, str | None, str]]:
    first_call = next((b for b in reading.blocks if b.tag == "tool_call"), None)
    if first_call is None:
        return
    made_up = [
        b
        for b in reading.blocks
        if b.tag == "tool_response" and b.span[0] >= first_call.span[1] and b.body.strip()
    ]
    if not made_up:
        return
    call = next((c for c in reading.calls if c.span[0] == first_call.span[0]), None)
    text = (
        f"the assistant wrote a `<tool_response>` after its own `<tool_call>`"
        f"{f' to `{call.name}`' if call else ''} in the same message; {_MADE_UP}"
    )
    if len(made_up) > 1:
        text += f" ({len(made_up)} responses in this message)"
    yield text, call.name if call else None, excerpt(f"<tool_response>{made_up[0].body}")


def _harmony(reading: Reading) -> Iterator[tuple[str, str | None, str]]:
    made_up = [
        f
        for f in reading.frames
        if f.author is not None and f.author.startswith(HARMONY_TOOL_AUTHORS) and f.body.strip()
    ]
    if not made_up:
        return
    author = made_up[0].author or ""
    text = f"the assistant's text holds a harmony frame authored by the tool `{author}`; {_MADE_UP}"
    if len(made_up) > 1:
        text += f" ({len(made_up)} tool frames in this message)"
    yield text, author.removeprefix("functions."), excerpt(made_up[0].body)
