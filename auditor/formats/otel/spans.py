"""What one trace span says: a model call (messages in, messages out, tools) or a tool execution.

Spans carry messages in several attribute dialects, sometimes two in one span:
- OpenTelemetry GenAI 1.37+: `gen_ai.input.messages` / `gen_ai.output.messages` /
  `gen_ai.system_instructions` (JSON lists of `{role, parts}` with `tool_call` and
  `tool_call_response` parts), tools in `gen_ai.tool.definitions`;
- OpenLLMetry's indexed `gen_ai.prompt.N.*` / `gen_ai.completion.N.*` (tools in
  `llm.request.functions.N.*`), and the older JSON strings `gen_ai.prompt` / `gen_ai.completion`;
- OpenInference: `llm.input_messages.N.message.*` / `llm.output_messages.N.message.*`, tools in
  `llm.tools.N.tool.json_schema`, the raw request and answer in `input.value` / `output.value`;
- vendors: Google ADK `gcp.vertex.agent.llm_request` / `llm_response` (Gemini bodies) and
  `tool_call_args` / `tool_response`; any-agent `gen_ai.output` (+ `gen_ai.output.type`) and
  `gen_ai.tool.args`; Vercel AI SDK `ai.prompt.messages`, `ai.response.toolCalls`, `ai.toolCall.*`;
- exporters that keep the messages beside the attributes (Langfuse observations' `input` and
  `output`, LangSmith runs' `inputs` and `outputs`), read as message lists of any known shape.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from auditor.formats import anthropic, openai, responses
from auditor.formats._common import (
    MessageDraft,
    Problem,
    as_id,
    json_text,
    result_draft,
    text_of,
    tool_call,
    tool_specs,
    with_results,
)
from auditor.formats.exchange import gemini
from auditor.model import Location, ToolSpec

# `gen_ai.operation.name` of a model call and of a tool execution.
MODEL_OPERATIONS = frozenset(
    {"chat", "generate_content", "text_completion", "call_llm", "completion", "responses"}
)
TOOL_KINDS = frozenset({"TOOL", "tool"})
MODEL_KINDS = frozenset({"LLM", "GENERATION", "llm"})
ROLES = {"model": "assistant", "ai": "assistant", "human": "user", "developer": "system"}


@dataclass(slots=True)
class TraceSpan:
    """One span (or observation, or run), whatever container it came in."""

    trace: str
    id: str
    parent: str | None
    name: str
    start: int
    """Start time in nanoseconds since the epoch (0 when the span has none)."""
    attrs: dict[str, Any]
    location: Location
    error: str | None = None
    """Why the span failed ('' when it does not say); None when it did not fail."""
    kind: str = ""
    """The exporter's own type: Langfuse `GENERATION`/`TOOL`/…, LangSmith `llm`/`tool`/…"""
    io: tuple[Any, Any] | None = None
    """Input and output an exporter keeps outside the attributes (Langfuse, LangSmith)."""
    anonymous: bool = False
    """The trace id is made up (the span came without one): not the log's own."""


@dataclass(slots=True)
class ModelCall:
    """What a model-call span shows: the messages sent, the messages received, declared tools."""

    inputs: list[MessageDraft]
    outputs: list[MessageDraft]
    tools: tuple[ToolSpec, ...] = ()


@dataclass(slots=True)
class History:
    """An agent span's record of the whole run so far (pydantic-ai `all_messages`, an agent's
    input and output): read after the trace's model calls, it adds what they did not show."""

    messages: list[MessageDraft]


@dataclass(slots=True)
class Execution:
    """A tool span: the execution of one call."""

    call_id: str | None
    name: str
    arguments: Any
    result: str
    is_error: bool | None
    location: Location
    problems: list[Problem] = field(default_factory=list)


def operation(span: TraceSpan) -> str:
    op = span.attrs.get("gen_ai.operation.name")
    return op if isinstance(op, str) else ""


def is_tool(span: TraceSpan) -> bool:
    attrs = span.attrs
    return (
        operation(span) == "execute_tool"
        or attrs.get("openinference.span.kind") == "TOOL"
        or attrs.get("ai.operationId") == "ai.toolCall"
        or attrs.get("langsmith.span.kind") == "tool"
        or span.kind in TOOL_KINDS
    )


def model_call(span: TraceSpan, problems: list[Problem]) -> ModelCall | None:
    """The messages a model-call span holds, or None when it holds none."""
    if is_tool(span):
        return None
    attrs, here = span.attrs, span.location
    inputs: list[MessageDraft] | None = None
    outputs: list[MessageDraft] | None = None
    for read in _DIALECTS:
        got_in, got_out = read(attrs, here, problems)
        inputs = inputs or got_in
        outputs = outputs or got_out
    if span.io is not None and (not inputs or not outputs) and _is_model_io(span):
        given, answer = span.io
        inputs = inputs or messages(given, here, problems)
        outputs = outputs or messages(answer, here, problems, assistant=True)
    if not inputs and not outputs:
        return None
    return ModelCall(inputs or [], outputs or [], declared_tools(attrs, span.io))


def history(span: TraceSpan, problems: list[Problem]) -> History | None:
    """The run's messages an agent span keeps, or None."""
    attrs, here = span.attrs, span.location
    found = messages(attrs.get("pydantic_ai.all_messages"), here, problems)
    if not found and (operation(span) == "invoke_agent" or span.kind == "AGENT"):
        given, answer = span.io if span.io is not None else (None, None)
        found = messages(attrs.get("gen_ai.input.messages", given), here, problems)
        found += messages(attrs.get("gen_ai.output.messages", answer), here, problems, True)
    return History(found) if found else None


def _is_model_io(span: TraceSpan) -> bool:
    return span.kind in MODEL_KINDS or operation(span) in MODEL_OPERATIONS


def _genai(attrs: dict, here: Location, problems: list[Problem]) -> tuple[list, list]:
    inputs = messages(attrs.get("gen_ai.input.messages"), here, problems)
    system = _json(attrs.get("gen_ai.system_instructions"))
    if inputs and system and inputs[0].role != "system":
        inputs.insert(0, MessageDraft("system", here, [_parts_text(system)]))
    outputs = messages(attrs.get("gen_ai.output.messages"), here, problems, assistant=True)
    return inputs, outputs


def _legacy(attrs: dict, here: Location, problems: list[Problem]) -> tuple[list, list]:
    if "gen_ai.prompt.0.role" not in attrs and "gen_ai.completion.0.role" not in attrs:
        prompt, completion = attrs.get("gen_ai.prompt"), attrs.get("gen_ai.completion")
        if prompt is None and completion is None:
            return [], []
        return (
            messages(_json(prompt), here, problems),
            messages(_json(completion), here, problems, assistant=True),
        )
    inputs = [_flat_message(m, here, problems) for m in indexed(attrs, "gen_ai.prompt.")]
    outputs = [_flat_message(m, here, problems) for m in indexed(attrs, "gen_ai.completion.")]
    return [d for d in inputs if d], [d for d in outputs if d]


def _openinference(attrs: dict, here: Location, problems: list[Problem]) -> tuple[list, list]:
    if "openinference.span.kind" not in attrs and "llm.input_messages.0.message.role" not in attrs:
        return [], []
    inputs = [_oi_message(m, here, problems) for m in indexed(attrs, "llm.input_messages.")]
    outputs = [_oi_message(m, here, problems) for m in indexed(attrs, "llm.output_messages.")]
    got_in = [d for d in inputs if d]
    got_out = [d for d in outputs if d]
    if not got_out and attrs.get("openinference.span.kind") == "LLM":
        # some instrumentations (agno) keep the answer only as the raw response body
        got_out = messages(_json(attrs.get("output.value")), here, problems, assistant=True)
    return got_in, got_out


def _adk(attrs: dict, here: Location, problems: list[Problem]) -> tuple[list, list]:
    request = _json(attrs.get("gcp.vertex.agent.llm_request"))
    answer = _json(attrs.get("gcp.vertex.agent.llm_response"))
    inputs = gemini.request(request, here, problems) if isinstance(request, dict) else []
    outputs: list[MessageDraft] = []
    if isinstance(answer, dict) and isinstance(answer.get("content"), dict):
        outputs = gemini.content({"role": "model", **answer["content"]}, here, problems)
    return inputs, outputs


def _any_agent(attrs: dict, here: Location, problems: list[Problem]) -> tuple[list, list]:
    """any-agent: `gen_ai.output` is the answer text, or a JSON list of `{tool.name, tool.args}`."""
    output, kind = attrs.get("gen_ai.output"), attrs.get("gen_ai.output.type")
    if not isinstance(output, str) or kind not in ("json", "text"):
        return [], []
    parsed = _json(output) if kind == "json" else None
    if (
        isinstance(parsed, list)
        and parsed
        and all(isinstance(c, dict) and "tool.name" in c for c in parsed)
    ):
        calls = [tool_call(None, c.get("tool.name"), c.get("tool.args"), here) for c in parsed]
        return [], [MessageDraft("assistant", here, calls=calls)]
    return [], [MessageDraft("assistant", here, [output])]


def _vercel(attrs: dict, here: Location, problems: list[Problem]) -> tuple[list, list]:
    prompt = _json(attrs.get("ai.prompt.messages"))
    calls = _json(attrs.get("ai.response.toolCalls"))
    text = attrs.get("ai.response.text")
    inputs = messages(prompt, here, problems) if prompt else []
    outputs: list[MessageDraft] = []
    if calls or isinstance(text, str):
        draft = MessageDraft("assistant", here, [text] if isinstance(text, str) else [])
        if isinstance(calls, list):
            draft.calls = [_vercel_call(c, here) for c in calls if isinstance(c, dict)]
        outputs.append(draft)
    return inputs, outputs


_DIALECTS = (_genai, _openinference, _legacy, _adk, _any_agent, _vercel)


def execution(span: TraceSpan, problems: list[Problem]) -> Execution | None:
    """The execution a tool span records, or None when the span is not a tool's."""
    if not is_tool(span):
        return None
    attrs = span.attrs
    given, got = span.io if span.io is not None else (None, None)
    call_id = _first(attrs, "gen_ai.tool.call.id", "ai.toolCall.id", "tool_call.id")
    name = _first(attrs, "gen_ai.tool.name", "tool.name", "ai.toolCall.name") or _tool_name(span)
    arguments = _first_value(
        attrs,
        "gen_ai.tool.call.arguments",
        "gcp.vertex.agent.tool_call_args",
        "gen_ai.tool.args",
        "ai.toolCall.args",
        "tool_arguments",
        "input.value",
        "input",
    )
    if arguments is None:
        arguments = given
    result = _first_value(
        attrs,
        "gen_ai.tool.call.result",
        "gcp.vertex.agent.tool_response",
        "ai.toolCall.result",
        "tool_response",
        "gen_ai.output",
        "output.value",
        "output",
    )
    if result is None:
        result = got
    text, flagged = result_text(result)
    is_error: bool | None = flagged
    if span.error is not None or attrs.get("error.type"):
        is_error = True
        if not text:
            text = span.error or str(attrs.get("error.type"))
    arguments = _json(arguments) if isinstance(arguments, str) else arguments
    if (
        isinstance(arguments, dict)
        and len(arguments) == 1
        and isinstance(arguments.get("input"), dict)
    ):
        arguments = arguments["input"]  # LangSmith wraps a tool's arguments as its `input`
    return Execution(as_id(call_id), name, arguments, text, is_error, span.location)


def _tool_name(span: TraceSpan) -> str:
    name = span.name
    for prefix in ("execute_tool ", "running tool: ", "tool: "):
        if name.startswith(prefix):
            return name[len(prefix) :]
    return name


def result_text(value: Any) -> tuple[str, bool | None]:
    """A tool's result as text, and its error flag when the result carries one (MCP `isError`)."""
    parsed = _json(value) if isinstance(value, str) and value[:1] in ("{", "[", '"') else value
    if isinstance(parsed, str):
        return parsed, None  # a result serialised as a JSON string
    if isinstance(parsed, dict) and isinstance(parsed.get("content"), list):
        flag = parsed.get("isError", parsed.get("is_error"))
        text = text_of(parsed["content"]) or json_text(parsed.get("structuredContent", ""))
        return text, flag if isinstance(flag, bool) else None
    if value is None:
        return "", None
    return json_text(value), None


def messages(
    value: Any, here: Location, problems: list[Problem], assistant: bool = False
) -> list[MessageDraft]:
    """Messages in any shape a span or an exporter keeps them in; [] for anything else.

    GenAI `{role, parts}` lists, OpenAI or Anthropic messages (one, or a list, or a body with
    `messages`), Responses input lists and response bodies, Chat Completions responses, Vercel
    prompts and `[{toolCallId, toolName, input}]` answers. `assistant`: a bare answer's role.
    """
    value = _json(value) if isinstance(value, str) else value
    if isinstance(value, dict):
        if isinstance(value.get("messages"), list):
            return messages(value["messages"], here, problems)
        if isinstance(value.get("choices"), list) or isinstance(value.get("output"), list):
            return _response_body(value, here, problems)
        if "role" in value or (assistant and isinstance(value.get("content"), list)):
            return messages(
                [value if "role" in value else {"role": "assistant", **value}], here, problems
            )
        return []
    if not isinstance(value, list) or not value:
        return []
    if any(isinstance(v, dict) and v.get("type") in responses.ITEM_TYPES for v in value):
        items = responses.Items(problems)
        items.extend(value, here)
        items.close()
        return items.drafts
    out: list[MessageDraft] = []
    calls: list = []
    for item in value:
        if not isinstance(item, dict):
            continue
        if "toolCallId" in item and "role" not in item:
            calls.append(_vercel_call(item, here))
        elif isinstance(item.get("parts"), list):
            out.extend(_parts_message(item, here))
        elif isinstance(item.get("role"), str):
            out.extend(_role_message(item, here, problems))
    if calls:
        out.append(MessageDraft("assistant", here, calls=calls))
    return out


def _response_body(value: dict, here: Location, problems: list[Problem]) -> list[MessageDraft]:
    choices = value.get("choices")
    if isinstance(choices, list):
        first = choices[0] if choices and isinstance(choices[0], dict) else {}
        message = first.get("message")
        if isinstance(message, dict):
            return [
                MessageDraft.of(openai.message({**message, "role": "assistant"}, 0, here, problems))
            ]
        return []
    items = responses.Items(problems)
    items.extend(value["output"], here)
    items.close()
    return items.drafts


def _role_message(item: dict, here: Location, problems: list[Problem]) -> list[MessageDraft]:
    role = ROLES.get(item["role"], item["role"])
    content = item.get("content")
    if isinstance(content, list) and any(
        isinstance(p, dict) and p.get("type") in ("tool-call", "tool-result") for p in content
    ):
        return _vercel_message(role, content, here)
    item = {**item, "role": role} if role != item["role"] else item
    return anthropic.read_message(item, here, problems)


def _parts_message(item: dict, here: Location) -> list[MessageDraft]:
    """A GenAI semconv message: `{role, parts: [text | tool_call | tool_call_response | …]}`."""
    role = ROLES.get(str(item.get("role")), str(item.get("role")))
    main = MessageDraft(role, here)
    results: list[MessageDraft] = []
    for part in item["parts"]:
        if not isinstance(part, dict):
            continue
        kind = part.get("type")
        if kind == "text":
            main.texts.append(str(part.get("content", part.get("text", ""))))
        elif kind in ("reasoning", "thinking"):
            main.reasoning.append(str(part.get("content", "")))
        elif kind == "tool_call":
            main.calls.append(
                tool_call(part.get("id"), part.get("name"), part.get("arguments"), here)
            )
        elif kind == "tool_call_response":
            answer = part.get("response", part.get("result"))
            text, flag = result_text(answer)
            results.append(result_draft(part.get("id"), text, here, flag, part.get("name")))
    return with_results(main, results)


def _vercel_message(role: str, content: list, here: Location) -> list[MessageDraft]:
    main = MessageDraft(role, here)
    results: list[MessageDraft] = []
    for part in content:
        if not isinstance(part, dict):
            continue
        kind = part.get("type")
        if kind == "text":
            main.texts.append(str(part.get("text", "")))
        elif kind == "tool-call":
            main.calls.append(_vercel_call(part, here))
        elif kind == "tool-result":
            output = part.get("output", part.get("result"))
            if isinstance(output, dict) and "value" in output and "type" in output:
                is_error = str(output["type"]).startswith("error")
                output = output["value"]
            else:
                is_error = None
            text, flag = result_text(output)
            results.append(result_draft(part.get("toolCallId"), text, here, flag or is_error))
    return with_results(main, results)


def _vercel_call(item: dict, here: Location) -> Any:
    arguments = item.get("input", item.get("args"))
    return tool_call(item.get("toolCallId"), item.get("toolName"), arguments, here)


def _flat_message(item: Any, here: Location, problems: list[Problem]) -> MessageDraft | None:
    """An OpenLLMetry `gen_ai.prompt.N` / `gen_ai.completion.N` message, un-flattened."""
    if not isinstance(item, dict) or not isinstance(item.get("role"), str):
        return None
    message = {"role": ROLES.get(item["role"], item["role"]), "content": item.get("content")}
    if isinstance(item.get("tool_calls"), list):
        message["tool_calls"] = [c for c in item["tool_calls"] if isinstance(c, dict)]
    if "tool_call_id" in item:
        message["tool_call_id"] = item["tool_call_id"]
    return MessageDraft.of(openai.message(message, 0, here, problems))


def _oi_message(item: Any, here: Location, problems: list[Problem]) -> MessageDraft | None:
    """An OpenInference `llm.*_messages.N.message.*` message, un-flattened."""
    if not isinstance(item, dict) or not isinstance(item.get("message"), dict):
        return None
    flat = item["message"]
    if not isinstance(flat.get("role"), str):
        return None
    content = flat.get("content")
    if content is None and isinstance(flat.get("contents"), list):
        content = "\n".join(
            str(c["message_content"].get("text", ""))
            for c in flat["contents"]
            if isinstance(c, dict) and isinstance(c.get("message_content"), dict)
        )
    message: dict[str, Any] = {"role": ROLES.get(flat["role"], flat["role"]), "content": content}
    calls = [
        c["tool_call"]
        for c in flat.get("tool_calls") or ()
        if isinstance(c, dict) and isinstance(c.get("tool_call"), dict)
    ]
    if calls:
        message["tool_calls"] = calls
    for key in ("tool_call_id", "name"):
        if key in flat:
            message[key] = flat[key]
    return MessageDraft.of(openai.message(message, 0, here, problems))


def declared_tools(attrs: dict, io: tuple[Any, Any] | None = None) -> tuple[ToolSpec, ...]:
    """The tools a model-call span declares, in any of the dialects."""
    found: list[Any] = []
    definitions = _json(attrs.get("gen_ai.tool.definitions"))
    if isinstance(definitions, list):
        found += definitions
    for entry in indexed(attrs, "llm.request.functions."):
        if isinstance(entry, dict):
            found.append({**entry, "parameters": _json(entry.get("parameters"))})
    for entry in indexed(attrs, "llm.tools."):
        tool = entry.get("tool") if isinstance(entry, dict) else None
        if isinstance(tool, dict):
            found.append(_json(tool.get("json_schema")))
    for entry in _json(attrs.get("ai.prompt.tools")) or ():
        found.append(_json(entry))
    request = _json(attrs.get("gcp.vertex.agent.llm_request"))
    specs = list(tool_specs([f for f in found if isinstance(f, dict)]) or ())
    if isinstance(request, dict):
        specs += gemini.declared_tools(request) or ()
    if io is not None and isinstance(_json(io[0]), dict):
        specs += tool_specs(_json(io[0]).get("tools")) or ()
    return tuple(specs)


def indexed(attrs: dict, prefix: str) -> list[Any]:
    """Flattened attributes `prefix.N.a.M.b` as a list (by N) of nested dicts and lists."""
    tree: dict = {}
    size = len(prefix)
    for key, value in attrs.items():
        if not key.startswith(prefix):
            continue
        *path, last = key[size:].split(".")
        node = tree
        for token in path:
            step = int(token) if token.isdigit() else token
            child = node.get(step)
            if not isinstance(child, dict):
                child = node[step] = {}
            node = child
        node[int(last) if last.isdigit() else last] = value
    listed = _listed(tree)
    return listed if isinstance(listed, list) else []


def _listed(node: Any) -> Any:
    if not isinstance(node, dict):
        return node
    if node and all(isinstance(k, int) for k in node):
        return [_listed(node[k]) for k in sorted(node)]
    return {k: _listed(v) for k, v in node.items()}


def _json(value: Any) -> Any:
    """A JSON string parsed; anything else as it is; None for text that is not JSON."""
    if not isinstance(value, str):
        return value
    if value[:1] not in ("{", "[", '"'):
        return None
    try:
        return orjson.loads(value)
    except orjson.JSONDecodeError:
        return None


def _parts_text(value: Any) -> str:
    if isinstance(value, list):
        return "\n".join(
            str(p.get("content", p.get("text", ""))) if isinstance(p, dict) else str(p)
            for p in value
        )
    return text_of(value)


def _first(attrs: dict, *keys: str) -> str:
    for key in keys:
        value = attrs.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def _first_value(attrs: dict, *keys: str) -> Any:
    for key in keys:
        value = attrs.get(key)
        if value is not None:
            return value
    return None
