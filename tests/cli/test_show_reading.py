"""`--show-reading`: how each file was read, as a person checks a reading before trusting it."""

from __future__ import annotations

from tests.helpers import FIXTURES, FORMAT_DIR, audit_main, invoke


def test_a_stream_is_shown_as_its_conversations_calls_and_first_messages():
    log = FORMAT_DIR / "gemini-cli" / "stream-json.jsonl"
    result = invoke(log, "--show-reading")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == f"{log}: read as gemini-cli (15 records)"
    assert lines[1] == (
        "  conversation 8d3c0d5e-6f1a-4b8e-9a51-2f6f0e2c1a11 (gemini-cli): 6 messages (1 user, "
        "3 assistant, 2 tool); 2 calls of read_file, search_file_content; 2 results (1 failed); "
        "0 unanswered by id"
    )
    # each message at the turn findings name: the event's line in the file
    assert lines[3] == (
        '    [2] assistant: I\'ll search for them. → search_file_content({"pattern":"TODO",'
        '"path":"src"})'
    )
    assert lines[6] == (
        "    [7] tool → read_file-1760800203300-2 (error): File not found: "
        "/home/dev/shop/src/missing.js"
    )
    assert "1 call of run_shell_command; 0 results (0 failed); 1 unanswered by id" in lines[8]


def test_what_could_not_be_read_is_counted_and_named(tmp_path):
    log = tmp_path / "mixed.jsonl"
    log.write_text(
        '{"role": "user", "content": "hi"}\nnot json\n{"role": "assistant", "content": "hello"}\n'
    )
    result = invoke(log, "--show-reading")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == f"{log}: read as message-lines (2 records)"
    assert lines[1] == "  not read: 0 parts of no expected shape (IN002), 1 invalid record (IN001)"
    assert lines[2].startswith("  conversation ") and "2 messages (1 user, 1 assistant)" in lines[2]


def test_log_text_is_escaped_and_long_conversations_are_cut(tmp_path):
    log = tmp_path / "long.jsonl"
    turns = [{"role": "user", "content": "ring \x1b[31mred\x1b[0m"}] + [
        {"role": "assistant", "content": f"step {i}"} for i in range(20)
    ]
    import json

    log.write_text("".join(json.dumps(t) + "\n" for t in turns))
    out = invoke(log, "--show-reading").output
    assert "\x1b" not in out
    assert "    … 13 more messages" in out


def test_show_reading_needs_paths():
    proc = audit_main("--show-reading", cwd=FIXTURES)
    assert proc.returncode == 2
    assert proc.stderr.decode().splitlines() == [
        "audit: error: --show-reading needs paths: `audit run.json --show-reading`"
    ]
