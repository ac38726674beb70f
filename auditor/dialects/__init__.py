"""Read what assistant text holds: ReAct steps, tool calls written as text, harmony frames, tokens.

One reader for every rule that looks inside message text (FB001, FB002, EX003, EX004): the
rules only decide. `read(text, tool_names)` returns a `Reading`:

- `segments`: ReAct `Thought:/Action:/Action Input:/Observation:/Final Answer:` labels at the
  start of a line, outside code. An `Action Input:` whose value is JSON is scanned as JSON to
  its closing bracket before looking for the next label, so a `Final Answer:` inside the Action
  Input's string is not a segment. `steps` groups them: an Action, its input, its observation.
- `calls`: tool calls recovered from the text with their `{name, arguments}`, the dialect and
  the span: JSON (`{"name", "arguments"}`, `{"function": {…}}`, flat `{"tool": NAME, …}`,
  `{"action", "action_input"}`, arrays and fenced blocks of those), Hermes/Qwen `<tool_call>`,
  Mistral `[TOOL_CALLS]`, Llama `<function=NAME>` and `<|python_tag|>`, harmony
  `to=functions.NAME … <|call|>`, Kimi K2 `<|tool_call_begin|>`, pythonic call lists
  (`[get_x(a=1)]`, bare or after `<function-call>` or `<|python_start|>`), and ReAct
  `Action:`. Where tools are declared a name must be one of them; where none are, only strong
  structure counts (a name with its arguments, or special tokens around it), or a flat
  `{"action": "snake_case_name", …}` that stands alone in a conversation with no structured
  call and no earlier user or tool text naming it (`prose_json`).
- `frames`: harmony frames (`<|start|>author<|channel|>…<|message|>body<|end|>`).
- `tokens`: chat-template control tokens, each flagged when it sits inside backticks.
- `blocks`: `<tool_call>` and `<tool_response>` blocks.

Each dialect is one module of this package, read in this order (a later one skips what an
earlier one took): `tokens`, `harmony`, `function_tag`, `hermes`, `mistral`, `python_tag`,
`kimi`, `pythonic`, `react`, `prose_json`; `_scan` is the scanner they share and `_reading`
the data they return.

Whether something is a call is decided from structure: a strict JSON parse, or for malformed
JSON a literal `"name": "…"` in the raw text. json-repair (imported lazily, handed at most
`MAX_REPAIR` characters) only shows what the model meant. Every regex is linear on hostile
text and the work per message is capped, so a megabyte of `{` or `Action:` costs a scan.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import TYPE_CHECKING

from auditor.common.patterns import lazy
from auditor.dialects import (
    function_tag,
    harmony,
    hermes,
    kimi,
    mistral,
    prose_json,
    python_tag,
    pythonic,
    react,
    tokens,
)
from auditor.dialects._reading import (
    EMPTY,
    Block,
    Frame,
    Reading,
    Segment,
    Step,
    TextCall,
    Token,
)
from auditor.dialects._scan import TextScanner
from auditor.model import Conversation, Message

if TYPE_CHECKING:
    from auditor.replay import Replay

__all__ = [
    "EMPTY",
    "HARMONY_TOOL_AUTHORS",
    "Block",
    "Frame",
    "Reading",
    "Segment",
    "Step",
    "TextCall",
    "Token",
    "marked_turns",
    "read",
    "read_turns",
    "records",
    "tool_names",
    "triggers",
]

records = prose_json.records

HARMONY_TOOL_AUTHORS = harmony.AUTHORS
"""Harmony authors that are tools: a frame they wrote is a tool's output."""

# Anything the reader could find needs one of these; most answers have none and cost one scan.
_TRIGGER = lazy(
    r"[{\[<]|Action|Observation|Final|Answer|assistant(?:final|analysis|comm)|\Aanalysis"
)
_TRIGGER_HINTS = ("{", "[", "<", "Action", "Observation", "Final", "Answer", "assistant")
"""What `_TRIGGER` needs, as plain substrings: five times cheaper to look for than the regex."""


def triggers(text: str) -> bool:
    """Whether `read` could find anything in `text`: when not, it reads nothing (the screen
    of the text rules, FB001, FB002, EX003, EX004)."""
    if not text or not _hinted(text):
        return False
    return _TRIGGER.search(text) is not None


def _hinted(text: str) -> bool:
    """Whether `text`, or one of the messages it joins with NUL (`Replay.said`), holds what
    `_TRIGGER` needs: a hint as a plain substring, or a leading `a` (`\\Aanalysis`)."""
    return any(map(text.__contains__, _TRIGGER_HINTS)) or text[:1] == "a" or "\x00a" in text


def tool_names(conversation: Conversation) -> frozenset[str] | None:
    """The declared tool names, or None when the conversation declares none."""
    if conversation.tools is None:
        return None
    return frozenset(t.name for t in conversation.tools)


def read_turns(replay: Replay) -> Iterator[tuple[Message, Reading]]:
    """Every assistant message of a replay with what its text holds: the text rules' loop.

    Only `text` is read, never `reasoning`: users are not shown it, and models plan calls and
    quote templates there. Each message is read once for the four text rules (the readings are
    kept on the replay, so memory stays bounded by one conversation).
    """
    return iter(replay.shared("dialects.readings", _readings))


def _readings(replay: Replay) -> list[tuple[Message, Reading]]:
    conversation = replay.conversation
    names = tool_names(conversation)
    wanted = asked(conversation) if names is None else frozenset()
    readings = []
    for t in replay.turns:
        reading = read(t.message.text, names, wanted)
        if any(c.loose for c in reading.calls):
            reading = _unshown(reading, conversation, t.message.index)
        readings.append((t.message, reading))
    return readings


def _unshown(reading: Reading, conversation: Conversation, index: int) -> Reading:
    """`reading` without the flat JSON objects that are not calls in their conversation: any
    where the agent calls tools in structure (it has a working channel, so an object with no
    declared name to check is code or data: a coding agent's payload), and those whose action
    name a user turn or a tool result before them already wrote (a record pasted or returned,
    shown back), rather than a function name the model wrote itself."""
    messages = conversation.messages
    if any(m.tool_calls for m in messages):
        given = None
    else:
        given = [m.text for m in messages[:index] if m.role in ("user", "tool")]
        given += [m.result.text for m in messages[:index] if m.result is not None]
    calls = tuple(
        c
        for c in reading.calls
        if not c.loose or (given is not None and not any(c.name in g for g in given))
    )
    return replace(reading, calls=calls)


_ASKED_KEY = lazy(r"""["'](tool|tool_name|action|function)["']\s*+:""")


def asked(conversation: Conversation) -> frozenset[str]:
    """The JSON name keys (`action`, `tool`, …) the instructions quote: the system prompt, the
    log's own instructions (tau2's policy) and the user turns before the first answer, where
    benchmark harnesses put their answer format."""
    texts = [conversation.instructions]
    for m in conversation.messages:
        if m.role == "assistant":
            break
        if m.role in ("system", "developer", "user"):
            texts.append(m.text)
    found = {m.group(1) for text in texts for m in _ASKED_KEY.finditer(text)}
    return frozenset(found)


def marked_turns(replay: Replay) -> list[Message]:
    """The assistant messages whose text could hold something `read` finds (`triggers`)."""
    return replay.shared("dialects.marked", _marked)


def _marked(replay: Replay) -> list[Message]:
    if not _hinted(replay.said()):  # most conversations: no hint in any answer, one search each
        return []
    return [t.message for t in replay.turns if triggers(t.message.text)]


def read(
    text: str, names: frozenset[str] | None = None, asked: frozenset[str] = frozenset()
) -> Reading:
    """What `text` holds; `names` are the declared tools (None when none are declared), `asked`
    the JSON name keys the instructions quote (`asked`)."""
    if not triggers(text):
        return EMPTY
    scan = TextScanner(text, names, asked)
    marks = tokens.tokens(scan)
    frames = harmony.frames(scan, marks)
    tags = list(scan.blocks("<tool_call>", "</tool_call>"))
    responses = list(scan.blocks("<tool_response>", "</tool_response>"))
    calls = harmony.calls(scan, frames)
    tagged = function_tag.calls(scan, tags)
    calls += tagged + hermes.calls(scan, tags, tagged)
    calls += mistral.calls(scan, marks)
    calls += python_tag.calls(scan, marks)
    calls += kimi.calls(scan, marks)
    calls += pythonic.calls(scan, marks)
    segments = react.segments(scan)
    steps = react.steps(segments)
    calls += react.calls(scan, steps)
    calls += prose_json.calls(scan)
    calls.sort(key=lambda c: c.span)
    blocks = tuple(sorted(tags + responses, key=lambda b: b.span))
    return Reading(segments, steps, tuple(calls), frames, marks, blocks)
