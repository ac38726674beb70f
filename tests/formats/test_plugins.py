"""Readers shipped as plugins (`catalog.plugins`): tried before the built-in ones, looked for
without importlib.metadata where none can be, and each one that is broken a configuration error."""

from __future__ import annotations

import sys
import types

import pytest

from auditor import config, formats
from auditor.common import entrypoints
from auditor.common.errors import ConfigError
from auditor.formats import catalog, contract
from auditor.model import Conversation
from tests.helpers import conversations


class _EntryPoint:
    def __init__(self, name: str, load) -> None:
        self.name, self.value, self.load = name, f"tests.{name}", load


@pytest.fixture
def entry_points(monkeypatch):
    """Install fake `auditor.formats` entry points for one test."""
    installed: list[_EntryPoint] = []
    import importlib.metadata

    monkeypatch.setattr(
        importlib.metadata,
        "entry_points",
        lambda group=None: [e for e in installed if group == formats.ENTRY_POINTS],
    )
    monkeypatch.setattr(entrypoints, "may_declare", lambda group: True)
    formats.plugins.cache_clear()
    catalog._builtin_and_plugins.cache_clear()
    yield installed
    formats.plugins.cache_clear()
    catalog._builtin_and_plugins.cache_clear()


def _plugin(**members) -> types.ModuleType:
    """A plugin's reader module stating every member, the defaults `contract`'s."""
    reader = types.ModuleType("acme_reader")
    reader.KIND = contract.JSON
    reader.DETECT_KEYS = None
    reader.sniff = contract.no_sniff
    reader.Collector = None
    reader.inferred = contract.no_inference
    reader.parse = lambda record: iter([])
    for name, value in members.items():
        setattr(reader, name, value)
    return reader


def test_a_plugin_reader_is_tried_before_the_built_in_ones(tmp_path, entry_points):
    reader = _plugin(
        NAME="acme-openai",
        detect=lambda record: isinstance(record.value, dict) and "acme" in record.value,
        parse=lambda record: iter([Conversation("acme-1", "acme-openai", record.location, ())]),
    )
    entry_points.append(_EntryPoint("acme", lambda: reader))
    path = tmp_path / "a.json"
    path.write_text('{"acme": 1, "messages": [{"role": "user", "content": "hi"}]}')
    (conversation,) = conversations(path)
    assert conversation.format == "acme-openai"  # not read as OpenAI's `messages`
    assert "acme-openai" in config.build(input_format="acme-openai").input_format


def test_plugins_are_looked_for_without_importlib_metadata_only_where_none_can_be(
    tmp_path, monkeypatch
):
    # importlib.metadata costs a sixth of a run's start: it is imported only when the
    # entry_points.txt of some installed distribution names the group.
    import importlib.metadata

    found = bool(list(importlib.metadata.entry_points(group=formats.ENTRY_POINTS)))
    assert entrypoints.may_declare(formats.ENTRY_POINTS) or not found
    info = tmp_path / "acme_reader-1.0.dist-info"
    info.mkdir()
    (info / "entry_points.txt").write_text("[console_scripts]\nacme = acme:main\n")
    from importlib.machinery import PathFinder

    # Only this folder, and the standard library's finder (a library imported by another test
    # may have added a finder of distributions of its own: then importlib always decides).
    monkeypatch.setattr(sys, "path", [str(tmp_path), str(tmp_path / "absent")])
    monkeypatch.setattr(sys, "meta_path", [PathFinder])
    entrypoints._scan.cache_clear()
    assert not entrypoints.may_declare("acme.readers")
    (info / "entry_points.txt").write_text("[acme.readers]\nacme = acme_reader\n")
    entrypoints._scan.cache_clear()  # read once a process: installs do not change in a run
    assert entrypoints.may_declare("acme.readers")


def test_a_broken_plugin_is_a_config_error(entry_points):
    def fail():
        raise ImportError("no module named acme_reader")

    entry_points.append(_EntryPoint("acme", fail))
    with pytest.raises(ConfigError, match=r"plugin `acme` .* failed to load: ImportError"):
        formats.plugins()
    entry_points[:] = [_EntryPoint("clash", lambda: _plugin(NAME="openai", detect=len))]
    formats.plugins.cache_clear()
    with pytest.raises(ConfigError, match="is named `openai`, as another format is"):
        formats.plugins()
    assert sys.modules.get("acme_reader") is None


def test_a_plugin_states_every_member_of_the_contract(entry_points):
    # The reader's members are never looked up by name: one it lacks is named when it loads.
    lacking = _plugin(NAME="acme", detect=len)
    del lacking.KIND, lacking.inferred
    entry_points.append(_EntryPoint("acme", lambda: lacking))
    with pytest.raises(ConfigError) as raised:
        formats.plugins()
    assert str(raised.value) == (
        "the `auditor.formats` plugin `acme` has no `KIND`, `inferred`: a reader states every "
        "member of auditor.formats.contract.Format (its defaults are in that module)"
    )
    entry_points[:] = [_EntryPoint("acme", lambda: _plugin(NAME=b"acme", detect=len))]
    formats.plugins.cache_clear()
    with pytest.raises(ConfigError, match="plugin `acme` has a NAME that is not a string"):
        formats.plugins()
