"""Configuration files: where the configuration is found, read as TOML and checked for known keys.

As ruff finds its own: from the audited paths (their nearest common directory; the working
directory for stdin, URLs or no path) up to the filesystem root, the first directory holding
`.auditor.toml` or `auditor.toml` (the keys at their top level), or a `pyproject.toml` with a
`[tool.auditor]` table, in that order; a `pyproject.toml` without the table is passed over.
`--config FILE` names the file instead: any TOML file with a `[tool.auditor]` table (a
pyproject.toml) is read for that table, any other for its top-level keys.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from auditor.common.errors import ConfigError
from auditor.common.structs import dataclass
from auditor.rules import FAMILIES
from auditor.sources import is_url, os_reason, read_regular

if TYPE_CHECKING:
    from pathlib import Path

PYPROJECT = "pyproject.toml"
STANDALONE = (".auditor.toml", "auditor.toml")
"""Files that hold the configuration at their top level, looked for before pyproject.toml."""


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
    "read-timeout",
    "fail-on-increase",
    "suppress",
    "rule",
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
    found: bool = False
    """Found by `discover`, not named with --config: the files it names must lie in its tree
    (a checkout under audit cannot have its configuration read a file outside it)."""

    @property
    def name(self) -> str:
        return shown(self.path)

    def table(self, sub: str | None = None) -> str:
        """How a table is named in an error: `[tool.auditor.loops] `, or `[loops] ` standalone."""
        parts = (["tool", "auditor"] if self.in_pyproject else []) + ([sub] if sub else [])
        return f"[{'.'.join(parts)}] " if parts else ""

    def error(self, message: str, sub: str | None = None) -> ConfigError:
        return ConfigError(f"invalid config in {self.name}: {self.table(sub)}{message}")


def shown(path: str | os.PathLike[str]) -> str:
    """A path as errors show it: relative to the current directory when that is shorter."""
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return str(path)
    return relative if len(relative) <= len(str(path)) else str(path)


def discover(start: str | os.PathLike[str] | None = None) -> FileConfig | None:
    """The configuration nearest to `start` (default: the working directory), or None.

    Looked for with `os.path` (as `Path.resolve()` and its parents would): pathlib is imported
    only for a file found, not by every run."""
    directory = os.path.realpath(os.getcwd() if start is None else start)
    while True:
        for name in STANDALONE:
            candidate = os.path.join(directory, name)
            if os.path.isfile(candidate):
                config = FileConfig(
                    _path(candidate), _parse(candidate), in_pyproject=False, found=True
                )
                return _checked(config)
        candidate = os.path.join(directory, PYPROJECT)
        if os.path.isfile(candidate):
            table = _tool_table(_parse(candidate))
            if table is not None:
                return _checked(FileConfig(_path(candidate), table, in_pyproject=True, found=True))
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def start_of(paths: Sequence[str]) -> str:
    """Where discovery starts for a run over `paths`: their nearest common directory (a file's
    own directory), or the working directory when no local path is given."""
    local = [p for p in paths if p != "-" and not is_url(p)]
    if not local:
        return os.getcwd()
    directories = [
        os.path.abspath(p if os.path.isdir(p) else os.path.dirname(p) or ".") for p in local
    ]
    try:
        return os.path.commonpath(directories)
    except ValueError:  # paths on two drives (Windows)
        return directories[0]


def _path(path: str | os.PathLike[str]) -> Path:
    from pathlib import Path  # here: a run without a configuration file never pays for it

    return Path(path)


def read(path: str | Path) -> FileConfig:
    """The configuration in the file `--config` names: its `[tool.auditor]` table when it has
    one (a pyproject.toml, whatever its name), else its top-level keys."""
    path = _path(path)
    document = _parse(path)
    table = _tool_table(document)
    if table is not None:
        return _checked(FileConfig(path, table, in_pyproject=True))
    if path.name == PYPROJECT:
        raise ConfigError(f"invalid config in {path}: it has no [tool.auditor] table")
    return _checked(FileConfig(path, document, in_pyproject=False))


def _tool_table(document: dict[str, Any]) -> Any:
    tool = document.get("tool")
    return tool.get("auditor") if isinstance(tool, dict) else None


CONFIG_BYTES = 16 * 1024 * 1024
"""A configuration file larger than this is not read (a pyproject.toml holds a few KB)."""


def _parse(path: str | os.PathLike[str]) -> dict[str, Any]:
    import tomllib  # here: a run without a configuration file never pays for it

    try:
        return tomllib.loads(read_regular(path, CONFIG_BYTES).decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(f"invalid config in {shown(path)}: not valid UTF-8: {exc}") from exc
    except OSError as exc:
        raise ConfigError(f"cannot read config {path}: {os_reason(exc)}") from exc
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
    import difflib

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
