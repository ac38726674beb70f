"""Session streams: one message or event per line, grouped into conversations by session.

A line belongs to the conversation named by its `conversation_id`, `session_id`, `sessionId`,
`thread_id` or `trace_id`; sessions may interleave. A line holds a message (`{role, content,
tool_calls?}` in OpenAI or Anthropic shape, flat or under `message`), a Responses item, an
approval event (`{"type": "approval_request", "id", "call_id", "name", "arguments"}`,
`{"type": "approval_response", "request_id", "approved", "arguments"?}`), or another event the
rules have no use for (it is counted, not reported). Every message keeps the line it is on.

Claude Code sessions (`~/.claude/projects/*/*.jsonl`): each content block of an assistant
message is its own line with the same `message.id`; they are merged into one turn, each call
keeping its own line. A subagent's lines (`agentId`, or `isSidechain` in older versions) form
a conversation of their own, `<sessionId>/agent-<agentId>`. `progress` lines are skipped: they
carry hook output and a copy of a subagent's messages, whose own transcript
(`subagents/agent-*.jsonl`) is read as its own conversation. `system`, `summary`,
`file-history-snapshot` and `queue-operation` lines are bookkeeping. A user line the CLI wrote
itself (`isMeta`: a local command's caveat, a skill's text; `isCompactSummary`: the summary a
compaction left; a local command's `<local-command-stdout>`) is a system message: context, not
the user's words (no decision, no request).

Codex CLI rollouts (`~/.codex/sessions/…/rollout-*.jsonl`) carry no session key on their lines:
a file is one session, named by its `session_meta` line. `response_item` payloads are the
conversation; `event_msg` lines repeat them and are skipped, except a `user_message` that no
`response_item` repeats (Codex Desktop logs the user's words only there). `turn_context` (the
approval policy) is not modelled: the rollouts do not log the person's decisions.

Claude Managed Agents recordings (`[method, payload]` lines, see `_managed`) carry no session key
on their events either: a `sessions.create` line starts the session the lines after it belong to.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator

from auditor.formats import _managed, anthropic, contract, responses
from auditor.formats._common import (
    MessageDraft,
    Problem,
    as_id,
    attach,
    fallback_id,
    freeze,
    positioned_by_line,
    read_each,
    text_of,
    tool_specs,
    type_of,
)
from auditor.model import ApprovalDecision, ApprovalRequest, Conversation, Location, ToolSpec
from auditor.sources import Record

NAME = "stream"
KIND = contract.JSON
DETECT_KEYS = None
sniff = contract.no_sniff
inferred = contract.no_inference
KEYS = ("conversation_id", "session_id", "sessionId", "thread_id", "trace_id")
_KEYS = frozenset(KEYS)
CODEX_LINES = frozenset({"session_meta", "response_item", "event_msg", "turn_context", "compacted"})
# Claude Code bookkeeping lines that carry no session id.
KEYLESS = frozenset({"summary", "file-history-snapshot"})


def detect(record: Record) -> bool:
    value = record.value
    if isinstance(value, list):
        return _managed.is_line(value)
    if not isinstance(value, dict) or "messages" in value:
        return False
    kind = type_of(value)
    if kind in CODEX_LINES:
        return isinstance(value.get("payload"), dict)
    if kind in KEYLESS and ("leafUuid" in value or "messageId" in value):
        return True
    if _KEYS.isdisjoint(value) or not any(as_id(value.get(k)) for k in KEYS):
        return False  # (the set test first: most lines of other formats hold no session key)
    return (
        isinstance(kind, str)
        or isinstance(value.get("role"), str)
        or isinstance(value.get("message"), dict)
    )


def parse(record: Record) -> Iterator[Conversation | Problem]:
    return contract.collected(Collector(), record)


class Collector(contract.Collector):
    """The sessions of one file, in the order their first line appears.

    A session is held until its last line. Given `reread` (the engine does so for large files it
    can read twice), the collector first reads the file once to learn the line each session
    ends on and closes every session there; without it, sessions are closed at the end of the
    file, and memory grows with the sessions open at once.
    """

    def __init__(self, reread: contract.Reread | None = None) -> None:
        self._sessions: dict[str, _Session] = {}
        self._codex: _Session | None = None
        self._reread = reread
        self._ends: dict[str, int] = {}
        self._managed: tuple[_Session, _managed.Events] | None = None

    def add(self, record: Record) -> Iterator[Conversation | Problem]:
        if self._reread is not None:
            self._ends = session_ends(self._reread())
            self._reread = None
        value, location = record.value, record.location
        if isinstance(value, list):
            self._managed_line(value, location)
        elif type_of(value) in CODEX_LINES:
            self._codex_line(value, location)
        else:
            key = _key(value)
            if key is not None:
                session = self._sessions.get(key)
                if session is None:
                    session = self._sessions[key] = _Session(key, True, location)
                session.line(value, location)
                if self._ends.get(key) == location.line:  # its last line: close it now
                    del self._sessions[key]
                    yield from read_each([(session, location)], _Session.close)
        if record.document is not None:  # a document is the whole file: nothing can follow
            yield from self.finish()

    def finish(self) -> Iterator[Conversation | Problem]:
        if self._managed is not None:
            self._managed[1].close()
        sessions, self._sessions, self._codex = self._sessions, {}, None
        self._managed = None
        yield from read_each(((s, s.location) for s in sessions.values()), _Session.close)

    def _managed_line(self, value: list, location: Location) -> None:
        method, payload = value
        sid = _managed.session_id(method, payload)
        current = self._managed
        if sid is not None and (current is None or current[0].id != sid):
            if current is not None:
                current[1].close()
            session = self._sessions.get(sid)
            if session is None:
                session = self._sessions[sid] = _Session(sid, True, location)
            current = self._managed = (session, _managed.Events(session.append))
        if current is None:
            current = self._managed = self._new_managed(location)
        session, events = current
        if method.endswith("sessions.create"):
            tools, system = _managed.declared(payload)
            for spec in tools or ():
                session.tools.setdefault(spec.name, spec)
            session.open_tools = session.open_tools or tools is None
            if system:
                session.append(
                    MessageDraft("system", location.child(1, "agent", "system"), [system])
                )
        elif method.endswith("events.stream"):
            listed = payload if isinstance(payload, list) else [payload]
            for i, event in enumerate(listed):
                here = location.child(1, i) if isinstance(payload, list) else location.child(1)
                if not isinstance(event, dict) or not events.event(event, here):
                    session.events[str(event.get("type") if isinstance(event, dict) else "")] += 1
        else:
            session.events[method.rsplit(".", 1)[-1]] += 1  # what was sent, the stream repeats

    def _new_managed(self, location: Location) -> tuple[_Session, _managed.Events]:
        session = _Session(fallback_id(location), False, location)
        self._sessions[f"managed:{location.path}:{location.line}"] = session
        return session, _managed.Events(session.append)

    def _codex_line(self, value: dict, location: Location) -> None:
        kind, payload = value["type"], value["payload"]
        here = location.child("payload")
        session = self._codex
        if kind == "session_meta":
            sid = as_id(payload.get("id"))
            if session is None or (sid is not None and sid != session.id):
                self._new_codex(sid, location)  # a second rollout appended to the same file
            return
        if session is None:
            session = self._new_codex(None, location)
        if kind == "response_item":
            if payload.get("type") == "message" and payload.get("role") == "user":
                if session.repeats_user(text_of(payload.get("content")), "item"):
                    return
                session.items.add(payload, here)
                session.drafts[-1].tag = "item"
            else:
                session.items.add(payload, here)
        elif kind == "event_msg" and payload.get("type") == "user_message":
            text = payload.get("message")
            if isinstance(text, str) and not session.repeats_user(text, "event"):
                session.append(MessageDraft("user", here, [text], tag="event"))
        else:
            session.events[kind] += 1

    def _new_codex(self, sid: str | None, location: Location) -> _Session:
        key = f"codex:{sid}" if sid else f"codex:{location.path}:{location.line}"
        session = self._sessions.get(key)  # a session resumed further down the same file
        if session is None:
            session = _Session(sid or fallback_id(location), sid is not None, location)
            self._sessions[key] = session
        self._codex = session
        return session


def session_ends(records: Iterable[object]) -> dict[str, int]:
    """The line each session's last line is on, from a first read of the file."""
    ends: dict[str, int] = {}
    for record in records:
        if not isinstance(record, Record) or record.location.line is None:
            continue
        value = record.value
        if isinstance(value, dict) and type_of(value) not in CODEX_LINES and detect(record):
            key = _key(value)
            if key is not None:
                ends[key] = record.location.line
    return ends


def _key(value: dict) -> str | None:
    """The session a line belongs to; a subagent's lines are a session of their own."""
    for name in KEYS:
        key = as_id(value.get(name))
        if key is not None:
            break
    else:
        return None
    agent = as_id(value.get("agentId"))
    if agent is not None:
        return f"{key}/agent-{agent}"
    if value.get("isSidechain") is True:
        return f"{key}/sidechain"
    return key


def _cli_said(value: dict, message: dict) -> bool:
    """A user line Claude Code wrote itself: marked so (`isMeta`, `isCompactSummary`), or a
    local command's output (`<local-command-stdout>`)."""
    if value.get("isMeta") is True or value.get("isCompactSummary") is True:
        return True
    content = message.get("content")
    return isinstance(content, str) and content.lstrip().startswith(_CLI_OUTPUT)


_CLI_OUTPUT = ("<local-command-stdout>", "<local-command-stderr>")


def _chat(value: dict) -> bool:
    """A `type: message` line that is an OpenAI chat message, not a Responses item: it carries
    the chat API's call or result fields, which the Responses reader would drop."""
    return "tool_calls" in value or "tool_call_id" in value or "function_call" in value


class _Session:
    """One conversation as its lines arrive."""

    def __init__(self, sid: str, own: bool, location: Location) -> None:
        self.id = sid
        self.own = own
        self.location = location
        self.problems: list[Problem] = []
        self.items = responses.Items(self.problems)
        self.tools: dict[str, ToolSpec] = {}
        self.open_tools = False
        """Some declared tools are not named (a toolset, an MCP server): declare none."""
        self.events: Counter[str] = Counter()
        """Lines that hold no message, by type: said when the session has no message at all."""
        self._by_message_id: dict[str, MessageDraft] = {}

    @property
    def drafts(self) -> list[MessageDraft]:
        return self.items.drafts

    def append(self, *drafts: MessageDraft) -> None:
        self.items.close()
        self.items.drafts.extend(drafts)

    def repeats_user(self, text: str, tag: str) -> bool:
        """The user message just logged says the same, logged the other way (Codex)."""
        if self.items.open or not self.drafts:
            return False
        last = self.drafts[-1]
        return (
            last.role == "user"
            and last.tag not in ("", tag)
            and " ".join(last.text.split()) == " ".join(text.split())
        )

    def line(self, value: dict, location: Location) -> None:
        for spec in tool_specs(value.get("tools")) or ():
            self.tools.setdefault(spec.name, spec)
        kind = type_of(value)
        message = value.get("message")
        if isinstance(message, dict) and isinstance(message.get("role"), str):
            if message["role"] == "user" and _cli_said(value, message):
                # Claude Code's own words in the user's place: a command's caveat, a skill's
                # text, the summary a compaction left; context, not what the user said
                message = {**message, "role": "system"}
            self.message(message, location.child("message"))
        elif kind in responses.ITEM_TYPES and not (kind == "message" and _chat(value)):
            self.items.add(value, location)
        elif isinstance(value.get("role"), str):
            self.message(value, location)
        elif kind in ("approval_request", "approval_response"):
            self.approval(value, kind, location)
        else:  # any other event (progress, system, telemetry) holds no message
            self.events[str(kind)] += 1

    def message(self, message: dict, here: Location) -> None:
        drafts = anthropic.read_message(message, here, self.problems)
        mid = as_id(message.get("id")) if message["role"] == "assistant" else None
        earlier = self._by_message_id.get(mid) if mid is not None else None
        if earlier is not None:  # another block of a message already begun (Claude Code)
            main = drafts.pop(0)
            earlier.texts.extend(main.texts)
            earlier.reasoning.extend(main.reasoning)
            earlier.calls.extend(main.calls)
        elif mid is not None:
            self._by_message_id[mid] = drafts[0]
        if drafts:
            self.append(*drafts)

    def approval(self, value: dict, kind: str, here: Location) -> None:
        draft = MessageDraft("approval", here)
        if kind == "approval_request":
            request_id = as_id(value.get("id"))
            if request_id is None:
                self.problems.append(Problem(here, "approval request has no `id`"))
            name = value.get("name")
            draft.approval_request = ApprovalRequest(
                request_id or "",
                as_id(value.get("call_id")),
                name if isinstance(name, str) else "",
                value.get("arguments"),
            )
        else:
            request_id = as_id(value.get("request_id"))
            if request_id is None:
                self.problems.append(Problem(here, "approval response has no `request_id`"))
            if not isinstance(value.get("approved"), bool):
                self.problems.append(Problem(here, "approval response has no boolean `approved`"))
            reason = value.get("reason")
            draft.approval_decision = ApprovalDecision(
                request_id or "",
                value.get("approved") is True,
                value.get("arguments"),
                reason if isinstance(reason, str) else "",
            )
        self.append(draft)

    def close(self, _: Location) -> Iterator[Conversation | Problem]:
        self.items.close()
        if not self.drafts:
            kinds = ", ".join(f"`{k}`" for k in sorted(self.events)[:5])
            self.problems.append(
                Problem(self.location, f"no line of session `{self.id}` holds a message ({kinds})")
            )
        yield from attach(self.problems, self.id)
        if not self.drafts:
            return
        first = self.drafts[0].location if self.drafts else self.location
        yield Conversation(
            self.id,
            NAME,
            Location(first.path, first.line),  # where the first message is, not a bookkeeping line
            positioned_by_line(freeze(self.drafts)),
            tools=None if self.open_tools else tuple(self.tools.values()) or None,
            own_id=self.own,
        )
