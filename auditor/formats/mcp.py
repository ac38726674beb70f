"""MCP JSON-RPC traffic: the `tools/call` requests and results of an agent's MCP sessions.

One message per line, or a recorder's cassette (mcp-recorder: `{version, metadata,
interactions: [{type, request, response}]}`).

Each `tools/call` request is a call (the MCP client makes it for the model, so it is read as an
assistant turn with no text) and its response, paired by JSON-RPC `id`, the call's result:
`result.content` as text, `result.isError` the error flag, and a JSON-RPC `error` an error too.
`tools/list` results declare the tools (`inputSchema`). A session runs from one `initialize` to
the next (ids start again at each); other requests and notifications (progress, log messages)
hold no turn. The log has no model turns, so only the rules about calls, results and arguments
have anything to read; FB and CF rules find nothing here.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from auditor.formats import contract
from auditor.formats._common import (
    MessageDraft,
    Problem,
    as_id,
    attach,
    fallback_id,
    freeze,
    positioned_by_line,
    result_draft,
    text_of,
    tool_call,
    tool_specs,
)
from auditor.formats.otel.spans import result_text
from auditor.model import Conversation, Location, ToolSpec
from auditor.sources import Record

NAME = "mcp"
KIND = contract.JSON
DETECT_KEYS = None
sniff = contract.no_sniff
inferred = contract.no_inference
INTERACTIONS = frozenset({"jsonrpc_request", "notification", "lifecycle"})


def detect(record: Record) -> bool:
    value = record.value
    if not isinstance(value, dict):
        return False
    if value.get("jsonrpc") == "2.0":
        return "method" in value or "result" in value or "error" in value
    interactions = value.get("interactions")
    return (
        isinstance(interactions, list)
        and bool(interactions)
        and isinstance(interactions[0], dict)
        and str(interactions[0].get("type")) in INTERACTIONS
    )


def parse(record: Record) -> Iterator[Conversation | Problem]:
    return contract.collected(Collector(), record)


class Collector(contract.Collector):
    """The sessions of one file, each ended by the next `initialize` or the end."""

    def __init__(self, reread: contract.Reread | None = None) -> None:
        self._session: _Session | None = None

    def add(self, record: Record) -> Iterator[Conversation | Problem]:
        value, location = record.value, record.location
        if value.get("jsonrpc") == "2.0":
            yield from self._message(value, location)
            return
        for i, interaction in enumerate(value["interactions"]):
            here = location.child("interactions", i)
            if not isinstance(interaction, dict):
                continue
            for key in ("request", "response"):
                message = interaction.get(key)
                if isinstance(message, dict) and message.get("jsonrpc") == "2.0":
                    yield from self._message(message, here.child(key))
        yield from self.finish()

    def _message(self, message: dict, here: Location) -> Iterator[Conversation | Problem]:
        if message.get("method") == "initialize" or self._session is None:
            if self._session is not None:
                yield from self._session.finish()
            self._session = _Session(here)
        self._session.message(message, here)

    def finish(self) -> Iterator[Conversation | Problem]:
        session, self._session = self._session, None
        if session is not None:
            yield from session.finish()


class _Session:
    def __init__(self, location: Location) -> None:
        self.location = location
        self.id = fallback_id(location)
        self.drafts: list[MessageDraft] = []
        self.requests: dict[str, str] = {}
        """JSON-RPC id -> method of the requests waiting for their response."""
        self.tools: dict[str, ToolSpec] = {}
        self.problems: list[Problem] = []

    def message(self, message: dict, here: Location) -> None:
        method = message.get("method")
        rpc_id = as_id(message.get("id"))
        if isinstance(method, str):
            if rpc_id is None:
                return  # a notification: progress, log messages
            self.requests[rpc_id] = method
            if method == "tools/call":
                params = params if isinstance(params := message.get("params"), dict) else {}
                call = tool_call(rpc_id, params.get("name"), params.get("arguments"), here)
                self.drafts.append(MessageDraft("assistant", here, calls=[call]))
            return
        asked = self.requests.pop(rpc_id, None) if rpc_id is not None else None
        if asked == "tools/call":
            self.drafts.append(self._result(message, rpc_id, here))
        elif asked == "tools/list" and isinstance(message.get("result"), dict):
            for spec in tool_specs(message["result"].get("tools")) or ():
                self.tools.setdefault(spec.name, spec)

    def _result(self, message: dict, rpc_id: str | None, here: Location) -> MessageDraft:
        error = message.get("error")
        if isinstance(error, dict):
            text = str(error.get("message") or error.get("code") or "error")
            return result_draft(rpc_id, text, here, True)
        result: Any = message.get("result")
        text, flagged = result_text(result)
        if not text and isinstance(result, dict):
            text = text_of(result.get("content"))
        return result_draft(rpc_id, text, here, flagged if flagged is not None else False)

    def finish(self) -> Iterator[Conversation | Problem]:
        yield from attach(self.problems, self.id)
        if not self.drafts:
            return  # a session that called no tool (listing tools only) holds no turn
        yield Conversation(
            self.id,
            NAME,
            self.location,
            positioned_by_line(freeze(self.drafts)),
            tools=tuple(self.tools.values()) or None,
        )
