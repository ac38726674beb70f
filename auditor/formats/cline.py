"""Cline task UI messages (`ui_messages.json`): `[{ts, type: say|ask, say|ask, text, …}]`.

The list is what the VS Code panel shows, in order. `say:task` and `say:user_feedback` are the
user's turns. Each `say:api_req_started` starts a model turn: the `say:reasoning`, `say:text`,
`say:tool`, `say:command` / `ask:command` and `say:completion_result` entries after it are that
turn (reasoning, text, calls, final answer). A `say:tool` entry's text is JSON `{tool, path,
content}`: `readFile`, `editedExistingFile`, `newFileCreated`, `searchFiles`, … become calls of
`read_file`, `replace_in_file`, `write_to_file`, `search_files`, … (Cline's own tool names,
snake_case), arguments `{path, content}` (for edits the SEARCH/REPLACE diff); a command is an
`execute_command` call. Ids are `ui-<index>`.

Results are not separate entries: the next `api_req_started` carries the request Cline sent,
whose text opens with one `[<tool> for '<argument>'] Result:` section per call of the turn
before, in order; each call is answered by the next section of its tool. A result saying "The
tool execution failed" or holding an `<error>`, or "The user denied this operation", is an
error. A call the file holds no later request for (the task's last turn) is answered by the
command output Cline showed (`ask:command_output`), or else by a result whose outcome is not
recorded. Checkpoints, progress checklists, retries and resume prompts are not turns.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator

import orjson

from auditor.common.patterns import lazy
from auditor.formats import contract
from auditor.formats._common import (
    MessageDraft,
    Problem,
    conversation,
    freeze,
    line_matches,
    positioned,
    result_draft,
    unrecorded_draft,
)
from auditor.model import Conversation, Location, ToolCall
from auditor.sources import Record

NAME = "cline"
KIND = contract.JSON
DETECT_KEYS: frozenset[str] = frozenset()
sniff = contract.no_sniff
Collector = None
inferred = contract.no_inference
"""`detect` is false for any JSON object: the files are lists (`formats.FileReader`)."""
_SUBTYPES = frozenset(("task", "api_req_started", "text", "tool", "command", "completion_result"))
_TOOLS = {
    "readFile": "read_file",
    "editedExistingFile": "replace_in_file",
    "newFileCreated": "write_to_file",
    "searchFiles": "search_files",
    "listFilesTopLevel": "list_files",
    "listFilesRecursive": "list_files",
    "listCodeDefinitionNames": "list_code_definition_names",
    "webFetch": "web_fetch",
}
# Tools whose `content` in the panel is what they returned (a path read, search hits), not an
# argument: it is left out of the call's arguments.
_SHOWN_OUTPUT = frozenset(
    (
        "readFile",
        "searchFiles",
        "listFilesTopLevel",
        "listFilesRecursive",
        "listCodeDefinitionNames",
        "webFetch",
    )
)
_READ = frozenset(
    (
        "task",
        "user_feedback",
        "api_req_started",
        "text",
        "completion_result",
        "followup",
        "reasoning",
        "tool",
        "command",
        "command_output",
    )
)
"""The entries that make the conversation; the others are the panel's."""
_SECTION = lazy(r"\[(\w+)(?: for '(?:[^\n]*)')?\] Result:\n")
"""A tool's result section where it starts a line (`line_matches`)."""
_END = "\n<environment_details>"
_FAILED = lazy(r"The tool execution failed|<error>|The user denied this operation")
_CAMEL = lazy(r"(?<!^)(?=[A-Z])")


def detect(record: Record) -> bool:
    value = record.value
    if not isinstance(value, list) or not value:
        return False
    first = value[0]
    return (
        isinstance(first, dict)
        and "ts" in first
        and first.get("type") in ("say", "ask")
        and (first.get("say") in _SUBTYPES or first.get("ask") is not None)
    )


def parse(record: Record) -> Iterator[Conversation | Problem]:
    task = _Task(record.location)
    for i, entry in enumerate(record.value):
        if isinstance(entry, dict):
            task.entry(entry, i)
    messages = positioned(freeze(task.close()), record.location, ("",))
    yield from conversation(NAME, {}, record.location, messages, task.problems)


class _Task:
    """The conversation as the entries arrive."""

    def __init__(self, location: Location) -> None:
        self.location = location
        self.drafts: list[MessageDraft] = []
        self.problems: list[Problem] = []
        self.turn: MessageDraft | None = None
        self.pending: list[ToolCall] = []
        self.output: dict[str, list[str]] = {}
        """Command output shown in the panel, per call id."""

    def entry(self, entry: dict, index: int) -> None:
        kind = entry.get("say") if entry.get("type") == "say" else entry.get("ask")
        if not isinstance(kind, str) or kind not in _READ:
            return  # the panel's bookkeeping (`api_req_finished`, checkpoints, …)
        raw = entry.get("text")
        text = raw if isinstance(raw, str) else ""
        if kind == "api_req_started":
            if self.pending:  # the request is parsed only when it answers calls
                self._answer(_request(text), self.location.child(index))
            self.turn = None
            return
        here = self.location.child(index)
        if kind in ("task", "user_feedback"):
            self.turn = None
            self.drafts.append(MessageDraft("user", here, [text]))
        elif kind in ("text", "completion_result", "followup"):
            turn = self._turn(here)
            if not turn.texts or turn.texts[-1] != text:  # a streamed message shown twice
                turn.texts.append(text)
        elif kind == "reasoning":
            self._turn(here).reasoning.append(text)
        elif kind == "tool":
            self._call(_tool(text), here, index)
        elif kind == "command":
            self._call(("execute_command", {"command": text.removesuffix("REQ_APP")}), here, index)
        elif kind == "command_output" and self.pending:
            self.output.setdefault(self.pending[-1].id or "", []).append(text)

    def _turn(self, here: Location) -> MessageDraft:
        if self.turn is None:
            self.turn = MessageDraft("assistant", here)
            self.drafts.append(self.turn)
        return self.turn

    def _call(self, tool: tuple[str, dict] | None, here: Location, index: int) -> None:
        if tool is None:
            self.problems.append(Problem(here.child("text"), "tool entry whose text is not a tool"))
            return
        name, arguments = tool
        call = ToolCall(f"ui-{index}", name, arguments, location=here)
        self._turn(here).calls.append(call)
        self.pending.append(call)

    def _answer(self, request: str, here: Location) -> None:
        """Answer the calls waiting for results from the sections of the next request."""
        found_sections = list(line_matches(_SECTION, request))
        starts = [m.end() for m in found_sections]
        ends = [*(m.start() for m in found_sections[1:]), len(request)]
        by_tool: dict[str, list[int]] = {}  # a tool's sections, in order: each looked up once
        for k, m in enumerate(found_sections):
            by_tool.setdefault(m.group(1), []).append(k)
        used = 0
        for call in self.pending:
            own = by_tool.get(call.name, ())
            at = bisect.bisect_left(own, used)
            if at == len(own):
                self.drafts.append(self._unanswered(call, here))
                continue
            found = own[at]
            body = request[starts[found] : ends[found]]
            body = body.split(_END, 1)[0].strip()
            failed = _FAILED.search(body, 0, 400) is not None
            self.drafts.append(result_draft(call.id, body, here.child("text"), failed, call.name))
            used = found + 1
        self.pending = []

    def _unanswered(self, call: ToolCall, here: Location) -> MessageDraft:
        shown = self.output.get(call.id or "")
        if shown:
            return result_draft(call.id, "".join(shown).strip(), here, None, call.name)
        return unrecorded_draft(call.id, here, call.name)

    def close(self) -> list[MessageDraft]:
        """The drafts, the last turn's calls answered by what the panel showed of them."""
        for call in self.pending:
            self.drafts.append(self._unanswered(call, self.location))
        self.pending = []
        return self.drafts


def _request(text: str) -> str:
    """The request text an `api_req_started` entry carries."""
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return ""
    request = value.get("request") if isinstance(value, dict) else None
    return request if isinstance(request, str) else ""


def _tool(text: str) -> tuple[str, dict] | None:
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("tool"), str):
        return None
    name = value.pop("tool")
    value.pop("operationIsLocatedInWorkspace", None)
    if name in _SHOWN_OUTPUT:
        value.pop("content", None)
    return _TOOLS.get(name) or _CAMEL.sub("_", name).lower(), value
