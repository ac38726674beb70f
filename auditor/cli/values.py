"""What the command line's values mean, without typer: the choices of the options that take
one, and the parsed options as the run's typed `Invocation`. Shared by the typer command
(`cli/audit.py`) and the plain-run reader (`cli/fast.py`)."""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Any

from auditor.errors import AuditorError

if TYPE_CHECKING:
    from auditor.commands.run import Invocation, Output


class FailOn(StrEnum):
    error = "error"
    warning = "warning"
    note = "note"
    never = "never"


class Engine(StrEnum):
    local = "local"
    dask = "dask"


class Color(StrEnum):
    auto = "auto"
    always = "always"
    never = "never"


def format_error(value: str) -> str | None:
    """Why `-f`'s value is not FORMAT or FORMAT:FILE with a known FORMAT; None when it is."""
    from auditor.reporters import REPORTERS

    name, colon, path = value.partition(":")
    if name not in REPORTERS:
        return f"`{value}` is not FORMAT or FORMAT:FILE with FORMAT one of {', '.join(REPORTERS)}"
    if colon and not path:
        return f"`{value}` names no FILE after the colon"
    return None


def parse_outputs(formats: list[str] | None, output: str | None) -> tuple[Output, ...]:
    """`-f FORMAT` (repeated, each with `:FILE` or not) and `-o FILE` as the run's outputs.

    A `-f` without a file goes to `-o FILE`, else to stdout; there can be one such. Without
    any `-f`, the one output is in the default format (to `-o FILE`, if given).
    """
    from auditor.commands.run import Output

    outputs: list[Output] = []
    bare: list[str] = []
    for value in formats or ():
        name, colon, path = value.partition(":")
        if colon:
            outputs.append(Output(name, path))
        else:
            bare.append(name)
    if len(bare) > 1:
        raise AuditorError(
            f"-f {bare[0]} and -f {bare[1]} would both go to "
            f"{'-o ' + output if output else 'stdout'}: give all but one a file, "
            "-f FORMAT:FILE"
        )
    if bare or output is not None or not outputs:
        outputs.insert(0, Output(bare[0] if bare else None, output))
    return tuple(outputs)


def parse_jobs(value: str) -> int:
    """`--jobs`: a number of processes, or `auto` for one per core (the engine then starts no
    more workers than the input keeps busy: `Invocation.fitted_jobs`)."""
    if value.strip().lower() == "auto":
        from auditor.engine.runners import cpus

        return cpus()
    try:
        jobs = int(value)
    except ValueError:
        jobs = 0
    if jobs < 1:
        raise AuditorError(f"invalid --jobs `{value}`: use a number >= 1 or `auto`")
    return jobs


def invocation(o: dict[str, Any]) -> Invocation:
    """The parsed command line (the `audit` command's parameters by name) as the run's typed
    Invocation."""
    from auditor.commands.run import Invocation

    return Invocation(
        paths=tuple(o["paths"] or ()),
        outputs=parse_outputs(o["output_format"], o["output"]),
        input_format=o["input_format"],
        tools=o["tools_file"],
        select=tuple(o["select"] or ()),
        extend_select=tuple(o["extend_select"] or ()),
        ignore=tuple(o["ignore"] or ()),
        extend_ignore=tuple(o["extend_ignore"] or ()),
        exclude=tuple(o["exclude"] or ()),
        respect_gitignore=False if o["no_respect_gitignore"] else None,
        follow_links=o["follow_links"],
        force_exclude=o["force_exclude"],
        fail_on=o["fail_on"].value if o["fail_on"] is not None else None,
        exit_zero=o["exit_zero"],
        allow_empty=o["allow_empty"],
        progress=not o["no_progress"],
        quiet=o["quiet"],
        verbose=o["verbose"],
        show_evidence=o["show_evidence"] or o["verbose"],
        color=o["color"].value,
        config_file=o["config_file"],
        isolated=o["isolated"],
        baseline_file=o["baseline_file"],
        write_baseline=o["write_baseline"],
        statistics=o["statistics"],
        jobs=parse_jobs(o["jobs"]),
        fitted_jobs=o["jobs"].strip().lower() == "auto",
        engine=o["engine"].value,
        scheduler=_scheduler(o["engine"], o["scheduler"], o["jobs"]),
    )


def _scheduler(engine: Engine, scheduler: str | None, jobs: str) -> str | None:
    """`--scheduler` belongs to `--engine dask`, whose cluster then decides the parallelism."""
    if scheduler is None:
        return None
    if engine is not Engine.dask:
        raise AuditorError("--scheduler needs --engine dask")
    if jobs.strip().lower() not in ("1", "auto"):
        raise AuditorError("--jobs sizes a local run: with --scheduler, the cluster's workers do")
    return scheduler
