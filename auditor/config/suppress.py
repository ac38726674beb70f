"""`[[tool.auditor.suppress]]` entries read and checked (`auditor.suppress` applies them).

Each entry is a table of `reason` (required) and what it matches: `fingerprint`, or `path` (a
glob), each optionally narrowed by `conversation`, `turns` (`5`, `"5"` or `"3-8"`) and `code`
(a rule code, prefix or name, or a list of them). An entry without a reason, with a key not
listed here, or with neither a fingerprint nor a path (it would match every finding) is an
error naming the file and the entry.
"""

from __future__ import annotations

import re
from typing import Any

from auditor import rules as registry
from auditor.common.errors import ConfigError
from auditor.config.files import FileConfig, is_strings, shown_value, suggest
from auditor.rules import Rule
from auditor.suppress import Suppression

KEY = "suppress"
ENTRY_KEYS = ("fingerprint", "path", "conversation", "turns", "code", "reason")
_FINGERPRINT = re.compile(r"[0-9a-f]{20}")
_TURNS = re.compile(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?")


def suppressions(file: FileConfig, extra: tuple[Rule, ...] = ()) -> tuple[Suppression, ...]:
    """The entries of the file, in order; () when it has none. `extra`: the configuration's own
    rules, which a `code` may name too."""
    value = file.values.get(KEY)
    if value is None:
        return ()
    table = f"[[{'tool.auditor.' if file.in_pyproject else ''}{KEY}]]"
    if not isinstance(value, list) or not all(isinstance(e, dict) for e in value):
        raise ConfigError(
            f"invalid config in {file.name}: {KEY} must be an array of tables, each written "
            f"{table} with a reason, got {shown_value(value)}"
        )
    return tuple(_entry(file, f"{table} entry {n}", n, e, extra) for n, e in enumerate(value, 1))


def _entry(
    file: FileConfig, where: str, n: int, entry: dict[str, Any], extra: tuple[Rule, ...]
) -> Suppression:
    def error(message: str) -> ConfigError:
        return ConfigError(f"invalid config in {file.name}: {where}{message}")

    for key in entry:
        if key not in ENTRY_KEYS:
            raise error(
                f" has an unknown key `{key}`{suggest(key, ENTRY_KEYS)}; the keys are "
                f"{', '.join(ENTRY_KEYS)}"
            )
    reason = entry.get("reason")
    if not isinstance(reason, str) or not reason.strip():
        got = "" if reason is None else f", got {shown_value(reason)}"
        raise error(f' needs a reason: why its findings are acceptable (reason = "…"){got}')
    texts: dict[str, str | None] = {}
    for key in ("fingerprint", "path", "conversation"):
        value = entry.get(key)
        if value is not None and (not isinstance(value, str) or not value):
            raise error(f": {key} must be a non-empty string, got {shown_value(value)}")
        texts[key] = value
    fingerprint = texts["fingerprint"]
    if fingerprint is not None and not _FINGERPRINT.fullmatch(fingerprint):
        raise error(
            ": fingerprint must be the 20 hex digits a report gives, "
            f"got {shown_value(fingerprint)}"
        )
    if fingerprint is None and texts["path"] is None:
        raise error(" matches no finding: give a fingerprint, or a path (a glob)")
    code = entry.get("code")
    selectors = [code] if isinstance(code, str) else code if code is not None else []
    if not is_strings(selectors):
        raise error(
            ": code must be a rule code, prefix or name, or a list of them, "
            f"got {shown_value(code)}"
        )
    codes: set[str] = set()
    for selector in selectors:
        try:
            codes.update(r.code for r in registry.matching(selector, True, extra))
        except ConfigError as exc:
            raise error(f": code: {exc}") from exc
    return Suppression(
        entry=n,
        reason=reason.strip(),
        fingerprint=fingerprint,
        path=texts["path"],
        conversation=texts["conversation"],
        turns=_turns(entry.get("turns"), error),
        code=tuple(selectors),
        codes=frozenset(codes),
        root=str(file.path.parent),
    )


def _turns(value: Any, error: Any) -> tuple[int, int] | None:
    """`5`, `"5"` or `"3-8"` -> (first, last)."""
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value, value
    found = _TURNS.fullmatch(value) if isinstance(value, str) else None
    if found is not None:
        first = int(found[1])
        last = int(found[2]) if found[2] is not None else first
        if first <= last:
            return first, last
    raise error(f': turns must be a turn (5) or a range of turns ("3-8"), got {shown_value(value)}')
