"""Each option is declared once, in `cli/table.py`: the typer commands and the reader of a plain
run (`cli/fast.py`) are both made of the table, and no other module of the command line spells
a flag."""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

import typer

from auditor.cli import app, compare, compare_app, table
from tests.helpers import ROOT

COMMAND_LINE = [
    *sorted((ROOT / "auditor" / "cli").glob("*.py")),
    ROOT / "auditor" / "__main__.py",
    ROOT / "auditor" / "__init__.py",
]
"""The modules that read a command line. Elsewhere a flag may be named in a message (`invalid
--select ""`, `cannot read --tools FILE`), never read: those modules see the typed Invocation."""

FLAG = re.compile(r"-[a-zA-Z]|--[a-z][a-z-]*")


def flags_written(path: Path) -> list[str]:
    """Every string literal of a module that is a flag and nothing else (so not a flag named
    in a help text or a message)."""
    return [
        node.value
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and FLAG.fullmatch(node.value)
    ]


def test_each_flag_is_written_once_in_the_modules_that_read_a_command_line():
    written = Counter(flag for path in COMMAND_LINE for flag in flags_written(path))
    declared = {flag for opt in (*table.AUDIT, *compare.COMPARE) for flag in opt.flags}
    assert "--no-progress" in declared and "-f" in declared
    assert set(written) == declared  # nothing read that the table does not declare
    assert {flag: count for flag, count in written.items() if count != 1} == {}


def test_the_commands_are_the_tables_options_in_order():
    for command, opts in ((app, table.AUDIT), (compare_app, compare.COMPARE)):
        params = typer.main.get_command(command).params
        assert [(p.name, tuple(p.opts)) for p in params] == [
            (opt.dest, opt.flags or (opt.dest,)) for opt in opts
        ]
        assert [p.name for p in params if p.hidden] == [opt.dest for opt in opts if opt.hidden]


def test_a_flag_is_false_unless_given_or_its_default_says_true():
    assert (table.QUIET.value(False), table.QUIET.value(True)) == (False, True)
    assert (table.NO_PROGRESS.value(False), table.NO_PROGRESS.value(True)) == (True, False)
    defaults = table.invocation({table.PATHS: ["x"]})
    assert (defaults.progress, defaults.respect_gitignore, defaults.color) == (True, None, "auto")
    given = table.invocation(
        {table.PATHS: ["x"], table.NO_PROGRESS: True, table.NO_RESPECT_GITIGNORE: True}
    )
    assert (given.progress, given.respect_gitignore) == (False, False)
