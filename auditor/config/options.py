"""Rule options from the per-family tables (`[tool.auditor.loops]`), typed by each rule's
`Options` dataclass.

Each kebab-case key is set on every rule of that family whose `Options` dataclass has the
matching snake_case field, with its value checked against the field's type. Nothing here names
a rule's options: a new rule with an `Options` field is configurable by that alone.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Sequence
from typing import Any

from auditor.common.errors import ConfigError
from auditor.config.files import TABLES, FileConfig, is_strings, shown_value, suggest
from auditor.rules import Rule


def rule_options(file: FileConfig, catalogue: Sequence[Rule]) -> dict[str, Any]:
    """Options instances by rule code, from the per-family tables of the configuration."""
    options: dict[str, Any] = {}
    for table, prefix in TABLES.items():
        values = file.values.get(table)
        if not values:
            continue
        family = [r for r in catalogue if r.family == prefix and r.options is not None]
        accepted = sorted({_kebab(f.name) for r in family for f in _fields(r)})
        for key, value in values.items():
            name = key.replace("-", "_")
            takers = [r for r in family if name in {f.name for f in _fields(r)}]
            if not takers:
                offer = (
                    f"the {table} rules accept {', '.join(accepted)}"
                    if accepted
                    else f"no {table} rule has options"
                )
                raise file.error(f"unknown option `{key}`{suggest(key, accepted)}: {offer}", table)
            for rule in takers:
                converted = _convert(file, table, key, value, rule.options, name)
                current = options.get(rule.code) or rule.default_options()
                try:
                    options[rule.code] = dataclasses.replace(current, **{name: converted})
                except (ValueError, TypeError, ConfigError) as exc:
                    raise file.error(f"{key}: {exc}", table) from exc
    return options


def _fields(rule: Rule) -> tuple[dataclasses.Field[Any], ...]:
    """The fields of the rule's `Options` dataclass; none when it has no options."""
    return () if rule.options is None else dataclasses.fields(rule.options)


def _kebab(name: str) -> str:
    return name.replace("_", "-")


def _convert(file: FileConfig, table: str, key: str, value: Any, options: Any, name: str) -> Any:
    """`value` checked against the annotation of field `name`, in the field's own container."""
    hint = typing.get_type_hints(options)[name]
    (spec,) = [f for f in dataclasses.fields(options) if f.name == name]
    minimum = spec.metadata.get("minimum", 1)
    converted, expected = _as(hint, value, minimum)
    if expected:
        raise file.error(f"{key} must be {expected}, got {shown_value(value)}", table)
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
        ok = is_strings(value)
        return (origin(value), "") if ok else (None, "a list of strings")
    return value, ""  # an annotation this table does not know: the Options class checks it
