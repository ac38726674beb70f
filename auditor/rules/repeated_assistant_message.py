r"""The assistant sends the user the same message three or more times, verbatim or reworded.

## What it does
Compares the assistant's text replies (turns without a tool call). Two replies are the same when
their text is, after collapsing whitespace, or when they are reworded: the same numbers in the
same order, the same names (capitalised words inside a sentence, not "I"), and content words
(stop words and numbers left out; a pronoun joined by a hyphen, "oferecer-lhe", "voulez-vous",
is a word of its own) with a Jaccard similarity of 0.7 or more, measured on real logs. Each
reply is compared with the last four distinct ones, and with the first wording of each: a reply
reworded a little more at each turn still repeats the first. Fires once per run of three or more
such replies of at least five words, at the first one, listing the turns. User messages and
failed tool calls in between do not end the run; a successful call of a tool that may change
something (not `get_*`, `search_*` and other tools whose name says they only read) does, since
the same words may then report a new state.

Options (`[tool.auditor.loops]`): `min-repeats` (3).

## Why is this bad?
Saying the same thing again, word for word or reworded, means the agent has stopped making
progress: it answers every user turn with the same apology or the same question while the user
tries to get it unstuck. OpenHands stops an agent after three identical messages; Gemini CLI
watches for repeated content in the model's output for the same reason.

## Example
```jsonl
{"id": "reworded-apology", "messages": [{"role": "user", "content": "I need the same insurance as my family."}, {"role": "assistant", "content": "I'm truly sorry for the frustration this has caused, Sophia. I understand how important it is to have the same protection as your family, but insurance cannot be added after booking."}, {"role": "user", "content": "That's not fair."}, {"role": "assistant", "content": "I'm deeply sorry for the frustration this has caused, Sophia. I completely understand how important it is to have the same protection as your family, but insurance cannot be added after booking."}, {"role": "user", "content": "Please!"}, {"role": "assistant", "content": "I'm so sorry for the upset this has caused, Sophia. I understand how important it is for you to have the same protection as your family, but insurance cannot be added after booking."}]}
{"id": "stuck-reply", "messages": [{"role": "user", "content": "Change my flight to HAT052."}, {"role": "assistant", "content": "It seems there is still an issue with the availability of flight HAT030 on May 13."}, {"role": "user", "content": "I only want the Atlanta to Las Vegas segment changed."}, {"role": "assistant", "content": "It seems there is still an issue with the availability of flight HAT030 on May 13."}, {"role": "user", "content": "Please focus on Atlanta to Las Vegas."}, {"role": "assistant", "content": "It seems there is still an issue with  the availability of flight HAT030 on May 13."}]}
```

## How to fix
The agent is stuck on something it cannot do or say: read what the user keeps asking for.
Give the agent a way out (hand over to a person, or state the limit once and close the
conversation) and a rule in the prompt: "if you have already said this, say what else you can
do, or hand over". A harness can spot repeated replies and escalate.

## Does not fire on
- replies carrying fenced code that changed between them (a programmer resending a whole file
  with the reviewer's fix in it reads as a rewording of the last one);
- short acknowledgements ("OK", "Done.", "Thank you!") of fewer than five words, and the
  answers to a user turn that only greets ("hi", "thanks"): a greeting answers a greeting;
- progress reports that differ only in their numbers ("12 of 40 files copied", "24 of 40 files
  copied"), and requests that differ in a name ("… using FedEx", "… using DHL");
- the same words reporting on different work, with a successful tool call between them;
- the text that accompanies a tool call: a repeated call is LP001's finding;
- similar replies that an identifier tells apart, each naming one the other lacks ("Now run
  the reproduction script again: `python reproduce_a.py`", then `reproduce_b.py`): different
  scripts, files or tests;
- notes no other agent reads (Magentic-One's `Orchestrator (thought)`: its plans, ledgers and
  "Next speaker WebSurfer" routing lines, padded or not by a warning the framework printed).

It still reports an agent that re-runs the same script after edits it makes in text actions
the log does not record as calls (mini-swe-agent 1.x writes its bash commands in the reply).
```jsonl
{"id": "counting", "messages": [{"role": "user", "content": "Copy the archive."}, {"role": "assistant", "content": "Still copying: 12 of 40 files are done so far."}, {"role": "user", "content": "And now?"}, {"role": "assistant", "content": "Still copying: 24 of 40 files are done so far."}, {"role": "user", "content": "Now?"}, {"role": "assistant", "content": "Still copying, 36 of 40 files are done at this point."}]}
{"id": "carriers", "messages": [{"role": "user", "content": "Compare shipping rates for a DVD to Colombia."}, {"role": "assistant", "content": "Please look up the shipping rates for mailing a DVD from Hartford to Colombia using FedEx."}, {"role": "user", "content": "Done, $45."}, {"role": "assistant", "content": "Please look up the shipping rates for mailing a DVD from Hartford to Colombia using DHL."}, {"role": "user", "content": "Done, $52."}, {"role": "assistant", "content": "Now please look up the shipping rates for mailing the DVD from Hartford to Colombia using USPS."}]}
{"id": "progress", "messages": [{"role": "user", "content": "Process the three files."}, {"role": "assistant", "content": "One file is done, please send the next one."}, {"role": "user", "content": "Here: b.csv"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "import_file", "arguments": "{\"name\": \"b.csv\"}"}}]}, {"role": "tool", "tool_call_id": "c1", "content": "imported 20 rows"}, {"role": "assistant", "content": "One file is done, please send the next one."}, {"role": "user", "content": "Here: c.csv"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c2", "type": "function", "function": {"name": "import_file", "arguments": "{\"name\": \"c.csv\"}"}}]}, {"role": "tool", "tool_call_id": "c2", "content": "imported 31 rows"}, {"role": "assistant", "content": "One file is done, please send the next one."}]}
```
"""

import hashlib
import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterator, Sequence

from auditor.common.patterns import lazy
from auditor.findings import Violation, excerpt
from auditor.model import Message
from auditor.replay import Replay
from auditor.rules._agents import private
from auditor.rules._loops import Options, breaks, calls, quote, turns
from auditor.rules._rewordings import Rewordings, has_digit, may_repeat, numbers_in, words_of

MIN_WORDS = 5
"""Shorter replies ("OK", "Done.", "Thank you!") repeat for good reasons."""


def screen(replay: Replay, options: Options) -> bool:
    """Some reply is sent `min_repeats` times or more, verbatim or reworded (every message of a
    loop has the same key)."""
    replies = replay.shared("LP004.replies", _replies)
    if len(replies) < options.min_repeats:
        return False  # too few replies for any of them to repeat
    texts = [said for _, said in replies]
    words, _ = replay.shared("LP004.words", _words)
    if options.min_repeats > 1 and not may_repeat(texts, words):
        return False  # each reply has a key of its own: spare computing them one by one
    counts = Counter(key for _, key in replay.shared("LP004.keyed", _keyed))
    return max(counts.values()) >= options.min_repeats


def _words(replay: Replay) -> tuple[list[frozenset[str]], list[list[str]]]:
    return words_of([said for _, said in replay.shared("LP004.replies", _replies)])


def _replies(replay: Replay) -> list[tuple[Message, str]]:
    """The assistant's replies long enough to count, with their words joined by one space;
    not the replies to a user turn that only greets (a greeting answers a greeting)."""
    greeted = _greeted(replay.conversation.messages)
    replies = []
    for turn in replay.turns:
        if turn.message.tool_calls or private(turn.message.name) or turn.message.index in greeted:
            continue
        words = turn.message.text.split()
        if len(words) >= MIN_WORDS:
            replies.append((turn.message, " ".join(words)))
    return replies


_GREETING = lazy(
    r"\W*(?:hi|hello|hey|hiya|yo|howdy|good (?:morning|afternoon|evening)|thanks|thank you)"
    r"(?: there| again)?\W*",
    re.I,
)


def _greeted(messages: Sequence[Message]) -> set[int]:
    """The turns of assistant messages answering a user turn that is only a greeting."""
    greeted: set[int] = set()
    greeting = False
    for message in messages:
        if message.role == "user":
            greeting = len(message.text) <= 40 and _GREETING.fullmatch(message.text) is not None
        elif message.role == "assistant" and greeting:
            greeted.add(message.index)
    return greeted


def _keyed(replay: Replay) -> list[tuple[Message, str]]:
    """Each reply with the key of the earlier reply it repeats, or its own (`Rewordings`)."""
    keys = Rewordings()
    replies = replay.shared("LP004.replies", _replies)
    words, split = replay.shared("LP004.words", _words)
    keyed = []
    for (message, said), found, tokens in zip(replies, words, split, strict=True):
        numbers = numbers_in(tokens) if has_digit(said) else ()
        key = keys.key(said, (found.difference(numbers), numbers))
        code = _code(message.text)
        keyed.append((message, f"{key}\x1f{code}" if code else key))
    return keyed


_FENCED = lazy(r"```[^\n]*\n(.*?)```", re.S)


def _code(text: str) -> str:
    """The fenced code a reply carries, whitespace runs collapsed: replies whose code differs
    are different messages however alike their words (a file resent with a fix in it)."""
    if "```" not in text:
        return ""
    code = " ".join(" ".join(m.group(1).split()) for m in _FENCED.finditer(text))
    return hashlib.blake2b(code.encode(), digest_size=8).hexdigest() if code else ""


def check(replay: Replay, options: Options) -> Iterator[Violation]:
    if not screen(replay, options):
        return  # no reply repeats often enough: spare looking for what changed between them
    changes = sorted(
        {e.result_turn for e in calls(replay, options) if breaks(e) and e.result_turn is not None}
    )
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
            said = (
                f"the assistant sent {how} {len(group[0])} times "
                f"({turns(replay.at(m.index) for m in group[0])}): {quote(first.text)}"
            )
        else:
            least = min(len(run) for run in group)
            last = max(run[-1].index for run in group)
            said = (
                f"the assistant cycles through the same {len(group)} messages, each sent at "
                f"least {least} times (turns {replay.at(first.index)} to {replay.at(last)}), starting with "
                f"{quote(first.text)}"
            )
        yield Violation(said, first.index, first.location, evidence=excerpt(first.text))


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
