"""Completion claims in a language with a lexicon: "la reserva ha sido cancelada", "he enviado el
correo", "Ihre Buchung wurde storniert", "cancelei o pedido".

A claim is a participle of the lexicon's (or a finite past form such as "cancelé") after its
auxiliary ("se ha", "ha sido", "he"; "wurde", "ich habe"; "foi"; "a été", "j'ai"; "è stata",
"ho"), in a sentence that is no question and holds no hedge before it ("si", "cuando", "no",
"ya", "usted"), and that names no agent after it ("por la aerolínea"). A participle that says
only that something was done ("se ha realizado") is a claim of the action its clause names
("el cambio de plan"). The verbs are `auditor.reading.actions`'s English ones, so the rules match
tools as they do for English claims. Every pattern is bounded, so hostile text stays linear.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from itertools import islice
from typing import NamedTuple

from auditor.common.patterns import lazy
from auditor.languages.lexicon import Lexicon

_SENTENCE_END = lazy(r"[.!?](?=\s|$)|\n")
_MOST_CLAIMS = 50
_REACH = 400
_CLAUSE = lazy(r"(?<!\d),|,(?!\d)|[;:()]")
"""What ends a claim's clause: a comma (not one between digits: `39,90 €`), a semicolon, a
colon, a bracket."""
_WORD = lazy(r"[^\W\d_]{3,}")
_ID = lazy(r"\S*\d\S*|\b[A-Z0-9]{4,}\b")


class Said(NamedTuple):
    """A claim as `auditor.rules._claims.Claim` holds it."""

    verb: str
    clause: str
    sentence: str
    subject: list[str]
    objects: tuple[str, ...]


def claims(text: str, lexicon: Lexicon) -> Iterator[Said]:
    """The completion claims of a message written in the lexicon's language, in order."""
    start = 0
    for match in islice(lexicon.claim.finditer(text), _MOST_CLAIMS):
        infinitive = match["infinitive"]
        verb = lexicon.verb_of(infinitive or match.group())
        if verb is None or (infinitive and infinitive.lower() not in lexicon.tool_words):
            continue
        for stop in _SENTENCE_END.finditer(text, start, match.start()):
            start = stop.end()
        start = max(start, match.start() - _REACH)
        end_match = _SENTENCE_END.search(text, match.end(), match.end() + _REACH)
        end = end_match.end() if end_match else min(len(text), match.end() + _REACH)
        sentence = text[start:end].strip()
        before, after = text[start : match.start()], text[match.end() : end]
        if sentence.endswith("?") or sentence.startswith("¿"):
            continue
        lead = before
        if match["word"]:
            aux = lexicon.before.search(before)
            if aux is None:
                continue  # a participle with no auxiliary: a state ("está cancelada"), not a claim
            # what was acted on stands before the auxiliary, or (German) between it and the verb
            lead = before[: aux.start()] + " " + ((aux.groupdict().get("gap")) or "")
        if lexicon.hedge.search(before) or re.match(lexicon.agent, after.lstrip(), re.I):
            continue
        if lexicon.dated.search(sentence):
            continue  # "foi criada em 10 de maio": a past event a lookup showed
        lead, tail = _CLAUSE.split(lead)[-1], _CLAUSE.split(after)[0]
        clause = " ".join((_CLAUSE.split(before)[-1] + match.group() + tail).split())
        words = _WORD.findall(_ID.sub(" ", lead + " " + tail).lower())
        things = tuple(_plain(w) for w in words if not _function(w, lexicon))
        if not verb:
            named = [*lexicon.action.finditer(lead)][-1:] or [*lexicon.action.finditer(tail)][:1]
            if not named:
                continue  # "se ha realizado" of nothing named: "su solicitud", not an action
            verb = _noun_verb(named[0].group().lower(), lexicon)
            yield Said(verb, clause, sentence, [], things)
            continue
        yield Said(verb, clause, sentence, list(things), things)


def _plain(word: str) -> str:
    """The word without accents, as tool names write it (`réservation` -> `reservation`)."""
    if word.isascii():
        return word
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


def _noun_verb(noun: str, lexicon: Lexicon) -> str:
    return lexicon.actions_lower.get(noun, "")


def _function(word: str, lexicon: Lexicon) -> bool:
    """A word that names nothing acted on: a function word, an auxiliary or a participle."""
    return (
        word in lexicon.stopwords_set
        or lexicon.filler.fullmatch(word) is not None
        or lexicon.verb_of(word) is not None
    )


def reported(text: str, lexicon: Lexicon) -> set[str]:
    """The verbs a tool result's participles in the language say are done
    (`"estado": "cancelada"`)."""
    return {
        verb for m in lexicon.claim.finditer(text[:20_000]) if (verb := lexicon.verb_of(m.group()))
    }
