"""Template placeholders and documentation examples in a text: `YOUR_API_KEY`, `/path/to/…`.

`find(text, code)` yields each placeholder once, in order. What counts:

- `your_…`/`YOUR-…` names (`YOUR_API_KEY`, `your-token`), `<your token>`, `<API_KEY>`, `<URL>`,
  `…_HERE` (`API_KEY_HERE`), `INSERT_…`/`REPLACE_…`/`ENTER_…` (in code, upper-case or a
  whole string literal: `insert_pos` is a variable), `CHANGEME`; and their forms in each
  lexicon's language (`Lexicon.placeholders`: `tu_correo`, `SU_ID_CLIENTE`, `clave_aqui`,
  `INSERTAR_NOMBRE`, `votre_email`, `dein_passwort`), with its documentation hosts
  (`ejemplo.com`, `beispiel.de`);
- `example_…`/`sample_…`/`dummy_…` ids, keys and names (`example_video_id`), as a whole value
  or, in code, a whole string literal;
- paths through `path/to/` (`/path/to/file.pdf`, `C:\\path\\to\\`);
- masks of three or more `X` (four `x`) inside an id (`2206.XXXXX`, `ORD-XXXX`, `sk-xxxxxxxx`);
- documentation hosts and addresses (RFC 2606): `example.com`/`.org`/`.net` and their
  subdomains, `foo@bar.com`, `user@domain.com` and a few more of the kind, except in text the
  call writes into a file (`written`): RFC 2606 reserves them for examples and tests;
- in code, not a name the same code binds (`insert_pos = j`, `for enter_key in …`, a
  parameter): that is an ordinary variable;
- outside code only: `{{name}}` (a template engine's, which code may legitimately hold),
  `1234567890`, `123-456-7890`, `555-555-5555`, and a whole value that is
  `TODO`, `TBD`, `FIXME`, `PLACEHOLDER` (in capitals: a `todo` status is a state) or a date
  pattern (`YYYY-MM-DD`).

`filler(key, value)` reads a whole value for what a model writes when it has no value at all:

- a description of where the value should come from, in its place: `result of previous
  function`, `extracted from TODO list`, `the id returned by the search`, `A determinar
  (necesito consultar …)`, `à déterminer`, `zu bestimmen` (the whole value, a short phrase,
  with at most an aside in brackets), except under a free-text key (`query`, `body`,
  `message`, `title`, …), where "result of previous election" may be just what is meant;
- a word for "no value" (`unknown`, `n/a`, `none`, `null`, `not provided`, `?`, `desconocido`,
  `inconnu`, `unbekannt`) as the whole value of an identifier's key (`user_id`, `orderId`,
  `email`, `phone`, `iban`): in free text (a body, a query, a status) such a word is what it says.

Every pattern is prefiltered by a literal check and is linear on hostile text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from auditor.common.patterns import any_of, lazy
from auditor.languages import LEXICONS
from auditor.languages.lexicon import table


def _words(category: str, english: tuple[str, ...]) -> tuple[str, ...]:
    """The English words of a kind of placeholder and each lexicon's (`Lexicon.placeholders`)."""
    found = list(english)
    for lexicon in LEXICONS.values():
        found += [w for w, kind in table(lexicon.placeholders).items() if kind == category]
    return tuple(dict.fromkeys(found))


_YOURS = _words("your", ("your",))
_HERES = _words("here", ("here",))
_INSERTS = _words("insert", ("insert", "replace", "enter"))
_EXAMPLES = _words("example", ("example",))
_YOUR = lazy(r"(?i)(?<![\w-])(?:" + "|".join(_YOURS) + r")[_-][a-z0-9]+(?:[_-][a-z0-9]+){0,6}")
_ANGLE = lazy(
    r"<(?:(?i:your|insert|enter|replace|put)[ _-][^<>\n]{1,40}"
    r"|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+"
    r"|URL|URI|TOKEN|KEY|SECRET|PASSWORD|USERNAME|USER|EMAIL|PATH|FILE|FILENAME|HOST|ID)>"
)
_HERE = lazy(
    r"(?i)(?<![\w-])[a-z0-9]+(?:[_-][a-z0-9]+){0,5}[_-](?:" + "|".join(_HERES) + r")(?![\w-])"
)
_VERB = lazy(
    r"(?i)(?<![\w-])(?:" + "|".join(_INSERTS) + r")[_-][a-z0-9]+(?:[_-][a-z0-9]+){0,5}"
    r"|(?<![\w-])change[_-]?me(?![\w-])"
)
_PATH = lazy(r"(?i)(?:[a-z]:)?[/\\]?path[/\\]to[/\\][^\s'\"`,;)\]}]{0,200}")
_MASK = lazy(r"X{3,}|x{4,}")
_ID_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")
_HOST = lazy(
    r"(?i)(?<![\w.-])(?:[a-z0-9-]{1,63}\.){0,4}(?:"
    + "|".join(_EXAMPLES)
    + r")\.(?:com|org|net|es|pt|br|fr|de|it)(?![\w-])"
)
_EMAIL = lazy(
    r"(?i)(?<![\w.+-])(?:foo@bar|user@domain|test@test|email@email|name@domain|you@yourdomain"
    r"|john\.doe@email|someone@somewhere|username@domain)\.com(?![\w-])"
)
_TEXT_ONLY = lazy(
    r"\{\{\s*+[A-Za-z_][\w.]{0,40}\s*+\}\}"
    r"|(?<![\w-])(?:1234567890|123-456-7890|\(123\) ?456-7890|555-555-5555)(?![\w-])"
)
_EXAMPLE = lazy(
    r"(?i)(?<![\w-])(?:example|sample|dummy|fake|placeholder)[_-](?:[a-z0-9]+[_-]){0,4}"
    r"(?:id|key|token|name|path|url|email|number|file|username|password)(?![\w-])"
)
_WHOLE = frozenset(
    ("TODO", "TBD", "FIXME", "PLACEHOLDER", "YYYY-MM-DD", "MM/DD/YYYY", "DD/MM/YYYY")
)
_HINTS = ("path", "xxx", "XXX", "@", "<", *_YOURS, *_HERES, *_INSERTS, *_EXAMPLES)
_HINTS_CODE = (*_HINTS, "change")
_HINTS_TEXT = (*_HINTS_CODE, "{{", "123", "555")


_ANY_HINT = (*_HINTS_TEXT, "todo", "tbd", "fixme", "placeholder", "yyyy", "ample", "ummy", "fake")


def possible(text: str) -> bool:
    """Whether `text` could hold a placeholder or a `filler` at all: one of their hints."""
    return _ANY.search(text.lower()) is not None


def find(text: str, code: bool = False, written: bool = False) -> Iterator[str]:
    """The placeholders in `text`, each once, in order of appearance; `written`: the text is
    the content of a file the call writes."""
    stripped = text.strip()
    if not code and (stripped in _WHOLE or stripped.lower() == "placeholder"):
        yield stripped
        return
    lower = text.lower()
    hinted = _HINTED_CODE if code else _HINTED_TEXT
    if hinted.search(lower) is None and "XXX" not in text:
        return
    found: dict[int, str] = {}
    patterns = [_YOUR, _ANGLE, _HERE, _VERB, _PATH]
    if not written:
        patterns += (_HOST, _EMAIL)
    if not code:
        patterns.append(_TEXT_ONLY)
    for pattern in patterns:
        for m in pattern.finditer(text):
            if code and pattern is _VERB and not _verb_in_code(text, m):
                continue
            found.setdefault(m.start(), m.group().rstrip("."))
    for start, token in _masks(text):
        found.setdefault(start, token)
    if "ample" in lower or "ummy" in lower or "fake" in lower or "older" in lower:
        for m in _EXAMPLE.finditer(text):
            if _quoted(text, m.start(), m.end()) if code else m.group() == stripped:
                found.setdefault(m.start(), m.group())
    seen: set[str] = set()
    end = -1
    for start, value in sorted(found.items()):
        if start >= end and value.lower() not in seen:  # `your-token` inside `<your-token>`: once
            seen.add(value.lower())
            if not (code and _NAME.fullmatch(value) and binds(text, value)):
                yield value
        end = max(end, start + len(value))


_NAME = lazy(r"[A-Za-z_]\w{0,80}")

_SOURCE = (
    r"(?:previous|prior|last|above|earlier|preceding|first|second|third|next|later|step|search"
    r"|call|function|tool|query|lookup|list|file|response|results?|output)"
)
_PROVENANCE = lazy(
    r"(?i)(?:(?:the|a)\s+)?(?:results?|outputs?|values?|response|return(?:ed)?\s+value|data"
    r"|contents?|ids?|email|address|number)\s+(?:of|from|returned\s+by|given\s+by)\s+"
    r"(?:(?:the|a|an)\s+)?" + _SOURCE + r"\b[^\n]{0,60}"
    r"|(?:extracted|obtained|retrieved|taken|derived|parsed|fetched|copied|pulled)"
    r"\s+from\s+[^\n]{1,60}"
    r"|(?:to\s+be\s+)?(?:determined|filled\s+in|decided|looked\s+up)(?:\s+(?:later|below))?"
    r"|(?:a|por)\s+determinar|(?:extra[ií]d|obtenid|tomad)[oa]s?\s+de\s+[^\n]{1,60}"
    r"|resultado\s+de\s+(?:la\s+)?(?:funci[oó]n|llamada|consulta|b[uú]squeda)\s+anterior"
    r"|[àa]\s+d[ée]terminer|(?:extrait|obtenu)e?s?\s+d[eu]\s+[^\n]{1,60}"
    r"|r[ée]sultat\s+de\s+(?:la\s+)?(?:fonction|requ[êe]te|recherche)\s+pr[ée]c[ée]dente"
    r"|(?:noch\s+)?zu\s+bestimmen|(?:aus|von)\s+(?:dem|der|den)\s+vorherigen\s+\w+"
)
_ASIDE = lazy(r"\s*+(?:\([^()\n]{0,200}\))?[.\s]*")
NO_VALUE = frozenset(  # words for "no value", lower case
    (
        "unknown",
        "n/a",
        "na",
        "none",
        "null",
        "nil",
        "undefined",
        "unspecified",
        "not specified",
        "not provided",
        "not_provided",
        "not available",
        "not known",
        "?",
        "??",
        "???",
        "desconocido",
        "desconocida",
        "no disponible",
        "inconnu",
        "inconnue",
        "unbekannt",
    )
)
_IDENTIFIER_KEY = lazy(
    r"(?i)(?:^|[_\-.])(?:id|ids|uuid|email|e_?mail|phone|iban|account|number|username)$"
    r"|^(?:id|uuid|email|phone|iban|username)$|[a-z](?:Id|Ids|ID|Email|Phone|Number)$"
)
_FREE_TEXT_KEY = lazy(
    r"(?i)(?:^|[_\-.])(?:query|q|search|keywords?|text|title|subject|body|message|content"
    r"|description|notes?|comment|prompt|question|answer|summary|reason|instructions?|caption"
    r"|topic|input)$|[a-z](?:Query|Text|Title|Body|Message|Content|Description|Note)$"
)
_FILLER_HINTS = (
    "of",
    "from",
    "by",
    "termin",
    "fill",
    "decide",
    "look",
    "extra",
    "obten",
    "tomad",
    "anterior",
    "dente",
    "bestimm",
    "vorherig",
)
"""One of these is in every description `_PROVENANCE` matches (lower case)."""
_NO_VALUE_HINTS = (
    *("unknown", "n/a", "na", "none", "null", "nil", "undefined", "unspecified"),
    *("not", "?", "desconocid", "disponible", "inconnu", "unbekannt"),
)
"""One of these is in every word of `NO_VALUE` (lower case)."""
_ANY = any_of((*_ANY_HINT, *_NO_VALUE_HINTS, *_FILLER_HINTS))
_HINTED_CODE = any_of(_HINTS_CODE)
_HINTED_TEXT = any_of(_HINTS_TEXT)
_FILLER_HINTED = any_of(_FILLER_HINTS)


def filler(key: str, value: str) -> str | None:
    """The whole `value`, when it stands where a value should be without being one: a
    description of where it should come from, or a word for "no value" under an identifier's
    key. None for anything else."""
    stripped = value.strip()
    if not stripped or len(stripped) > 160:
        return None
    lower = stripped.lower()
    if lower in NO_VALUE or lower.strip("<>[]{}() ") in NO_VALUE:
        return stripped if _IDENTIFIER_KEY.search(key) else None
    if _FILLER_HINTED.search(lower) is None or _FREE_TEXT_KEY.search(key):
        return None
    m = _PROVENANCE.match(stripped)
    if m is None:
        return None
    rest = stripped[m.end() :]
    if rest and _ASIDE.fullmatch(rest) is None:
        return None
    return stripped


def binds(code: str, name: str) -> bool:
    """The code binds `name` as a variable: assigns it (`insert_pos = j`, `a, insert_pos = …`,
    `INSERT_AT=3` in a shell), loops over it (`for insert_pos in …`), takes it as a parameter
    (`def f(insert_pos, …)`, `lambda insert_pos:`) or names it with `as`."""
    n = re.escape(name)
    other = r"[\w.\[\]'\"*]+"
    pattern = (
        rf"(?m)^[ \t]*(?:{other}[ \t]*,[ \t]*)*{n}[ \t]*(?:,[ \t]*{other}[ \t]*)*"
        rf"(?::[^=\n]{{1,60}})?(?:[-+*/%|&]|//)?=(?!=)"
        rf"|\bfor[ \t]+(?:[\w \t,()]{{0,80}}[ \t,(])?{n}\b[^\n]{{0,80}}\bin\b"
        rf"|\b(?:def[ \t]+\w+[ \t]*\([^)]{{0,200}}|lambda\b[^:\n]{{0,80}})(?<![\w.]){n}\b"
        rf"|\bas[ \t]+{n}\b"
    )
    return re.search(pattern, code) is not None


def _verb_in_code(text: str, m: re.Match[str]) -> bool:
    """`INSERT_KEY` or `'replace-me'` in code; `insert_pos = i` is a variable."""
    return m.group().isupper() or _quoted(text, m.start(), m.end())


def _quoted(text: str, start: int, end: int) -> bool:
    """`text[start:end]` is a whole string literal: `'example_video_id'`."""
    return start > 0 and end < len(text) and text[start - 1] == text[end] and text[end] in "'\""


def _masks(text: str) -> Iterator[tuple[int, str]]:
    """`X` masks inside an id: the id around the run holds a digit or a separator, or is all X."""
    end = -1
    for m in _MASK.finditer(text):
        if m.start() < end:
            continue
        start = m.start()
        while start > 0 and text[start - 1] in _ID_CHARS:
            start -= 1
        end = m.end()
        while end < len(text) and text[end] in _ID_CHARS:
            end += 1
        token = text[start:end].strip("._-")
        rest = token.replace("X", "").replace("x", "")
        if (not rest and len(token) >= 4) or any(c.isdigit() or c in "._-" for c in rest):
            yield start, token
