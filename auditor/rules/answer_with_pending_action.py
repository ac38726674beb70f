r"""An assistant turn that both requests a tool and gives its `Final Answer:`.

## What it does
Fires on an assistant turn that requests a tool, with a structured call or a ReAct `Action:`
naming a tool, and in the same text gives a `Final Answer:` with something after it (or
llama_index's `Answer:`, in a message with ReAct `Thought:`/`Action:` labels). ReAct labels
count only at the start of a line and outside code; a `Final Answer:` inside the Action
Input's JSON is part of the input, not an answer.

## Why is this bad?
The answer was written before the tool's result existed, so it cannot rest on it. Frameworks
split on this differently: crewAI raises "both a final answer and a parse-able action",
others take the answer and never run the tool, others run the tool and show an answer that
contradicts its result. Either way the user gets a guess.

## Example
```jsonl
{"id": "answer-and-action", "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}], "messages": [{"role": "user", "content": "Weather in Paris?"}, {"role": "assistant", "content": "Thought: I will check.\nAction: get_weather\nAction Input: {\"city\": \"Paris\"}\nFinal Answer: It is sunny in Paris."}]}
```

## How to fix
Have the framework refuse a turn that holds both: run the action, drop the answer, and ask the
model again with the observation (rather than keep the answer and never run the tool). Add
`Observation:` to the stop sequences so that generation ends after the `Action Input:`. In the
prompt: a turn either calls a tool or gives the `Final Answer:`, never both.

## Does not fire on
- a `Final Answer:` inside the Action Input's JSON string (a file the agent writes, a message
  it sends);
- a `Final Answer:` in a later turn, after the observation came back;
- an `Action:` that names no declared tool (`Action: None`), or labels in backticks or fences;
- `Answer:` in a message that is not ReAct (a "Question: … Answer: …" example);
- reasoning text.
```jsonl
{"id": "answer-inside-input", "tools": [{"type": "function", "function": {"name": "file_write", "parameters": {"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}}}}}], "messages": [{"role": "user", "content": "Save the template."}, {"role": "assistant", "content": "Thought: I will save it.\nAction: file_write\nAction Input: {\"path\": \"react.txt\", \"content\": \"Thought: ...\nFinal Answer: ...\"}"}, {"role": "user", "content": "Observation: saved"}, {"role": "assistant", "content": "Final Answer: The template is saved in react.txt."}]}
{"id": "qa-example", "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}], "messages": [{"role": "user", "content": "Show me a Q&A pair, then check Paris."}, {"role": "assistant", "content": "Question: What is 2+2?\nAnswer: 4", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]}, {"role": "tool", "tool_call_id": "c1", "content": "sunny"}]}
```
"""

from collections.abc import Iterator

from auditor.dialects import marked_turns, read_turns
from auditor.findings import Violation, excerpt
from auditor.replay import Replay


def screen(replay: Replay, options: None) -> bool:
    """Some answer holds a marker the dialect reader looks for, and `Answer` (the label of
    every answer it reads)."""
    return any("Answer" in m.text for m in marked_turns(replay))


def check(replay: Replay, options: None) -> Iterator[Violation]:
    for message, reading in read_turns(replay):
        answers = reading.answers()
        if not answers:
            continue
        requested = [c.name for c in message.tool_calls]
        how = "calls"
        if not requested:
            requested = [c.name for c in reading.calls if c.dialect == "react"]
            how = "writes `Action:` for"
        if not requested:
            continue
        more = f" (and {len(requested) - 1} more)" if len(requested) > 1 else ""
        start, end = answers[0].span
        written = message.text[start:end].strip()  # `Final Answer: …`, or llama_index's `Answer: …`
        label = written.split(":", 1)[0].strip()
        yield Violation(
            f"the assistant {how} `{requested[0]}`{more} and gives "
            f"{'an' if label[:1] in 'AEIOU' else 'a'} `{label}:` in the "
            "same turn; the answer was written before the tool's result existed",
            message.index,
            message.location,
            tool=requested[0],
            evidence=excerpt(written),
        )
