"""SWE-agent trajectories (`swe_agent.py`): text actions are executed calls, and the commands
SWE-agent had to stop failed."""

from __future__ import annotations

from auditor.replay import replay
from tests.formats.shared import roles_of
from tests.helpers import FORMAT_DIR, audit, conversations_below, normalised


def test_swe_agent_text_actions_are_executed_calls():
    (run,) = normalised(FORMAT_DIR / "swe-agent" / "networking_1.traj")
    calls = [c for m in run["messages"] for c in m.get("tool_calls", [])]
    assert {c["origin"] for c in calls} == {"text"}
    assert calls[0] == {
        "id": "action-2",
        "name": "tshark",
        "arguments": {"command": "tshark -n -r networking.pcap -q -z io,phs"},
        "origin": "text",
        "location": "formats/swe-agent/networking_1.traj/history/2/action",
    }
    results = [m["result"]["call_id"] for m in run["messages"] if "result" in m]
    assert results == [c["id"] for c in calls[:-1]]  # the final submit has no observation
    assert calls[-1]["name"] == "submit"
    (fenced,) = normalised(FORMAT_DIR / "swe-agent" / "fenced-actions.traj")
    assert roles_of(fenced) == "system user assistant tool assistant user assistant tool assistant"
    assert "tool_calls" not in fenced["messages"][4]  # no command: SWE-agent's format error
    (structured,) = normalised(FORMAT_DIR / "swe-agent" / "function_calling_simple.traj")
    assert structured["messages"][3]["result"]["call_id"] == "call_PbWErNIge3YTrli3fiVvmIid"
    assert audit([FORMAT_DIR / "swe-agent"], select=["EX001", "EX002"]).findings == ()


def test_swe_agent_commands_it_had_to_stop_failed(tmp_path):
    import json

    footer = "\n(Open file: n/a)\n(Current directory: /repo)\nbash-$"
    said = [
        ("./rock", "\nEXECUTION TIMED OUT" + footer),  # 0.x, in place of any output
        ("python attack.py", "[*] lehmer attack\nEXECUTION TIMED OUT BECAUSE NO OUTPUT" + footer),
        ("sleep 99", "The command 'sleep 99' was cancelled because it took more than 30 seconds."),
        ("grep -n timeout log", "3: EXECUTION TIMED OUT is what the old harness wrote" + footer),
    ]
    history = [{"role": "user", "content": "ISSUE: crack it." + footer, "agent": "primary"}]
    for command, answer in said:
        history.append({"role": "assistant", "content": f"```\n{command}\n```", "agent": "primary"})
        history.append({"role": "user", "content": answer, "agent": "primary"})
    path = tmp_path / "run.traj"
    path.write_text(json.dumps({"history": history, "trajectory": [], "info": {}}))
    (run,) = conversations_below(path)
    assert [(e.call.name, e.result.is_error, e.failed) for e in replay(run).exchanges] == [
        ("./rock", True, True),
        ("python", True, True),
        ("sleep", True, True),
        ("grep", None, False),  # a line of output that only quotes it
    ]
    call = {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{}"}}
    history[1:] = [
        {"role": "assistant", "content": "", "tool_calls": [call], "agent": "primary"},
        {"role": "tool", "content": said[2][1], "tool_call_ids": ["c1"], "agent": "primary"},
    ]
    path.write_text(json.dumps({"history": history, "trajectory": [], "info": {}}))
    (run,) = conversations_below(path)
    assert [(e.call.id, e.result.is_error) for e in replay(run).exchanges] == [("c1", True)]
