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
