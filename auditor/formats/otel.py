"""Trace spans: OpenTelemetry GenAI and OpenInference spans, regrouped into conversations.

Containers: OTLP/JSON (`resourceSpans[].scopeSpans[].spans[]`, and Tempo's `batches[]` with
`instrumentationLibrarySpans[]`), one such object per line from the Collector's file exporter,
Jaeger query exports (`data[].spans[]` with `tags`), OpenTelemetry SDK span lists (`spans[]`
with `context`, `parent`, `attributes`; a bare list; `sessionSpans`), one span per line, a bare
attribute map, Langfuse trace exports (`{trace, observations}`, attributes kept in
`observation.metadata.attributes`) and LangSmith run batches (`{post, patch}`). What each span
says is read by `_spans` in every attribute dialect it knows.

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
from datetime import datetime
from typing import Any

import orjson

from auditor.formats._common import (
    MessageDraft,
    Problem,
    as_id,
    attach,
    collected,
    excerpt_json,
    fallback_id,
    freeze,
    result_draft,
    tool_call,
)
from auditor.formats._spans import (
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
TRACE_IDLE = 16
CONVERSATION_IDLE = 256
CONVERSATION_KEYS = (
    "gen_ai.conversation.id",
    "session.id",
    "gcp.vertex.agent.session_id",
    "langsmith.metadata.session_id",
    "langsmith.metadata.thread_id",
)
# A bare attribute map (one span's attributes, no envelope) holds one of these.
MAP_KEYS = ("gen_ai.operation.name", "openinference.span.kind", "gen_ai.provider.name")
# A record with none of these keys is no span container (one C-level test for most records).
_CONTAINER_KEYS = frozenset(
    {
        "resourceSpans",
        "batches",
        "data",
        "traceID",
        "observations",
        "post",
        "spans",
        "sessionSpans",
        "attributes",
        *MAP_KEYS,
    }
)
_STATUS_ERROR = frozenset({2, "2", "STATUS_CODE_ERROR", "ERROR", "error", "StatusCode.ERROR"})


def detect(record: Record) -> bool:
    value = record.value
    if record.kind != "json":
        return False
    if isinstance(value, list):
        return bool(value) and _is_span(value[0])
    if not isinstance(value, dict):
        return False
    return _container(value) is not None


def _container(value: dict) -> str | None:
    """Which span container a record is, if any (cheap: a few key lookups)."""
    if value.keys().isdisjoint(_CONTAINER_KEYS):
        return None
    if isinstance(value.get("resourceSpans"), list) or isinstance(value.get("batches"), list):
        return "otlp"
    data = value.get("data")
    if isinstance(data, list) and data and isinstance(data[0], dict) and "spans" in data[0]:
        return "jaeger"
    if "traceID" in value and isinstance(value.get("spans"), list):
        return "jaeger"
    if isinstance(value.get("observations"), list):
        return "langfuse"
    post = value.get("post")
    if isinstance(post, list) and post and isinstance(post[0], dict) and "run_type" in post[0]:
        return "langsmith"
    listed = value.get("spans", value.get("sessionSpans"))
    if isinstance(listed, list) and listed and _is_span(listed[0]):
        return "list"
    if _is_span(value):
        return "span"
    if any(key in value for key in MAP_KEYS):
        return "map"
    return None


def _is_span(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and "attributes" in value
        and ("context" in value or "span_id" in value or "spanId" in value)
    )


def parse(record: Record) -> Iterator[Conversation | Problem]:
    return collected(Collector(), record)


class Collector:
    """Buffers the spans of each trace, then the messages of each conversation, until idle."""

    def __init__(self) -> None:
        self._traces: OrderedDict[str, _Trace] = OrderedDict()
        self._conversations: OrderedDict[str, _Conversation] = OrderedDict()
        self._records = 0
        self._first: Location | None = None
        self._traces_seen = 0
        self._read_any = False

    def add(self, record: Record) -> Iterator[Conversation | Problem]:
        self._records += 1
        for item in spans(record.value, record.location):
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
        for span_id, event in list(found.items()):
            if isinstance(event, ModelCall):
                for ancestor in _ancestors(by_id[span_id], by_id):
                    if isinstance(found.get(ancestor.id), ModelCall):
                        del found[ancestor.id]  # the innermost model call with messages wins
        ordered = sorted(
            (by_id[i] for i in found),
            key=lambda s: (isinstance(found[s.id], History), s.start),
        )
        return [(s, _agent(s, by_id), found[s.id]) for s in ordered]


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


def _agent(span: TraceSpan, by_id: dict[str, TraceSpan]) -> str:
    """The agent a span works for: `gen_ai.agent.name` on it or on its nearest agent span."""
    for candidate in (span, *_ancestors(span, by_id)):
        name = candidate.attrs.get("gen_ai.agent.name")
        if isinstance(name, str) and name:
            return name
        if candidate.kind == "AGENT" or candidate.attrs.get("openinference.span.kind") == "AGENT":
            return candidate.name
    return ""


class _Conversation:
    """The messages of one conversation, one thread per agent."""

    def __init__(self, key: str, location: Location, own: bool) -> None:
        self.key = key
        self.own = own
        self.location = location
        self.threads: dict[str, _Thread] = {}
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
        return next((t for t in self.threads.values() if call_id in t.calls), None)

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
            thread = self.threads[agent] = _Thread(cid, agent, span.location, self.own)
        self.last = thread
        return thread

    def finish(self) -> Iterator[Conversation | Problem]:
        yield from attach(self.problems, self.key)
        for thread in self.threads.values():
            if thread.drafts:
                yield thread.conversation()


class _Thread:
    """One agent's messages, each added once however often model calls repeat it."""

    def __init__(self, cid: str, agent: str, location: Location, own: bool) -> None:
        self.id = cid
        self.own = own
        self.agent = agent
        self.location = location
        self.drafts: list[MessageDraft] = []
        self.index: dict[tuple, list[int]] = {}
        """Each key of a message -> the positions of the messages that have it."""
        self.calls: dict[str, MessageDraft] = {}
        """Call id -> the message that made the call."""
        self.open: dict[str, deque[tuple[MessageDraft, int]]] = {}
        """Tool name -> calls (message, position in its calls) still waiting for a result."""
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
            if call.id is not None:
                self.calls[call.id] = last
            self.open.setdefault(call.name, deque()).append((last, len(last.calls) - 1))
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
        for n, call in enumerate(draft.calls):
            if call.id is not None:
                self.calls[call.id] = draft
            self.open.setdefault(call.name, deque()).append((draft, n))
        if draft.result is not None:
            self._answer(draft, draft.result.call_id, draft.result.name)

    def _answer(self, draft: MessageDraft, call_id: str | None, name: str | None) -> None:
        if call_id is not None:
            self.answered[call_id] = draft
            owner = self.calls.get(call_id)
            if owner is not None:
                for n, call in enumerate(owner.calls):
                    if call.id == call_id:
                        self._close(call.name, owner, n)
            return
        queue = self.open.get(name or "") if name else None
        if not queue:
            queue = next((q for q in self.open.values() if q), None)
        if queue:
            queue.popleft()

    def _close(self, name: str, owner: MessageDraft, n: int) -> None:
        queue = self.open.get(name)
        if queue and (owner, n) in queue:
            queue.remove((owner, n))

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
                    self.calls[call_id] = owner
                call_id = owner.calls[n].id
        self._append(result_draft(call_id, ex.result, ex.location, ex.is_error, ex.name))

    def _pending(self, ex: Execution) -> tuple[MessageDraft, int] | None:
        """The oldest unanswered call of the tool, preferring one with the executed arguments."""
        queue = self.open.get(ex.name)
        if not queue:
            return None
        for owner, n in queue:
            if owner.calls[n].arguments == ex.arguments:
                return owner, n
        return queue[0]

    def conversation(self) -> Conversation:
        return Conversation(
            self.id,
            NAME,
            self.location,
            freeze(self.drafts),
            tools=tuple(self.tools.values()) or None,
            own_id=self.own,
        )


def _keys(draft: MessageDraft) -> list[tuple]:
    """What a repeated copy of a message is recognised by (copies differ in ids and detail)."""
    text = " ".join(draft.text.split())[:200]
    if draft.result is not None:
        keys = [("tool-text", text)]
        if draft.result.call_id is not None:
            keys.append(("tool", draft.result.call_id))
        return keys
    if draft.calls:
        keys = [("calls", tuple(c.name for c in draft.calls))]
        keys += [("call", c.id) for c in draft.calls if c.id is not None]
        return keys
    return [(draft.role, text)]


# --- containers -------------------------------------------------------------------------


def spans(value: Any, location: Location) -> Iterator[TraceSpan | Problem]:
    """The spans of a record, whatever its container."""
    if isinstance(value, list):
        yield from _span_list(value, location)
        return
    kind = _container(value)
    if kind == "otlp":
        yield from _otlp(value, location)
    elif kind == "jaeger":
        yield from _jaeger(value, location)
    elif kind == "langfuse":
        yield from _langfuse(value, location)
    elif kind == "langsmith":
        yield from _langsmith(value, location)
    elif kind == "list":
        key = "spans" if "spans" in value else "sessionSpans"
        yield from _span_list(value[key], location.child(key))
    elif kind == "span":
        yield from _span_list([value], location, single=True)
    else:
        name = str(value.get("gen_ai.operation.name", ""))
        error = _error_of(value)
        yield TraceSpan(
            fallback_id(location), "0", None, name, 0, value, location, error, anonymous=True
        )


def _otlp(value: dict, location: Location) -> Iterator[TraceSpan | Problem]:
    key = "resourceSpans" if "resourceSpans" in value else "batches"
    for i, resource in enumerate(value[key]):
        if not isinstance(resource, dict):
            yield Problem(location.child(key, i), "expected a resource object")
            continue
        scopes = "scopeSpans" if "scopeSpans" in resource else "instrumentationLibrarySpans"
        for j, scope in enumerate(_listed(resource.get(scopes))):
            listed = scope.get("spans") if isinstance(scope, dict) else None
            for k, span in enumerate(listed if isinstance(listed, list) else ()):
                here = location.child(key, i, scopes, j, "spans", k)
                if not isinstance(span, dict) or not span.get("traceId"):
                    yield Problem(here, "expected a span with a `traceId`", evidence=_ex(span))
                    continue
                yield _otlp_span(span, here)


def _otlp_span(span: dict, here: Location) -> TraceSpan:
    attrs = _kv(span.get("attributes"))
    status = span.get("status") if isinstance(span.get("status"), dict) else {}
    error = None
    if _failed(status.get("code")):
        error = str(status.get("message") or "")
    _exception(attrs, ((e.get("name"), _kv(e.get("attributes"))) for e in _dicts(span, "events")))
    return TraceSpan(
        str(span["traceId"]),
        str(span.get("spanId", "")),
        as_id(span.get("parentSpanId")),
        str(span.get("name", "")),
        _int(span.get("startTimeUnixNano")),
        attrs,
        here,
        error,
    )


def _jaeger(value: dict, location: Location) -> Iterator[TraceSpan | Problem]:
    traces = value.get("data", [value])
    prefix = ("data",) if "data" in value else ()
    for i, trace in enumerate(traces):
        for j, span in enumerate(_listed(trace.get("spans")) if isinstance(trace, dict) else ()):
            here = location.child(*prefix, *((i,) if prefix else ()), "spans", j)
            if not isinstance(span, dict) or not span.get("traceID"):
                yield Problem(here, "expected a span with a `traceID`", evidence=_ex(span))
                continue
            attrs = {t["key"]: t.get("value") for t in _dicts(span, "tags") if _keyed(t)}
            parent = next(
                (
                    r.get("spanID")
                    for r in _dicts(span, "references")
                    if r.get("refType") == "CHILD_OF"
                ),
                span.get("parentSpanID"),
            )
            error = None
            if attrs.get("otel.status_code") == "ERROR" or attrs.get("error") is True:
                error = str(attrs.get("otel.status_description") or "")
            logs = ((_log_event(log), _kv(log.get("fields"))) for log in _dicts(span, "logs"))
            _exception(attrs, logs)
            yield TraceSpan(
                str(span["traceID"]),
                str(span.get("spanID", "")),
                as_id(parent),
                str(span.get("operationName", "")),
                _int(span.get("startTime")) * 1000,
                attrs,
                here,
                error,
            )


def _log_event(log: dict) -> str:
    return next((str(f.get("value")) for f in _dicts(log, "fields") if f.get("key") == "event"), "")


def _span_list(
    items: list, location: Location, single: bool = False
) -> Iterator[TraceSpan | Problem]:
    """OpenTelemetry SDK spans as `ReadableSpan.to_json()` and its kin write them."""
    for i, span in enumerate(items):
        here = location if single else location.child(i)
        if not isinstance(span, dict) or not isinstance(span.get("attributes"), dict | list):
            yield Problem(here, "expected a span object with `attributes`", evidence=_ex(span))
            continue
        context = span.get("context") if isinstance(span.get("context"), dict) else span
        parent = span.get("parent")
        parent_id = parent.get("span_id") if isinstance(parent, dict) else parent
        parent_id = parent_id or span.get("parent_id") or span.get("parent_span_id")
        attrs = (
            span["attributes"] if isinstance(span["attributes"], dict) else _kv(span["attributes"])
        )
        status = span.get("status") if isinstance(span.get("status"), dict) else {}
        code = status.get("status_code", status.get("code"))
        error = str(status.get("description") or "") if _failed(code) else None
        events = span.get("events", span.get("span_events"))
        if isinstance(events, list):
            _exception(
                attrs,
                ((e.get("name"), e.get("attributes") or {}) for e in events if isinstance(e, dict)),
            )
        trace = as_id(context.get("trace_id"))
        yield TraceSpan(
            trace or fallback_id(location),
            as_id(context.get("span_id")) or str(i),
            as_id(parent_id),
            str(span.get("name", "")),
            _time(span.get("start_time", span.get("startTime"))),
            attrs,
            here,
            error,
            anonymous=trace is None,
        )


def _langfuse(value: dict, location: Location) -> Iterator[TraceSpan | Problem]:
    """A Langfuse export: each observation keeps its span's attributes in its metadata."""
    trace = value.get("trace") if isinstance(value.get("trace"), dict) else value
    session = as_id(trace.get("sessionId"))
    for i, obs in enumerate(value["observations"]):
        here = location.child("observations", i)
        if not isinstance(obs, dict) or not obs.get("id"):
            yield Problem(here, "expected an observation with an `id`", evidence=_ex(obs))
            continue
        metadata = _loaded(obs.get("metadata"))
        attrs = _loaded(metadata.get("attributes")) if isinstance(metadata, dict) else {}
        attrs = dict(attrs) if isinstance(attrs, dict) else {}
        if session and "session.id" not in attrs:
            attrs["session.id"] = session
        error = str(obs.get("statusMessage") or "") if obs.get("level") == "ERROR" else None
        yield TraceSpan(
            as_id(obs.get("traceId")) or as_id(trace.get("id")) or fallback_id(location),
            str(obs["id"]),
            as_id(obs.get("parentObservationId")),
            str(obs.get("name", "")),
            _time(obs.get("startTime")),
            attrs,
            here,
            error,
            str(obs.get("type", "")),
            (_loaded(obs.get("input")), _loaded(obs.get("output"))),
        )


def _langsmith(value: dict, location: Location) -> Iterator[TraceSpan | Problem]:
    """A LangSmith run batch: `post` creates runs, `patch` completes them (by `id`)."""
    runs: dict[str, tuple[dict, Location]] = {}
    for key in ("post", "patch"):
        for i, run in enumerate(_listed(value.get(key))):
            here = location.child(key, i)
            run_id = as_id(run.get("id")) if isinstance(run, dict) else None
            if run_id is None:
                yield Problem(here, "expected a run with an `id`", evidence=_ex(run))
            elif run_id in runs:
                runs[run_id][0].update({k: v for k, v in run.items() if v is not None})
            else:
                runs[run_id] = (dict(run), here)
    for run_id, (run, here) in runs.items():
        extra = run.get("extra") if isinstance(run.get("extra"), dict) else {}
        metadata = extra.get("metadata") if isinstance(extra.get("metadata"), dict) else {}
        attrs: dict[str, Any] = {"langsmith.span.kind": run.get("run_type")}
        for key in ("session_id", "thread_id", "conversation_id"):
            if as_id(metadata.get(key)):
                attrs["session.id"] = as_id(metadata[key])
                break
        outputs = run.get("outputs")
        if isinstance(outputs, dict) and set(outputs) == {"output"}:
            outputs = outputs["output"]
        error = run.get("error")
        yield TraceSpan(
            as_id(run.get("trace_id")) or run_id,
            run_id,
            as_id(run.get("parent_run_id")),
            str(run.get("name", "")),
            _time(run.get("start_time")),
            attrs,
            here,
            str(error) if error else None,
            str(run.get("run_type", "")),
            (run.get("inputs"), outputs),
        )


def _kv(items: Any) -> dict[str, Any]:
    """OTLP `[{key, value: {stringValue | intValue | …}}]` as a plain dict."""
    if isinstance(items, dict):
        return items
    out: dict[str, Any] = {}
    for item in items if isinstance(items, list) else ():
        if isinstance(item, dict) and isinstance(item.get("key"), str):
            value = item.get("value")
            out[item["key"]] = _any_value(value) if isinstance(value, dict) else value
    return out


def _any_value(value: dict) -> Any:
    for kind, inner in value.items():
        if kind == "intValue":
            return _int(inner)
        if kind == "arrayValue":
            listed = inner.get("values") if isinstance(inner, dict) else None
            return [_any_value(v) if isinstance(v, dict) else v for v in listed or ()]
        if kind == "kvlistValue":
            return _kv(inner.get("values") if isinstance(inner, dict) else None)
        return inner
    return None


def _exception(attrs: dict, events: Any) -> None:
    """Keep the first `exception` event's message where the tool reader looks for errors."""
    for name, fields in events:
        if name == "exception" and "exception.message" not in attrs and isinstance(fields, dict):
            attrs["exception.message"] = str(
                fields.get("exception.message") or fields.get("exception.type") or "exception"
            )


def _error_of(attrs: dict) -> str | None:
    error = attrs.get("error.type")
    return str(error) if error else None


def _failed(code: Any) -> bool:
    """A span status code that means error (OTLP `2`, `STATUS_CODE_ERROR`, SDK `ERROR`)."""
    return isinstance(code, str | int) and code in _STATUS_ERROR


def _keyed(item: dict) -> bool:
    return isinstance(item.get("key"), str)


def _listed(value: Any) -> list:
    return value if isinstance(value, list) else []


def _dicts(value: dict, key: str) -> list[dict]:
    listed = value.get(key)
    return [v for v in listed if isinstance(v, dict)] if isinstance(listed, list) else []


def _int(value: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return 0


def _time(value: Any) -> int:
    """Nanoseconds since the epoch from an integer or an ISO 8601 string."""
    if isinstance(value, str) and not value.isdigit():
        try:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return 0
        return int(moment.timestamp()) * 1_000_000_000 + moment.microsecond * 1000
    return _int(value)


def _loaded(value: Any) -> Any:
    """A JSON object or array an exporter stored as a string, parsed."""
    if isinstance(value, str) and value[:1] in ("{", "["):
        try:
            return orjson.loads(value)
        except orjson.JSONDecodeError:
            return value
    return value


def _ex(value: Any) -> str:
    return excerpt_json(value)
