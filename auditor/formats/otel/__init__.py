"""Trace spans: OpenTelemetry GenAI and OpenInference spans, regrouped into conversations.

What a file holds spans in (OTLP, Jaeger, SDK lists, Langfuse, LangSmith, ...) is read by
`containers`; what each span says, in every attribute dialect it knows, by `spans`.

Spans are regrouped: a trace belongs to the conversation its spans name
(`gen_ai.conversation.id`, `session.id`, ADK's session, Langfuse's `sessionId`), else it is one;
within it, each agent (`gen_ai.agent.name` on the span or an ancestor) is a conversation of its
own. Spans are taken in start order. A model call repeats the history in its input, so each
call's input and output are aligned with what the conversation already holds and only what is
new is added; when model calls nest (ADK's `call_llm` around OpenLLMetry's `openai.chat`), the
innermost one with messages is read. A tool span is the execution of a call: paired by
`gen_ai.tool.call.id`, else with the oldest unanswered call of its tool; its error status, an
`exception`, or an MCP `isError: true` result make the result an error. A tool span whose call no
model call shows (only tools are traced) becomes a call and its result. Spans of neither kind
(HTTP, queues) are context only; a file with no span of either kind is one Problem.

Memory: spans are buffered per trace, not per file. In JSON Lines, a trace is read once no span
of it came for `TRACE_IDLE` lines, and a conversation is audited once no trace of it came for
`CONVERSATION_IDLE` lines (or at the end of the file): memory is bounded by the traces and
conversations still open, not by the file. A conversation that resumes after that is audited
again from the history its next model call repeats.
"""

from __future__ import annotations

import bisect
from collections import OrderedDict, deque
from collections.abc import Iterator
from dataclasses import replace

import orjson

from auditor.formats import contract
from auditor.formats._common import (
    MessageDraft,
    Problem,
    as_id,
    attach,
    freeze,
    result_draft,
    tool_call,
)
from auditor.formats.otel import containers
from auditor.formats.otel.spans import (
    Execution,
    History,
    ModelCall,
    TraceSpan,
    execution,
    history,
    model_call,
)
from auditor.model import Conversation, Location, ToolSpec
from auditor.sources import Record

NAME = "otel"
KIND = contract.JSON
DETECT_KEYS = None
sniff = contract.no_sniff
inferred = contract.no_inference
TRACE_IDLE = 16
CONVERSATION_IDLE = 256
CONVERSATION_KEYS = (
    "gen_ai.conversation.id",
    "session.id",
    "gcp.vertex.agent.session_id",
    "langsmith.metadata.session_id",
    "langsmith.metadata.thread_id",
)


def detect(record: Record) -> bool:
    value = record.value
    if isinstance(value, list):
        return bool(value) and containers.is_span(value[0])
    if not isinstance(value, dict):
        return False
    return containers.container(value) is not None


def parse(record: Record) -> Iterator[Conversation | Problem]:
    return contract.collected(Collector(), record)


class Collector(contract.Collector):
    """Buffers the spans of each trace, then the messages of each conversation, until idle."""

    def __init__(self, reread: contract.Reread | None = None) -> None:
        self._traces: OrderedDict[str, _Trace] = OrderedDict()
        self._conversations: OrderedDict[str, _Conversation] = OrderedDict()
        self._records = 0
        self._first: Location | None = None
        self._traces_seen = 0
        self._read_any = False

    def add(self, record: Record) -> Iterator[Conversation | Problem]:
        self._records += 1
        for item in containers.spans(record.value, record.location):
            if isinstance(item, Problem):
                yield item
                continue
            trace = self._traces.get(item.trace)
            if trace is None:
                trace = self._traces[item.trace] = _Trace(item.trace)
                self._traces_seen += 1
                self._first = self._first or record.location
            trace.spans.append(item)
            trace.seen = self._records
            self._traces.move_to_end(item.trace)
        if record.document is not None:  # a document is the whole file: nothing can follow
            yield from self.finish()
            return
        while self._traces:
            trace = next(iter(self._traces.values()))
            if self._records - trace.seen < TRACE_IDLE:
                break
            yield from self._read(self._traces.pop(trace.id))
        while self._conversations:
            conversation = next(iter(self._conversations.values()))
            if self._records - conversation.seen < CONVERSATION_IDLE:
                break
            yield from self._conversations.pop(conversation.key).finish()

    def finish(self) -> Iterator[Conversation | Problem]:
        traces, self._traces = self._traces, OrderedDict()
        # the turns of one conversation in the order they happened, not as they were exported
        for trace in sorted(traces.values(), key=_Trace.started):
            yield from self._read(trace)
        conversations, self._conversations = self._conversations, OrderedDict()
        for conversation in conversations.values():
            yield from conversation.finish()
        if self._first is not None and not self._read_any:
            # spans, but none of a model call or a tool: HTTP or database traces, say so once
            yield Problem(
                self._first,
                f"{self._traces_seen} trace(s) of spans, none with GenAI or OpenInference "
                "attributes (model calls, tool executions): nothing to audit",
            )
        self._first, self._traces_seen, self._read_any = None, 0, False

    def _read(self, trace: _Trace) -> Iterator[Problem]:
        """Merge a trace into its conversation; the problems of spans that could not be read."""
        problems: list[Problem] = []
        events = trace.events(problems)
        if not events:
            yield from problems
            return
        self._read_any = True
        key = trace.conversation_key()
        conversation = self._conversations.get(key)
        if conversation is None:
            first = min(trace.spans, key=lambda s: s.start)
            conversation = _Conversation(key, first.location, own=not first.anonymous)
            self._conversations[key] = conversation
        conversation.seen = self._records
        self._conversations.move_to_end(key)
        conversation.problems.extend(problems)
        for span, agent, event in events:
            conversation.apply(span, agent, event)


class _Trace:
    """The spans of one trace, as they arrive."""

    def __init__(self, trace_id: str) -> None:
        self.id = trace_id
        self.spans: list[TraceSpan] = []
        self.seen = 0

    def started(self) -> int:
        return min(s.start for s in self.spans)

    def conversation_key(self) -> str:
        for span in sorted(self.spans, key=lambda s: s.start):
            for key in CONVERSATION_KEYS:
                value = as_id(span.attrs.get(key))
                if value:
                    return value
        return self.id

    def events(self, problems: list[Problem]) -> list[tuple[TraceSpan, str, Event]]:
        """The model calls and executions of the trace in start order, with their agent; the
        agents' histories last (they end after what they hold)."""
        by_id = {s.id: s for s in self.spans}
        found: dict[str, Event] = {}
        for span in self.spans:
            try:
                event = _event(span, problems)
            except (TypeError, ValueError, AttributeError, KeyError, IndexError) as exc:
                problems.append(Problem(span.location, f"span could not be read: {exc}"))
                continue
            if event is not None:
                found[span.id] = event
        # the innermost model call with messages wins: its ancestors' are dropped, each
        # ancestor walked to once (a chain of thousands of nested spans is not walked again)
        above: set[str] = set()
        for span_id, event in list(found.items()):
            if isinstance(event, ModelCall):
                for ancestor in _ancestors(by_id[span_id], by_id):
                    if ancestor.id in above:
                        break
                    above.add(ancestor.id)
        for span_id in above:
            if isinstance(found.get(span_id), ModelCall):
                del found[span_id]
        ordered = sorted(
            (by_id[i] for i in found),
            key=lambda s: (isinstance(found[s.id], History), s.start),
        )
        agents: dict[str, str] = {}
        return [(s, _agent(s, by_id, agents), found[s.id]) for s in ordered]


Event = ModelCall | Execution | History


def _event(span: TraceSpan, problems: list[Problem]) -> Event | None:
    return execution(span, problems) or model_call(span, problems) or history(span, problems)


def _ancestors(span: TraceSpan, by_id: dict[str, TraceSpan]) -> Iterator[TraceSpan]:
    seen = {span.id}
    parent = span.parent
    while parent is not None and parent not in seen and parent in by_id:
        seen.add(parent)
        span = by_id[parent]
        yield span
        parent = span.parent


def _agent(span: TraceSpan, by_id: dict[str, TraceSpan], known: dict[str, str]) -> str:
    """The agent a span works for: `gen_ai.agent.name` on it or on its nearest agent span.
    `known` holds what earlier calls found, per span, so that no chain is walked twice."""
    walked = []
    found = ""
    for candidate in (span, *_ancestors(span, by_id)):
        if candidate.id in known:
            found = known[candidate.id]
            break
        walked.append(candidate.id)
        name = candidate.attrs.get("gen_ai.agent.name")
        if isinstance(name, str) and name:
            found = name
            break
        if candidate.kind == "AGENT" or candidate.attrs.get("openinference.span.kind") == "AGENT":
            found = candidate.name
            break
    for span_id in walked:
        known[span_id] = found
    return found


class _Conversation:
    """The messages of one conversation, one thread per agent."""

    def __init__(self, key: str, location: Location, own: bool) -> None:
        self.key = key
        self.own = own
        self.location = location
        self.threads: dict[str, _Thread] = {}
        self.owners: dict[str, _Thread] = {}
        self.last: _Thread | None = None
        self.problems: list[Problem] = []
        self.seen = 0

    def apply(self, span: TraceSpan, agent: str, event: Event) -> None:
        if isinstance(event, Execution):
            thread = self._owner(event.call_id) or self._thread(agent, span)
            thread.execution(event)
        elif isinstance(event, History):
            self._thread(agent, span).model_call(ModelCall(event.messages, []))
        else:
            self._thread(agent, span).model_call(event)

    def _owner(self, call_id: str | None) -> _Thread | None:
        if call_id is None:
            return None
        return self.owners.get(call_id)

    def _thread(self, agent: str, span: TraceSpan) -> _Thread:
        thread = self.threads.get(agent)
        if thread is None and (not agent or list(self.threads) == [""]):
            thread = self.last  # an unnamed agent: the thread at work
            if thread is not None and agent and thread.agent == "":
                del self.threads[""]
                thread.agent = agent
                self.threads[agent] = thread
        if thread is None:
            cid = self.key if not self.threads else f"{self.key}/{agent or 'agent'}"
            thread = self.threads[agent] = _Thread(cid, agent, span.location, self.own, self.owners)
        self.last = thread
        return thread

    def finish(self) -> Iterator[Conversation | Problem]:
        yield from attach(self.problems, self.key)
        for thread in self.threads.values():
            if thread.drafts:
                yield thread.conversation()


class _Thread:
    """One agent's messages, each added once however often model calls repeat it."""

    def __init__(
        self, cid: str, agent: str, location: Location, own: bool, owners: dict[str, _Thread]
    ) -> None:
        self.id = cid
        self.owners = owners
        """The conversation's: call id -> the first thread that made a call of that id."""
        self.own = own
        self.agent = agent
        self.location = location
        self.drafts: list[MessageDraft] = []
        self.index: dict[tuple, list[int]] = {}
        """Each key of a message -> the positions of the messages that have it."""
        self.calls: dict[str, MessageDraft] = {}
        """Call id -> the message that made the call."""
        self.places: dict[str, list[int]] = {}
        """Call id -> the positions of the calls of that id in its message's calls."""
        self.open = _Open()
        self.answered: dict[str, MessageDraft] = {}
        self.tools: dict[str, ToolSpec] = {}

    def model_call(self, call: ModelCall) -> None:
        for spec in call.tools:
            self.tools.setdefault(spec.name, spec)
        if not call.inputs:
            for draft in call.outputs:
                if not self._continues(draft):
                    self._append(draft)
            return
        sequence = call.inputs + call.outputs
        last = self._aligned(sequence, len(call.inputs))
        for draft in sequence[last + 1 :]:
            self._append(draft)

    def _aligned(self, sequence: list[MessageDraft], inputs: int) -> int:
        """The position in `sequence` of the last message the thread already holds (-1: none).

        Inputs match in order, skipping what the thread holds and the call does not repeat
        (results added from tool spans, messages an instrumentation drops); an output matches
        only the message right after the last match.
        """
        matched, at = -1, -1
        for i, draft in enumerate(sequence):
            found = self._find(draft, at + 1)
            if found is None or (i >= inputs and found != at + 1):
                if i >= inputs:
                    break
                continue
            matched, at = i, found
        return matched

    def _continues(self, draft: MessageDraft) -> bool:
        """Add an answer logged without its input to the assistant message just before, when
        nothing came in between: one API message logged a block at a time (Claude Agent SDK)."""
        last = self.drafts[-1] if self.drafts else None
        if last is None or last.role != "assistant" or draft.role != "assistant":
            return False
        if last.result is not None or draft.result is not None:
            return False
        position = len(self.drafts) - 1
        last.texts.extend(draft.texts)
        last.reasoning.extend(draft.reasoning)
        for call in draft.calls:
            last.calls.append(call)
            self._opened(last, len(last.calls) - 1)
        for key in _keys(last):
            self.index.setdefault(key, []).append(position)
        return True

    def _find(self, draft: MessageDraft, start: int) -> int | None:
        best = None
        for key in _keys(draft):
            positions = self.index.get(key)
            if not positions:
                continue
            k = bisect.bisect_left(positions, start)
            if k < len(positions) and (best is None or positions[k] < best):
                best = positions[k]
        return best

    def _append(self, draft: MessageDraft) -> None:
        position = len(self.drafts)
        self.drafts.append(draft)
        for key in _keys(draft):
            self.index.setdefault(key, []).append(position)
        for n in range(len(draft.calls)):
            self._opened(draft, n)
        if draft.result is not None:
            self._answer(draft, draft.result.call_id, draft.result.name)

    def _opened(self, draft: MessageDraft, n: int) -> None:
        """The `n`th call of `draft` now waits for its result."""
        call = draft.calls[n]
        if call.id is not None:
            self._named(call.id, draft, n)
        self.open.add(draft, n)

    def _named(self, call_id: str, draft: MessageDraft, n: int) -> None:
        if self.calls.get(call_id) is not draft:
            self.calls[call_id], self.places[call_id] = draft, []
        self.places[call_id].append(n)
        self.owners.setdefault(call_id, self)

    def _answer(self, draft: MessageDraft, call_id: str | None, name: str | None) -> None:
        if call_id is not None:
            self.answered[call_id] = draft
            owner = self.calls.get(call_id)
            if owner is not None:
                for n in self.places[call_id]:
                    if owner.calls[n].id == call_id:
                        self.open.close(owner, n)
            return
        waiting = (self.open.first_named(name) if name else None) or self.open.first()
        if waiting is not None:
            self.open.close(*waiting)

    def execution(self, ex: Execution) -> None:
        if ex.call_id is not None and ex.call_id in self.answered:
            earlier = self.answered[ex.call_id]
            if ex.is_error and earlier.result is not None and not earlier.result.is_error:
                earlier.result = replace(earlier.result, is_error=True)
            return
        call_id = ex.call_id
        if call_id is None or call_id not in self.calls:
            pending = self._pending(ex)
            if pending is None:
                call = tool_call(call_id, ex.name, ex.arguments, ex.location)
                self._append(MessageDraft("assistant", ex.location, calls=[call]))
            else:
                owner, n = pending
                if owner.calls[n].id is None and call_id is not None:
                    owner.calls[n] = replace(owner.calls[n], id=call_id)
                    self._named(call_id, owner, n)
                call_id = owner.calls[n].id
        self._append(result_draft(call_id, ex.result, ex.location, ex.is_error, ex.name))

    def _pending(self, ex: Execution) -> tuple[MessageDraft, int] | None:
        """The oldest unanswered call of the tool, preferring one with the executed arguments."""
        return self.open.first_argued(ex.name, ex.arguments) or self.open.first_named(ex.name)

    def conversation(self) -> Conversation:
        return Conversation(
            self.id,
            NAME,
            self.location,
            freeze(self.drafts),
            tools=tuple(self.tools.values()) or None,
            own_id=self.own,
        )


class _Open:
    """A thread's calls waiting for a result, each found without a scan: the oldest, the oldest
    of a tool, the oldest of a tool with given arguments (a model call of thousands of calls
    answered by tool spans in reverse order would otherwise cost the square of them)."""

    def __init__(self) -> None:
        self._order: deque[list] = deque()
        self._named: dict[str, deque[list]] = {}
        self._argued: dict[tuple[str, bytes], deque[list]] = {}
        self._slots: dict[tuple[int, int], list] = {}
        """(message, position) -> its slot `[message, position, closed]` while it waits."""

    def add(self, draft: MessageDraft, n: int) -> None:
        call = draft.calls[n]
        slot = self._slots[(id(draft), n)] = [draft, n, False]
        self._order.append(slot)
        self._named.setdefault(call.name, deque()).append(slot)
        key = _arguments_key(call.arguments)
        if key is not None:
            self._argued.setdefault((call.name, key), deque()).append(slot)

    def close(self, draft: MessageDraft, n: int) -> None:
        slot = self._slots.pop((id(draft), n), None)
        if slot is not None:
            slot[2] = True

    def first(self) -> tuple[MessageDraft, int] | None:
        return _front(self._order)

    def first_named(self, name: str) -> tuple[MessageDraft, int] | None:
        return _front(self._named.get(name))

    def first_argued(self, name: str, arguments: object) -> tuple[MessageDraft, int] | None:
        key = _arguments_key(arguments)
        return _front(self._argued.get((name, key))) if key is not None else None


def _front(queue: deque[list] | None) -> tuple[MessageDraft, int] | None:
    while queue and queue[0][2]:
        queue.popleft()
    return (queue[0][0], queue[0][1]) if queue else None


def _arguments_key(arguments: object) -> bytes | None:
    """Arguments as canonical JSON, to find a call by the arguments a tool span executed."""
    try:
        return orjson.dumps(arguments, option=orjson.OPT_SORT_KEYS)
    except (TypeError, orjson.JSONEncodeError):
        return None


def _keys(draft: MessageDraft) -> list[tuple]:
    """What a repeated copy of a message is recognised by (copies differ in ids and detail)."""
    text = " ".join(draft.text.split())[:200]
    if draft.result is not None:
        keys: list[tuple] = [("tool-text", text)]
        if draft.result.call_id is not None:
            keys.append(("tool", draft.result.call_id))
        return keys
    if draft.calls:
        keys = [("calls", tuple(c.name for c in draft.calls))]
        keys += [("call", c.id) for c in draft.calls if c.id is not None]
        return keys
    return [(draft.role, text)]
