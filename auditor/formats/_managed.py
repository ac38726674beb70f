"""Claude Managed Agents session recordings: one `[method, payload]` pair per line, the methods
`client.beta.sessions.create`, `.events.send` and `.events.stream` (a `stream` sub-dialect).

The `create` payload names the session (`sesn_…`), the agent's system prompt and its tools. The
streamed events are the conversation: `user.message`, `agent.message`, the calls
(`agent.tool_use`, `agent.mcp_tool_use`, `agent.custom_tool_use`, each its own id) and their
results (`agent.tool_result`, `agent.mcp_tool_result`, `user.custom_tool_result`). A call whose
`evaluated_permission` is `ask` waits for the person: its approval request comes after the
assistant's turn, and `user.tool_confirmation` (`allow` or `deny`, `deny_message`) is the
decision. The result of a denied call ("Permission … has been rejected", flagged `is_error`) is
the denial, not a tool failure. What the client sends (`events.send`) the stream repeats, so only
the stream is read; status and span events hold no message.
"""

from __future__ import annotations

from typing import Any

from auditor.formats._common import (
    MessageDraft,
    as_id,
    result_draft,
    text_of,
    tool_call,
    tool_specs,
)
from auditor.model import ApprovalDecision, ApprovalRequest, Location, ToolSpec

PREFIX = "client.beta.sessions."
CALLS = {"agent.tool_use", "agent.mcp_tool_use", "agent.custom_tool_use"}
RESULTS = {
    "agent.tool_result": "tool_use_id",
    "agent.mcp_tool_result": "mcp_tool_use_id",
    "user.custom_tool_result": "custom_tool_use_id",
}


def is_line(value: Any) -> bool:
    return (
        isinstance(value, list)
        and len(value) == 2
        and isinstance(value[0], str)
        and value[0].startswith(PREFIX)
    )


def session_id(method: str, payload: Any) -> str | None:
    """The session a `create` line starts (its id) or a `send` line names (its first argument)."""
    if method.endswith("sessions.create") and isinstance(payload, dict):
        return as_id(payload.get("id"))
    if method.endswith("events.send") and isinstance(payload, list) and payload:
        return as_id(payload[0])
    return None


def declared(payload: Any) -> tuple[tuple[ToolSpec, ...] | None, str]:
    """The agent's tools (None when a toolset or MCP server leaves the names open) and system."""
    agent = payload.get("agent") if isinstance(payload, dict) else None
    if not isinstance(agent, dict):
        return None, ""
    tools = tools if isinstance(tools := agent.get("tools"), list) else []
    custom = [t for t in tools if isinstance(t, dict) and t.get("type") == "custom"]
    open_ended = len(custom) < len(tools)
    system = agent.get("system")
    return (None if open_ended else tool_specs(custom)), system if isinstance(system, str) else ""


class Events:
    """Turns one session's streamed events into drafts, handed to `append`."""

    def __init__(self, append: Any) -> None:
        self.append = append
        self.turn: MessageDraft | None = None
        self.asks: list[MessageDraft] = []
        self.denied: dict[str, str] = {}

    def event(self, event: dict, here: Location) -> bool:
        """Read one event; False when it holds no message (status, spans)."""
        kind = event.get("type")
        if kind == "span.model_request_start":
            self.close()
            return False
        if kind == "agent.message" or kind == "agent.thinking" or kind in CALLS:
            self._agent(event, kind, here)
            return True
        self.close()
        if kind == "user.message":
            self.append(MessageDraft("user", here, [text_of(event.get("content"))]))
        elif kind in RESULTS:
            self._result(event, RESULTS[kind], here)
        elif kind == "user.tool_confirmation":
            self._confirmation(event, here)
        else:
            return False
        return True

    def _agent(self, event: dict, kind: str, here: Location) -> None:
        if self.turn is None:
            self.turn = MessageDraft("assistant", here)
        if kind == "agent.message":
            self.turn.texts.append(text_of(event.get("content")))
        elif kind in CALLS:
            call_id = as_id(event.get("id"))
            name = event.get("name")
            self.turn.calls.append(tool_call(call_id, name, event.get("input"), here))
            if event.get("evaluated_permission") == "ask" and call_id is not None:
                ask = MessageDraft("approval", here)
                ask.approval_request = ApprovalRequest(
                    call_id, call_id, name if isinstance(name, str) else "", event.get("input")
                )
                self.asks.append(ask)

    def close(self) -> None:
        """The assistant's turn is over: it, then the approvals its calls wait for."""
        if self.turn is not None:
            self.append(self.turn, *self.asks)
        self.turn, self.asks = None, []

    def _confirmation(self, event: dict, here: Location) -> None:
        call_id = as_id(event.get("tool_use_id")) or ""
        allowed = event.get("result") == "allow"
        reason = event.get("deny_message")
        reason = reason if isinstance(reason, str) else ""
        if not allowed:
            self.denied[call_id] = reason
        draft = MessageDraft("approval", here)
        draft.approval_decision = ApprovalDecision(call_id, allowed, reason=reason)
        self.append(draft)

    def _result(self, event: dict, key: str, here: Location) -> None:
        call_id = as_id(event.get(key))
        text = text_of(event.get("content"))
        if call_id in self.denied:
            draft = result_draft(call_id, text, here, False)
            draft.approval_decision = ApprovalDecision(call_id, False, reason=self.denied[call_id])
        else:
            draft = result_draft(call_id, text, here, event.get("is_error"))
        self.append(draft)
