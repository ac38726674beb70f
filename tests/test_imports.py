"""The shape of auditor/: no import circle, no module past 500 lines outside formats/, and no
private name imported from another package.

The import graph is read from the source with `ast` (nothing is imported). An edge is every
`import auditor.x` and `from auditor.x import y` (to the module `auditor.x.y` when there is one,
else to `auditor.x`), at module level or inside a function: a lazy import still runs, so a
circle through one is still a circle. Only imports under `if TYPE_CHECKING:` are left out: they
never run, and they are how a module names a type for its annotations without depending on
the module that defines it. A parent package is not an edge of its submodules (Python imports
it first, whatever the submodule says).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.helpers import ROOT

MAX_LINES = 500
LONG_ALLOWED = ("auditor.formats",)
"""Readers of a log format may be long: a format has many shapes, and one module per format
keeps each findable by its name (the largest readers are packages already)."""


def modules(root: Path = ROOT) -> dict[str, Path]:
    """Every module of auditor/ by dotted name (a package by its own name)."""
    found = {}
    for path in sorted((root / "auditor").rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(body: list[ast.stmt]) -> list[ast.Import | ast.ImportFrom]:
    """The import statements that run: anywhere (functions, classes, `try`, `if`) but the body
    of an `if TYPE_CHECKING:`."""
    found: list[ast.Import | ast.ImportFrom] = []
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        elif isinstance(node, ast.If) and _type_checking(node):
            found.extend(_imports(node.orelse))
        else:
            for field in ("body", "orelse", "finalbody", "handlers"):
                for item in getattr(node, field, None) or ():
                    if isinstance(item, ast.ExceptHandler):
                        found.extend(_imports(item.body))
                    elif isinstance(item, ast.stmt):
                        found.extend(_imports([item]))
    return found


def imported(source: str, known: set[str]) -> list[str]:
    """The auditor modules (or, for `from m import name`, `m.name`) a module's source imports."""
    names = []
    for node in _imports(ast.parse(source).body):
        if isinstance(node, ast.Import):
            names.extend(a.name for a in node.names if a.name.startswith("auditor"))
        elif node.level == 0 and node.module and node.module.startswith("auditor"):
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                names.append(full if full in known else f"{node.module}:{alias.name}")
    return names


def graph(sources: dict[str, str]) -> dict[str, set[str]]:
    """Module -> the modules it imports."""
    known = set(sources)
    edges: dict[str, set[str]] = {}
    for name, source in sources.items():
        targets = {i.split(":")[0] for i in imported(source, known)}
        edges[name] = {t for t in targets if t in known and t != name}
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The import circles: strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def _package(module: str, packages: set[str]) -> str:
    return module if module in packages else module.rpartition(".")[0]


def private_imports(sources: dict[str, str], packages: set[str]) -> list[str]:
    """`importer: name` for each private name (`_x`, module or attribute) imported from outside
    the package that owns it. A package's private names are its own and its subpackages'."""
    known = set(sources)
    found = []
    for importer, source in sources.items():
        here = _package(importer, packages)
        for target in imported(source, known):
            parts = target.replace(":", ".").split(".")
            for i, part in enumerate(parts):
                if part.startswith("_") and not part.startswith("__"):
                    owner = ".".join(parts[:i])
                    if not (here == owner or here.startswith(owner + ".")):
                        found.append(f"{importer}: {'.'.join(parts[: i + 1])}")
                    break
    return found


def _sources() -> tuple[dict[str, str], set[str]]:
    found = modules()
    packages = {name for name, path in found.items() if path.name == "__init__.py"}
    return {name: path.read_text(encoding="utf-8") for name, path in found.items()}, packages


def test_no_import_circle():
    sources, _ = _sources()
    assert cycles(graph(sources)) == []


def test_no_module_over_500_lines_outside_formats():
    long = {
        name: n
        for name, path in modules().items()
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
        and not name.startswith(LONG_ALLOWED)
    }
    assert long == {}


def test_no_private_name_imported_across_packages():
    sources, packages = _sources()
    assert private_imports(sources, packages) == []


def test_the_ground_floor_imports_nothing_above_it():
    """`auditor.common` is what every layer uses: its modules import only each other, and its
    `__init__` imports nothing, so importing one module costs that module alone."""
    sources, _ = _sources()
    edges = graph(sources)
    ground = {name for name in sources if name.startswith("auditor.common.")}
    assert ground
    assert {name: edges[name] - ground for name in ground if edges[name] - ground} == {}
    assert _imports(ast.parse(sources["auditor.common"]).body) == []


# The checks themselves, on made-up modules: each can fail.


def test_a_circle_through_a_lazy_import_is_found_and_type_checking_is_not():
    sources = {
        "auditor.a": "from auditor import b\n",
        "auditor.b": "def f():\n    from auditor.c import x\n",
        "auditor.c": "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from auditor.d import y\n"
        "try:\n    import auditor.a\nexcept ImportError:\n    pass\n",
        "auditor.d": "from auditor.c import z\n",
    }
    assert cycles(graph(sources)) == [["auditor.a", "auditor.b", "auditor.c"]]
    del sources["auditor.c"]
    assert cycles(graph(sources)) == []


@pytest.mark.parametrize(
    ("importer", "statement", "flagged"),
    [
        ("auditor.engine.run", "from auditor.formats._common import x", True),
        ("auditor.cli", "from auditor.reporters import _escape", True),
        ("auditor.run", "from auditor.rules._loops import key", True),
        ("auditor.run", "from auditor.config import _show", True),
        ("auditor.config.files", "from auditor.config import _show", False),
        ("auditor.formats.otel", "from auditor.formats._common import x", False),
        ("auditor.formats.otel.spans", "from auditor.formats import _common", False),
        ("auditor.formats.mcp", "from auditor.formats.otel import _spans", True),
        ("auditor.rules.loops", "from auditor.rules._loops import key", False),
    ],
)
def test_private_names_belong_to_their_package(importer, statement, flagged):
    sources = {
        importer: statement + "\n",
        "auditor.formats": "",
        "auditor.formats._common": "",
        "auditor.formats.otel": "",
        "auditor.reporters": "",
        "auditor.reporters._escape": "",
        "auditor.rules": "",
        "auditor.rules._loops": "",
        "auditor.config": "",
        "auditor.config.files": "",
    }
    packages = {"auditor.formats", "auditor.formats.otel", "auditor.reporters", "auditor.rules"}
    packages.add("auditor.config")
    assert bool(private_imports(sources, packages)) is flagged
