"""What one language's words are for the rules: the shape every data module fills in.

A language module holds one `LEXICON`: plain words and short pattern pieces, no logic. The
patterns are compiled once, when a conversation in that language is first read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property


def table(text: str) -> dict[str, str]:
    """`verb: word word` lines -> {word: verb}; a line `: word` says "done" (verb "")."""
    found = {}
    for line in text.strip().splitlines():
        verb, _, words = line.partition(":")
        for word in words.split():
            found[word] = verb.strip()
    return found


@dataclass(frozen=True)
class Lexicon:
    """One language's words for claims, requests, approvals and tool names."""

    code: str
    """ISO 639-1: `es`, `pt`, `fr`, `de`, `it`."""
    name: str
    stopwords: str
    """Frequent function words that are not English ones: how a text is found to be in it."""
    participles: dict[str, str]
    """A completed action's participle (or first-person past), by the English verb of
    `auditor.reading.actions.VERBS` it says; the verb "" for words that say an action is done
    without naming it ("realizado", "durchgeführt"): the action is then a noun of `actions`."""
    finite: dict[str, str]
    """Finite past forms that claim an action alone, with no auxiliary ("cancelé", "enviei"),
    by the English verb ("" as in `participles`)."""
    endings: str
    """What a participle's stem in `participles` may end with (gender, number): `(?:o|a|os|as)`."""
    auxiliary: str
    """What stands before a participle in a completion claim ("se ha", "ha sido", "he"); a
    pattern piece matched at the end of the text before it (adverbs between are `adverbs`)."""
    adverbs: str
    """Words allowed between the auxiliary and the participle ("exitosamente", "correctamente")."""
    hedges: str
    """Words before a claim in its sentence that make it conditional, negated, future or a
    reason ("si", "cuando", "no", "ya"): a pattern piece of whole words."""
    agent: str
    """How a passive names who did it ("por "): a claim followed by it is someone else's."""
    actions: dict[str, str]
    """Nouns of action, by the English verb: "cambio" -> change ("el cambio se ha realizado")."""
    asked: dict[str, str]
    """Stems of the words a user asks for an action with ("cancel" covers "cancelar",
    "cancele", "cancelación"), by the English verb."""
    tool_words: dict[str, str]
    """Words of tool names (`anular_sic`, `bestellungStornieren`), by the English verb."""
    yes: str
    """A user's yes at the start of a reply or clause ("sí", "adelante", "confirmo")."""
    no: str
    """A user's no at the start of a reply ("no", "espera", "todavía no")."""
    asks: str
    """The assistant asking for confirmation ("¿Desea que proceda?", "¿Confirma…?")."""
    wh: str
    """Question words: a request for confirmation that opens with one asks what to do."""
    waives: str = r"(?!)"
    """The user saying no confirmation is needed."""
    doing: str = ""
    """Verbs of tool names that only say something is done ("realizar", "ausfuehren",
    "effectuer", "esegui"): with a noun of `actions` beside them, the tool does that noun's
    action (`realizar_transferencia` transfers, `ueberweisung_ausfuehren` too)."""
    earlier: str = r"(?!)"
    """Words in a claim's sentence that date it in the past ("ayer", "em 10 de maio", "il y a
    trois jours"): it reports what a lookup showed, not what was just done."""
    proceeded: str = r"(?!)"
    """Words that claim the action of the infinitive after them ("he procedido a", "acabo de",
    "je viens d'"): the infinitive is read as a tool-name verb (`tool_words`)."""
    placeholders: str = ""
    """Words of a template's placeholders, as `table` lines by their English word: `your: tu
    su` (`tu_correo`, `SU_ID_CLIENTE`), `here: aqui` (`clave_aqui`), `insert: insertar`
    (`INSERTAR_NOMBRE`), `example: ejemplo` (the documentation host `ejemplo.com`)."""
    months: str = ""
    """The months' names, January to December, separated by `|` (several names of one month
    by spaces): "27 de julio", "3. März", "le 3 mars 2024" are dates CF001 and FB007 compare.
    Full names only: a short form is too often a word ("set" in Portuguese)."""
    money_words: str = ""
    """Words of argument names that hold an amount of money (`betrag`, `importe`): a call's
    `{"betrag": 1250}` is compared as money with the amounts the user approved."""
    assumes: str = r"(?!)"
    """Words that say a value is assumed, hypothetical or made up ("asumo", "supongamos",
    "ficticio"): a fact in their sentence is no fact the answer states (FB008)."""
    made_up: str = r"(?!)"
    """An announcement that the agent will work with data it made up ("datos simulados",
    "simularé los datos", "Beispieldaten", "des données fictives") (FB006)."""
    invented: str = r"(?!)"
    """Words that say a reported result rests on made-up or unreal data ("simulados", "no son
    reales", "fiktiv"): a report holding one is caveated (FB006)."""
    results: str = r"(?!)"
    """Words a result is reported after ("resultado", "total", "Wahrscheinlichkeit"): a figure
    soon after one states a result (FB006)."""
    never: str = r"(?!)"
    """Words that negate or decline what follows ("no", "nunca", "sin", "ohne", "au lieu de"):
    before an announcement, the agent says it will not invent data (FB006)."""
    real: str = r"(?!)"
    """Words that call data real or actual ("reales", "echten", "réelles") (FB006)."""
    gap: int = 0
    """How many words may stand between auxiliary and participle beyond `adverbs`: German
    puts the object between them ("ich habe die E-Mail gesendet")."""

    @cached_property
    def claim(self) -> re.Pattern[str]:
        """A participle of `participles` (its stem and ending), or a word of `finite`."""
        stems = "|".join(map(re.escape, self.stems))
        finite = "|".join(map(re.escape, sorted(self.finite, key=len, reverse=True)))
        return re.compile(
            r"(?<!\w)(?:(?P<word>(?:" + stems + r")" + self.endings + r")"
            r"|(?P<finite>" + (finite or r"(?!)") + r")"
            r"|(?:" + self.proceeded + r")\s*(?P<infinitive>[^\W\d_]+))(?!\w)",
            re.IGNORECASE,
        )

    @cached_property
    def before(self) -> re.Pattern[str]:
        """The auxiliary and adverbs that end the text before a participle."""
        words = rf"(?P<gap>(?:\S+\s+){{0,{self.gap}}})" if self.gap else ""
        return re.compile(
            r"(?<!\w)(?:"
            + self.auxiliary
            + r")\s+"
            + words
            + r"(?:(?:"
            + self.adverbs
            + r")\s+)*$",
            re.IGNORECASE,
        )

    @cached_property
    def stopwords_set(self) -> frozenset[str]:
        return frozenset(self.stopwords.split())

    @cached_property
    def filler(self) -> re.Pattern[str]:
        """An adverb or a hedge: words of a clause that name nothing acted on."""
        return re.compile(r"(?:" + self.adverbs + "|" + self.hedges + r")", re.IGNORECASE)

    @cached_property
    def dated(self) -> re.Pattern[str]:
        return re.compile(r"(?<!\w)(?:" + self.earlier + r")", re.IGNORECASE)

    @cached_property
    def hedge(self) -> re.Pattern[str]:
        return re.compile(r"(?<!\w)(?:" + self.hedges + r")(?!\w)", re.IGNORECASE)

    @cached_property
    def action(self) -> re.Pattern[str]:
        return re.compile(
            r"(?<!\w)(?:" + "|".join(map(re.escape, self.actions)) + r")(?!\w)", re.IGNORECASE
        )

    @cached_property
    def stems(self) -> tuple[str, ...]:
        """The participles' stems, longest first: the order `verb_of` tries them in."""
        return tuple(sorted(self.participles, key=len, reverse=True))

    @cached_property
    def actions_lower(self) -> dict[str, str]:
        """The nouns of action in lower case -> their verbs (the first of each spelling)."""
        found: dict[str, str] = {}
        for word, verb in self.actions.items():
            found.setdefault(word.lower(), verb)
        return found

    def verb_of(self, word: str) -> str | None:
        """The English verb a participle or finite form says ("" for a bare "done")."""
        lower = word.lower()
        if lower in self.tool_words and not self.participles.get(lower):
            return self.tool_words[lower]
        if lower in self.finite:
            return self.finite[lower]
        for stem in self.stems:
            if lower.startswith(stem) and re.fullmatch(self.endings, lower[len(stem) :], re.I):
                return self.participles[stem]
        return None

    def asked_for(self, word: str) -> str | None:
        """The English verb a user's word asks for (`cancelación` -> cancel), or None."""
        for stem, verb in self.asked.items():
            if word.startswith(stem):
                return verb
        return None

    @cached_property
    def reply_yes(self) -> re.Pattern[str]:
        return re.compile(r"(?:^|[.!?,;:\n])\W{0,8}(?:" + self.yes + r")(?!\w)", re.IGNORECASE)

    @cached_property
    def reply_no(self) -> re.Pattern[str]:
        return re.compile(r"\W*(?:" + self.no + r")(?!\w)", re.IGNORECASE)

    @cached_property
    def asking(self) -> re.Pattern[str]:
        return re.compile(self.asks, re.IGNORECASE)

    @cached_property
    def question(self) -> re.Pattern[str]:
        """A sentence opening with a question word, perhaps after "¿" or a word of address."""
        return re.compile(r"\W*(?:\w+,\s)?\W*(?:" + self.wh + r")(?!\w)", re.IGNORECASE)

    @cached_property
    def waiving(self) -> re.Pattern[str]:
        return re.compile(self.waives, re.IGNORECASE)
