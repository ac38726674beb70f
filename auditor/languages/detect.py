"""Which language a conversation is written in: English, one with a lexicon, or another.

A conversation is read as English unless the words its user and assistant write are mostly
function words of another language (Spanish, French, German, Portuguese, Italian) or mostly
letters of another script (Cyrillic, CJK, Arabic, ...). Short or code-only conversations, with
too few words to tell, count as English. The first `SAMPLE` characters are read. A conversation
not in English is in the language of `auditor.languages` with most of its function words
(`which`), or in none the rules can read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from auditor.common.patterns import lazy
from auditor.languages import lexicon, which

if TYPE_CHECKING:
    from collections.abc import Iterable

    from auditor.languages.lexicon import Lexicon
    from auditor.model import Message

SAMPLE = 3_000
_ENOUGH = 3
"""Distinct function words of another language a conversation must hold before it can be
judged not English; it is not when they are more than twice its distinct English ones."""
_ENGLISH_WORDS = """
    the and is are you your to of in that it for have has been with this be will can please
    was not on at we our my me i what would like thank thanks there which
"""
ENGLISH = frozenset(_ENGLISH_WORDS.split())
# Spanish, French, German, Portuguese, Italian: frequent words that are not English ones, nor
# parts of code or addresses (`com`, `el`, `lo`, `per` are left out).
_OTHER_WORDS = """
    que los las del para por una está esta gracias pero como más muy necesito quiero hola
    usted sus ha sido también puede favor
    les des une pour avec vous nous pas dans sur mais merci bonjour je oui très être
    der das und ist nicht mit ich sie für auf ein eine bitte danke sind wir sehr
    não você obrigado uma olá são é
    che della non sono grazie gli ciao questo
"""
_OTHER = frozenset(_OTHER_WORDS.split())


def sample(messages: Iterable[Message]) -> str:
    """The first `SAMPLE` characters the user and the assistant write."""
    parts, size = [], 0
    for m in messages:
        if m.role in ("user", "assistant") and m.text:
            parts.append(m.text[: SAMPLE - size])
            size += len(parts[-1])
            if size >= SAMPLE:
                break
    return " ".join(parts)


_MIXED = 4
"""Distinct function words of one other language that make a conversation read as English
read in that language too, when they outnumber its English ones (`_ENOUGH` do when it has
none): a short Italian exchange
with too few of `_OTHER`'s words, or a simulated user's English aside in a Spanish one ("[I
don't have the phone number, so I will wait]")."""


def languages_of(text: str) -> tuple[str, ...]:
    """The languages `text` is read in: `("en",)` when it reads as English (or is too short to
    tell), `("en", "es")` when it reads as English but holds more function words of a language
    with a lexicon than English ones, `("es",)` when it is in that language, `()` when in
    another language or script."""
    sample = text[:SAMPLE].lower()
    if not sample.isascii() and _foreign_script(sample):
        return ()
    words = {w.strip(PUNCTUATION) for w in set(sample.split())}
    other, english = len(words & _OTHER), len(words & ENGLISH)
    if other < _ENOUGH or other <= 2 * english:
        mixed, count = which(words, _ENOUGH)
        if mixed and ((count > english and count >= _MIXED) or not english):
            return ("en", mixed)
        return ("en",)
    found, _ = which(words)
    return (found,) if found else ()


def reads_as_english(text: str) -> bool:
    """`text` is English, or too short to tell. Its distinct words are compared with the two
    lists: no Python loop over every word, and no regex scan of the text when it is ASCII."""
    sample = text[:SAMPLE].lower()
    if not sample.isascii() and _foreign_script(sample):
        return False
    words = {w.strip(PUNCTUATION) for w in set(sample.split())}
    other = len(words & _OTHER)
    return other < _ENOUGH or other <= 2 * len(words & ENGLISH)


def _foreign_script(sample: str) -> bool:
    foreign = len(_NON_LATIN.findall(sample))
    return foreign >= 20 and foreign * 3 > len(sample)


PUNCTUATION = "\"'.,;:!?¿¡()[]{}<>«»“”„`*_-/"
_NON_LATIN = lazy(r"[^\W\d_\u0000-\u024f]")
"""A letter of another script than the Latin one (Cyrillic, Greek, CJK, Arabic, ...)."""


def lexicon_of(messages: Iterable[Message]) -> Lexicon | None:
    """The lexicon a conversation's words in another language than English are read with
    (`languages_of` its sample); None when it has none."""
    return next(filter(None, map(lexicon, languages_of(sample(messages)))), None)
