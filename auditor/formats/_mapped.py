"""Formats declared in the configuration: a JSON shape mapped onto the model with JMESPath.

```toml
[tool.auditor.formats.acme-runs]
detect = "schema == 'acme.run/2'"       # a record this makes truthy is of this format
conversations = "runs"                   # the conversation objects in a record (default `@`)
id = "run_id"                            # a conversation's own id
messages = "steps"                       # a conversation's messages or events, in order
role = "actor"                           # a message's role, mapped through `roles`
roles = { human = "user", bot = "assistant", runtime = "tool" }
text = "say"                             # a message's text (a string or a list of parts)
calls = "invoke"                         # a message's calls: a list, or one object
call-name = "fn"
call-arguments = "input"                 # an object, or a JSON string
call-id = "ref"
result-id = "answers"                    # a message holding this answers that call
result-error = "failed"                  # truthy when that result is an error
result-text = "error.message"            # a result's text where `text` finds none
tools = "catalog"                        # the tools a conversation declares
skip = "kind == 'summary'"               # a record that holds no conversation: passed over
final-call = "Finish"                    # the tool whose call is the answer (not an expression)
final-answer = "final_answer"            # the answer in that call's arguments
```

A message whose role maps to `tool` is a result: of the call `result-id` names, else of the
earliest call still waiting for one (results paired by position, for logs without ids). A call
of `final-call` is the run's answer, not a call: the assistant's text is what `final-answer`
(default `final_answer || answer || message || text`) finds in its arguments, as ToolBench's
`Finish` carries it.

Every expression but `detect` and `conversations` is evaluated on one object: a conversation
(`id`, `messages`, `tools`), a message (`role`, `text`, `calls`, `result-id`,
`result-error`) or a call. A record is one JSON document or one JSON Lines line; a format
whose conversation spans lines is a plugin's job (`auditor.formats` entry points). The
`jmespath` package is imported only when a configuration declares a format.

A mapping is checked when the configuration is read: an unknown key, a missing `detect`,
`messages` or `role`, an expression JMESPath cannot parse, or one too long, too deep or able to
build too much (`cost`) is a ConfigError naming the table and the key. An expression that fails
on a record (`length()` of a number) costs that record: IN002 naming the format and the key.
A record that `detect` takes but in which `messages` finds no list in any conversation is a
mapping that matches nothing: a ConfigError naming the file, raised while
reading (a conversation of several whose messages are missing is that conversation's IN002).
So is a key that finds nothing in any of the messages or calls of such a record (`text`, a
call's `call-name`, `call-arguments` or `call-id`): a misspelled key would otherwise give calls
with no name.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any

from auditor.common.errors import ConfigError
from auditor.common.patterns import lazy
from auditor.common.text import cut as excerpt
from auditor.formats import contract
from auditor.formats._common import (
    MessageDraft,
    Problem,
    Unreadable,
    conversation,
    excerpt_json,
    freeze,
    result_draft,
    text_of,
    tool_call,
    tool_specs,
)
from auditor.model import Conversation, Location
from auditor.sources import Record

REQUIRED = ("detect", "messages", "role")
EXPRESSIONS = (
    *REQUIRED,
    "conversations",
    "id",
    "text",
    "calls",
    "call-name",
    "call-arguments",
    "call-id",
    "result-id",
    "result-error",
    "result-text",
    "tools",
    "skip",
    "final-answer",
)
NAMES = ("final-call",)
"""Keys whose value is a name, not an expression."""
CHECKED = ("text", "call-name", "call-arguments", "call-id")
"""Keys that must find something in some message or call of a record `detect` takes."""
_ANSWER = "final_answer || answer || message || text"
ROLES = ("user", "assistant", "system", "tool", "developer")


class MappingMatchesNothing(ConfigError):
    """A declared format took a record in which its `messages` found nothing."""


class MappedFormat:
    """A format declared in `[tool.auditor.formats.NAME]`: the FileReader reads it as it reads
    a built-in format module, every member of `contract.Format` stated."""

    KIND = contract.JSON
    DETECT_KEYS = None
    Collector = None
    sniff = staticmethod(contract.no_sniff)
    inferred = staticmethod(contract.no_inference)

    def __init__(self, name: str, expressions: dict[str, str], roles: dict[str, str], where: str):
        self.NAME = name
        self.expressions = expressions
        self.roles = roles
        self.where = where
        """Where it was declared, as errors open: `invalid config in pyproject.toml:
        [tool.auditor.formats.acme]`."""
        self._compiled: dict[str, Any] = {}
        self._found: dict[str, list[int]] = {}
        """Per `CHECKED` key, the record being read: (times asked, times it found something)."""

    def __getstate__(self) -> dict[str, Any]:  # compiled expressions are rebuilt where used
        return {k: v for k, v in self.__dict__.items() if k != "_compiled"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state, _compiled={}, _found={})

    def __repr__(self) -> str:
        return f"MappedFormat({self.NAME!r})"

    def _search(self, key: str, value: Any) -> Any:
        compiled = self._compiled.get(key)
        if compiled is None:
            if key not in self.expressions:
                return None
            import jmespath

            compiled = self._compiled[key] = jmespath.compile(self.expressions[key])
        try:
            return compiled.search(value, options=_options())
        except RecursionError:
            raise self._failed(key, "values nested too deep") from None
        except Exception as exc:
            from jmespath.exceptions import JMESPathError

            if not isinstance(exc, JMESPathError | _TooLarge):
                raise
            raise self._failed(key, " ".join(str(exc).split())) from None

    def _failed(self, key: str, reason: str) -> Unreadable:
        """A runtime error of an expression (`length()` of a number): the record is IN002."""
        shown = excerpt(self.expressions[key], 60)
        return Unreadable(f"declared format {self.NAME}: `{key}` = `{shown}` fails: {reason}")

    def detect(self, record: Record) -> bool:
        return bool(self._search("detect", record.value)) or bool(
            self._search("skip", record.value)
        )

    def parse(self, record: Record) -> Iterator[Conversation | Problem]:
        value, location = record.value, record.location
        if self._search("skip", value):
            return  # a header or summary record: read, and holding no conversation
        self._found = {key: [0, 0] for key in CHECKED}
        yield from self._read(value, location)
        for key, (asked, hits) in self._found.items():
            # one message with no text is a message; no text in several is a wrong key
            if asked >= (2 if key == "text" else 1) and not hits and key in self.expressions:
                raise MappingMatchesNothing(
                    f"{self.where} `{key}` = `{self.expressions[key]}` finds nothing in any of "
                    f"the {asked:,} {'messages' if key == 'text' else 'calls'} of "
                    f"{location.path}{'' if location.line is None else f':{location.line}'}, "
                    "a record its `detect` takes: check the expression against the record"
                )

    def _read(self, value: Any, location: Location) -> Iterator[Conversation | Problem]:
        found = (
            self._search("conversations", value) if "conversations" in self.expressions else value
        )
        units = found if isinstance(found, list) else [found]
        read = [(unit, self._search("messages", unit)) for unit in units if isinstance(unit, dict)]
        if not any(isinstance(messages, list) for _, messages in read):
            raise MappingMatchesNothing(
                f"{self.where} `messages` = `{self.expressions['messages']}` matches nothing in "
                f"{location.path}{'' if location.line is None else f':{location.line}'}, a "
                "record its `detect` takes: check the expression against the record"
            )
        listed = isinstance(found, list)
        at = _tokens(self.expressions.get("conversations", "@"))
        for index, (unit, messages) in enumerate(read):
            here = location.child(*at, index) if listed and at is not None else location
            yield from self._conversation(unit, messages, here, index if listed else None)

    def _conversation(
        self, unit: dict, messages: Any, location: Location, index: int | None
    ) -> Iterator[Conversation | Problem]:
        problems: list[Problem] = []
        if not isinstance(messages, list):
            problems.append(Problem(location, f"`messages` found no list here ({self.NAME})"))
            messages = []
        drafts = []
        at = _tokens(self.expressions["messages"])
        for i, item in enumerate(messages):
            draft = self._message(
                item, location.child(*at, i) if at is not None else location, problems
            )
            if draft is not None:
                drafts.append(draft)
        key = self._search("id", unit)
        tools = tool_specs(self._search("tools", unit))
        owner = {"id": key} if isinstance(key, str | int) else {}
        yield from conversation(
            self.NAME, owner, location, freeze(drafts), problems, index, tools=tools
        )

    def _message(self, item: Any, here: Location, problems: list[Problem]) -> MessageDraft | None:
        role = self._search("role", item)
        if not isinstance(role, str):
            problems.append(
                Problem(
                    here, f"`role` found no string here ({self.NAME})", evidence=excerpt_json(item)
                )
            )
            return None
        role = self.roles.get(role, role)
        text = text_of(self._found_in("text", item))
        answered = self._search("result-id", item)
        if answered is not None or role == "tool":
            failed = self._search("result-error", item)
            if not text:
                text = text_of(self._search("result-text", item))
            return result_draft(answered, text, here, bool(failed) if failed is not None else None)
        draft = MessageDraft(role, here, [text])
        calls = self._search("calls", item)
        final = self.expressions.get("final-call")
        for call in calls if isinstance(calls, list) else [] if calls is None else [calls]:
            name = self._found_in("call-name", call)
            arguments = self._found_in("call-arguments", call)
            if final is not None and name == final:
                draft.texts.append(self._answer(arguments))
                continue
            call_id = self._found_in("call-id", call)
            draft.calls.append(tool_call(call_id, name, arguments, here))
        return draft

    def _found_in(self, key: str, value: Any) -> Any:
        """`key`'s expression on `value`, counted for the check that it finds something."""
        found = self._search(key, value)
        counts = self._found.get(key)
        if counts is not None:
            counts[0] += 1
            counts[1] += found is not None and found != ""
        return found

    def _answer(self, arguments: Any) -> str:
        """The answer a `final-call` carries in its arguments."""
        if isinstance(arguments, str):
            import orjson

            try:
                arguments = orjson.loads(arguments)
            except orjson.JSONDecodeError:
                return arguments
        if "final-answer" in self.expressions:
            found = self._search("final-answer", arguments)
        else:
            import jmespath

            found = jmespath.search(_ANSWER, arguments)
        return text_of(found) if found is not None else ""


def declare(name: str, table: Any, where: str) -> MappedFormat:
    """The format a `[tool.auditor.formats.NAME]` table declares. Raises ConfigError, opening
    with `where` (the file and the table), at the first thing wrong with it."""

    def error(message: str) -> ConfigError:
        return ConfigError(f"{where} {message}")

    if not isinstance(table, dict):
        raise error("must be a table of JMESPath expressions")
    for key in table:
        if key not in (*EXPRESSIONS, *NAMES, "roles"):
            import difflib

            hint = difflib.get_close_matches(key, [*EXPRESSIONS, *NAMES, "roles"], n=1)
            also = f" (did you mean `{hint[0]}`?)" if hint else ""
            keys = ", ".join((*EXPRESSIONS, *NAMES))
            raise error(f"unknown key `{key}`{also}; the keys are {keys}, roles")
    missing = [key for key in REQUIRED if key not in table]
    if missing:
        raise error(f"`{missing[0]}` is required: a JMESPath expression")
    try:
        import jmespath
        from jmespath.exceptions import JMESPathError
    except ImportError as exc:
        raise error("needs the jmespath package (`pip install jmespath`)") from exc
    expressions: dict[str, str] = {}
    for key in EXPRESSIONS:
        if key not in table:
            continue
        text = table[key]
        if not isinstance(text, str) or not text.strip():
            raise error(
                f"`{key}` must be a JMESPath expression (a string), got {excerpt_json(text)}"
            )
        if len(text) > _LONGEST:
            raise error(f"`{key}` is {len(text):,} characters long: at most {_LONGEST:,}")
        try:
            parsed = jmespath.compile(text).parsed
        except JMESPathError as exc:
            reason = " ".join(str(exc).split())
            raise error(f"`{key}` = `{text}` is not a JMESPath expression: {reason}") from None
        except RecursionError:  # jmespath's parser recurses once per level of nesting
            raise error(f"`{key}` is nested too deep to be read as a JMESPath expression") from None
        deep = depth(parsed)
        if deep > _DEEPEST:
            raise error(f"`{key}` is nested {deep:,} levels deep: at most {_DEEPEST}")
        built = cost(parsed)
        if built > _MOST_GROWTH:
            raise error(
                f"`{key}` could build {_shown(built)} times the size of the record it reads "
                f"(lists of `@` piped into lists of `@`, `to_string` of `to_string`, …): at "
                f"most {_MOST_GROWTH:,}"
            )
        expressions[key] = text
    for key in NAMES:
        if key in table:
            if not isinstance(table[key], str) or not table[key].strip():
                raise error(f"`{key}` must be a tool's name (a string)")
            expressions[key] = table[key]
    roles = table.get("roles", {})
    if not isinstance(roles, dict) or not all(isinstance(v, str) for v in roles.values()):
        raise error('`roles` must map roles as logged to roles (`{ bot = "assistant" }`)')
    unknown = sorted(set(roles.values()) - set(ROLES))
    if unknown:
        raise error(f"`roles` maps to `{unknown[0]}`; map to one of {', '.join(ROLES)}")
    return MappedFormat(name, expressions, dict(roles), where)


def depth(node: Any) -> int:
    """How many levels deep an expression's tree is (`jmespath.compile(...).parsed`)."""
    deepest, stack = 0, [(node, 1)]
    while stack:
        item, level = stack.pop()
        deepest = max(deepest, level)
        if isinstance(item, dict):
            stack.extend((child, level + 1) for child in item.get("children") or ())
    return deepest


def cost(node: Any) -> int:
    """An upper bound of all an expression builds while it is evaluated (its result and every
    value on the way), as a multiple of the size of the record it reads. What keeps a mapping of
    a few hundred bytes from building gigabytes before it is ever evaluated: `[@,@][] | …`
    doubles at each stage, `to_string([to_string([…])])` at each level, a literal list projected
    over a list multiplies them. `join` is bounded as it runs (`_options`)."""
    return _cost(node, 1)[1]


def _cost(node: Any, into: int) -> tuple[int, int]:
    """(the size of what `node` gives, of all it builds) for an input `into` times the
    record's size. A value is at least 2 bytes of the record (`1,`), so a literal of n bytes
    given for each value of the input is n/2 times that input."""
    if not isinstance(node, dict):
        return 0, 0  # a slice's bounds
    kind = node.get("type")
    children = [c for c in node.get("children") or () if isinstance(c, dict)]
    if kind in _PARTS:
        return into, into
    if kind == "literal":
        out = _capped(into * _weight(node.get("value")))
        return out, out
    if kind in _CHAINS:  # each stage reads what the one before gave
        out, built = into, 0
        for child in children:
            out, more = _cost(child, out)
            built = _capped(built + more)
        return out, built
    if kind == "filter_projection":  # the list, its condition on each item, what it keeps
        left, right, condition = node["children"]
        out, built = _cost(left, into)
        kept, more = _cost(right, out)
        return kept, _capped(built + more + _cost(condition, out)[1])
    parts = [_cost(c, into) for c in children if c.get("type") != "expref"]
    given, built = _capped(sum(p[0] for p in parts)), _capped(sum(p[1] for p in parts))
    for ref in children:  # `map(&e, list)`, `sort_by(list, &e)`: e on each item of the list
        if ref.get("type") == "expref":
            out, more = _cost(ref["children"][0], max(given, into))
            given, built = _capped(given + out), _capped(built + more)
    if kind in ("multi_select_list", "multi_select_dict"):
        out = given + into  # brackets and commas: a value of the input is at least 2 bytes
    elif kind == "key_val_pair":
        out = given + into * _weight(node.get("value"))
    elif kind in ("or_expression", "and_expression"):
        out = max((p[0] for p in parts), default=into)
    elif kind in ("not_expression", "comparator") or node.get("value") in _SCALAR:
        out = 3 * into  # `false` or a number for each value of the input
    elif kind == "function_expression":
        out = _FACTOR.get(str(node.get("value")), 1) * given
    else:  # a node jmespath may add: as a multi-select
        out = given + into
    out = _capped(out)
    return out, _capped(built + out)


def _weight(value: Any) -> int:
    import orjson

    try:
        return max(1, len(orjson.dumps(value)) // 2)
    except TypeError:
        return _CAP


def _capped(n: int) -> int:
    return min(n, _CAP)


_PARTS = frozenset(("field", "current", "identity", "index", "slice"))
"""Nodes that give a part of their input."""
_CHAINS = frozenset(
    ("subexpression", "pipe", "index_expression", "projection", "value_projection", "flatten")
)
_SCALAR = frozenset(
    (
        "abs",
        "avg",
        "ceil",
        "contains",
        "ends_with",
        "floor",
        "length",
        "max",
        "min",
        "starts_with",
        "sum",
        "to_number",
        "type",
    )
)
"""Functions that give a number, a boolean or a type's name."""
_FACTOR = {"to_string": 6, "join": 8}
"""How many times its arguments' size a function's result can be: `to_string` escapes (a
non-ASCII character written `\\uXXXX`, `1e15` written `1000000000000000.0`), `join` is held
to it as it runs (`_options`)."""


class _TooLarge(Exception):
    """A `join` whose separator, repeated, would build more than its bound."""


@functools.cache
def _options() -> Any:
    """The JMESPath options every declared format's expressions run with: `join` bounded."""
    import jmespath
    from jmespath import functions

    class Bounded(functions.Functions):
        @functions.signature({"types": ["string"]}, {"types": ["array-string"]})
        def _func_join(self, separator: str, array: list[str]) -> str:
            given = sum(map(len, array)) + len(array) + len(separator)
            if len(separator) * max(len(array) - 1, 0) >= _FACTOR["join"] * given:
                raise _TooLarge(
                    f"join() would repeat a separator of {len(separator):,} characters "
                    f"{len(array) - 1:,} times: at most {_FACTOR['join']} times what it joins"
                )
            return separator.join(array)

    return jmespath.Options(custom_functions=Bounded())


def _shown(n: int) -> str:
    return f"{n:,}" if n < _CAP else f"over {_CAP:,}"


_MOST_GROWTH = 1_000
"""How many times the size of a record a mapping's expression may build: a real mapping's
is 1 to a few dozen (`[role, text]`, `join('\\n', content[*].text)`)."""
_DEEPEST = 64
"""The deepest expression a mapping may hold: a real one is a few levels deep; jmespath
reads and runs one with a Python call per level."""
_CAP = 10**12

_LONGEST = 2_000
"""The longest expression a mapping may hold: a real one is a few dozen characters, and
jmespath's parser recurses once per level of a longer nesting."""

_PATH = lazy(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


def _tokens(expression: str) -> list[str] | None:
    """The JSON pointer tokens of an expression that is a plain path (`steps`, `body.items`),
    so that findings point into the file; `@` is the object itself; None for any other."""
    if expression.strip() == "@":
        return []
    return expression.split(".") if _PATH.fullmatch(expression.strip()) else None
