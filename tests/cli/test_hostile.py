"""Hostile input: no input, however broken, crashes, hangs, loses a record or reaches the terminal.

Every case runs the real command in a child process with a watchdog (a hang detector, not a
speed assertion) and checks: exit status 0, 1 or 2; no traceback; every non-blank line counted
in `summary.records`; one IN001 per unreadable line.
"""

from __future__ import annotations

import gzip
import json
import os
import random
import subprocess
import sys

import pytest

from tests.helpers import ROOT, audit_process

WATCHDOG = 120  # seconds; generous: only a hang or a quadratic blow-up reaches it
GOOD = json.dumps({"id": "ok", "messages": [{"role": "user", "content": "hi"}]}).encode()


def run(*args: str, stdin: bytes | None = None) -> tuple[int, dict | None, str]:
    env = {**os.environ, "NO_COLOR": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "auditor", *args, "-f", "json", "--no-progress"],
        input=stdin,
        capture_output=True,
        cwd=ROOT,
        env=env,
        timeout=WATCHDOG,
    )
    stderr = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode in (0, 1, 2), stderr
    assert "Traceback" not in stderr, stderr
    doc = json.loads(proc.stdout) if proc.stdout.strip() else None
    return proc.returncode, doc, stderr


def run_bytes(tmp_path, data: bytes, name: str = "input.jsonl") -> tuple[int, dict, str]:
    path = tmp_path / name
    path.write_bytes(data)
    status, doc, stderr = run(str(path))
    assert doc is not None
    return status, doc, stderr


def invalid_lines(doc: dict) -> list[int]:
    return [f["line"] for f in doc["findings"] if f["code"] == "IN001"]


def test_empty_file(tmp_path):
    # Nothing read is not a clean bill: exit 2 with one line, unless --allow-empty.
    status, doc, stderr = run_bytes(tmp_path, b"")
    assert status == 2
    assert stderr.startswith("audit: error: no conversation found in ")
    assert doc["summary"]["records"] == 0 and doc["findings"] == []
    status, _, _ = run(str(tmp_path / "input.jsonl"), "--allow-empty")
    assert status == 0


def test_only_blank_lines_bom_and_crlf(tmp_path):
    data = b"\xef\xbb\xbf\r\n\n   \n" + GOOD + b"\r\n\r\n" + GOOD + b"\r\n"
    status, doc, _ = run_bytes(tmp_path, data)
    assert status == 0
    assert doc["summary"]["records"] == 2 and doc["summary"]["conversations"] == 2


def test_invalid_utf8_and_truncated_last_line(tmp_path):
    data = GOOD + b"\n" + b'{"messages": "\xc0\xaf"}\n' + GOOD + b"\n" + GOOD[:20]
    status, doc, _ = run_bytes(tmp_path, data)
    assert status == 1
    assert doc["summary"]["records"] == 4
    assert invalid_lines(doc) == [2, 4]
    assert doc["summary"]["conversations"] == 2


def test_nesting_deeper_than_orjson_allows(tmp_path):
    deep = b'{"messages": ' + b"[" * 5000 + b"]" * 5000 + b"}"
    data = deep + b"\n" + GOOD + b"\n"
    status, doc, _ = run_bytes(tmp_path, data)
    assert invalid_lines(doc) == [1]
    assert doc["summary"]["records"] == 2 and doc["summary"]["conversations"] == 1
    assert status == 1


def test_deep_but_legal_nesting_inside_arguments(tmp_path):
    args = "[" * 200 + "]" * 200
    record = {
        "messages": [
            {"role": "user", "content": "x"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": args}}],
            },
            {"role": "tool", "tool_call_id": "c", "content": "ok"},
        ]
    }
    status, doc, _ = run_bytes(tmp_path, json.dumps(record).encode() + b"\n")
    assert status in (0, 1)
    assert doc["errors"] == []


def test_nan_and_infinity_are_invalid_json(tmp_path):
    data = b'{"messages": [], "x": NaN}\n{"x": Infinity}\n' + GOOD + b"\n"
    _, doc, _ = run_bytes(tmp_path, data)
    assert invalid_lines(doc) == [1, 2]
    assert doc["summary"]["records"] == 3


WRONG_TYPES = [None, True, 0, -1.5, "", "text", [], {}, [None], [1, "a"], {"a": None}]


def _wrong_type_records() -> list[dict]:
    """A valid conversation with every slot replaced, one at a time, by every wrong type."""
    base = {
        "id": "c",
        "tools": [
            {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}
        ],
        "messages": [
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}}
                ],
            },
            {"role": "tool", "tool_call_id": "a", "content": "ok"},
        ],
    }
    slots = [
        ("id",),
        ("tools",),
        ("tools", 0),
        ("tools", 0, "function"),
        ("tools", 0, "function", "name"),
        ("tools", 0, "function", "parameters"),
        ("messages", 0),
        ("messages", 0, "role"),
        ("messages", 0, "content"),
        ("messages", 1, "tool_calls"),
        ("messages", 1, "tool_calls", 0),
        ("messages", 1, "tool_calls", 0, "id"),
        ("messages", 1, "tool_calls", 0, "function"),
        ("messages", 1, "tool_calls", 0, "function", "name"),
        ("messages", 1, "tool_calls", 0, "function", "arguments"),
        ("messages", 2, "tool_call_id"),
        ("messages", 2, "content"),
    ]
    out = []
    for slot in slots:
        for wrong in WRONG_TYPES:
            record = json.loads(json.dumps(base))
            target = record
            for key in slot[:-1]:
                target = target[key]
            target[slot[-1]] = wrong
            out.append(record)
    # The top level itself, and the same shapes in a tau-bench entry.
    out.extend(WRONG_TYPES)
    out.extend({"task_id": 1, "traj": wrong} for wrong in WRONG_TYPES)
    out.extend({"simulations": [wrong]} for wrong in WRONG_TYPES)
    return out


def test_wrong_types_at_every_level(tmp_path):
    records = _wrong_type_records()
    data = b"".join(json.dumps(r).encode() + b"\n" for r in records)
    _, doc, stderr = run_bytes(tmp_path, data)
    assert doc["errors"] == [], stderr
    assert doc["summary"]["records"] == len(records)
    assert invalid_lines(doc) == []


def test_a_50_mb_line(tmp_path):
    big = {"id": "big", "messages": [{"role": "user", "content": "x" * (50 * 1024 * 1024)}]}
    data = GOOD + b"\n" + json.dumps(big).encode() + b"\n" + GOOD + b"\n"
    status, doc, _ = run_bytes(tmp_path, data)
    assert status == 0
    assert doc["summary"]["records"] == 3 and doc["summary"]["conversations"] == 3


def test_random_binary(tmp_path):
    rng = random.Random(7)
    data = bytes(rng.randrange(256) for _ in range(200_000))
    status, doc, _ = run_bytes(tmp_path, data)
    assert status == 2  # no conversation read
    # One finding for the file, not one for each of its "lines".
    nul = data.index(b"\0")
    assert [(f["code"], f["line"], f["message"]) for f in doc["findings"]] == [
        ("IN001", 1, f"binary file, not a log (a NUL byte at offset {nul})")
    ]
    assert doc["summary"]["records"] == 1
    assert doc["errors"] == []


@pytest.mark.parametrize("name", ["plot.png", "plot.jsonl", "plot.jsonl.gz", "plot.json", "-"])
def test_a_binary_file_named_on_the_command_line_is_one_finding(tmp_path, name):
    """An image given by mistake (or piped in) says what it is once; before, a 20 KB PNG
    gave 134 IN001 lines."""
    png = (ROOT / "docs" / "report.png").read_bytes()[:20_000]
    data = gzip.compress(png) if name.endswith(".gz") else png
    if name == "-":
        proc = audit_process("-", "-f", "concise", "--allow-empty", stdin=data, cwd=tmp_path)
        shown = "<stdin>"
    else:
        (tmp_path / name).write_bytes(data)
        proc = audit_process(name, "-f", "concise", "--allow-empty", cwd=tmp_path)
        shown = name
    assert proc.stdout.decode().splitlines() == [
        f"{shown}:1: IN001 binary file, not a log (a NUL byte at offset 8)"
    ]


def test_utf16_text_is_one_finding_saying_so(tmp_path):
    (tmp_path / "runs.jsonl").write_bytes(("\ufeff" + GOOD.decode() + "\n").encode("utf-16-le"))
    proc = audit_process("runs.jsonl", "-f", "concise", "--allow-empty", cwd=tmp_path)
    assert proc.stdout.decode() == (
        "runs.jsonl:1: IN001 UTF-16 text, not a log: logs are read as UTF-8 "
        "(convert it: iconv -f UTF-16)\n"
    )


@pytest.mark.parametrize("cut", [0.1, 0.5, 0.9])
def test_corrupt_gzip(tmp_path, cut):
    data = gzip.compress(b"".join(GOOD + b"\n" for _ in range(2000)))
    status, doc, _ = run_bytes(tmp_path, data[: int(len(data) * cut)], name="input.jsonl.gz")
    assert status == (1 if doc["summary"]["conversations"] else 2)
    (broken,) = [f for f in doc["findings"] if f["code"] == "IN001"]
    assert broken["message"].startswith("compressed stream is corrupt or truncated")
    assert doc["summary"]["conversations"] == broken["line"] - 1


def test_gzip_that_is_not_gzip(tmp_path):
    status, doc, _ = run_bytes(tmp_path, GOOD + b"\n", name="input.jsonl.gz")
    assert status == 2  # nothing but the broken stream: no conversation was read
    assert doc["findings"][0]["message"].startswith("compressed stream is corrupt or truncated")


def test_missing_paths_and_the_rest_still_audited(tmp_path):
    good = tmp_path / "good.jsonl"
    good.write_bytes(GOOD + b"\n")
    status, doc, stderr = run(str(tmp_path / "missing.jsonl"), str(good), str(tmp_path / "nope"))
    assert status == 2
    assert doc["summary"]["conversations"] == 1
    assert stderr.count("no such file or directory") == 2


def test_directory_with_symlink_loops(tmp_path):
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "log.jsonl").write_bytes(GOOD + b"\n")
    os.symlink(tmp_path / "a", tmp_path / "a" / "b" / "up")
    os.symlink(tmp_path / "a" / "b", tmp_path / "a" / "b" / "self")
    status, doc, _ = run(str(tmp_path))
    assert status == 0
    assert doc["summary"]["files"] == 1 and doc["summary"]["conversations"] == 1


def test_a_directory_that_cannot_be_read(tmp_path, monkeypatch):
    # Simulated: permissions do not stop root, who runs CI here.
    from auditor import sources
    from auditor.sources import walk

    (tmp_path / "ok").mkdir()
    (tmp_path / "ok" / "a.jsonl").write_bytes(GOOD + b"\n")
    (tmp_path / "locked").mkdir()
    real_scandir = os.scandir

    def scandir(path):
        if str(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(walk.os, "scandir", scandir)
    found = list(sources.discover([str(tmp_path)]))
    assert [type(f).__name__ for f in found] == ["PathError", "Source"]
    assert found[0].reason == "permission denied"
    assert found[1].path.endswith("a.jsonl")


ESCAPES = (
    "\x1b[2J\x1b[31mRED\x1b]0;title\x07 \x9b31m [bold red]markup[/] [link=file:///etc]x[/link] "
    "\u202eevil\u202c \u2028 ::error file=x::owned :smile:"
)


def test_escape_sequences_and_markup_never_reach_the_terminal(tmp_path):
    record = {
        "id": ESCAPES,
        "messages": [
            {"role": "user", "content": ESCAPES},
            {
                "role": "assistant",
                "content": ESCAPES,
                "tool_calls": [{"id": ESCAPES, "function": {"name": ESCAPES, "arguments": "{}"}}],
            },
            {"role": "assistant", "content": ESCAPES},
        ],
    }
    path = tmp_path / "evil\x1b[31m.jsonl"
    path.write_bytes(json.dumps(record).encode() + b"\n")
    for fmt in ("table", "github"):
        proc = subprocess.run(
            [sys.executable, "-m", "auditor", str(path), "-f", fmt],
            capture_output=True,
            cwd=ROOT,
            timeout=WATCHDOG,
        )
        out = proc.stdout.decode()
        assert proc.returncode == 1
        assert "EX001" in out
        for bad in ("\x1b", "\x9b", "\x07", "\u202e", "\u2028"):
            assert bad not in out, (fmt, repr(bad))
        assert not any(line.startswith("::error file=x") for line in out.splitlines())


BAIT = {
    "react": "Action: " * 150_000,
    "braces": "{" * 1_000_000,
    "brackets": "[" * 1_000_000,
    "quotes": '{"' * 500_000,
    "tokens": "<|" * 500_000,
    "channel": "<|channel|>commentary to=functions." * 30_000,
    "backticks": "`" * 1_000_000,
    "fences": "```json\n{" * 100_000,
    "tool_call_tags": "<tool_call>{" * 100_000,
    "function_tags": "<function=" * 100_000,
    "mistral": "[TOOL_CALLS][" * 100_000,
    "python_tag": "<|python_tag|>" * 70_000,
    "observation": "Action: a\nAction Input: {\nObservation: " * 30_000,
    "final": "Final Answer: Action: " * 50_000,
    "spaces": " " * 1_000_000 + "x",
    "error_words": "Error: " * 150_000,
    "kimi": "<|tool_calls_section_begin|><|tool_call_begin|>f:0<|tool_call_argument_begin|>{"
    * 30_000,
    "qwen_closers": "<parameter=a></function>" * 60_000,
    "glued_channels": "assistantfinal" * 80_000,
    "answers": "Thought: x\nAnswer: " * 60_000,
    "path_segments": "/a1" * 300_000,
    "long_id": "a1" * 500_000,
    "placeholders": "YOUR_KEY <API_KEY> /path/to/x 2206.XXXXX " * 25_000,
    "mock_words": "mock data simulated numbers hypothetical values " * 20_000,
}


@pytest.mark.parametrize("kind", sorted(BAIT))
def test_megabytes_of_redos_bait_in_every_text_field(tmp_path, kind):
    text = BAIT[kind]
    record = {
        "id": kind,
        "tools": [
            {"type": "function", "function": {"name": "search", "parameters": {"type": "object"}}}
        ],
        "messages": [
            {"role": "user", "content": text},
            {"role": "assistant", "content": text},
            {
                "role": "assistant",
                "content": text,
                "tool_calls": [{"id": "c", "function": {"name": "search", "arguments": text}}],
            },
            {"role": "tool", "tool_call_id": "c", "content": text},
            {"role": "assistant", "content": text},
        ],
    }
    status, doc, stderr = run_bytes(tmp_path, json.dumps(record).encode() + b"\n")
    assert doc["errors"] == [], stderr
    assert doc["summary"]["conversations"] == 1
    assert status in (0, 1)


MULTIAGENT_BAIT = {
    "unclosed_fences": "```python\n" * 100_000,
    "closed_fences": "```sh\nx\n```\n" * 80_000,
    "indented_closers": "x\n   ```" * 120_000,
    "web_action": "I typed '" * 100_000 + "' into 'x'.\n\nHere is a screenshot of [x](y)",
}


@pytest.mark.parametrize("kind", sorted(MULTIAGENT_BAIT))
def test_megabytes_of_code_fences_in_a_multi_agent_chat(tmp_path, kind):
    text = MULTIAGENT_BAIT[kind]
    history = [
        {"role": "human", "content": text},
        {"name": "Coder", "content": text},
        {"name": "Computer_terminal", "content": "exitcode: 1 (execution failed)\n" + text},
        {"name": "WebSurfer", "content": text},
        {"name": "Coder", "content": text},
        {
            "name": "ComputerTerminal",
            "content": "The script ran, then exited with Unix exit code: 0",
        },
    ]
    status, doc, stderr = run_bytes(tmp_path, json.dumps({"history": history}).encode() + b"\n")
    assert doc["errors"] == [], stderr
    assert doc["summary"]["conversations"] == 1
    assert status in (0, 1)
