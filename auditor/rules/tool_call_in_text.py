r"""A tool call written into the message text, in a known dialect, that nothing executed.

## What it does
Reads the text of every assistant turn that has no structured tool call and recovers calls
written as text: JSON objects (a name under `name`, `tool`, `action` or `function` with its
arguments under `arguments`, `parameters`, `params`, `args`, `input`, `tool_input` or
`action_input`; `{"function": {…}}`; the flat `{"tool": NAME, …}` and `{"action": NAME, …}`;
arrays of those, fenced JSON), Hermes/Qwen `<tool_call>`, Mistral
`[TOOL_CALLS]`, Llama `<function=NAME>` and `<|python_tag|>`, pythonic call lists
(`[get_x(a=1), get_y(b="z")]` as the whole answer, after Llama 4's `<|python_start|>` or a
`<function-call>` tag, or on lines of their own naming declared tools; after a tag also a list
Python cannot parse, such as an unfilled `amount=?`), Qwen3-Coder
`<function=NAME><parameter=…>` (also without its `<tool_call>` or with a mangled opening tag
such as `<name>task`), Kimi K2 `<|tool_call_begin|>
functions.NAME:0<|tool_call_argument_begin|>{…}` (also with a `call_0` id, or arguments cut
off), harmony `to=functions.NAME … <|call|>`, and a ReAct `Action:` with no `Observation:`
after it. Fires when nothing executed the call: the next message is not a tool
result (nor a message that starts with `Observation:`, `<tool_response>` or OpenHands'
`EXECUTION RESULT of [`), or the transcript ends on it. One finding per message: it shows the
first recovered call as `name(arguments)` and counts the others; malformed JSON is read with
json-repair to show what the model meant.

Also fires on actions a format reads from the text of a framework that runs them (SWE-agent's
text mode, mini-swe-agent's ```` ```bash ```` blocks, OpenHands' `<function=…>` text calls,
MedAgentBench's `GET`/`POST` requests) when the harness refused to run them: its reply rejects
the turn ("Please always provide EXACTLY ONE action in triple backticks, found 2 actions.",
SWE-agent's "Your proposed edit has introduced new syntax error(s) … Your changes have NOT been
applied", MedAgentBench's "Invalid POST request", or its run's status "agent invalid action"
after a request written under the wrong fence or a POST payload without its `POST url` line), so
none of them ran. The finding quotes the harness's reason, and is a warning, not an error: the
model was told and could write the call again, where a call dropped without a word is one nobody
will see. (This rule, not EX001, because the call exists only as text: EX001 reads structured
calls, and a structured call the harness refuses gets the refusal as its result, an error the
model is shown.)

## Why is this bad?
The parser expected a structured call and got text: it drops it silently, no tool runs, and
the agent either loops or tells the user the work is done. Structured-log tools never see it,
because it lives inside message text (a gpt-oss gateway that lets harmony scaffolding through,
a model that answers `[{"tool": "file_write", …}]`, a ReAct agent whose framework did not
parse the action).

## Example
```jsonl
{"id": "text-call", "tools": [{"type": "function", "function": {"name": "file_write", "parameters": {"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}}}}}], "messages": [{"role": "user", "content": "Create hello.py that prints hello."}, {"role": "assistant", "content": "[{\"tool\": \"file_write\", \"path\": \"hello.py\", \"content\": \"print('hello')\"}]"}, {"role": "user", "content": "Did you create it?"}, {"role": "assistant", "content": "Yes, hello.py has been created."}]}
```

## How to fix
Use structured tool calls: declare the tools in the request and read `tool_calls`. If the model
writes calls as text, run the parser of its dialect (vLLM's `--enable-auto-tool-choice` with
the `--tool-call-parser` for the model: `hermes`, `llama3_json`, `mistral`, and the harmony
parser for gpt-oss), with a chat template that declares the tools. A framework that cannot
parse a turn should tell the model what it expected (an error result), not take the text as the
final answer. Where the harness refused the call (a warning), its reason says what the prompt
should make clear: one action a reply, in the fence it asks for.

## Does not fire on
- a turn that also has structured calls (any origin: formats that execute text actions, such
  as SWE-agent's, turn them into calls with their results), unless the harness refused them;
- a call whose result follows: a tool message, or a next message that starts with
  `Observation:` (ReAct frameworks) or `<tool_response>`;
- a ReAct `Action:` whose `Observation:` the model wrote itself in the same message (FB001);
- where tools are declared, JSON that names none of them (an example, a data record); where
  none are declared, JSON without both a name and its arguments, unless it is a flat
  `{"action": "consultar_datos_cliente", "cliente_id": "C001"}` that stands alone (the whole
  answer or the whole of its JSON fence, not in an array), leads with its name key, names a
  function (`snake_case` or `camelCase`, not a word) and meets no sign that it is data or an
  answer format: the instructions quoting that key as JSON (`{"action": "final_answer", …}`
  asked for), structured calls elsewhere in the conversation (a coding agent's payload), or a
  user turn or tool result before it naming the same action (a record shown back); tool
  declarations quoted as JSON Schema, and anything in inline backticks or in a fence of another
  language;
- JSON the words before it in its paragraph present as an example or a format ("for example",
  "the request body looks like this:"): an assistant explaining an API; and Python that is not a
  list of calls by name with keyword arguments only (`[len(x), max(y)]`, a comprehension, a
  method call), or a call list inside a sentence;
- what a user pastes: only the assistant's turns are read;
- the last turn of a gateway snapshot (`exchange`) in a dialect a client may parse itself
  (JSON, ReAct, `<tool_call>`, `<function=…>`): only special-token dialects (harmony,
  `[TOOL_CALLS]`, `<|python_tag|>`, Kimi's sections) fire there;
- reasoning text: models plan calls there and users do not see it.
```jsonl
{"id": "react-executed", "tools": [{"type": "function", "function": {"name": "web_search", "parameters": {"type": "object", "properties": {"query": {"type": "string"}}}}}], "messages": [{"role": "user", "content": "How many people live in Oslo?"}, {"role": "assistant", "content": "Thought: I should look this up.\nAction: web_search\nAction Input: {\"query\": \"Oslo population\"}"}, {"role": "user", "content": "Observation: Oslo has 709,037 inhabitants."}, {"role": "assistant", "content": "Thought: I know it.\nFinal Answer: About 709,000."}]}
{"id": "json-example", "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}], "messages": [{"role": "user", "content": "What does a tool call look like?"}, {"role": "assistant", "content": "Like this: {\"name\": \"lookup\", \"arguments\": {\"q\": \"x\"}}"}]}
```
"""

from collections.abc import Iterator

from auditor.dialects import TextCall, marked_turns, read_turns
from auditor.findings import Severity, Violation, describe_call, excerpt
from auditor.model import Conversation, Message, ToolCall
from auditor.replay import Exchange, Replay

SEVERITY_CHANGES = "warning when the harness refused it"

# Special tokens a server strips from `content` when its parser works: even at the end of a
# snapshot, where a client could still parse the text itself, these mean the parser failed.
SPECIAL_TOKEN_DIALECTS = frozenset(("harmony", "mistral", "python-tag", "kimi"))
# How a framework hands back the result of an action it parsed from text.
RESULT_OPENINGS = ("Observation", "<tool_response>", "<|start|>functions.", "EXECUTION RESULT of [")


def screen(replay: Replay, options: None) -> bool:
    """A message without a structured call holds a marker the dialect reader looks for, or the
    harness refused an action written as text."""
    return any(not m.tool_calls for m in marked_turns(replay)) or any(
        map(_refused, replay.exchanges)
    )


def check(replay: Replay, options: None) -> Iterator[Violation]:
    yield from _refusals(replay)
    conversation = replay.conversation
    for message, reading in read_turns(replay):
        if message.tool_calls:
            continue
        calls = [c for c in reading.calls if not c.observed]
        if not calls:
            continue
        fate = _fate(conversation, message)
        if fate == _ENDS and not conversation.complete:
            calls = [c for c in calls if c.dialect in SPECIAL_TOKEN_DIALECTS]
        if fate is None or not calls:
            continue
        first = calls[0]
        yield Violation(
            _message(calls, fate),
            message.index,
            message.location,
            tool=first.name,
            evidence=describe_call(ToolCall(None, first.name, first.arguments, origin="text")),
        )


_ENDS = ("the transcript ends on", "")


def _refused(exchange: Exchange) -> bool:
    result = exchange.result
    return result is not None and result.ran is False and exchange.call.origin == "text"


def _refusals(replay: Replay) -> Iterator[Violation]:
    """One finding per message whose text actions the harness refused to run."""
    by_turn: dict[int, list[Exchange]] = {}
    for exchange in replay.exchanges:
        if _refused(exchange):
            by_turn.setdefault(exchange.turn, []).append(exchange)
    for turn, refused in by_turn.items():
        first = refused[0]
        what = f"`{first.call.name}` call"
        if len(refused) > 1:
            what += f" and {len(refused) - 1} more"
        them = "them" if len(refused) > 1 else "it"
        reason = excerpt(first.result.text.strip().split("\n", 1)[0], 160)  # type: ignore[union-attr]
        yield Violation(
            f"{what} written as text; the harness refused to run {them}: `{reason}`",
            turn,
            first.call.location or replay.conversation.messages[turn].location,
            tool=first.call.name,
            call_id=first.call.id,
            evidence=describe_call(first.call),
            severity=Severity.WARNING,  # the harness said so to the model: seen, not silent
        )


def _fate(conversation: Conversation, message: Message) -> tuple[str, str] | None:
    """What became of calls written in `message`: None when something executed them."""
    following = (m for m in conversation.messages[message.index + 1 :] if m.role != "approval")
    nxt = next(following, None)
    if nxt is None:
        return _ENDS
    if nxt.role == "tool" or nxt.result is not None:
        return None
    if nxt.role == "user" and nxt.text.lstrip().startswith(RESULT_OPENINGS):
        return None
    return "nothing executed", f" (the next turn is the {nxt.role}'s, not a tool result)"


def _message(calls: list[TextCall], fate: tuple[str, str]) -> str:
    first = calls[0]
    what = f"`{first.name}` call"
    others = list(dict.fromkeys(c.name for c in calls[1:]))
    if others:
        named = ", ".join(f"`{n}`" for n in others[:3]) + (", …" if len(others) > 3 else "")
        what += f" and {len(calls) - 1} more ({named})"
    verb, detail = fate
    text = f"{what} written as text in {first.form}; {verb} {'them' if others else 'it'}{detail}"
    if first.repaired:
        text += "; its JSON is malformed, the arguments shown are json-repair's reading"
    return text
