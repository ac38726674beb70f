"""What the information options print and then exit: `--explain`, `--rules`, `--formats`."""

from __future__ import annotations

import dataclasses
import shutil
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

from auditor import ruledocs
from auditor.common.errors import ConfigError
from auditor.common.text import dumps, reflow, safe
from auditor.model import Location
from auditor.rules import FAMILIES, RULES, Rule, did_you_mean, lookup

if TYPE_CHECKING:
    from auditor.commands.run import Invocation
    from auditor.config import Settings
    from auditor.report import Unread
    from auditor.sources import Source


def explain(
    selector: str,
    out: TextIO,
    width: int | None = None,
    own: Callable[[], tuple[Rule, ...]] = tuple,
) -> None:
    """A rule's documentation, by code or name, or a family's (`FB`, a code prefix): its rules
    listed, then each explained. Paragraphs wrapped at `width` (default: the terminal's, at
    most 100 columns). `own` gives the configuration's rules (`[[tool.auditor.rule]]`), read
    only when no built-in rule is named."""
    if width is None:
        width = min(shutil.get_terminal_size((80, 24)).columns, 100)
    rule = lookup(selector)
    rules = [rule] if rule is not None else _family(selector, ())
    if not rules:  # no built-in rule: the configuration's own, then
        extra = own()
        rule = lookup(selector, extra)
        rules = [rule] if rule is not None else _family(selector, extra, strict=True)
    if len(rules) > 1:
        family = FAMILIES.get(rules[0].family, "the configuration's own rules")
        out.write(f"# {selector.strip().upper()}: {family} ({len(rules)} rules)\n\n")
        _rules(out, False, tuple(rules))
        out.write("\n")
    for i, rule in enumerate(rules):
        if i:
            out.write("\n")
        out.write(f"# {rule.code} {rule.name} ({rule.severity.value})\n\n")
        out.write(reflow(rule.summary, width) + "\n\n")
        out.write(reflow(ruledocs.markdown(rule, width=width), width) + "\n")


def _family(selector: str, extra: tuple[Rule, ...], strict: bool = False) -> list[Rule]:
    """The rules a code prefix names (`FB`, `CF00`, a configuration's own `AIR`); with
    `strict`, an error that suggests the nearest when there are none."""
    prefix = selector.strip().upper()
    rules = [r for r in (*RULES, *extra) if prefix and r.code.startswith(prefix)]
    if not rules and strict:
        raise ConfigError(
            f"unknown rule `{selector}`{did_you_mean(selector, extra)}: `audit --rules` lists them"
        )
    return rules


def _rules(out: TextIO, as_json: bool, chosen: tuple[Rule, ...] = RULES) -> None:
    """The rules, as aligned text or as a JSON array."""
    if as_json:
        rows = [
            {
                "code": r.code,
                "name": r.name,
                "severity": r.severity.value,
                "family": r.family,
                "summary": r.summary,
                "requires": list(r.requires),
                "preview": r.preview,
                "severity_changes": r.changes or None,
            }
            for r in chosen
        ]
        out.write(dumps(rows, indent=True) + "\n")
        return
    width = max((len(r.name) for r in chosen), default=0)
    for r in chosen:
        summary = f"(preview) {r.summary}" if r.preview else r.summary
        out.write(f"{r.code}  {r.name:<{width}}  {r.severity.value:<7}  {summary}\n")


def formats(out: TextIO) -> None:
    """The log formats `--input-format` accepts, each with the first line of its docstring:
    the plugins' (`auditor.formats` entry points) first, then the built-in ones."""
    from auditor.formats import FORMATS, plugins

    for name, module in {**plugins(), **FORMATS}.items():
        summary = (module.__doc__ or "").strip().splitlines()[0] if module.__doc__ else ""
        out.write(f"{name:<14} {summary}\n")


def show(
    invocation: Invocation, *, rules: bool, settings: bool, files: bool, reading: bool = False
) -> None:
    """`--rules`, `--show-settings`, `--show-files`, `--show-reading`: what a run with these
    options would use."""
    from auditor.commands import run
    from auditor.reporters import REPORTERS

    chosen = run.settings(invocation)
    fmt = invocation.output_format
    as_json = fmt is not None and REPORTERS[fmt].json
    if rules:
        _rules(sys.stdout, as_json, chosen.rules)
    if settings:
        show_settings(chosen, sys.stdout)
    if files:
        if not invocation.paths:
            raise ConfigError("--show-files needs paths: `audit logs/ --show-files`")
        show_files(invocation.paths, chosen, sys.stdout)
    if reading:
        if not invocation.paths:
            raise ConfigError("--show-reading needs paths: `audit run.json --show-reading`")
        from auditor.commands.show_reading import show_reading

        show_reading(invocation.paths, chosen, sys.stdout)


def show_settings(chosen: Settings, out: TextIO) -> None:
    """The resolved settings as TOML, each line with where its value came from."""
    origins = chosen.origins
    out.write(f"# configuration file: {chosen.config_file or 'none found'}\n")
    lines = [
        ("select", [r.code for r in chosen.rules], "select"),
        ("fail-on", chosen.fail_on.value if chosen.fail_on else "never", "fail-on"),
        ("input-format", chosen.input_format or "auto", "input-format"),
        ("exclude", list(chosen.exclude), "exclude"),
        ("extend-exclude", list(chosen.extend_exclude), "extend-exclude"),
        ("respect-gitignore", chosen.respect_gitignore, "respect-gitignore"),
        ("force-exclude", chosen.force_exclude, "force-exclude"),
        ("max-record-mb", chosen.max_record_bytes // (1024 * 1024), "max-record-mb"),
        ("severity", {c: s.value for c, s in sorted(chosen.severity.items())}, "severity"),
        (
            "per-file-ignores",
            {glob: sorted(codes) for glob, codes in chosen.per_file_ignores},
            "per-file-ignores",
        ),
    ]
    width = max(len(key) for key, _, _ in lines)
    for key, value, origin in lines:
        where = _origin(origins, origin, key == "select")
        out.write(f"{key:<{width}} = {_toml(value)}  # {where}\n")
    shown: set[str] = set()
    for rule in chosen.rules:
        options = chosen.options_of(rule)
        if options is None:
            continue
        table = FAMILIES.get(rule.family, rule.family)
        for spec in dataclasses.fields(options):
            key = f"{table}.{spec.name.replace('_', '-')}"
            if key in shown:
                continue  # a family's option is set on each of its rules alike
            shown.add(key)
            value = getattr(options, spec.name)
            if isinstance(value, frozenset | set):
                value = sorted(value)
            out.write(f"{key} = {_toml(value)}  # {origins.get(key, 'default')}\n")
    for entry in chosen.suppressions:  # arrays of tables come after every key, in TOML
        out.write(f"\n[[suppress]]  # entry {entry.entry}, {origins.get('suppress', 'default')}\n")
        for name, given in [*entry.criteria().items(), ("reason", entry.reason)]:
            out.write(f"{name} = {_toml(given)}\n")


def _origin(origins: dict[str, str], key: str, selection: bool) -> str:
    if not selection:
        return origins.get(key, "default")
    parts = [
        f"{name}: {origins[name]}"
        for name in ("select", "ignore", "extend-select", "extend-ignore")
        if origins.get(name, "default") != "default"
    ]
    return "; ".join(parts) + "; IN001 always" if parts else "default (ALL)"


def _toml(value: object) -> str:
    """A value as it would be written in [tool.auditor]."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return dumps(value)
    if isinstance(value, dict):
        items = ", ".join(f"{dumps(k)} = {_toml(v)}" for k, v in value.items())
        return "{ " + items + " }" if items else "{}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return str(value)


def show_files(paths: tuple[str, ...], chosen: Settings, out: TextIO) -> None:
    """Each file a run would find, with what it would be read as (the log format of its first
    record that is not a header) or why it would be skipped, as the run decides it: a walked
    file whose first bytes promise no log is not read further, one whose records no format
    reads is named for what it is. Only the first records of each file are read."""
    from auditor import engine, sources
    from auditor.engine.source import may_be_sidecar, sniffed, unread_as
    from auditor.formats import describe
    from auditor.formats import detect as detect_format
    from auditor.report import Counts, Unread

    for item in engine.plan(paths, chosen):
        if isinstance(item, sources.Source):
            walked = may_be_sidecar(item, chosen)
            skipped = sniffed(item) if walked and item.kind == "sniff" else None
            first = _first_record(item) if skipped is None else None
            if skipped is not None:
                what = f"skipped: {skipped.reason}: {skipped.detail}"
            elif item.path == "-":
                what = "standard input: its format is detected as it is read"
            elif chosen.input_format:
                what = f"{chosen.input_format} (forced)"
            elif isinstance(first, sources.Record):
                fmt = detect_format(first, chosen.formats)
                if fmt is not None:
                    # A reading by shape says what it inferred: where roles, calls and ids are.
                    what = fmt.inferred(first) or fmt.NAME
                elif walked:
                    reason, _ = unread_as(first)
                    said = describe(first)  # "not a transcript: …" says its reason itself
                    what = f"skipped: {said if said.startswith(reason) else f'{reason}: {said}'}"
                else:
                    what = f"read, but {describe(first)}"
            elif isinstance(first, sources.InvalidRecord):
                what = f"unreadable: {first.reason}"
            else:
                what = "empty"
            out.write(f"{safe(item.name)}\t{safe(what)}\n")
        elif isinstance(item, Unread):
            out.write(f"{safe(item.path)}\tskipped: {safe(_unread(item))}\n")
        elif isinstance(item, Counts):
            continue  # excluded or gitignored: not listed, as ruff does not list them
        else:
            out.write(f"{safe(item.path or '')}\terror: {safe(item.message)}\n")


def _unread(item: Unread) -> str:
    """Why a walk did not read a file, before reading it."""
    if item.reason == "hidden":
        return "a hidden directory: name it on the command line to read it"
    if item.reason == "link":
        return "a symbolic link out of the path named"
    return f"not a log file type ({item.kind})"


_HEADERS_PASSED = 4
"""Header records (`formats.header`) `--show-files` reads past to find what a file is."""


def _first_record(source: Source) -> object:
    from auditor import sources

    if source.path == "-":
        return None  # stdin is read by the run, not by a listing
    from auditor.formats import header

    try:
        first = None
        for i, record in enumerate(sources.read(source)):
            first = first or record
            # A header line says what the run was; the records after it say what the file is.
            if i == _HEADERS_PASSED or not isinstance(record, sources.Record):
                break
            if not header(record):
                return record
        return first
    except OSError as exc:
        return sources.InvalidRecord(Location(source.path), sources.os_reason(exc))
