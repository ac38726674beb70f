"""Argument values as the FB rules read them: each string of a call, and whether it is code.

FB004 and FB005 look at the values a call ran with. Both walk a call's arguments the same way:
every string in them (nested objects and arrays included, at most `MAX_STRINGS` per call), with
the key it sits under. A value is *code* when the tool runs it (`python`, `sh`, `bash`, …) or its
key says so (`code`, `script`, `command`, …): code is read for placeholders but never for
identifiers, since a program is free to name new files, variables and hosts.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

from auditor.common.patterns import lazy
from auditor.model import ToolCall

MAX_STRINGS = 256
"""String values read in one call's arguments."""
MAX_DEPTH = 12
CODE_KEYS = frozenset(
    ("code", "script", "command", "cmd", "commands", "source", "program", "python", "bash", "sql")
)
"""Keys whose value is a program the tool runs."""
CODE_TOOLS = frozenset(("python", "sh", "bash", "shell", "ipython", "execute_code", "run_code"))
"""Tools whose arguments are programs."""
WRITTEN_KEYS = frozenset(
    ("file_text", "new_str", "old_str", "replacement_text", "insert_text", "file_content")
)
"""Keys whose value is the content of a file an editor tool writes: read as code."""


FILE_CONTENT_KEYS = frozenset(
    (
        "content",
        "file_text",
        "new_str",
        "old_str",
        "new_content",
        "diff",
        "patch",
        "search",
        "replace",
        "code_edit",
    )
)
"""Keys whose value is what a call saves to a file, or the text it replaces there, when it names
the file (`writes_file`)."""
PATH_KEYS = frozenset(("path", "file_path", "filepath", "filename", "file", "target_file"))


def writes_file(arguments: Any) -> bool:
    """The arguments name a file (`path`, `file_path`, …) beside what they hold: a call that saves
    or edits it. Objects inside a list (several files in one call) count."""
    if isinstance(arguments, dict):
        if not PATH_KEYS.isdisjoint(arguments):
            return True
        return any(writes_file(v) for v in arguments.values() if isinstance(v, list))
    if isinstance(arguments, list):
        return any(isinstance(item, dict) and not PATH_KEYS.isdisjoint(item) for item in arguments)
    return False


def strings(call: ToolCall) -> Iterator[tuple[str, str, bool]]:
    """(key, value, is_code) for every string value of the call's arguments, in order.

    `key` is the innermost key (`""` for a bare string argument or for arguments that are not
    JSON, which are read as one value).
    """
    arguments = call.arguments
    if arguments is None:
        arguments = call.raw_arguments or ""
    runs_code = call.name.lower() in CODE_TOOLS
    for key, value in itertools.islice(_walk(arguments, "", 0), MAX_STRINGS):
        lower = key.lower()
        yield key, value, runs_code or lower in CODE_KEYS or lower in WRITTEN_KEYS


def _walk(value: Any, key: str, depth: int) -> Iterator[tuple[str, str]]:
    if isinstance(value, str):
        yield key, value
    elif depth >= MAX_DEPTH:
        return
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _walk(v, str(k), depth + 1)
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item, key, depth + 1)


def comment_free(code: str) -> str:
    """Code without its whole-line comments and `  # …` tails (Python, shell).

    Comments say what to replace ("# replace with your key"); only what runs is read.
    """
    if "#" not in code:
        return code
    lines = []
    for line in code.split("\n"):
        stripped = line.lstrip()
        if stripped.startswith("#"):
            continue
        cut = line.find("  #")
        lines.append(line[:cut] if cut >= 0 else line)
    return "\n".join(lines)


MAX_HEREDOCS = 64
"""Here-document openers read in one command."""
_HEREDOC = lazy(r"<<-?[ \t]*+(['\"]?)([A-Za-z_]\w{0,30})\1[^\n]*+\n")


def heredocs(command: str) -> tuple[str, str]:
    """A shell command split into what runs and the here-documents it feeds a command (the
    content of `cat <<'EOF' > test.py … EOF`): (the command without them, their bodies)."""
    if "<<" not in command:
        return command, ""
    runs: list[str] = []
    bodies: list[str] = []
    pos = 0
    unclosed: set[str] = set()  # no closing line after an opener: none after a later one either
    for m in itertools.islice(_HEREDOC.finditer(command), MAX_HEREDOCS):
        delimiter = m.group(2)
        if m.start() < pos or delimiter in unclosed:
            continue  # inside a body already taken
        end = command.find(f"\n{delimiter}\n", m.end() - 1)
        if end < 0:
            closing = len(command) - len(delimiter) - 1
            end = closing if command.endswith(f"\n{delimiter}") else -1
        if end < 0:
            unclosed.add(delimiter)
            continue
        runs.append(command[pos : m.end()])
        bodies.append(command[m.end() : end + 1])
        pos = end + 1
    runs.append(command[pos:])
    return "".join(runs), "\n".join(bodies)


# One step of a command that only saves files: a here-document redirected into a file (`cat
# <<'EOF' > path`, `cat > path <<EOF`, `tee [-a] path <<EOF [> /dev/null]`), or making or
# entering the folder it goes to.
_SAVE_STEP = lazy(
    r"cat[ \t]*(?:<<-?[ \t]*(['\"]?)\w+\1[ \t]*)?>>?[ \t]*[^\s;&|<>()`$]+"
    r"(?:[ \t]*<<-?[ \t]*(['\"]?)\w+\2)?"
    r"|tee(?:[ \t]+-a)?[ \t]+[^\s;&|<>()`$-][^\s;&|<>()`$]*[ \t]*<<-?[ \t]*(['\"]?)\w+\3"
    r"(?:[ \t]*>[ \t]*/dev/null)?"
    r"|(?:mkdir(?:[ \t]+-p)?|cd)[ \t]+[^\s;&|<>()`$]+"
)
_STEP_SPLIT = lazy(r"[ \t]*(?:&&|;|\n)[ \t]*")


def saves_only(runs: str, delimiters: str) -> bool:
    """`runs`, a shell command without its here-document bodies (`heredocs`), does nothing
    but save them into files: each step is `cat <<'EOF' > path`, `cat > path <<EOF`, `tee path
    <<EOF`, `mkdir -p dir` or `cd dir`, a comment, or a closing delimiter line.

    `delimiters` is the command as given, where the closing lines are looked up."""
    if "<<" not in runs:
        return False
    closing = {m.group(2) for m in _HEREDOC.finditer(delimiters)}
    saved = False
    for step in _STEP_SPLIT.split(runs.strip()):
        if not step or step.startswith("#") or step in closing:
            continue
        if _SAVE_STEP.fullmatch(step) is None:
            return False
        saved = saved or "<<" in step
    return saved
