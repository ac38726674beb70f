"""The language of a conversation, decided once per replay (`auditor.languages.detect`).

Rules that read claims in words need it: English is read by their own patterns, Spanish,
Portuguese, French, German and Italian by the lexicons of `auditor.languages`; a conversation
in another language, or another script, is not examined.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from auditor.languages import lexicon
from auditor.languages.detect import reads_as_english
from auditor.languages.lexicon import Lexicon

if TYPE_CHECKING:
    from auditor.replay import Replay

__all__ = ["english", "languages", "read_in", "reads_as_english"]


def english(replay: Replay) -> bool:
    """The conversation is in English, or too short to tell (computed once per replay)."""
    return "en" in languages(replay)


def languages(replay: Replay) -> tuple[str, ...]:
    """The languages the conversation is read in (`detect.languages_of`): `("en",)`,
    `("en", "es")` for English with much Spanish in it, `("es",)`, or `()` for a language with
    no lexicon."""
    return replay.languages()


def read_in(replay: Replay) -> Lexicon | None:
    """The lexicon the conversation's words in another language than English are read with;
    None when it has none."""
    return next(filter(None, map(lexicon, languages(replay))), None)
