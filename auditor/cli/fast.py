"""A plain `audit PATHS…` run, read from its arguments without typer.

typer and its Click take about 40 ms of every start, a third of a small file's audit and what
a pre-commit hook pays on every commit. The arguments of a run that names paths and options
of `OPTIONS` only are read here as typer reads them: a long option as `--name VALUE` or
`--name=VALUE`, a short one as `-x VALUE`, a repeated one's values collected (`many`) or its
last kept, options and paths in any order, a choice checked against its values. Anything else
(help, a listing, `--explain`, `audit compare`, an unknown option, `--`, short options run
together, a value typer would refuse or would read differently) goes to typer, which reads it
or says what is wrong. `tests/cli/test_fast.py` holds `OPTIONS` and `DEFAULTS` to the
command's declarations and reads a corpus of command lines both ways.
"""

from __future__ import annotations

import os
from typing import Any

from auditor.cli.values import Color, Engine, FailOn, format_error

FLAG, ONE, MANY = "flag", "one", "many"

OPTIONS: dict[str, tuple[str, str]] = {
    "--select": ("select", MANY),
    "--extend-select": ("extend_select", MANY),
    "--ignore": ("ignore", MANY),
    "--extend-ignore": ("extend_ignore", MANY),
    "--fail-on": ("fail_on", ONE),
    "--exit-zero": ("exit_zero", FLAG),
    "--exclude": ("exclude", MANY),
    "--no-respect-gitignore": ("no_respect_gitignore", FLAG),
    "--follow-links": ("follow_links", FLAG),
    "--force-exclude": ("force_exclude", FLAG),
    "--input-format": ("input_format", ONE),
    "--tools": ("tools_file", ONE),
    "--allow-empty": ("allow_empty", FLAG),
    "--format": ("output_format", MANY),
    "-f": ("output_format", MANY),
    "--output": ("output", ONE),
    "-o": ("output", ONE),
    "--show-evidence": ("show_evidence", FLAG),
    "--verbose": ("verbose", FLAG),
    "-v": ("verbose", FLAG),
    "--quiet": ("quiet", FLAG),
    "-q": ("quiet", FLAG),
    "--statistics": ("statistics", FLAG),
    "--color": ("color", ONE),
    "--no-progress": ("no_progress", FLAG),
    "--config": ("config_file", ONE),
    "--isolated": ("isolated", FLAG),
    "--baseline": ("baseline_file", ONE),
    "--write-baseline": ("write_baseline", ONE),
    "--jobs": ("jobs", ONE),
    "-j": ("jobs", ONE),
    "--engine": ("engine", ONE),
    "--scheduler": ("scheduler", ONE),
    "--debug": ("debug", FLAG),
}
"""The options of a plain run: each flag's parameter of the `audit` command, and whether it
is a flag, takes one value (the last given wins) or collects every value given."""

INFORMATION = (
    "show_files",
    "show_reading",
    "show_settings",
    "list_rules",
    "list_formats",
    "explain",
    "version",
)
"""The command's parameters that ask for something else than a run: typer reads those."""

DEFAULTS: dict[str, Any] = {
    "paths": None,
    "select": None,
    "extend_select": None,
    "ignore": None,
    "extend_ignore": None,
    "fail_on": None,
    "exit_zero": False,
    "exclude": None,
    "no_respect_gitignore": False,
    "follow_links": False,
    "force_exclude": False,
    "input_format": "auto",
    "tools_file": None,
    "allow_empty": False,
    "output_format": None,
    "output": None,
    "show_evidence": False,
    "verbose": False,
    "quiet": False,
    "statistics": False,
    "color": Color.auto,
    "no_progress": False,
    "config_file": None,
    "isolated": False,
    "baseline_file": None,
    "write_baseline": None,
    "jobs": "auto",
    "engine": Engine.local,
    "scheduler": None,
    "debug": False,
}
"""Each parameter's value when its option is not given, as the `audit` command declares it."""

_CHOICES: dict[str, Any] = {"fail_on": FailOn, "color": Color, "engine": Engine}


def read(argv: list[str]) -> dict[str, Any] | None:
    """The `audit` command's parameters for `argv`, as typer would pass them; None when the
    arguments are not those of a plain run (typer reads them)."""
    if not argv or argv[0] == "compare" or "_AUDIT_COMPLETE" in os.environ:
        return None
    values: dict[str, Any] = {}
    paths: list[str] = []
    i = 0
    while i < len(argv):
        word = argv[i]
        i += 1
        if word == "-" or not word.startswith("-"):
            paths.append(word)
            continue
        name, equals, attached = word.partition("=") if word.startswith("--") else (word, "", "")
        known = OPTIONS.get(name)
        if known is None:
            return None  # help, a listing, `--`, an unknown option, `-qv`, `-fjson`
        parameter, kind = known
        if kind == FLAG:
            if equals:
                return None
            values[parameter] = True
            continue
        if equals:
            value = attached
        elif i < len(argv) and not argv[i].startswith("-"):
            value, i = argv[i], i + 1
        else:
            return None  # no value, or one that starts with a dash: typer decides
        if kind == MANY:
            values.setdefault(parameter, []).append(value)
        else:
            values[parameter] = value
    if not paths:
        return None
    for parameter, choice in _CHOICES.items():
        if parameter in values:
            if values[parameter] not in choice.__members__.values():
                return None
            values[parameter] = choice(values[parameter])
    if any(format_error(value) for value in values.get("output_format", ())):
        return None
    return {**DEFAULTS, **values, "paths": paths}


def run(argv: list[str]) -> None:
    """Run `audit ARGV` and exit with its status when it is a plain run; return (having done
    nothing) when it is not."""
    options = read(argv)
    if options is None:
        return
    from auditor.cli.exits import exit_with
    from auditor.cli.values import invocation
    from auditor.commands import run as audit_run

    exit_with(lambda: audit_run.main(invocation(options)), options["debug"])
