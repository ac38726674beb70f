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
  `to=functions.NAME … <|call|>`, and ReAct `Action:`. Where tools are declared a name must
  be one of them; where none are, only strong structure counts (a name with its arguments, or
  special tokens around it).
- `frames`: harmony frames (`<|start|>author<|channel|>…<|message|>body<|end|>`).
- `tokens`: chat-template control tokens, each flagged when it sits inside backticks.
- `blocks`: `<tool_call>` and `<tool_response>` blocks.

Whether something is a call is decided from structure: a strict JSON parse, or for malformed
JSON a literal `"name": "…"` in the raw text. json-repair (imported lazily, handed at most
`MAX_REPAIR` characters) only shows what the model meant. Every regex is linear on hostile
text and the work per message is capped, so a megabyte of `{` or `Action:` costs a scan.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import orjson

from auditor.model import Conversation, Message

if TYPE_CHECKING:
    from auditor.replay import Replay

MAX_SCAN = 1_000_000
"""Characters the JSON bracket scanner may visit in one message, over all values."""
MAX_VALUE = 200_000
"""Characters one JSON value may span."""
MAX_CANDIDATES = 200
"""JSON starts examined in the prose of one message."""
MAX_REPAIR = 20_000
"""Characters handed to json-repair at once."""
MAX_REPAIRS = 8
"""json-repair calls per message."""
MAX_BLOCKS = 1_000
"""Tagged blocks (`<tool_call>`, `<function=…>`, `[TOOL_CALLS]`, …) read per message."""
MAX_MARKS = 4_000
"""ReAct labels and control tokens read per message (a real message has a handful)."""

Span = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Segment:
    """One ReAct label and its value: `Action: search` is label `Action`, value `search`."""

    label: str
    """`Thought`, `Action`, `Action Input`, `Observation` or `Final Answer`."""
    value: str
    """The text after the label, stripped; for a JSON Action Input, exactly the JSON."""
    span: Span


@dataclass(frozen=True, slots=True)
class Step:
    """A ReAct Action with the input and observation written after it in the same text."""

    action: Segment
    action_input: Segment | None
    observation: Segment | None


@dataclass(frozen=True, slots=True)
class TextCall:
    """A tool call recovered from message text."""

    name: str
    arguments: Any
    """The arguments as the model meant them (parsed JSON, or text where it wrote text)."""
    dialect: str
    """`json`, `hermes`, `function-tag`, `mistral`, `python-tag`, `harmony` or `react`."""
    form: str
    """How it was written, to follow "written as text in": `the Mistral [TOOL_CALLS] dialect`."""
    span: Span
    repaired: bool = False
    """The JSON was malformed; the arguments are what json-repair recovered."""
    observed: bool = False
    """ReAct: an Observation with text follows this Action in the same message."""


@dataclass(frozen=True, slots=True)
class Frame:
    """A harmony frame: `<|start|>author to=recipient<|channel|>channel<|message|>body<|end|>`."""

    author: str | None
    """The role after `<|start|>`; None when the frame starts at `<|channel|>`."""
    recipient: str | None
    """The `to=` target: `functions.search` for a call, `assistant` for a tool's reply."""
    channel: str | None
    body: str
    terminator: str | None
    """`<|call|>`, `<|end|>` or `<|return|>`; None when the text ends inside the frame."""
    span: Span
    body_at: int
    """Where the body starts in the text."""


@dataclass(frozen=True, slots=True)
class Token:
    """A chat-template control token (`<|channel|>`, `<|im_end|>`, `[TOOL_CALLS]`, …)."""

    text: str
    span: Span
    quoted: bool
    """Inside a backtick code span or fence: quoted while explaining, not leaked."""


@dataclass(frozen=True, slots=True)
class Block:
    """A `<tool_call>` or `<tool_response>` block outside code."""

    tag: str
    body: str
    span: Span


@dataclass(frozen=True, slots=True)
class Reading:
    """Everything the recogniser found in one text, in text order."""

    segments: tuple[Segment, ...] = ()
    steps: tuple[Step, ...] = ()
    calls: tuple[TextCall, ...] = ()
    frames: tuple[Frame, ...] = ()
    tokens: tuple[Token, ...] = ()
    blocks: tuple[Block, ...] = ()

    def answers(self) -> tuple[Segment, ...]:
        """The `Final Answer:` segments that say something."""
        return tuple(s for s in self.segments if s.label == "Final Answer" and s.value)


EMPTY = Reading()

HARMONY_TOOL_AUTHORS = ("functions.", "browser.", "container.", "python")
"""Harmony authors that are tools: a frame they wrote is a tool's output."""

# Anything the reader could find needs one of these; most answers have none and cost one scan.
_TRIGGER = re.compile(r"[{\[<]|Action|Observation|Final")
_TOKEN = re.compile(
    r"<\|[a-z][a-z0-9_]{0,40}\|>"
    r"|\[(?:TOOL_CALLS|/?INST|/?TOOL_RESULTS|/?AVAILABLE_TOOLS|ARGS|CALL_ID)\]"
    r"|<｜[^｜\n]{1,40}｜>"
    r"|<(?:start|end)_of_turn>"
)
_HARMONY = frozenset(
    (
        "<|start|>",
        "<|end|>",
        "<|message|>",
        "<|channel|>",
        "<|constrain|>",
        "<|call|>",
        "<|return|>",
    )
)
_TICKS = re.compile(r"`+")
_LABEL = re.compile(
    r"^[ \t]*+(Thought|Action[ \t]*+Input|Action|Observation|Final[ \t]*+Answer)"
    r"(?:[ \t]*+\d{1,3})?[ \t]*+:",
    re.MULTILINE,
)
_VALUE_START = re.compile(r"\s*+(?:```[\w-]{0,20}\s*+)?")
_STRUCT = re.compile(r'[\[\]{}"\\]')
_JSON_START = re.compile(r"""[\[{]\s*+["'{\[]""")
_NAME_HINT = re.compile(r"""["'](?:name|tool|tool_name|action)["']\s*+:""")
_IDENT = re.compile(r"[A-Za-z_][\w.\-]{0,63}")
_RECIPIENT = re.compile(r"\bto=([^\s<]{1,128})")
_FUNCTION_TAG = re.compile(r"<function=([^>\s]{1,64})>")
_PARAMETER_TAG = re.compile(r"<parameter=([^>\s]{1,64})>")
_MISTRAL_NAME = re.compile(r"\s*+([\w.\-]{1,64})(?:\[CALL_ID\][\w\-]{0,64})?\[ARGS\]")
_PYTHON_CALL = re.compile(r"\s*+([A-Za-z_]\w{0,63})\.call\(")
_KWARG = re.compile(
    r"""(\w{1,64})\s*+=\s*+(?:"([^"]{0,2000})"|'([^']{0,2000})'|([\w.\-]{1,100}))"""
)
_BRACKET_ACTION = re.compile(r"([A-Za-z_][\w.\- ]{0,63})\[(.*)\]")
_NOT_ACTIONS = frozenset(("none", "n/a", "na", "final answer", "finish", "no action", "null"))
_RESERVED = frozenset(("tool", "tool_name", "type", "id", "call_id", "tool_call_id"))
_ARG_KEYS = ("arguments", "parameters", "tool_input", "args", "input")
_JSON_FENCES = ("", "json", "jsonc", "json5", "tool_call", "tool_code", "tool")


def tool_names(conversation: Conversation) -> frozenset[str] | None:
    """The declared tool names, or None when the conversation declares none."""
    if conversation.tools is None:
        return None
    return frozenset(t.name for t in conversation.tools)


# The readings of the replay the text rules are on: the four rules run one after the other on
# the same conversation, so each message is read once. Only one conversation is kept, so memory
# stays bounded by the largest conversation, not by the log.
_last: tuple[Replay, list[tuple[Message, Reading]]] | None = None


def read_turns(replay: Replay) -> Iterator[tuple[Message, Reading]]:
    """Every assistant message of a replay with what its text holds: the text rules' loop.

    Only `text` is read, never `reasoning`: users are not shown it, and models plan calls and
    quote templates there.
    """
    global _last
    if _last is None or _last[0] is not replay:
        names = tool_names(replay.conversation)
        _last = (replay, [(t.message, read(t.message.text, names)) for t in replay.turns])
    return iter(_last[1])


def read(text: str, names: frozenset[str] | None = None) -> Reading:
    """What `text` holds; `names` are the declared tools (None when none are declared)."""
    if not text or _TRIGGER.search(text) is None:
        return EMPTY
    return _Reader(text, names).reading()


class _Code:
    """Backtick code spans and fences: a run of N backticks closes at the next run of N."""

    def __init__(self, text: str) -> None:
        runs = [(m.start(), m.end()) for m in _TICKS.finditer(text)]
        by_length: dict[int, list[int]] = {}
        for i, (start, end) in enumerate(runs):
            by_length.setdefault(end - start, []).append(i)
        self.starts: list[int] = []
        self.spans: list[tuple[int, int, str | None]] = []
        i = 0
        while i < len(runs):
            start, end = runs[i]
            same = by_length[end - start]
            k = bisect.bisect_right(same, i)
            if k == len(same):
                i += 1
                continue
            j = same[k]
            info = None
            if end - start >= 3:
                line_end = text.find("\n", end, end + 200)
                info = text[end : line_end if line_end >= 0 else end].strip().lower()
            self.starts.append(start)
            self.spans.append((start, runs[j][1], info))
            i = j + 1

    def at(self, pos: int) -> tuple[int, int, str | None] | None:
        """The code span or fence holding `pos` (its fence info string; None for inline)."""
        k = bisect.bisect_right(self.starts, pos) - 1
        if k >= 0 and pos < self.spans[k][1]:
            return self.spans[k]
        return None


class _OpenFrame:
    """A harmony frame while its tokens are being read."""

    def __init__(self, start: int) -> None:
        self.start = start
        self.author: str | None = None
        self.channel: str | None = None
        self.recipient: str | None = None
        self.body: int | None = None

    def header(self, kind: str, after: str) -> None:
        word = after.split(None, 1)[0] if after.strip() else None
        if kind == "<|start|>":
            self.author = word
        elif kind == "<|channel|>":
            self.channel = word
        if self.recipient is None:
            found = _RECIPIENT.search(after, 0, 200)
            self.recipient = found.group(1) if found else None

    def close(self, text: str, end: int, terminator: str | None) -> list[Frame]:
        if self.body is None:
            return []  # header tokens without `<|message|>`: not a frame
        body_end = end - len(terminator) if terminator else end
        return [
            Frame(
                self.author,
                self.recipient,
                self.channel,
                text[self.body : body_end],
                terminator,
                (self.start, end),
                self.body,
            )
        ]


class _Reader:
    """One pass over one text; every piece of work is capped."""

    def __init__(self, text: str, names: frozenset[str] | None) -> None:
        self.text = text
        self.names = names
        self.code = _Code(text)
        self.scan_budget = MAX_SCAN
        self.repairs = 0
        self.taken: list[Span] = []
        """Spans already read as a call or a ReAct input: the prose JSON scan skips them."""

    def reading(self) -> Reading:
        text = self.text
        tokens = tuple(
            Token(m.group(), m.span(), self.code.at(m.start()) is not None)
            for m in itertools.islice(_TOKEN.finditer(text), MAX_MARKS)
        )
        frames = self._frames(tokens)
        tags = list(self._blocks("<tool_call>", "</tool_call>"))
        responses = list(self._blocks("<tool_response>", "</tool_response>"))
        calls = self._harmony(frames)
        tagged = self._function_tags(tags)
        calls += tagged + self._hermes(tags, tagged)
        calls += self._mistral(tokens)
        calls += self._python_tag(tokens)
        segments = self._segments()
        steps = _steps(segments)
        calls += self._react(steps)
        calls += self._prose_json()
        calls.sort(key=lambda c: c.span)
        blocks = tuple(sorted(tags + responses, key=lambda b: b.span))
        return Reading(segments, steps, tuple(calls), frames, tokens, blocks)

    # -- building blocks ------------------------------------------------------------------

    def _unquoted(self, pos: int) -> bool:
        return self.code.at(pos) is None

    def _blocks(self, opener: str, closer: str) -> Iterator[Block]:
        """`opener … closer` blocks outside code; an unclosed one ends at the next opener."""
        text = self.text
        opens = _positions(text, opener)
        closes = _positions(text, closer)
        k = 0
        for i, start in enumerate(opens):
            nxt = opens[i + 1] if i + 1 < len(opens) else len(text)
            while k < len(closes) and closes[k] < start:
                k += 1
            if not self._unquoted(start):
                continue
            body_start = start + len(opener)
            if k < len(closes) and closes[k] < nxt:
                end, body_end = closes[k] + len(closer), closes[k]
            else:
                end = body_end = nxt
            yield Block(opener[1:-1], text[body_start:body_end], (start, end))

    def _json_end(self, start: int, stop: int) -> int | None:
        """End of the JSON value opening at `start`, by bracket matching; None if unclosed."""
        limit = min(stop, start + MAX_VALUE, start + max(self.scan_budget, 0))
        end = next((i + 1 for i, depth in _brackets(self.text, start, limit) if depth <= 0), None)
        self.scan_budget -= (end or limit) - start
        return end

    def _repair(self, raw: str, call_known: bool = False) -> Any:
        """What json-repair makes of malformed JSON; None when it makes nothing useful.

        Unless the call is already known from around the JSON (a tag, a label), the raw text
        must look like it names a tool before json-repair is even tried.
        """
        if self.repairs >= MAX_REPAIRS or len(raw) > MAX_REPAIR:
            return None
        if not call_known and not _NAME_HINT.search(raw):
            return None
        self.repairs += 1
        import json_repair  # heavy: only for text that already looks like a call

        try:
            value = json_repair.loads(raw)
        except Exception:  # ValueError on deep nesting; whatever else on odd input
            return None
        return value if isinstance(value, dict | list) and value else None

    def _json_calls(
        self, start: int, stop: int, strong: bool, form: str | None, dialect: str
    ) -> tuple[list[TextCall], int]:
        """The calls in the JSON value at `start`, and where the value ends.

        `strong`: special tokens around the JSON already say it is a call, so a name is enough
        even where no tools are declared. `form` None: prose JSON, described by its shape.
        """
        text = self.text
        end = self._json_end(start, stop)
        repaired = False
        if end is not None:
            raw = text[start:end]
            try:
                value = orjson.loads(raw)
            except orjson.JSONDecodeError:
                value, repaired = self._repair(raw), True
        else:
            end = min(stop, start + MAX_VALUE)
            raw = text[start : min(end, start + MAX_REPAIR)]
            value, repaired = self._repair(raw), True
        items = value if isinstance(value, list) else [value]
        calls = []
        for item in items[:64]:
            shape = _call_shape(item, self.names, strong)
            if shape is None:
                continue
            name, key, arguments, base = shape
            if repaired and not _literal_name(raw, key, name):
                continue  # json-repair invents keys out of prose: the raw text must say it
            how = form or _prose_form(base, isinstance(value, list), self.code.at(start))
            calls.append(TextCall(name, arguments, dialect, how, (start, end), repaired))
        return calls, end

    def _arguments_at(self, start: int | None, stop: int) -> tuple[Any, bool, int]:
        """Arguments of a call already known (from a tag or a label): (value, repaired, end)."""
        if start is None:
            return {}, False, stop
        end = self._json_end(start, stop)
        raw = self.text[start : end if end is not None else stop]
        try:
            return orjson.loads(raw), False, end or stop
        except orjson.JSONDecodeError:
            fixed = self._repair(raw, call_known=True)
            if fixed is None:
                return raw.strip(), False, end or stop
            return fixed, True, end or stop

    def _value_start(self, pos: int, stop: int) -> int | None:
        """Where a JSON value starts after `pos` (whitespace, a fence line skipped), or None."""
        m = _VALUE_START.match(self.text, pos, stop)
        i = m.end() if m else pos
        return i if i < stop and self.text[i] in "{[" else None

    def _take(self, calls: Iterable[TextCall], span: Span | None = None) -> list[TextCall]:
        calls = list(calls)
        self.taken.extend(c.span for c in calls)
        if span is not None:
            self.taken.append(span)
        return calls

    # -- dialects -------------------------------------------------------------------------

    def _frames(self, tokens: tuple[Token, ...]) -> tuple[Frame, ...]:
        text = self.text
        marks = [t for t in tokens if t.text in _HARMONY and not t.quoted]
        frames: list[Frame] = []
        frame: _OpenFrame | None = None
        for i, token in enumerate(marks):
            kind = token.text
            after = text[token.span[1] : marks[i + 1].span[0] if i + 1 < len(marks) else len(text)]
            opens = kind == "<|start|>" or (
                kind in ("<|channel|>", "<|message|>") and (frame is None or frame.body is not None)
            )
            if opens:
                if frame is not None:
                    frames += frame.close(text, token.span[0], None)
                frame = _OpenFrame(token.span[0])
            if frame is None:
                continue  # a terminator with no frame open
            if kind == "<|message|>":
                frame.body = token.span[1]
            elif kind in ("<|end|>", "<|call|>", "<|return|>"):
                frames += frame.close(text, token.span[1], kind)
                frame = None
            elif frame.body is None:
                frame.header(kind, after)
        if frame is not None:
            frames += frame.close(text, len(text), None)
        return tuple(frames)

    def _harmony(self, frames: tuple[Frame, ...]) -> list[TextCall]:
        """Frames the assistant addressed to a tool: `to=functions.NAME`."""
        calls = []
        for frame in frames:
            recipient = frame.recipient
            if recipient is None or recipient in ("assistant", "user", "all"):
                continue
            if frame.author not in (None, "assistant"):
                continue
            name = recipient.removeprefix("functions.")
            if not _valid_name(name, self.names):
                continue
            body_end = frame.body_at + len(frame.body)
            value_at = self._value_start(frame.body_at, body_end)
            if value_at is None:
                arguments, repaired = frame.body.strip(), False  # code for the python tool
            else:
                arguments, repaired, _ = self._arguments_at(value_at, body_end)
            how = (
                f"the harmony `to={recipient.split('.')[0]}.…` dialect"
                if "." in recipient
                else "the harmony `to=…` dialect"
            )
            calls.append(TextCall(name, arguments, "harmony", how, frame.span, repaired))
        return self._take(calls)

    def _function_tags(self, tags: list[Block]) -> list[TextCall]:
        """Llama `<function=NAME>{json}</function>`, Qwen XML `<function=NAME><parameter=…>`."""
        text = self.text
        opens = list(_FUNCTION_TAG.finditer(text))[:MAX_BLOCKS]
        closes = _positions(text, "</function>")
        calls = []
        k = 0
        for i, m in enumerate(opens):
            start = m.start()
            nxt = opens[i + 1].start() if i + 1 < len(opens) else len(text)
            while k < len(closes) and closes[k] < start:
                k += 1
            closed = k < len(closes) and closes[k] < nxt
            body_end = closes[k] if closed else nxt
            end = body_end + len("</function>") if closed else nxt
            if not self._unquoted(start) or not _valid_name(m.group(1), self.names):
                continue
            in_tag = any(t.span[0] <= start < t.span[1] for t in tags)
            how = "the Qwen `<tool_call><function=…>` dialect" if in_tag else _LLAMA_FUNCTION
            value_at = self._value_start(m.end(), body_end)
            if value_at is None:
                arguments, repaired = _parameters(text[m.end() : body_end]), False
            else:
                arguments, repaired, _ = self._arguments_at(value_at, body_end)
            call = TextCall(m.group(1), arguments, "function-tag", how, (start, end), repaired)
            calls.append(call)
        return self._take(calls)

    def _hermes(self, tags: list[Block], tagged: list[TextCall]) -> list[TextCall]:
        calls: list[TextCall] = []
        how = "the Hermes/Qwen `<tool_call>` dialect"
        for block in tags[:MAX_BLOCKS]:
            start, end = block.span
            if any(start <= c.span[0] < end for c in tagged):
                self.taken.append(block.span)  # Qwen XML: its `<function=…>` was read already
                continue
            body_at = start + len("<tool_call>")
            body_end = body_at + len(block.body)
            value_at = self._value_start(body_at, body_end)
            if value_at is None:
                continue
            found, _ = self._json_calls(value_at, body_end, True, how, "hermes")
            calls += self._take((replace(c, span=block.span) for c in found), block.span)
        return calls

    def _mistral(self, tokens: tuple[Token, ...]) -> list[TextCall]:
        """`[TOOL_CALLS][{"name": …, "arguments": …}]`, or `[TOOL_CALLS]NAME[ARGS]{…}`."""
        text = self.text
        starts = [t for t in tokens if t.text == "[TOOL_CALLS]" and not t.quoted][:MAX_BLOCKS]
        how = "the Mistral `[TOOL_CALLS]` dialect"
        calls: list[TextCall] = []
        for i, token in enumerate(starts):
            stop = starts[i + 1].span[0] if i + 1 < len(starts) else len(text)
            value_at = self._value_start(token.span[1], stop)
            if value_at is not None:
                found, end = self._json_calls(value_at, stop, True, how, "mistral")
                calls += self._take(replace(c, span=(token.span[0], end)) for c in found)
                continue
            m = _MISTRAL_NAME.match(text, token.span[1], stop)
            if m is None or not _valid_name(m.group(1), self.names):
                continue
            arguments, repaired, end = self._arguments_at(self._value_start(m.end(), stop), stop)
            span = (token.span[0], end)
            calls += self._take([TextCall(m.group(1), arguments, "mistral", how, span, repaired)])
        return calls

    def _python_tag(self, tokens: tuple[Token, ...]) -> list[TextCall]:
        """`<|python_tag|>{"name": …, "parameters": …}` or `<|python_tag|>NAME.call(k="v")`."""
        text = self.text
        marks = [t for t in tokens if not t.quoted]
        how = "the Llama `<|python_tag|>` dialect"
        calls: list[TextCall] = []
        tags = [i for i, t in enumerate(marks) if t.text == "<|python_tag|>"][:MAX_BLOCKS]
        for i in tags:
            token = marks[i]
            nxt = marks[i + 1] if i + 1 < len(marks) else None
            stop = nxt.span[0] if nxt is not None else len(text)
            end = nxt.span[1] if nxt is not None and nxt.text in _LLAMA_ENDS else stop
            value_at = self._value_start(token.span[1], stop)
            if value_at is not None:
                found, _ = self._json_calls(value_at, stop, True, how, "python-tag")
                calls += self._take(replace(c, span=(token.span[0], end)) for c in found)
                continue
            m = _PYTHON_CALL.match(text, token.span[1], stop)
            if m is None or not _valid_name(m.group(1), self.names):
                continue
            arguments = {
                k.group(1): next(g for g in k.groups()[1:] if g is not None)
                for k in _KWARG.finditer(text, m.end(), min(stop, m.end() + MAX_REPAIR))
            }
            span = (token.span[0], end)
            calls += self._take([TextCall(m.group(1), arguments, "python-tag", how, span)])
        return calls

    def _segments(self) -> tuple[Segment, ...]:
        """ReAct labels at line starts; a JSON Action Input is skipped whole, as JSON."""
        text = self.text
        found = itertools.islice(_LABEL.finditer(text), MAX_MARKS)
        labels = [m for m in found if self._unquoted(m.start())]
        segments = []
        i = 0
        while i < len(labels):
            m = labels[i]
            label = " ".join(m.group(1).split())
            resume = m.end()
            json_span = None
            if label == "Action Input":
                stop = labels[i + 1].start() if i + 1 < len(labels) else len(text)
                value_at = self._value_start(m.end(), stop)
                end = self._json_end(value_at, len(text)) if value_at is not None else None
                if end is not None:
                    json_span = (value_at, end)
                    resume = end
            k = i + 1
            while k < len(labels) and labels[k].start() < resume:
                k += 1  # a label inside the Action Input's JSON is part of the JSON
            value_end = labels[k].start() if k < len(labels) else len(text)
            value = text[slice(*json_span)] if json_span else text[m.end() : value_end].strip()
            segments.append(Segment(label, value, (m.start(), value_end)))
            i = k
        return tuple(segments)

    def _react(self, steps: tuple[Step, ...]) -> list[TextCall]:
        calls = [call for call in map(self._react_call, steps) if call is not None]
        inputs = [s.action_input.span for s in steps if s.action_input is not None]
        self.taken.extend(inputs)
        return self._take(calls)

    def _react_call(self, step: Step) -> TextCall | None:
        line = step.action.value.split("\n", 1)[0].strip().strip("`*'\"").strip()
        if not line or len(line) > 200:
            return None
        name, arguments, has_input = line, None, False
        bracket = _BRACKET_ACTION.fullmatch(line)
        if bracket and not _valid_name(line, self.names):
            name, arguments, has_input = bracket.group(1).strip(), bracket.group(2), True
        if name.lower() in _NOT_ACTIONS or not _valid_name(name, self.names):
            return None
        repaired = False
        if step.action_input is not None:
            has_input = True
            arguments = step.action_input.value
            if arguments.startswith(("{", "[")):
                try:
                    arguments = orjson.loads(arguments)
                except orjson.JSONDecodeError:
                    fixed = self._repair(arguments, call_known=True)
                    if fixed is not None:
                        arguments, repaired = fixed, True
        if self.names is None and not has_input:
            return None  # without declared tools, `Action:` alone is too weak
        last = step.action_input or step.action
        observed = step.observation is not None and bool(step.observation.value)
        span = (step.action.span[0], last.span[1])
        return TextCall(
            name, {} if arguments is None else arguments, "react", _REACT, span, repaired, observed
        )

    def _prose_json(self) -> list[TextCall]:
        """JSON calls written in prose or in JSON fences, outside everything read so far."""
        taken = sorted(self.taken)
        starts = [s for s, _ in taken]
        calls: list[TextCall] = []
        resume = 0
        for count, m in enumerate(_JSON_START.finditer(self.text)):
            if count >= MAX_CANDIDATES or self.scan_budget <= 0:
                break
            start = m.start()
            if start < resume:
                continue
            k = bisect.bisect_right(starts, start) - 1
            if k >= 0 and start < taken[k][1]:
                resume = taken[k][1]
                continue
            code = self.code.at(start)
            if code is not None and not _json_fence(code[2]):
                resume = code[1]  # inline code, or a fence of another language
                continue
            found, resume = self._json_calls(start, len(self.text), False, None, "json")
            calls += found
        return calls


_REACT = "the ReAct `Action:` dialect"
_LLAMA_FUNCTION = "the Llama `<function=…>` dialect"
_LLAMA_ENDS = ("<|eom_id|>", "<|eot_id|>")


def _prose_form(shape: str, in_array: bool, code: tuple[int, int, str | None] | None) -> str:
    how = f"the {shape} JSON dialect"
    if in_array:
        how += ", inside a JSON array"
    if code is not None:
        how += ", in a fenced code block"
    return how


def _json_fence(info: str | None) -> bool:
    """A fence whose info string says JSON (or nothing); None is an inline code span."""
    return info is not None and (info.split() or [""])[0] in _JSON_FENCES


def _steps(segments: tuple[Segment, ...]) -> tuple[Step, ...]:
    """Each Action with the Action Input and Observation that follow it."""
    steps: list[list[Any]] = []
    current: list[Any] | None = None
    for segment in segments:
        if segment.label == "Action":
            current = [segment, None, None]
            steps.append(current)
        elif current is None:
            continue
        elif segment.label == "Action Input" and current[1] is None and current[2] is None:
            current[1] = segment
        elif segment.label == "Observation" and current[2] is None:
            current[2] = segment
        elif segment.label == "Final Answer":
            current = None
    return tuple(Step(a, i, o) for a, i, o in steps)


def _positions(text: str, needle: str) -> list[int]:
    """Every position of `needle` in `text`, at most MAX_MARKS of them."""
    found = []
    i = text.find(needle)
    while i >= 0 and len(found) < MAX_MARKS:
        found.append(i)
        i = text.find(needle, i + len(needle))
    return found


def _valid_name(name: Any, names: frozenset[str] | None) -> bool:
    """A declared tool's name; where none are declared, something shaped like a name."""
    if not isinstance(name, str):
        return False
    if names is not None:
        return name in names
    return _IDENT.fullmatch(name) is not None


def _call_shape(
    item: Any, names: frozenset[str] | None, strong: bool
) -> tuple[str, str, Any, str] | None:
    """(name, name key, arguments, shape) when `item` is a call object, else None."""
    if not isinstance(item, dict):
        return None
    for wrapper in ("function", "function_call"):
        inner = item.get(wrapper)
        if isinstance(inner, dict):
            found = _call_shape(inner, names, strong)
            if found is None:
                return None
            name, key, arguments, _ = found
            return name, key, arguments, f'`{{"{wrapper}": {{…}}}}`'
    if "description" in item or "input_schema" in item:
        return None  # a tool declaration quoted in the text, not a call
    if isinstance(item.get("tool"), str) or isinstance(item.get("tool_name"), str):
        key = "tool" if isinstance(item.get("tool"), str) else "tool_name"
        if names is None and not strong:
            return None  # a flat object names its tool only where tools are declared
        explicit = next((k for k in _ARG_KEYS if k in item), None)
        if explicit is not None:
            arguments = item[explicit]
        else:
            arguments = {k: v for k, v in item.items() if k not in _RESERVED}
        shape = f'flat `{{"{key}": …}}`'
    elif isinstance(item.get("name"), str):
        key = "name"
        arg_key = next((k for k in ("arguments", "parameters") if k in item), None)
        if arg_key is None and not strong:
            return None
        arguments = item[arg_key] if arg_key else {}
        shape = f'`{{"name": …, "{arg_key or "arguments"}": …}}`'
    elif isinstance(item.get("action"), str) and "action_input" in item:
        key = "action"
        arguments = item["action_input"]
        shape = '`{"action": …, "action_input": …}`'
    else:
        return None
    name = item[key]
    if name.lower() in _NOT_ACTIONS or not _valid_name(name, names):
        return None
    arguments = _arguments(arguments)
    if isinstance(arguments, dict) and "properties" in arguments and "type" in arguments:
        return None  # a JSON Schema: the declaration of a tool, not a call
    if names is None and not strong and not isinstance(arguments, dict):
        return None
    return name, key, arguments, shape


def _arguments(value: Any) -> Any:
    """Arguments as meant: a JSON string holding JSON is parsed, None is no arguments."""
    if value is None:
        return {}
    if isinstance(value, str) and value.strip().startswith(("{", "[")):
        try:
            return orjson.loads(value)
        except orjson.JSONDecodeError:
            return value
    return value


def _literal_name(raw: str, key: str, name: str) -> bool:
    """The raw text itself says `"key": "name"` near the top of the value.

    json-repair invents structure (prose around an object, `{"a" 1}` -> `{'a': ''}`): a call
    recovered from malformed JSON counts only if its name is written literally, inside at most
    an array, an object and a `function` wrapper.
    """
    pattern = r"""["']""" + re.escape(key) + r"""["']\s*+:\s*+["']""" + re.escape(name) + "[\"']"
    found = re.search(pattern, raw)
    return found is not None and 1 <= _depth(raw, found.start()) <= 3


def _depth(raw: str, pos: int) -> int:
    """Bracket depth at `pos`."""
    depth = 0
    for _, depth in _brackets(raw, 0, pos):  # noqa: B007 - the last depth is the answer
        pass
    return depth


def _brackets(text: str, start: int, stop: int) -> Iterator[tuple[int, int]]:
    """(position, depth after it) of each bracket outside JSON strings in `text[start:stop]`."""
    depth = 0
    in_string = False
    escaped_at = -1
    for m in _STRUCT.finditer(text, start, stop):
        i = m.start()
        c = text[i]
        if i == escaped_at:
            continue
        if c == "\\":
            escaped_at = i + 1 if in_string else escaped_at
        elif c == '"':
            in_string = not in_string
        elif not in_string:
            depth += 1 if c in "{[" else -1
            yield i, depth


def _parameters(body: str) -> dict[str, str]:
    """Qwen XML parameters: `<parameter=city>\nParis\n</parameter>`."""
    out: dict[str, str] = {}
    opens = list(_PARAMETER_TAG.finditer(body))[:MAX_BLOCKS]
    closes = _positions(body, "</parameter>")
    k = 0
    for i, m in enumerate(opens):
        nxt = opens[i + 1].start() if i + 1 < len(opens) else len(body)
        while k < len(closes) and closes[k] < m.end():
            k += 1
        end = closes[k] if k < len(closes) and closes[k] < nxt else nxt
        out[m.group(1)] = body[m.end() : end].strip("\n")
    return out
