"""The record boundary under attack: each case once lost records, a report or the run.

Every test here failed before the change it guards (found by attacking the reader with mutants of
real logs): a malformed record costs that record, or that conversation, as a finding with its
location, and everything else in the file is still read and audited. In-process, so each case is
cheap.
"""

from __future__ import annotations

import json
import sys

import pytest

from auditor import config, engine, sources
from auditor.formats import openai
from auditor.sources import spans
from tests.helpers import FIXTURES, audit, audit_bytes

GOOD = {"id": "good", "messages": [{"role": "user", "content": "hi"}]}


def deep(depth: int, leaf: object = 1) -> object:
    value = leaf
    for _ in range(depth):
        value = [value]
    return value


def lines(*records: object) -> bytes:
    """JSON Lines of the records (written with json: orjson refuses to nest past 254)."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(10_000)
    try:
        return b"".join(json.dumps(r).encode() + b"\n" for r in records)
    finally:
        sys.setrecursionlimit(limit)


def codes(report) -> list[tuple[str, int | None]]:
    return [(f.code, f.line) for f in report.findings]


# 1. One malformed content part in a 200-conversation document lost the document.
def test_a_list_as_part_type_costs_nothing_in_a_tau_document(tmp_path):
    doc = json.loads((FIXTURES / "formats/tau/tau-bench-gpt-4o-airline-excerpt.json").read_text())
    assert len(doc) >= 2
    doc[0]["traj"][1]["content"] = [{"type": ["text"], "text": "hello"}]
    report = audit_bytes(tmp_path, json.dumps(doc, indent=1).encode(), "tau.json")
    assert report.errors == ()
    assert report.counts.conversations == len(doc)


def test_a_reader_that_breaks_costs_one_conversation_of_a_document(tmp_path, monkeypatch):
    real = openai.message

    def breaks(item, index, here, problems):
        if item.get("content") == "boom":
            raise KeyError("boom")
        return real(item, index, here, problems)

    monkeypatch.setattr(openai, "message", breaks)
    doc = [
        {"id": "a", "messages": [{"role": "user", "content": "one"}]},
        {"id": "b", "messages": [{"role": "user", "content": "boom"}]},
        {"id": "c", "messages": [{"role": "user", "content": "three"}]},
    ]
    report = audit_bytes(tmp_path, json.dumps(doc, indent=1).encode(), "chats.json")
    assert report.errors == ()
    assert report.counts.conversations == 2
    (finding,) = report.findings
    assert (finding.code, finding.pointer, finding.line) == ("IN002", "/1", 11)
    assert finding.message == "could not be read: KeyError: 'boom'"


# 2. Arguments 600 deep in a session stream: approval pairing overflowed and every later
# session of the file disappeared.
def test_deep_arguments_in_a_stream_cost_nothing_after_them(tmp_path):
    arguments = json.dumps(deep(600))
    records = [
        {"session_id": "s1", "role": "user", "content": "go"},
        {
            "session_id": "s1",
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "f", "arguments": arguments}}
            ],
        },
        {"session_id": "s1", "role": "tool", "tool_call_id": "c1", "content": "ok"},
        {"session_id": "s2", "role": "user", "content": "hello"},
        {"session_id": "s2", "role": "assistant", "content": "hi"},
    ]
    report = audit_bytes(tmp_path, lines(*records))
    assert report.errors == ()
    assert report.counts.conversations == 2
    (finding,) = report.findings
    assert (finding.code, finding.line) == ("EX006", 2)
    assert "nested more than 128 levels deep" in finding.message


# 3 and 4. --jobs: a span starting with a record that broke detection ended the run; a session
# stream among chat records was cut at a span border (a false EX001 + EX002).
@pytest.fixture
def small_spans(monkeypatch):
    monkeypatch.setattr(spans, "SPLIT_AT_LEAST", 256)


def _call_line(session: str, call_id: str) -> dict:
    fn = {"name": "f", "arguments": "{}"}
    call = {"id": call_id, "type": "function", "function": fn}
    return {"session_id": session, "role": "assistant", "content": None, "tool_calls": [call]}


def _mixed_log() -> bytes:
    """Chats with one session stream among them: its call, a line whose `type` is a list (it
    broke detection at a span start), and the call's result, in three different spans."""
    records: list[object] = []
    for i in range(12):
        records.append({"id": f"chat-{i}", "messages": [{"role": "user", "content": "x" * 200}]})
        if i == 5:
            records.append(_call_line("s", "c1"))
        if i == 6:
            records.append({"type": ["x"], "session_id": "s", "note": "y" * 200})
        if i == 8:
            records.append(
                {"session_id": "s", "role": "tool", "tool_call_id": "c1", "content": "ok"}
            )
    return lines(*records)


def test_jobs_never_cut_a_session_and_survive_a_broken_span_start(tmp_path, small_spans):
    path = tmp_path / "mixed.jsonl"
    path.write_bytes(_mixed_log())
    settings = config.build()
    assert len(sources.split(sources.Source(str(path), "jsonl", False, True), 8)) > 2
    one = engine.audit([str(path)], settings, jobs=1)
    two = engine.audit([str(path)], settings, jobs=2)
    assert one.errors == two.errors == ()
    assert [f.to_dict() for f in two.findings] == [f.to_dict() for f in one.findings]
    assert one.counts == two.counts
    assert not [f for f in one.findings if f.code in ("EX001", "EX002")]


# 5. Values of the wrong type, or nested a thousand deep, at the places readers and rules met
# them: each became an internal error instead of a finding.
def _server_block(content: object) -> dict:
    use = {"type": "server_tool_use", "id": "t1", "name": "web_search", "input": {}}
    block = {"type": "web_search_tool_result", "tool_use_id": "t1", "content": content}
    return {"messages": [{"role": "assistant", "content": [use, block]}]}


def _tau2(arguments: object) -> dict:
    call = {"id": "c1", "name": "f", "arguments": arguments}
    messages = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "id": "c1", "content": "ok"},
    ] * 3
    return {"simulations": [{"id": "sim", "messages": messages}]}


def _with_schema(schema: dict) -> dict:
    tool = {"type": "function", "function": {"name": "f", "parameters": schema}}
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}}
    return {
        "id": "schema",
        "tools": [tool],
        "messages": [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "c1", "content": "ok"},
        ],
    }


def _nested_schema(depth: int) -> dict:
    schema: dict = {"type": "integer"}
    for _ in range(depth):
        schema = {"type": "array", "items": schema}
    return schema


def _approvals(arguments: object) -> list[dict]:
    return [
        {"session_id": "ap", "role": "user", "content": "go"},
        {
            "session_id": "ap",
            "type": "approval_request",
            "id": "r1",
            "name": "f",
            "arguments": {},
        },
        {
            "session_id": "ap",
            "type": "approval_response",
            "request_id": "r1",
            "approved": True,
            "arguments": arguments,
        },
        _call_line("ap", "c1"),
        {"session_id": "ap", "role": "tool", "tool_call_id": "c1", "content": "ok"},
    ]


MALFORMED = {
    "stream-type-list": [{"type": ["x"], "session_id": "s", "role": "user", "content": "hi"}],
    "anthropic-marker-type-list": [
        {"messages": [{"role": "user", "content": [{"type": ["tool_use"]}]}]}
    ],
    "anthropic-block-type-list": [
        {
            "messages": [
                {
                    "role": "assistant",
                    "content": [
                        {"type": "tool_use", "id": "t", "name": "f", "input": {}},
                        {"type": ["text"]},
                    ],
                }
            ]
        }
    ],
    "responses-item-type-list": [
        {"input": "hi", "output": [{"type": ["function_call"], "name": "f"}]}
    ],
    "part-type-list": [{"messages": [{"role": "user", "content": [{"type": [1], "text": "x"}]}]}],
    "deep-item-evidence": [{"messages": [{"role": "user", "content": "x"}, deep(1000)]}],
    "deep-server-result-type": [_server_block({"type": deep(1000)})],
    "deep-dict-arguments": [_tau2({"a": deep(600)})],
    "deep-approval-arguments": _approvals({"a": deep(600)}),
    "deep-schema": [
        _with_schema(
            {"type": "object", "required": ["b"], "properties": {"a": _nested_schema(600)}}
        )
    ],
    "list-in-required": [_with_schema({"type": "object", "required": [["a"]], "properties": {}})],
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_values_are_findings_never_internal_errors(tmp_path, name):
    records = MALFORMED[name]
    report = audit_bytes(tmp_path, lines(*records, GOOD))
    assert report.errors == (), report.errors
    assert report.counts.records == len(records) + 1
    assert report.counts.conversations >= 1  # the good conversation after it, at least
    for finding in report.findings:
        assert finding.line is not None and 1 <= finding.line <= len(records)


# Tool parameters nested past orjson's limit (found by the fuzzer) crashed FB004's reading
# of the declarations: the declarations give no identifier then, and the rule runs.
def test_tool_parameters_nested_too_deep_cost_fb004_nothing(tmp_path):
    deep: object = None
    for _ in range(300):
        deep = [deep]
    tool = {"type": "function", "function": {"name": "book_flight", "parameters": deep}}
    call = {"id": "c1", "type": "function", "function": {"name": "book_flight"}}
    call["function"]["arguments"] = json.dumps({"flight": "ZX-9041"})
    record = {
        "id": "deep",
        "tools": [tool],
        "messages": [
            {"role": "user", "content": "book me a flight"},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "c1", "content": "booked"},
        ],
    }
    path = tmp_path / "deep.jsonl"
    path.write_text(json.dumps(record) + "\n")
    report = audit([path], select=["FB004"])
    assert report.errors == ()
    [finding] = report.findings
    assert (finding.code, finding.turn, finding.line) == ("FB004", 1, 1)
    assert "`ZX-9041`" in finding.message


# 9. No bound on a line: a small .gz holding one huge line exhausted memory.
def test_a_line_past_the_limit_is_in001_and_reading_goes_on(tmp_path):
    path = tmp_path / "big.jsonl"
    path.write_bytes(lines(GOOD) + b'{"messages": "' + b"x" * 5000 + b'"}\n' + lines(GOOD))
    settings = config.build()
    small = type(settings)(**{**settings.__dict__, "max_record_bytes": 1000})
    report = engine.audit([str(path)], small)
    assert report.counts.records == 3 and report.counts.conversations == 2
    (finding,) = report.findings
    assert (finding.code, finding.line) == ("IN001", 2)
    assert finding.message.startswith("line of 5,017 bytes is larger than the limit of 1,000")


def test_a_document_past_the_limit_is_in001(tmp_path):
    path = tmp_path / "big.json"
    path.write_bytes(json.dumps([GOOD] * 50).encode())
    settings = config.build()
    small = type(settings)(**{**settings.__dict__, "max_record_bytes": 1000})
    report = engine.audit([str(path)], small)
    (finding,) = report.findings
    assert (finding.code, finding.line) == ("IN001", 1)
    assert "document of" in finding.message and "max-record-mb" in finding.message


def test_max_record_mb_is_read_from_the_config(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.auditor]\nmax-record-mb = 2\n")
    file = config.read(tmp_path / "pyproject.toml")
    assert config.build(file=file).max_record_bytes == 2 * 1024 * 1024
    (tmp_path / "pyproject.toml").write_text('[tool.auditor]\nmax-record-mb = "big"\n')
    with pytest.raises(Exception, match="max-record-mb must be an integer"):
        config.build(file=config.read(tmp_path / "pyproject.toml"))


# 10. /dev/zero grew without bound; a FIFO blocked the run forever.
def test_devices_and_fifos_are_refused(tmp_path):
    import os

    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    report = audit(["/dev/zero", fifo])
    assert [e.message for e in report.errors] == [
        "/dev/zero: is a device, not a file (pipe it in: `audit -`)",
        f"{fifo}: is a named pipe, not a file (pipe it in: `audit -`)",
    ]


# 11. Stream files held every session until the end of the file.
def test_a_session_closes_at_its_last_line_when_the_file_can_be_read_twice():
    from auditor.formats import stream
    from auditor.model import Location

    def record(line: int, session: str, text: str) -> sources.Record:
        value = {"session_id": session, "role": "user", "content": text}
        return sources.Record(Location("s.jsonl", line), value)

    records = [record(1, "a", "1"), record(2, "b", "2"), record(3, "a", "3"), record(4, "b", "4")]
    collector = stream.Collector(lambda: iter(records))
    closed = [[c.id for c in collector.add(r) if hasattr(c, "messages")] for r in records]
    assert closed == [[], [], ["a"], ["b"]]
    assert list(collector.finish()) == []


# 12. A million unreadable lines were a million findings.
def test_identical_unread_records_are_grouped_past_a_limit(tmp_path):
    report = audit_bytes(tmp_path, b"{}\n" * 1000 + lines(GOOD))
    shown = [f for f in report.findings if f.code == "IN002"]
    assert len(shown) == engine.UNREAD_SHOWN + 1
    assert [f.line for f in shown[:3]] == [1, 2, 3]
    summary = shown[-1]
    assert summary.line == engine.UNREAD_SHOWN + 1
    assert summary.message.startswith(
        f"{1000 - engine.UNREAD_SHOWN} more like this (lines 21, 22, 23, 24, 25, …): "
        "JSON object of no known log format"
    )
    assert report.counts.records == 1001 and report.counts.conversations == 1


def test_grouping_is_the_same_in_spans(tmp_path, small_spans):
    path = tmp_path / "unread.jsonl"
    path.write_bytes(b"{}\n" * 300 + lines(GOOD) + b"[1]\n" * 300)
    settings = config.build()
    one = engine.audit([str(path)], settings, jobs=1)
    two = engine.audit([str(path)], settings, jobs=3)
    assert [f.to_dict() for f in two.findings] == [f.to_dict() for f in one.findings]
    assert len(one.findings) == 2 * (engine.UNREAD_SHOWN + 1)


# 18. Smaller losses.
def test_a_stream_line_typed_message_keeps_its_tool_calls(tmp_path):
    line = _call_line("s", "c1") | {"type": "message"}
    report = audit_bytes(
        tmp_path, lines({"session_id": "s", "role": "user", "content": "go"}, line)
    )
    assert [(f.code, f.line) for f in report.findings] == [("EX001", 2)]


def test_empty_tau2_simulations_are_reported(tmp_path):
    report = audit_bytes(tmp_path, b'{"simulations": []}', "results.json")
    (finding,) = report.findings
    assert (finding.code, finding.pointer) == ("IN002", "/simulations")
    assert finding.message == "tau2 results hold no simulation"


def test_walked_text_that_is_not_utf8_is_skipped_like_prose(tmp_path):
    (tmp_path / "notes.txt").write_bytes(b"caf\xe9 au lait\n")
    (tmp_path / "prose.txt").write_text("just prose\n")
    (tmp_path / "log.jsonl").write_bytes(lines(GOOD))
    report = audit([tmp_path])
    assert report.findings == ()
    assert report.counts.conversations == 1
    assert sorted((u.path.rsplit("/", 1)[-1], u.reason) for u in report.unread) == [
        ("notes.txt", "no transcript"),
        ("prose.txt", "no transcript"),
    ]
