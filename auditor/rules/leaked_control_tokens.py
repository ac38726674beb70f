r"""Chat-template control tokens in the answer text the user sees.

## What it does
Fires on an assistant turn whose text holds chat-template tokens outside backticks and code
fences: harmony (`<|start|>`, `<|channel|>`, `<|message|>`, `<|constrain|>`, `<|call|>`,
`<|end|>`, `<|return|>`), ChatML (`<|im_start|>`, `<|im_end|>`), Llama (`<|eot_id|>`,
`<|python_tag|>`, `<|start_header_id|>`), Mistral (`[TOOL_CALLS]`, `[INST]`), DeepSeek
(`<｜…｜>`), Gemma (`<start_of_turn>`, `<end_of_turn>`, `<eos>`, `<bos>`), Kimi
(`<|tool_call_begin|>`) and any other `<|name|>` token, and the channel words a gpt-oss answer
keeps when its harmony tokens were stripped (`analysisThe user asks…`, `…assistantfinalHello`).
Tokens that are part of a call recovered from the text are left to EX003, which reports the
call itself. One finding per message, naming the tokens found; and one per structured call
whose tool name holds a token (`search<|channel|>commentary`), which EX005 alone would only
call an unknown tool.

## Why is this bad?
These tokens frame the model's output; the serving stack is supposed to consume them. When
they reach `content`, the parser in between (a gateway, a template, a vLLM reasoning or tool
parser) failed, and the user is shown scaffolding: a gpt-oss answer that starts with
`<|channel|>analysis<|message|>` shows its reasoning, a stray `<|im_end|>` cuts the answer.

## Example
```jsonl
{"id": "harmony-leak", "messages": [{"role": "user", "content": "Capital of Norway?"}, {"role": "assistant", "content": "<|channel|>analysis<|message|>Simple fact.<|end|><|start|>assistant<|channel|>final<|message|>Oslo."}]}
```

## How to fix
Fix the serving stack, not the prompt: serve the model with its own chat template and the
parser for its output (the reasoning and tool parsers of vLLM for gpt-oss's harmony format),
count its end-of-turn tokens among the stop tokens, and decode with special tokens skipped. A
gateway between the server and the client must pass on the parsed fields, not the raw
completion. Until then, strip the tokens before the user sees the answer, and log the raw text
beside it.

## Does not fire on
- tokens quoted in backticks or code fences while explaining a template;
- tokens of a call EX003 recovered (the call is the finding);
- English that merely holds the word "analysis" or "final" ("The analysis shows…");
- reasoning text, which users are not shown, and user turns (a user pasting a template).
```jsonl
{"id": "explaining", "messages": [{"role": "user", "content": "How does harmony end a tool call?"}, {"role": "assistant", "content": "The model ends a call with `<|call|>`, and a final answer with `<|return|>`."}]}
{"id": "english-and-user", "messages": [{"role": "user", "content": "Here is my template: <start_of_turn>user\n{{q}}<end_of_turn>"}, {"role": "assistant", "content": "The analysis shows the template is fine; the final step is to render it."}]}
```
"""

import bisect
from collections.abc import Iterator

from auditor.dialects import marked_turns, read, read_turns
from auditor.findings import Violation, excerpt
from auditor.model import Message
from auditor.replay import Replay


def screen(replay: Replay, options: None) -> bool:
    """Some answer holds a marker the dialect reader looks for, or a tool name a bracket."""
    return bool(marked_turns(replay)) or any(
        _bracketed(call.name) for t in replay.turns for call in t.message.tool_calls
    )


def check(replay: Replay, options: None) -> Iterator[Violation]:
    for message, reading in read_turns(replay):
        yield from _in_tool_names(message)
        if not reading.tokens:
            continue
        spans = [c.span for c in reading.calls]
        starts = [s for s, _ in spans]
        stray = [
            t for t in reading.tokens if not t.quoted and not _inside(t.span[0], spans, starts)
        ]
        if not stray:
            continue
        kinds = list(dict.fromkeys(t.text for t in stray))
        listed = ", ".join(f"`{k}`" for k in kinds[:4]) + (", …" if len(kinds) > 4 else "")
        count = f"{len(stray)} control tokens" if len(stray) > 1 else "a control token"
        if all(k.isalpha() for k in kinds):
            count = "gpt-oss channel words glued to the text"
        first = stray[0].span[0]
        yield Violation(
            f"answer text holds {count} outside code ({listed}): the chat template leaked "
            "into what the user sees",
            message.index,
            message.location,
            evidence=excerpt(message.text[max(0, first - 40) : first + 120]),
        )


def _in_tool_names(message: Message) -> Iterator[Violation]:
    """A structured call whose tool name carries template tokens (`search<|channel|>commentary`):
    the tool parser cut the name at the wrong place."""
    for call in message.tool_calls:
        if not _bracketed(call.name):
            continue
        tokens = [t.text for t in read(call.name).tokens]
        if tokens:
            listed = ", ".join(f"`{t}`" for t in dict.fromkeys(tokens))
            yield Violation(
                f"tool name `{call.name}` holds chat-template tokens ({listed}): the template "
                "leaked into the call, so no tool of that name can run",
                message.index,
                call.location or message.location,
                tool=call.name,
                call_id=call.id,
                evidence=excerpt(call.name),
            )


def _bracketed(name: str) -> bool:
    """Every template token starts with `<` or `[`."""
    return "<" in name or "[" in name


def _inside(pos: int, spans: list[tuple[int, int]], starts: list[int]) -> bool:
    """`pos` lies in one of the sorted, non-overlapping `spans`."""
    k = bisect.bisect_right(starts, pos) - 1
    return k >= 0 and pos < spans[k][1]
