"""Inspect `.eval` archives as sources (`sources/archives.py`): a file that is no readable zip
is one invalid record; a member that cannot be read (not JSON, too large) loses only itself."""

from __future__ import annotations

import io
import zipfile

import orjson

from auditor import config, engine
from tests.helpers import FORMAT_DIR, audit


def _zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def test_a_corrupt_eval_is_one_invalid_record(tmp_path):
    path = tmp_path / "broken.eval"
    path.write_bytes(b"PK\x03\x04 not really a zip")
    report = audit([path])
    assert [(f.code, f.line, f.message[:40]) for f in report.findings] == [
        ("IN001", None, "not a readable zip archive (an Inspect .")
    ]


def test_a_bad_member_loses_only_itself(tmp_path, monkeypatch):
    sample = (FORMAT_DIR / "inspect-ai" / "approval-demo.json").read_bytes()
    one = orjson.dumps(orjson.loads(sample)["samples"][0])
    path = tmp_path / "two.eval"
    path.write_bytes(
        _zip(
            {
                "header.json": b'{"version": 2, "eval": {"eval_id": "e1"}}',
                "samples/1_epoch_1.json": b"{oops",
                "samples/2_epoch_1.json": one,
            }
        )
    )
    report = audit([path])
    assert [(f.code, f.pointer, f.message) for f in report.findings] == [
        (
            "IN001",
            "/samples/1_epoch_1.json",
            "not valid JSON: unexpected character, expected a string key at line 1",
        )
    ]
    assert report.counts.conversations == 1
    settings = config.build()
    small = type(settings)(**{**settings.__dict__, "max_record_bytes": 100})
    report = engine.audit([str(path)], small)
    assert sorted((f.code, f.pointer, f.message) for f in report.findings) == [
        (
            "IN001",
            "/samples/1_epoch_1.json",
            "not valid JSON: unexpected character, expected a string key at line 1",
        ),
        (
            "IN001",
            "/samples/2_epoch_1.json",
            "zip member larger than 100 bytes uncompressed (`max-record-mb` raises the limit)",
        ),
    ]
