"""A user's yes and no, and an assistant's request for confirmation, in a language with a
lexicon: "sí, adelante" / "no, espere"; "¿Desea que proceda?", "Confirmez-vous … ?".

Read as `auditor.replay.approvals.replies` reads English: a yes at the start of a reply or of
one of its clauses, a no that is all the reply says, and a request for confirmation in a
sentence that does not open with a question word ("¿Qué desea cambiar?" asks what to do).
"""

from __future__ import annotations

from auditor.common.patterns import lazy
from auditor.languages.detect import ENGLISH, PUNCTUATION
from auditor.languages.lexicon import Lexicon

SCAN = 1200
"""How much of a reply is read, as for English."""
_PLAIN_NO_WORDS = 4
_SENTENCE_END = lazy(r"[.!?](?:\s|$)")
_DIGIT = lazy(r"\d")


def verdict(reply: str, lexicon: Lexicon) -> bool | None:
    """True yes, False a plain no, None neither (or both, unless the yes ends the reply's
    complaint: "No es justo. Pero bueno, adelante.")."""
    head = reply[:SCAN]
    yes = [*lexicon.reply_yes.finditer(head)]
    no = lexicon.reply_no.match(head)
    if yes:
        if no is None:
            return True
        closed = _SENTENCE_END.search(head, no.end(), yes[-1].end()) is not None
        return True if closed and yes[-1].start() >= no.end() else None
    if no is None:
        return None
    rest = head[no.end() :]
    return False if len(rest.split()) <= _PLAIN_NO_WORDS and not _DIGIT.search(rest) else None


def asks_to_confirm(text: str, lexicon: Lexicon) -> bool:
    """The assistant asks the user to approve what it describes ("¿Desea que proceda con la
    cancelación?"), not what to do ("¿Qué le gustaría cambiar?")."""
    for m in lexicon.asking.finditer(text):
        start = max(text.rfind(c, 0, m.start()) for c in ".?!\n") + 1
        if lexicon.question.match(text, start) is None:
            return True
    return False


def waives(text: str, lexicon: Lexicon) -> bool:
    """The user says no confirmation is needed ("no hace falta que me consulte")."""
    return lexicon.waiving.search(text[:SCAN]) is not None


def in_english(reply: str) -> bool:
    """A reply with two or more distinct English function words: a user writing English in a
    conversation in another language, whose reply is read as English too."""
    words = {w.strip(PUNCTUATION) for w in reply[:SCAN].lower().split()}
    return len(words & ENGLISH) >= 2
