"""What the information options print and then exit: `--explain`, `--rules`, `--formats`."""

from __future__ import annotations

from typing import TextIO

from auditor.errors import ConfigError
from auditor.reporters._escape import dumps
from auditor.rules import RULES, Rule, lookup


def explain(selector: str, out: TextIO) -> None:
    """A rule's documentation, by code or name."""
    rule = lookup(selector)
    if rule is None:
        raise ConfigError(f"unknown rule `{selector}`: `audit --rules` lists them")
    out.write(f"# {rule.code} {rule.name} ({rule.severity.value})\n\n")
    out.write(rule.summary + "\n\n")
    out.write(rule.doc + "\n")


def rules(out: TextIO, as_json: bool, chosen: tuple[Rule, ...] = RULES) -> None:
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
            }
            for r in chosen
        ]
        out.write(dumps(rows, indent=True) + "\n")
        return
    width = max((len(r.name) for r in chosen), default=0)
    for r in chosen:
        out.write(f"{r.code}  {r.name:<{width}}  {r.severity.value:<7}  {r.summary}\n")


def formats(out: TextIO) -> None:
    """The log formats `--input-format` accepts, each with the first line of its docstring."""
    from auditor.formats import FORMATS

    for name, module in FORMATS.items():
        summary = (module.__doc__ or "").strip().splitlines()[0]
        out.write(f"{name:<12} {summary}\n")
