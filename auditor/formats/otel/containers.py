"""Span containers: where a record holds its spans, each read into a `TraceSpan`.

OTLP/JSON (`resourceSpans[].scopeSpans[].spans[]`, and Tempo's `batches[]` with
`instrumentationLibrarySpans[]`), one such object per line from the Collector's file exporter,
Jaeger query exports (`data[].spans[]` with `tags`), OpenTelemetry SDK span lists (`spans[]`
with `context`, `parent`, `attributes`; a bare list; `sessionSpans`), one span per line, a bare
attribute map, Langfuse trace exports (`{trace, observations}`, attributes kept in
`observation.metadata.attributes`) and LangSmith run batches (`{post, patch}`).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

import orjson

from auditor.formats._common import Problem, as_id, excerpt_json, fallback_id
from auditor.formats.otel.spans import TraceSpan
from auditor.model import Location

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


def container(value: dict) -> str | None:
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
    if isinstance(listed, list) and listed and is_span(listed[0]):
        return "list"
    if is_span(value):
        return "span"
    if any(key in value for key in MAP_KEYS):
        return "map"
    return None


def is_span(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and "attributes" in value
        and ("context" in value or "span_id" in value or "spanId" in value)
    )


def spans(value: Any, location: Location) -> Iterator[TraceSpan | Problem]:
    """The spans of a record, whatever its container."""
    if isinstance(value, list):
        yield from _span_list(value, location)
        return
    kind = container(value)
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
    status = status if isinstance(status := span.get("status"), dict) else {}
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
        context = context if isinstance(context := span.get("context"), dict) else span
        parent = span.get("parent")
        parent_id = parent.get("span_id") if isinstance(parent, dict) else parent
        parent_id = parent_id or span.get("parent_id") or span.get("parent_span_id")
        attrs = (
            span["attributes"] if isinstance(span["attributes"], dict) else _kv(span["attributes"])
        )
        status = status if isinstance(status := span.get("status"), dict) else {}
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
    trace = trace if isinstance(trace := value.get("trace"), dict) else value
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
        extra = extra if isinstance(extra := run.get("extra"), dict) else {}
        metadata = metadata if isinstance(metadata := extra.get("metadata"), dict) else {}
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
