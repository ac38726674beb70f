"""`[tool.auditor]` and the command line turned into one typed Settings.

The configuration lives in `[tool.auditor]` of the nearest `pyproject.toml` that has such a
table, searching from the current directory up to the filesystem root (as ruff does with
`[tool.ruff]`), or in the file `--config` names: a `pyproject.toml` (its `[tool.auditor]`
table) or any other TOML file holding the same keys at its top level. The command line wins:
`--select` starts the rule selection over (the file's `select` and `ignore` no longer apply),
`--ignore` adds to the file's `ignore`, `--fail-on` replaces `fail-on`.

Options are grouped by rule family, one table per family named as in `rules.FAMILIES`
(`[tool.auditor.loops]`, `[tool.auditor.approvals]`): each kebab-case key is set on every rule
of that family whose `Options` dataclass has the matching snake_case field, with its value
checked against the field's type. Nothing here names a rule's options: a new rule with an
`Options` field is configurable by that alone.
"""

from __future__ import annotations

import dataclasses
import difflib
import os
import tomllib
import types
import typing
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from auditor import rules as registry
from auditor.errors import ConfigError
from auditor.findings import Severity
from auditor.formats import FORMATS
from auditor.model import ToolSpec
from auditor.rules import FAMILIES, Rule
from auditor.sources import MAX_RECORD_BYTES, Exclude, os_reason, read_regular

FAIL_ON = ("error", "warning", "note", "never")
DEFAULT_FAIL_ON = "warning"
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
    "read-timeout",
    "fail-on-increase",
)
"""`fail-on-increase` is read by `audit compare` (`auditor.compare.config_limits`)."""
TABLES = {name: prefix for prefix, name in FAMILIES.items()}
"""Option table name -> rule family prefix (`loops` -> `LP`)."""


@dataclass(frozen=True)
class Settings:
    """Everything a run needs to know, validated."""

    rules: tuple[Rule, ...]
    fail_on: Severity | None = Severity.WARNING
    """The lowest severity that fails the run; None for `never`."""
    input_format: str | None = None
    """A format forced on every record; None to detect each record's own."""
    severity: dict[str, Severity] = field(default_factory=dict)
    """Per-rule severity overrides."""
    options: dict[str, Any] = field(default_factory=dict)
    """Per-rule options instances, by code; rules not named here use their defaults."""
    exclude: tuple[str, ...] = ()
    """Globs of paths not to read (see `sources.Exclude`)."""
    root: str = "."
    """The directory `exclude` and `per-file-ignores` globs are relative to: the configuration
    file's own."""
    max_record_bytes: int = MAX_RECORD_BYTES
    """A line or document larger than this is IN001, skipped unread (`max-record-mb`)."""
    extend_exclude: tuple[str, ...] = ()
    """`--exclude` globs, relative to the working directory."""
    respect_gitignore: bool = True
    """A directory walk leaves out what .gitignore files list."""
    read_timeout: float = 60.0
    """Seconds an HTTP(S) server may stay silent before a URL is given up on (`read-timeout`)."""
    follow_links: bool = False
    """A walk follows symbolic links out of the directory named (`--follow-links`; never into
    /proc, /sys or /dev)."""
    per_file_ignores: tuple[tuple[str, frozenset[str]], ...] = ()
    """(glob, rule codes) pairs: findings of those rules in matching files are dropped."""
    config_file: str | None = None
    """The configuration file read, as errors name it; None when there is none."""
    origins: dict[str, str] = field(default_factory=dict)
    """Where each setting came from: `default`, the file's name or `command line`."""
    tools: tuple[ToolSpec, ...] | None = None
    """Tools declared from outside the logs (`--tools`, `tools`), for conversations that
    declare none; None when no file was given."""
    timelines: bool = False
    """Also build a bounded timeline of each conversation with findings (`auditor.timeline`),
    for reporters that show one (`-f html`); the command line sets it, no configuration key."""
    screens: bool = True
    """Skip a rule's check where its screen proves it cannot fire (`Rule.screen`). False runs
    every check on every conversation: the tests compare the two; no option sets it."""

    def severity_of(self, rule: Rule) -> Severity:
        return self.severity.get(rule.code, rule.severity)

    def options_of(self, rule: Rule) -> Any:
        found = self.options.get(rule.code)
        return found if found is not None else rule.default_options()

    def enabled(self, code: str) -> bool:
        return any(r.code == code for r in self.rules)

    def excluder(self) -> Exclude:
        """What `exclude` and `--exclude` leave out, each relative to its own directory."""
        return Exclude(self.exclude, self.root).extend(self.extend_exclude, ".")

    def ignored_in(self, path: str) -> frozenset[str]:
        """The codes `per-file-ignores` drops for findings in `path`."""
        codes: set[str] = set()
        for glob, ignored in self.per_file_ignores:
            if Exclude([glob], self.root)(path):
                codes.update(ignored)
        return frozenset(codes)


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


CONFIG_BYTES = 16 * 1024 * 1024
"""A configuration file larger than this is not read (a pyproject.toml holds a few KB)."""


def _parse(path: Path) -> dict[str, Any]:
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
        if key in TABLES:
            if not isinstance(value, dict):
                raise config.error(f"`{key}` must be a table of options, got {_show(value)}")
        elif key not in KEYS:
            raise config.error(
                f"unknown key `{key}`{_suggest(key, [*KEYS, *TABLES])}; the keys are "
                f"{', '.join(KEYS)} and the "
                f"option tables {', '.join(TABLES)}"
            )
    return config


def _suggest(key: str, known: Sequence[str]) -> str:
    hint = difflib.get_close_matches(key, known, n=1)
    return f" (did you mean `{hint[0]}`?)" if hint else ""


def split_codes(values: Iterable[str] | None, option: str = "--select") -> list[str]:
    """`--select EX001,EX002 --select LP` -> ["EX001", "EX002", "LP"].

    A trailing comma is forgiven; a value with no code at all (`--select ""`) is an error,
    as it would otherwise mean "no --select" and quietly fall back to the configuration.
    """
    out: list[str] = []
    for value in values or ():
        parts = [part.strip() for part in value.split(",") if part.strip()]
        if not parts:
            raise ConfigError(f'invalid {option} "{value}": it names no rule')
        out.extend(parts)
    return out


def build(
    *,
    select: Iterable[str] | None = None,
    ignore: Iterable[str] | None = None,
    extend_select: Iterable[str] | None = None,
    extend_ignore: Iterable[str] | None = None,
    fail_on: str | None = None,
    input_format: str | None = None,
    exclude: Iterable[str] | None = None,
    respect_gitignore: bool | None = None,
    file: FileConfig | None = None,
    tools: str | None = None,
    follow_links: bool = False,
) -> Settings:
    """Settings from the configuration file and the command line, which wins.

    Raises ConfigError naming what is wrong, and where.
    """
    values = file.values if file is not None else {}
    origins: dict[str, str] = {}

    def origin(key: str, from_command_line: bool) -> None:
        origins[key] = (
            "command line" if from_command_line else file.name if key in values else "default"
        )

    rules = _selection(file, select, ignore, extend_select, extend_ignore)
    origin("select", bool(select))
    origin("ignore", bool(ignore))
    origins["extend-select"] = "command line" if extend_select else "default"
    origins["extend-ignore"] = "command line" if extend_ignore else "default"

    level = fail_on
    if level is None and file is not None and "fail-on" in values:
        level = values["fail-on"]
        if not isinstance(level, str) or level.lower() not in FAIL_ON:
            raise file.error(f"fail-on must be one of {', '.join(FAIL_ON)}, got {_show(level)}")
    level = (level or DEFAULT_FAIL_ON).lower()
    if level not in FAIL_ON:
        raise ConfigError(f"invalid --fail-on `{fail_on}`: use one of {', '.join(FAIL_ON)}")
    origin("fail-on", fail_on is not None)

    forced = None if input_format in (None, "", "auto") else input_format
    if forced is not None and forced not in FORMATS:
        raise ConfigError(
            f"unknown --input-format `{input_format}`: use auto or one of {', '.join(FORMATS)}"
        )
    origins["input-format"] = "command line" if forced else "default"

    gitignore = values.get("respect-gitignore", True)
    if file is not None and not isinstance(gitignore, bool):
        raise file.error(f"respect-gitignore must be true or false, got {_show(gitignore)}")
    origin("respect-gitignore", respect_gitignore is not None)
    origin("exclude", False)
    origins["extend-exclude"] = "command line" if exclude else "default"
    for key in ("severity", "per-file-ignores", *TABLES):
        origin(key, False)
    origin("tools", bool(tools))
    origin("read-timeout", False)
    origins["follow-links"] = "command line" if follow_links else "default"
    return Settings(
        rules=rules,
        fail_on=None if level == "never" else Severity(level),
        input_format=forced,
        severity=_severities(file) if file is not None else {},
        options=rule_options(file, registry.RULES) if file is not None else {},
        exclude=tuple(_strings(file, values, "exclude")),
        root=str(file.path.parent) if file is not None else ".",
        extend_exclude=tuple(e for e in exclude or () if e.strip()),
        respect_gitignore=gitignore if respect_gitignore is None else respect_gitignore,
        follow_links=follow_links,
        per_file_ignores=_per_file_ignores(file) if file is not None else (),
        config_file=file.name if file is not None else None,
        origins=origins,
        max_record_bytes=_record_limit(file),
        read_timeout=_read_timeout(file),
        tools=_tools(tools, file, values),
    )


def _tools(
    given: str | None, file: FileConfig | None, values: Mapping[str, Any]
) -> tuple[ToolSpec, ...] | None:
    """The tools `--tools FILE` declares, else the configuration's `tools = "FILE"` (a path
    relative to the configuration file)."""
    from auditor import toolsfile

    if given:
        return toolsfile.read(given)
    if file is None or "tools" not in values:
        return None
    path = values["tools"]
    if not isinstance(path, str) or not path:
        raise file.error(f"tools must be the path of a file, got {_show(path)}")
    return toolsfile.read(file.path.parent / path, origin=f"tools file (from {file.name})")


def _selection(
    file: FileConfig | None,
    select: Iterable[str] | None,
    ignore: Iterable[str] | None,
    extend_select: Iterable[str] | None,
    extend_ignore: Iterable[str] | None,
) -> tuple[Rule, ...]:
    """The rules to run, in ruff's layers: the file's `select` minus its `ignore` (or, when
    given, the command line's `--select` alone), plus `--extend-select`, minus `--ignore` and
    `--extend-ignore`. IN001 always stays (`rules.ALWAYS`)."""
    values = file.values if file is not None else {}
    file_select = _strings(file, values, "select")
    file_ignore = _strings(file, values, "ignore")
    if file is not None:
        _check_selectors(file, "select", file_select)
        _check_selectors(file, "ignore", file_ignore)
        for selector in file_ignore:
            _in_file(file, "ignore", registry.check_ignorable, selector)
    cli_select = split_codes(select, "--select")
    added = split_codes(extend_select, "--extend-select")
    removed = split_codes(ignore, "--ignore") + split_codes(extend_ignore, "--extend-ignore")
    for selector in removed:
        registry.check_ignorable(selector)
    if cli_select:
        # As in ruff, the command line's --select starts the selection over.
        enabled = _codes(cli_select)
    else:
        enabled = _codes(file_select or ["ALL"]) - _codes(file_ignore)
    enabled = (enabled | _codes(added)) - _codes(removed)
    return registry.select(sorted(enabled))


def _codes(selectors: Iterable[str]) -> set[str]:
    return {rule.code for selector in selectors for rule in registry.matching(selector)}


def _in_file(file: FileConfig, key: str, check: Any, *args: Any, sub: str | None = None) -> Any:
    """`check(*args)`, its ConfigError restated as an error of `key` in the file."""
    try:
        return check(*args)
    except ConfigError as exc:
        raise file.error(f"{key}: {exc}", sub) from exc


def _per_file_ignores(file: FileConfig) -> tuple[tuple[str, frozenset[str]], ...]:
    """`[tool.auditor.per-file-ignores]`: glob = [rules], as `exclude` matches globs."""
    table = file.values.get("per-file-ignores", {})
    if not isinstance(table, dict):
        raise file.error(f"per-file-ignores must be a table of glob = [rules], got {_show(table)}")
    entries = []
    for glob, selectors in table.items():
        if not _is_strings(selectors):
            raise file.error(
                f"{glob} must be a list of rule codes, prefixes or names, got {_show(selectors)}",
                "per-file-ignores",
            )
        codes: set[str] = set()
        for selector in selectors:
            _in_file(file, glob, registry.check_ignorable, selector, sub="per-file-ignores")
            matched = _in_file(file, glob, registry.matching, selector, sub="per-file-ignores")
            codes.update(rule.code for rule in matched)
        entries.append((glob, frozenset(codes)))
    return tuple(entries)


MAX_RECORD_MB = 4096
"""The most `max-record-mb` may raise the bound to: a read reserves that much memory at once,
and 64 GiB already fails on a 24 GiB machine (2**63 overflowed)."""


def _record_limit(file: FileConfig | None) -> int:
    value = file.values.get("max-record-mb") if file is not None else None
    if value is None:
        return MAX_RECORD_BYTES
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= MAX_RECORD_MB:
        raise file.error(  # type: ignore[union-attr]
            f"max-record-mb must be an integer from 1 to {MAX_RECORD_MB}, got {_show(value)}"
        )
    return value * 1024 * 1024


def _read_timeout(file: FileConfig | None) -> float:
    if file is None or file.values.get("read-timeout") is None:
        return Settings.read_timeout
    value = file.values["read-timeout"]
    if not isinstance(value, int | float) or isinstance(value, bool) or not 0 < value <= 86400:
        raise file.error(f"read-timeout must be seconds, above 0 and at most 86400: {_show(value)}")
    return float(value)


def _strings(file: FileConfig | None, values: Mapping[str, Any], key: str) -> list[str]:
    value = values.get(key, [])
    if file is not None and not _is_strings(value):
        raise file.error(f"{key} must be a list of strings, got {_show(value)}")
    return list(value)


def _check_selectors(file: FileConfig, key: str, selectors: Sequence[str]) -> None:
    for selector in selectors:
        _in_file(file, key, registry.matching, selector)


def _severities(file: FileConfig) -> dict[str, Severity]:
    """`severity = {LP001 = "error", CF = "note"}`: codes, prefixes or names; the narrowest wins."""
    table = file.values.get("severity", {})
    if not isinstance(table, dict):
        raise file.error(f"severity must be a table of rule = level, got {_show(table)}")
    levels = [s.value for s in Severity]
    chosen: list[tuple[int, str, Severity]] = []
    for selector, level in table.items():
        try:
            matched = registry.matching(selector)
        except ConfigError as exc:
            raise file.error(f"severity: {exc}") from exc
        if not isinstance(level, str) or level.lower() not in levels:
            raise file.error(
                f"severity.{selector} must be one of {', '.join(levels)}, got {_show(level)}"
            )
        chosen.extend((len(matched), r.code, Severity(level.lower())) for r in matched)
    # Broad selectors first, so that a code's own entry overrides its family's.
    return {code: level for _, code, level in sorted(chosen, key=lambda c: -c[0])}


def rule_options(file: FileConfig, catalogue: Sequence[Rule]) -> dict[str, Any]:
    """Options instances by rule code, from the per-family tables of the configuration."""
    options: dict[str, Any] = {}
    for table, prefix in TABLES.items():
        values = file.values.get(table)
        if not values:
            continue
        family = [r for r in catalogue if r.family == prefix and r.options is not None]
        accepted = sorted({_kebab(f.name) for r in family for f in dataclasses.fields(r.options)})
        for key, value in values.items():
            name = key.replace("-", "_")
            takers = [r for r in family if name in {f.name for f in dataclasses.fields(r.options)}]
            if not takers:
                offer = (
                    f"the {table} rules accept {', '.join(accepted)}"
                    if accepted
                    else f"no {table} rule has options"
                )
                raise file.error(f"unknown option `{key}`{_suggest(key, accepted)}: {offer}", table)
            for rule in takers:
                converted = _convert(file, table, key, value, rule.options, name)
                current = options.get(rule.code) or rule.default_options()
                try:
                    options[rule.code] = dataclasses.replace(current, **{name: converted})
                except (ValueError, TypeError, ConfigError) as exc:
                    raise file.error(f"{key}: {exc}", table) from exc
    return options


def _kebab(name: str) -> str:
    return name.replace("_", "-")


def _convert(file: FileConfig, table: str, key: str, value: Any, options: type, name: str) -> Any:
    """`value` checked against the annotation of field `name`, in the field's own container."""
    hint = typing.get_type_hints(options)[name]
    (spec,) = [f for f in dataclasses.fields(options) if f.name == name]
    minimum = spec.metadata.get("minimum", 1)
    converted, expected = _as(hint, value, minimum)
    if expected:
        raise file.error(f"{key} must be {expected}, got {_show(value)}", table)
    return converted


def _as(hint: Any, value: Any, minimum: int) -> tuple[Any, str]:
    """(converted value, "") or (None, what was expected)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        wanted = []
        for arm in args:
            if arm is type(None):
                continue
            converted, expected = _as(arm, value, minimum)
            if not expected:
                return converted, ""
            wanted.append(expected)
        return None, " or ".join(wanted)
    if hint is bool:
        return (value, "") if isinstance(value, bool) else (None, "true or false")
    if hint is int:
        ok = isinstance(value, int) and not isinstance(value, bool) and value >= minimum
        return (value, "") if ok else (None, f"an integer >= {minimum}")
    if hint is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        return (float(value), "") if ok else (None, "a number")
    if hint is str:
        return (value, "") if isinstance(value, str) else (None, "a string")
    if origin in (tuple, list, frozenset, set) and args and args[0] is str:
        ok = _is_strings(value)
        return (origin(value), "") if ok else (None, "a list of strings")
    return value, ""  # an annotation this table does not know: the Options class checks it


def _is_strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _show(value: Any, depth: int = 0) -> str:
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
        shown = ", ".join(_show(v, depth + 1) for v in value[:5])
        return "[" + shown + (", …]" if len(value) > 5 else "]")
    return str(value)
