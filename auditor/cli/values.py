"""What the command line's values are, without typer: `Opt`, the record of one option that
`cli/table.py` declares each option with; the choices of the options that take one; and what
`-f`, `-o`, `--jobs` and `--scheduler` mean to a run."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import KW_ONLY
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from auditor.common.errors import AuditorError
from auditor.common.structs import dataclass

if TYPE_CHECKING:
    from auditor.commands.run import Output


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


class CompareFormat(StrEnum):
    table = "table"
    json = "json"
    html = "html"


class Kind(StrEnum):
    FLAG = "flag"
    """Given or not."""
    VALUE = "value"
    """One value; the last given wins."""
    MANY = "many"
    """Every value given, collected."""
    CHOICE = "choice"
    """One of `choices`."""
    ARGUMENT = "argument"
    """A positional argument, required."""
    ARGUMENTS = "arguments"
    """The positional arguments, any number."""
    HELP = "help"
    """Print the help and exit."""


NO_METAVAR = ""
"""The metavar of an option that takes no value: no `<bool>` in the help."""


@dataclass(frozen=True, eq=False)
class Opt:
    """One option (or argument) of a command, as the help shows it and a run reads it."""

    flags: tuple[str, ...]
    """Long flag first, then the short one; none for an argument."""
    dest: str
    """The command's parameter; the `Invocation` field of the same name, unless `field` is
    False."""
    kind: Kind
    _: KW_ONLY
    help: str
    panel: str | None = None
    metavar: str = NO_METAVAR
    default: Any = None
    """The value when the option is not given, as typer would pass it (a choice's by its
    value). A flag is False unless given, or True unless given when its default says True
    (`--no-progress` is the run's `progress`)."""
    choices: type[StrEnum] | None = None
    check: Callable[[str], str | None] | None = None
    """Why a value is refused (None when it is not), as Click refuses a bad choice."""
    run: bool = True
    """False: it asks for something else than a run (help, a listing), which typer reads."""
    field: bool = True
    """False: no `Invocation` field of its own: `invocation()` says what it means (or, for
    `--debug`, the command reads it)."""
    hidden: bool = False

    def value(self, raw: Any) -> Any:
        """`raw`, as typer passes it (or `fast` reads it), as the run's `Invocation` holds it."""
        if self.kind is Kind.FLAG:
            return bool(raw) != bool(self.default)
        if self.kind in (Kind.MANY, Kind.ARGUMENTS):
            return tuple(raw or ())
        if self.kind is Kind.CHOICE and raw is not None and self.choices is not None:
            return self.choices(raw).value
        return raw

    @property
    def absent(self) -> Any:
        """What typer passes when the option is not given."""
        if self.kind is Kind.FLAG:
            return False
        if self.kind is Kind.CHOICE and self.default is not None and self.choices is not None:
            return self.choices(self.default)
        return self.default


def format_error(value: str) -> str | None:
    """Why `-f`'s value is not FORMAT or FORMAT:FILE with a known FORMAT; None when it is."""
    from auditor.reporters import REPORTERS

    name, colon, path = value.partition(":")
    if name not in REPORTERS:
        return f"`{value}` is not FORMAT or FORMAT:FILE with FORMAT one of {', '.join(REPORTERS)}"
    if colon and not path:
        return f"`{value}` names no FILE after the colon"
    return None


def parse_outputs(formats: Iterable[str], output: str | None) -> tuple[Output, ...]:
    """`-f FORMAT` (repeated, each with `:FILE` or not) and `-o FILE` as the run's outputs.

    A `-f` without a file goes to `-o FILE`, else to stdout; there can be one such. Without
    any `-f`, the one output is in the default format (to `-o FILE`, if given).
    """
    from auditor.commands.run import Output

    outputs: list[Output] = []
    bare: list[str] = []
    for value in formats:
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


def scheduler(engine: str, address: str | None, jobs: str) -> str | None:
    """`--scheduler` belongs to `--engine dask`, whose cluster then decides the parallelism."""
    if address is None:
        return None
    if engine != Engine.dask:
        raise AuditorError("--scheduler needs --engine dask")
    if jobs.strip().lower() not in ("1", "auto"):
        raise AuditorError("--jobs sizes a local run: with --scheduler, the cluster's workers do")
    return address
