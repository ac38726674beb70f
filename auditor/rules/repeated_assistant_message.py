r"""The assistant sends the user the same message three or more times, verbatim or reworded.

## What it does
Compares the assistant's text replies (turns without a tool call). Two replies are the same
when their text is, after collapsing whitespace, or when they are reworded: the same numbers
in the same order, the same names (capitalised words inside a sentence), and content words
(stop words and numbers left out) with a Jaccard similarity of 0.7 or more, measured on real
logs. Each reply is compared with the last four distinct ones. Fires once per run of three or
more such replies of at least five words, at the first one, listing the turns. User messages and failed tool calls in between do not end the run; a
successful call of a tool that may change something (not `get_*`, `search_*` and other tools
whose name says they only read) does, since the same words may then report a new state.

Options (`[tool.auditor.loops]`): `min-repeats` (3).

## Why is this bad?
Saying the same thing again, word for word or reworded, means the agent has stopped making progress: it
answers every user turn with the same apology or the same question while the user tries to get
it unstuck. OpenHands stops an agent after three identical messages; Gemini CLI watches for
repeated content in the model's output for the same reason.

## Example
```jsonl
{"id": "reworded-apology", "messages": [{"role": "user", "content": "I need the same insurance as my family."}, {"role": "assistant", "content": "I'm truly sorry for the frustration this has caused, Sophia. I understand how important it is to have the same protection as your family, but insurance cannot be added after booking."}, {"role": "user", "content": "That's not fair."}, {"role": "assistant", "content": "I'm deeply sorry for the frustration this has caused, Sophia. I completely understand how important it is to have the same protection as your family, but insurance cannot be added after booking."}, {"role": "user", "content": "Please!"}, {"role": "assistant", "content": "I'm so sorry for the upset this has caused, Sophia. I understand how important it is for you to have the same protection as your family, but insurance cannot be added after booking."}]}
{"id": "stuck-reply", "messages": [{"role": "user", "content": "Change my flight to HAT052."}, {"role": "assistant", "content": "It seems there is still an issue with the availability of flight HAT030 on May 13."}, {"role": "user", "content": "I only want the Atlanta to Las Vegas segment changed."}, {"role": "assistant", "content": "It seems there is still an issue with the availability of flight HAT030 on May 13."}, {"role": "user", "content": "Please focus on Atlanta to Las Vegas."}, {"role": "assistant", "content": "It seems there is still an issue with  the availability of flight HAT030 on May 13."}]}
```

## Does not fire on
- short acknowledgements ("OK", "Done.", "Thank you!") of fewer than five words;
- progress reports that differ only in their numbers ("12 of 40 files copied", "24 of 40 files
  copied"), and requests that differ in a name ("… using FedEx", "… using DHL");
- the same words reporting on different work, with a successful tool call between them;
- the text that accompanies a tool call: a repeated call is LP001's finding.
```jsonl
{"id": "counting", "messages": [{"role": "user", "content": "Copy the archive."}, {"role": "assistant", "content": "Still copying: 12 of 40 files are done so far."}, {"role": "user", "content": "And now?"}, {"role": "assistant", "content": "Still copying: 24 of 40 files are done so far."}, {"role": "user", "content": "Now?"}, {"role": "assistant", "content": "Still copying, 36 of 40 files are done at this point."}]}
{"id": "carriers", "messages": [{"role": "user", "content": "Compare shipping rates for a DVD to Colombia."}, {"role": "assistant", "content": "Please look up the shipping rates for mailing a DVD from Hartford to Colombia using FedEx."}, {"role": "user", "content": "Done, $45."}, {"role": "assistant", "content": "Please look up the shipping rates for mailing a DVD from Hartford to Colombia using DHL."}, {"role": "user", "content": "Done, $52."}, {"role": "assistant", "content": "Now please look up the shipping rates for mailing the DVD from Hartford to Colombia using USPS."}]}
{"id": "progress", "messages": [{"role": "user", "content": "Process the three files."}, {"role": "assistant", "content": "One file is done, please send the next one."}, {"role": "user", "content": "Here: b.csv"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "import_file", "arguments": "{\"name\": \"b.csv\"}"}}]}, {"role": "tool", "tool_call_id": "c1", "content": "imported 20 rows"}, {"role": "assistant", "content": "One file is done, please send the next one."}, {"role": "user", "content": "Here: c.csv"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c2", "type": "function", "function": {"name": "import_file", "arguments": "{\"name\": \"c.csv\"}"}}]}, {"role": "tool", "tool_call_id": "c2", "content": "imported 31 rows"}, {"role": "assistant", "content": "One file is done, please send the next one."}]}
```
"""

import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterator
from itertools import filterfalse

from auditor.findings import Severity, Violation, excerpt
from auditor.model import Message
from auditor.replay import Replay
from auditor.rules._loops import Options, breaks, calls, quote, turns

CODE = "LP004"
NAME = "repeated-assistant-message"
SEVERITY = Severity.WARNING
MIN_WORDS = 5
"""Shorter replies ("OK", "Done.", "Thank you!") repeat for good reasons."""
SIMILAR = 0.7
"""Jaccard similarity of content words from which two messages are the same, reworded.

Measured on ../shared/realdata (tau-bench, tau2, Who&When, SWE-agent, sessions): of sampled
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
_DIGIT = re.compile(r"\d")
_STOP = """
    a an the and or but if then so to of in on at for by with from as is are was were be been
    being it its this that these those i you we they he she my your our their me us them do does
    did have has had not no can could will would should may might just also there here what
    which who how when where why please let's let i'm i'll we'll you're it's am
"""
STOP_WORDS = frozenset(_STOP.split())
_NAME = re.compile(r"(?<![\w'-])[A-Z][\w&'-]*")
_ENDS = frozenset(".!?:;\"'*#>-(\n")


def screen(replay: Replay, options: Options) -> bool:
    """Some reply is sent `min_repeats` times or more, verbatim or reworded (every message of a
    loop has the same key)."""
    replies = replay.shared("LP004.replies", _replies)
    if len(replies) < options.min_repeats:
        return False  # too few replies for any of them to repeat
    texts = [said for _, said in replies]
    words, _ = replay.shared("LP004.words", _words)
    if options.min_repeats > 1 and not _may_repeat(texts, words):
        return False  # each reply has a key of its own: spare computing them one by one
    counts = Counter(key for _, key in replay.shared("LP004.keyed", _keyed))
    return max(counts.values()) >= options.min_repeats


_LINES = _SPACES[:10] + "\n" + _SPACES[11:]
"""`_SPACES` keeping newlines, which separate the replies (joined texts hold no other)."""


def _may_repeat(texts: list[str], words: list[frozenset[str]]) -> bool:
    """Whether some reply could take the key of an earlier one (`_Rewordings.key`); when none
    can, every key is sent once.

    While no reply has taken an earlier key, the `WINDOW` recent messages a reply is compared
    with are the `WINDOW` replies before it, and the one it repeats verbatim, any earlier one.
    Near is the Jaccard similarity of `_Rewordings` on the `words` of each text (numbers
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


def _words(replay: Replay) -> tuple[list[frozenset[str]], list[list[str]]]:
    return _words_of([said for _, said in replay.shared("LP004.replies", _replies)])


def _words_of(texts: list[str]) -> tuple[list[frozenset[str]], list[list[str]]]:
    """The set of the tokens `_content` reads in each text (without a newline) but stop words
    (numbers kept), and the tokens; all the texts lowered and split at once, at C speed."""
    if not texts:
        return [], []
    lowered = "\n".join(texts).lower()
    if lowered.isascii():
        parts = lowered.translate(_LINES).split("\n")
    else:  # past its first non-ASCII character `translate` is slow: only there, text by text
        parts = [text.translate(_SPACES) for text in lowered.split("\n")]
    tokens = list(map(str.split, parts))
    return list(map(STOP_WORDS.__rsub__, map(frozenset, tokens))), tokens


def _replies(replay: Replay) -> list[tuple[Message, str]]:
    """The assistant's replies long enough to count, with their words joined by one space."""
    replies = []
    for turn in replay.turns:
        if turn.message.tool_calls:
            continue
        words = turn.message.text.split()
        if len(words) >= MIN_WORDS:
            replies.append((turn.message, " ".join(words)))
    return replies


def _keyed(replay: Replay) -> list[tuple[Message, str]]:
    """Each reply with the key of the earlier reply it repeats, or its own (`_Rewordings`)."""
    keys = _Rewordings()
    replies = replay.shared("LP004.replies", _replies)
    words, split = replay.shared("LP004.words", _words)
    keyed = []
    for (message, said), found, tokens in zip(replies, words, split, strict=True):
        numbers = _numbers(tokens) if _has_digit(said) else ()
        keyed.append((message, keys.key(said, (found.difference(numbers), numbers))))
    return keyed


def check(replay: Replay, options: Options) -> Iterator[Violation]:
    if not screen(replay, options):
        return  # no reply repeats often enough: spare looking for what changed between them
    changes = sorted({e.result_turn for e in calls(replay, options) if breaks(e)} - {None})
    runs: dict[str, list[Message]] = {}
    found: list[list[Message]] = []
    for message, text in replay.shared("LP004.keyed", _keyed):
        run = runs.get(text)
        if run is not None and _changed_between(changes, run[-1].index, message.index):
            found.append(run)
            run = None
        runs[text] = [*(run or ()), message]
    found.extend(runs.values())
    loops = sorted((r for r in found if len(r) >= options.min_repeats), key=lambda r: r[0].index)
    for group in _interleaved(loops):
        first = group[0][0]
        reworded = any(" ".join(m.text.split()) != " ".join(first.text.split()) for m in group[0])
        if len(group) == 1:
            how = "the same message, reworded," if reworded else "the same message"
            message = (
                f"the assistant sent {how} {len(group[0])} times "
                f"({turns(m.index for m in group[0])}): {quote(first.text)}"
            )
        else:
            least = min(len(run) for run in group)
            last = max(run[-1].index for run in group)
            message = (
                f"the assistant cycles through the same {len(group)} messages, each sent at "
                f"least {least} times (turns {first.index} to {last}), starting with "
                f"{quote(first.text)}"
            )
        yield Violation(message, first.index, first.location, evidence=excerpt(first.text))


class _Rewordings:
    """The key of the earlier message each text repeats, verbatim or reworded.

    Reworded means: the same numbers (ids, amounts, counts), in the same order, the same names
    (capitalised words inside a sentence: `FedEx` and `DHL` make two requests, not one
    reworded), and content words whose Jaccard similarity with one of the last `WINDOW` distinct
    messages is at least `SIMILAR`. Each text is compared with at most `WINDOW` others, so the
    work is linear; names are read only for a pair that passes the other two tests.
    """

    def __init__(self) -> None:
        self.exact: dict[str, tuple[str, frozenset[str], tuple[str, ...]]] = {}
        self.recent: list[tuple[str, str, frozenset[str], tuple[str, ...]]] = []
        """(key, text, words, numbers) of the last `WINDOW` distinct messages, oldest first."""

    def key(self, text: str, content: tuple[frozenset[str], tuple[str, ...]] | None = None) -> str:
        """`content`: `_content(text)` when the caller has it."""
        known = self.exact.get(text)
        if known is not None:
            key, words, numbers = known
        else:
            key = text
            words, numbers = _content(text) if content is None else content
            size = len(words)
            for k, t, w, n in reversed(self.recent):  # Jaccard similarity, inlined: it is hot
                if n != numbers:
                    continue
                other = len(w)
                if min(size, other) < SIMILAR * max(size, other):
                    continue  # sizes alone rule it out
                common = len(words & w)
                union = size + other - common
                if (common / union if union else 1.0) >= SIMILAR and _names(t) == _names(text):
                    key = k
                    break
            self.exact[text] = (key, words, numbers)
        recent = [entry for entry in self.recent if entry[0] != key]
        recent.append((key, text, words, numbers))
        self.recent = recent[-WINDOW:]
        return key


def _content(text: str) -> tuple[frozenset[str], tuple[str, ...]]:
    """The content words of a text (no stop words, no numbers) and its numbers, in order."""
    lower = text.lower()
    tokens = lower.translate(_SPACES).split()
    if not _has_digit(lower):
        return frozenset(tokens) - STOP_WORDS, ()
    numbers = _numbers(tokens)
    return frozenset(tokens).difference(STOP_WORDS, numbers), numbers


def _numbers(tokens: list[str]) -> tuple[str, ...]:
    """The tokens holding a digit, in order (a word is spared the regex: `isalpha()` first)."""
    return tuple(filter(_DIGIT.search, filterfalse(str.isalpha, tokens)))


def _has_digit(text: str) -> bool:
    return any(digit in text for digit in "0123456789")


def _names(text: str) -> frozenset[str]:
    """Capitalised words that do not start a sentence."""
    names = []
    for m in _NAME.finditer(text):
        before = m.start() - 1
        while before >= 0 and text[before] in " \t":
            before -= 1
        if before >= 0 and text[before] not in _ENDS:
            names.append(m.group())
    return frozenset(names)


def _interleaved(loops: list[list[Message]]) -> Iterator[list[list[Message]]]:
    """Runs of different messages that alternate within one stretch: one loop, one finding."""
    group: list[list[Message]] = []
    for run in loops:
        if group and run[0].index > group[0][-1].index:
            yield group
            group = []
        group.append(run)
    if group:
        yield group


def _changed_between(changes: list[int], before: int, after: int) -> bool:
    """A successful call that may write got its result between the two messages."""
    i = bisect_right(changes, before)
    return i < len(changes) and changes[i] < after
