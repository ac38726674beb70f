"""OpenAI Responses API logs: `{input, output?, instructions?, tools?}` or a bare list of items.

Items are typed: `message` (or a bare `{role, content}`), `reasoning`, `function_call` and
`function_call_output` linked by `call_id`, `custom_tool_call` (free-form `input`, kept as
`{"input": …}`) and its output, other client-run `*_call`/`*_call_output` pairs, hosted tools
the API ran itself (`web_search_call`, `file_search_call`, `code_interpreter_call`,
`image_generation_call`: a call with its result right after it), `mcp_call` (a call with its
output or error, linked to its approval by `approval_request_id`), `mcp_approval_request` and
`mcp_approval_response` (approval events), and `mcp_list_tools` (declared tools).

The assistant's items up to the next input item (a call output, a user message) are one turn,
as one response of the API produced them. A record with an `output` list is one API call: a
trailing call there waits for the next request, so the conversation is marked incomplete.
The `exchange` and `stream` formats reuse `Items` for bodies and Codex rollouts.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from auditor.formats import contract
from auditor.formats._common import (
    MessageDraft,
    Problem,
    as_id,
    conversation,
    excerpt_json,
    freeze,
    result_draft,
    text_of,
    tool_call,
    tool_specs,
    type_of,
)
from auditor.model import (
    ApprovalDecision,
    ApprovalRequest,
    Conversation,
    Location,
    ToolCall,
    ToolSpec,
)
from auditor.sources import Record

NAME = "responses"
KIND = contract.JSON
DETECT_KEYS = None
sniff = contract.no_sniff
Collector = None
inferred = contract.no_inference

# Tools the API runs itself: their result is part of the same item.
HOSTED_CALLS = frozenset(
    {"web_search_call", "file_search_call", "code_interpreter_call", "image_generation_call"}
)
# Items that are not part of the conversation the rules read.
IGNORED = frozenset({"item_reference", "compaction", "ghost_snapshot"})
ITEM_TYPES = (
    HOSTED_CALLS
    | IGNORED
    | {
        "message",
        "reasoning",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "mcp_call",
        "mcp_list_tools",
        "mcp_approval_request",
        "mcp_approval_response",
        "computer_call",
        "computer_call_output",
        "local_shell_call",
        "local_shell_call_output",
    }
)
# Names of the tools hosted tool declarations stand for (`web_search_preview` -> `web_search`).
HOSTED_TOOLS = (
    "web_search",
    "file_search",
    "code_interpreter",
    "image_generation",
    "computer",
    "local_shell",
)


def detect(record: Record) -> bool:
    value = record.value
    if isinstance(value, dict):
        for key in ("output", "input"):
            items = value.get(key)
            if isinstance(items, list) and items and is_item(items[0]):
                return True
        return False
    # a bare list: OpenAI messages are `{role, content}` too, so a typed item must say so
    return isinstance(value, list) and any(is_item(v, strict=True) for v in value)


def is_item(value: Any, strict: bool = False) -> bool:
    """A Responses item: a known `type`, or (unless strict) a bare `{role, content}` message."""
    if not isinstance(value, dict):
        return False
    kind = type_of(value)
    if kind in ITEM_TYPES:
        return True
    return not strict and kind is None and isinstance(value.get("role"), str)


def parse(record: Record) -> Iterator[Conversation | Problem]:
    value, location = record.value, record.location
    problems: list[Problem] = []
    items = Items(problems)
    if isinstance(value, list):
        items.extend(value, location)
        tools, complete = None, True
    else:
        read_input(value, location, items)
        output = value.get("output")
        if isinstance(output, list):
            items.extend(output, location.child("output"))
        tools = declared_tools(value.get("tools"), items.listed)
        complete = not isinstance(output, list)
    items.close()
    yield from conversation(
        NAME, value, location, freeze(items.drafts), problems, tools=tools, complete=complete
    )


def read_input(body: dict, location: Location, items: Items) -> None:
    """A request body's `instructions` and `input` (a string or a list of items)."""
    instructions = body.get("instructions")
    if isinstance(instructions, str) and instructions:
        items.drafts.append(MessageDraft("system", location.child("instructions"), [instructions]))
    given = body.get("input")
    if isinstance(given, str):
        items.drafts.append(MessageDraft("user", location.child("input"), [given]))
    elif isinstance(given, list):
        items.extend(given, location.child("input"))


def declared_tools(declared: Any, listed: list[ToolSpec]) -> tuple[ToolSpec, ...] | None:
    """Function tools, hosted tools by the name their calls get, and MCP tools when listed.

    None when an MCP server is declared whose tools the log never lists: which names its
    calls may use is then unknown.
    """
    specs = list(tool_specs(declared) or ())
    unknown = False
    for tool in declared if isinstance(declared, list) else ():
        if not isinstance(tool, dict) or isinstance(tool.get("name"), str):
            continue
        kind = type_of(tool) or ""
        if kind == "mcp":
            allowed = tool.get("allowed_tools")
            if isinstance(allowed, dict):
                allowed = allowed.get("tool_names")
            if isinstance(allowed, list) and allowed:
                specs.extend(ToolSpec(n) for n in allowed if isinstance(n, str))
            else:
                unknown = True
            continue
        hosted = next((h for h in HOSTED_TOOLS if kind.startswith(h)), None)
        if hosted is not None:
            specs.append(ToolSpec(hosted))
    if unknown and not listed:
        return None
    specs.extend(listed)
    return tuple(specs) if specs else None


class Items:
    """Reads typed items in order into drafts; an assistant's consecutive items form one turn."""

    def __init__(self, problems: list[Problem]) -> None:
        self.drafts: list[MessageDraft] = []
        self.listed: list[ToolSpec] = []
        """Tools an `mcp_list_tools` item lists."""
        self.problems = problems
        self._turn: MessageDraft | None = None
        self._spoke = False
        self._hosted: list[MessageDraft] = []

    @property
    def open(self) -> bool:
        """An assistant turn has begun and not ended yet."""
        return self._turn is not None

    def extend(self, items: list, location: Location) -> None:
        for i, item in enumerate(items):
            self.add(item, location.child(i))

    def close(self) -> None:
        """End the assistant's turn: it goes in, followed by the results of hosted tools."""
        turn = self._turn
        if turn is not None and (self._spoke or turn.calls or turn.text or any(turn.reasoning)):
            self.drafts.append(turn)
        self.drafts.extend(self._hosted)
        self._turn, self._spoke, self._hosted = None, False, []

    def _assistant(self, here: Location) -> MessageDraft:
        if self._turn is None:
            self._turn = MessageDraft("assistant", here)
        return self._turn

    def add(self, item: Any, here: Location) -> None:
        if not isinstance(item, dict):
            self.problems.append(
                Problem(here, "expected a Responses item object", evidence=excerpt_json(item))
            )
            return
        kind = type_of(item)
        if kind is None and isinstance(item.get("role"), str):
            kind = "message"
        if kind == "message":
            self._message(item, here)
        elif kind == "reasoning":
            turn = self._assistant(here)
            turn.reasoning.extend(_texts(item.get("summary")))
            turn.reasoning.extend(_texts(item.get("content")))
        elif kind == "function_call":
            self._call(item, here, item.get("arguments"))
        elif kind == "custom_tool_call":
            self._call(item, here, {"input": item.get("input")})
        elif kind == "mcp_call":
            self._mcp_call(item, here)
        elif kind in HOSTED_CALLS:
            self._hosted_call(item, kind, here)
        elif kind in ("mcp_approval_request", "mcp_approval_response"):
            self._approval(item, kind, here)
        elif kind == "mcp_list_tools":
            self.listed.extend(tool_specs(item.get("tools")) or ())
        elif isinstance(kind, str) and kind.endswith("_call_output"):
            self.close()
            self.drafts.append(
                result_draft(item.get("call_id", item.get("id")), text_of(item.get("output")), here)
            )
        elif isinstance(kind, str) and kind.endswith("_call"):
            arguments = item.get("arguments", item.get("action", item.get("input")))
            self._call(item, here, arguments, item.get("name") or kind.removesuffix("_call"))
        elif kind not in IGNORED:
            self.problems.append(
                Problem(
                    here,
                    f"Responses item of unknown type {excerpt_json(kind)}",
                    evidence=excerpt_json(item),
                )
            )

    def _message(self, item: dict, here: Location) -> None:
        role = item.get("role")
        text = text_of(item.get("content"))
        if role == "assistant":
            self._assistant(here).texts.append(text)
            self._spoke = True
            return
        self.close()
        self.drafts.append(MessageDraft(role if isinstance(role, str) else "user", here, [text]))

    def _call(self, item: dict, here: Location, arguments: Any, name: Any = None) -> ToolCall:
        name = item.get("name") if name is None else name
        if not isinstance(name, str) or not name:
            self.problems.append(
                Problem(here, "tool call item has no `name`", evidence=excerpt_json(item))
            )
        call = tool_call(item.get("call_id") or item.get("id"), name, arguments, here)
        approval = as_id(item.get("approval_request_id"))
        if approval is not None:  # an `mcp_call` the API ran once the request was approved
            call = replace(call, approval_request_id=approval)
        self._assistant(here).calls.append(call)
        return call

    def _mcp_call(self, item: dict, here: Location) -> None:
        call = self._call(item, here, item.get("arguments"))
        error = item.get("error")
        failed = bool(error) or item.get("status") == "failed"
        text = (text_of(error) or excerpt_json(error)) if error else text_of(item.get("output"))
        self._hosted.append(result_draft(call.id, text, here, failed, call.name))

    def _hosted_call(self, item: dict, kind: str, here: Location) -> None:
        call_id = as_id(item.get("id")) or f"{kind}@{here.line or here.pointer}"
        arguments = {
            k: item[k] for k in ("action", "query", "queries", "code", "prompt") if k in item
        }
        name = kind.removesuffix("_call")
        call = tool_call(call_id, name, arguments, here)
        self._assistant(here).calls.append(call)
        status = item.get("status")
        text = text_of(item.get("results") or item.get("outputs") or item.get("result"))
        self._hosted.append(
            result_draft(call_id, text or str(status or ""), here, status == "failed", name)
        )

    def _approval(self, item: dict, kind: str, here: Location) -> None:
        self.close()
        draft = MessageDraft("approval", here)
        if kind == "mcp_approval_request":
            request_id = as_id(item.get("id"))
            name = item.get("name")
            draft.approval_request = ApprovalRequest(
                request_id or "",
                None,
                name if isinstance(name, str) else "",
                item.get("arguments"),
            )
        else:
            if not isinstance(item.get("approve"), bool):
                self.problems.append(
                    Problem(
                        here,
                        "approval response has no boolean `approve`",
                        evidence=excerpt_json(item),
                    )
                )
            reason = item.get("reason")
            draft.approval_decision = ApprovalDecision(
                as_id(item.get("approval_request_id")) or "",
                item.get("approve") is True,
                reason=reason if isinstance(reason, str) else "",
            )
        self.drafts.append(draft)


def _texts(parts: Any) -> Iterator[str]:
    """The texts of reasoning parts (`summary_text`, `reasoning_text`)."""
    for part in parts if isinstance(parts, list) else ():
        text = part.get("text") if isinstance(part, dict) else None
        if isinstance(text, str):
            yield text
