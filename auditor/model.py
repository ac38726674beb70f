"""The one model every log format is normalised into.

Formats build these objects; replay and rules read them; nothing else in the pipeline sees a
format's raw JSON. Nothing changes an object once it is built: a rule cannot change what
another rule sees (`tests/test_model.py` runs every rule and compares). The objects built per
message (Location, ToolCall, ToolResult, Message, the approval events) are plain slotted
dataclasses rather than frozen ones, hashed and compared as frozen ones are: a log holds millions
of them, and a frozen dataclass costs five times as much to build (1.2 µs against 0.2 µs for
ten fields), as much as the rest of reading a message.
"""

from __future__ import annotations

from typing import Any, Literal

from auditor.canonical import TOO_DEEP, depth_exceeds
from auditor.common.structs import dataclass

Origin = Literal["structured", "text"]


def escape_pointer_token(token: str | int) -> str:
    """One reference token of a JSON pointer (RFC 6901: `~` -> `~0`, `/` -> `~1`)."""
    return str(token).replace("~", "~0").replace("/", "~1")


@dataclass(slots=True, unsafe_hash=True)
class Location:
    """Where something sits in the input."""

    path: str
    """The file as the user named it (or `-` for stdin)."""
    line: int | None = None
    """1-based line: the record's line in JSONL, resolved from the pointer in documents."""
    pointer: str = ""
    """JSON pointer (RFC 6901) inside the record; empty for the whole record."""

    def child(self, *tokens: str | int) -> Location:
        """The location of a value below this one."""
        pointer = self.pointer
        for token in tokens:  # hot: every message and call of every log passes here
            if type(token) is int:
                pointer = f"{pointer}/{token}"
            elif "~" in token or "/" in token:  # type: ignore[operator]
                pointer = f"{pointer}/{escape_pointer_token(token)}"
            else:
                pointer = f"{pointer}/{token}"
        return Location(self.path, self.line, pointer)


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A tool the transcript declares."""

    name: str
    description: str = ""
    parameters: Any = None
    """The declared JSON Schema of the arguments, as given; None when there is none."""


@dataclass(slots=True, unsafe_hash=True)
class ToolCall:
    """A request to run a tool."""

    id: str | None
    """The call id that links the result to it; None when the format has none."""
    name: str
    arguments: Any
    """The parsed arguments (normally a dict); None when `raw_arguments` did not parse."""
    raw_arguments: str | None = None
    """The arguments as logged when they came as a JSON string; None when they came parsed."""
    arguments_error: str | None = None
    """Why `raw_arguments` is not valid JSON; None when it is."""
    origin: Origin = "structured"
    """`structured`: a call field of the log; `text`: recovered from message text by the format."""
    location: Location | None = None
    """Where the call itself is, when more precise than its message."""
    approval_request_id: str | None = None
    """The approval request this call executes, when the log links them (Responses `mcp_call`)."""


@dataclass(slots=True, unsafe_hash=True)
class ToolResult:
    """What a tool returned."""

    call_id: str | None
    """The id of the call it answers; None when the format pairs results by position."""
    text: str
    is_error: bool | None = None
    """True or False when the log says; None when it does not."""
    name: str | None = None
    """The tool's name when the log repeats it beside the result."""
    ran: bool | None = None
    """False when the harness refused to run the call (a format error, an edit its linter
    rejected): the text is its reason, and `is_error` is True. None when the log does not say."""
    unrecorded: bool = False
    """True when the log keeps the call but not what came of it (a browser agent that records
    only its actions, a harness that logs the command and not its output): the call was made,
    its outcome is unknown. `text` says so (`UNRECORDED`) and `is_error` is None, so two such
    results compare equal and a repeated action stays visible to the loop rules."""


UNRECORDED = "(outcome not recorded: the log keeps this action, not what it returned)"
"""The text of a result whose outcome the log does not keep (`ToolResult.unrecorded`)."""


@dataclass(slots=True, unsafe_hash=True)
class ApprovalRequest:
    """The agent (or its runtime) asks a person to approve a call before it runs.

    Formats put it on a Message of role `approval` (an event, not a turn: it does not count as
    the assistant speaking again, so calls waiting for results stay waiting).
    """

    id: str
    call_id: str | None
    """The call it is for when the log says; None when the call comes after the approval."""
    name: str
    arguments: Any
    """As logged: a JSON string stays text (replay parses it; CF002 compares the texts)."""


@dataclass(slots=True, unsafe_hash=True)
class ApprovalDecision:
    """A person's answer to an approval request.

    On a Message of role `approval`, or on the `tool` message that carries a rejection as the
    call's result (Claude Code: "The user doesn't want to proceed with this tool use").
    """

    request_id: str
    """The ApprovalRequest's id, or the call's id when the log has no separate request."""
    approved: bool
    arguments: Any = None
    """Arguments the person edited before approving, as logged; None when they approved as asked."""
    reason: str = ""


@dataclass(slots=True, unsafe_hash=True)
class Message:
    """One turn of a conversation."""

    index: int
    """Position in `Conversation.messages`; findings call it the turn."""
    role: str
    """`system`, `user`, `assistant`, `tool`, or `approval` for approval events; other roles
    are kept as logged."""
    text: str
    location: Location
    tool_calls: tuple[ToolCall, ...] = ()
    result: ToolResult | None = None
    """Set on `tool` messages: one result per message."""
    name: str | None = None
    """The author's name where the log has several agents."""
    reasoning: str = ""
    """Reasoning or thinking text the model produced besides its answer."""
    approval_request: ApprovalRequest | None = None
    approval_decision: ApprovalDecision | None = None
    position: int | None = None
    """The place a person counts in the file, where the log's own list is not `messages`: the
    index in the file's list of messages, steps or events (`messages[12]` of a trajectory whose
    reader adds or splits messages, `action_history[9]`, `history[4]`) or of a text log's
    entries. None when it is `index`. Findings report it as their turn (`turn_of`)."""


def turn_of(message: Message) -> int:
    """The turn a finding on `message` reports: its place in the file (`Message.position`)."""
    return message.index if message.position is None else message.position


@dataclass(frozen=True, slots=True)
class Conversation:
    """One agent run, in the order its messages happened."""

    id: str
    """The log's own id when it has one, otherwise `path:line` or `path#index`."""
    format: str
    location: Location
    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...] | None = None
    """The declared tools; None when the log declares none (rules that need them skip it)."""
    own_id: bool = False
    """True when `id` comes from the log itself, so it survives edits to the file around it."""
    complete: bool = True
    """False for snapshots (a gateway exchange) where a trailing pending call is normal."""
    instructions: str = ""
    """What the agent was told that the log keeps beside its messages, not as a system message
    (tau2's domain policy); empty when the messages hold it."""
    unread: str = ""
    """Why the log could be read only in part (a reading by shape that met a part it cannot
    read): the conversation is counted and named, and no rule runs on it. Empty when read whole."""


class ModelError(TypeError):
    """A format built a model object whose fields do not have the promised types."""


def validate(conversation: Conversation) -> None:
    """Check the types every later stage relies on; raise ModelError at the first wrong one.

    The record boundary (`auditor.engine`) runs this on every conversation a format yields,
    so that replay and rules can never meet a list where the model promises a string: a
    malformed log whose reader let such a value through costs that conversation (an IN002
    naming it), never the run. Cheap: a few type tests per message.
    """
    if type(conversation.id) is not str or type(conversation.messages) is not tuple:
        raise ModelError("conversation id or messages of the wrong type")
    if type(conversation.instructions) is not str or type(conversation.unread) is not str:
        raise ModelError("conversation instructions or unread reason are not a string")
    for message in conversation.messages:  # hot: the tests are inlined, not called
        if type(message) is not Message:
            raise ModelError(f"message of type {type(message).__name__}")
        if type(message.role) is not str or type(message.text) is not str:
            raise ModelError(f"message {message.index}: role or text is not a string")
        name, position = message.name, message.position
        if type(message.reasoning) is not str or (name is not None and type(name) is not str):
            raise ModelError(f"message {message.index}: reasoning or name of the wrong type")
        if position is not None and type(position) is not int:
            raise ModelError(f"message {message.index}: a position that is not an integer")
        for call in message.tool_calls:
            if type(call.name) is not str or not (call.id is None or type(call.id) is str):
                raise ModelError(f"message {message.index}: a call's name or id is not a string")
        result = message.result
        if result is not None and (
            type(result.text) is not str
            or not _optional_str(result.call_id)
            or (result.is_error is not None and type(result.is_error) is not bool)
            or type(result.unrecorded) is not bool
            or (result.ran is not None and type(result.ran) is not bool)
        ):
            raise ModelError(f"message {message.index}: a result of the wrong type")
        request, decision = message.approval_request, message.approval_decision
        if request is None and decision is None:
            continue  # most messages
        if request is not None and (type(request.id) is not str or type(request.name) is not str):
            raise ModelError(f"message {message.index}: an approval request of the wrong type")
        if decision is not None and (
            type(decision.request_id) is not str or type(decision.approved) is not bool
        ):
            raise ModelError(f"message {message.index}: an approval decision of the wrong type")
        for approved in (request, decision):
            if approved is not None and depth_exceeds(approved.arguments):
                raise ModelError(f"message {message.index}: approval arguments {TOO_DEEP}")
    for spec in conversation.tools or ():
        if type(spec.name) is not str:
            raise ModelError("a declared tool's name is not a string")


def _optional_str(value: object) -> bool:
    return value is None or type(value) is str
