"""A team's own rules: `[[tool.auditor.rule]]` tables, each one check over the replayed
conversation (`checks.CHECKS`), made into `Rule`s that are selected, ignored, baselined,
suppressed, explained and reported like the built-in ones.

```toml
[[tool.auditor.rule]]
code = "POL001"                      # letters of the team's own, then three digits
name = "change-before-lookup"
severity = "error"                   # error, warning (the default) or note
description = "Look the reservation up before changing it."
check = "require-before"
call = "update_reservation_*"        # tool name globs
before = "get_reservation_details"
same = "reservation_id"              # the lookup must be of the same reservation
message = "`{tool}` changed {value} before looking it up"   # optional; fields: `checks.CHECKS`
```

Every mistake is a `ConfigError` naming the table and the key, raised when the configuration is
read, before any log is.
"""

from __future__ import annotations

import json
import re
import string
from typing import Any

from auditor.common.errors import ConfigError
from auditor.findings import Severity
from auditor.policies.calls import Calls, globs
from auditor.policies.checks import CHECKS, COMMON, run
from auditor.rules import BY_NAME, FAMILIES, Rule

KEY = "rule"
_PARAMETERS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "require-before": (("call", "before"), ("where", "same")),
    "forbid-call": (("call",), ("where",)),
    "max-calls": (("call", "most"), ("where", "per")),
    "grounded-argument": (("call", "argument"), ("where",)),
    "forbid-text": (("pattern",), ()),
}
"""Each check's required and optional keys, besides those of every rule (`_IDENTITY`)."""
_IDENTITY = ("code", "name", "severity", "description", "message", "check")
CODE = re.compile(r"[A-Z]{2,8}[0-9]{3}")
"""An own rule's code: capital letters of its own (`built_in_family` says which are not)."""
NAME = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
"""An own rule's name: lowercase words joined by `-`."""


def built_in_family(code: str) -> bool:
    """The code starts as a built-in family's (`LP`, `FB`…): `--select LP` would take it."""
    return code[:2] in FAMILIES


_SAME_MESSAGE = (
    "`{tool}` ran at turn {turn} with no successful call of {before} for the same `{same}` "
    "({value}) before it"
)


class Policy:
    """A `[[tool.auditor.rule]]` entry as a rule's check: picklable (worker processes run it),
    its `where` compiled again where it is unpickled."""

    def __init__(self, check: str, entry: dict[str, Any], template: str, ids: dict[str, str]):
        self.kind = check
        self.entry = entry
        self.template = template
        self.ids = ids
        self.params = _params(check, entry)

    def __call__(self, replay: Any, options: Any) -> Any:
        return run(self.kind, replay, self.params, self.template, self.ids)

    def __reduce__(self) -> tuple[Any, ...]:
        return (Policy, (self.kind, self.entry, self.template, self.ids))


def read(entries: Any, table: str, where: str, taken: tuple[Rule, ...] = ()) -> tuple[Rule, ...]:
    """The rules of the configuration's `[[tool.auditor.rule]]` entries (`table` is how errors
    name the array, `where` the file); `taken`: rules whose codes and names are not free (the
    plugins')."""
    if entries is None:
        return ()
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise ConfigError(f"invalid config in {where}: {KEY} must be an array of tables {table}")
    found: list[Rule] = []
    for n, entry in enumerate(entries, 1):
        try:
            rule = _rule(entry, [*taken, *found])
        except ConfigError as exc:
            code = entry.get("code")
            named = f" ({code})" if isinstance(code, str) else ""
            raise ConfigError(
                f"invalid config in {where}: {table} entry {n}{named}: {exc}"
            ) from None
        found.append(rule)
    return tuple(found)


def _rule(entry: dict[str, Any], earlier: list[Rule]) -> Rule:
    check = entry.get("check")
    if check not in _PARAMETERS:
        hint = _nearest(check, list(_PARAMETERS)) if isinstance(check, str) else ""
        raise ConfigError(
            f"check must be one of {', '.join(_PARAMETERS)}, got {check!r}{hint}"
            if check is not None
            else f"needs a check: one of {', '.join(_PARAMETERS)}"
        )
    required, optional = _PARAMETERS[check]
    known = (*_IDENTITY, *required, *optional)
    for key in entry:
        if key not in known:
            raise ConfigError(
                f"has an unknown key `{key}`{_nearest(key, known)}; a {check} rule takes "
                f"{', '.join(known)}"
            )
    for key in ("code", "name", "description", *required):
        if key not in entry:
            raise ConfigError(f"needs `{key}`")
    code, name = entry["code"], entry["name"]
    if not isinstance(code, str) or not CODE.fullmatch(code):
        raise ConfigError(
            f"code must be two to eight capital letters and three digits, got {code!r}"
        )
    if built_in_family(code):
        raise ConfigError(
            f"code {code} is in a built-in family ({', '.join(FAMILIES)}): use a prefix of your own"
        )
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise ConfigError(f"name must be lowercase words joined by `-`, got {name!r}")
    if name in BY_NAME:
        raise ConfigError(f"name {name} is a built-in rule's")
    for rule in earlier:
        if code in (rule.code,) or name == rule.name:
            raise ConfigError(
                f"code {code} or name {name} is already that of {rule.code} ({rule.name})"
            )
    description = entry["description"]
    if not isinstance(description, str) or not description.strip():
        raise ConfigError("description must say what the rule checks, and why")
    severity = entry.get("severity", "warning")
    if severity not in set(Severity):
        raise ConfigError(f"severity must be error, warning or note, got {severity!r}")
    template = entry.get("message", _SAME_MESSAGE if entry.get("same") else CHECKS[check][2])
    if not isinstance(template, str) or not template.strip():
        raise ConfigError("message must be a non-empty string")
    _fields(template, check)
    policy = Policy(check, entry, template, {"code": code, "name": name})
    summary, _, rest = description.strip().partition("\n")
    what = rest.strip() or summary.strip()
    doc = "## What it does\n" + what + "\n\n## Configuration\n" + _toml(entry)
    return Rule(
        code=code,
        name=name,
        severity=Severity(severity),
        summary=summary.strip(),
        doc=doc,
        check=policy,
        requires=() if check == "forbid-text" else ("calls",),
        sections={"What it does": what, "Configuration": _toml(entry)},
    )


def _nearest(word: str, known: list[str] | tuple[str, ...]) -> str:
    """` (did you mean `x`?)` for a mistyped key or check, or an empty string."""
    import difflib

    hint = difflib.get_close_matches(word, known, n=1)
    return f" (did you mean `{hint[0]}`?)" if hint else ""


def _params(check: str, entry: dict[str, Any]) -> dict[str, Any]:
    """The check's parameters, validated and compiled."""
    params: dict[str, Any] = {}
    where = entry.get("where")
    if where is not None and (not isinstance(where, str) or not where.strip()):
        raise ConfigError("where must be a JMESPath expression over the call's arguments")
    if "call" in entry:
        params["call"] = Calls(globs(entry["call"], "call"), where)
    if "before" in entry:
        params["before"] = Calls(globs(entry["before"], "before"))
    for key in ("same", "argument"):
        if key in entry:
            value = entry[key]
            if not isinstance(value, str) or not value.strip():
                raise ConfigError(f"{key} must name an argument (`order_id`, `passenger.email`)")
            params[key] = value.strip()
    if "most" in entry:
        most = entry["most"]
        if isinstance(most, bool) or not isinstance(most, int) or most < 0:
            raise ConfigError(f"most must be a whole number, 0 or more, got {most!r}")
        params["most"] = most
    if "per" in entry:
        if entry["per"] not in ("conversation", "user-turn"):
            raise ConfigError(f"per must be conversation or user-turn, got {entry['per']!r}")
        params["per"] = entry["per"]
    if "pattern" in entry:
        pattern = entry["pattern"]
        if not isinstance(pattern, str) or not pattern:
            raise ConfigError("pattern must be a regular expression")
        try:
            params["pattern"] = re.compile(pattern)
        except re.error as exc:
            raise ConfigError(f"pattern is not a regular expression: {exc}") from None
    return params


def _fields(template: str, check: str) -> None:
    """Every field the message names is one the check gives."""
    allowed = (*COMMON, *CHECKS[check][1])
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise ConfigError(f"message is not a template: {exc}") from None
    for _, field, _, _ in parsed:
        if field is None:
            continue
        if field not in allowed:
            raise ConfigError(
                f"message names `{{{field}}}`, which a {check} rule does not give; it gives "
                + ", ".join(f"{{{f}}}" for f in allowed)
            )


def _toml(entry: dict[str, Any]) -> str:
    """The entry as the configuration writes it, for the rule's page and `--explain`."""
    lines = ["```toml", "[[tool.auditor.rule]]"]
    for key, value in entry.items():
        if isinstance(value, str):
            shown = _string(value)
        elif isinstance(value, list):
            shown = "[" + ", ".join(map(_string, value)) + "]"
        else:
            shown = str(value).lower() if isinstance(value, bool) else str(value)
        lines.append(f"{key} = {shown}")
    return "\n".join([*lines, "```"])


def _string(value: str) -> str:
    """A TOML string as a person writes it: a multi-line string over lines, a literal one
    (single quotes) for a pattern with backslashes, else a basic string (JSON's escapes are
    TOML's)."""
    if "\n" in value and '"""' not in value and "\\" not in value:
        return '"""\n' + value + '"""'
    if "\\" in value and "'" not in value and "\n" not in value:
        return f"'{value}'"
    return json.dumps(value, ensure_ascii=False)
