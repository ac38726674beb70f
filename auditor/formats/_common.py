"""Helpers every format shares: text of content parts, tool declarations, call arguments."""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, TypeVar

import orjson

from auditor.canonical import TOO_DEEP, depth_exceeds
from auditor.common.text import cut
from auditor.model import (
    UNRECORDED,
    ApprovalDecision,
    ApprovalRequest,
    Conversation,
    Location,
    Message,
    ToolCall,
    ToolResult,
    ToolSpec,
)

if TYPE_CHECKING:
    pass

TEXT_PART_TYPES = frozenset({"text", "input_text", "output_text"})
# Keys a record may carry its own conversation id under, most specific first.
ID_KEYS = ("id", "conversation_id", "session_id", "thread_id", "trace_id")


@dataclass(frozen=True, slots=True)
class Problem:
    """Part of a recognised record that does not have the expected shape (reported as IN002)."""

    location: Location
    reason: str
    conversation: str | None = None
    """The id of the conversation the part belongs to, when there is one."""
    evidence: str = ""


def attach(problems: Iterable[Problem], conversation: str) -> Iterator[Problem]:
    """The problems found while reading a conversation, labelled with its id."""
    return (replace(p, conversation=conversation) for p in problems)


def excerpt_json(value: Any, limit: int = 80) -> str:
    """A short excerpt of a JSON value, for a Problem's evidence."""
    try:
        text = orjson.dumps(value).decode()
    except TypeError:  # nested deeper than orjson writes, or an integer past 64 bits
        text = _shallow(value, limit)
    return cut(text, limit)


def _shallow(value: Any, limit: int) -> str:
    """The opening of a value too deep for orjson to write: its first items, no recursion."""
    parts: list[str] = []
    size = 0
    while size <= limit:
        if isinstance(value, list) and value:
            parts.append("[")
            value = value[0]
        elif isinstance(value, dict) and value:
            key = next(iter(value))
            parts.append("{" + orjson.dumps(str(key)).decode() + ": ")
            value = value[key]
        else:
            parts.append(repr(value)[: limit + 1])
            break
        size += len(parts[-1])
    return "".join(parts)


def type_of(value: Any) -> str | None:
    """The `type` of a JSON object when it is a string; None for anything else.

    Readers compare and look up types in sets: a `type` that is a list or an object (valid JSON,
    malformed log) must read as "no type", not raise `unhashable type`.
    """
    if isinstance(value, dict):
        kind = value.get("type")
        if type(kind) is str:
            return kind
    return None


def json_text(value: Any) -> str:
    """A JSON value as compact text (a tool result logged as an object); a string stays itself."""
    if isinstance(value, str):
        return value
    try:
        return orjson.dumps(value).decode()
    except TypeError:  # nested deeper than orjson writes
        return _shallow(value, 2000)


def text_of(content: Any) -> str:
    """The text of a message's content: a string, or the text parts of a list of parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        if len(content) == 1:  # most lists of parts: one text part, no join
            return _part_text(content[0])
        return "\n".join(t for t in map(_part_text, content) if t)
    if isinstance(content, dict):
        return _part_text(content)
    if isinstance(content, bool | int | float):
        return str(content)
    return ""


def _part_text(part: Any) -> str:
    if isinstance(part, str):
        return part
    if isinstance(part, dict):
        text = part.get("text")
        kind = part.get("type", "text")
        if isinstance(text, str) and type(kind) is str and kind in TEXT_PART_TYPES:
            return text
    return ""


def as_object(value: Any) -> dict:
    """A JSON object, or an empty one for anything else (an optional field read safely)."""
    return value if isinstance(value, dict) else {}


PART_SKIPPED = "content part skipped"


def part_problem(part: Any) -> str | None:
    """Why a content part is of no readable shape (dropped from the text); None when it is
    readable or simply not text (an image, a document)."""
    if isinstance(part, str):
        return None
    if not isinstance(part, dict):
        return "not an object or a string"
    kind = part.get("type", "text")
    if type(kind) is not str:
        return "its `type` is not a string"
    if kind in TEXT_PART_TYPES and "text" in part and not isinstance(part["text"], str):
        return "its `text` is not a string"
    return None


def malformed_parts(parts: list[Any], location: Location, problems: list[Problem]) -> None:
    """One Problem for the first content part of no readable shape in `parts` (the content
    at `location`), unless the conversation whose problems these are already has one."""
    for j, part in enumerate(parts):
        if malformed_part(part, location.child("content", j), problems):
            return


def malformed_part(part: Any, where: Location, problems: list[Problem]) -> bool:
    """Whether `part` is of no readable shape; if so, a Problem at `where`, once per
    conversation (`problems` are the conversation's)."""
    why = part_problem(part)
    if why is None:
        return False
    if not any(p.reason.startswith(PART_SKIPPED) for p in problems):
        problems.append(
            Problem(
                where,
                f"{PART_SKIPPED}: {why} (said once per conversation)",
                evidence=excerpt_json(part),
            )
        )
    return True


def as_id(value: Any) -> str | None:
    """An id as a string; ids logged as numbers are still ids."""
    if isinstance(value, str):
        return value or None
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None


def tool_call(
    call_id: Any,
    name: Any,
    arguments: Any,
    location: Location,
    origin: str = "structured",
) -> ToolCall:
    """A ToolCall with its arguments parsed once: a JSON string is parsed with orjson here.

    Arguments nested deeper than `canonical.MAX_DEPTH` are kept as text with an
    `arguments_error`, as unreadable arguments are (EX006 reports them).
    """
    name = name if isinstance(name, str) else ""
    cid = as_id(call_id)
    if isinstance(arguments, str):
        error = None
        try:
            parsed = orjson.loads(arguments) if arguments.strip() else {}
        except orjson.JSONDecodeError as exc:
            error = f"{exc.msg} at column {exc.colno}"
        else:
            if depth_exceeds(arguments):
                error = TOO_DEEP
        if error is not None:
            return ToolCall(cid, name, None, arguments, error, origin, location)  # type: ignore[arg-type]
        return ToolCall(cid, name, parsed, arguments, None, origin, location)  # type: ignore[arg-type]
    if arguments is None:
        arguments = {}
    elif depth_exceeds(arguments):
        raw = excerpt_json(arguments, 2000)
        error = TOO_DEEP
        return ToolCall(cid, name, None, raw, error, origin, location)  # type: ignore[arg-type]
    return ToolCall(cid, name, arguments, None, None, origin, location)  # type: ignore[arg-type]


def tool_specs(tools: Any) -> tuple[ToolSpec, ...] | None:
    """Declared tools in any of the shapes APIs use; None when the log declares none.

    Accepts OpenAI chat (`{"type": "function", "function": {...}}`), flat
    (`{"name", "parameters"}`, as the Responses API writes them), Anthropic
    (`{"name", "input_schema"}`) and a mapping of name to declaration. A log declares the same
    tools in every conversation: the same declarations give the same ToolSpecs, read once.
    """
    if not tools or not isinstance(tools, list | dict):
        return None
    try:
        key = orjson.dumps(tools)
    except TypeError:  # nested deeper than orjson writes, or an integer past 64 bits
        return _tool_specs(tools)
    found = _SPECS.get(key, _SPECS)
    if found is _SPECS:
        if len(_SPECS) >= _SPECS_KEPT:
            _SPECS.clear()
        found = _SPECS[key] = _tool_specs(tools)
    return found  # type: ignore[return-value]


_SPECS: dict[bytes, tuple[ToolSpec, ...] | None] = {}
_SPECS_KEPT = 64


def _tool_specs(tools: Any) -> tuple[ToolSpec, ...] | None:
    if isinstance(tools, dict):
        tools = [
            {"name": name, **spec} if isinstance(spec, dict) else {"name": name}
            for name, spec in tools.items()
        ]
    if not isinstance(tools, list) or not tools:
        return None
    specs = []
    for tool in tools:
        if not isinstance(tool, dict):
            continue
        fn = fn if isinstance(fn := tool.get("function"), dict) else tool
        name = fn.get("name")
        if not isinstance(name, str) or not name:
            continue
        schema = fn.get("parameters", fn.get("input_schema", fn.get("inputSchema")))
        description = fn.get("description")
        specs.append(ToolSpec(name, description if isinstance(description, str) else "", schema))
    return tuple(specs) if specs else None


def own_id(record: dict, *keys: str) -> str | None:
    """The first of `keys` that holds an id in `record`."""
    for key in keys:
        value = as_id(record.get(key))
        if value:
            return value
    return None


def fallback_id(location: Location, index: int | None = None) -> str:
    """The id of a conversation that names none: `path:line` for a JSON Lines record,
    `path#index` inside a document."""
    base = location.path if location.line is None else f"{location.path}:{location.line}"
    return base if index is None else f"{base}#{index}"


@dataclass
class MessageDraft:
    """A message still being assembled: formats that build one turn from several parts or lines
    (content blocks, typed items, one block per line) fill it in, then freeze it."""

    role: str
    location: Location
    texts: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    calls: list[ToolCall] = field(default_factory=list)
    result: ToolResult | None = None
    name: str | None = None
    approval_request: ApprovalRequest | None = None
    approval_decision: ApprovalDecision | None = None
    tag: str = ""
    """Where the draft came from, for formats that must recognise a message logged twice."""

    @classmethod
    def of(cls, message: Message) -> MessageDraft:
        """A draft holding an already normalised message (its index is set again on freezing)."""
        return cls(
            message.role,
            message.location,
            [message.text] if message.text else [],
            [message.reasoning] if message.reasoning else [],
            list(message.tool_calls),
            message.result,
            message.name,
            message.approval_request,
            message.approval_decision,
        )

    @property
    def text(self) -> str:
        return _joined(self.texts)

    def freeze(self, index: int) -> Message:
        return Message(
            index,
            self.role,
            _joined(self.texts),
            self.location,
            tuple(self.calls),
            self.result,
            self.name,
            _joined(self.reasoning),
            self.approval_request,
            self.approval_decision,
        )


def _joined(texts: list[str]) -> str:
    """The texts that say something, one a line (most drafts hold one text, or none)."""
    if len(texts) == 1:
        text = texts[0]
        return "" if not text or text.isspace() else text
    if not texts:
        return ""
    return "\n".join(t for t in texts if t and not t.isspace())


def freeze(drafts: Iterable[MessageDraft]) -> tuple[Message, ...]:
    """The drafts as messages, indexed in order."""
    return tuple(d.freeze(i) for i, d in enumerate(drafts))


def positioned(
    messages: tuple[Message, ...], base: Location, keys: tuple[str, ...]
) -> tuple[Message, ...]:
    """The messages, each with its place in the file's own list (`Message.position`): the
    index after one of `keys` in its pointer below the conversation's (`/history/4/…` is 4 for
    `("history",)`; `("",)` reads a list that is the record itself, `/3` is 3). A message the
    reader made with no such index of its own (a result the log does not keep) takes the place
    of the one before it, where a person would look for it."""
    prefixes = tuple(f"{base.pointer}/{k}/" if k else f"{base.pointer}/" for k in keys)
    out = []
    place: int | None = None
    for message in messages:
        pointer = message.location.pointer or ""
        for prefix in prefixes:
            if pointer.startswith(prefix):
                digits = pointer[len(prefix) :].split("/", 1)[0]
                if digits.isdigit():
                    place = int(digits)
                break
        out.append(message if place is None else replace(message, position=place))
    return tuple(out)


def positioned_by_line(
    messages: tuple[Message, ...], places: dict[int, int] | None = None
) -> tuple[Message, ...]:
    """The messages, each with its place in the file (`Message.position`) read from its line:
    the event's 0-based line index in a JSON Lines stream of events, or with `places` (a
    line -> entry number map) the entry of a text log the message came from. A message with
    no line of its own takes the place of the one before it."""
    out = []
    place: int | None = None
    for message in messages:
        line = message.location.line
        if line is not None:
            place = line - 1 if places is None else places.get(line, place)
        out.append(message if place is None else replace(message, position=place))
    return tuple(out)


def result_draft(
    call_id: Any,
    text: str,
    location: Location,
    is_error: Any = None,
    name: Any = None,
) -> MessageDraft:
    """A `tool` message carrying one result."""
    return MessageDraft(
        "tool",
        location,
        [text],
        result=ToolResult(
            as_id(call_id),
            text,
            is_error if isinstance(is_error, bool) else None,
            name if isinstance(name, str) else None,
        ),
    )


def unrecorded_draft(call_id: Any, location: Location, name: Any = None) -> MessageDraft:
    """A `tool` message saying the log keeps the call, not what came of it."""
    draft = result_draft(call_id, UNRECORDED, location, None, name)
    draft.result.unrecorded = True  # type: ignore[union-attr]
    return draft


class OpenCalls:
    """Calls waiting for their results, in order: the first of them, the first with an id or
    a name, each found without a scan (a turn of thousands of calls answered in reverse order
    would otherwise cost the square of them). A call taken is marked, and dropped from each
    queue when it comes to its front."""

    def __init__(self) -> None:
        self._order: deque[_Waiting] = deque()
        self._by_id: dict[str, deque[_Waiting]] = {}
        self._by_name: dict[str, deque[_Waiting]] = {}
        self._slots: dict[int, deque[_Waiting]] = {}
        """Per call object, its places still open: one, unless a reader listed it twice."""

    def add(self, call: ToolCall) -> None:
        slot = _Waiting(call)
        self._slots.setdefault(id(call), deque()).append(slot)
        self._order.append(slot)
        if call.id is not None:
            self._by_id.setdefault(call.id, deque()).append(slot)
        self._by_name.setdefault(call.name, deque()).append(slot)

    @staticmethod
    def _front(queue: deque[_Waiting] | None) -> ToolCall | None:
        while queue and queue[0].taken:
            queue.popleft()
        return queue[0].call if queue else None

    def first(self) -> ToolCall | None:
        return self._front(self._order)

    def with_id(self, call_id: str) -> ToolCall | None:
        return self._front(self._by_id.get(call_id))

    def named(self, name: str) -> ToolCall | None:
        return self._front(self._by_name.get(name))

    def take(self, call: ToolCall) -> None:
        """Mark `call` (one this holds) answered."""
        slots = self._slots[id(call)]
        slots.popleft().taken = True
        if not slots:
            del self._slots[id(call)]


@dataclass(slots=True)
class _Waiting:
    call: ToolCall
    taken: bool = False


def with_results(main: MessageDraft, results: list[MessageDraft]) -> list[MessageDraft]:
    """A message and the `tool` messages its parts hold, in conversation order: an assistant's
    own results (server-run tools) follow it; a user message's results (of the previous turn's
    calls) come first, then what the user wrote beside them, if anything."""
    if main.role == "assistant":
        return [main, *results]
    if main.texts or main.reasoning or main.calls or not results:
        results.append(main)
    return results


def containers(
    value: Any, location: Location, key: str, what: str
) -> Iterator[tuple[dict, Location, int | None] | Problem]:
    """The conversation objects of a record: the record itself, or each item of a list.

    Each comes with its location and its index in the list (None for the record itself); an
    item without a `key` list is a Problem saying it is not `what`.
    """
    if isinstance(value, dict):
        yield value, location, None
        return
    for i, item in enumerate(value):
        if isinstance(item, dict) and isinstance(item.get(key), list):
            yield item, location.child(i), i
        else:
            yield Problem(location.child(i), f"expected {what}", evidence=excerpt_json(item))


def conversation(
    fmt: str,
    value: Any,
    location: Location,
    messages: tuple[Message, ...],
    problems: list[Problem],
    index: int | None = None,
    **fields: Any,
) -> Iterator[Conversation | Problem]:
    """The problems met while reading a conversation, then the conversation itself.

    Its id is the record's own (`ID_KEYS`) when it has one, otherwise `path:line#index`.
    """
    cid = own_id(value, *ID_KEYS) if isinstance(value, dict) else None
    conversation_id = cid or fallback_id(location, index)
    yield from attach(problems, conversation_id)
    yield Conversation(conversation_id, fmt, location, messages, own_id=cid is not None, **fields)


Unit = TypeVar("Unit", bound=tuple)


def read_each(
    units: Iterable[Unit | Problem], read: Callable[..., Iterable[Conversation | Problem]]
) -> Iterator[Conversation | Problem]:
    """`read(*unit)` for every unit (a tuple whose second item is its Location), each alone.

    A unit that breaks its reader, however malformed, becomes one Problem at its location and
    the units after it are still read: one bad conversation of a 200-conversation document
    costs that conversation, not the document (the record boundary; see `auditor.engine`).
    """
    for unit in units:
        if isinstance(unit, Problem):
            yield unit
            continue
        try:
            items = list(read(*unit))
        except Exception as exc:
            yield Problem(unit[1], unreadable(exc))
            continue
        yield from items


class Unreadable(Exception):
    """A reader's own account of why a part cannot be read: `unreadable` gives it as it is."""


def unreadable(exc: BaseException) -> str:
    """The reason given for a part of a record that broke its reader."""
    if isinstance(exc, RecursionError):
        return "could not be read: values nested too deep"
    if isinstance(exc, Unreadable):
        return f"could not be read: {_first_line(str(exc), 300)}"
    return f"could not be read: {type(exc).__name__}: {_first_line(str(exc))}"


def _first_line(text: str, limit: int = 120) -> str:
    return cut(text.strip().split("\n", 1)[0], limit)


def line_matches(
    pattern: re.Pattern[str], text: str, pos: int = 0, endpos: int | None = None
) -> Iterator[re.Match[str]]:
    """`pattern.finditer(text, pos, endpos)` as if the pattern began with `^` in multi-line
    mode: the matches that start a line. A text reader's line marks are written so (`pattern`
    starting with their literal): the engine then searches for the literal at C speed, where a
    leading `^` makes it try the pattern at every position of the text."""
    end = len(text) if endpos is None else endpos
    while (m := pattern.search(text, pos, end)) is not None:
        start = m.start()
        if start and text[start - 1] != "\n":
            pos = start + 1
            continue
        yield m
        pos = max(m.end(), start + 1)


def line_search(
    pattern: re.Pattern[str], text: str, pos: int = 0, endpos: int | None = None
) -> re.Match[str] | None:
    """The first of `line_matches`, or None."""
    return next(line_matches(pattern, text, pos, endpos), None)


def line_entries(text: str, starts: list[int]) -> Iterator[tuple[int, int, int]]:
    """(start, end, line) of each entry of a text log: from each of `starts` (the ascending
    offsets of the lines that open an entry) to the next or the end of the text, with the
    1-based line it opens on, counted once through the text."""
    line = 1
    previous = 0
    for start, end in zip(starts, [*starts[1:], len(text)], strict=True):
        line += text.count("\n", previous, start)
        previous = start
        yield start, end, line


def roled(
    items: list, location: Location, problems: list[Problem], what: str = "a message object"
) -> Iterator[tuple[int, dict, Location]]:
    """(index, item, location) for the items of a message list that have a string `role`;
    each other item becomes a Problem."""
    path, line, prefix = location.path, location.line, location.pointer
    for i, item in enumerate(items):
        here = Location(path, line, f"{prefix}/{i}")  # hot: Location.child, unrolled
        if isinstance(item, dict) and isinstance(item.get("role"), str):
            yield i, item, here
        else:
            problems.append(
                Problem(here, f"expected {what} with a string `role`", evidence=excerpt_json(item))
            )
