"""A plain run's command line is read without typer (`cli/fast.py`) exactly as typer reads it."""

from __future__ import annotations

import inspect
import subprocess
import sys

import pytest
import typer
from typer.testing import CliRunner

from auditor.cli import app, fast, values
from auditor.cli.audit import audit
from auditor.commands import run
from tests.helpers import FIXTURES, ROOT


def test_options_and_defaults_are_the_commands_own():
    command = typer.main.get_command(app)
    declared = {}
    for param in command.params:
        if param.param_type_name != "option" or param.name in (*fast.INFORMATION, "show_help"):
            assert not set(getattr(param, "opts", ())) & set(fast.OPTIONS), param.name
            continue
        kind = fast.FLAG if param.is_flag else fast.MANY if param.multiple else fast.ONE
        for flag in (*param.opts, *param.secondary_opts):
            declared[flag] = (param.name, kind)
    assert declared == fast.OPTIONS
    signature = inspect.signature(audit).parameters
    plain = {name for name, _ in fast.OPTIONS.values()} | {"paths"}
    assert {name: signature[name].default for name in plain} == fast.DEFAULTS


PLAIN = [
    ["runs.jsonl"],
    ["a.jsonl", "logs/", "-f", "json", "-o", "out.json", "--quiet"],
    ["--select", "EX,FB", "--select", "LP", "x.jsonl", "--ignore", "CF"],
    ["-j", "2", "x.jsonl", "--fail-on", "error", "--color", "never"],
    ["x.jsonl", "--format=sarif:a.sarif", "-f", "github", "--output=o.txt"],
    ["-", "--no-progress", "--exit-zero"],
    ["x", "--engine", "local", "--jobs", "auto", "-v"],
    ["x", "-o", "a", "-o", "b", "--fail-on", "never"],
    ["x", "--tools", "t.json", "--config", "c.toml", "--baseline", "b.json"],
    ["x", "--input-format", "openai", "--exclude", "*.tmp", "--exclude", "y", "--statistics"],
    ["x", "--no-respect-gitignore", "--force-exclude", "--allow-empty", "--show-evidence"],
    ["x", "y", "--write-baseline", "w.json", "--debug", "--extend-select", "FB", "--color=auto"],
    ["x", "--extend-ignore", "LP004", "--engine=dask", "--scheduler", "tcp://h:8786"],
    ["", "x"],
]


@pytest.mark.parametrize("argv", PLAIN, ids=" ".join)
def test_a_plain_run_is_read_as_typer_reads_it(argv, monkeypatch):
    read: list[run.Invocation] = []

    def capture(invocation: run.Invocation) -> int:
        read.append(invocation)
        return 0

    monkeypatch.setattr(run, "main", capture)
    result = CliRunner().invoke(app, argv)
    options = fast.read(argv)
    assert options is not None
    if read:
        assert values.invocation(options) == read[0]
    else:  # typer's run refused a value (`--scheduler` without dask): so does the fast one's
        with pytest.raises(Exception, match="scheduler"):
            values.invocation(options)
        assert result.exit_code == 2


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["--help"],
        ["x", "-h"],
        ["x", "--rules"],
        ["--explain", "EX001"],
        ["compare", "a.json", "b.json"],
        ["x", "-qv"],
        ["x", "--", "-y"],
        ["x", "--fail-on", "ERROR"],
        ["x", "-f", "nope"],
        ["x", "-fjson"],
        ["x", "--quiet=1"],
        ["--select", "EX"],
        ["x", "-o"],
        ["x", "-o", "-"],
        ["x", "--unknown"],
        ["x", "--show-files"],
    ],
    ids=lambda argv: " ".join(argv) or "nothing",
)
def test_anything_else_goes_to_typer(argv):
    assert fast.read(argv) is None


def test_a_plain_run_imports_neither_typer_nor_what_it_does_not_need(tmp_path):
    # Start-up: typer, importlib.metadata (plugins), jsonlines (attrs) for an empty file, and
    # the optional Dask and fsspec are not imported by `audit EMPTY`; typer not by a small log.
    # Nor, for an empty file, a rule's module, a reader, the replay, the URL and .gitignore
    # readers, OpenSSL (hashlib) or pathlib: what a run of no record does not use.
    code = (
        "import sys\n"
        "from auditor.__main__ import main\n"
        "sys.argv = ['audit', *sys.argv[1:]]\n"
        "try:\n"
        "    main()\n"
        "except SystemExit as exit:\n"
        "    print(exit.code, sorted(m for m in ('typer', 'importlib.metadata', 'jsonlines',\n"
        "          'fsspec', 'dask', 'auditor.rules.unknown_tool', 'auditor.formats.openai',\n"
        "          'auditor.replay', 'auditor.sources.remote', 'auditor.sources.gitignore',\n"
        "          'hashlib', 'pathlib') if m in sys.modules))\n"
    )
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    small = FIXTURES / "demo" / "agent-runs.jsonl"

    def loaded(*argv: str) -> str:
        done = subprocess.run(
            [sys.executable, "-c", code, *argv], cwd=ROOT, capture_output=True, text=True
        )
        return done.stdout.strip().splitlines()[-1]

    assert loaded(str(empty), "--allow-empty", "-q") == "0 []"
    used = "'auditor.formats.openai', 'auditor.replay', 'auditor.rules.unknown_tool', 'hashlib'"
    written = loaded(str(small), "-q", "--exit-zero", "-o", str(tmp_path / "out"))
    # jsonlines only for a line orjson rejects: none in this log
    assert written == f"0 [{used}, 'pathlib']"


def test_the_default_is_one_job_per_core_fitted_to_the_input():
    # `--jobs auto` unless told otherwise: as many workers as the input keeps busy
    from auditor.engine.runners import cpus

    options = fast.read(["logs/"])
    assert options is not None
    default = values.invocation(options)
    assert (default.jobs, default.fitted_jobs) == (cpus(), True)
    one = values.invocation(fast.read(["logs/", "-j", "1"]) or {})
    assert (one.jobs, one.fitted_jobs) == (1, False)
