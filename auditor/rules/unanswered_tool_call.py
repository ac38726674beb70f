r"""A tool call that got no result before the agent moved on, or that the transcript ends on.

## What it does
Pairs every structured tool call with the result that carries its id. Fires when the caller
speaks again before any result arrives, when the result arrives only after that, or when the
transcript ends while the call is still waiting.

## Why is this bad?
A call without a result means the tool never ran, or ran and its output was lost: the model
then answers from nothing. Chat APIs reject a history with an unanswered call, so frameworks
that "repair" the history drop or fake results without telling anyone. A transcript that
ends on a call is an agent that crashed or timed out mid-task.

## Example
```jsonl
{"id": "run-1", "messages": [{"role": "user", "content": "Weather in Paris?"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]}, {"role": "assistant", "content": "It is sunny in Paris."}]}
```

## How to fix
In the harness: answer every call before the model speaks again, with its result or an error
result under the call's id (`tool_call_id`); a tool that fails, times out or is cancelled
still returns an error result that says so. Run every call of a parallel batch, not only the
first. Do not "repair" a history by dropping calls or inventing results. Log results as they
arrive, and log a run that ends mid-call (a timeout, a crash) as having ended there.

## Does not fire on
- calls answered by a result with their id, in any order, before the next assistant turn;
- parallel calls written one assistant message per call (the later ones holding only calls),
  each answered before the assistant next speaks in text: one batch. Results may come between
  the calls of the batch (a log that records them as they arrive, as Claude Code's converted
  sessions do), and a result may even be logged just before its own call: a call with an id
  is answered when its result, by that id, arrives before the batch ends, the batch being the
  run of call-only messages and results up to the next message with text or from another
  role. A call still waiting then is reported, passed where the assistant first went on
  without it; a call without an id is passed by the next call-only message after a result,
  since a result without an id could answer any call;
- the trailing call of a gateway snapshot (`exchange` format), which is normal there;
- a terminal call, the one that ends the run and carries its answer (`finish`, `submit`,
  `exit`, `final_answer`, `attempt_completion`, `task_complete`, `complete_task`, `done`), when
  it is the last message of the transcript: its result is the end of the run, which frameworks
  log in some runs and not in others (the OpenHands SDK). A run that crashed while executing
  its terminal call looks the same and is missed; a terminal call the assistant goes on past
  without a result, or one followed by anything else, is still reported;
- calls written into message text: those are EX003.
```jsonl
{"id": "run-2", "messages": [{"role": "user", "content": "Weather in Paris?"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]}, {"role": "tool", "tool_call_id": "call_1", "content": "sunny, 24C"}, {"role": "assistant", "content": "It is sunny in Paris."}]}
```
"""

from collections.abc import Iterator

from auditor.findings import Violation, on_call
from auditor.replay import Exchange, Replay
from auditor.rules._toolnames import ends_run

REQUIRES = ("calls",)


def screen(replay: Replay, options: None) -> bool:
    """Some structured call did not get its result in time."""
    return any(_unanswered(e) for e in replay.exchanges)


def _unanswered(exchange: Exchange) -> bool:
    return exchange.call.origin == "structured" and not exchange.answered


def check(replay: Replay, options: None) -> Iterator[Violation]:
    complete = replay.conversation.complete
    last = len(replay.conversation.messages) - 1
    for exchange in replay.exchanges:
        if not _unanswered(exchange):
            continue
        if exchange.passed_at is None and not complete:
            continue
        if exchange.passed_at is None and exchange.turn == last and ends_run(exchange.call.name):
            continue  # the run ends on its terminal call: nothing was left waiting
        where = replay.conversation.messages[exchange.turn].location
        yield on_call(_message(replay, exchange), exchange.call, exchange.turn, where)


def _message(replay: Replay, exchange: Exchange) -> str:
    call = f"`{exchange.call.name}` call" + (f" `{exchange.call.id}`" if exchange.call.id else "")
    caller = "the assistant" if exchange.caller == "assistant" else f"the {exchange.caller}"
    if exchange.passed_at is None:
        return f"the transcript ends on {call} with no result"
    if exchange.result is None:
        return (
            f"{call} got no result before {caller} spoke again at turn {replay.at(exchange.passed_at)}; "
            "it went on without the tool's output"
        )
    return (
        f"{call} got its result only at turn {replay.at(exchange.result_turn)}, after {caller} "
        f"had already spoken again at turn {replay.at(exchange.passed_at)}"
    )
