"""`audit --add-ignore FINGERPRINT --reason TEXT`: a suppress entry written for you.

The entry goes at the end of the configuration the run would read (`--config FILE`, else the
one found from the working directory), or of a new `.auditor.toml` in the working directory
when there is none: `[[tool.auditor.suppress]]` in a pyproject.toml, `[[suppress]]` in a
standalone file. The file is written whole or not at all, and read back with the entry before
it replaces the old one; a fingerprint some entry already names is left as it is. With paths,
the fingerprint must be one of their findings, and the entry says which (a comment).
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from auditor.common.errors import ConfigError
from auditor.config.files import shown
from auditor.config.suppress import suppressions

if TYPE_CHECKING:
    from auditor.commands.run import Invocation

_FINGERPRINT = re.compile(r"[0-9a-f]{20}")
STANDALONE = ".auditor.toml"


def add_ignore(invocation: Invocation, fingerprint: str, reason: str | None) -> int:
    """Write the entry; one line on stderr says where. Raises ConfigError for a fingerprint
    that is not one, a missing reason, or a fingerprint none of the paths' findings has."""
    from auditor.commands import run
    from auditor.common import atomic

    if invocation.isolated:
        raise ConfigError("--add-ignore writes the configuration: drop --isolated")
    fingerprint = fingerprint.strip()
    if not _FINGERPRINT.fullmatch(fingerprint):
        raise ConfigError(
            f"--add-ignore `{fingerprint}` is not a fingerprint: the 20 hex digits a report gives "
            "each finding (`-f json`, `fingerprint`)"
        )
    if reason is None or not reason.strip():
        raise ConfigError('--add-ignore needs --reason "why the finding is acceptable"')
    found = run.config_file(invocation)
    path = found.path if found is not None else Path(STANDALONE)
    pyproject = found.in_pyproject if found is not None else False
    if found is not None and any(s.fingerprint == fingerprint for s in suppressions(found)):
        print(f"audit: {fingerprint} is already suppressed in {found.name}", file=sys.stderr)
        return 0
    comment = _finding(invocation, fingerprint) if invocation.paths else []
    table = "[[tool.auditor.suppress]]" if pyproject else "[[suppress]]"
    lines = ["", *(f"# {line}" for line in comment), table]
    lines += [f'fingerprint = "{fingerprint}"', f"reason = {json.dumps(reason.strip())}", ""]
    before = path.read_text(encoding="utf-8") if path.exists() else ""
    after = (before if before.endswith("\n") or not before else before + "\n") + "\n".join(lines)
    _read_back(after.lstrip("\n"), path, pyproject, fingerprint)
    with atomic.replaced(os.fspath(path)) as out:
        out.write(after.lstrip("\n"))
    print(f"audit: added a suppress entry for {fingerprint} to {shown(path)}", file=sys.stderr)
    return 0


def _read_back(text: str, path: Path, pyproject: bool, fingerprint: str) -> None:
    """The file as it will be reads as a configuration, the new entry in it: else the old one
    is left as it was."""
    import tomllib

    from auditor.config.files import FileConfig

    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path} would not be TOML with the entry: {exc}") from None
    values = document.get("tool", {}).get("auditor", {}) if pyproject else document
    written = FileConfig(path, values, in_pyproject=pyproject)
    if not any(s.fingerprint == fingerprint for s in suppressions(written)):
        raise ConfigError(f"the entry would not read back from {path}")


def _finding(invocation: Invocation, fingerprint: str) -> list[str]:
    """The finding of the paths that has the fingerprint, as the comment above its entry."""
    from auditor.commands import run

    report = run.audit(invocation, run.settings(invocation)).report
    for f in report.findings:
        if f.fingerprint == fingerprint:
            return [f"{f.code} {f.name}: {f.path}:{f.line or 1} [{f.conversation} turn {f.turn}]"]
    raise ConfigError(f"--add-ignore: no finding of {', '.join(invocation.paths)} is {fingerprint}")
