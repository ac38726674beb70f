"""Identifiers in text and in argument values, in the written forms that name the same thing.

FB004 asks whether an identifier a call uses was seen before. Both sides go through here:
`tokens(text)` cuts a text into the tokens that could be identifiers, `keys(token)` gives the
forms under which a token is indexed and looked up, and `kind(token)` says whether a token
from an argument is an identifier at all (an e-mail, a URL, a file path, an id that mixes
letters and digits, a long digit run, a phone number), and of what sort.

Written forms that name the same value share a key: case, a leading `#`, surrounding
punctuation, separators inside an id (`ORD-20931`, `ord_20931`), the number inside an id with a
short code (`#20931` and `ORD-20931` both give `20931`; `credit_card_7334` keeps its words), a
URL without its scheme, `www.`, query or trailing slash (a relative link,
`/users/sign_in?next=1`, also without its query or fragment) (and, for an argument, the tail of
its path that names the resource: a repository slug or a paper id the user gave, behind a host
the agent knows), the last parts of a path (`/testbed/src/app.py` is found as `src/app.py` or
`app.py`), the digits of a phone number; an e-mail address also gives its local part (tau-bench
agents look a user up by the part before the `@`).
"""

from __future__ import annotations

import itertools
import re
import string
from functools import lru_cache

from auditor.common.patterns import lazy

_ID_CHARS = frozenset(string.ascii_letters + string.digits + "_#.@/:~+-?=&%")
_RUNS = lazy(r"[a-z0-9]+")
_ANCHOR = lazy(r"[\d/@]|\.\w")
_WORDISH = string.ascii_letters + "_-"


class _Spaces(dict):
    """`str.translate` table: every character that cannot be part of an identifier becomes a
    space, so that `split()` cuts a text into candidate tokens at C speed. Filled lazily, one
    entry per distinct character."""

    def __missing__(self, code: int) -> int:
        char = chr(code)
        value = code if char in _ID_CHARS or (code > 127 and char.isalnum()) else 32
        self[code] = value
        return value


_SPACES = _Spaces()
# A phone number written with spaces or brackets; not a date followed by a time
# (`2026-04-06 15:00` is no `2026040615`) nor an amount (`$1 250 000`, `1 250 000 EUR`).
_PHONE = lazy(
    r"(?<![\w+$€£:])(?<!\w-)\+?\(?\d{1,4}\)?(?:[ .-]?\(?\d{2,4}\)?){2,4}(?![\w:])"
    r"(?!\s?(?:usd|eur|gbp|dollars?|euros?|pounds?)\b)",
    re.I,
)
_CURRENCY = lazy(r"[$€£]")
_BREADCRUMB = lazy(
    r"(?P<site>https?://[\w.-]{1,253})(?P<path>(?:[ \t]{1,3}[›>][ \t]{1,3}[^\s›>]{1,200}){1,12})"
)
_HOST = lazy(r"(?:[a-z0-9-]+\.)+[a-z]{2,}(?::\d+)?/")
_DIGITS = lazy(r"\d{4,}")
_LINK_END = lazy(r"[?#]")
_DATE = lazy(
    r"\d{4}-\d{2}-\d{2}(?:[t ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:z|[+-]\d{2}:?\d{2})?)?"
    r"|\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}|\d{1,2}:\d{2}(?::\d{2})?(?:am|pm)?"
)
_IN_DATE = lazy(r"\d{4}-\d{2}-\d{2}|\d{4}/\d{2}/\d{2}")
_NOT_ID = lazy(r"v?\d+(?:\.\d+)+|\d+(?:\.\d+)?[a-z]{1,3}|[a-z]{1,3}\d{1,2}")
_SEPARATORS = str.maketrans("", "", "-_#. ")
_NO_LETTERS = str.maketrans("", "", string.ascii_lowercase)
_NO_DIGITS = str.maketrans("", "", string.digits)
_TECH_WORDS = """
    utf8 utf-8 utf16 utf-16 base64 base32 sha1 sha256 sha384 sha512 md5 x86_64 ipv4 ipv6 mp3 mp4
    h264 h265 python3 pip3 gpt-4 gpt-4o gpt-3.5-turbo gpt4 gpt4o ec2 iso8601 rfc3339 oauth2 http2
    es2015 win32 win64 arm64 amd64 aarch64 i18n l10n k8s 1080p 720p 2160p int32 int64 uint8
    float32 float64 latin1 iso-8859-1 cp1252
"""
_TECH = frozenset(_TECH_WORDS.split())
"""Names of encodings, formats and architectures: they mix letters and digits but name no record."""
PUNCT = ".,:;!?)]}>'\"`*=&%"
"""What `bare` strips from both ends of a token."""


def tokens(text: str, phones: bool = True) -> list[str]:
    """The distinct tokens of `text` that could be identifiers (each has a digit, `@`, `/` or an
    inner `.`), and, with `phones`, the digits of phone numbers written with spaces or brackets.

    The text is cut by `str.translate` and `split`, not by a regex: a regex visits every
    character in Python's engine, ten times slower, and most text is words.
    """
    found = [
        t
        for t in dict.fromkeys(text.translate(_SPACES).split())
        if t.strip(_WORDISH) and _ANCHOR.search(t) is not None  # `flight_number` is no id
    ]
    if phones and ("(" in text or " " in text):
        found += _phone_digits(text)
    return found


def _phone_digits(text: str) -> list[str]:
    """The digits of each phone number written with spaces or brackets."""
    return [digits for written, digits in phone_numbers(text) if " " in written or "(" in written]


def phone_numbers(text: str) -> list[tuple[str, str]]:
    """(as written, its digits) of each phone number in `text` (9 to 15 digits), written with
    spaces, brackets, dashes or dots; not an amount (`$1 250 000`), nor the tail of an id
    (`RECL-20260330-001`)."""
    found = []
    for m in _PHONE.finditer(text):
        if _CURRENCY.search(text, max(0, m.start() - 6), m.start()):
            continue  # `$1 250 000`: an amount
        if _IN_DATE.search(m.group()):
            continue  # `May 15, 2024 (2024-05-15)`: a date written twice
        digits = "".join(c for c in m.group() if c.isdigit())
        if 9 <= len(digits) <= 15:
            found.append((m.group(), digits))
    return found


def index(seen: set[str], text: str, phones: bool) -> None:
    """Add the keys of every identifier-like token of `text` to `seen`, and of the URLs search
    results write as breadcrumbs (`https://moneymorning.com > an-apple-stock-history-timeline`
    is `https://moneymorning.com/an-apple-stock-history-timeline`)."""
    for token in set(text.translate(_SPACES).split()):
        found = _token_keys(token)
        if found:
            seen.update(found)
    if "›" in text or " > " in text:
        for m in _BREADCRUMB.finditer(text):
            parts = [p.strip() for p in re.split(r"[›>]", m["path"])]
            whole = list(itertools.takewhile(lambda p: not p.endswith(("...", "…")), parts))
            if whole:
                seen.update(keys(m["site"].rstrip("/") + "/" + "/".join(whole)))
    if phones and ("(" in text or " " in text):
        for token in _phone_digits(text):
            seen.update(keys(token))


@lru_cache(maxsize=16384)  # a log's tool results repeat their keys, dates and ids
def _token_keys(token: str) -> frozenset[str]:
    """The keys of a token when it could be an identifier, else none."""
    if not token.strip(_WORDISH) or _ANCHOR.search(token) is None:
        return frozenset()
    return keys(token)


@lru_cache(maxsize=8192)  # dates, flight numbers, ids recur across a log's tool results
def keys(token: str) -> frozenset[str]:
    """The forms under which a token of the conversation is indexed."""
    t = bare(token)
    if not t:
        return frozenset()
    if "@" in t:
        return frozenset((t, t.split("@", 1)[0]))  # a user id from an address's local part
    found = {t}
    if t.startswith(("http://", "https://")):
        t = _url(t)
        found.add(t)
    elif _HOST.match(t):  # `www.example.com/guide/`, a URL written without its scheme
        t = _url("http://" + t)
        found.add(t)
    if "/" in t:
        found.update(_suffixes(t))
        if "?" in t or "#" in t:  # a page's relative link (`/users/sign_in?next=1`): as a
            found.update(_suffixes(_LINK_END.split(t, 1)[0]))  # URL is, without its query
        return frozenset(found)
    compact = t.translate(_SEPARATORS)
    found.add(compact)
    if compact.startswith("+") and compact[1:].isdigit():
        compact = compact[1:]  # `+51-1-555-1200`: a phone number's digits, as it is looked up
        found.add(compact)
    if len(compact) > 10 and compact.isdigit():
        found.add(compact[-10:])  # a phone number with its country code
    found.update(_numbers(t))
    return frozenset(found)


@lru_cache(maxsize=8192)
def lookups(token: str, sort: str) -> frozenset[str]:
    """The forms of an argument's identifier of sort `sort`, any of which found grounds it."""
    t = bare(token)
    if sort == "URL":
        return frozenset((t, _url(t), *_url_paths(_url(t))))
    if sort == "file path":
        parts = [p for p in t.split("/") if p]
        # below a directory the conversation named, the agent is exploring, not inventing
        folders = ("/".join(parts[:i]) for i in range(2, min(len(parts), 9)))
        return frozenset((t, *_suffixes(t), *folders))
    if sort == "e-mail address":
        return frozenset((t,))
    digits = "".join(c for c in t if c.isdigit())
    if sort == "phone number":
        return frozenset((digits, digits[-10:]))
    return frozenset((t, t.translate(_SEPARATORS), *_numbers(t)))


@lru_cache(maxsize=4096)
def signature(token: str, sort: str) -> tuple[tuple[str, ...], ...]:
    """What a text must hold for one of its tokens to ground an argument's identifier.

    Alternatives, each a tuple of lower-case substrings that must all be in the text: every
    form `keys` gives a grounding token contains one of them (a bare or compact id contains its
    letter and digit runs; a number taken out of an id contains itself; a path's tail contains
    its file name, its folders their first two names; a phone number its last four digits).
    A text that holds none cannot ground the identifier and is not tokenised at all.
    """
    t = bare(token)
    if sort == "URL":
        return (
            tuple(_RUNS.findall(_url(t))),
            *(tuple(_RUNS.findall(p)) for p in _url_paths(_url(t))[-2:]),
        )
    if sort == "file path":
        parts = [p for p in t.split("/") if p]
        return (tuple(_RUNS.findall(parts[-1])), tuple(_RUNS.findall(" ".join(parts[:2]))))
    if sort == "e-mail address":
        return (tuple(_RUNS.findall(t.split("@", 1)[0])),)
    digits = "".join(c for c in t if c.isdigit())
    if sort == "phone number":
        return ((digits[-4:],),)
    alternatives = [tuple(_RUNS.findall(t))] + [(n,) for n in _numbers(t)]
    if t.isdigit() and len(t) >= 9:
        alternatives.append((t[-4:],))  # the digits of a phone number written with spaces
    return tuple(alternatives)


@lru_cache(maxsize=8192)
def kind(token: str) -> str | None:
    """What sort of identifier an argument's token is, or None when it is none."""
    t = bare(token)
    if len(t) < 4 or t in _TECH:
        return None
    if "@" in t and "." in t.split("@")[-1]:
        return "e-mail address"
    if t.startswith(("http://", "https://")):
        return "URL" if "/" in _url(t) else None  # a site's home page, typed from memory
    letters = len(t) - len(t.translate(_NO_LETTERS))
    if "/" in t and letters and _DATE.fullmatch(t) is None:
        return "file path"
    if _DATE.fullmatch(t) or _NOT_ID.fullmatch(t):
        return None
    digits = len(t) - len(t.translate(_NO_DIGITS))
    if letters and digits >= 2 and len(t) >= 5:
        return "id"
    if not letters and digits >= 9 and set(t) <= set("0123456789+-(). "):
        return "phone number" if any(c in t for c in "+-() ") else "id"
    if not letters and digits >= 5 and t.isdigit():
        return "id"
    return None


def _numbers(t: str) -> list[str]:
    """The number inside an id with a short code around it (`ORD-20931`, `#W20931` -> `20931`).

    An id whose letters are words (`credit_card_7334`, `gift_card_5634230`) keeps them: the
    digits alone do not name it, and a card's last four digits are not its id.
    """
    if len(t) - len(t.translate(_NO_LETTERS)) > 4:
        return []
    return _DIGITS.findall(t)


def bare(token: str) -> str:
    """A token without the punctuation around it, lower-cased: the form every key starts from."""
    return token.strip(PUNCT).lower().lstrip("#")


def is_id_char(char: str) -> bool:
    """Whether `char` can be part of an identifier token (`tokens` cuts at every other)."""
    return _SPACES[ord(char)] != 32


def _suffixes(path: str) -> list[str]:
    """`a/b/c.py` -> `a/b/c.py`, `b/c.py`, `c.py` (the last eight parts at most)."""
    parts = [p for p in path.split("/") if p][-8:]
    return ["/".join(parts[i:]) for i in range(len(parts))]


def _url_paths(url: str) -> list[str]:
    """What names the resource inside a URL without its host: the tails of its path of two
    parts or more (`langchain-ai/langsmith-sdk`), and its last part when it holds a digit
    (`2206.12345`). An agent that puts a repository, a paper or a record the user named behind
    a well-known host did not invent it; a guessed slug or page name stays ungrounded."""
    parts = [p for p in url.partition("/")[2].split("/") if p][-8:]
    found = ["/".join(parts[i:]) for i in range(len(parts) - 1)]
    if parts and len(parts[-1]) >= 4 and any(c.isdigit() for c in parts[-1]):
        found.append(parts[-1])
    return found


def _url(url: str) -> str:
    """A URL as people write it: no scheme, `www.`, query, fragment or trailing slash."""
    rest = url.split("://", 1)[1]
    for mark in "?#":
        rest = rest.split(mark, 1)[0]
    return rest.removeprefix("www.").rstrip("/")
