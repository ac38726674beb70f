"""What LP004 (repeated-assistant-message) calls the same message: verbatim, or reworded.

A reply repeats an earlier one when its text is the same after collapsing whitespace, or when
the two have the same numbers in the same order, the same names, no identifiers that tell them
apart, and content words with a Jaccard similarity of `SIMILAR` or more (`Rewordings`); `may_repeat` is the cheap test LP004's
screen runs first, exact while no reply has repeated (until one has, every key has one
wording, so comparing with a key's first wording finds nothing more).
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import filterfalse

from auditor.common.patterns import lazy

SIMILAR = 0.7
"""Jaccard similarity of content words from which two messages are the same, reworded.

Measured on real logs (tau-bench, tau2, Who&When, SWE-agent, coding sessions): of sampled
message pairs with equal numbers and names, those at 0.65-0.80 were rewordings of one request
or apology (23 of 24), while below 0.65 distinct requests begin ("modify" vs "cancel" a
reservation at 0.62)."""
WINDOW = 4
"""Distinct recent messages a message is compared with: enough for the cycles of up to four
replies seen in tau2 logs."""
_SPACES = "".join(" " if not (chr(c).isalnum() or chr(c) in "'-") else chr(c) for c in range(128))
"""`str.translate` table: ASCII punctuation but `'` and `-` becomes a space, so that `split()`
gives the words at C speed (a string, not a dict: translated faster; past its end, characters
stay as they are)."""
_DIGIT = lazy(r"\d")
_STOP = """
    a an the and or but if then so to of in on at for by with from as is are was were be been
    being it its this that these those i you we they he she my your our their me us them do does
    did have has had not no can could will would should may might just also there here what
    which who how when where why please let's let i'm i'll we'll you're it's am
"""
STOP_WORDS = frozenset(_STOP.split())
_NAME = lazy(r"(?<![\w'-])(?!I(?:'(?:m|ll|ve|d))?(?![\w&'-]))[A-Z][\w&'-]*")
"""A capitalised word, not the pronoun "I" ("what I can offer" names no one)."""
_ID_TOKEN = lazy(r"[\w./-]{4,200}")
_ID_MARK = lazy(r"[_/]|\w\.\w")
_LETTER = lazy(r"[A-Za-z]")
_ENDS = frozenset(".!?:;\"'*#>-(\n")
_LINES = _SPACES[:10] + "\n" + _SPACES[11:]
"""`_SPACES` keeping newlines, which separate the replies (joined texts hold no other)."""


def may_repeat(texts: list[str], words: list[frozenset[str]]) -> bool:
    """Whether some reply could take the key of an earlier one (`Rewordings.key`); when none
    can, every key is sent once.

    While no reply has taken an earlier key, the `WINDOW` recent messages a reply is compared
    with are the `WINDOW` replies before it, and the one it repeats verbatim, any earlier one.
    Near is the Jaccard similarity of `Rewordings` on the `words` of each text (numbers
    kept), never below theirs for messages whose numbers agree (the same words added to both).
    """
    if len(set(texts)) < len(texts):
        return True  # a reply sent again verbatim
    for j in range(1, len(words)):
        after = words[j]
        size = len(after)
        for before in words[max(0, j - WINDOW) : j]:
            common = len(after & before)
            union = size + len(before) - common
            if (common / union if union else 1.0) >= SIMILAR:
                return True
    return False


def words_of(texts: list[str]) -> tuple[list[frozenset[str]], list[list[str]]]:
    """The set of the tokens `content_of` reads in each text (without a newline) but stop words
    (numbers kept), and the tokens; all the texts lowered and split at once, at C speed."""
    if not texts:
        return [], []
    lowered = "\n".join(texts).lower()
    if lowered.isascii():
        parts = lowered.translate(_LINES).split("\n")
    else:  # past its first non-ASCII character `translate` is slow: only there, text by text
        parts = [text.translate(_SPACES) for text in lowered.split("\n")]
    tokens = [unclitic(part.split()) if "-" in part else part.split() for part in parts]
    return [frozenset(words) - STOP_WORDS for words in tokens], tokens


_CLITIC_WORDS = "lhe lhes lo la los las me te se nos vos vous nous moi toi lui leur"
_CLITICS = frozenset(_CLITIC_WORDS.split())
"""Pronouns Portuguese and French join to a verb with a hyphen ("oferecer-lhe",
"voulez-vous") or put before it ("o que lhe posso oferecer", "vous voulez")."""


def unclitic(tokens: list[str]) -> list[str]:
    """The tokens with a pronoun joined by a hyphen split from its verb: `oferecer-lhe` is
    `oferecer`, `lhe`, as a rewording that moves the pronoun writes them."""
    found: list[str] = []
    for token in tokens:
        head, hyphen, tail = token.rpartition("-")
        if hyphen and head and tail in _CLITICS:
            found += (head, tail)
        else:
            found.append(token)
    return found


class Rewordings:
    """The key of the earlier message each text repeats, verbatim or reworded.

    Reworded means: the same numbers (ids, amounts, counts), in the same order, the same names
    (capitalised words inside a sentence: `FedEx` and `DHL` make two requests, not one
    reworded), no identifiers that tell them apart (`reproduce_a.py` and `reproduce_b.py`: two
    scripts run, not one), and content words whose Jaccard similarity with one of the last
    `WINDOW` distinct messages, in its latest or its first wording, is at least `SIMILAR`. Each
    text is compared with at most `2 * WINDOW` others, so the work is linear; names and
    identifiers are read only for a pair that passes the other two tests.
    """

    def __init__(self) -> None:
        self.exact: dict[str, tuple[str, frozenset[str], tuple[str, ...]]] = {}
        self.recent: list[tuple[str, str, frozenset[str], tuple[str, ...]]] = []
        """(key, text, words, numbers) of the last `WINDOW` distinct messages, oldest first."""

    def key(self, text: str, content: tuple[frozenset[str], tuple[str, ...]] | None = None) -> str:
        """`content`: `content_of(text)` when the caller has it."""
        known = self.exact.get(text)
        if known is not None:
            key, words, numbers = known
        else:
            key = text
            words, numbers = content_of(text) if content is None else content
            size = len(words)
            for k, t, w, n in self._wordings():  # Jaccard similarity, inlined: it is hot
                if n != numbers:
                    continue
                other = len(w)
                if min(size, other) < SIMILAR * max(size, other):
                    continue  # sizes alone rule it out
                common = len(words & w)
                union = size + other - common
                if (common / union if union else 1.0) >= SIMILAR and _alike(t, text):
                    key = k
                    break
            self.exact[text] = (key, words, numbers)
        recent = [entry for entry in self.recent if entry[0] != key]
        recent.append((key, text, words, numbers))
        self.recent = recent[-WINDOW:]
        return key

    def _wordings(self) -> Iterator[tuple[str, str, frozenset[str], tuple[str, ...]]]:
        """The recent messages, latest first, each followed by its key's first wording when it
        rewords it: a reply drifting a little at each turn still repeats the first one."""
        for k, t, w, n in reversed(self.recent):
            yield k, t, w, n
            if t != k:
                _, first, numbers = self.exact[k]
                yield k, k, first, numbers


def content_of(text: str) -> tuple[frozenset[str], tuple[str, ...]]:
    """The content words of a text (no stop words, no numbers) and its numbers, in order."""
    lower = text.lower()
    tokens = lower.translate(_SPACES).split()
    if "-" in lower:
        tokens = unclitic(tokens)
    if not has_digit(lower):
        return frozenset(tokens) - STOP_WORDS, ()
    numbers = numbers_in(tokens)
    return frozenset(tokens).difference(STOP_WORDS, numbers), numbers


def numbers_in(tokens: list[str]) -> tuple[str, ...]:
    """The tokens holding a digit, in order (a word is spared the regex: `isalpha()` first)."""
    return tuple(filter(_DIGIT.search, filterfalse(str.isalpha, tokens)))


def has_digit(text: str) -> bool:
    return any(digit in text for digit in "0123456789")


def _alike(a: str, b: str) -> bool:
    """Nothing tells two similar texts apart: the same names, and no identifier in each that
    the other lacks (one may name more: "unzip a.zip" and "unzip a.zip and list it in b/")."""
    if names_in(a) != names_in(b):
        return False
    ids_a, ids_b = identifiers_in(a), identifiers_in(b)
    return ids_a <= ids_b or ids_b <= ids_a


def identifiers_in(text: str) -> frozenset[str]:
    """Tokens that name a file, a path, a test or a variable: a letter and a `_`, a `/` or an
    inner `.` (`reproduce_issue.py`, `tests/test_api.py`, `queryset_pickle.test_reproduce`)."""
    found = (t.strip(".-") for t in _ID_TOKEN.findall(text))
    return frozenset(t for t in found if len(t) >= 4 and _ID_MARK.search(t) and _LETTER.search(t))


def names_in(text: str) -> frozenset[str]:
    """Capitalised words that do not start a sentence."""
    names = []
    for m in _NAME.finditer(text):
        before = m.start() - 1
        while before >= 0 and text[before] in " \t":
            before -= 1
        if before >= 0 and text[before] not in _ENDS:
            names.append(m.group())
    return frozenset(names)
