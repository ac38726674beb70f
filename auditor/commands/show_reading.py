"""`--show-reading`: how each file was read, the minute a person needs to trust or fix it.

Per file: the readers that took its records (how many each), and what could not be read; per
conversation: its id and format, the messages by role, the calls (the tools named) and their
results (how many failed, how many calls nothing answered), then its first messages as the
model holds them, each at the turn findings name (`model.turn_of`). A reading by shape says
what it inferred (`structural`'s `inferred`). Text from the log is escaped for the terminal.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING, TextIO

from auditor.common.text import cut, dumps, safe
from auditor.formats import Problem
from auditor.model import Conversation, Message, turn_of

if TYPE_CHECKING:
    from auditor.config import Settings

SHOWN_MESSAGES = 8
"""Messages shown per conversation."""
SHOWN_CONVERSATIONS = 20
"""Conversations shown per file; the others are counted."""
_WIDTH = 100
"""Characters of a message's text shown."""


def show_reading(paths: tuple[str, ...], chosen: Settings, out: TextIO) -> None:
    from auditor import engine, sources
    from auditor.formats import FileReader, detect

    for item in engine.plan(paths, chosen):
        if not isinstance(item, sources.Source) or item.path == "-":
            continue
        reader = FileReader(chosen.input_format, declared=chosen.formats)
        found: list[Conversation] = []
        problems: list[Problem] = []
        unreadable = 0
        inferred: str | None = None  # what a reading by shape inferred, from the first record
        try:
            for record in sources.read(item):
                if not isinstance(record, sources.Record):
                    unreadable += 1
                    continue
                if inferred is None:
                    fmt = detect(record, chosen.formats)
                    inferred = (fmt.inferred(record) if fmt is not None else None) or ""
                _sort(reader.feed(record), found, problems)
            _sort(reader.finish(), found, problems)
        except OSError as exc:
            out.write(f"{safe(item.name)}: unreadable: {sources.os_reason(exc)}\n\n")
            continue
        _file(out, item.name, reader.seen, found, problems, unreadable, inferred or "")


def _sort(got: Iterable[object], found: list[Conversation], problems: list[Problem]) -> None:
    for item in got:
        if isinstance(item, Conversation):
            found.append(item)
        elif isinstance(item, Problem):
            problems.append(item)


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'s' * (n != 1)}"


def _file(
    out: TextIO,
    name: str,
    seen: dict[str, int],
    found: list[Conversation],
    problems: list[Problem],
    unreadable: int,
    inferred: str,
) -> None:
    # a format's name may be a configuration's (`[tool.auditor.formats."…"]`): escaped too
    readers = ", ".join(f"{safe(fmt)} ({_plural(n, 'record')})" for fmt, n in seen.items())
    out.write(f"{safe(name)}: read as {readers or 'nothing: no record of a known log shape'}\n")
    if inferred and inferred != next(iter(seen), ""):
        out.write(f"  {safe(inferred)}\n")
    if problems or unreadable:
        out.write(
            f"  not read: {_plural(len(problems), 'part')} of no expected shape (IN002), "
            f"{_plural(unreadable, 'invalid record')} (IN001)\n"
        )
        for problem in problems[:3]:
            where = problem.location.line or problem.location.pointer or ""
            out.write(f"    {where}: {safe(cut(problem.reason, _WIDTH))}\n")
    for conversation in found[:SHOWN_CONVERSATIONS]:
        _conversation(out, conversation)
    if len(found) > SHOWN_CONVERSATIONS:
        more = _plural(len(found) - SHOWN_CONVERSATIONS, "more conversation")
        out.write(f"  … and {more}\n")
    out.write("\n")


def _conversation(out: TextIO, conversation: Conversation) -> None:
    messages = conversation.messages
    roles = Counter(m.role for m in messages)
    calls = [c for m in messages for c in m.tool_calls]
    results = [m.result for m in messages if m.result is not None]
    answered = {r.call_id for r in results if r.call_id}
    waiting = sum(1 for c in calls if c.id is not None and c.id not in answered)
    tools = ", ".join(sorted({c.name or "(no name)" for c in calls})[:8])
    failed = sum(1 for r in results if r.is_error)
    out.write(
        f"  conversation {safe(conversation.id)} ({safe(conversation.format)}): "
        f"{_plural(len(messages), 'message')} ({', '.join(f'{n} {r}' for r, n in roles.items())}"
        f"); {_plural(len(calls), 'call')}{f' of {safe(tools)}' if tools else ''}; "
        f"{_plural(len(results), 'result')} ({failed:,} failed); "
        f"{waiting:,} unanswered by id\n"
    )
    declared = conversation.tools
    if declared is not None:
        out.write(f"    tools declared: {safe(', '.join(t.name for t in declared[:12]))}\n")
    for message in messages[:SHOWN_MESSAGES]:
        out.write(f"    {_line(message)}\n")
    if len(messages) > SHOWN_MESSAGES:
        out.write(f"    … {_plural(len(messages) - SHOWN_MESSAGES, 'more message')}\n")


def _line(message: Message) -> str:
    """A message as the model holds it: its turn, role (and author), text and calls."""
    who = message.role + (f" {message.name}" if message.name else "")
    if message.result is not None:
        result = message.result
        state = "error" if result.is_error else "unrecorded" if result.unrecorded else "ok"
        who += f" → {result.call_id or 'a call by position'} ({state})"
    parts = [f"[{turn_of(message)}] {safe(who)}:"]
    text = " ".join(message.text.split())
    if text:
        parts.append(safe(cut(text, _WIDTH)))
    for call in message.tool_calls:
        arguments = call.arguments if call.arguments is not None else call.raw_arguments
        shown = cut(dumps(arguments) if not isinstance(arguments, str) else arguments, 80)
        origin = " (written as text)" if call.origin == "text" else ""
        parts.append(f"→ {safe(call.name or '(no name)')}({safe(shown)}){origin}")
    return " ".join(parts)
