"""The typer side of the option table: each command's parameters written from `cli/table.py`,
and the command class that turns a usage error into one `audit: error: …` line."""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any

import typer

# typer 0.28 vendors Click; the pin in pyproject.toml keeps this private path stable.
from typer._click.exceptions import ClickException
from typer.core import TyperCommand

from auditor.cli.values import Kind, Opt

Given = Mapping[Opt, Any]
"""A command's values, keyed by the option that took each, as typer passes them."""


class Command(TyperCommand):
    """The command, with usage errors as one `audit: error: …` line (exit 2) instead of
    typer's boxed panel, which wraps badly in a narrow CI log."""

    help_hint = "audit -h"

    def main(self, *args: Any, **kwargs: Any) -> Any:
        kwargs["standalone_mode"] = False
        try:
            status = super().main(*args, **kwargs)
        except ClickException as exc:
            message = exc.format_message().rstrip(".")
            print(f"audit: error: {message} ({self.help_hint} for help)", file=sys.stderr)
            sys.exit(exc.exit_code)
        except typer.Abort:
            sys.exit(130)
        sys.exit(status or 0)


def command(opts: Sequence[Opt]) -> Callable[[Callable[[Given], None]], Callable[..., None]]:
    """A typer callback for `act(given)` whose signature declares `opts`, in their order: typer
    reads its parameters from it as from one written by hand."""

    def make(act: Callable[[Given], None]) -> Callable[..., None]:
        def callback(**values: Any) -> None:
            act({opt: values[opt.dest] for opt in opts if opt.dest in values})

        callback.__name__ = callback.__qualname__ = act.__name__
        callback.__doc__ = act.__doc__
        callback.__signature__ = inspect.Signature([_parameter(opt) for opt in opts])  # type: ignore[attr-defined]
        return callback

    return make


def _parameter(opt: Opt) -> inspect.Parameter:
    """`opt` as typer declares a parameter: `Annotated[type, typer.Option(...)] = default`."""
    if opt.kind in (Kind.ARGUMENT, Kind.ARGUMENTS):
        info: Any = typer.Argument(metavar=opt.metavar, help=opt.help, show_default=False)
    else:
        extra: dict[str, Any] = {}
        if opt.kind is Kind.HELP:
            extra = {"is_eager": True, "expose_value": False, "callback": _help}
        elif opt.check is not None:
            extra = {"callback": _checked(opt.check)}
        info = typer.Option(
            *opt.flags,
            metavar=opt.metavar,
            help=opt.help,
            rich_help_panel=opt.panel,
            show_default=False,
            hidden=opt.hidden,
            **extra,
        )
    kind, default = _typed(opt)
    return inspect.Parameter(
        opt.dest, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=Annotated[kind, info]
    )


def _typed(opt: Opt) -> tuple[Any, Any]:
    """The type typer reads `opt`'s values as, and what it passes when `opt` is not given."""
    if opt.kind is Kind.ARGUMENT:
        return str, inspect.Parameter.empty
    if opt.kind in (Kind.FLAG, Kind.HELP):
        return bool, False
    if opt.kind in (Kind.MANY, Kind.ARGUMENTS):
        return list[str] | None, None
    kind: Any = opt.choices or str  # a value, or one of the choices
    return (kind if opt.default is not None else kind | None), opt.absent


def _checked(check: Callable[[str], str | None]) -> Callable[[list[str] | None], list[str] | None]:
    """A callback that refuses, as Click refuses a bad choice, the values `check` says why of."""

    def callback(values: list[str] | None) -> list[str] | None:
        for value in values or ():
            error = check(value)
            if error is not None:
                raise typer.BadParameter(error)
        return values

    return callback


def _help(context: typer.Context, value: bool) -> None:
    if value:
        print(context.get_help())
        raise typer.Exit(0)
