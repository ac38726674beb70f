"""How people write months, days, numbers and amounts: the tables `values` reads them with.

Month names in English and in each lexicon's language (`Lexicon.months`), ordinal day words,
number words, and the forms of an amount (`1,250.00`, `1.250,00`, `1 250,00`): data and the
patterns built from it, and the functions that turn a written amount into its key. Every
pattern is bounded.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from auditor.common.patterns import Finds, folded, lazy, one_of
from auditor.languages import LEXICONS

MONTHS = {
    name: i + 1
    for i, names in enumerate(
        (
            "january jan",
            "february feb",
            "march mar",
            "april apr",
            "may",
            "june jun",
            "july jul",
            "august aug",
            "september sep sept",
            "october oct",
            "november nov",
            "december dec",
        )
    )
    for name in names.split()
}
_ENGLISH_MONTHS = frozenset(MONTHS)
MONTHS |= {
    name: i + 1
    for lex in LEXICONS.values()
    if lex.months
    for i, names in enumerate(lex.months.split("|"))
    for name in names.split()
}
"""Month names to numbers, in English and in each lexicon's language (`Lexicon.months`)."""
_ORDINAL_WORDS = """
    first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth
    fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth
"""
ORDINALS = {word: i + 1 for i, word in enumerate(_ORDINAL_WORDS.split())}
ORDINALS |= {f"twenty-{w}": 20 + n for w, n in list(ORDINALS.items())[:9]}
ORDINALS |= {f"twenty {w}": 20 + n for w, n in list(ORDINALS.items())[:9]}
ORDINALS |= {"thirtieth": 30, "thirty-first": 31, "thirty first": 31}
_NUMBER_WORDS = "zero one two three four five six seven eight nine ten eleven twelve"
NUMBERS = {w: i for i, w in enumerate(_NUMBER_WORDS.split())}

_MONTH = r"(?P<month>" + one_of(MONTHS) + r")\.?"
_FOREIGN_MONTH = r"(?P<month>" + one_of(m for m in MONTHS if m not in _ENGLISH_MONTHS) + r")"
_DAY_WORD = one_of(ORDINALS)
_DAY = r"(?P<day>\d{1,2}(?:st|nd|rd|th)?|" + _DAY_WORD + r")"
_YEAR = r"(?:,?\s+(?:de\s+|del\s+)?(?P<year>\d{4}))?"
ISO_DATE = lazy(r"\b(?P<year>\d{4})-(?P<month>\d{1,2})-(?P<day>\d{1,2})\b")
_SLASHED = lazy(r"\b(?P<a>\d{1,2})/(?P<b>\d{1,2})(?:/(?P<year>\d{4}))?\b")
# German's `3. März 2024`: the day's full stop, before a month no English text names
_DOTTED = folded(r"\b(?P<day>\d{1,2})\.\s+" + _FOREIGN_MONTH + r"\b" + _YEAR)
DATES: tuple[Finds, ...] = (
    ISO_DATE,
    folded(r"\b" + _MONTH + r"\s+(?:the\s+)?" + _DAY + r"\b" + _YEAR),
    folded(r"\b(?:the\s+)?" + _DAY + r"\s+(?:of\s+|de\s+|del\s+)?" + _MONTH + r"\b" + _YEAR),
    _SLASHED,
    _DOTTED,
)
DATES_IN_DIGITS: tuple[Finds, ...] = (ISO_DATE, _SLASHED)
DATE_MARKS: dict[Finds, str] = {ISO_DATE: "-", _SLASHED: "/", _DOTTED: "."}
"""A character every date a pattern of `DATES` finds holds: a text without it is not read."""
MONTH_NAMED = folded(r"\b" + one_of(MONTHS) + r"\b")
"""A month's name as a word: what every pattern of `DATES` but those of digits holds (before
`.`, white space or a word's end). A text holding none is spared them (the slowest: day
words)."""
_FIGURE = r"\d{1,3}(?:[,.\u00a0\u202f]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?"
"""An amount as people write it: `1,250.00` and `39.90`, or in most of Europe `1.250,00`,
`39,90` and `1 250,00` (a non-breaking space between thousands): a separator followed by
three digits groups thousands, one followed by one or two digits at the end is the decimal
mark (`amount` reads it so)."""
MONEY = lazy(
    r"(?:(?P<cur>[$€£]|\b(?:USD|EUR|GBP)\s?)(?P<n>" + _FIGURE + r")(?![\d,.]\d)"
    r"|(?<![\d.,])\b(?P<m>" + _FIGURE + r")[\s\u00a0\u202f]?"
    r"(?:[€£]|(?:dollars|usd|euros?|eur|pounds|gbp)\b))",
    re.I,
)


def has_currency_word(text: str) -> bool:
    lowered = text.lower()
    return any(w in lowered for w in ("usd", "eur", "gbp", "dollar", "euro", "pound"))


def amount(written: str) -> str | None:
    """The amount `written` names, whichever mark it writes decimals with (`_FIGURE`)."""
    digits = written.replace("\u00a0", "").replace("\u202f", "")
    last = max(digits.rfind(","), digits.rfind("."))
    if last >= 0 and len(digits) - last - 1 in (1, 2):  # `39,90`, `1.250,5`: a decimal mark
        whole = digits[:last].replace(",", "").replace(".", "")
        digits = f"{whole}.{digits[last + 1 :]}"
    else:  # `1,250`, `2.500`, `1.250.000`: thousands
        digits = digits.replace(",", "").replace(".", "")
    try:
        value = Decimal(digits)
    except InvalidOperation:
        return None
    return decimal_key(value)


def machine_amount(written: str) -> str | None:
    """An amount a program wrote (a call's argument): `.` its decimal mark, `,` thousands."""
    try:
        value = Decimal(written.replace(",", ""))
    except InvalidOperation:
        return None
    return decimal_key(value)


def decimal_key(value: Decimal) -> str:
    """An amount as its shortest exact text: `1200.00` -> `1200`."""
    normal = value.normalize()
    return f"{normal:f}"
