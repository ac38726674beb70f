"""Actions written in assistant text and answered by the environment: one walk, declared per reader.

SWE-agent's text mode, mini-swe-agent 1.x, OpenHands' non-function-calling mode and the code
executors of multi-agent chats follow one protocol: the model writes an action in its message (a
fenced block, a `<function=…>` tag), the harness runs it and answers with a message of its own.
A reader declares how its framework does it in a `TextProtocol`, and `pair` turns the drafts it read
into calls (origin `text`) and their results:

- `actions(draft)`: the actions a message writes, in order (`fenced`, `function_tags`);
- `runs`: which of them the harness runs: `all`, the `first` or the `last`;
- `answers(draft)`: whether a message is the environment's answer (default: a user message);
  `opening`: the words an answer starts with, when it has them (`EXECUTION RESULT of [NAME]:`):
  only a message that starts so (or a refusal) answers, and the result's text is what follows;
- `roles`, `reach`, `skip`: where an answer looks for the actions it answers: the message right
  before it (default), or the latest of the `reach` messages before it that writes one, not
  counting those `skip(earlier, answer)` names; only messages of `roles` (None: any) write
  actions, and never a message with structured calls;
- `failed(text)`: whether an answer reports a failure: True or False, or None when it does not
  say (replay then reads the text, `replay.looks_like_error`); `outcomes(actions, text, failed)`
  tells them apart when one answer reports several actions (AG2 stops at the first that fails);
- `refusal`: the start of a harness reply that refuses the turn's actions ("Please always provide
  EXACTLY ONE action …", SWE-agent's "Your proposed edit has introduced new syntax error(s) …"):
  none of them ran. Each is still a call (the model made it), answered by the reply as an error
  whose `ran` is False: EX003 reports it with the harness's reason, and refusals in a row are a
  loop (LP002; LP001 when the same action is refused each time);
- `issued`: the harness parses every assistant message, so an action the transcript ends on is a
  call without a result (otherwise, as in a multi-agent chat where code may only be shown, it
  stays text). An action followed by a message that does not answer it stays text either way:
  nothing ran it, and EX003 reads it there. Actions the log records its harness parsing
  (`pair`'s `parsed`) are calls, answered or not;
- `ident(action, answer, k)`: the call's id, from the positions of the message that writes the
  action and of its answer (`pair`'s `numbers`), and the action's rank among those that ran.

An answer becomes one `tool` message per action it answers, in its place, each with the whole
answer as its text. Adding a framework is declaring its TextProtocol: a few lines.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from auditor.common.patterns import lazy
from auditor.formats._common import MessageDraft
from auditor.model import Location, ToolCall, ToolResult

MAX_ACTIONS = 64
"""Actions read in one message."""


@dataclass(frozen=True, slots=True)
class Action:
    """An action as the model wrote it."""

    name: str
    arguments: dict[str, Any]
    location: Location | None = None
    """Where it is written, when more precise than its message."""
    written: str = ""
    """How it is written, where a protocol tells actions apart by it (a fence's language)."""


def _from_user(draft: MessageDraft) -> bool:
    return draft.role == "user"


def _unsaid(text: str) -> bool | None:
    return None


def _action_id(action: int, answer: int, k: int) -> str:
    return f"action-{action}" if k == 0 else f"action-{action}-{k}"


@dataclass(frozen=True)
class TextProtocol:
    """How one framework writes actions in text and answers them (see the module's docstring)."""

    actions: Callable[[MessageDraft], Sequence[Action]]
    runs: Literal["all", "first", "last"] = "all"
    answers: Callable[[MessageDraft], bool] = _from_user
    opening: re.Pattern[str] | None = None
    failed: Callable[[str], bool | None] = _unsaid
    refusal: re.Pattern[str] | None = None
    roles: frozenset[str] | None = field(default=frozenset({"assistant"}))
    reach: int = 1
    skip: Callable[[MessageDraft, MessageDraft], bool] | None = None
    issued: bool = False
    outcomes: Callable[[Sequence[Action], str, bool | None], list[bool | None]] | None = None
    ident: Callable[[int, int, int], str] = _action_id


def pair(
    drafts: list[MessageDraft],
    protocols: Sequence[TextProtocol],
    numbers: Sequence[int] | None = None,
    parsed: Mapping[int, Sequence[Action]] | None = None,
) -> list[MessageDraft]:
    """The drafts with the actions their text writes made calls, and the answers their results.

    `numbers` are the drafts' own indexes in the log, for ids (their positions when None);
    `parsed` holds, by position, the actions a log recorded its harness parsing from a message
    (SWE-agent's `action`): the protocol's parser reads the others. Linear: each message's
    actions are read once, and an answer looks back at most `reach` messages.
    """
    walk = _Walk(drafts, numbers or range(len(drafts)), parsed or {})
    for n, answer in enumerate(drafts):
        for protocol in protocols:
            if protocol.answers(answer) and walk.answer(n, protocol):
                break
    for protocol in protocols:
        walk.issue(protocol)
    return walk.result()


class _Walk:
    """The state of one `pair`: actions read, messages answered, answers replaced."""

    def __init__(
        self,
        drafts: list[MessageDraft],
        numbers: Sequence[int],
        parsed: Mapping[int, Sequence[Action]],
    ) -> None:
        self.drafts = drafts
        self.numbers = numbers
        self.parsed = parsed
        self.structured = {i for i, d in enumerate(drafts) if d.calls}
        self.read: dict[tuple[int, int], Sequence[Action]] = {}
        self.answered: set[int] = set()
        self.replaced: dict[int, list[MessageDraft]] = {}

    def actions(self, i: int, protocol: TextProtocol) -> Sequence[Action]:
        """The actions message `i` writes, by the log's record or the protocol's parser."""
        draft = self.drafts[i]
        roles = protocol.roles
        if i in self.structured or (roles is not None and draft.role not in roles):
            return ()
        key = (i, id(protocol))
        found = self.read.get(key)
        if found is None:
            found = self.parsed[i] if i in self.parsed else protocol.actions(draft)
            self.read[key] = found = _ran(found[:MAX_ACTIONS], protocol.runs)
        return found

    def answer(self, n: int, protocol: TextProtocol) -> bool:
        """Make message `n` the answer to the actions it answers; False when there are none."""
        answer = self.drafts[n]
        text = answer.text
        refused = protocol.refusal is not None and protocol.refusal.match(text) is not None
        if protocol.opening is not None and not refused:
            opened = protocol.opening.match(text)
            if opened is None:
                return False
            text = text[opened.end() :]
        checked = 0
        for i in range(n - 1, -1, -1):
            earlier = self.drafts[i]
            if protocol.skip is not None and protocol.skip(earlier, answer):
                continue
            actions = self.actions(i, protocol)
            if actions:
                break
            checked += 1
            if checked >= protocol.reach:
                return False
        else:
            return False
        failed = True if refused else protocol.failed(text)
        if refused or protocol.outcomes is None or len(actions) == 1:
            outcomes: list[bool | None] = [failed] * len(actions)
        else:
            outcomes = protocol.outcomes(actions, text, failed)
        results = []
        for k, (action, outcome) in enumerate(zip(actions, outcomes, strict=False)):
            call_id = protocol.ident(self.numbers[i], self.numbers[n], k)
            self.drafts[i].calls.append(_call(call_id, action))
            result = ToolResult(call_id, text, outcome, None, ran=False if refused else None)
            results.append(
                MessageDraft("tool", answer.location, [text], result=result, name=answer.name)
            )
        self.answered.add(i)
        self.replaced[n] = results
        return True

    def issue(self, protocol: TextProtocol) -> None:
        """Actions no answer followed that were still issued: those the log says its harness
        parsed, and, in a framework that runs every message's, the one the transcript ends on."""
        last = len(self.drafts) - 1
        issued = [i for i in self.parsed if i not in self.answered]
        if protocol.issued and last >= 0 and last not in self.answered and last not in self.parsed:
            issued.append(last)
        for i in issued:
            for k, action in enumerate(self.actions(i, protocol)):
                call_id = protocol.ident(self.numbers[i], self.numbers[i], k)
                self.drafts[i].calls.append(_call(call_id, action))

    def result(self) -> list[MessageDraft]:
        if not self.replaced:
            return self.drafts
        return [d for i, d in enumerate(self.drafts) for d in self.replaced.get(i, (d,))]


def _ran(actions: Sequence[Action], runs: str) -> Sequence[Action]:
    if not actions or runs == "all":
        return actions
    return actions[:1] if runs == "first" else actions[-1:]


def _call(call_id: str, action: Action) -> ToolCall:
    return ToolCall(call_id, action.name, action.arguments, origin="text", location=action.location)


# --- how actions are written ---------------------------------------------------------------


def fenced(language: str, tool: str, key: str) -> Callable[[MessageDraft], list[Action]]:
    """Fenced blocks of one language (mini-swe-agent's ```` ```bash ````, matched as its
    `` ```bash\\s*\n(.*?)\n``` `` does): each an action of `tool` whose argument `key` is the
    block's body."""
    opener = re.compile(rf"```{re.escape(language)}[ \t\r\f\v]*+\n")

    def actions(draft: MessageDraft) -> list[Action]:
        text = draft.text
        if "```" not in text:
            return []
        return [Action(tool, {key: text[m.end() : end]}) for m, end in fences(text, opener)]

    return actions


_CLOSING_FENCE = lazy(r"\n```")


def fences(
    text: str,
    opener: re.Pattern[str],
    closer: re.Pattern[str] = _CLOSING_FENCE,
    limit: int = MAX_ACTIONS,
) -> Iterator[tuple[re.Match[str], int]]:
    """Each opening fence (`opener`, matched where it stands) with where its body ends: at the
    first `closer` that starts at or after the body does, non-overlapping. Closers are found
    in one pass and looked up by position, so the scan is linear on hostile text; an opener
    left unclosed ends it (every later one is too)."""
    closers = list(closer.finditer(text))
    starts = [c.start() for c in closers]
    pos = found = 0
    while found < limit:
        m = opener.search(text, pos)
        if m is None:
            return
        k = bisect.bisect_left(starts, m.end())
        if k == len(starts):
            return
        yield m, starts[k]
        found += 1
        pos = closers[k].end()


_FUNCTION = lazy(r"<function=([^>\s]{1,64})>")
_PARAMETER = lazy(r"<parameter=([^>\s]{1,64})>")


def function_tags(draft: MessageDraft) -> list[Action]:
    """OpenHands' prompt-based calls: `<function=NAME>` then `<parameter=P>V</parameter>` pairs,
    up to `</function>` or the end of the text (the stop word `</function` cuts it off)."""
    text = draft.text
    if "<function=" not in text:
        return []
    opens = list(_FUNCTION.finditer(text))[:MAX_ACTIONS]
    found = []
    for i, m in enumerate(opens):
        nxt = opens[i + 1].start() if i + 1 < len(opens) else len(text)
        end = text.find("</function>", m.end(), nxt)
        body = text[m.end() : nxt if end < 0 else end]
        found.append(Action(m.group(1), _parameters(body)))
    return found


def _parameters(body: str) -> dict[str, Any]:
    """`<parameter=P>V</parameter>` pairs, each value stripped as OpenHands strips it; a value
    left open runs to the next parameter."""
    out: dict[str, Any] = {}
    opens = list(_PARAMETER.finditer(body))[:MAX_ACTIONS]
    for i, m in enumerate(opens):
        nxt = opens[i + 1].start() if i + 1 < len(opens) else len(body)
        end = body.find("</parameter>", m.end(), nxt)
        out[m.group(1)] = body[m.end() : nxt if end < 0 else end].strip()
    return out


# --- what marks a failure ------------------------------------------------------------------


def exit_status(pattern: str, window: int = 0) -> Callable[[str], bool | None]:
    """An answer that writes its exit status (group 1 of `pattern`) failed when it is not 0;
    with `window`, only the answer's last `window` characters are searched (a status written
    after the output), else the pattern must match at its start."""
    compiled = re.compile(pattern)

    def failed(text: str) -> bool | None:
        if window:
            found = None
            for found in compiled.finditer(text, max(0, len(text) - window)):  # noqa: B007
                pass
        else:
            found = compiled.match(text)
        return None if found is None else int(found.group(1)) != 0

    return failed
