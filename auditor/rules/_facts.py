"""Facts an answer states that a reader could check: numbers to call, addresses, links, prices.

FB008 asks whether the conversation was given each one. `facts(text)` reads an assistant's
words for them, outside code (inline or fenced: a program names what it likes) and outside the
examples the assistant offers ("an id like 'sara_doe_496'", "e.g. ZFA04Y"):

- e-mail addresses, URLs deeper than a site's home page, phone numbers (`reading.identifiers`);
- references: an id (`identifiers.kind`) written after a word that says what it refers to
  (order, booking, reservation, confirmation, ticket, tracking, flight, "ID", "number", …),
  or after `#`;
- prices: an amount with its currency (`$250`, `250 USD`: `values.money_in`);
- template slots left where a fact belongs: `[Generated ID, e.g., ABC123]`, `[Insert date]`.

Every pattern is bounded and at most `TEXT_LIMIT` characters of a message are read.
"""

from __future__ import annotations

import itertools
import re
from decimal import Decimal

from auditor.common.patterns import lazy
from auditor.common.structs import dataclass
from auditor.languages import LEXICONS
from auditor.reading import identifiers, sentences
from auditor.reading.values import money_in

TEXT_LIMIT = 20_000
_CODE = lazy(r"```.*?(?:```|\Z)|`[^`\n]{1,500}`", re.DOTALL)
_REFERS = lazy(
    r"(?:\b(?:order|booking|reservation|confirmation|reference|ref|ticket|tracking|case|invoice"
    r"|transaction|receipt|flight|id|number|no|code)s?\b|#)[\s:#.*()-]{0,6}(?:is\s)?[\s*`'\"]{0,4}$",
    re.I,
)
_EXAMPLE = lazy(
    r"(?:\b(?:like|eg|for example|for instance|such as|example|format|sample|say)\b|\be\.g\.?)"
    r"[^.\n]{0,24}$",
    re.I,
)
_HEDGED = lazy(
    r"\b(?:hypothetical\w*|illustrat\w+|assum(?:e|ed|es|ing|ption)|placeholder|fictional"
    r"|fictitious|dummy|made[- ]up|"
    + "|".join(lexicon.assumes for lexicon in LEXICONS.values())
    + r")\b",
    re.I,
)
_SLOT = lazy(
    r"\[(?:[^\[\]\n]{1,60}?\b(?:e\.g\.|for example)[^\[\]\n]{0,80}"
    r"|(?i:insert|enter|generated|placeholder)\b[^\[\]\n]{0,60})\]"
)
_COMPUTED_BEFORE = lazy(
    r"(?:\b(?:(?:sub)?total\w*|sum|altogether|combined|overall|difference|balance|remaining"
    r"|refund\w*|due|savings?|in all)\b|=)[^.\n$€£]{0,60}$",
    re.I,
)
_COMPUTED_AFTER = lazy(r"\s{0,2}[(\[][^)\]\n]{0,60}?[+×*/]|\s{0,2}[(\[][^)\]\n]{0,60}?\sx\s")
_COUNT = lazy(r"\d+(?:[.,]\d+)?[a-z]{1,2}\+?|\d+[a-z]?-[a-z]+", re.I)
"""A count or a size (`100k+`, `24-hour`), not a reference."""
_HINTS = ("@", "/", "$", "€", "£", "usd", "eur", "gbp", "dollar", "euro", "pound", "[", "#")
SORTS = ("e-mail address", "URL", "phone number")


@dataclass(frozen=True, slots=True)
class Fact:
    """One checkable fact of an answer."""

    sort: str
    """`e-mail address`, `URL`, `phone number`, `reference`, `price` or `template slot`."""
    text: str
    """As the answer writes it."""
    amount: Decimal | None = None
    """A price's amount."""

    @property
    def lookup(self) -> str:
        """The sort under which `_grounding` looks the fact up."""
        return "id" if self.sort == "reference" else self.sort


def facts(text: str) -> list[Fact]:
    """The facts of an answer, each once, in order of sort."""
    text = text[:TEXT_LIMIT]
    lower = text.lower()
    if not any(h in lower for h in _HINTS) and not any(c.isdigit() for c in text):
        return []
    if "`" in text:  # code is blanked out, keeping positions
        text = _CODE.sub(lambda m: " " * len(m.group()), text)
    slots = [(m.start(), m.end()) for m in _SLOT.finditer(text)]
    found = [Fact("template slot", text[a:b]) for a, b in slots]
    tokens = dict.fromkeys(t.rstrip(".:,;") for t in identifiers.tokens(text, phones=False))
    for token in tokens:
        sort = identifiers.kind(token)
        at = text.find(token)  # the first time: an example stays one when repeated
        if (sort not in SORTS and sort != "id") or _offered(text, at, slots):
            continue
        if sort in SORTS:
            found.append(Fact(sort, token))
        elif token.startswith("#") or (
            _REFERS.search(text, max(0, at - 40), at) and not _COUNT.fullmatch(token)
        ):
            found.append(Fact("reference", token))
    for written, _ in identifiers.phone_numbers(text):
        at = text.find(written)
        if not _offered(text, at, slots) and not _in_link(text, at):
            found.append(Fact("phone number", written))
    for money in money_in(text):
        at = text.find(money.text)
        if not _offered(text, at, slots) and not _computed(text, at, at + len(money.text)):
            found.append(Fact("price", money.text, Decimal(money.key)))
    return list(dict.fromkeys(found))


def _offered(text: str, at: int, slots: list[tuple[int, int]]) -> bool:
    """The fact is offered as an example, inside a template slot, or in a sentence that says it
    is hypothetical."""
    if _EXAMPLE.search(text, max(0, at - 40), at) or any(a <= at < b for a, b in slots):
        return True
    start = sentences.last_end(text, max(0, at - 300), at, 0)
    stop = sentences.next_end(text, at, at + 300)
    return _HEDGED.search(text, start, stop if stop is not None else at + 300) is not None


def _in_link(text: str, at: int) -> bool:
    """The digits stand inside a link or a path (`…&qid=1689009508&sr=8-1`), not alone."""
    start = max(text.rfind(" ", 0, at), text.rfind("\n", 0, at)) + 1
    return any(c in text[start:at] for c in "/=?&")


def _computed(text: str, start: int, end: int) -> bool:
    """The answer says it worked the price out: a total, a difference, a refund, `= $X`, or
    `$X ($a + $b)`: an arithmetic slip there is not a fact made up."""
    return bool(
        _COMPUTED_BEFORE.search(text, max(0, start - 80), start)
        or _COMPUTED_AFTER.match(text, end, end + 80)
    )


_NUMBER = lazy(r"(?<![\w.])\d{1,3}(?:,\d{3})+(?:\.\d+)?|(?<![\w.])\d+(?:\.\d+)?")


def amounts(text: str) -> set[Decimal]:
    """Every number a text writes, as an amount (`1,047.00` -> 1047): what a tool returned."""
    return {Decimal(m.group().replace(",", "")) for m in _NUMBER.finditer(text)}


def prices(text: str) -> list[Decimal]:
    """The amounts of money a text names, in order: what people and prompts give."""
    return [Decimal(v.key) for v in money_in(text)]


def adds_up(
    amount: Decimal, given: set[Decimal], worked: set[Decimal], listed: list[Decimal]
) -> bool:
    """The amount is one of those `given` (by people, the prompt, tools), `worked` (returned by
    a tool or written in an earlier answer) or `listed` (written before it in the same answer),
    one of them times a count (two to five passengers; up to twelve, the days of a week or
    the months of a year, for a worked or listed amount) or a share of one, one of the worked
    or listed added to or taken from another, or the sum of the last prices listed. Two prices
    of the prompt or the user alone (a fee and a certificate) do not add up to a fare."""
    known = given | worked
    known.update(listed)
    if amount in known:
        return True
    if any(amount * n in known or amount / n in known for n in _PASSENGERS):
        return True
    found = worked.union(listed)
    if any(amount * n in found or amount / n in found for n in _COUNTS):
        return True  # a tool's daily price for a week
    for x in itertools.islice(worked.union(listed), _MOST):
        if amount - x in known or x - amount in known or amount + x in known:
            return True
    total = Decimal(0)
    for x in reversed(listed):
        total += x
        if total == amount:
            return True
    return False


_PASSENGERS = range(2, 6)
"""Counts any amount is taken by: passengers, bags."""
_COUNTS = range(6, 13)
"""Further counts a tool's or the answer's own amount is taken by: nights, the days of a week,
the months of a year (a fee of the policy eight times is no fare)."""
_MOST = 5_000
"""Amounts tried as one term of a sum: the pool is a set, so each try is one lookup."""
