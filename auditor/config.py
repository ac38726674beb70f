"""The command line (and, later, `[tool.auditor]`) turned into one typed Settings."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from auditor import rules as registry
from auditor.errors import ConfigError
from auditor.findings import Severity
from auditor.formats import FORMATS
from auditor.rules import Rule

FAIL_ON = ("error", "warning", "note", "never")
DEFAULT_FAIL_ON = "warning"


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

    def severity_of(self, rule: Rule) -> Severity:
        return self.severity.get(rule.code, rule.severity)

    def options_of(self, rule: Rule) -> Any:
        found = self.options.get(rule.code)
        return found if found is not None else rule.default_options()

    def enabled(self, code: str) -> bool:
        return any(r.code == code for r in self.rules)


def split_codes(values: Iterable[str] | None) -> list[str]:
    """`--select EX001,EX002 --select LP` -> ["EX001", "EX002", "LP"]."""
    out: list[str] = []
    for value in values or ():
        out.extend(part.strip() for part in value.split(",") if part.strip())
    return out


def build(
    *,
    select: Iterable[str] | None = None,
    ignore: Iterable[str] | None = None,
    fail_on: str | None = None,
    input_format: str | None = None,
) -> Settings:
    """Settings from command-line values; raises ConfigError naming what is wrong."""
    selected = split_codes(select) or ["ALL"]
    rules = registry.select(selected, split_codes(ignore))
    level = (fail_on or DEFAULT_FAIL_ON).lower()
    if level not in FAIL_ON:
        raise ConfigError(f"invalid --fail-on `{fail_on}`: use one of {', '.join(FAIL_ON)}")
    forced = None if input_format in (None, "", "auto") else input_format
    if forced is not None and forced not in FORMATS:
        raise ConfigError(
            f"unknown --input-format `{input_format}`: use auto or one of {', '.join(FORMATS)}"
        )
    return Settings(
        rules=rules,
        fail_on=None if level == "never" else Severity(level),
        input_format=forced,
    )
