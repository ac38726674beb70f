"""Which calls a policy is about: a tool's name by glob, and a condition on its arguments.

`call = "update_reservation_*"` (or a list of globs, matched case-sensitively as `fnmatch`
does on POSIX) names the tools; `where = "amount > \\`1000\\`"` is a JMESPath expression over the
call's arguments, true when it gives anything but `null`, `false`, `0`, `""`, `[]` or `{}`.
An expression that fails on a call's arguments (a comparison of a string with a number) does
not match it. JMESPath is imported only when a policy has a `where`.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Sequence
from typing import Any

from auditor.common.errors import ConfigError
from auditor.replay import Exchange


class Calls:
    """The calls of the tools `globs` names whose arguments satisfy `where` (when given); a
    mistake in either is a `ConfigError` when the policy is read."""

    def __init__(self, globs: tuple[str, ...], where: str | None = None) -> None:
        self.globs = globs
        self.where = where
        self._names = re.compile("|".join(map(fnmatch.translate, globs)))
        self._where = _compiled(where) if where else None

    def names(self, tool: str) -> bool:
        """The tool is one of those the globs name."""
        return self._names.match(tool) is not None

    def match(self, exchange: Exchange) -> bool:
        """An assistant's call of a named tool whose arguments satisfy `where`."""
        if exchange.caller != "assistant" or not self.names(exchange.call.name):
            return False
        return self._where is None or _true(self._where, exchange.call.arguments)

    def __str__(self) -> str:
        return " or ".join(f"`{g}`" for g in self.globs)


def globs(value: Any, key: str) -> tuple[str, ...]:
    """A glob or a list of globs, as a config key gives it."""
    found: Sequence[Any] = [value] if isinstance(value, str) else value
    if not isinstance(found, list | tuple | str) or not found:
        raise ConfigError(f"{key} must be a tool name glob or a list of them")
    if not all(isinstance(g, str) and g for g in found):
        raise ConfigError(f"{key} must be a tool name glob or a list of them")
    return tuple(found)


def _compiled(expression: str) -> Any:
    import jmespath
    from jmespath.exceptions import JMESPathError

    try:
        return jmespath.compile(expression)
    except JMESPathError as exc:
        message = " ".join(str(exc).split())
        raise ConfigError(f"where is not a JMESPath expression: {message}") from None
    except RecursionError:
        raise ConfigError("where is nested too deeply to be read") from None


def _true(compiled: Any, arguments: Any) -> bool:
    from jmespath.exceptions import JMESPathError

    try:
        found = compiled.search(arguments if arguments is not None else {})
    except (JMESPathError, TypeError, ValueError, RecursionError):
        return False
    return found not in (None, False, 0, "", [], {})
