"""The registry: the built-in formats in detection order, the plugins', and the formats records
are offered to (`registry`), by name (`by_name`) or by the first that detects a record
(`detect`)."""

from __future__ import annotations

import functools
import importlib
import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from auditor.errors import ConfigError
from auditor.formats.contract import Format
from auditor.sources import Record

# Order matters, most specific first: an exchange holds request bodies in any API's shape; a
# tau-bench entry holds OpenAI messages; Anthropic and Responses conversations would also pass
# for OpenAI ones (`messages`, or a bare list of `{role, content}`); SWE-agent trajectories
# have a `history` like multi-agent chats. An agent-SDK event (`kind: …Event`) and a bare message
# (no container key, no session key) are no other format's: they come first, since their
# formats hold one event or message a line and detection runs on every line.
_BUILT_IN = (
    "openhands",
    # Gemini CLI's event lines (`type: message` with a `role`) would pass for bare messages.
    "gemini-cli",
    "message-lines",
    # Agent frameworks' own files, each recognised by keys no other format has; Letta's and
    # AutoGen's `messages` would pass for OpenAI's, smolagents' `thread_id` for a stream's.
    "browser-result",
    "browser-use",
    "letta",
    "autogen",
    "cline",
    "smolagents",
    "chatdev",
    "aider",
    "otel",
    "inspect-ai",
    "openai-agents",
    "mcp",
    "mini-swe-agent",
    "medagentbench",
    "litellm",
    "openhands-v0",
    "exchange",
    "tau",
    "anthropic",
    "responses",
    "sharegpt",
    "swe-agent",
    "multiagent",
    "openai",
    "stream",
    "harmony",
    # Last: any JSON holding a list of message-like objects no reader above took.
    "structural",
)


class _Readers(Mapping[str, Format]):
    """The built-in formats by name, in detection order: a reader's module (named by the
    format, `-` written `_`) is imported when it is first asked for, so that a run imports
    the readers its records need, and none for a file of no record."""

    def __init__(self, names: Sequence[str]) -> None:
        self._names = tuple(names)
        self._known = frozenset(names)
        self._loaded: dict[str, Format] = {}

    def __getitem__(self, name: str) -> Format:
        reader = self._loaded.get(name)
        if reader is None:
            if name not in self._known:
                raise KeyError(name)
            module = f"{__package__}.{name.replace('-', '_')}"
            reader = self._loaded[name] = importlib.import_module(module)
        return reader

    def __contains__(self, name: object) -> bool:
        return name in self._known

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


FORMATS: Mapping[str, Format] = _Readers(_BUILT_IN)


def detect(record: Record, declared: Sequence[Format] = ()) -> Format | None:
    """The first format that recognises the record, or None: formats declared in the
    configuration first, then those plugins add, then the built-in ones."""
    for fmt in registry(declared):
        if fmt.detect(record):
            return fmt
    return None


def registry(declared: Sequence[Any] = ()) -> tuple[Any, ...]:
    """Every format, in the order records are offered to them: the `declared` ones (mapped in
    `[tool.auditor.formats.NAME]`, most specific: the user wrote them for their logs), the
    plugins' (`auditor.formats` entry points), the built-in ones."""
    if not declared:
        return _builtin_and_plugins()
    return (*declared, *_builtin_and_plugins())


@functools.cache
def _builtin_and_plugins() -> tuple[Any, ...]:
    return (*plugins().values(), *FORMATS.values())


@functools.cache
def plugins() -> dict[str, Any]:
    """The readers installed packages ship under the `auditor.formats` entry point group, each
    an object with `NAME`, `detect(record)` and `parse(record)` (a module, as the built-in ones
    are). Loaded once per process. Raises ConfigError for one that fails to load, lacks one of
    those, or takes a built-in format's name."""
    found: dict[str, Any] = {}
    if not _may_declare(ENTRY_POINTS):
        return found
    from importlib.metadata import entry_points

    for point in entry_points(group=ENTRY_POINTS):
        try:
            reader = point.load()
        except Exception as exc:
            raise ConfigError(
                f"the `{ENTRY_POINTS}` plugin `{point.name}` ({point.value}) failed to load: "
                f"{type(exc).__name__}: {exc}"
            ) from exc
        name = getattr(reader, "NAME", None)
        missing = [a for a in ("detect", "parse") if not callable(getattr(reader, a, None))]
        if not isinstance(name, str) or missing:
            lacks = "a string NAME" if not isinstance(name, str) else f"`{missing[0]}()`"
            raise ConfigError(f"the `{ENTRY_POINTS}` plugin `{point.name}` has no {lacks}")
        if name in FORMATS or name in found:
            raise ConfigError(
                f"the `{ENTRY_POINTS}` plugin `{point.name}` is named `{name}`, "
                "as another format is: rename it"
            )
        found[name] = reader
    return found


ENTRY_POINTS = "auditor.formats"
"""The entry point group under which packages ship readers."""


def _may_declare(group: str) -> bool:
    """Whether an installed package may declare entry points of `group`, looked for as
    importlib.metadata finds them (the `entry_points.txt` of each `*.dist-info` or `*.egg-info`
    folder on sys.path) without importing it, which costs a sixth of a run's start. A zip or an
    egg on sys.path, or a finder of distributions besides the standard one, may: importlib
    decides."""
    from importlib.machinery import PathFinder

    if any(
        getattr(finder, "find_distributions", None) is not None and finder is not PathFinder
        for finder in sys.meta_path
    ):
        return True
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except NotADirectoryError:
            return True  # a zip file
        except OSError:
            continue
        if entry.endswith(".egg"):
            return True
        for name in names:
            if name.lower().endswith((".dist-info", ".egg-info")):
                try:
                    with open(os.path.join(entry or ".", name, "entry_points.txt"), "rb") as f:
                        if group.encode() in f.read():
                            return True
                except OSError:
                    continue
    return False


def by_name(name: str, declared: Sequence[Any] = ()) -> Any:
    """The format of this name: declared, a plugin's or built in. Raises KeyError."""
    for fmt in declared:
        if name == fmt.NAME:
            return fmt
    found = plugins().get(name) or FORMATS.get(name)
    if found is None:
        raise KeyError(name)
    return found
