"""gpt-oss conversations rendered in the harmony format (`.txt`).

Frames are `<|start|>HEADER<|message|>CONTENT` ended by `<|end|>`, `<|call|>` or `<|return|>`.
The header names the author (`system`, `developer`, `user`, `assistant`, or a tool such as
`functions.get_weather`), then optionally ` to=RECIPIENT`, `<|channel|>CHANNEL` and a content
type (`json`, `<|constrain|>json`, `code`). An assistant frame addressed to a tool
(`to=functions.NAME`, `to=browser.search`, `to=python`) is a call (these are the protocol's own
call fields, so of origin `structured`); a frame authored by a tool is its result, answering
the oldest open call (harmony has no call ids). The assistant's consecutive frames up to a call
are one turn: `analysis` is its reasoning, `commentary` and `final` its text. Tools declared in
the system or developer message (`## python`, `namespace functions { type NAME = … }`) become
the declared tools: `functions.` is dropped from names, other namespaces are kept
(`browser.search`). A trailing `<|start|>assistant` with no message is the prompt awaiting
the model's answer and is not a turn. Text before the first `<|start|>` that holds a
`<|message|>` (a stream picked up mid-frame) is read as an assistant frame.
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
    attach,
    fallback_id,
    freeze,
    result_draft,
    tool_call,
)
from auditor.model import Conversation, Location, ToolCall, ToolSpec
from auditor.sources import Record

NAME = "harmony"
KIND = contract.TEXT
DETECT_KEYS = None
Collector = None
inferred = contract.no_inference
START, MESSAGE, CHANNEL = "<|start|>", "<|message|>", "<|channel|>"
_END = lazy(r"<\|(end|call|return)\|>")
_AUTHORS = frozenset({"system", "developer", "user", "assistant"})
_SECTION = lazy(r"^## ([\w.-]+)[ \t]*$", re.M)
_NAMESPACE = lazy(r"^namespace ([\w.-]+) \{", re.M)
_TYPE = lazy(r"^type (\w+) =", re.M)


def sniff(head: bytes) -> bool:
    """The first bytes of a file are a harmony transcript's."""
    return START.encode() in head and MESSAGE.encode() in head


def detect(record: Record) -> bool:
    return START in record.value and MESSAGE in record.value


def parse(record: Record) -> Iterator[Conversation | Problem]:
    text: str = record.value
    path = record.location.path
    problems: list[Problem] = []
    drafts: list[MessageDraft] = []
    tools: dict[str, ToolSpec] = {}
    turn: MessageDraft | None = None  # the assistant's turn while it goes on
    for line, header, content, end, last in _frames(text):
        here = Location(path, line)
        if header is None:
            if not last:
                problems.append(Problem(here, "harmony frame without `<|message|>`"))
            continue
        author, recipient, channel, typed = _header(header)
        if author == "assistant":
            if turn is None:
                turn = MessageDraft("assistant", here)
                drafts.append(turn)
            if recipient and recipient not in ("user", "all"):
                turn.calls.append(_call(recipient, content, typed, here))
            elif channel == "analysis":
                turn.reasoning.append(content)
            else:
                turn.texts.append(content)
            if end in ("call", "return"):
                turn = None
            continue
        turn = None
        if author in _AUTHORS:
            drafts.append(MessageDraft(author, here, [content]))
            if author in ("system", "developer"):
                for spec in declared(content):
                    tools.setdefault(spec.name, spec)
        else:
            name = author.removeprefix("functions.")
            drafts.append(result_draft(None, content, here, None, name))
    first = Location(path, drafts[0].location.line) if drafts else Location(path, 1)
    conversation_id = fallback_id(record.location)
    yield from attach(problems, conversation_id)
    yield Conversation(
        conversation_id, NAME, first, freeze(drafts), tools=tuple(tools.values()) or None
    )


def _frames(text: str) -> Iterator[tuple[int, str | None, str, str | None, bool]]:
    """(line, header or None, content, how it ended, is last) for every frame, in order."""
    starts = [m.start() for m in re.finditer(re.escape(START), text)]
    segments = [(0, text[: starts[0]])] if starts and MESSAGE in text[: starts[0]] else []
    for i, begin in enumerate(starts):
        stop = starts[i + 1] if i + 1 < len(starts) else len(text)
        segments.append((begin, text[begin + len(START) : stop]))
    line, counted = 1, 0
    for i, (offset, segment) in enumerate(segments):
        line += text.count("\n", counted, offset)
        counted = offset
        header, found, rest = segment.partition(MESSAGE)
        last = i == len(segments) - 1
        if not found:
            if header.strip() or not last:
                yield line, None, "", None, last
            continue
        match = _END.search(rest)
        content = rest[: match.start()] if match else rest
        yield line, header, content, match.group(1) if match else None, last


def _header(header: str) -> tuple[str, str | None, str | None, bool]:
    """(author, recipient, channel, whether the content is declared JSON)."""
    before, _, after = header.replace("<|constrain|>", " ").partition(CHANNEL)
    words = before.split()
    channel_words = after.split()
    author = words[0] if words and not words[0].startswith("to=") else "assistant"
    recipient = next(
        (w[3:] for w in (*words, *channel_words) if w.startswith("to=") and len(w) > 3), None
    )
    channel = channel_words[0] if channel_words and not channel_words[0].startswith("to=") else None
    return author, recipient, channel, "json" in (*words[1:], *channel_words[1:])


def _call(recipient: str, content: str, typed: bool, here: Location) -> ToolCall:
    name = recipient.removeprefix("functions.")
    if typed or recipient.startswith("functions."):
        return tool_call(None, name, content, here)
    try:
        orjson.loads(content)
    except orjson.JSONDecodeError:
        return tool_call(None, name, {"input": content}, here)
    return tool_call(None, name, content, here)


def declared(text: str) -> list[ToolSpec]:
    """The tools a system or developer message declares under `# Tools`."""
    start = text.find("# Tools")
    if start < 0:
        return []
    body = text[start + len("# Tools") :]
    end = re.search(r"^# ", body, re.M)
    body = body[: end.start()] if end else body
    sections = list(_SECTION.finditer(body))
    specs: list[ToolSpec] = []
    for i, section in enumerate(sections):
        stop = sections[i + 1].start() if i + 1 < len(sections) else len(body)
        part = body[section.end() : stop]
        namespace = _NAMESPACE.search(part)
        if namespace is None:
            specs.append(ToolSpec(section.group(1)))
            continue
        prefix = "" if namespace.group(1) == "functions" else namespace.group(1) + "."
        specs.extend(ToolSpec(prefix + t) for t in _TYPE.findall(part, namespace.end()))
    return specs
