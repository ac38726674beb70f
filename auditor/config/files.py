"""Configuration files: where `[tool.auditor]` is found, read as TOML and checked for known keys.

The configuration lives in `[tool.auditor]` of the nearest `pyproject.toml` that has such a
table, searching from the current directory up to the filesystem root (as ruff does with
`[tool.ruff]`), or in the file `--config` names: a `pyproject.toml` (its `[tool.auditor]`
table) or any other TOML file holding the same keys at its top level.
"""

from __future__ import annotations

import difflib
import os
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from auditor.errors import ConfigError
from auditor.rules import FAMILIES

PYPROJECT = "pyproject.toml"


KEYS = (
    "select",
    "ignore",
    "fail-on",
    "exclude",
    "severity",
    "per-file-ignores",
    "respect-gitignore",
    "max-record-mb",
    "tools",
    "fail-on-increase",
)
"""`fail-on-increase` is read by `audit compare` (`auditor.compare.config_limits`)."""


TABLES = {name: prefix for prefix, name in FAMILIES.items()}
"""Option table name -> rule family prefix (`loops` -> `LP`)."""


@dataclass(frozen=True)
class FileConfig:
    """The auditor's table of a configuration file, as read and not yet validated."""

    path: Path
    values: dict[str, Any]
    in_pyproject: bool
    """True when `values` is the `[tool.auditor]` table of a pyproject.toml."""

    @property
    def name(self) -> str:
        return shown(self.path)

    def table(self, sub: str | None = None) -> str:
        """How a table is named in an error: `[tool.auditor.loops] `, or `[loops] ` standalone."""
        parts = (["tool", "auditor"] if self.in_pyproject else []) + ([sub] if sub else [])
        return f"[{'.'.join(parts)}] " if parts else ""

    def error(self, message: str, sub: str | None = None) -> ConfigError:
        return ConfigError(f"invalid config in {self.name}: {self.table(sub)}{message}")


def shown(path: Path) -> str:
    """A path as errors show it: relative to the current directory when that is shorter."""
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return str(path)
    return relative if len(relative) <= len(str(path)) else str(path)


def discover(start: Path | None = None) -> FileConfig | None:
    """The `[tool.auditor]` table of the nearest pyproject.toml that has one, or None."""
    here = (start or Path.cwd()).resolve()
    for directory in (here, *here.parents):
        candidate = directory / PYPROJECT
        if candidate.is_file():
            table = _tool_table(_parse(candidate))
            if table is not None:
                return _checked(FileConfig(candidate, table, in_pyproject=True))
    return None


def read(path: str | Path) -> FileConfig:
    """The configuration in the file `--config` names."""
    path = Path(path)
    document = _parse(path)
    if path.name == PYPROJECT:
        table = _tool_table(document)
        if table is None:
            raise ConfigError(f"invalid config in {path}: it has no [tool.auditor] table")
        return _checked(FileConfig(path, table, in_pyproject=True))
    return _checked(FileConfig(path, document, in_pyproject=False))


def _tool_table(document: dict[str, Any]) -> Any:
    tool = document.get("tool")
    return tool.get("auditor") if isinstance(tool, dict) else None


def _parse(path: Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as fp:
            return tomllib.load(fp)
    except OSError as exc:
        reason = (exc.strerror or str(exc)).lower()
        raise ConfigError(f"cannot read config {path}: {reason}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"invalid config in {shown(path)}: not valid TOML: {exc}") from exc
    except RecursionError as exc:  # tomllib recurses once per level of nesting
        raise ConfigError(
            f"invalid config in {shown(path)}: not valid TOML: arrays or tables nested too deeply"
        ) from exc


def _checked(config: FileConfig) -> FileConfig:
    if not isinstance(config.values, dict):
        raise config.error("must be a table")
    for key, value in config.values.items():
        if key in TABLES or key == "formats":
            if not isinstance(value, dict):
                raise config.error(f"`{key}` must be a table of options, got {shown_value(value)}")
        elif key not in KEYS:
            raise config.error(
                f"unknown key `{key}`{suggest(key, [*KEYS, *TABLES])}; the keys are "
                f"{', '.join(KEYS)}, the "
                f"option tables {', '.join(TABLES)} and the table of declared formats, formats"
            )
    return config


def suggest(key: str, known: Sequence[str]) -> str:
    hint = difflib.get_close_matches(key, known, n=1)
    return f" (did you mean `{hint[0]}`?)" if hint else ""


def is_strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def shown_value(value: Any, depth: int = 0) -> str:
    """A value as an error shows it: strings quoted, tables and lists by their TOML look."""
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        if depth >= 3:
            return "[…]"
        shown = ", ".join(shown_value(v, depth + 1) for v in value[:5])
        return "[" + shown + (", …]" if len(value) > 5 else "]")
    return str(value)
