"""Where FB004 (ungrounded-argument) looks for the source of an identifier a call passes.

`GivenTexts` is the screen's plain search for an identifier written as a whole token in an
earlier text; `GroundingIndex` is the check's index of every written form (`identifiers.keys`)
of the identifiers the conversation gave, read only as far as one still lacks a source.

What gives an identifier, by role: system, developer and user turns; tool results and the
arguments of the successful calls they answer; the assistant's words the user then said yes
to ("Is your account AC-55821-X?" "Yes."); and, where several agents talk (a `name` on
assistant turns), what another agent said, which the calling agent heard as its input (the
orchestrator's "go to https://…"). The calling agent's own earlier words give nothing, nor do
notes no other agent sees (Magentic-One's `… (thought)`).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Sequence
from functools import lru_cache
from itertools import accumulate

import orjson

from auditor.model import Conversation, Message
from auditor.reading import identifiers
from auditor.reading.arguments import strings
from auditor.replay import Exchange, Replay
from auditor.replay.approvals import verdict
from auditor.rules._agents import speaker

GIVERS = ("system", "developer", "user")
"""Roles whose texts give the agent identifiers (tool results give them too)."""


class GroundingIndex:
    """The keys of every identifier the conversation gave, as far as it has been read.

    Only texts that could hold a grounding token are tokenised: a text must contain the pieces
    of at least one of the identifiers the calls pass (`identifiers.signature`), found with
    plain substring searches. With more than `MAX_SIGNATURES` of them, every text is tokenised,
    so the work stays linear however many identifiers a conversation passes.
    """

    def __init__(
        self, phones: bool, candidates: list[tuple[str, str, str]], replay: Replay
    ) -> None:
        self.replay = replay
        self._succeeded: dict[int, Exchange] | None = None
        self.seen: set[str] = set()
        self.phones = phones
        self.declarations_read = False
        self.candidates = candidates
        self._signatures: list[tuple[str, ...]] | None = None
        self._made = False
        self.heard: dict[str, set[str]] = {}
        """Keys of what agents said where several talk -> the agents that said them."""
        self.proposed = ""
        """The assistant's latest words: what a yes from the user confirms."""

    @property
    def signatures(self) -> list[tuple[str, ...]] | None:
        """The pieces to look for before tokenising a long text; None: tokenise every text.
        Made on first use: most conversations never need them."""
        if not self._made:
            self._made = True
            found = {
                alternative
                for _, token, sort in dict.fromkeys(self.candidates)
                for alternative in identifiers.signature(token, sort)
            }
            if 0 < len(found) <= MAX_SIGNATURES and all(found):
                self._signatures = list(found)
        return self._signatures

    def grounds(
        self,
        token: str,
        sort: str,
        conversation: Conversation | None = None,
        caller: str | None = None,
    ) -> bool:
        """Whether what was read so far gives the identifier to `caller` (the calling agent,
        where several talk); with the conversation, the tool declarations are read when nothing
        else does (most identifiers come from users and tool results, so most conversations
        never need them)."""
        forms = identifiers.lookups(token, sort)
        if not forms.isdisjoint(self.seen):
            return True
        if self.heard and any(self.heard.get(f, {caller}) - {caller} for f in forms):
            return True
        if conversation is not None and not self.declarations_read:
            self.declarations_read = True
            self.declared(conversation)
            return not forms.isdisjoint(self.seen)
        return False

    def declared(self, conversation: Conversation) -> None:
        """The identifiers in the tool declarations and the policy kept beside the messages
        (tau2's), and the tools' names."""
        tools = conversation.tools or ()
        text = "\n".join(f"{t.name} {t.description} {_written(t.parameters)}" for t in tools)
        self.seen.update(t.name.lower() for t in tools)
        for given in (text, conversation.instructions):
            if given:  # the same in every conversation of a log: read once
                self.seen.update(_keys_of(given, self.phones))

    def read(self, messages: Sequence[Message]) -> None:
        """What the messages give: system and user turns' texts, tool results, and the
        arguments of the successful calls those results answer (one loop: it is hot)."""
        seen, phones = self.seen, self.phones
        if self._succeeded is None:
            self._succeeded = {
                e.result_turn: e for e in self.replay.exchanges if e.result_turn and not e.failed
            }
        succeeded = self._succeeded
        low, high = _CACHED
        for message in messages:
            result = message.result
            if result is not None:
                texts = [result.text]
                answered = succeeded.get(message.index)
                if answered is not None:  # its arguments as logged: one text, not per value
                    call = answered.call
                    texts.append(call.raw_arguments or " ".join(v for _, v, _ in strings(call)))
            elif message.role in GIVERS:
                texts = [message.text]
                if message.role == "user" and self.proposed and verdict(message.text):
                    texts.append(self.proposed)  # the user said yes to what it names
                self.proposed = ""
            else:
                for call in message.tool_calls:
                    seen.add(call.name.lower())
                if message.role == "assistant" and message.text:
                    self._said(message)
                continue
            for text in texts:
                size = len(text)
                if low <= size <= high:  # one lookup, relevant or not
                    seen.update(_keys_of(text, phones))
                elif size < _SHORT or self._relevant(text):
                    identifiers.index(seen, text, phones)

    def _said(self, message: Message) -> None:
        """An assistant's words: what a yes confirms; where agents are named, what the others
        hear."""
        self.proposed = message.text
        agent = speaker(message.name)
        if agent is None or not self._relevant(message.text):
            return
        keys: set[str] = set()
        identifiers.index(keys, message.text, self.phones)
        for key in keys:
            self.heard.setdefault(key, set()).add(agent)

    def _relevant(self, text: str) -> bool:
        signatures = self.signatures
        return signatures is None or _holds(text.lower().__contains__, signatures)


def _holds(has: Callable[[str], bool], signatures: list[tuple[str, ...]]) -> bool:
    return any(all(map(has, pieces)) for pieces in signatures)


MAX_SIGNATURES = 64
"""Identifiers whose pieces are looked for in each text before it is tokenised."""
_SHORT = 200
"""Texts shorter than this are tokenised at once: cheaper than looking for pieces first."""
_CACHED = (1_000, 50_000)
"""Texts of this length are indexed once for the whole run: system prompts and declarations,
which a log repeats in every conversation."""


def _written(parameters: object) -> str:
    """A tool's parameters as JSON text; empty when nested deeper than orjson writes (255)."""
    try:
        return orjson.dumps(parameters).decode()
    except TypeError:
        return ""


@lru_cache(maxsize=128)
def _keys_of(text: str, phones: bool) -> frozenset[str]:
    seen: set[str] = set()
    identifiers.index(seen, text, phones)
    return frozenset(seen)


class GivenTexts:
    """The texts `GroundingIndex.read` reads (system, developer and user turns, tool results),
    joined by newlines, to find an identifier written as a whole token with C-speed searches: as
    the call writes it first, then in any case (the texts lowered, on first need).

    Every match `before` accepts is a token `identifiers.index` would index under the
    identifier's own bare form, so the check finds it grounded too. Lowering keeps positions:
    a text that lowering would lengthen (`İ`) is replaced by as many spaces, and every other
    character lowers to one character of the same class (identifier character or not)."""

    def __init__(self, messages: Sequence[Message]) -> None:
        picked = [m for m in messages if m.result is not None or m.role in GIVERS]
        self.turns = [m.index for m in picked]
        self.texts = texts = [m.text if m.result is None else m.result.text for m in picked]
        self.text = "\n".join(texts)
        self.starts = list(accumulate((len(t) + 1 for t in texts[:-1]), initial=0))
        self._lowered: str | None = None
        self.first: dict[str, int] = {}
        """Where the first whole-token match of each identifier starts, as written."""
        self.first_lowered: dict[str, int] = {}
        """The same in any case."""

    @property
    def lowered(self) -> str:
        if self._lowered is None:
            lowered = self.text.lower()  # one call for every text: most are ASCII
            if len(lowered) != len(self.text):
                lowered = "\n".join(
                    low if len(low) == len(t) else " " * len(t)
                    for t, low in zip(self.texts, map(str.lower, self.texts), strict=True)
                )
            self._lowered = lowered
        return self._lowered

    def before(self, token: str, turn: int) -> bool:
        """Whether a text before message `turn` holds `token` as a whole token."""
        needle = identifiers.bare(token)
        if not needle:
            return False
        k = bisect_left(self.turns, turn)
        limit = self.starts[k] if k < len(self.turns) else len(self.text) + 1
        at = self.first.get(needle)
        if at is None:  # as the call writes it (`bare` but in its own case)
            written = token.strip(identifiers.PUNCT).lstrip("#")
            at = self.first[needle] = _find(self.text, written, needle)
        if at < limit:
            return True
        at = self.first_lowered.get(needle)
        if at is None:
            at = self.first_lowered[needle] = _find(self.lowered, needle, needle)
        return at < limit


def _find(text: str, written: str, needle: str) -> int:
    """Where the first whole-token match of `written` in `text` starts, whose bare form is
    `needle`, or past the end. A match is whole when no identifier character touches it, but
    for one `#` before it and punctuation after it that `bare` strips; after `MAX_TRIES`
    matches inside longer tokens the search gives up (the check then reads the texts itself)."""
    end_of_text = len(text)
    is_id = identifiers.is_id_char
    size = len(written)
    pos = text.find(written) if written else -1
    for _ in range(MAX_TRIES):
        if pos < 0:
            break
        start, end = pos, pos + size
        if start and text[start - 1] == "#":
            start -= 1
        while end < end_of_text and end - pos - size < 8 and text[end] in _TRAILING:
            end += 1
        if (
            (start == 0 or not is_id(text[start - 1]))
            and (end == end_of_text or not is_id(text[end]))
            and identifiers.bare(text[start:end]) == needle
        ):
            return pos
        pos = text.find(written, pos + 1)
    return end_of_text + 1


MAX_TRIES = 16
"""Matches of one identifier inside longer tokens `_find` skips before it gives up."""
_TRAILING = frozenset(".:?=&%")
"""Identifier characters that `bare` strips from a token's end."""
