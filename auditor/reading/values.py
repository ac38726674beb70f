"""The values a person can see and decide on, read alike from message text and call arguments.

A plain-language approval is only as good as what it names: "I will book HAT136 on May 20,
paid with the Visa ending in 7447, $1,200.00 in total" names a flight, a date, a payment method
and an amount. Each is read as a `Value` of one kind with a normalised key, so that the forms
people write (`$1,200.00`, `May 20th`, `the twentieth of May`, `Visa ending in 7447`) compare
equal to the forms calls carry (`1200`, `2024-05-20`, `credit_card_4421486` whose profile says
`"last_four": "7447"`).

Kinds: `money`, `date`, `payment`, `flight`, `email`, `id` (codes of letters and digits:
`K1NW8N`, `#W2378156`), `handle` (`mia_li_3668`), `quantity`, `birthdate`. Every pattern is
bounded, and text is read up to `TEXT_LIMIT` characters, so hostile text stays linear.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from decimal import Decimal
from functools import lru_cache
from typing import Any

from auditor.common.patterns import folded, lazy
from auditor.common.structs import dataclass
from auditor.languages import LEXICONS
from auditor.reading.written import DATE_MARKS as _DATE_MARKS
from auditor.reading.written import DATES as _DATES
from auditor.reading.written import DATES_IN_DIGITS as _DATES_IN_DIGITS
from auditor.reading.written import ISO_DATE as _ISO_DATE
from auditor.reading.written import MONEY as _MONEY
from auditor.reading.written import MONTH_NAMED as _MONTH_NAMED
from auditor.reading.written import MONTHS, NUMBERS, decimal_key
from auditor.reading.written import ORDINALS as _ORDINALS
from auditor.reading.written import amount as _amount
from auditor.reading.written import has_currency_word as _has_currency_word
from auditor.reading.written import machine_amount as _machine_amount

TEXT_LIMIT = 20_000
_LEAF_LIMIT = 254

PAYMENT_KINDS = ("credit_card", "debit_card", "gift_card", "certificate", "paypal", "bank")
_PAYMENT_ID = lazy(
    r"\b(?P<kind>credit_card|debit_card|gift_card|certificate|paypal|bank_account|bank)_(?P<n>\d+)\b",
    re.I,
)
_CARD_WORDS = r"(?:visa|master\s?card|amex|american express|discover|credit card|debit card|card)"
_PAYMENT_TEXT = folded(
    r"\b(?P<kind>" + _CARD_WORDS + r"|gift card|(?:travel )?certificate)s?\s{1,3}"
    r"(?:(?:number|no\.?|#|id|ending in|ending with|ending|that ends in|last four digits"
    r"|last 4 digits|last four|last 4|with)\s{1,3}){0,2}[#:(]?\s?(?:[x*]{2,4}[-\s]?)?"
    r"(?P<n>\d{4,12})\b"
    r"|\b(?P<n2>\d{4})\s(?P<kind2>" + _CARD_WORDS + r"|gift card)\b"
    r"|\b(?P<bare>gift cards?|(?:travel )?certificates?|credit cards?|debit cards?|paypal"
    r"|visa|master\s?card|original (?:payment|form of payment)|same (?:payment|card)"
    r"|(?:card|payment method|payment)(?: information| details)? (?:on file|saved|stored"
    r"|in (?:my|your|the) profile))\b"
)
_PAYMENT_HINTS = (
    "card",
    "certificate",
    "paypal",
    "bank",
    "payment",
    "visa",
    "amex",
    "american",
    "discover",
)
"""A word each alternative of `_PAYMENT_ID` and `_PAYMENT_TEXT` holds (lowercase)."""
_FLIGHT = lazy(r"[A-Z](?<!\w[A-Z])[A-Z]{1,2}\d{1,4}\b")
r"""`\b[A-Z]{2,3}\d{1,4}\b`, its first letter outside the look-behind: a pattern that starts by
taking a character of a class is passed over by `re` where no such character is, at C speed."""
_EMAIL = lazy(r"\b[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,8}\b")
_CODE = lazy(r"#?\b(?=[A-Z0-9]{5,12}\b)(?=[A-Z0-9]{0,11}\d)(?=[A-Z0-9]{0,11}[A-Z])[A-Z0-9]{5,12}\b")
_DIGIT = lazy(r"\d")
_NUMBER_ID = lazy(r"(?<![\d.,$€£])\b\d{6,16}\b(?![.,]\d)")
_PREFIXED = lazy(r"\b[a-z]{2,20}(?:_[a-z]{2,20}){0,3}_\d{3,12}\b")
_QUANTITY = folded(
    r"\b(?P<n>\d{1,3}|" + "|".join(NUMBERS) + r")\s(?:(?:extra|more|additional|checked|new|"
    r"non-?free|free|of)\s){0,2}(?:[a-z]{3,20}\s)?(?P<noun>[a-z]{2,20})\b"
)
_MONEY_KEY_WORDS = "amount price total cost fee fees refund balance charge sum subtotal paid"
_MONEY_WORDS = frozenset(
    (*_MONEY_KEY_WORDS.split(), *(w for lex in LEXICONS.values() for w in lex.money_words.split()))
)
_PAYMENT_KEYS = lazy(r"payment|card|method", re.I)
_QUANTITY_KEY = lazy(
    r"(?:quantity|count|number)_of_(?P<a>\w+)|num_(?P<b>\w+)|(?P<c>\w+)_(?:count|quantity)",
    re.I,
)


@dataclass(frozen=True, slots=True)
class Value:
    """One value a person can see: `kind`, a key equal for equal meanings, and its writing."""

    kind: str
    key: str
    """money: the amount (`1200`, `12.5`); date: `MM-DD` or `YYYY-MM-DD`; payment: `kind:number`,
    `kind:last4:NNNN` or a bare `kind`; flight, email, id, quantity: their normal form."""
    text: str

    @property
    def specific(self) -> bool:
        """Names one thing (a number, an id), not only a kind of thing (`gift card`)."""
        return self.kind != "payment" or ":" in self.key


@dataclass(frozen=True, slots=True)
class Argument:
    """A value a call carries, and where."""

    path: str
    value: Value


def in_text(text: str) -> list[Value]:
    """The values a message names, in order of kind: read once however many rules and walks
    ask (`_read`)."""
    return list(_read(_in_text, text[:TEXT_LIMIT]))


def _in_text(text: str) -> list[Value]:
    digits = _DIGIT.search(text) is not None
    found: list[Value] = []
    found += money_in(text)
    found += _dates_in(text, digits)
    payments = payments_in(text)
    found += payments
    flights = _flights_in(text)
    found += [Value("flight", f, f) for f in flights]
    if "@" in text:
        found += [Value("email", m.group().lower(), m.group()) for m in _EMAIL.finditer(text)]
    numbers = {v.key.rpartition(":")[2] for v in payments}
    for v in _ids_in(text, digits):
        if v.key in numbers or v.key in flights:
            continue
        # `BOH180` may be a flight or a booking: it can match either, and decides neither
        found.append(Value("code", v.key, v.text) if _FLIGHT.fullmatch(v.key) else v)
    if digits or _may_count(text):
        for m in _QUANTITY.finditer(text):
            n = m["n"].lower()
            count = NUMBERS.get(n)
            number = count if count is not None else int(n)
            said = text[m.start() : m.end()]
            found.append(Value("quantity", f"{_noun(m['noun'])}:{number}", said))
    return found


def _may_count(text: str) -> bool:
    """A text without digits may hold a quantity only by a number word (on ASCII text, where
    `re.I` is plain ASCII case folding; elsewhere it may, and is read)."""
    if not text.isascii():
        return True
    lowered = text.lower()
    return any(word in lowered for word in NUMBERS)


def in_arguments(arguments: Any) -> list[Argument]:
    """The values a call's arguments carry, each with its path."""
    return [a for path, key, leaf in leaves(arguments) if (a := _argument(path, key, leaf))]


def same(a: Value, b: Value, cards: Mapping[str, str]) -> bool:
    """`a` (as a person saw it) and `b` (as a call carries it) mean the same thing.

    `cards` maps payment ids to the last four digits their profile shows (`credit_card_4421486`
    -> `7447`), read from tool results.
    """
    if a.kind == "code":
        return b.kind in ("flight", "id") and a.key == b.key
    if a.kind != b.kind:
        return False
    if a.kind in ("date", "birthdate"):
        return _same_date(a.key, b.key)
    if a.kind == "payment":
        return _same_payment(a.key, b.key, cards)
    return a.key == b.key


def money_in(text: str) -> tuple[Value, ...]:
    """The amounts of money a text names (`$1,200.00`, `50 dollars`)."""
    return _read(_amounts_in, text[:TEXT_LIMIT])


# A text is read by the approvals walk (payments and amounts when it is shown, `language._shown`,
# then all its values) and by the rules (CF003's claims and results, FB007's prices): each of
# its readings is kept for the last 512 texts read (at most TEXT_LIMIT characters each), which
# hold the conversation being audited.
@lru_cache(maxsize=512)
def _read(find: Callable[[str], Iterable[Value]], text: str) -> tuple[Value, ...]:
    return tuple(find(text))


def _amounts_in(text: str) -> Iterator[Value]:
    if "$" not in text and "€" not in text and "£" not in text and not _has_currency_word(text):
        return
    if _DIGIT.search(text) is None:
        return  # every amount holds a digit
    for m in _MONEY.finditer(text):
        amount = _amount(m["n"] or m["m"])
        if amount is not None:
            yield Value("money", amount, m.group().strip())


def _dates_in(text: str, digits: bool = True) -> Iterator[Value]:
    """The dates a text names; `digits` False says it holds none (spares the patterns of
    digits only)."""
    named = _MONTH_NAMED.search(text) is not None
    patterns = _DATES if named else _DATES_IN_DIGITS
    for pattern in patterns if digits else [p for p in patterns if p not in _DATES_IN_DIGITS]:
        if _DATE_MARKS.get(pattern, "") not in text:
            continue
        for m in pattern.finditer(text):
            before = text[max(0, m.start() - 30) : m.start()].lower()
            birth = any(w in before for w in _BIRTH_WORDS)
            for v in _date(m, text):
                yield Value("birthdate", v.key, v.text) if birth or _old(v.key) else v


_BIRTH_WORDS = ("birth", "dob", "born", "birthday")


def _old(key: str) -> bool:
    """A date of another era (`1970-06-06`) is a birth date, not one of a trip or an order."""
    return len(key) == 10 and key < "2000"


def _date(m: re.Match[str], text: str) -> Iterator[Value]:
    """The dates match `m` of `text` reads (of the lowered text, for a folded pattern)."""
    groups = m.groupdict()
    year = groups.get("year")
    if "a" in groups and groups["a"] is not None:
        a, b = int(groups["a"]), int(groups["b"])
        # 5/20 or 20/5: read both ways when both could be a month
        readings = [(a, b), (b, a)] if a <= 12 and b <= 12 else [(a, b)] if a <= 12 else [(b, a)]
    else:
        month = groups["month"]
        month_number = MONTHS.get(month.lower().rstrip(".")) if not month.isdigit() else int(month)
        day = _day(groups["day"])
        if month_number is None or day is None:
            return
        readings = [(month_number, day)]
    for month_number, day in readings:
        if 1 <= month_number <= 12 and 1 <= day <= 31:
            key = f"{month_number:02d}-{day:02d}"
            yield Value("date", f"{year}-{key}" if year else key, text[m.start() : m.end()])


def _day(written: str) -> int | None:
    lowered = written.lower()
    if lowered in _ORDINALS:
        return _ORDINALS[lowered]
    digits = lowered.rstrip("stndrh")
    return int(digits) if digits.isdigit() else None


def payments_in(text: str) -> tuple[Value, ...]:
    """The payment methods a text names: ids, numbers, last four digits, or only a kind."""
    return _read(_payments, text[:TEXT_LIMIT])


def _payments(text: str) -> Iterator[Value]:
    if text.isascii():
        lowered = text.lower()
        if not any(word in lowered for word in _PAYMENT_HINTS):
            return  # every payment pattern names a card, a certificate, a bank, ...
    for m in _PAYMENT_ID.finditer(text) if "_" in text else ():
        yield Value("payment", f"{_payment_kind(m['kind'])}:{int(m['n'])}", m.group())
    for m in _PAYMENT_TEXT.finditer(text):
        said = text[m.start() : m.end()]
        if m["bare"]:
            yield Value("payment", _payment_kind(m["bare"]), said)
            continue
        kind = _payment_kind(m["kind"] or m["kind2"])
        number = m["n"] or m["n2"]
        if kind == "credit_card" or len(number) == 4:
            yield Value("payment", f"{kind}:last4:{number[-4:]}", said)
        else:
            yield Value("payment", f"{kind}:{int(number)}", said)


def payment_id(text: str) -> Value | None:
    """A payment method's id (`credit_card_4421486`, `paypal_7644869`) as a Value; None for any
    other text."""
    if m := _PAYMENT_ID.fullmatch(text):
        return Value("payment", f"{_payment_kind(m['kind'])}:{int(m['n'])}", text)
    return None


def _payment_kind(written: str) -> str:
    lowered = written.lower().replace(" ", "_")
    if "gift" in lowered:
        return "gift_card"
    if "certificate" in lowered:
        return "certificate"
    if "paypal" in lowered:
        return "paypal"
    if "debit" in lowered:
        return "debit_card"
    if "bank" in lowered:
        return "bank"
    if "original" in lowered or "same" in lowered:
        return "original"
    if "file" in lowered or "profile" in lowered or "saved" in lowered or "stored" in lowered:
        return "card"  # "the card on file": any card the profile holds
    return "credit_card"


def _flights_in(text: str) -> list[str]:
    """Flight numbers: codes like `HAT136` that the text calls flights ("flight HAT136",
    "Flight Number: HAT136"), and codes sharing their letters ("HAT136 & HAT039"). A
    reservation code of the same shape (`BOH180`) is an id."""
    codes = list(_FLIGHT.finditer(text))
    if not codes:
        return []
    lowered = text.lower()
    named = {
        m.group().rstrip("0123456789")
        for m in codes
        if "flight" in lowered[max(0, m.start() - 24) : m.start()]
        or "flight" in lowered[m.end() : m.end() + 12]
    }
    return list(dict.fromkeys(m.group() for m in codes if m.group().rstrip("0123456789") in named))


def _ids_in(text: str, digits: bool) -> Iterator[Value]:
    if not digits:
        return  # each kind of id holds a digit
    for m in _CODE.finditer(text):
        code = m.group().lstrip("#")
        yield Value("id", code.upper(), m.group())
    if "_" in text:  # every handle has one
        for m in _PREFIXED.finditer(text):
            if _PAYMENT_ID.fullmatch(m.group()) is None:
                yield Value("handle", m.group().lower(), m.group())
    for m in _NUMBER_ID.finditer(text):
        yield Value("id", m.group(), m.group())


def _noun(word: str) -> str:
    """A counted thing in the singular: `bags` and `baggages` are `bag`, `bottles` `bottle`."""
    lowered = word.lower()
    if lowered.startswith("bag"):
        return "bag"
    if lowered.endswith("ies"):
        return lowered[:-3] + "y"
    return lowered[:-1] if lowered.endswith("s") and len(lowered) > 3 else lowered


def leaves(
    value: Any, path: str = "", key: str = "", depth: int = 0
) -> Iterator[tuple[str, str, Any]]:
    """(path, innermost key, value) of every leaf of a call's arguments (`a.b[0]`), at most
    `_DEPTH` levels down."""
    if isinstance(value, dict):
        if depth < _DEPTH:
            for k, v in value.items():
                yield from leaves(v, f"{path}.{k}" if path else str(k), str(k), depth + 1)
    elif isinstance(value, list):
        if depth < _DEPTH:
            for i, v in enumerate(value):
                yield from leaves(v, f"{path}[{i}]", key, depth + 1)
    elif value is not None and not isinstance(value, bool):
        yield path, key, value


_DEPTH = 64


def _argument(path: str, key: str, leaf: Any) -> Argument | None:
    money = _money_key(key)
    if isinstance(leaf, int | float) and money:
        return Argument(path, Value("money", decimal_key(Decimal(str(leaf))), str(leaf)))
    if isinstance(leaf, int) and (m := _QUANTITY_KEY.fullmatch(key)):
        noun = _noun(m["a"] or m["b"] or m["c"])
        return Argument(path, Value("quantity", f"{noun}:{leaf}", str(leaf)))
    if not isinstance(leaf, str) or len(leaf) > _LEAF_LIMIT:
        return None
    text = leaf.strip()
    if payment := payment_id(text):
        return Argument(path, payment)
    if m := _ISO_DATE.fullmatch(text[:10]):
        month, day = int(m["month"]), int(m["day"])
        key_ = f"{m['year']}-{month:02d}-{day:02d}"
        birth = any(w in key.lower() for w in _BIRTH_WORDS) or _old(key_)
        return Argument(path, Value("birthdate" if birth else "date", key_, text))
    if money and (amount := _machine_amount(text.lstrip("$€£"))) is not None:
        return Argument(path, Value("money", amount, text))
    if _FLIGHT.fullmatch(text) and "flight" in key.lower():
        return Argument(path, Value("flight", text, text))
    if "@" in text and _EMAIL.fullmatch(text):
        return Argument(path, Value("email", text.lower(), text))
    if _CODE.fullmatch(text):
        return Argument(path, Value("id", text.lstrip("#").upper(), text))
    if _PREFIXED.fullmatch(text):
        return Argument(path, Value("handle", text.lower(), text))
    if key.lower().endswith(("id", "ids")) and _NUMBER_ID.fullmatch(text):
        return Argument(path, Value("id", text, text))
    if _PAYMENT_KEYS.search(key) and text.lower() in ("paypal", "original"):
        return Argument(path, Value("payment", text.lower(), text))
    return None


def _money_key(key: str) -> bool:
    """`amount`, `total_price`, `refund_amount`; not `total_baggages`."""
    words = key.lower().replace("-", "_").split("_")
    return words[-1] in _MONEY_WORDS or words[0] in ("amount", "price")


def _same_date(shown: str, sent: str) -> bool:
    """`05-20` or `2024-05-20` against `2024-05-20`: the year only counts where both have one."""
    return shown == sent or (shown[-5:] == sent[-5:] and (len(shown) == 5 or len(sent) == 5))


def _same_payment(shown: str, sent: str, cards: Mapping[str, str]) -> bool:
    if shown == sent:
        return True
    shown_kind, _, shown_rest = shown.partition(":")
    sent_kind, _, sent_number = sent.partition(":")
    if shown_kind == "original":
        return True
    if not shown_rest:  # "a gift card": the kind is all it says
        return shown_kind == sent_kind or (shown_kind == "card" and sent_kind.endswith("card"))
    kinds_agree = shown_kind == sent_kind or {shown_kind, sent_kind} <= {
        "credit_card",
        "debit_card",
    }
    if not kinds_agree:
        return False
    if shown_rest.startswith("last4:"):
        last4 = shown_rest[6:]
        profile = cards.get(f"{sent_kind}_{sent_number}")
        # Without the profile the digits of an id say nothing of the card's last four
        # (tau-bench's credit_card_4421486 ends in 7447): it may be the one.
        return profile == last4 if profile is not None else True
    return shown_rest == sent_number


_CARD_PROFILE = lazy(
    r'"(?P<id>(?:credit_card|debit_card|gift_card|certificate)_\d+)"\s*:\s*\{[^{}]{0,300}?'
    r'"last_four"\s*:\s*"(?P<last4>\d{4})"'
)


def card_profiles(text: str) -> dict[str, str]:
    """Payment ids and the last four digits a tool result shows for them (a user's profile)."""
    if '"last_four"' not in text:
        return {}
    return {m["id"]: m["last4"] for m in _CARD_PROFILE.finditer(text[: TEXT_LIMIT * 5])}
