r"""A call uses an identifier that appears nowhere earlier in the conversation.

## What it does
Reads the string values of each call the assistant makes for identifiers: an id that mixes
letters and digits (`K1NW8N`, `mia_li_3668`) or is a run of five or more digits, an e-mail
address, a phone number, a URL, a file path. Fires when one of them appears nowhere before the
call: not in the system prompt, a user turn, a tool result, the declared tools, or the
arguments of an earlier call that succeeded. The same value written differently is the same
value: case, a `#`, separators, a short code around a number (`ORD-20931` and `20931`, but not
`credit_card_7334` and "ending in 7334"), a URL's `www.` or scheme, a path's leading
directories. One finding per call, naming the argument and the value; a value is reported
once. An identifier an earlier text holds as a whole token is found by a plain search; the
conversation is indexed only for the rest, once, and only as far as one still lacks a source.

## Why is this bad?
An id the agent never saw is an id it made up: an order number guessed from the pattern of
another, an e-mail address built from a first name, a URL it remembers. The call then acts on
the wrong record or fails, and in the worst case succeeds on someone else's account.

## Example
```jsonl
{"id": "guessed-id", "messages": [{"role": "user", "content": "Cancel my order please, I'm Mia Li."}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "cancel_order", "arguments": "{\"order_id\": \"#W2378156\", \"reason\": \"no longer needed\"}"}}]}, {"role": "tool", "tool_call_id": "c1", "content": "Error: order not found"}]}
```

## Does not fire on
- values the user or a tool gave, in any written form (`#20931` after "order 20931"), and the
  local part of an e-mail address the user gave (`yara_garcia_1905` from
  `yara_garcia_1905@gmail.com`, as tau-bench agents look users up);
- free text (`query`, `body`, `reason`, `pattern`, any value of three or more words) and code;
- new values the call creates: paths and ids of `create`/`write`/`mkdir`/`save` tools (or with
  a `create` command), and arguments named `new_…`, `output…`, `dest…`;
- a path below a directory the conversation named (the agent is exploring it), a site's home
  page (`https://www.udi.no/`), a file name without a directory;
- dates, times, versions, amounts and quantities (`2024-05-20`, `v1.2`, `23kg`), numbers in
  JSON (a computed total), short codes (`A4`, `gpt-4o`, `utf8`);
- calls made by a simulated user (tau2); file paths in logs without a system prompt (the working
  directory the agent was told is not in them), and logs that hold no user or system turn at all
  (a lone API response).

It misses identifiers written inside free text (an order number in an e-mail body), ids made
of a seen number and a short code (`ORD-20932` is caught, but `ORD-20931` after "20931" is
taken as the same order), and identifiers without digits or punctuation (`mia_li`).
```jsonl
{"id": "grounded", "messages": [{"role": "system", "content": "Agent for ACME. Escalations go to ops@acme.test."}, {"role": "user", "content": "Order ORD-20931 arrived broken. My number is +1 (555) 123-2002."}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_order", "arguments": "{\"order_id\": \"#20931\"}"}}]}, {"role": "tool", "tool_call_id": "c1", "content": "{\"order_id\": \"20931\", \"item_id\": \"1008292230\", \"invoice\": \"https://acme.test/invoices/20931.pdf\"}"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c2", "type": "function", "function": {"name": "create_return", "arguments": "{\"item_ids\": [\"1008292230\"], \"phone\": \"555-123-2002\", \"label_path\": \"/tmp/returns/label_20931_v2.pdf\", \"note\": \"customer reports item W7 arrived broken on 2024-05-20\"}"}}, {"id": "c3", "type": "function", "function": {"name": "notify", "arguments": "{\"to\": \"ops@acme.test\", \"invoice\": \"acme.test/invoices/20931.pdf\", \"weight\": \"2kg\"}"}}]}, {"role": "tool", "tool_call_id": "c2", "content": "return created"}, {"role": "tool", "tool_call_id": "c3", "content": "sent"}]}
```
"""

import re
from bisect import bisect_left
from collections.abc import Callable, Iterator, Sequence
from functools import lru_cache

import orjson

from auditor.findings import Severity, Violation, on_call
from auditor.model import Conversation, Message, ToolCall
from auditor.replay import Exchange, Replay
from auditor.rules import _identifiers
from auditor.rules._toolnames import words
from auditor.rules._values import strings

CODE = "FB004"
NAME = "ungrounded-argument"
SEVERITY = Severity.WARNING
REQUIRES = ("calls",)
_FREE_TEXT = """
    subject body text message content query q search description summary note notes comment
    reason title question answer prompt instructions thought thoughts explanation feedback
    caption keywords pattern regex glob filter selector expression
"""
FREE_TEXT = frozenset(_FREE_TEXT.split())
"""Argument names (or words of them) that hold free text."""
NEW_VALUES = ("new", "output", "out", "dest", "destination", "target", "save")
"""First words of argument names that hold a value the call creates."""
_GIVERS = ("system", "developer", "user")
_MAYBE_ID = re.compile(r"[\d/@.]")
CREATE_VERBS = frozenset(
    ["create", "write", "mkdir", "make", "new", "save", "touch", "generate", "init"]
)
"""First words of tool names (or whole short argument values) that say the call creates."""


def screen(replay: Replay, options: None) -> bool:
    """Some call of the assistant passes an identifier that no earlier system, developer or
    user turn or tool result holds as a whole token, in any case (`_Given`): only then can the
    check, which also reads every other written form, find it ungrounded."""
    wanted = replay.shared(CODE, _wanted)
    if not wanted:
        return False
    given = _Given(replay.conversation.messages)
    return any(
        sort == "phone number" or not given.before(token, exchange.turn)
        for exchange, found in wanted
        for _, token, sort in found
    )


def _wanted(replay: Replay) -> list[tuple[Exchange, list[tuple[str, str, str]]]]:
    return [(e, found) for e in replay.exchanges if (found := _identifiers_of(e))]


def check(replay: Replay, options: None) -> Iterator[Violation]:
    wanted = replay.shared(CODE, _wanted)
    if not wanted:
        return
    conversation = replay.conversation
    first = next((m.index for m in conversation.messages if m.role in _GIVERS), None)
    if first is None:
        return  # a lone response: what the agent was given is not in the log
    # Without its system prompt the log hides the working directory the agent was told.
    paths = any(m.role in ("system", "developer") for m in conversation.messages)
    # Phone numbers written with spaces are looked for only when a call passes one.
    phones = any(
        sort == "phone number" or token.isdigit() for _, f in wanted for _, token, sort in f
    )
    index = _Index(phones, [f for _, found in wanted for f in found], replay)
    read_to = 0
    settled: set[tuple[str, str]] = set()  # identifiers found grounded, or reported, already
    for exchange, found in wanted:
        if exchange.turn < first:
            continue
        pending = [
            f for f in found if (f[1], f[2]) not in settled and (paths or f[2] != "file path")
        ]
        # What the part read so far grounds stays grounded: read on only for the rest.
        open_ = [f for f in pending if not index.grounds(f[1], f[2])]
        if open_ and read_to < exchange.turn:
            index.read(conversation.messages[read_to : exchange.turn])
            read_to = exchange.turn
        new = [f for f in open_ if not index.grounds(f[1], f[2], conversation)]
        settled.update((token, sort) for _, token, sort in pending)
        if new:
            yield _violation(replay, exchange, list(dict.fromkeys(new)))


def _identifiers_of(exchange: Exchange) -> list[tuple[str, str, str]]:
    """(argument, token, sort) of each identifier an assistant's call passes."""
    call = exchange.call
    if exchange.caller != "assistant" or _creates(call.name):
        return []
    raw = call.raw_arguments
    if raw is None or len(raw) > 2_000 or call.arguments is None:
        return _read_identifiers(call)
    key = (call.name, raw)
    found = _SEEN_CALLS.get(key)
    if found is None:  # a call repeated with the same text is read once
        if len(_SEEN_CALLS) >= 4096:
            _SEEN_CALLS.clear()
        found = _SEEN_CALLS[key] = _read_identifiers(call)
    return found


_SEEN_CALLS: dict[tuple[str, str], list[tuple[str, str, str]]] = {}


def _read_identifiers(call: ToolCall) -> list[tuple[str, str, str]]:
    every = list(strings(call))
    if any(len(v) <= 12 and v.strip().lower() in CREATE_VERBS for _, v, _ in every):
        return []  # `str_replace_editor` with `command: create`: the path is new
    found = []
    for key, value, code in every:
        if code or _MAYBE_ID.search(value) is None or value.count(" ") >= 2 or _free(key):
            continue
        for token in _identifiers.tokens(value):
            sort = _identifiers.kind(token)
            if sort is not None:
                found.append((key, token, sort))
    return found


@lru_cache(maxsize=1024)  # a log calls a handful of tools with a handful of argument names
def _free(key: str) -> bool:
    """The argument holds free text, or a value the call creates."""
    name = words(key)
    return bool(name) and (name[0] in NEW_VALUES or any(w in FREE_TEXT for w in name))


@lru_cache(maxsize=1024)
def _creates(tool: str) -> bool:
    return _first_word(tool) in CREATE_VERBS


class _Index:
    """The keys of every identifier the conversation gave, as far as it has been read.

    Only texts that could hold a grounding token are tokenised: a text must contain the pieces
    of at least one of the identifiers the calls pass (`_identifiers.signature`), found with
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

    @property
    def signatures(self) -> list[tuple[str, ...]] | None:
        """The pieces to look for before tokenising a long text; None: tokenise every text.
        Made on first use: most conversations never need them."""
        if not self._made:
            self._made = True
            found = {
                alternative
                for _, token, sort in dict.fromkeys(self.candidates)
                for alternative in _identifiers.signature(token, sort)
            }
            if 0 < len(found) <= MAX_SIGNATURES and all(found):
                self._signatures = list(found)
        return self._signatures

    def grounds(self, token: str, sort: str, conversation: Conversation | None = None) -> bool:
        """Whether what was read so far gives the identifier; with the conversation, the tool
        declarations are read when nothing else does (most identifiers come from users and
        tool results, so most conversations never need them)."""
        forms = _identifiers.lookups(token, sort)
        if not forms.isdisjoint(self.seen):
            return True
        if conversation is not None and not self.declarations_read:
            self.declarations_read = True
            self.declared(conversation)
            return not forms.isdisjoint(self.seen)
        return False

    def declared(self, conversation: Conversation) -> None:
        """The identifiers in the tool declarations, and the tools' names."""
        tools = conversation.tools or ()
        text = "\n".join(
            f"{t.name} {t.description} {orjson.dumps(t.parameters).decode()}" for t in tools
        )
        self.seen.update(t.name.lower() for t in tools)
        if text:  # the same declarations in every conversation of a log: read once
            self.seen.update(_keys_of(text, self.phones))

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
            elif message.role in _GIVERS:
                texts = [message.text]
            else:
                for call in message.tool_calls:
                    seen.add(call.name.lower())
                continue
            for text in texts:
                size = len(text)
                if low <= size <= high:  # one lookup, relevant or not
                    seen.update(_keys_of(text, phones))
                elif size < _SHORT or self._relevant(text):
                    _identifiers.index(seen, text, phones)

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


@lru_cache(maxsize=128)
def _keys_of(text: str, phones: bool) -> frozenset[str]:
    seen: set[str] = set()
    _identifiers.index(seen, text, phones)
    return frozenset(seen)


class _Given:
    """The texts `_Index.read` reads (system, developer and user turns, tool results), lowered
    and joined by newlines, to find an identifier written as a whole token with C-speed
    searches. Every match `before` accepts is a token `_identifiers.index` would index under
    the identifier's own bare form, so the check finds it grounded too; a text that lowering
    would lengthen (`İ`) is left out, so positions match its tokens character for character."""

    def __init__(self, messages: Sequence[Message]) -> None:
        parts: list[str] = []
        self.turns: list[int] = []
        self.starts: list[int] = []
        size = 0
        for message in messages:
            result = message.result
            if result is not None:
                text = result.text
            elif message.role in _GIVERS:
                text = message.text
            else:
                continue
            lowered = text.lower()
            if len(lowered) != len(text):
                continue
            self.turns.append(message.index)
            self.starts.append(size)
            parts.append(lowered)
            size += len(lowered) + 1
        self.text = "\n".join(parts)
        self.first: dict[str, int] = {}

    def before(self, token: str, turn: int) -> bool:
        """Whether a text before message `turn` holds `token` as a whole token."""
        needle = _identifiers.bare(token)
        at = self.first.get(needle)
        if at is None:
            at = self.first[needle] = self._find(needle)
        k = bisect_left(self.turns, turn)
        return at < (self.starts[k] if k < len(self.starts) else len(self.text) + 1)

    def _find(self, needle: str) -> int:
        """Where the first whole-token match of `needle` starts, or past the end. A match is
        whole when no identifier character touches it, but for one `#` before it and
        punctuation after it that `bare` strips; after `MAX_TRIES` matches inside longer tokens
        the search gives up (the check then reads the texts itself)."""
        text = self.text
        end_of_text = len(text)
        is_id = _identifiers.is_id_char
        pos = text.find(needle)
        for _ in range(MAX_TRIES):
            if pos < 0 or not needle:
                break
            start, end = pos, pos + len(needle)
            if start and text[start - 1] == "#":
                start -= 1
            while end < end_of_text and end - pos - len(needle) < 8 and text[end] in _TRAILING:
                end += 1
            if (
                (start == 0 or not is_id(text[start - 1]))
                and (end == end_of_text or not is_id(text[end]))
                and _identifiers.bare(text[start:end]) == needle
            ):
                return pos
            pos = text.find(needle, pos + 1)
        return end_of_text + 1


MAX_TRIES = 16
"""Matches of one identifier inside longer tokens `_Given` skips before it gives up."""
_TRAILING = frozenset(".:?=&%")
"""Identifier characters that `bare` strips from a token's end."""


def _violation(replay: Replay, exchange: Exchange, new: list[tuple[str, str, str]]) -> Violation:
    call = exchange.call
    if len(new) == 1:
        key, token, sort = new[0]
        article = "an" if sort in ("id", "e-mail address") else "a"
        shown = f"`{key}` = `{token}`, {article} {sort} that appears"
    else:
        shown = ", ".join(f"`{key}` = `{token}` ({sort})" for key, token, sort in new[:3])
        shown += (f" and {len(new) - 3} more" if len(new) > 3 else "") + ", which appear"
    message = (
        f"`{call.name}` was called with {shown} nowhere earlier in the conversation: no user "
        "turn, system prompt, tool result, tool declaration or earlier successful call gave it"
    )
    fallback = replay.conversation.messages[exchange.turn].location
    return on_call(message, call, exchange.turn, fallback)


def _first_word(name: str) -> str:
    first = words(name)[:1]
    return first[0] if first else ""
