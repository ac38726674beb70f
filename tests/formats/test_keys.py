"""`KEYS`: a format that sets it claims that `detect` is false for a JSON object without one of
those keys, and the FileReader offers an object only to the formats that may take it. These
tests hold every claim to its `detect` on every fixture record, and the FileReader's choice to
`formats.detect`'s."""

from __future__ import annotations

from pathlib import Path

import pytest

from auditor import formats, sources
from auditor.model import Location
from auditor.sources import Record
from tests.helpers import FIXTURES

KEYED = [fmt for fmt in formats.FORMATS.values() if fmt.DETECT_KEYS is not None]


def _records() -> list[Record]:
    found = []
    for path in sorted(FIXTURES.rglob("*")):
        if not path.is_file() or path.suffix in (".expected", ".snapshot") or path.name[0] == ".":
            continue
        source = sources.Source(str(path), *sources.kind_of(path.name), True)
        found.extend(r for r in sources.read(source) if isinstance(r, Record))
    return found


RECORDS = _records()
OBJECTS = [r for r in RECORDS if r.kind == "json" and isinstance(r.value, dict)]


def test_the_fixtures_hold_objects_of_every_keyed_format():
    detected = {fmt.NAME for fmt in KEYED for r in OBJECTS if fmt.detect(r)}
    # Cline's files are lists: no object of them is a record
    assert detected == {fmt.NAME for fmt in KEYED} - {"cline"}


@pytest.mark.parametrize("fmt", KEYED, ids=[fmt.NAME for fmt in KEYED])
def test_an_object_a_format_detects_has_one_of_its_keys(fmt):
    for record in OBJECTS:
        if fmt.detect(record):
            assert not fmt.DETECT_KEYS.isdisjoint(record.value), (fmt.NAME, record.location)
            without = {k: v for k, v in record.value.items() if k not in fmt.DETECT_KEYS}
            assert not fmt.detect(Record(record.location, without)), (fmt.NAME, record.location)


def test_the_file_reader_reads_each_record_as_detect_finds_it():
    for record in RECORDS:
        reader = formats.FileReader()
        list(reader.feed(record))
        found = formats.detect(record)
        assert list(reader.seen) == ([found.NAME] if found else []), record.location


def test_a_file_of_many_shapes_is_still_read_by_the_right_format(tmp_path: Path):
    reader = formats.FileReader()
    for i in range(100):  # more shapes than the reader remembers
        value = {"role": "user", f"extra_{i}": i, "content": "hi"}
        list(reader.feed(Record(Location(str(tmp_path), i + 1), value)))
        list(reader.feed(Record(Location(str(tmp_path), i + 1), {"x": i})))
    assert reader.seen == {"message-lines": 100}
