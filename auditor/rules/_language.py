"""Whether a conversation is in English: rules that read claims in English words need it.

A conversation is read as English unless the words its user and assistant write are mostly
function words of another language (Spanish, French, German, Portuguese, Italian) or mostly
letters of another script (Cyrillic, CJK, Arabic, ...). Short or code-only conversations, with
too few words to tell, count as English. The first `_SAMPLE` characters are read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from auditor.patterns import lazy

if TYPE_CHECKING:
    from auditor.replay import Replay

_SAMPLE = 3_000
_ENOUGH = 3
"""Distinct function words of another language a conversation must hold before it can be
judged not English; it is not when they are more than twice its distinct English ones."""
_ENGLISH_WORDS = """
    the and is are you your to of in that it for have has been with this be will can please
    was not on at we our my me i what would like thank thanks there which
"""
_ENGLISH = frozenset(_ENGLISH_WORDS.split())
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


def english(replay: Replay) -> bool:
    """The conversation is in English, or too short to tell (computed once per replay)."""
    return replay.shared("english", _english)


def _english(replay: Replay) -> bool:
    parts, size = [], 0
    for m in replay.conversation.messages:
        if m.role in ("user", "assistant") and m.text:
            parts.append(m.text[: _SAMPLE - size])
            size += len(parts[-1])
            if size >= _SAMPLE:
                break
    return reads_as_english(" ".join(parts))


def reads_as_english(text: str) -> bool:
    """`text` is English, or too short to tell. Its distinct words are compared with the two
    lists: no Python loop over every word, and no regex scan of the text when it is ASCII."""
    sample = text[:_SAMPLE].lower()
    if not sample.isascii():
        foreign = len(_NON_LATIN.findall(sample))
        if foreign >= 20 and foreign * 3 > len(sample):
            return False
    words = {w.strip(_PUNCTUATION) for w in set(sample.split())}
    other = len(words & _OTHER)
    return other < _ENOUGH or other <= 2 * len(words & _ENGLISH)


_PUNCTUATION = "\"'.,;:!?¿¡()[]{}<>«»“”„`*_-/"
_NON_LATIN = lazy(r"[^\W\d_\u0000-\u024f]")
"""A letter of another script than the Latin one (Cyrillic, Greek, CJK, Arabic, ...)."""
