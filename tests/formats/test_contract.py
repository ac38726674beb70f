"""The reader contract is total: every reader, built in or declared, states every member of
`contract.Format`, and the registry's names are its readers'. mypy holds the built-in readers
to the Protocol's types (`catalog.built_in`); these tests hold them, and a declared format, at
run time, and check that a reader lacking a member is no Format."""

from __future__ import annotations

import types

import pytest

from auditor.formats import FORMATS, catalog, contract, declare
from auditor.formats.contract import Format

READERS = catalog.built_in()
DECLARED = declare("acme", {"detect": "schema", "messages": "steps", "role": "actor"}, "here")


@pytest.mark.parametrize("reader", [*READERS, DECLARED], ids=lambda r: r.NAME)
def test_every_reader_states_every_member(reader):
    assert isinstance(reader, Format)
    if isinstance(reader, types.ModuleType):  # stated in the module itself, none by default
        assert set(contract.MEMBERS) <= set(vars(reader)), reader.NAME
    assert reader.KIND in (contract.JSON, contract.TEXT, None)
    assert reader.DETECT_KEYS is None or (
        isinstance(reader.DETECT_KEYS, frozenset)
        and all(isinstance(k, str) for k in reader.DETECT_KEYS)
    )
    collector = reader.Collector
    assert collector is None or contract.Collector in collector.__mro__, reader.NAME
    for member in ("sniff", "detect", "parse", "inferred"):
        assert callable(getattr(reader, member)), (reader.NAME, member)


def test_the_members_named_are_the_protocols():
    assert set(contract.MEMBERS) == {n for n in vars(Format) if not n.startswith("_")}


def test_a_reader_lacking_a_member_is_no_format():
    openai = FORMATS["openai"]
    lacking = types.ModuleType("lacking")
    for member in contract.MEMBERS:
        setattr(lacking, member, getattr(openai, member))
    assert isinstance(lacking, Format)
    del lacking.sniff
    assert not isinstance(lacking, Format)


def test_the_registry_names_its_readers_and_looks_one_up_alone():
    assert {reader.NAME for reader in READERS} == catalog.NAMES
    assert len(READERS) == len(catalog.NAMES)
    assert list(FORMATS) == [reader.NAME for reader in READERS]
    for reader in READERS:
        assert reader.__name__ == "auditor.formats." + reader.NAME.replace("-", "_")
        assert FORMATS[reader.NAME] is reader
    assert catalog.known("acme", [DECLARED]) and not catalog.known("acme")
    assert catalog.names([DECLARED]) == ["acme", *FORMATS]
