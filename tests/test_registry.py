"""The registries are written out by hand: every module is listed, codes and names are unique."""

from __future__ import annotations

import importlib
import pkgutil
import re

import auditor.formats
import auditor.reporters
import auditor.rules
from auditor.formats import FORMATS
from auditor.reporters import REPORTERS
from auditor.rules import FAMILIES, RULES


def _modules(package) -> set[str]:
    return {m.name for m in pkgutil.iter_modules(package.__path__) if not m.name.startswith("_")}


def test_every_rule_module_is_registered():
    registered = {r.check.__module__.rsplit(".", 1)[1] for r in RULES if r.check is not None}
    registered |= {"invalid_record", "unrecognized_record"}
    assert _modules(auditor.rules) == registered


def test_a_rule_identity_is_written_once_in_the_registry():
    """The registry holds each rule's code, name, severity and preview (so that selecting rules
    imports none); a module that said them again could drift from it."""
    for rule in RULES:
        module = importlib.import_module("auditor.rules." + rule.name.replace("-", "_"))
        said = [n for n in ("CODE", "NAME", "SEVERITY", "PREVIEW") if hasattr(module, n)]
        assert said == [], f"{module.__name__} says {said}: the registry holds them"
        assert module.__doc__, f"{module.__name__} documents {rule.code}"


def test_rule_codes_and_names_are_unique_and_well_formed():
    codes = [r.code for r in RULES]
    names = [r.name for r in RULES]
    assert len(set(codes)) == len(codes)
    assert len(set(names)) == len(names)
    for rule in RULES:
        assert re.fullmatch(r"[A-Z]{2}\d{3}", rule.code)
        assert rule.family in FAMILIES
        assert re.fullmatch(r"[a-z]+(-[a-z]+)*", rule.name)
        assert not rule.name.startswith(("no-", "disallow-"))


def test_rule_module_is_named_by_its_slug():
    for rule in RULES:
        if rule.check is not None:
            assert rule.check.__module__ == "auditor.rules." + rule.name.replace("-", "_")


def test_every_format_module_is_registered():
    # a format's module is named by the format, `-` written `_` (`swe-agent` in swe_agent.py)
    readers = _modules(auditor.formats) - {"boundary", "catalog", "contract"}
    assert readers == {name.replace("-", "_") for name in FORMATS}
    for name, module in FORMATS.items():
        assert name == module.NAME
        assert module.__name__ == "auditor.formats." + name.replace("-", "_")
        assert callable(module.detect) and callable(module.parse)


def test_every_reporter_module_is_registered_and_loads():
    assert _modules(auditor.reporters) == set(REPORTERS)
    for name, reporter in REPORTERS.items():
        assert reporter.module == "auditor.reporters." + name
        assert callable(importlib.import_module(reporter.module).write), name


def test_every_list_of_output_formats_is_read_from_the_reporter_registry():
    from auditor.cli.table import FORMAT
    from auditor.commands import statistics

    assert FORMAT.check is not None
    assert not any(map(FORMAT.check, REPORTERS))  # the choices -f accepts
    assert FORMAT.check("xml") is not None
    listed = re.findall(r"\b[a-z]+\b(?= \(|,| or |\.)", FORMAT.help.split(". Default")[0])
    assert listed == list(REPORTERS)
    assert "html (one self-contained page)" in FORMAT.help
    assert statistics.FORMATS == ("table", "json", "jsonl")
    for name, reporter in REPORTERS.items():
        assert reporter.statistics in (*statistics.FORMATS, ""), name
    assert {n for n, r in REPORTERS.items() if r.repository_root} == {
        "sarif",
        "gitlab",
        "github",
    }
    assert {n for n, r in REPORTERS.items() if r.timelines} == {"html"}
    assert {n for n, r in REPORTERS.items() if r.json} == {"json", "jsonl"}
