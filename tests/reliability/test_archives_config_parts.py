"""Archives, configuration and malformed parts (issue 28, items 13-15): an `.eval` whose entries
overlap is refused and a whole archive's decompressed bytes are bounded; `max-record-mb` and
`pending-patterns` are bounded; a content part or tool schema that is dropped is said, once per
conversation."""

from __future__ import annotations

import io
import json
import struct
import zipfile

import pytest

from auditor import config, engine, sources
from auditor.common.errors import ConfigError
from auditor.replay.approvals.options import ApprovalOptions
from auditor.sources import archives
from tests.helpers import audit

HEADER = {"version": 2, "status": "success", "eval": {"task": "t", "model": "m"}}


def sample(i: int) -> dict:
    return {
        "id": i,
        "epoch": 1,
        "messages": [
            {"role": "user", "content": "hi " * 150},
            {"role": "assistant", "content": "hello"},
        ],
    }


def eval_zip(samples: int = 1) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("header.json", json.dumps(HEADER))
        for i in range(1, samples + 1):
            z.writestr(f"samples/{i}_epoch_1.json", json.dumps(sample(i)))
    return out.getvalue()


def overlapping(data: bytes, copies: int) -> bytes:
    """The archive with its last central directory entry repeated: `copies` more names for the
    same compressed bytes (the trick of an overlapping zip bomb)."""
    end = data.rindex(b"PK\x05\x06")
    fields = list(struct.unpack("<4s4H2LH", data[end : end + 22]))
    directory = data[fields[6] : end]
    last = directory.rindex(b"PK\x01\x02")
    entry = directory[last:]
    fields[3] += copies
    fields[4] += copies
    fields[5] += len(entry) * copies
    return data[:end] + entry * copies + struct.pack("<4s4H2LH", *fields)


# 13. Entries overlapping one deflate stream: 28 KB took 8.5 s, ~1,000 entries ~40 minutes.
def test_an_archive_whose_entries_overlap_is_refused(tmp_path):
    path = tmp_path / "bomb.eval"
    path.write_bytes(overlapping(eval_zip(), 50))
    assert len(zipfile.ZipFile(path).infolist()) == 52  # zipfile reads every one of them
    report = audit([path])
    assert [(f.code, f.pointer, f.message) for f in report.findings] == [
        (
            "IN001",
            "",
            "zip entries overlap (several names for the same compressed bytes, as a zip bomb "
            "has): not read",
        )
    ]
    assert report.counts.conversations == 0


def test_what_a_whole_archive_decompresses_to_is_bounded(tmp_path, monkeypatch):
    monkeypatch.setattr(archives, "ARCHIVE_MEMBERS", 2)  # two members' worth of the limit
    limit = 600
    found = list(archives.read_eval("a.eval", io.BytesIO(eval_zip(samples=6)), limit))
    read = [where.pointer for where, value, why in found if why is None]
    refused = [(where.pointer, why) for where, value, why in found if why is not None]
    assert read == ["/header.json", "/samples/1_epoch_1.json", "/samples/2_epoch_1.json"]
    assert refused == [
        (
            "/samples/3_epoch_1.json",
            "the archive decompresses to more than 1,200 bytes (`max-record-mb` times 2): this "
            "member and those after it are not read",
        )
    ]


# 14. `max-record-mb = 9223372036854775807` was OverflowError; 20 pending patterns at the bound
# of one cost 82 ms a tool result.
@pytest.mark.parametrize("value", ["9223372036854775807", "4097", "0"])
def test_max_record_mb_is_bounded(tmp_path, value):
    (tmp_path / "audit.toml").write_text(f"max-record-mb = {value}\n")
    with pytest.raises(ConfigError) as raised:
        config.build(file=config.read(tmp_path / "audit.toml"))
    assert str(raised.value).endswith(
        f"max-record-mb must be an integer from 1 to 4096, got {value}"
    )
    (tmp_path / "audit.toml").write_text("max-record-mb = 4096\n")
    assert config.build(file=config.read(tmp_path / "audit.toml")).max_record_bytes == 4096 << 20


def test_pending_patterns_are_bounded_per_configuration():
    one = r"approval.{0,60}needed.*"  # 60 x 300: within the bound of one pattern
    ApprovalOptions(pending_patterns=(one,))
    with pytest.raises(ConfigError) as raised:
        ApprovalOptions(pending_patterns=tuple(f"{i}{one}" for i in range(20)))
    assert str(raised.value).startswith(
        "pending-patterns together could take too long on every tool result: their repeats "
        "multiply to 360,000, past the 19,200 one configuration may spend"
    )
    with pytest.raises(ConfigError, match="holds 65 patterns: at most 64"):
        ApprovalOptions(pending_patterns=tuple(f"word{i}" for i in range(65)))
    ApprovalOptions(pending_patterns=tuple(f"word{i}" for i in range(64)))


# 15. A malformed content part or tool schema was dropped without a word.
def test_a_malformed_content_part_is_said_once_per_conversation(tmp_path):
    path = tmp_path / "parts.jsonl"
    chat = {
        "id": "c1",
        "messages": [
            {
                "role": "user",
                "content": [{"type": ["text"], "text": "hi"}, {"type": "text", "text": 5}],
            },
            {"role": "assistant", "content": [{"type": "text", "text": 7}]},
        ],
    }
    blocks = {
        "id": "c2",
        "model": "claude-3",
        "messages": [
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": [{"type": "text", "text": "ok"}, {"type": 5, "text": "x"}],
            },
        ],
    }
    path.write_text(json.dumps(chat) + "\n" + json.dumps(blocks) + "\n")
    report = audit([path], select=["IN"])
    assert [(f.code, f.line, f.pointer, f.conversation, f.message) for f in report.findings] == [
        ("IN002", 1, "/messages/0/content/0", "c1",
         "content part skipped: its `type` is not a string (said once per conversation)"),
        ("IN002", 2, "/messages/1/content/1", "c2",
         "content part skipped: its `type` is not a string (said once per conversation)"),
    ]  # fmt: skip
    assert report.counts.conversations == 2


def test_an_invalid_tool_schema_is_a_coverage_note_once_per_conversation(tmp_path):
    function = {"name": "f", "arguments": '{"a": 1}'}
    call = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c", "type": "function", "function": function}]}  # fmt: skip
    result = {"role": "tool", "tool_call_id": "c", "content": "ok"}
    deep: dict = {"type": "object"}
    for _ in range(200):
        deep = {"type": "object", "properties": {"a": deep}}
    lines = []
    for cid, schema in (("s1", {"type": "object", "properties": {"a": {"type": 5}}}), ("s2", deep)):
        tools = [{"type": "function", "function": {"name": "f", "parameters": schema}}]
        messages = [{"role": "user", "content": "go"}, call, result, call, result]
        lines.append(json.dumps({"id": cid, "tools": tools, "messages": messages}))
    (tmp_path / "tools.jsonl").write_text("\n".join(lines) + "\n")
    report = engine.audit([str(tmp_path / "tools.jsonl")], config.build(select=["EX007"]))
    assert report.findings == ()
    assert report.coverage_notes() == [
        "EX007 could not examine 1 of 2 conversations: tool `f`'s declared schema is not "
        "valid JSON Schema",
        "EX007 could not examine 1 of 2 conversations: tool `f`'s declared schema nests "
        "more than 128 levels deep",
    ]
    assert sources.MAX_RECORD_BYTES == 128 << 20
