"""The rules that read message text, on random and on hostile text: no exception, no hang."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.dialects import read
from auditor.model import Conversation, Location, Message, ToolResult, ToolSpec
from auditor.replay import replay
from auditor.reporters import REPORTERS
from auditor.rules import BY_CODE
from tests.helpers import FIXTURES, REALDATA, audit, examples, render, requires_realdata

TEXT_RULES = ("FB001", "FB002", "EX003", "EX004")

# The pieces the recogniser looks for, so that random text often half-builds a dialect.
BAIT = (
    "Thought:",
    "Action:",
    "Action Input:",
    "Observation:",
    "Final Answer:",
    "Action 1:",
    "\n",
    " ",
    "{",
    "}",
    "[",
    "]",
    '"',
    "'",
    "\\",
    ":",
    ",",
    "//",
    "`",
    "```",
    "```json\n",
    '"name": "f"',
    '"arguments": ',
    '"tool": "f"',
    '"action": "f", "action_input": ',
    '"function": ',
    "f",
    "get_weather",
    "<tool_call>",
    "</tool_call>",
    "<tool_response>",
    "</tool_response>",
    "<function=f>",
    "</function>",
    "<parameter=x>",
    "</parameter>",
    "[TOOL_CALLS]",
    "[ARGS]",
    "[CALL_ID]",
    "<|python_tag|>",
    ".call(",
    "<|start|>",
    "<|channel|>",
    "<|message|>",
    "<|constrain|>",
    "<|call|>",
    "<|end|>",
    "<|return|>",
    "to=functions.f",
    "to=assistant",
    "functions.f",
    "<|im_end|>",
    "<|eot_id|>",
)
texts = st.lists(st.sampled_from(BAIT) | st.text(max_size=4), max_size=50).map("".join) | st.text()
tools = st.sampled_from([None, ("f",), ("get_weather", "f")])
followers = st.sampled_from([None, "user", "tool", "assistant", "Observation: 1"])


def _conversation(text: str, tool_names, follower) -> Conversation:
    here = Location("fuzz.jsonl", 1)
    messages = [Message(0, "user", "go", here), Message(1, "assistant", text, here)]
    if follower == "tool":
        messages.append(Message(2, "tool", "ok", here, result=ToolResult(None, "ok")))
    elif follower is not None:
        role = "user" if follower.startswith("Observation") else follower
        messages.append(Message(2, role, follower, here))
    specs = tuple(ToolSpec(n) for n in tool_names) if tool_names else None
    return Conversation("fuzz", "openai", here, tuple(messages), specs)


@settings(max_examples=examples(400), deadline=None)
@given(texts, tools, followers)
def test_text_rules_never_raise_on_random_text(text, tool_names, follower):
    rep = replay(_conversation(text, tool_names, follower))
    for code in TEXT_RULES:
        for violation in BY_CODE[code].check(rep, None):
            assert violation.turn == 1
            assert violation.message and not violation.message.startswith(code)
    names = frozenset(tool_names) if tool_names else None
    reading = read(text, names)
    for call in reading.calls:
        start, end = call.span
        assert 0 <= start < end <= len(text)
        assert names is None or call.name in names
    for token in reading.tokens:
        assert text[slice(*token.span)] == token.text


# A megabyte of each: the reader must stay linear (every regex, every scan is bounded).
HOSTILE = (
    "Action: ",
    "Action: x\n",
    "Action Input: {\n",
    "Observation: y\n",
    "{",
    '{"name": "',
    "[{",
    "<|",
    "<|message|>",
    "<|channel|>x to=functions.f ",
    "`",
    "` ",
    "```json\n{",
    '"\\',
    "<tool_call>",
    '[TOOL_CALLS]f[ARGS]{"',
    "<|python_tag|>",
    "<function=f>{",
    "\n[f(a=[",
    "<function-call>[f(a='",
    "<|python_start|>[f(",
)
WATCHDOG_SECONDS = 300  # catches a hang, asserts no speed


def test_hostile_text_is_read_to_the_end(tmp_path):
    log = tmp_path / "hostile.jsonl"
    size = 1_000_000
    with log.open("w") as out:
        for i, bait in enumerate(HOSTILE):
            text = (bait * (size // len(bait) + 1))[:size]
            record = {
                "id": f"hostile-{i}",
                "messages": [
                    {"role": "user", "content": "go"},
                    {"role": "assistant", "content": text},
                ],
            }
            if i % 2:
                record["tools"] = [{"type": "function", "function": {"name": "f"}}]
            out.write(json.dumps(record) + "\n")
    proc = subprocess.run(
        [sys.executable, "-m", "auditor", str(log), "-f", "json", "--select", ",".join(TEXT_RULES)],
        capture_output=True,
        timeout=WATCHDOG_SECONDS,
        check=False,
    )
    assert proc.returncode in (0, 1), proc.stderr
    report = json.loads(proc.stdout)
    assert report["errors"] == []
    assert report["summary"]["conversations"] == len(HOSTILE)


def test_snapshot_end_fires_only_for_special_token_dialects():
    # A gateway snapshot (`exchange`) ends on the model's response: a client may still parse
    # JSON or ReAct text itself, but harmony tokens in `content` mean the server's parser failed.
    here = Location("snap.jsonl", 1)

    def snapshot(text):
        messages = (Message(0, "user", "go", here), Message(1, "assistant", text, here))
        specs = (ToolSpec("get_weather"),)
        return replay(Conversation("s", "exchange", here, messages, specs, complete=False))

    check = BY_CODE["EX003"].check
    json_text = '{"name": "get_weather", "arguments": {"city": "Paris"}}'
    assert list(check(snapshot(json_text), None)) == []
    harmony = (
        "<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>"
        '{"city": "Paris"}<|call|>'
    )
    (violation,) = check(snapshot(harmony), None)
    assert violation.message == (
        "`get_weather` call written as text in the harmony `to=functions.…` dialect; "
        "the transcript ends on it"
    )
    assert violation.evidence == 'get_weather({"city":"Paris"})'


BAD_CASES = sorted(p for code in TEXT_RULES for p in (FIXTURES / "rules" / code).glob("bad_*"))


@pytest.mark.parametrize("name", sorted(REPORTERS))
def test_text_rule_findings_pass_through_every_output_format(name):
    report = audit(BAD_CASES, select=TEXT_RULES)
    assert {f.code for f in report.findings} == set(TEXT_RULES)
    text = render(report, name)
    keys = [(f.code, f.conversation, f.turn) for f in report.findings]
    if name == "json":
        found = json.loads(text)["findings"]
        assert [(f["code"], f["conversation"], f["turn"]) for f in found] == keys
    elif name == "jsonl":
        found = [json.loads(line) for line in text.splitlines()]
        assert [(f["code"], f["conversation"], f["turn"]) for f in found] == keys
    elif name == "sarif":
        results = json.loads(text)["runs"][0]["results"]
        assert [r["ruleId"] for r in results] == [f.code for f in report.findings]
    elif name == "github":
        lines = [line for line in text.splitlines() if line.startswith(("::error ", "::warning "))]
        assert [line.split("title=", 1)[1][:5] for line in lines] == [
            f.code for f in report.findings
        ]
    else:
        for f in report.findings:
            # a conversation named by its place (`path:line`) is shown as its file and line
            path, _, line = f.conversation.rpartition(":")
            named = f.conversation in text or (line.isdigit() and Path(path).name in text)
            assert named and f.code in text


@requires_realdata
def test_real_logs_text_rules_fire_only_on_grok_text_calls():
    # Measured by hand: grok-3-mini (tau2, tighter policy) writes 23 calls as JSON content;
    # the user simulator answers them as if they ran. Nothing else in tau/tau2 is text calls,
    # fabricated observations or leaked tokens.
    report = audit([REALDATA / "tau-bench", REALDATA / "tau2-bench-blakeelias"], select=TEXT_RULES)
    assert {f.code for f in report.findings} == {"EX003"}
    assert {f.path.rsplit("/", 1)[1] for f in report.findings} == {GROK_MINI}
    per_conversation = Counter(f.conversation[:8] for f in report.findings)
    assert per_conversation == {
        "15b6d135": 8,
        "9f98912e": 6,
        "9d7e1728": 5,
        "38ee0474": 3,
        "e1ff48c4": 1,
    }
    first = report.findings[0]
    assert (first.line, first.pointer, first.turn, first.tool) == (
        603,
        "/simulations/0/messages/4",
        4,
        "get_user_details",
    )
    assert first.message == (
        '`get_user_details` call written as text in the `{"function_call": {…}}` JSON dialect; '
        "nothing executed it (the next turn is the user's, not a tool result)"
    )
    assert first.evidence == 'get_user_details({"user_id":"ivan_rossi_8555"})'


GROK_MINI = (
    "2025-10-13T11:35:31.288529_airline_tighter_policy_llm_agent_grok-3-mini_"
    "user_simulator_grok-3-mini.json"
)
