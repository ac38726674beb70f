"""Tool declarations given from outside the log: `--tools FILE`, `[tool.auditor] tools`.

Logs often declare no tools (tau-bench's never do), while the application that wrote them knows
exactly which it offered. The file holds them in the shape an API or a server already writes:

- an OpenAI `tools` array (`[{"type": "function", "function": {"name", "parameters"}}]`) or the
  flat Responses shape (`[{"name", "parameters"}]`);
- Anthropic `tools` (`[{"name", "description", "input_schema"}]`);
- an MCP `tools/list` result: the JSON-RPC response (`{"jsonrpc": "2.0", "id": 1, "result":
  {"tools": [{"name", "inputSchema"}]}}`) or the bare result (`{"tools": [...]}`), also as one
  line among the other messages of a JSON Lines recording of the session, or as an
  interaction of an mcp-recorder cassette (`{"interactions": [{"response": …}]}`);
- any object with a `tools` key (a saved request body).

Tools found in several places are merged by name, the first declaration winning. A
conversation's own declarations win over the file's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from auditor.common.errors import ConfigError
from auditor.formats import tool_specs
from auditor.model import ToolSpec
from auditor.sources import os_reason, read_regular

_LIMIT = 64 * 1024 * 1024
"""A tool declaration file is small; a larger one is not what the user meant to pass."""


def read(path: str | Path, origin: str = "--tools") -> tuple[ToolSpec, ...]:
    """The tools declared in `path`; ConfigError naming the file and what is wrong with it."""
    where = f"{origin} {path}"
    try:
        data = read_regular(path, _LIMIT)
    except OSError as exc:
        raise ConfigError(f"cannot read {where}: {os_reason(exc)}") from exc
    found: dict[str, ToolSpec] = {}
    for value in _values(data, where):
        for spec in _declared(value):
            found.setdefault(spec.name, spec)
    if not found:
        raise ConfigError(
            f"invalid {where}: no tool declarations found (expected an OpenAI or Anthropic "
            "`tools` array, or an MCP tools/list result)"
        )
    return tuple(found.values())


def _values(data: bytes, where: str) -> list[Any]:
    """The file as one JSON document, or else as JSON Lines."""
    try:
        return [orjson.loads(data)]
    except orjson.JSONDecodeError as exc:
        document_error = exc
    values = []
    for number, line in enumerate(data.splitlines(), 1):
        if not line.strip():
            continue
        try:
            values.append(orjson.loads(line))
        except orjson.JSONDecodeError:
            if number == 1:
                raise ConfigError(f"invalid {where}: not JSON: {document_error}") from None
            raise ConfigError(f"invalid {where}: line {number} is not JSON") from None
    return values


def _declared(value: Any) -> list[ToolSpec]:
    """Tool declarations in one JSON value, wherever the known shapes put them."""
    if isinstance(value, list):
        return list(tool_specs(value) or ())
    if not isinstance(value, dict):
        return []
    result = value.get("result")
    if isinstance(result, dict) and "tools" in result:  # a JSON-RPC response
        return list(tool_specs(result["tools"]) or ())
    if "tools" in value:  # a bare tools/list result, or a request body
        return list(tool_specs(value["tools"]) or ())
    interactions = value.get("interactions")
    if isinstance(interactions, list):  # an mcp-recorder cassette
        return [
            spec
            for item in interactions
            if isinstance(item, dict)
            for spec in _declared(item.get("response"))
        ]
    return []
