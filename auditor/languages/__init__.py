"""The languages other than English that rules read: one data module each, and which a text is in.

English is read by the rules' own patterns, as it always was. Each other language is one module
(`es`, `pt`, `fr`, `de`, `it`) holding one `Lexicon` (`lexicon.py`): the participles of
completed actions and the auxiliaries before them, hedges, nouns of action, the words users ask
for actions with, words of tool names, and a user's yes and no and an assistant's request for
confirmation. A conversation's language is decided once, by counting the distinct function
words of each language in a sample of what its user and assistant write (`which`); only that
language's patterns are then read. Adding a language is adding a module and a line in
`_MODULES`.
"""

from __future__ import annotations

import unicodedata

from auditor.languages import de, es, fr, it, pt
from auditor.languages.lexicon import Lexicon

_MODULES = (es, pt, fr, de, it)
LEXICONS: dict[str, Lexicon] = {m.LEXICON.code: m.LEXICON for m in _MODULES}
"""Every language with a lexicon, by its code (`es`)."""
NAMES = ", ".join(lexicon.name for lexicon in LEXICONS.values())
_STOPWORDS = {code: frozenset(lex.stopwords.split()) for code, lex in LEXICONS.items()}
_ENOUGH = 3
"""Distinct function words of one language a text must hold to be read as in it."""
TOOL_WORDS: dict[str, str] = {
    word: verb for lexicon in LEXICONS.values() for word, verb in lexicon.tool_words.items()
}
"""Words of tool names in these languages, by the English verb they say (`anular` -> cancel)."""
_GERMAN = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss"})


def _spellings(word: str) -> set[str]:
    """A noun as a tool name may write it: lowercased, without accents, umlauts as `ue`."""
    lower = word.lower()
    bare = "".join(c for c in unicodedata.normalize("NFKD", lower) if not unicodedata.combining(c))
    return {lower, bare, lower.translate(_GERMAN)}


def _doing() -> dict[str, dict[str, str]]:
    found: dict[str, dict[str, str]] = {}
    for lexicon in LEXICONS.values():
        nouns = {s: verb for word, verb in lexicon.actions.items() for s in _spellings(word)}
        for word in lexicon.doing.split():
            found.setdefault(word, {}).update(nouns)
    return found


DOING = _doing()
"""Verbs of tool names that say only that something is done (`realizar`, `ausfuehren`), each
with the nouns of action of its language as tool names write them, by their English verb:
beside one of them (`realizar_transferencia`, `ueberweisung_ausfuehren`) the noun names the
tool's action. A noun of another language does not: `fare`, Italian's "do", beside the
French `reservation` is an English fare."""


def which(words: set[str], enough: int = _ENOUGH) -> tuple[str, int]:
    """The code of the language with most of its function words among `words` (lowercased,
    stripped of punctuation), and how many it has, when it has at least `enough`; ("", 0)
    when none has."""
    best, most = "", enough - 1
    for code, stopwords in _STOPWORDS.items():
        found = len(words & stopwords)
        if found > most:
            best, most = code, found
    return (best, most) if best else ("", 0)


def lexicon(code: str) -> Lexicon | None:
    """The lexicon of a language code; None for English and for a language with none."""
    return LEXICONS.get(code)
