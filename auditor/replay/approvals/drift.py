"""A call's values against what the user decided: which drifted, and why (for CF001).

Per kind of value (`values.py`): where the user confirmed or chose values of a kind and the
call sends none of them, each value it sends of that kind drifted; a value of an option the
user did not pick drifted; a payment method never named to or by the user drifted. Amounts
are read with every amount shown: one total paid with two cards, a price per passenger, a
balance left are no drift.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from auditor.common.patterns import lazy
from auditor.common.structs import dataclass
from auditor.reading.values import Argument, Value, in_arguments, same


@dataclass(frozen=True, slots=True)
class Drift:
    """A value a call sent that the user did not decide on."""

    path: str
    sent: Value
    why: str
    """`changed`: the user decided on other values of this kind (`expected`); `not picked`: an
    option the user turned down; `never shown`: a payment method, or an item acted on, the
    user was never shown."""
    expected: tuple[Value, ...] = ()


def drifts(
    arguments: Any,
    confirmed: tuple[Value, ...],
    rejected: tuple[Value, ...],
    shown: tuple[Value, ...],
    cards: Mapping[str, str],
    whole_items: bool = False,
    implied: tuple[Value, ...] = (),
) -> list[Drift]:
    """The values `arguments` sent against what the user decided.

    Per kind of value: where the user confirmed or chose values of that kind and the call sends
    none of them, every value it sends of that kind drifted (a call that also carries items the
    user was never asked about, such as the unchanged flights of an update, sends at least one
    confirmed value and is left alone); amounts also match as a sum (one total paid with two
    cards). A value of an option the user did not pick always drifted. A payment method never
    named to or by the user before the call drifted whatever else was confirmed. With
    `whole_items` (a tool that acts on every item it is given, such as a cancellation), an item
    of a list the user was never shown drifted even beside confirmed ones. A value `implied`
    (the item the user described in words, the payment the booking was made with) is never
    one the user was not shown.
    """
    sent: dict[str, list[Argument]] = {}
    for a in in_arguments(arguments):
        sent.setdefault(a.value.kind, []).append(a)
    out: list[Drift] = []
    for kind, items in sent.items():
        # "a gift card" decides the kind of payment, not which one
        decided = tuple(
            v for v in confirmed if v.kind == kind and (v.specific or kind == "payment")
        )
        seen = tuple(v for v in shown if v.kind == kind)
        ambiguous = tuple(v for v in confirmed if v.kind == "code")
        out += _drifted(kind, items, decided, rejected, seen, ambiguous, cards, whole_items)
        if whole_items and kind in ("id", "handle"):
            out = [d for d in out if not _implied(d, implied, cards)]
        if kind == "payment" and not _charges_nothing(arguments):
            reported = {d.path for d in out}
            known = (*seen, *implied)
            out += [
                Drift(a.path, a.value, "never shown")
                for a in items
                if a.path not in reported and not any(same(v, a.value, cards) for v in known)
            ]
    return sorted(out, key=lambda d: d.path)


def _implied(d: Drift, implied: tuple[Value, ...], cards: Mapping[str, str]) -> bool:
    """An item acted on that the user was never shown, but described in words."""
    return d.why == "never shown" and any(same(v, d.sent, cards) for v in implied)


_FREE_KEYS = lazy(r"non_?free|chargeable|billable|extra_paid", re.I)


def _charges_nothing(arguments: Any) -> bool:
    """The call says it takes no payment (`"nonfree_baggages": 0`): the payment method it must
    name is a formality, not a choice made for the user."""
    if not isinstance(arguments, dict):
        return False
    counts = [v for k, v in arguments.items() if _FREE_KEYS.search(str(k))]
    return bool(counts) and all(v == 0 for v in counts if isinstance(v, int | float))


def _drifted(
    kind: str,
    items: list[Argument],
    decided: tuple[Value, ...],
    rejected: tuple[Value, ...],
    seen: tuple[Value, ...],
    ambiguous: tuple[Value, ...],
    cards: Mapping[str, str],
    whole_items: bool,
) -> list[Drift]:
    def matches(value: Value) -> bool:
        return any(same(v, value, cards) for v in decided) or any(
            same(v, value, cards) for v in ambiguous
        )

    out = [
        Drift(a.path, a.value, "not picked", decided)
        for a in items
        if not matches(a.value) and any(same(r, a.value, cards) for r in rejected)
    ]
    if not decided:
        return out
    hits = [a for a in items if matches(a.value)]
    if kind == "money" and not hits:
        # Amounts are read with every amount shown so far: a price quoted earlier, a fee, a
        # balance ("$201 left on the certificate" of a $500 one is a charge of $299).
        known = {Decimal(v.key) for v in (*decided, *seen)}
        amounts = [Decimal(a.value.key) for a in items]
        if explained(sum(amounts, Decimal(0)), known) or all(explained(x, known) for x in amounts):
            return out
        if len(items) > 1:
            total = " + ".join(a.value.text for a in items)
            return [
                *out,
                Drift(
                    _common_path(items),
                    Value("money", "", f"{total} = {sum(amounts)}"),
                    "changed",
                    decided,
                ),
            ]
    reported = {d.path for d in out}
    if not hits:
        return out + [
            Drift(a.path, a.value, "changed", decided) for a in items if a.path not in reported
        ]
    if whole_items and kind in ("id", "handle"):
        out += [
            Drift(a.path, a.value, "never shown")
            for a in items
            if "[" in a.path and a.path not in reported and not matches(a.value)
        ]
    return out


def _common_path(items: list[Argument]) -> str:
    """`payment_methods[0].amount`, `payment_methods[1].amount` -> `payment_methods[].amount`."""
    paths = {re.sub(r"\[\d+\]", "[]", a.path) for a in items}
    return paths.pop() if len(paths) == 1 else items[0].path


_PASSENGERS = range(2, 6)


def explained(amount: Decimal, shown: set[Decimal]) -> bool:
    """An amount the user could have read from the ones shown: one of them, a price times the
    passengers (at most five), two or three of them added, or one less another (a balance)."""
    if amount in shown or any(amount == price * n for price in shown for n in _PASSENGERS):
        return True
    few = sorted(shown)[:40]  # bounded: pairs and triples of at most 40 amounts
    pairs = {a + b for i, a in enumerate(few) for b in few[i + 1 :]}
    if amount in pairs or any(amount == a - b for a in few for b in few if a > b):
        return True
    return any(amount - c in pairs for c in few[:12])
