"""One message list read by shape: each item's role, text, calls and results, then the results
paired with the calls, and every gap that makes the reading partial.

A reading is all or nothing: an item of no role the table knows, a part of no known kind, a
call without a name or a result that answers no call makes the list `partial`, and the reader
reports it instead of auditing it (a rule firing on half a message would judge the reader).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from auditor.formats._common import (
    MessageDraft,
    OpenCalls,
    as_id,
    json_text,
    tool_call,
    with_results,
)
from auditor.formats.structural._vocab import (
    ARGUMENT_KEYS,
    CALL_ID_KEYS,
    CALL_LISTS,
    CALL_OBJECTS,
    CALL_TYPES,
    MEDIA_KEYS,
    MEDIA_TYPES,
    NAME_KEYS,
    REASONING_TYPES,
    RESULT_ID_KEYS,
    RESULT_OBJECTS,
    RESULT_TEXT_KEYS,
    RESULT_TYPES,
    ROLE_KEYS,
    TEXT_KEYS,
    TEXT_TYPES,
    WRAPPERS,
    fold,
    role_of,
)
from auditor.model import Location, ToolResult


@dataclass
class Reading:
    """What reading one list inferred (said once per file) and what it could not read."""

    roles: set[str] = field(default_factory=set)
    """The keys the roles came from, as the log spells them."""
    calls: set[str] = field(default_factory=set)
    """How the calls were written: "`tool_calls` lists", "`tool_use` blocks", …"""
    pairing: set[str] = field(default_factory=set)
    """The keys results named their calls by, or `position`."""
    gaps: list[tuple[Location, str]] = field(default_factory=list)
    """What could not be read: the list is then read only in part."""
    n_calls: int = 0
    n_results: int = 0
    paired: int = 0

    def gap(self, where: Location, why: str) -> None:
        if len(self.gaps) < 8:
            self.gaps.append((where, why))

    def merge(self, other: Reading) -> None:
        self.roles |= other.roles
        self.calls |= other.calls
        self.pairing |= other.pairing


def keys_of(value: dict) -> dict[str, str]:
    """The object's keys by their folded form (the first spelling wins)."""
    out: dict[str, str] = {}
    for key in value:
        if type(key) is str:
            out.setdefault(fold(key), key)
    return out


def first(value: dict, keys: dict[str, str], wanted: Iterable[str]) -> tuple[str, Any] | None:
    """(the key as spelled, its value) for the first of `wanted` the object holds, not null."""
    for want in wanted:
        key = keys.get(want)
        if key is not None and value[key] is not None:
            return key, value[key]
    return None


def role(item: Any) -> tuple[str, str, dict] | None:
    """(role, the key it came from, the message's body) for a message-like object, else None:
    the body is the object, or the message an event wraps (`{type: user, message: {...}}`)."""
    if type(item) is not dict:
        return None
    keys = keys_of(item)
    if not _LOG_LEVEL.isdisjoint(keys):
        return None  # an application's log line (`{level, source: user, message}`), not a turn
    found = _own_role(item, keys)
    for wrapper in WRAPPERS:
        inner = item.get(keys.get(wrapper, "\0"))
        if type(inner) is dict:
            inner_keys = keys_of(inner)
            inner_role = _own_role(inner, inner_keys)
            if inner_role is not None:
                return inner_role[0], inner_role[1], inner
            if found is not None and _has_body(inner_keys):
                return found[0], found[1], inner
    if found is None:
        kind = item.get(keys.get("kind", "\0"))
        parts = item.get(keys.get("parts", "\0"))
        # Pydantic AI's message history: a `request` the model was sent, its `response`, each
        # of parts that say their kind (`part_kind`): not any request and response.
        if (
            kind in _EXCHANGE_ROLES
            and type(parts) is list
            and parts
            and all(type(p) is dict and "part_kind" in p for p in parts)
        ):
            return _EXCHANGE_ROLES[kind], keys["kind"], item
        return None
    return found[0], found[1], item


_EXCHANGE_ROLES = {"request": "user", "response": "assistant"}
_LOG_LEVEL = frozenset(("level", "levelname", "severity", "loglevel", "lvl"))


def _own_role(item: dict, keys: dict[str, str]) -> tuple[str, str] | None:
    for want in ROLE_KEYS:
        key = keys.get(want)
        if key is None:
            continue
        value = item[key]
        if type(value) is dict:  # `author: {role: user}` (ChatGPT), `Role: {Label: user}` (.NET)
            for sub in ("role", "Role", "label", "Label"):
                meaning = role_of(value.get(sub))
                if meaning is not None:
                    return meaning, f"{key}.{sub}"
            continue
        meaning = role_of(value)
        if meaning is not None:
            return meaning, key
    return None


def _has_body(keys: dict[str, str]) -> bool:
    return any(k in keys for k in (*TEXT_KEYS, *CALL_LISTS, *CALL_OBJECTS))


def read_items(
    items: list[tuple[Any, Location]], reading: Reading
) -> tuple[list[MessageDraft], str]:
    """The drafts a list of (item, location) holds, paired, and the instructions kept beside
    them (none here: a system message is a message)."""
    drafts: list[MessageDraft] = []
    for item, here in items:
        if item is None:
            continue
        found = role(item)
        if found is None:
            reading.gap(here, "an item with no role the reader knows")
            continue
        meaning, key, body = found
        reading.roles.add(key)
        drafts.extend(_message(meaning, body, here, reading))
    _pair(drafts, reading)
    return drafts, ""


def _message(meaning: str, body: dict, here: Location, reading: Reading) -> list[MessageDraft]:
    keys = keys_of(body)
    if meaning == "call":
        draft = MessageDraft("assistant", here)
        kind = body.get(keys.get("type", "\0"))
        how = f"`type: {kind}` events" if kind else "call events"
        embedded = _call(body, here, reading, draft, how)
        _text_into(body, keys, here, reading, draft, [], skip_args=True)
        return [draft, embedded] if embedded is not None else [draft]
    draft = MessageDraft(meaning, here)
    results: list[MessageDraft] = []
    if meaning == "tool":
        if _holds_results(body, keys):
            _text_into(body, keys, here, reading, draft, results)
            return results
        if "toolresults" in keys:  # Cohere's `TOOL` turn
            _message_calls(body, keys, here, reading, draft, results)
            return results
        return [_result(body, keys, here, reading, whole=True)]
    _text_into(body, keys, here, reading, draft, results)
    _message_calls(body, keys, here, reading, draft, results)
    _unknown_calls(body, keys, here, reading)
    name = first(body, keys, ("name",))
    if name is not None and type(name[1]) is str:
        draft.name = name[1]
    return with_results(draft, results)


_KNOWN = frozenset(
    (
        *CALL_LISTS,
        *CALL_OBJECTS,
        *RESULT_ID_KEYS,
        *("toolresults", "additionalkwargs", "toolplan", "finishreason", "assistantid"),
    )
)
"""Keys of a message that name calls or tools and that the reader reads, or knows to hold none
(Cohere's `tool_plan` is text; the Assistants API's `assistant_id` an id)."""
_CALL_WORDS = ("call", "tool", "function", "action", "invocation")


def _unknown_calls(body: dict, keys: dict[str, str], here: Location, reading: Reading) -> None:
    """A gap for each key that may hold calls in a way the reader does not know (`actions`,
    `invalid_tool_calls`, `function_invocations`): reading the message without them would
    let a rule judge its text alone."""
    for folded, key in keys.items():
        if folded in _KNOWN or not any(word in folded for word in _CALL_WORDS):
            continue
        if body[key] not in (None, "", [], {}, False):
            reading.gap(here.child(key), f"`{key}`, which may hold calls it cannot read")


def _holds_results(body: dict, keys: dict[str, str]) -> bool:
    """A tool message whose content is a list of result parts (the Vercel AI SDK's)."""
    content = first(body, keys, TEXT_KEYS)
    if content is None or type(content[1]) is not list:
        return False
    for part in content[1]:
        if type(part) is dict:
            part_keys = keys_of(part)
            kind_key = next((part_keys[k] for k in _KIND_KEYS if k in part_keys), "\0")
            kind = part.get(kind_key)
            if type(kind) is str and fold(kind) in RESULT_TYPES:
                return True
            if any(k in part_keys for k in RESULT_OBJECTS):
                return True
    return False


def _text_into(
    body: dict,
    keys: dict[str, str],
    here: Location,
    reading: Reading,
    draft: MessageDraft,
    results: list[MessageDraft],
    skip_args: bool = False,
) -> None:
    for want in TEXT_KEYS:
        key = keys.get(want)
        if key is None or (skip_args and want in ("input",)):
            continue
        value = body[key]
        if value is None:
            continue
        if type(value) is str:
            draft.texts.append(value)
        elif type(value) is list:
            for j, part in enumerate(value):
                _part(part, here.child(key, j), reading, draft, results)
        elif type(value) is dict:
            _part(value, here.child(key), reading, draft, results)
        else:
            continue
        return  # the first key that holds the text is the text
    for want in ("reasoningcontent", "reasoning", "thinking", "thought"):
        key = keys.get(want)
        if key is not None and type(body[key]) is str:
            draft.reasoning.append(body[key])


def _part(
    part: Any, where: Location, reading: Reading, draft: MessageDraft, results: list[MessageDraft]
) -> None:
    if type(part) is str:
        draft.texts.append(part)
        return
    if type(part) is not dict:
        reading.gap(where, "a content part that is not an object or a string")
        return
    keys = keys_of(part)
    kind_key = next((keys[k] for k in _KIND_KEYS if k in keys), None)
    kind = part[kind_key] if kind_key else None
    folded = fold(kind) if type(kind) is str else ""
    if folded in CALL_TYPES:
        _embedded(_call(part, where, reading, draft, f"`{kind}` blocks"), results)
        return
    if folded in RESULT_TYPES:
        results.append(_result(part, keys, where, reading))
        return
    if type(kind) is str and kind.startswith("tool-") and "toolcallid" in keys:
        # The AI SDK's UI message parts: `{type: tool-NAME, toolCallId, input, output}`.
        named = {"toolName": kind[5:], **part}
        _embedded(_call(named, where, reading, draft, "`tool-NAME` parts"), results)
        return
    if folded == "systemprompt":  # Pydantic AI: the system prompt, a part of a request
        said = first(part, keys, ("content",))
        if said is not None and type(said[1]) is str:
            results.insert(0, MessageDraft("system", where, [said[1]]))
        return
    if folded == "retryprompt":  # Pydantic AI: a tool's validation error, or the user's
        if "toolname" in keys:
            retry = _result(part, keys, where, reading)
            if retry.result is not None:
                retry.result.is_error = True
            results.append(retry)
        else:
            draft.texts.append(json_text(part.get(keys.get("content", "\0"), "")))
        return
    if folded in REASONING_TYPES:
        found = first(part, keys, ("thinking", "text", "reasoning", "content"))
        if found is not None and type(found[1]) is str:
            draft.reasoning.append(found[1])
        return
    for want in CALL_OBJECTS:
        key = keys.get(want)
        if key is not None and type(part[key]) is dict:
            held = _call(part[key], where.child(key), reading, draft, f"`{key}` parts")
            _embedded(held, results)
            return
    for want in RESULT_OBJECTS:
        key = keys.get(want)
        if key is not None and type(part[key]) is dict:
            inner = part[key]
            results.append(_result(inner, keys_of(inner), where.child(key), reading))
            return
    text = first(part, keys, ("text", "content", "value"))
    if text is not None and type(text[1]) is dict and type(text[1].get("value")) is str:
        text = (text[0], text[1]["value"])  # `text: {value, annotations}` (Assistants API)
    if text is not None and type(text[1]) is str and (not folded or folded in TEXT_TYPES):
        draft.texts.append(text[1])
        return
    if text is not None and type(text[1]) is list and folded in ("", "text", "message"):
        for j, inner in enumerate(text[1]):  # `{content_type: text, parts: [...]}`
            _part(inner, where.child(text[0], j), reading, draft, results)
        return
    parts = first(part, keys, ("parts",))
    if parts is not None and type(parts[1]) is list:
        for j, inner in enumerate(parts[1]):
            _part(inner, where.child(parts[0], j), reading, draft, results)
        return
    if folded in MEDIA_TYPES or not MEDIA_KEYS.isdisjoint(keys):
        return
    reading.gap(where, f"a content part of no known kind ({folded or 'no type'})")


_KIND_KEYS = ("type", "blocktype", "kind", "$type", "contenttype", "partkind")


def _message_calls(
    body: dict,
    keys: dict[str, str],
    here: Location,
    reading: Reading,
    draft: MessageDraft,
    results: list[MessageDraft],
) -> None:
    places = [(body, keys, here)]
    extra = first(body, keys, ("additionalkwargs",))
    if extra is not None and type(extra[1]) is dict:
        places.append((extra[1], keys_of(extra[1]), here.child(extra[0])))
    for value, value_keys, where in places:
        for want in CALL_LISTS:
            key = value_keys.get(want)
            if key is None or type(value[key]) is not list:
                continue
            for j, entry in enumerate(value[key]):
                found = _call(entry, where.child(key, j), reading, draft, f"`{key}` lists")
                _embedded(found, results)
        for want in CALL_OBJECTS:
            key = value_keys.get(want)
            if key is not None and type(value[key]) is dict:
                found = _call(value[key], where.child(key), reading, draft, f"`{key}` objects")
                _embedded(found, results)
        key = value_keys.get("toolresults")  # Cohere's chat history
        if key is not None and type(value[key]) is list:
            for j, entry in enumerate(value[key]):
                entry_keys = keys_of(entry) if type(entry) is dict else {}
                results.append(_result(entry, entry_keys, where.child(key, j), reading))


def _embedded(result: MessageDraft | None, results: list[MessageDraft]) -> None:
    if result is not None:
        results.append(result)


_EMBEDDED = ("result", "output", "response", "observation", "outputs")
"""Keys under which a call keeps its own result (Gemini CLI's `toolCalls`, the AI SDK's UI
parts): read as the call's result, so the call is not taken for unanswered."""


def _call(
    raw: Any, where: Location, reading: Reading, draft: MessageDraft, how: str
) -> MessageDraft | None:
    """Reads a call into `draft`; returns the result the call object holds itself, if any."""
    if type(raw) is not dict:
        reading.gap(where, "a call that is not an object")
        return None
    keys = keys_of(raw)
    fn = raw
    inner = first(raw, keys, ("function", "functioncall"))
    if inner is not None and type(inner[1]) is dict:
        fn = inner[1]
    fn_keys = keys if fn is raw else keys_of(fn)
    name = first(fn, fn_keys, NAME_KEYS)
    if name is None or type(name[1]) is not str or not name[1]:
        if fn is not raw and (found := first(raw, keys, NAME_KEYS)) and type(found[1]) is str:
            name = found
        else:
            reading.gap(where, "a call without a name")
            return None
    arguments = first(fn, fn_keys, ARGUMENT_KEYS) or first(raw, keys, ARGUMENT_KEYS)
    call_id = first(raw, keys, CALL_ID_KEYS) or first(fn, fn_keys, CALL_ID_KEYS)
    reading.calls.add(how)
    reading.n_calls += 1
    args = arguments[1] if arguments else None
    draft.calls.append(tool_call(call_id[1] if call_id else None, name[1], args, where))
    draft.tag = draft.tag or "calls"
    if any(keys.get(k) is not None and raw[keys[k]] is not None for k in _EMBEDDED):
        result = _result(raw, keys, where, reading)
        result.tag = "the call's own result"
        if result.result is not None and call_id is not None:
            result.result.call_id = as_id(call_id[1])
        return result
    return None


def _result(
    raw: Any, keys: dict[str, str], where: Location, reading: Reading, whole: bool = False
) -> MessageDraft:
    """A `tool` draft for a result object (or a whole tool message), its call's id in `tag`."""
    reading.n_results += 1
    if type(raw) is not dict:
        reading.gap(where, "a result that is not an object")
        return MessageDraft("tool", where, result=ToolResult(None, ""))
    origin = first(raw, keys, ("origin", "call", "additionalkwargs"))
    origin_value = origin[1] if origin is not None and type(origin[1]) is dict else {}
    origin_keys = keys_of(origin_value)
    ids = RESULT_ID_KEYS if not whole else RESULT_ID_KEYS[:-1]
    found_id = first(raw, keys, ids) or first(origin_value, origin_keys, CALL_ID_KEYS)
    name = first(raw, keys, NAME_KEYS) or first(origin_value, origin_keys, NAME_KEYS)
    text = first(raw, keys, RESULT_TEXT_KEYS)
    value = text[1] if text is not None else ""
    if type(value) is list and all(type(p) is dict and type(p.get("text")) is str for p in value):
        said = "\n".join(p["text"] for p in value)
    else:
        said = json_text(value)
    error = _error(raw, keys)
    call_id = as_id(found_id[1]) if found_id else None
    draft = MessageDraft(
        "tool",
        where,
        [said],
        result=ToolResult(call_id, said, error, name[1] if name and type(name[1]) is str else None),
    )
    draft.tag = found_id[0] if found_id else ""
    return draft


def _error(raw: dict, keys: dict[str, str]) -> bool | None:
    for want in ("iserror", "error"):
        key = keys.get(want)
        if key is not None and type(raw[key]) is bool:
            return bool(raw[key])
    status = first(raw, keys, ("status",))
    if status is not None and type(status[1]) is str:
        word = status[1].lower()
        if word in ("error", "failed", "failure"):
            return True
        if word in ("success", "ok", "completed"):
            return False
    return None


def _pair(drafts: list[MessageDraft], reading: Reading) -> None:
    """Each result with its call: by the id it names, else by name, else the first open call.
    A result that answers no call is a gap."""
    open_calls = OpenCalls()
    for draft in drafts:
        if draft.calls:
            for call in draft.calls:
                open_calls.add(call)
            continue
        result = draft.result
        if result is None:
            continue
        match = None
        if result.call_id is not None:
            match = open_calls.with_id(result.call_id)
            if match is None:
                reading.gap(draft.location, "a result whose id names no call before it")
                continue
            reading.pairing.add(draft.tag)
        else:
            named = open_calls.named(result.name) if result.name else None
            first = open_calls.first()
            match = named or first
            if match is None:
                reading.gap(draft.location, "a result that answers no call")
                continue
            if match is not first and match.id is None:
                reading.gap(draft.location, "a result that answers a call out of order")
                continue
            result.call_id = match.id
            reading.pairing.add("tool name" if named else "position")
        open_calls.take(match)
        reading.paired += 1
        draft.tag = ""
