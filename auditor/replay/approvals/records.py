"""What tool results say about the records a call acts on, for values the user never named.

A decision in plain language names things as the user knows them: "the mechanical keyboard",
"my reservation JG7FMM". The agent turns them into what a tool takes by reading tool results:
the order's details list the keyboard's `item_id`; the reservation's details list the payment
it was made with. `Records` keeps, from every JSON tool result, by the ids it shows:

- the payment each record was made with: the first entry of a list under a `payment…` key
  (`"payment_history": [{"payment_id": "credit_card_2929732", "amount": 7136}]`), by the
  record's own id, its first `…id` field (`reservation_id`, `order_id`);
- the words that describe each item: its `name`, and the values of its `options` together,
  by each of its ids (`item_id`, `product_id`).

`Records.refunded` reads a call's own result: the payment methods whose latest entry in a
payment list sends money back (a negative amount, a `refund` transaction).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Set
from typing import Any

import orjson

from auditor.common.patterns import lazy
from auditor.reading.values import Value, payment_id

_LIMIT = 100_000
"""Longer tool results are not read: a record a decision is about is a lookup's answer."""
_NODES = 20_000
"""JSON containers visited in one result, at most."""
_ID_KEY = lazy(r"(?:^|_)id$", re.I)
_NAME_KEYS = ("name", "title", "product_name")
_TOKEN = lazy(r"[a-z0-9]{2,}")


def tokens(text: str) -> frozenset[str]:
    """The words of a text as a description is matched: lowercased, singular."""
    return frozenset(_singular(w) for w in _TOKEN.findall(text[:20_000].lower()))


def _id_key(key: str) -> bool:
    """`_ID_KEY` holds: tried only on a key that ends as a match must, with a `d` (or the
    newline `$` lets it end before), as most keys do not."""
    return key.endswith(("d", "D", "\n")) and _ID_KEY.search(key) is not None


def _singular(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _key(value: str | int) -> str:
    """An id as records and arguments are matched: `#W2378156` and `W2378156` alike."""
    return str(value).strip().lstrip("#").upper()


class Records:
    """The records the conversation's tool results have shown so far."""

    def __init__(self) -> None:
        self.paid_with: dict[str, Value] = {}
        self.described: dict[str, list[frozenset[str]]] = {}
        self._parsed: dict[str, Any] = {}  # results `refunded` parsed before `read` took them

    def read(self, text: str) -> None:
        """Take in one tool result."""
        data = self._parsed.pop(text) if text in self._parsed else _json(text)
        for record in _dicts(data):
            ids = [v for k, v in record.items() if _id_key(k) and _plain(v)]
            if ids:
                self._add(record, ids)

    def _add(self, record: dict[str, Any], ids: list[str | int]) -> None:
        for key, value in record.items():
            if "payment" in key.lower() and isinstance(value, list) and value:
                first = _payment_in(value[0])
                if first is not None:
                    self.paid_with.setdefault(_key(ids[0]), first)
                    break
        descriptions = []
        name = next((record[k] for k in _NAME_KEYS if isinstance(record.get(k), str)), None)
        if name:
            descriptions.append(tokens(name))
        options = record.get("options")
        if isinstance(options, dict):
            descriptions.append(tokens(" ".join(str(v) for v in options.values())))
        descriptions = [d for d in descriptions if d]
        if descriptions:
            for i in ids:
                self.described.setdefault(_key(i), []).extend(descriptions)

    def paid_for(self, arguments: Any) -> list[Value]:
        """The payments the records a call names (by any argument) were made with."""
        return [self.paid_with[k] for k in _strings(arguments) if k in self.paid_with]

    def named(self, arguments: Any, said: Set[str]) -> list[Value]:
        """The ids a call passes of items whose name, or whose options together, `said` holds
        every word of (looked up by the call's values: the records are not rescanned)."""
        return [
            Value("id", k, k)
            for k in dict.fromkeys(_strings(arguments))
            if any(d <= said for d in self.described.get(k, ()))
        ]

    def refunded(self, text: str) -> list[Value]:
        """The payment methods a call's result shows it sent money back to: the latest entry
        of a payment list, with a negative amount or a `refund` transaction (the result is
        parsed once, for `read` too)."""
        data = self._parsed[text] = _json(text)
        out = []
        for record in _dicts(data):
            for key, value in record.items():
                if "payment" in key.lower() and isinstance(value, list) and value:
                    last = value[-1]
                    payment = _payment_in(last)
                    if payment is not None and isinstance(last, dict) and _refund(last):
                        out.append(payment)
        return out


def _refund(entry: dict[str, Any]) -> bool:
    return any(
        (isinstance(v, int | float) and not isinstance(v, bool) and v < 0)
        or (isinstance(v, str) and "refund" in v.lower())
        for v in entry.values()
    )


def _payment_in(entry: Any) -> Value | None:
    if not isinstance(entry, dict):
        return None
    return next((p for v in entry.values() if isinstance(v, str) and (p := payment_id(v))), None)


def _plain(value: Any) -> bool:
    return isinstance(value, str | int) and not isinstance(value, bool) and value != ""


def _json(text: str) -> Any:
    head = text[:1] if text[:1] in "{[" else text.lstrip()[:1]
    if head not in ("{", "[") or len(text) > _LIMIT:
        return None
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return None


def _dicts(data: Any) -> Iterator[dict[str, Any]]:
    """Every object in a JSON value, at most `_NODES` containers visited."""
    stack, seen = [data], 0
    while stack and seen < _NODES:
        node = stack.pop()
        seen += 1
        if isinstance(node, dict):
            yield node
            stack.extend(v for v in node.values() if isinstance(v, dict | list))
        elif isinstance(node, list):
            stack.extend(v for v in node if isinstance(v, dict | list))


def _strings(arguments: Any) -> Iterator[str]:
    """Every string or integer an argument holds, as an id key (at most `_NODES` visited)."""
    stack, seen = [arguments], 0
    while stack and seen < _NODES:
        seen += 1
        node = stack.pop()
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
        elif _plain(node):
            yield _key(node)
