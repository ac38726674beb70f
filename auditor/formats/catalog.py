"""The registry: the built-in readers in detection order (`built_in`), the plugins', and the
formats records are offered to (`registry`), by name (`by_name`) or by the first that detects a
record (`detect`)."""

from __future__ import annotations

import functools
import importlib
from collections.abc import Iterator, Mapping, Sequence

from auditor.common import entrypoints
from auditor.common.errors import ConfigError
from auditor.formats.contract import MEMBERS, Format
from auditor.sources import Record


@functools.cache
def built_in() -> tuple[Format, ...]:
    """Every built-in reader, in the order records are offered to them, most specific first.

    Imported at the first call (the first record of a run, or a walk's first sniffed file), so
    that a run of no record imports none; mypy holds each module to `Format` here. An exchange
    holds request bodies in any API's shape; a tau-bench entry holds OpenAI messages; Anthropic
    and Responses conversations would also pass for OpenAI ones (`messages`, or a bare list of
    `{role, content}`); SWE-agent trajectories have a `history` like multi-agent chats. An
    agent-SDK event (`kind: …Event`) and a bare message (no container key, no session key) are
    no other format's: they come first, since their formats hold one event or message a line
    and detection runs on every line.
    """
    from auditor.formats import (
        aider,
        anthropic,
        autogen,
        browser_result,
        browser_use,
        chatdev,
        cline,
        exchange,
        gemini_cli,
        harmony,
        inspect_ai,
        letta,
        litellm,
        mcp,
        medagentbench,
        message_lines,
        mini_swe_agent,
        multiagent,
        openai,
        openai_agents,
        openhands,
        openhands_v0,
        otel,
        responses,
        sharegpt,
        smolagents,
        stream,
        structural,
        swe_agent,
        tau,
    )

    return (
        openhands,
        # Gemini CLI's event lines (`type: message` with a `role`) would pass for bare messages.
        gemini_cli,
        message_lines,
        # Agent frameworks' own files, each recognised by keys no other format has; Letta's and
        # AutoGen's `messages` would pass for OpenAI's, smolagents' `thread_id` for a stream's.
        browser_result,
        browser_use,
        letta,
        autogen,
        cline,
        smolagents,
        chatdev,
        aider,
        otel,
        inspect_ai,
        openai_agents,
        mcp,
        mini_swe_agent,
        medagentbench,
        litellm,
        openhands_v0,
        exchange,
        tau,
        anthropic,
        responses,
        sharegpt,
        swe_agent,
        multiagent,
        openai,
        stream,
        harmony,
        # Last: any JSON holding a list of message-like objects no reader above took.
        structural,
    )


NAMES = frozenset(
    {
        "aider", "anthropic", "autogen", "browser-result", "browser-use", "chatdev", "cline",
        "exchange", "gemini-cli", "harmony", "inspect-ai", "letta", "litellm", "mcp",
        "medagentbench", "message-lines", "mini-swe-agent", "multiagent", "openai",
        "openai-agents", "openhands", "openhands-v0", "otel", "responses", "sharegpt",
        "smolagents", "stream", "structural", "swe-agent", "tau",
    }
)  # fmt: skip
"""The built-in readers' names, known without importing one (`--input-format`, the names a
declared format or a plugin may not take); `tests/test_registry.py` holds it to `built_in`."""


def _one(name: str) -> Format:
    """The built-in reader of this name (one of `NAMES`), importing no other: a reader's module
    is named by its format, `-` written `_`."""
    module = importlib.import_module(f"{__package__}.{name.replace('-', '_')}")
    if not isinstance(module, Format):  # never for a name of NAMES: tests/test_registry.py
        raise TypeError(f"{module.__name__} is not a reader")
    return module


class _Readers(Mapping[str, Format]):
    """The built-in readers by name, in detection order: looking one up by name imports that
    reader alone (a run with `--input-format`); going through them imports them all."""

    def __getitem__(self, name: str) -> Format:
        if name not in NAMES:
            raise KeyError(name)
        return _one(name)

    def __contains__(self, name: object) -> bool:
        return name in NAMES

    def __iter__(self) -> Iterator[str]:
        return (fmt.NAME for fmt in built_in())

    def __len__(self) -> int:
        return len(NAMES)


FORMATS: Mapping[str, Format] = _Readers()


def detect(record: Record, declared: Sequence[Format] = ()) -> Format | None:
    """The first format that recognises the record, or None: formats declared in the
    configuration first, then those plugins add, then the built-in ones; each is offered only
    records of its `KIND`."""
    kind = record.kind
    for fmt in registry(declared):
        if (fmt.KIND is None or kind == fmt.KIND) and fmt.detect(record):
            return fmt
    return None


def registry(declared: Sequence[Format] = ()) -> tuple[Format, ...]:
    """Every format, in the order records are offered to them: the `declared` ones (mapped in
    `[tool.auditor.formats.NAME]`, most specific: the user wrote them for their logs), the
    plugins' (`auditor.formats` entry points), the built-in ones."""
    if not declared:
        return _builtin_and_plugins()
    return (*declared, *_builtin_and_plugins())


@functools.cache
def _builtin_and_plugins() -> tuple[Format, ...]:
    return (*plugins().values(), *built_in())


@functools.cache
def plugins() -> dict[str, Format]:
    """The readers installed packages ship under the `auditor.formats` entry point group, each
    an object holding every member of `Format` (a module, as the built-in ones are; the
    defaults are `contract`'s). Loaded once per process. Raises ConfigError for one that fails
    to load, lacks a member, or takes a built-in format's name."""
    found: dict[str, Format] = {}
    if not entrypoints.may_declare(ENTRY_POINTS):
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
        where = f"the `{ENTRY_POINTS}` plugin `{point.name}`"
        if not isinstance(reader, Format):
            missing = ", ".join(f"`{m}`" for m in MEMBERS if m not in dir(reader))
            raise ConfigError(
                f"{where} has no {missing}: a reader states every member of "
                "auditor.formats.contract.Format (its defaults are in that module)"
            )
        name = reader.NAME
        if not isinstance(name, str):
            raise ConfigError(f"{where} has a NAME that is not a string")
        if name in NAMES or name in found:
            raise ConfigError(f"{where} is named `{name}`, as another format is: rename it")
        found[name] = reader
    return found


ENTRY_POINTS = "auditor.formats"
"""The entry point group under which packages ship readers."""


def by_name(name: str, declared: Sequence[Format] = ()) -> Format:
    """The format of this name: declared, a plugin's or built in. Raises KeyError."""
    for fmt in declared:
        if name == fmt.NAME:
            return fmt
    found = plugins().get(name) or FORMATS.get(name)
    if found is None:
        raise KeyError(name)
    return found


def known(name: str, declared: Sequence[Format] = ()) -> bool:
    """A format of this name is declared, a plugin's or built in (importing no reader)."""
    return name in NAMES or name in plugins() or any(name == fmt.NAME for fmt in declared)


def names(declared: Sequence[Format] = ()) -> list[str]:
    """Every format's name, in the order records are offered to them."""
    return [fmt.NAME for fmt in registry(declared)]
