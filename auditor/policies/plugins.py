"""Rules installed packages ship: the `auditor.rules` entry point group.

An entry point names a module with the contract of a built-in rule, and its identity besides:
`CODE` (capital letters of the package's own, not a built-in family's, and three digits),
`NAME`, `SEVERITY` (`error`, `warning` or `note`), a docstring whose first line is its summary
and whose `## ` sections are its documentation, and `check(replay, options)`, a generator of
`auditor.findings.Violation`s that reads the replayed conversation and never changes it;
optionally `REQUIRES`, `Options` and `screen`, as a built-in rule's. The rules are selected,
explained and reported like the built-in ones. A plugin that fails to load, lacks one of these
or takes a code or name already taken is a `ConfigError`.
"""

from __future__ import annotations

import functools
from types import ModuleType
from typing import Any

from auditor.common import entrypoints
from auditor.common.errors import ConfigError
from auditor.findings import Severity
from auditor.policies import CODE, NAME, built_in_family
from auditor.rules import BY_CODE, BY_NAME, FAMILIES, Rule, sections

ENTRY_POINTS = "auditor.rules"


@functools.cache
def rules() -> tuple[Rule, ...]:
    """The rules of every installed plugin, loaded once per process."""
    found: list[Rule] = []
    for point in entrypoints.points(ENTRY_POINTS):
        where = f"the `{ENTRY_POINTS}` plugin `{point.name}` ({point.value})"
        try:
            module = point.load()
        except Exception as exc:
            raise ConfigError(f"{where} failed to load: {type(exc).__name__}: {exc}") from exc
        rule = _rule(module, where)
        for other in found:
            if rule.code == other.code or rule.name == other.name:
                raise ConfigError(f"{where} is {rule.code} ({rule.name}), as another plugin's")
        found.append(rule)
    return tuple(found)


def _rule(module: ModuleType | Any, where: str) -> Rule:
    code, name = getattr(module, "CODE", None), getattr(module, "NAME", None)
    severity, check = getattr(module, "SEVERITY", None), getattr(module, "check", None)
    if not isinstance(code, str) or not CODE.fullmatch(code) or built_in_family(code):
        raise ConfigError(
            f"{where} has no CODE of its own: capital letters (not {', '.join(FAMILIES)}) and "
            f"three digits, got {code!r}"
        )
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise ConfigError(f"{where} has no NAME of lowercase words joined by `-`, got {name!r}")
    if code in BY_CODE or name in BY_NAME:
        raise ConfigError(f"{where} is {code} ({name}), as a built-in rule is")
    if str(severity) not in set(Severity):
        raise ConfigError(f"{where} has no SEVERITY of error, warning or note, got {severity!r}")
    if not callable(check):
        raise ConfigError(f"{where} has no `check(replay, options)`")
    summary, _, doc = (getattr(module, "__doc__", None) or "").strip().partition("\n")
    if not summary.strip():
        raise ConfigError(f"{where} has no docstring: its first line is the rule's summary")
    return Rule(
        code=code,
        name=name,
        severity=Severity(str(severity)),
        summary=summary.strip(),
        doc=doc.strip(),
        check=check,
        requires=tuple(getattr(module, "REQUIRES", ())),
        options=getattr(module, "Options", None),
        sections=sections(doc.strip()),
        screen=getattr(module, "screen", None),
    )
