"""MCP JSON-RPC traffic (`mcp.py`): calls, results, errors and declared tools."""

from __future__ import annotations

import orjson

from tests.formats.shared import shape_of
from tests.helpers import FORMAT_DIR, conversations, normalised


def test_mcp_calls_results_and_declared_tools():
    (cassette,) = normalised(FORMAT_DIR / "mcp" / "mcp-recorder-mock_session.json")
    assert [t["name"] for t in cassette["tools"]] == ["add", "multiply", "echo", "get_weather"]
    assert [c for row in shape_of(cassette) for c in row[1]] == ["2", "3", "4", "5"]
    (deepwiki,) = normalised(FORMAT_DIR / "mcp" / "deepwiki-temporal.mcp-jsonrpc.jsonl")
    assert shape_of(deepwiki) == [("assistant", ("1",), None), ("tool", (), ("1", False))]


def test_mcp_error_results(tmp_path):
    path = tmp_path / "mcp.jsonl"
    lines = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}},
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "rm", "arguments": {}},
        },
        {
            "jsonrpc": "2.0",
            "id": 1,
            "result": {"content": [{"type": "text", "text": "denied"}], "isError": True},
        },
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "nope", "arguments": {}},
        },
        {"jsonrpc": "2.0", "id": 2, "error": {"code": -32602, "message": "Unknown tool: nope"}},
    ]
    path.write_bytes(b"\n".join(orjson.dumps(line) for line in lines))
    (conversation,) = conversations(path, strict=True)
    results = [m.result for m in conversation.messages if m.result]
    assert [(r.call_id, r.text, r.is_error) for r in results] == [
        ("1", "denied", True),
        ("2", "Unknown tool: nope", True),
    ]
