r"""The assistant sends the user the same message three or more times.

## What it does
Compares the assistant's text replies (turns without a tool call) after collapsing whitespace.
Fires once per run of three or more identical replies of at least five words, at the first one,
listing the turns. User messages and failed tool calls in between do not end the run; a
successful call of a tool that may change something (not `get_*`, `search_*` and other tools
whose name says they only read) does, since the same words may then report a new state.

Options (`[tool.auditor.loops]`): `min-repeats` (3).

## Why is this bad?
Saying the same thing again, word for word, means the agent has stopped making progress: it
answers every user turn with the same apology or the same question while the user tries to get
it unstuck. OpenHands stops an agent after three identical messages; Gemini CLI watches for
repeated content in the model's output for the same reason.

## Example
```jsonl
{"id": "stuck-reply", "messages": [{"role": "user", "content": "Change my flight to HAT052."}, {"role": "assistant", "content": "It seems there is still an issue with the availability of flight HAT030 on May 13."}, {"role": "user", "content": "I only want the Atlanta to Las Vegas segment changed."}, {"role": "assistant", "content": "It seems there is still an issue with the availability of flight HAT030 on May 13."}, {"role": "user", "content": "Please focus on Atlanta to Las Vegas."}, {"role": "assistant", "content": "It seems there is still an issue with  the availability of flight HAT030 on May 13."}]}
```

## Does not fire on
- short acknowledgements ("OK", "Done.", "Thank you!") of fewer than five words;
- the same words reporting on different work, with a successful tool call between them;
- the text that accompanies a tool call: a repeated call is LP001's finding.
```jsonl
{"id": "progress", "messages": [{"role": "user", "content": "Process the three files."}, {"role": "assistant", "content": "One file is done, please send the next one."}, {"role": "user", "content": "Here: b.csv"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "import_file", "arguments": "{\"name\": \"b.csv\"}"}}]}, {"role": "tool", "tool_call_id": "c1", "content": "imported 20 rows"}, {"role": "assistant", "content": "One file is done, please send the next one."}, {"role": "user", "content": "Here: c.csv"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c2", "type": "function", "function": {"name": "import_file", "arguments": "{\"name\": \"c.csv\"}"}}]}, {"role": "tool", "tool_call_id": "c2", "content": "imported 31 rows"}, {"role": "assistant", "content": "One file is done, please send the next one."}]}
```
"""

from bisect import bisect_right
from collections.abc import Iterator

from auditor.findings import Severity, Violation, excerpt
from auditor.model import Message
from auditor.replay import Replay
from auditor.rules._loops import Options, breaks, calls, quote, turns

CODE = "LP004"
NAME = "repeated-assistant-message"
SEVERITY = Severity.WARNING
MIN_WORDS = 5
"""Shorter replies ("OK", "Done.", "Thank you!") repeat for good reasons."""


def check(replay: Replay, options: Options) -> Iterator[Violation]:
    changes = sorted({e.result_turn for e in calls(replay, options) if breaks(e)} - {None})
    runs: dict[str, list[Message]] = {}
    found: list[list[Message]] = []
    for turn in replay.turns:
        message = turn.message
        words = message.text.split()
        if message.tool_calls or len(words) < MIN_WORDS:
            continue
        text = " ".join(words)
        run = runs.get(text)
        if run is not None and _changed_between(changes, run[-1].index, message.index):
            found.append(run)
            run = None
        runs[text] = [*(run or ()), message]
    found.extend(runs.values())
    loops = sorted((r for r in found if len(r) >= options.min_repeats), key=lambda r: r[0].index)
    for group in _interleaved(loops):
        first = group[0][0]
        if len(group) == 1:
            message = (
                f"the assistant sent the same message {len(group[0])} times "
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
