"""`make test` and `make ecosystem` read the same corpora, so they install the same extras, and
those hold every optional package a reader needs (Zstandard, for Inspect's `.eval` members):
a fresh clone's `make ecosystem` once failed on a log `make test` could read."""

from __future__ import annotations

import ast
import importlib.util
import re
import sys
import tomllib
import zipfile
from pathlib import Path

from packaging.requirements import Requirement

from auditor import DISTRIBUTION
from tests.helpers import REALDATA, ROOT, requires_corpora

PROJECT = DISTRIBUTION  # the project as its own extras name it
ZIP_ZSTANDARD = 93
"""The zip method Inspect writes with INSPECT_USE_ZSTD (`zipfile.ZIP_ZSTANDARD` from 3.14)."""
ZIP_PACKAGES = {zipfile.ZIP_STORED: None, zipfile.ZIP_DEFLATED: None, ZIP_ZSTANDARD: "zstandard"}
"""The package each zip method needs on Python 3.11 to 3.13 (None: the standard library)."""


def _makefile() -> tuple[dict[str, str], dict[str, tuple[list[str], list[str]]]]:
    """The Makefile's variables and its rules: target -> (prerequisites, recipe lines)."""
    variables: dict[str, str] = {}
    rules: dict[str, tuple[list[str], list[str]]] = {}
    recipe: list[str] | None = None
    for line in (ROOT / "Makefile").read_text().splitlines():
        if line.startswith("\t") and recipe is not None:
            recipe.append(line.strip())
            continue
        if not line.strip() or line.startswith("#"):
            continue
        recipe = None
        assignment = re.match(r"^([A-Za-z_]+)\s*[:?]?=\s*(.*)$", line)
        if assignment:
            variables[assignment[1]] = assignment[2].strip()
            continue
        rule = re.match(r"^([^\s:=#][^:=]*):(?!=)\s*(.*)$", line)
        if rule:
            recipe = []
            for target in _expand(rule[1], variables).split():
                rules[target] = (_expand(rule[2], variables).split(), recipe)
    return variables, rules


def _expand(text: str, variables: dict[str, str]) -> str:
    while True:
        expanded = re.sub(r"\$\((\w+)\)", lambda m: variables.get(m[1], ""), text)
        if expanded == text:
            return text
        text = expanded


def _extras(requirements: set[str]) -> set[str]:
    """The extras these requirements name, with those the project's extras name of it."""
    optional = _pyproject()["project"]["optional-dependencies"]
    found: set[str] = set()
    todo = list(requirements)
    while todo:
        extra = todo.pop()
        if extra in found:
            continue
        found.add(extra)
        for spec in optional[extra]:
            requirement = Requirement(spec)
            if requirement.name == PROJECT:
                todo.extend(requirement.extras)
    return found


def installed(target: str) -> set[str]:
    """The project's extras `make TARGET` installs: those of the `pip install` lines of the
    rules it depends on, and those their extras name in turn."""
    _, rules = _makefile()
    prerequisites, _ = rules[target]
    named: set[str] = set()
    installs = 0
    for prerequisite in prerequisites:
        for line in rules.get(prerequisite, ([], []))[1]:
            if "pip install" not in line:
                continue
            installs += 1
            extras = re.search(r"-e\s+'?\.(?:\[([^\]]*)\])?'?", line)
            assert extras is not None, line  # the checkout itself, editable
            named.update(e.strip() for e in (extras[1] or "").split(",") if e.strip())
    assert installs, f"make {target} installs nothing: {prerequisites}"
    return _extras(named)


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def _provided_by(package: str) -> set[str]:
    """The project's extras that name the distribution `package` themselves."""
    optional = _pyproject()["project"]["optional-dependencies"]
    return {
        extra
        for extra, specs in optional.items()
        if any(Requirement(spec).name == package for spec in specs)
    }


def _imported(*folders: str) -> set[str]:
    """The top-level modules the project's modules under `folders` import, anywhere in them."""
    modules: set[str] = set()
    for folder in folders:
        for path in (ROOT / "auditor" / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Import):
                    modules.update(alias.name.partition(".")[0] for alias in node.names)
                elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    modules.add(node.module.partition(".")[0])
    return modules


def test_make_ecosystem_installs_the_extras_make_test_installs():
    test = installed("test")
    assert {"dev", "zstd"} <= test
    assert installed("ecosystem") == test


def test_make_test_installs_every_extra_a_reader_imports():
    """An extra whose package the readers (`formats/`, `sources/`) import is an optional
    format: the logs that need it are read by `make test` and `make ecosystem` alike."""
    optional = _pyproject()["project"]["optional-dependencies"]
    imported = _imported("formats", "sources")
    readers = {
        extra
        for extra, specs in optional.items()
        if extra != "dev"
        and any(Requirement(spec).name.replace("-", "_") in imported for spec in specs)
    }
    assert "zstd" in readers  # `sources/archives.py` imports zstandard for `.eval` members
    assert readers <= installed("test")
    assert readers <= installed("ecosystem")


@requires_corpora
def test_every_eval_member_of_the_corpora_is_readable_by_the_make_test_install():
    methods: dict[int, Path] = {}
    for corpus in REALDATA.parent.glob("realdata*"):
        for path in corpus.rglob("*.eval"):
            with zipfile.ZipFile(path) as archive:
                for info in archive.infolist():
                    methods.setdefault(info.compress_type, path)
    unknown = {m: str(path) for m, path in methods.items() if m not in ZIP_PACKAGES}
    assert not unknown, f"zip methods no reader handles: {unknown}"
    for method, path in methods.items():
        package = ZIP_PACKAGES[method]
        if package is None:
            continue
        assert _provided_by(package) & installed("test"), (method, path)
        assert _provided_by(package) & installed("ecosystem"), (method, path)
        if sys.version_info < (3, 14):  # 3.14's zipfile reads Zstandard members itself
            assert importlib.util.find_spec(package) is not None, (package, path)


def _pytest_arguments(target: str) -> list[str]:
    """The arguments `make TARGET` gives pytest (its one `-m pytest` line)."""
    variables, rules = _makefile()
    (line,) = [line for line in rules[target][1] if "-m pytest" in line]
    return _expand(line, variables).partition("-m pytest")[2].split()


def test_make_test_runs_the_whole_suite():
    """CI runs `make test` (`.ci/run`): it selects nothing away (no path, -k, -m, --deselect,
    --ignore), and what spreads it over the cores is in the extras it installs."""
    assert "make test" in (ROOT / ".ci" / "run").read_text()
    arguments = _pytest_arguments("test")
    words = iter(arguments)
    for word in words:
        assert word.startswith("-"), f"make test names {word}: a part of the suite"
        assert word.split("=")[0] not in _SELECTING, f"make test selects with {word}"
        if word in ("-n", "--numprocesses", "--dist", "-p"):
            next(words)  # the option's value
    if {"-n", "--numprocesses"} & set(arguments):
        dev = _pyproject()["project"]["optional-dependencies"]["dev"]
        assert "pytest-xdist" in {Requirement(spec).name for spec in dev}


_SELECTING = {"-k", "-m", "--deselect", "--ignore", "--ignore-glob", "-x", "--lf", "--sw"}
"""pytest's options that leave tests out, or stop before the end."""


def test_make_fuzz_runs_every_property_with_more_examples():
    """`make fuzz` is the long run of every property-based test (hypothesis marks each
    @given test) with AUDITOR_FUZZ over the 0.2 `make test` runs with."""
    _, rules = _makefile()
    (line,) = [line for line in rules["fuzz"][1] if "-m pytest" in line]
    fuzz = re.search(r"AUDITOR_FUZZ=\$\$\{AUDITOR_FUZZ:-(\d+)\}", line)
    assert fuzz is not None and int(fuzz[1]) > 1, line
    arguments = _pytest_arguments("fuzz")
    assert arguments[arguments.index("-m") + 1] == "hypothesis"
    assert not [a for a in arguments if not a.startswith("-") and a != "hypothesis"]
