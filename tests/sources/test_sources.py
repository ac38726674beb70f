"""Reading inputs: files, directories, stdin, .gz, and every way a line can be broken."""

from __future__ import annotations

import gzip
import io
import json
import os

import pytest

from auditor import sources
from auditor.model import Location
from tests.helpers import audit

CONVERSATION = {"id": "c1", "messages": [{"role": "user", "content": "hi"}]}


def line(cid: str = "c1") -> bytes:
    return json.dumps({**CONVERSATION, "id": cid}).encode() + b"\n"


def records(path) -> list:
    return list(sources.read(sources.Source(str(path), *sources.kind_of(str(path)), True)))


def test_jsonl_records_carry_their_line(tmp_path):
    p = tmp_path / "a.jsonl"
    p.write_bytes(line("a") + b"\n  \n" + line("b"))
    got = records(p)
    assert [(r.location.line, r.value["id"]) for r in got] == [(1, "a"), (4, "b")]


def test_bad_lines_are_invalid_records_and_the_rest_is_read(tmp_path):
    p = tmp_path / "a.jsonl"
    p.write_bytes(line("a") + b"{oops\n" + b"\xff\xfe\n" + line("b") + b'{"cut": ')
    got = records(p)
    kinds = [(type(r).__name__, r.location.line) for r in got]
    assert kinds == [
        ("Record", 1),
        ("InvalidRecord", 2),
        ("InvalidRecord", 3),
        ("Record", 4),
        ("InvalidRecord", 5),
    ]
    assert got[2].reason == "not valid UTF-8: byte 0xff at column 1"
    assert got[4].reason.startswith("not valid JSON: the text ends before the JSON value does")


def test_crlf_and_stray_carriage_return_do_not_shift_lines(tmp_path):
    p = tmp_path / "a.jsonl"
    # A lone \r inside a line would start a new line in text mode.
    p.write_bytes(line("a").replace(b"\n", b"\r\n") + b'{"id": "b\\r", "x": "\r"}\n' + line("c"))
    got = records(p)
    assert [r.location.line for r in got] == [1, 2, 3]
    assert got[2].value["id"] == "c"


def test_bom_is_skipped(tmp_path):
    p = tmp_path / "a.jsonl"
    p.write_bytes(b"\xef\xbb\xbf" + line("a"))
    assert records(p)[0].value["id"] == "a"


def test_gzip_jsonl(tmp_path):
    p = tmp_path / "a.jsonl.gz"
    p.write_bytes(gzip.compress(line("a") + line("b")))
    assert [r.value["id"] for r in records(p)] == ["a", "b"]


def test_corrupt_gzip_reports_where_it_broke(tmp_path):
    p = tmp_path / "a.jsonl.gz"
    data = gzip.compress(line("a") * 50)
    p.write_bytes(data[: len(data) // 2])
    got = records(p)
    assert isinstance(got[-1], sources.InvalidRecord)
    assert got[-1].reason.startswith("compressed stream is corrupt or truncated")
    assert all(isinstance(r, sources.Record) for r in got[:-1])


def test_document_has_no_line_until_resolved(tmp_path):
    p = tmp_path / "a.json"
    p.write_text(json.dumps([CONVERSATION], indent=2))
    (rec,) = records(p)
    assert rec.location == Location(str(p))
    assert rec.document is not None


def test_invalid_document_names_line(tmp_path):
    p = tmp_path / "a.json"
    p.write_text('[\n  {"id": "x",\n   "messages": [}\n]\n')
    (rec,) = records(p)
    assert isinstance(rec, sources.InvalidRecord)
    assert rec.location.line == 3
    assert "column" in rec.reason


def test_json_file_holding_json_lines_is_read_line_by_line(tmp_path):
    p = tmp_path / "a.json"
    p.write_bytes(line("a") + line("b"))
    assert [(r.location.line, r.value["id"]) for r in records(p)] == [(1, "a"), (2, "b")]


def test_discover_walks_sorted_recursive_and_filters_suffixes(tmp_path):
    (tmp_path / "b").mkdir()
    (tmp_path / "a.jsonl").write_bytes(line())
    (tmp_path / "b" / "c.json").write_text("{}")
    (tmp_path / "b" / "notes.md").write_text("# not a log")
    (tmp_path / "b" / "d.ndjson.gz").write_bytes(gzip.compress(line()))
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "x.jsonl").write_bytes(line())
    (tmp_path / ".hidden.jsonl").write_bytes(line())
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "x.jsonl").write_bytes(line())
    (tmp_path / ".env").write_text("KEY=1\n")
    (tmp_path / "b" / "plot.png").write_bytes(b"\x89PNG")
    found = [(type(s).__name__, s.path) for s in sources.discover([str(tmp_path)])]
    rel = [(kind, os.path.relpath(p, tmp_path)) for kind, p in found]
    assert rel == [
        ("Skipped", ".hidden"),  # a hidden directory is named, not entered
        ("Source", ".hidden.jsonl"),  # a hidden file whose name promises a log is read
        ("Source", "a.jsonl"),
        ("Source", os.path.join("b", "c.json")),
        ("Source", os.path.join("b", "d.ndjson.gz")),
        ("Source", os.path.join("b", "notes.md")),  # sniffed by its first bytes when read
        ("Skipped", os.path.join("b", "plot.png")),  # listed, so that the summary can say so
    ]  # `.git` and `.env`: not a word
    walked = sources.discover([str(tmp_path)])
    kinds = {os.path.basename(s.path): s.kind for s in walked if isinstance(s, sources.Source)}
    assert kinds["notes.md"] == "sniff" and kinds["a.jsonl"] == "jsonl"


def test_symlink_loop_is_walked_once(tmp_path):
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "a.jsonl").write_bytes(line())
    os.symlink(tmp_path, tmp_path / "logs" / "loop")
    os.symlink(tmp_path / "nowhere", tmp_path / "logs" / "dangling.jsonl")
    found = [s.path for s in sources.discover([str(tmp_path)])]
    assert [os.path.basename(p) for p in found] == ["a.jsonl"]


def test_missing_path_is_a_path_error(tmp_path):
    (item,) = list(sources.discover([str(tmp_path / "nope.jsonl")]))
    assert isinstance(item, sources.PathError)
    assert item.reason == "no such file or directory"


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (line("a") + line("b"), ["a", "b"]),  # JSON Lines
        (json.dumps([CONVERSATION], indent=2).encode(), ["c1"]),  # a pretty-printed document
        (gzip.compress(line("z"), mtime=0), ["z"]),  # compressed (mtime 0: one test id)
    ],
)
def test_stdin_is_sniffed(monkeypatch, data, expected):
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BufferedReader(io.BytesIO(data))))
    report = audit(["-"])
    assert report.counts.conversations == len(expected)
    assert report.findings == ()


def test_unreadable_lines_are_counted_and_reported_with_their_line(tmp_path):
    p = tmp_path / "mixed.jsonl"
    p.write_bytes(line("a") + b"garbage\n\n" + b"\xc3\x28\n" + line("b"))
    report = audit([p])
    assert report.counts.records == 4  # the blank line is not a record
    assert report.counts.conversations == 2
    assert [(f.code, f.line) for f in report.findings] == [("IN001", 2), ("IN001", 4)]


def test_lines_orjson_rejects_read_as_jsonlines_reads_them(tmp_path):
    # Lines go to orjson as bytes first; those it rejects go to jsonlines, whose reading of
    # them (records, reasons, excerpts, line numbers) is the one kept.
    p = tmp_path / "odd.jsonl"
    p.write_bytes(
        b'\xef\xbb\xbf\x0c{"id": "a"}\n'  # a BOM, then a form feed JSON does not allow
        b'{"id": "b"}\x0b\n'  # a vertical tab after the value
        b'\x1e{"id": "c"}\n'  # a record separator in front (RFC 7464)
        b"  \x0c  \n"  # blank to jsonlines
        b'{"id": "\xff"}\n'  # invalid UTF-8
        b"null\n"
        b'{"id": "\\ud800"}\n'  # an unpaired surrogate
        b' {"id": "d"} \r\n'
        b'\xef\xbb\xbf{"id": "e"}\n'  # a BOM after the first line
        b'\xe2\x80\xa8{"id": "f"}\n'  # Unicode whitespace in front
        b"[1, 2]"
    )
    got = [
        (r.location.line, r.value)
        if isinstance(r, sources.Record)
        else (r.location.line, r.reason, r.excerpt)
        for r in records(p)
    ]
    assert got == [
        (
            1,
            "not valid JSON: unexpected text where a JSON value should start at column 1",
            '{"id": "a"}',
        ),
        (
            2,
            "not valid JSON: more text after the JSON value (two on one line?) at column 12",
            '{"id": "b"}',
        ),
        (3, {"id": "c"}),
        (5, "not valid UTF-8: byte 0xff at column 9", '{"id": "\ufffd"}'),
        (6, None),
        (7, "not valid JSON: no low surrogate in string at column 9", '{"id": "\\ud800"}'),
        (8, {"id": "d"}),
        (9, {"id": "e"}),
        (
            10,
            "not valid JSON: unexpected text where a JSON value should start at column 1",
            '{"id": "f"}',
        ),
        (11, [1, 2]),
    ]


def test_over_long_line_is_reported_in_its_place(tmp_path):
    p = tmp_path / "long.jsonl"
    p.write_bytes(line("a") + b'{"x": "' + b"y" * 200 + b'"}\n\n' + line("b"))
    source = sources.Source(str(p), *sources.kind_of(str(p)), True)
    got = list(sources.read(source, limit=100))
    assert [(type(r).__name__, r.location.line) for r in got] == [
        ("Record", 1),
        ("InvalidRecord", 2),
        ("Record", 4),
    ]
    assert got[1].reason == (
        "line of 210 bytes is larger than the limit of 100 bytes: not read "
        "(`max-record-mb` raises the limit)"
    )
