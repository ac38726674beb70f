r"""A tool result that answers no earlier tool call.

## What it does
Fires on a tool result whose call id matches no call made before it, on a second result for
a call that already had one, and on a result without an id when no call is waiting.

## Why is this bad?
A result nobody asked for is either output from another conversation spliced into this one,
a call the log lost, or a tool that ran twice. The model reads it as a fact all the same.

## Example
```jsonl
{"id": "run-3", "messages": [{"role": "user", "content": "Cancel order 42"}, {"role": "tool", "tool_call_id": "call_9", "content": "order 42 cancelled"}, {"role": "assistant", "content": "Done."}]}
```

## How to fix
Look at the code that builds the history: each result must carry the id of a call made
earlier in the same conversation. A result from another conversation comes from state shared
between sessions (a global message list, a cache keyed wrongly); a result whose call is
missing, from trimming the context (drop a call and its result together, never one of them);
a second result for one call, from a retry that appended a result instead of replacing it. If
the model saw the right history and only the log is wrong, fix the logger.

## Does not fire on
- results whose id matches an earlier call, even when several calls are answered out of order;
- a result logged just before its own call inside one batch of parallel calls written one
  message per call (nothing but call-only messages and results between them): the converter's
  order within a batch, not a result nobody asked for. With text or another role's turn between
  the result and the call, it is reported;
- a log that is one tool result and nothing else (no system, user or assistant turn): a
  fragment, such as a parser's test case, not a conversation a result was spliced into. Two
  results or more with nothing around them are still reported: each names a call the log lacks.
```jsonl
{"id": "run-4", "messages": [{"role": "user", "content": "Cancel order 42"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "call_9", "type": "function", "function": {"name": "cancel_order", "arguments": "{\"order_id\": 42}"}}]}, {"role": "tool", "tool_call_id": "call_9", "content": "order 42 cancelled"}, {"role": "assistant", "content": "Done."}]}
```
"""

from collections.abc import Iterator

from auditor.findings import Violation, excerpt
from auditor.replay import Replay


def screen(replay: Replay, options: None) -> bool:
    """Replay found a result that answers no call, in more than a lone result."""
    return bool(replay.orphans) and not _fragment(replay)


def _fragment(replay: Replay) -> bool:
    """The log holds one message, a tool result, and no turn of anyone else."""
    messages = replay.conversation.messages
    return len(messages) == 1 and messages[0].result is not None


def check(replay: Replay, options: None) -> Iterator[Violation]:
    if _fragment(replay):
        return
    for orphan in replay.orphans:
        call_id = orphan.result.call_id
        if call_id is None:
            message = "tool result without a call id arrives when no call is waiting for one"
        elif orphan.answered_turn is not None:
            message = (
                f"second result for call `{call_id}` (made at turn {replay.at(orphan.answered_turn)}), "
                "which already had its result"
            )
        else:
            message = f"tool result for call `{call_id}` answers no earlier call"
        yield Violation(
            message,
            orphan.message.index,
            orphan.message.location,
            tool=orphan.result.name,
            call_id=call_id,
            evidence=excerpt(orphan.result.text),
        )
