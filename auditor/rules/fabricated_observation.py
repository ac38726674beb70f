r"""An assistant turn that holds a tool result it wrote itself.

## What it does
Reads the text of every assistant turn for a tool's output written by the model: a ReAct
`Observation:` (with text) after an `Action:` in the same message, a `<tool_response>` after a
`<tool_call>` in the same message, or a harmony frame authored by a tool
(`<|start|>functions.NAME to=assistant…`). One finding per kind and message; the message
counts how many observations the turn made up.

## Why is this bad?
The model did not wait for the tool: it imagined the result and reasoned on from it. The
framework either never ran the tool (its stop sequence failed, or it parsed the final answer
first) or ran it and threw the real result away. The answer rests on an observation nobody
observed, and the log reads as if the tool had said it.

## Example
```jsonl
{"id": "react-fabricated", "tools": [{"type": "function", "function": {"name": "web_search", "parameters": {"type": "object", "properties": {"query": {"type": "string"}}}}}], "messages": [{"role": "user", "content": "How many people live in Oslo?"}, {"role": "assistant", "content": "Thought: I should look this up.\nAction: web_search\nAction Input: {\"query\": \"Oslo population 2024\"}\nObservation: Oslo has 1,204,515 inhabitants as of 2024.\nThought: I now know the final answer.\nFinal Answer: About 1.2 million people live in Oslo."}]}
```

## Does not fire on
- an `Observation:` in the next message, written by the framework that ran the action;
- an `Observation:` label the model stopped at, with nothing after it;
- the labels inside an Action Input's JSON, or inside backticks and code fences (a model
  explaining the ReAct format);
- reasoning text.
```jsonl
{"id": "react-ok", "tools": [{"type": "function", "function": {"name": "web_search", "parameters": {"type": "object", "properties": {"query": {"type": "string"}}}}}], "messages": [{"role": "user", "content": "How many people live in Oslo?"}, {"role": "assistant", "content": "Thought: I should look this up.\nAction: web_search\nAction Input: {\"query\": \"Oslo population\"}\nObservation:"}, {"role": "user", "content": "Observation: Oslo has 709,037 inhabitants."}, {"role": "assistant", "content": "The format is:\n```\nAction: web_search\nObservation: the result\n```\nFinal Answer: About 709,000."}]}
```
"""

from collections.abc import Iterator

from auditor.dialects import HARMONY_TOOL_AUTHORS, Reading, marked_turns, read_turns
from auditor.findings import Severity, Violation, excerpt
from auditor.replay import Replay

CODE = "FB001"
NAME = "fabricated-observation"
SEVERITY = Severity.ERROR

_MADE_UP = "no tool ran, the result is made up"


def screen(replay: Replay, options: None) -> bool:
    """Some answer holds a marker the dialect reader looks for."""
    return bool(marked_turns(replay))


def check(replay: Replay, options: None) -> Iterator[Violation]:
    for message, reading in read_turns(replay):
        for text, tool, evidence in (*_react(reading), *_hermes(reading), *_harmony(reading)):
            yield Violation(text, message.index, message.location, tool=tool, evidence=evidence)


def _react(reading: Reading) -> Iterator[tuple[str, str | None, str]]:
    made_up = [
        (s.action, s.observation)
        for s in reading.steps
        if s.action.value and s.observation is not None and s.observation.value
    ]
    if not made_up:
        return
    action, observation = made_up[0]
    name = action.value.split("\n", 1)[0].strip()
    text = (
        f"the assistant wrote the `Observation:` of its own `Action: {excerpt(name, 60)}` "
        f"in the same message; {_MADE_UP}"
    )
    if len(made_up) > 1:
        text += f" ({len(made_up)} observations in this message)"
    yield text, name or None, excerpt(f"Observation: {observation.value}")


def _hermes(reading: Reading) -> Iterator[tuple[str, str | None, str]]:
    first_call = next((b for b in reading.blocks if b.tag == "tool_call"), None)
    if first_call is None:
        return
    made_up = [
        b
        for b in reading.blocks
        if b.tag == "tool_response" and b.span[0] >= first_call.span[1] and b.body.strip()
    ]
    if not made_up:
        return
    call = next((c for c in reading.calls if c.span[0] == first_call.span[0]), None)
    text = (
        f"the assistant wrote a `<tool_response>` after its own `<tool_call>`"
        f"{f' to `{call.name}`' if call else ''} in the same message; {_MADE_UP}"
    )
    if len(made_up) > 1:
        text += f" ({len(made_up)} responses in this message)"
    yield text, call.name if call else None, excerpt(f"<tool_response>{made_up[0].body}")


def _harmony(reading: Reading) -> Iterator[tuple[str, str | None, str]]:
    made_up = [
        f
        for f in reading.frames
        if f.author is not None and f.author.startswith(HARMONY_TOOL_AUTHORS) and f.body.strip()
    ]
    if not made_up:
        return
    author = made_up[0].author or ""
    text = f"the assistant's text holds a harmony frame authored by the tool `{author}`; {_MADE_UP}"
    if len(made_up) > 1:
        text += f" ({len(made_up)} tool frames in this message)"
    yield text, author.removeprefix("functions."), excerpt(made_up[0].body)
