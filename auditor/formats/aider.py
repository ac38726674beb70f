"""Aider chat history (`.aider.chat.history.md`): markdown, one conversation per session.

`# aider chat started at YYYY-MM-DD hh:mm:ss` starts a session (text before the first such line,
when it holds a user turn, is a session too); a session the model never answered (aider
started and quit, commands only) is no conversation. In a session, lines starting `#### ` are the
user's input (a run of them is one turn; slash commands such as `/add` and `/undo` included),
lines starting `> ` are aider's own console output, and every other line is the model's reply
(its `<thinking-content-…>` or `<think>` blocks are its reasoning).

Edits written in a reply are calls of origin `text`, id `edit-<line>`: in the `diff` formats
each SEARCH/REPLACE block (`<<<<<<< SEARCH` … `=======` … `>>>>>>> REPLACE`, its file named on
a line just before it or by the block before) is an `edit` call `{path, search, replace}`; in
the `whole` format a file named before a fenced block is a `write` call `{path, content}` when
the console says aider applied or failed to apply an edit to that file. A reply to an `/ask`
question edits nothing. The console lines after a reply answer its edits: `Applied edit to
<path>` is a success; a `SearchReplaceNoExactMatch` section quoting a block's SEARCH text, or
`The LLM did not conform to the edit format` with no section naming the block, makes that
block's result an error carrying the section, unless the console adds that the other blocks
were applied; an edit the console says nothing about (the
session was interrupted, the user declined) is answered by a result whose outcome is not
recorded. Shell commands aider offers to run, lint and test output stay console text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from auditor.common.patterns import lazy
from auditor.formats import contract
from auditor.formats._common import (
    MessageDraft,
    Problem,
    conversation,
    freeze,
    line_entries,
    line_matches,
    line_search,
    result_draft,
    unrecorded_draft,
)
from auditor.model import Conversation, Location, ToolCall
from auditor.sources import Record

NAME = "aider"
KIND = contract.TEXT
DETECT_KEYS = None
Collector = None
inferred = contract.no_inference

_STARTED = lazy(rb"(?m)^# aider chat started at \d{4}-\d\d-\d\d")
_SESSION = "# aider chat started at "
"""A session header, where it starts a line."""
_MARK = r"(####|>)(?: ([^\n]*)|[ \t]*)$"
_MARK_AT = lazy(_MARK, re.M)
"""A console line (`> …`), not `>>>>>>> REPLACE`: matched where `_blocks` finds a `>` that starts
a line and no run of one-line console messages (`_CONSOLE_RUN`) starts there."""
_TWO_SPACES_END = lazy(r"  $", re.M)
"""Two spaces that end a line: after a character that is not a space, the end of a console
message that runs over several lines."""
_CONSOLE_RUN = lazy(r"(?:> [^\n]*  (?:\n|\Z)|>  (?:\n|\Z))+")
"""Consecutive console lines that each end a message (two trailing spaces)."""
_USER_RUN = lazy(r"(?:####(?: [^\n]*|[ \t]*)(?:\n|\Z))+")
"""Consecutive user lines (a message pasted over several lines)."""
# Line marks, found with `line_matches` (they start a line): each begins with its literal.
_SEARCH = lazy(r"<<<<<<{0,4} SEARCH[^\n]*\n")
_DIVIDER = lazy(r"======{0,4}[ \t]*\n")
_REPLACE = lazy(r">>>>>>{0,4} REPLACE[^\n]*$", re.M)
_FENCE = lazy(r"^(?:```|~~~|</?source)")
_APPLIED = lazy(r"Applied edit to (.+?)\s*$", re.M)
_NO_MATCH = lazy(
    r"## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in ([^\n]+)$"
    r"\n<{5,9} SEARCH\n(.*?)^={5,9}",
    re.M | re.S,
)
_THINKING = lazy(r"<(thinking-content-\w{1,64}|think)>")
_UNCLOSED_NAMES = 8
"""Distinct tag names looked for a closing of before the rest are taken as unclosed."""
_NOT_CONFORMED = "The LLM did not conform to the edit format."
_OTHERS = lazy(r"The other \d+ SEARCH/REPLACE blocks? (?:were|was) applied successfully\.")
_WHOLE = lazy(
    r"^([^\n`]{1,200})\n(?:```|<source>)[^\n]*\n(.*?)^(?:```|</source>)[ \t]*$", re.M | re.S
)


def sniff(head: bytes) -> bool:
    """The first bytes of a file are an aider chat history's."""
    return _STARTED.search(head) is not None


def detect(record: Record) -> bool:
    value = record.value
    return sniff(value[:16384].encode("utf-8", "replace"))


def parse(record: Record) -> Iterator[Conversation | Problem]:
    text, path = record.value, record.location.path
    starts = [0] if text.startswith(_SESSION) else []
    at = text.find("\n" + _SESSION)
    while at >= 0:  # a literal search: a regex's `^` would be tried at every position
        starts.append(at + 1)
        at = text.find("\n" + _SESSION, at + 1)
    if not starts or "\n#### " in text[: starts[0]] or text.startswith("#### "):
        starts.insert(0, 0)
    for start, end, line in line_entries(text, starts):
        location = Location(path, line)
        drafts = _session(text[start:end], location)
        if any(d.role == "assistant" for d in drafts):  # not a session the model never answered
            yield from conversation(NAME, {}, location, freeze(drafts), [])


def _session(text: str, location: Location) -> list[MessageDraft]:
    drafts: list[MessageDraft] = []
    reply: tuple[MessageDraft, list[tuple[ToolCall, str]]] | None = None
    asked = False
    for kind, block, first in _blocks(text):
        if isinstance(block, _Console):
            if reply is None:
                continue  # console output that answers no reply: nothing reads it
            body = block.text()
        else:
            body = block
        if not body.strip():
            continue  # a session header alone
        here = Location(location.path, location.line + first)  # type: ignore[operator]
        body = body.strip("\n")
        if kind == "user":
            if reply is not None:
                drafts.extend(_answers(reply[1], "", here, []))
                reply = None
            asked = body.startswith("/ask")
            drafts.append(MessageDraft("user", here, [_sent(body)]))
        elif kind == "reply":
            if reply is not None:
                drafts.extend(_answers(reply[1], "", here, []))
            thinking: list[str] = []
            if "<think" in body:
                thinking, body = _thinking(body)
            turn = MessageDraft("assistant", here, [body], reasoning=thinking)
            edits = [] if asked else _edits(body, here)
            turn.calls.extend(call for call, _ in edits)
            drafts.append(turn)
            reply = (turn, edits)
        elif reply is not None:  # console output after a reply: its edits' outcome
            turn, edits = reply
            applied = _applied(body)
            if applied:
                named = {c.arguments["path"] for c, _ in edits}
                edits.extend(_whole_edits(turn, applied, here, named))
            drafts.extend(_answers(edits, body, here, applied))
            reply = None
    if reply is not None:
        drafts.extend(_answers(reply[1], "", location, []))
    return drafts


def _thinking(body: str) -> tuple[list[str], str]:
    """The reasoning blocks of a reply (`<think>…</think>`, `<thinking-content-…>…`) and the
    reply without them, each opening matched with the first closing of its name after it.

    Linear: an opening whose name has no closing after it is skipped, and that name is not
    looked for again (a reply cut off inside a block, or hundreds of unclosed tags, cost one
    scan a name, and at most `_UNCLOSED_NAMES` names are looked for in vain)."""
    blocks: list[str] = []
    kept: list[str] = []
    at = 0
    unclosed: set[str] = set()
    for m in _THINKING.finditer(body):
        name = m.group(1)
        if m.start() < at or name in unclosed:
            continue
        if len(unclosed) >= _UNCLOSED_NAMES:
            break
        end = body.find(f"</{name}>", m.end())
        if end < 0:
            unclosed.add(name)
            continue
        blocks.append(body[m.end() : end].strip())
        kept.append(body[at : m.start()])
        at = end + len(name) + 3
    if not blocks:
        return [], body
    kept.append(body[at:])
    return blocks, "".join(kept).strip()


def _sent(body: str) -> str:
    """What a user turn sent the model: after a command that takes a message (`/ask hi`),
    aider logs the message it sent again (` hi`); a bare command stays as typed."""
    if not body.startswith("/") and "\n/" not in body:
        return body  # no command: the turn as typed
    lines = body.split("\n")
    said = [line for line in lines if not line.startswith("/")]
    if any(line.strip() for line in said) and len(said) < len(lines):
        return "\n".join(said).strip()
    return body


def _blocks(text: str) -> Iterator[tuple[str, str | _Console, int]]:
    """(kind, text, index of its first line) of each run of user, console or reply lines,
    user and console lines without their marks (a console block's text is made when read).

    Aider marks a console message with `> ` on its first line and two trailing spaces on its
    last: the lines of a message that runs over several lines (`--show-repo`, a `Tokens:` line
    wrapped before `Cost:`) are console lines until that last one. The marks are found with
    two literal searches (`\\n####`, `\\n>`), each hit kept until passed (a regex for both
    would try a match after every newline); runs of one-line console messages and the model's
    replies between marks (most of a history) are sliced, not visited line by line.
    """
    kind, first = "", 0
    parts: list[str | tuple[int, int, bool]] = []
    pos = line = 0  # text before `pos` is classified; `line` is the index of pos's line
    if text.startswith(_SESSION):
        pos, line = text.find("\n") + 1 or len(text), 1
    size = len(text)
    # where the next `####` and `>` that start a line are, at or after `after` (a miss, -1,
    # becomes past the end): each is looked for again only once passed
    user = 0 if text.startswith("####") else text.find("\n####") % (size + 1) + 1
    console = 0 if text.startswith(">") else text.find("\n>") % (size + 1) + 1
    after = pos
    while True:
        if user < after:
            user = text.find("\n####", after - 1) % (size + 1) + 1
        if console < after:
            console = text.find("\n>", after - 1) % (size + 1) + 1
        start = user if user < console else console
        if start >= size:
            break
        after = start + 1  # unless it is a mark, look on from there
        m = None
        if start == user:
            run = _USER_RUN.match(text, start)
        elif (run := _CONSOLE_RUN.match(text, start)) is None:
            m = _MARK_AT.match(text, start)  # a message over several lines, or no mark
            if m is None:
                continue  # `>>>>>>> REPLACE`
        if run is None and m is None:
            continue  # `#####`
        gap = text[pos:start]
        at = line  # the line `pos` is on
        line += gap.count("\n")  # the line this mark is on
        here = "user" if start == user else "console"
        if m is not None:  # a console message that runs over several lines
            end = m.end()
            stop = _message_end(text, end)  # the message ends where aider ended it
            body: str | tuple[int, int, bool] = (
                (start, stop, False) if end < size else (m.group(2) or "").rstrip() + "\n"
            )
            end = stop
        else:  # one-line console messages, or user lines: the run of them
            end = run.end() - 1 if run.group(0).endswith("\n") else run.end()  # type: ignore[union-attr]
            if here == "console":
                body = (start, end, True)
            else:
                body = "\n".join([x[5:].rstrip() for x in text[start:end].split("\n")])
        if gap and not gap.isspace():  # the model's reply, as written
            reply = gap.strip("\n")
            if kind:
                yield kind, _block(text, parts), first
            kind, parts, first = "", [], 0
            yield "reply", reply, at + gap.index(reply[0])  # after the blank lines before it
        elif kind == here:
            parts.extend([""] * (line - at))  # blank lines inside a run
        if here != kind:
            if kind:
                yield kind, _block(text, parts), first
            kind, parts, first = here, [], line
        parts.append(body)
        line += text.count("\n", start, end) + 1  # past the newline that ends it
        pos = after = end + 1
    rest = text[pos:]
    if kind:
        yield kind, _block(text, parts), first
    if rest and not rest.isspace():
        reply = rest.strip("\n")
        yield "reply", reply, line + rest.index(reply[0])


def _block(text: str, parts: list[str | tuple[int, int, bool]]) -> str | _Console:
    """A user block's text, or a console block to be made into text when read."""
    if any(type(part) is tuple for part in parts):
        return _Console(text, parts)
    return "\n".join(parts)  # type: ignore[arg-type]


class _Console:
    """The lines of a console block, made into its text only when read: most console output
    answers no reply, and nothing reads it."""

    __slots__ = ("parts", "source")

    def __init__(self, source: str, parts: list[str | tuple[int, int, bool]]) -> None:
        self.source = source
        self.parts = parts
        """Lines, as text or as (start, end, all): the source's lines from start to end without
        their trailing spaces, and without their console mark (`> `): all of them, or the
        first (a message that runs over several lines)."""

    def text(self) -> str:
        lines = []
        for part in self.parts:
            if isinstance(part, str):
                lines.append(part)
                continue
            start, end, every = part
            logged = self.source[start:end].split("\n")
            if every:
                lines.extend([x[2:].rstrip() for x in logged])
            else:
                lines.append(logged[0][2:].rstrip())
                lines.extend([x.rstrip() for x in logged[1:]])
        return "\n".join(lines)


def _message_end(text: str, pos: int) -> int:
    """Where the first line after `pos` that ends in a character and two spaces ends (the end
    of the text if none does)."""
    while (m := _TWO_SPACES_END.search(text, pos)) is not None:
        start = m.start()
        if start and not text[start - 1].isspace():
            return m.end()
        pos = start + 1
    return len(text)


def _edits(reply: str, here: Location) -> list[tuple[ToolCall, str]]:
    """(call, its SEARCH text) for each SEARCH/REPLACE block of a reply; a block that does not
    close (`>>>>>>> REPLACE` missing) is an edit too, with what it holds after `=======`."""
    if "SEARCH" not in reply:
        return []
    found = []
    path = ""
    line, counted = here.line, 0  # the line of `counted`: lines are counted once, block to block
    for at, search, replace in _blocks_in(reply):
        path = _file_before(reply, at) or path
        line += reply.count("\n", counted, at)  # type: ignore[operator]
        counted = at
        call = ToolCall(
            f"edit-{line}",
            "edit",
            {"path": path, "search": search, "replace": replace},
            origin="text",
            location=Location(here.path, line),
        )
        found.append((call, search))
    return found


def _blocks_in(reply: str) -> Iterator[tuple[int, str, str]]:
    """(where it starts, SEARCH text, REPLACE text) of each block of a reply: from a `<<<<<<<
    SEARCH` line to the next one, split at `=======` and ended at `>>>>>>> REPLACE` if any."""
    opened = list(line_matches(_SEARCH, reply))
    for k, m in enumerate(opened):
        end = opened[k + 1].start() if k + 1 < len(opened) else len(reply)
        divider = line_search(_DIVIDER, reply, m.end(), end)
        middle = divider.start() if divider is not None else end
        close = line_search(_REPLACE, reply, divider.end() if divider else m.end(), end)
        search = reply[m.end() : close.start() if close and not divider else middle]
        replace = reply[divider.end() : close.start() if close else end] if divider else ""
        yield m.start(), search.rstrip("\n"), replace.rstrip("\n")


def _file_before(reply: str, at: int) -> str:
    """The file a block edits, named on one of the three lines before it (aider's rule)."""
    before = reply[max(0, at - 1000) : at].split("\n")[-4:-1]
    for line in reversed(before):
        name = line.strip().strip("*`#:").strip()
        if name and not _FENCE.match(line.strip()) and " " not in name:
            return name
    return ""


def _applied(console: str) -> list[str]:
    """The files the console says aider applied an edit to, in order."""
    if "Applied edit to " not in console:  # the usual case, without a multi-line search
        return []
    return [m.group(1) for m in line_matches(_APPLIED, console)]


def _whole_edits(
    turn: MessageDraft, edited: list[str], here: Location, named: set[str]
) -> list[tuple[ToolCall, str]]:
    """`write` calls for the files the console says were edited (`edited`) that no block names
    (the whole-file format: a file name, then the file in a fence)."""
    found: list[tuple[ToolCall, str]] = []
    for path in dict.fromkeys(edited):
        if path in named:
            continue
        content = next(
            (m.group(2) for m in _WHOLE.finditer(turn.text) if m.group(1).strip("*`# ") == path), ""
        )
        call = ToolCall(
            f"write-{here.line}-{len(found)}",
            "write",
            {"path": path, "content": content},
            origin="text",
        )
        turn.calls.append(call)
        found.append((call, ""))
    return found


def _answers(
    edits: list[tuple[ToolCall, str]], console: str, here: Location, edited: list[str]
) -> list[MessageDraft]:
    """The results of a reply's edits, from the console lines that follow it (`edited`: the
    files they say aider applied an edit to)."""
    if not edits:
        return []
    applied = set(edited)
    failed = (
        {_squeeze(m.group(2)): m for m in line_matches(_NO_MATCH, console)}
        if "SearchReplaceNoExactMatch" in console
        else {}
    )
    nonconforming = _NOT_CONFORMED in console
    others = _OTHERS.search(console)
    drafts = []
    for call, search in edits:
        path = call.arguments["path"]
        section = failed.get(_squeeze(search)) if search and failed else None
        if section is not None:
            text = console[section.start() : section.end()].rstrip("=").strip()
            drafts.append(result_draft(call.id, text, here, True, call.name))
        elif path in applied:
            drafts.append(result_draft(call.id, f"Applied edit to {path}", here, False, call.name))
        elif others is not None and failed:
            drafts.append(result_draft(call.id, others.group(0), here, False, call.name))
        elif nonconforming:
            drafts.append(result_draft(call.id, _NOT_CONFORMED, here, True, call.name))
        else:
            drafts.append(unrecorded_draft(call.id, here, call.name))
    return drafts


def _squeeze(text: str) -> str:
    """A SEARCH text as the console quotes it and as the reply wrote it, compared alike."""
    return "\n".join(line.rstrip() for line in text.strip("\n").split("\n"))
