r"""A tool call that names a tool the transcript does not declare.

## What it does
Where the transcript declares its tools, fires on every structured call by the assistant whose
tool name is not among them, and names the closest declared tool when there is one.

## Why is this bad?
The model invented a tool, misspelled one, or used a tool from another prompt. The runtime
answers with an error the model often cannot act on ("unknown tool"), or a framework routes the
call somewhere unexpected; either way the step the model planned never happened.

## Example
```jsonl
{"id": "ex5", "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}], "messages": [{"role": "user", "content": "Forecast for Oslo?"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_forecast", "arguments": "{\"city\": \"Oslo\"}"}}]}, {"role": "tool", "tool_call_id": "c1", "content": "Error: unknown tool"}]}
```

## How to fix
Declare every tool the model may call, under the name the runtime routes on, in every request
(an agent handed over from another prompt keeps calling that prompt's tools). When the finding
names a close declared tool, the model misspelled it, or the prompt's text calls the tool by
another name than its declaration: make the two agree. Answer an unknown tool with an error
that lists the tools there are, so that the model can correct itself. If the log records only
some of the tools the run had, give them all with `--tools FILE`.

## Does not fire on
- transcripts that declare no tools (coverage reports them as not examined);
- calls written into message text, and calls made by the simulated user of tau2-bench, whose
  tools are not the agent's.
```jsonl
{"id": "ex5-ok", "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}], "messages": [{"role": "user", "content": "Weather in Oslo?"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Oslo\"}"}}]}, {"role": "tool", "tool_call_id": "c1", "content": "4C, rain"}]}
```
"""

from __future__ import annotations

from collections.abc import Iterator

from auditor.findings import Violation, on_call
from auditor.replay import Exchange, Replay

REQUIRES = ("tools", "calls")

_LISTED = 5


def screen(replay: Replay, options: None) -> bool:
    """The assistant called a tool whose name is not declared."""
    known = {spec.name for spec in replay.conversation.tools or ()}
    return any(_unknown(e, known) for e in replay.exchanges)


def _unknown(exchange: Exchange, known: set[str]) -> bool:
    call = exchange.call
    return (
        call.origin == "structured"
        and exchange.caller == "assistant"
        and bool(call.name)
        and call.name not in known
    )


def check(replay: Replay, options: None) -> Iterator[Violation]:
    declared = [spec.name for spec in replay.conversation.tools or ()]
    known = set(declared)
    for exchange in replay.exchanges:
        if not _unknown(exchange, known):
            continue
        call = exchange.call
        import difflib  # here: most runs meet no unknown tool

        close = difflib.get_close_matches(call.name, declared, n=1)
        hint = f"; did you mean `{close[0]}`?" if close else ""
        listed = ", ".join(f"`{n}`" for n in declared[:_LISTED])
        if len(declared) > _LISTED:
            listed += f" and {len(declared) - _LISTED} more"
        yield on_call(
            f"`{call.name}` is not a declared tool (declared: {listed}){hint}",
            call,
            exchange.turn,
            replay.conversation.messages[exchange.turn].location,
        )
