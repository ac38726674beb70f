r"""A call uses an identifier that appears nowhere earlier in the conversation.

## What it does
Reads the string values of each call the assistant makes for identifiers: an id that mixes
letters and digits (`K1NW8N`, `mia_li_3668`) or is a run of five or more digits, an e-mail
address, a phone number, a URL, a file path, and, under an argument that names an id (`id`,
`id_item`, `productId`), two to four words joined by `_` or `-` (`gasolina_premium`): a name
made into an id, given when its words, joined in any way, are in an earlier text. Fires when one
of them appears nowhere before the call: not in the system prompt, a user turn, a tool result,
the declared tools, the arguments of an earlier call that succeeded, the assistant's words the
user then said yes to ("Is your account AC-55821-X?" "Yes."), or, where several agents talk,
another agent's message (the orchestrator's "please open https://…"; not the calling agent's own
words, nor Magentic-One's private `(thought)` notes). The same value written differently is the
same value: case, a `#`, separators, a short code around a number (`ORD-20931` and `20931`, but
not `credit_card_7334` and "ending in 7334"), a URL's scheme, `www.`, query or trailing slash
(on either side; a page's relative link `/users/sign_in?next=1` gives `users/sign_in` as a URL
does), a URL a search result writes as a breadcrumb (`https://site.com > a > b`, up to a segment
cut with `...`), a path's leading directories. One finding per call, naming the argument and the
value; a value is reported once. The conversation is indexed once as it is read, and only as far
as an identifier still lacks a source.

## Why is this bad?
An id the agent never saw is an id it made up: an order number guessed from the pattern of
another, an e-mail address built from a first name, a URL it remembers. The call then acts on
the wrong record or fails, and in the worst case succeeds on someone else's account.

## Example
```jsonl
{"id": "guessed-id", "messages": [{"role": "user", "content": "Cancel my order please, I'm Mia Li."}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "cancel_order", "arguments": "{\"order_id\": \"#W2378156\", \"reason\": \"no longer needed\"}"}}]}, {"role": "tool", "tool_call_id": "c1", "content": "Error: order not found"}]}
```

## How to fix
Have the agent look the identifier up before acting on it: search by what the user gave (a
name, an e-mail address, the order described) and use the id the tool returns; ask the user
when nothing gives it. In the prompt: "never guess or build ids, e-mail addresses, URLs or
paths: use values the user or a tool result gave". In the tool: answer an unknown id with an
error that says how to find the right one (`no order #W2378156; list_orders(user_id) lists the
user's orders`). When the value came from a source the log does not keep (an attached file, a
page the agent saw), log that source too: without it the call cannot be told from a guess.

## Does not fire on
- values the user or a tool gave, in any written form (`#20931` after "order 20931"), and the
  local part of an e-mail address the user gave (`yara_garcia_1905` from
  `yara_garcia_1905@gmail.com`, as tau-bench agents look users up);
- free text (`query`, `body`, `reason`, `pattern`, any value of three or more words) and code;
- the name of a vocabulary: the whole value of a `system`, `$schema`, `@context` or `xmlns`
  key (FHIR's `"system": "http://snomed.info/sct"`, a JSON Schema's URI) is a standard's fixed
  name, not the id of a record (`system_id` is still read);
- new values the call creates: paths and ids of `create`/`write`/`mkdir`/`save` tools (or with
  a `create` command), and arguments named `new_…`, `output…`, `dest…`;
- a path below a directory the conversation named (the agent is exploring it), a site's home
  page (`https://www.udi.no/`), a file name without a directory;
- dates, times, versions, amounts and quantities (`2024-05-20`, `v1.2`, `23kg`), a date and a
  time together (`2026-04-06 15:00:00` is no phone number `2026040615`), an amount written
  with spaces (`$1 250 000`, `1 250 000 EUR`), numbers in JSON (a computed total), short codes
  (`A4`, `gpt-4o`, `utf8`);
- calls made after a call whose outcome the log does not keep (a browser agent that records its
  actions, not the pages it saw): the value may have been on the page;
- calls made by a simulated user (tau2); file paths in logs without a system prompt (the working
  directory the agent was told is not in them), and logs that hold no user or system turn at all
  (a lone API response).

It misses an identifier one agent of a group invented and another then used (the second
agent's call is grounded by the first's message), values a user said yes to without reading
them, identifiers written inside free text (an order number in an e-mail body), ids made
of a seen number and a short code (`ORD-20932` is caught, but `ORD-20931` after "20931" is
taken as the same order), identifiers without digits or punctuation (`mia_li`) under keys
that do not name an id, and an id made of words the user said (`premium_plan` after "the
premium plan").
```jsonl
{"id": "grounded", "messages": [{"role": "system", "content": "Agent for ACME. Escalations go to ops@acme.test."}, {"role": "user", "content": "Order ORD-20931 arrived broken. My number is +1 (555) 123-2002."}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_order", "arguments": "{\"order_id\": \"#20931\"}"}}]}, {"role": "tool", "tool_call_id": "c1", "content": "{\"order_id\": \"20931\", \"item_id\": \"1008292230\", \"invoice\": \"https://acme.test/invoices/20931.pdf\"}"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c2", "type": "function", "function": {"name": "create_return", "arguments": "{\"item_ids\": [\"1008292230\"], \"phone\": \"555-123-2002\", \"label_path\": \"/tmp/returns/label_20931_v2.pdf\", \"note\": \"customer reports item W7 arrived broken on 2024-05-20\"}"}}, {"id": "c3", "type": "function", "function": {"name": "notify", "arguments": "{\"to\": \"ops@acme.test\", \"invoice\": \"acme.test/invoices/20931.pdf\", \"weight\": \"2kg\"}"}}]}, {"role": "tool", "tool_call_id": "c2", "content": "return created"}, {"role": "tool", "tool_call_id": "c3", "content": "sent"}]}
```
"""

import bisect
import re
from collections.abc import Iterator
from functools import lru_cache

from auditor.common.patterns import lazy
from auditor.findings import Violation, on_call
from auditor.model import ToolCall
from auditor.reading import identifiers
from auditor.reading.arguments import strings
from auditor.replay import Exchange, Replay
from auditor.rules import _grounding, _placeholders
from auditor.rules._agents import speaker
from auditor.rules._toolnames import words

REQUIRES = ("calls",)
_FREE_TEXT = """
    subject body text message content query q search description summary note notes comment
    reason title question answer prompt instructions thought thoughts explanation feedback
    caption keywords pattern regex glob filter selector expression
"""
FREE_TEXT = frozenset(_FREE_TEXT.split())
"""Argument names (or words of them) that hold free text."""
VOCABULARY_KEYS = frozenset(("system", "$schema", "@context", "xmlns"))
"""Argument names whose value names a vocabulary or a schema, by its standard URI."""
NEW_VALUES = ("new", "output", "out", "dest", "destination", "target", "save")
"""First words of argument names that hold a value the call creates."""
_MAYBE_ID = lazy(r"[\d/@.]")
CREATE_VERBS = frozenset(
    ["create", "write", "mkdir", "make", "new", "save", "touch", "generate", "init"]
)
"""First words of tool names (or whole short argument values) that say the call creates."""


def screen(replay: Replay, options: None) -> bool:
    """Some call of the assistant passes an identifier that no earlier system, developer or
    user turn or tool result holds as a whole token, in any case (`_grounding.GivenTexts`): only
    then can the check, which also reads every other written form, find it ungrounded."""
    wanted = replay.shared("arguments.wanted", _wanted)
    if not wanted:
        return False
    given = _grounding.GivenTexts(replay.conversation.messages)
    return any(
        sort == "phone number" or not given.before(token, exchange.turn)
        for exchange, found in wanted
        for _, token, sort in found
    )


def _wanted(replay: Replay) -> list[tuple[Exchange, list[tuple[str, str, str]]]]:
    return [(e, found) for e in replay.exchanges if (found := _identifiers_of(e))]


def check(replay: Replay, options: None) -> Iterator[Violation]:
    wanted = replay.shared("arguments.wanted", _wanted)
    if not wanted:
        return
    conversation = replay.conversation
    first = next((m.index for m in conversation.messages if m.role in _grounding.GIVERS), None)
    if first is None:
        return  # a lone response: what the agent was given is not in the log
    # Without its system prompt the log hides the working directory the agent was told.
    paths = any(m.role in ("system", "developer") for m in conversation.messages)
    # After a call whose outcome the log does not keep (a browser agent's screenshots), the
    # value may have been on the page: what the agent saw is not in the log.
    blind = next((m.index for m in conversation.messages if m.result and m.result.unrecorded), None)
    if blind is not None:
        wanted = [(e, found) for e, found in wanted if e.turn < blind]
    # Phone numbers written with spaces are looked for only when a call passes one.
    phones = any(
        sort == "phone number" or token.isdigit() for _, f in wanted for _, token, sort in f
    )
    index = _grounding.GroundingIndex(phones, [f for _, found in wanted for f in found], replay)
    given: _grounding.GivenTexts | None = None
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
        caller = speaker(conversation.messages[exchange.turn].name)
        new = [
            f
            for f in open_
            if f[2] != WORD_ID and not index.grounds(f[1], f[2], conversation, caller)
        ]
        worded = [f for f in open_ if f[2] == WORD_ID]
        if worded:
            given = given or _grounding.GivenTexts(conversation.messages)
            new += [f for f in worded if not _words_given(f[1], exchange.turn, given, replay)]
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
        if not code and _WORD_ID.fullmatch(value) and _names_id(key):
            if next(_placeholders.find(value), None) is None:  # `your_invoice_id`: FB005's
                found.append((key, value, WORD_ID))
            continue
        if code or _MAYBE_ID.search(value) is None or value.count(" ") >= 2 or _free(key):
            continue
        for token in identifiers.tokens(value):
            sort = identifiers.kind(token)
            if sort is not None:
                found.append((key, token, sort))
    return found


WORD_ID = "id made of words"
"""The sort of a value made of two to four words joined by `_` or `-` (`gasolina_premium`)
under an argument that names an id (`id_item`, `productId`): a name turned into an id."""
_WORD_ID = lazy(r"[a-z]{2,}(?:[_-][a-z]{2,}){1,3}")


@lru_cache(maxsize=1024)
def _names_id(key: str) -> bool:
    """The argument names an id: `id`, `item_id`, `id_item`, `productId`."""
    return "id" in words(key)


def _words_given(token: str, turn: int, given: _grounding.GivenTexts, replay: Replay) -> bool:
    """An id made of words is given when its words, joined by anything or nothing, are in a
    text before the call (`gasolina premium`, `Gasolina-Premium`), in the tool declarations or
    the policy, or in the arguments of an earlier call."""
    parts = re.split(r"[_-]", token)
    pattern = re.compile(r"[\W_]?".join(map(re.escape, parts)), re.IGNORECASE)
    k = bisect.bisect_left(given.turns, turn)
    limit = given.starts[k] if k < len(given.turns) else len(given.text) + 1
    m = pattern.search(given.text)
    if m is not None and m.start() < limit:
        return True
    conversation = replay.conversation
    tools = conversation.tools or ()
    declared = "\n".join(f"{t.name} {t.description} {t.parameters}" for t in tools)
    if pattern.search(declared) or pattern.search(conversation.instructions or ""):
        return True
    return any(
        pattern.search(e.call.raw_arguments or "") for e in replay.exchanges if e.turn < turn
    )


@lru_cache(maxsize=1024)  # a log calls a handful of tools with a handful of argument names
def _free(key: str) -> bool:
    """The argument holds free text, a vocabulary's name, or a value the call creates."""
    if key.lower() in VOCABULARY_KEYS:
        return True
    name = words(key)
    return bool(name) and (name[0] in NEW_VALUES or any(w in FREE_TEXT for w in name))


@lru_cache(maxsize=1024)
def _creates(tool: str) -> bool:
    return _first_word(tool) in CREATE_VERBS


def _violation(replay: Replay, exchange: Exchange, new: list[tuple[str, str, str]]) -> Violation:
    call = exchange.call
    if len(new) == 1:
        key, token, sort = new[0]
        article = "an" if sort in ("id", "e-mail address", WORD_ID) else "a"
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
