"""`[tool.auditor]` and the command line turned into one typed Settings.

`files` finds and reads the configuration file (`[tool.auditor]` of the nearest pyproject.toml,
or the file `--config` names); `options` types the per-family option tables
(`[tool.auditor.loops]`, `[tool.auditor.approvals]`) by each rule's `Options`; `suppress` reads
`[[tool.auditor.suppress]]`; `toolsfile` reads the tool declarations `--tools FILE` (or
`tools`) names. The command line wins: `--select` starts the rule selection over (the file's
`select` and `ignore` no longer apply), `--ignore` adds to the file's `ignore`, `--fail-on`
replaces `fail-on`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import field
from typing import Any

from auditor import rules as registry
from auditor.common.errors import ConfigError
from auditor.common.structs import dataclass
from auditor.config.files import (
    KEYS,
    PYPROJECT,
    TABLES,
    FileConfig,
    discover,
    is_strings,
    read,
    shown,
    shown_value,
    start_of,
)
from auditor.config.options import rule_options
from auditor.config.suppress import suppressions
from auditor.findings import DEFAULT_FAIL_ON, Severity
from auditor.formats import Format, MappedFormat, catalog, declare, plugins
from auditor.model import ToolSpec
from auditor.rules import Rule
from auditor.sources import MAX_RECORD_BYTES, Exclude
from auditor.sources.files import inside
from auditor.suppress import Suppression

FAIL_ON = ("error", "warning", "note", "never")

__all__ = [
    "DEFAULT_FAIL_ON",
    "FAIL_ON",
    "KEYS",
    "PYPROJECT",
    "TABLES",
    "FileConfig",
    "Settings",
    "build",
    "discover",
    "read",
    "rule_options",
    "shown",
    "split_codes",
    "start_of",
]


@dataclass(frozen=True)
class Settings:
    """Everything a run needs to know, validated."""

    rules: tuple[Rule, ...]
    fail_on: Severity | None = DEFAULT_FAIL_ON
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
    force_exclude: bool = False
    """Files named on the command line are read only when a directory walk would read them
    (`--force-exclude`, as ruff's: what the pre-commit hook passes)."""
    read_timeout: float = 60.0
    """Seconds an HTTP(S) server may stay silent before a URL is given up on (`read-timeout`)."""
    follow_links: bool = False
    """A walk follows symbolic links out of the directory named (`--follow-links`; never into
    /proc, /sys or /dev)."""
    per_file_ignores: tuple[tuple[str, frozenset[str]], ...] = ()
    """(glob, rule codes) pairs: findings of those rules in matching files are dropped."""
    suppressions: tuple[Suppression, ...] = ()
    """`[[tool.auditor.suppress]]` entries, in the file's order (`auditor.suppress`)."""
    user_rules: tuple[Rule, ...] = ()
    """The rules `[[tool.auditor.rule]]` entries declare (`auditor.policies`), selected or
    not: `--explain` and `--rules` show them too."""
    config_file: str | None = None
    """The configuration file read, as errors name it; None when there is none."""
    origins: dict[str, str] = field(default_factory=dict)
    """Where each setting came from: `default`, the file's name or `command line`."""
    tools: tuple[ToolSpec, ...] | None = None
    """Tools declared from outside the logs (`--tools`, `tools`), for conversations that
    declare none; None when no file was given."""
    tools_file: str | None = None
    """The file `tools` came from (`--tools FILE`, or the configuration's `tools = "FILE"`):
    no output of the run may overwrite it."""
    formats: tuple[Format, ...] = ()
    """Formats the configuration maps onto the model (`[tool.auditor.formats.NAME]`), tried
    before the built-in ones."""
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
    force_exclude: bool = False,
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
            "command line"
            if from_command_line
            else file.name
            if file is not None and key in values
            else "default"
        )

    user = _user_rules(file)
    rules = _selection(file, select, ignore, extend_select, extend_ignore, user)
    origin("select", bool(select))
    origin("ignore", bool(ignore))
    origins["extend-select"] = "command line" if extend_select else "default"
    origins["extend-ignore"] = "command line" if extend_ignore else "default"

    level = fail_on
    if level is None and file is not None and "fail-on" in values:
        level = values["fail-on"]
        if not isinstance(level, str) or level.lower() not in FAIL_ON:
            raise file.error(
                f"fail-on must be one of {', '.join(FAIL_ON)}, got {shown_value(level)}"
            )
    level = (level or DEFAULT_FAIL_ON).lower()
    if level not in FAIL_ON:
        raise ConfigError(f"invalid --fail-on `{fail_on}`: use one of {', '.join(FAIL_ON)}")
    origin("fail-on", fail_on is not None)

    declared = _declared(file)
    forced = None if input_format in (None, "", "auto") else input_format
    if forced is not None and not catalog.known(forced, declared):
        named = ", ".join(catalog.names(declared))
        raise ConfigError(f"unknown --input-format `{input_format}`: use auto or one of {named}")
    origins["input-format"] = "command line" if forced else "default"

    gitignore = values.get("respect-gitignore", True)
    if file is not None and not isinstance(gitignore, bool):
        raise file.error(f"respect-gitignore must be true or false, got {shown_value(gitignore)}")
    origin("respect-gitignore", respect_gitignore is not None)
    origins["force-exclude"] = "command line" if force_exclude else "default"
    origin("exclude", False)
    origins["extend-exclude"] = "command line" if exclude else "default"
    for key in ("severity", "per-file-ignores", "suppress", "rule", "max-record-mb", *TABLES):
        origin(key, False)
    if file is not None:  # each option of a family's table, as the file sets it or not
        for table in TABLES:
            for option in values.get(table, {}):
                origins[f"{table}.{option}"] = file.name
    origin("tools", bool(tools))
    origin("read-timeout", False)
    origins["follow-links"] = "command line" if follow_links else "default"
    return Settings(
        rules=rules,
        fail_on=None if level == "never" else Severity(level),
        input_format=forced,
        severity=_severities(file, user) if file is not None else {},
        options=rule_options(file, registry.RULES) if file is not None else {},
        exclude=tuple(_strings(file, values, "exclude")),
        root=str(file.path.parent) if file is not None else ".",
        extend_exclude=tuple(e for e in exclude or () if e.strip()),
        respect_gitignore=gitignore if respect_gitignore is None else respect_gitignore,
        force_exclude=force_exclude,
        follow_links=follow_links,
        per_file_ignores=_per_file_ignores(file, user) if file is not None else (),
        suppressions=suppressions(file, user) if file is not None else (),
        user_rules=user,
        config_file=file.name if file is not None else None,
        origins=origins,
        max_record_bytes=_record_limit(file),
        read_timeout=_read_timeout(file),
        tools=(read := _tools(tools, file, values))[0],
        tools_file=read[1],
        formats=declared,
    )


def _user_rules(file: FileConfig | None) -> tuple[Rule, ...]:
    """The rules installed plugins ship (`auditor.rules` entry points) and those
    `[[tool.auditor.rule]]` entries declare (`auditor.policies`); () without any."""
    from auditor.common import entrypoints

    plugins: tuple[Rule, ...] = ()
    if entrypoints.may_declare("auditor.rules"):
        from auditor.policies.plugins import rules

        plugins = rules()
    if file is None or "rule" not in file.values:
        return plugins
    from auditor import policies  # most configurations declare none: not imported for them

    table = f"[[{'tool.auditor.' if file.in_pyproject else ''}rule]]"
    return (*plugins, *policies.read(file.values["rule"], table, file.name, plugins))


def _declared(file: FileConfig | None) -> tuple[MappedFormat, ...]:
    """The formats `[tool.auditor.formats.NAME]` tables map (see `formats.declare`)."""
    if file is None or "formats" not in file.values:
        return ()
    tables = file.values["formats"]
    taken = {*catalog.NAMES, *plugins()}
    declared = []
    for name, table in tables.items():
        where = f"invalid config in {file.name}: {file.table(f'formats.{name}')}".rstrip()
        if name in taken:
            raise ConfigError(f"{where} is named as a built-in or plugin format: rename it")
        declared.append(declare(name, table, where))
    return tuple(declared)


def _tools(
    given: str | None, file: FileConfig | None, values: Mapping[str, Any]
) -> tuple[tuple[ToolSpec, ...] | None, str | None]:
    """The tools `--tools FILE` declares, else the configuration's `tools = "FILE"` (a path
    relative to the configuration file), and the file they came from; (None, None) when no
    file names any."""
    if given:
        from auditor.config import toolsfile  # here, and below: most runs read no tools file

        return toolsfile.read(given), given
    if file is None or "tools" not in values:
        return None, None
    path = values["tools"]
    if not isinstance(path, str) or not path:
        raise file.error(f"tools must be the path of a file, got {shown_value(path)}")
    from auditor.config import toolsfile

    named = file.path.parent / path
    real, folder = os.path.realpath(named), os.path.realpath(file.path.parent)
    if file.found and not inside(real, folder):
        raise file.error(
            f"tools = {shown_value(path)} lies outside {shown(file.path.parent)}, the directory "
            "of the configuration found: name it with --tools, or the file with --config"
        )
    return toolsfile.read(named, origin=f"tools file (from {file.name})"), str(named)


def _selection(
    file: FileConfig | None,
    select: Iterable[str] | None,
    ignore: Iterable[str] | None,
    extend_select: Iterable[str] | None,
    extend_ignore: Iterable[str] | None,
    user: tuple[Rule, ...] = (),
) -> tuple[Rule, ...]:
    """The rules to run, in ruff's layers: the file's `select` minus its `ignore` (or, when
    given, the command line's `--select` alone), plus `--extend-select`, minus `--ignore` and
    `--extend-ignore`. IN001 always stays (`rules.ALWAYS`). `user`: the configuration's own
    rules, selected as the built-in ones (`ALL` holds them)."""
    values = file.values if file is not None else {}
    file_select = _strings(file, values, "select")
    file_ignore = _strings(file, values, "ignore")
    if file is not None:
        _check_selectors(file, "select", file_select, user)
        _check_selectors(file, "ignore", file_ignore, user)
        for selector in file_ignore:
            _in_file(file, "ignore", registry.check_ignorable, selector)
    cli_select = split_codes(select, "--select")
    added = split_codes(extend_select, "--extend-select")
    removed = split_codes(ignore, "--ignore") + split_codes(extend_ignore, "--extend-ignore")
    for selector in removed:
        registry.check_ignorable(selector)
    if cli_select:
        # As in ruff, the command line's --select starts the selection over.
        enabled = _codes(cli_select, user)
    else:
        enabled = _codes(file_select or ["ALL"], user) - _codes(file_ignore, user, preview=True)
    enabled = (enabled | _codes(added, user)) - _codes(removed, user, preview=True)
    return registry.select(sorted(enabled), extra=user)


def _codes(selectors: Iterable[str], user: tuple[Rule, ...], preview: bool = False) -> set[str]:
    """The codes the selectors name; rules in preview only by code or name, unless `preview`."""
    return {r.code for s in selectors for r in registry.matching(s, preview, user)}


def _in_file(file: FileConfig, key: str, check: Any, *args: Any, sub: str | None = None) -> Any:
    """`check(*args)`, its ConfigError restated as an error of `key` in the file."""
    try:
        return check(*args)
    except ConfigError as exc:
        raise file.error(f"{key}: {exc}", sub) from exc


def _per_file_ignores(
    file: FileConfig, user: tuple[Rule, ...] = ()
) -> tuple[tuple[str, frozenset[str]], ...]:
    """`[tool.auditor.per-file-ignores]`: glob = [rules], as `exclude` matches globs."""
    table = file.values.get("per-file-ignores", {})
    if not isinstance(table, dict):
        raise file.error(
            f"per-file-ignores must be a table of glob = [rules], got {shown_value(table)}"
        )
    entries = []
    for glob, selectors in table.items():
        if not is_strings(selectors):
            raise file.error(
                f"{glob} must be a list of rule codes, prefixes or names, "
                f"got {shown_value(selectors)}",
                "per-file-ignores",
            )
        codes: set[str] = set()
        for selector in selectors:
            _in_file(file, glob, registry.check_ignorable, selector, sub="per-file-ignores")
            matched = _in_file(
                file, glob, registry.matching, selector, True, user, sub="per-file-ignores"
            )
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
            f"max-record-mb must be an integer from 1 to {MAX_RECORD_MB}, got {shown_value(value)}"
        )
    return value * 1024 * 1024


def _read_timeout(file: FileConfig | None) -> float:
    if file is None or file.values.get("read-timeout") is None:
        return Settings.read_timeout
    value = file.values["read-timeout"]
    if not isinstance(value, int | float) or isinstance(value, bool) or not 0 < value <= 86400:
        raise file.error(
            f"read-timeout must be seconds, above 0 and at most 86400: {shown_value(value)}"
        )
    return float(value)


def _strings(file: FileConfig | None, values: Mapping[str, Any], key: str) -> list[str]:
    value = values.get(key, [])
    tables = isinstance(value, list) and value and all(isinstance(v, dict) for v in value)
    if file is not None and key == "ignore" and tables:  # `[[tool.auditor.ignore]]`
        raise file.error(
            "ignore is a list of rules; to suppress findings with a reason, write "
            f"{file.table('suppress').strip().replace('[', '[[').replace(']', ']]')} entries"
        )
    if file is not None and not is_strings(value):
        raise file.error(f"{key} must be a list of strings, got {shown_value(value)}")
    return list(value)


def _check_selectors(
    file: FileConfig, key: str, selectors: Sequence[str], user: tuple[Rule, ...] = ()
) -> None:
    for selector in selectors:
        _in_file(file, key, registry.matching, selector, False, user)


def _severities(file: FileConfig, user: tuple[Rule, ...] = ()) -> dict[str, Severity]:
    """`severity = {LP001 = "error", CF = "note"}`: codes, prefixes or names; the narrowest wins."""
    table = file.values.get("severity", {})
    if not isinstance(table, dict):
        raise file.error(f"severity must be a table of rule = level, got {shown_value(table)}")
    levels = [s.value for s in Severity]
    chosen: list[tuple[int, str, Severity]] = []
    for selector, level in table.items():
        try:
            matched = registry.matching(selector, extra=user)
        except ConfigError as exc:
            raise file.error(f"severity: {exc}") from exc
        if not isinstance(level, str) or level.lower() not in levels:
            raise file.error(
                f"severity.{selector} must be one of {', '.join(levels)}, got {shown_value(level)}"
            )
        chosen.extend((len(matched), r.code, Severity(level.lower())) for r in matched)
    # Broad selectors first, so that a code's own entry overrides its family's.
    return {code: level for _, code, level in sorted(chosen, key=lambda c: -c[0])}
