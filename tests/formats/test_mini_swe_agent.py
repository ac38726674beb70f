"""mini-swe-agent trajectories (`mini_swe_agent.py`), both variants, on the fixtures and on the
real runs in ../shared/realdata-3 (skipped in a user's clone)."""

from __future__ import annotations

from collections import Counter

from auditor.replay import replay
from tests.formats.shared import replayed_calls
from tests.helpers import FORMAT_DIR, REALDATA_3, audit, conversations_below, requires_realdata_3


def test_mini_1_bash_blocks_are_calls_answered_by_the_next_user_message():
    (run,) = conversations_below(
        FORMAT_DIR / "mini-swe-agent" / "requests-1921-text-actions-excerpt.traj.json"
    )
    assert run.format == "mini-swe-agent"
    made = replayed_calls(run)
    assert made[0] == (2, "bash", "ls -R", False, None)
    # two blocks in one message: the harness runs neither, each is refused with its reply
    refused = (4, "bash", True, False)
    assert [m[:2] + m[3:] for m in made[1:3]] == [refused, refused]
    assert made[1][2].startswith("cat <<'EOF' > reproduce_issue.py")
    assert made[2][2] == "python3 reproduce_issue.py"
    assert run.messages[5].result.text.startswith("Please always provide EXACTLY ONE action")
    # `<returncode>1</returncode>` is a failure; the submit command is answered by the diff
    assert [m[3] for m in made[-4:]] == [True, True, False, False]
    assert made[-1][2].startswith("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT")
    assert run.messages[-1].result.text.startswith("diff --git a/requests/sessions.py")


def test_mini_1_refusal_is_ex003_naming_the_harness_reason():
    path = FORMAT_DIR / "mini-swe-agent" / "requests-1921-text-actions-excerpt.traj.json"
    (finding,) = audit([path], select=["EX003", "EX001"]).findings
    assert (finding.code, finding.turn, finding.line) == ("EX003", 4, 24)
    assert finding.message == (
        "`bash` call and 1 more written as text; the harness refused to run them: "
        "`Please always provide EXACTLY ONE action in triple backticks, found 2 actions.`"
    )


def test_mini_2_exit_message_answers_the_submit_call():
    (run,) = conversations_below(
        FORMAT_DIR / "mini-swe-agent" / "pydicom-1256-tool-calls-excerpt.traj.json"
    )
    made = replayed_calls(run)
    assert [m[3] for m in made] == [False, True, False, False]  # `extra.returncode` 1 fails
    last = run.messages[-1]
    assert last.role == "tool" and last.result.call_id == "call_00_fwdJ7bOxKMSnNh5YQtT2l2kV"
    assert last.result.text.startswith("diff --git a/pydicom/jsonrep.py")
    path = FORMAT_DIR / "mini-swe-agent" / "pydicom-1256-tool-calls-excerpt.traj.json"
    assert audit([path], select=["EX001"]).findings == ()


def test_mini_2_run_that_timed_out_has_no_calls_and_keeps_its_exit_turn():
    (run,) = conversations_below(FORMAT_DIR / "mini-swe-agent" / "pvlib-1154-timeout.traj.json")
    assert [m.role for m in run.messages] == ["system", "user", "exit"]
    assert run.messages[-1].text.startswith("litellm.Timeout")
    assert replayed_calls(run) == []


@requires_realdata_3
def test_mini_swe_agent_runs_are_read_with_every_action():
    runs = conversations_below(REALDATA_3 / "mini-swe-agent")
    assert len(runs) == 36 and {r.format for r in runs} == {"mini-swe-agent"}
    made = Counter()
    for run in runs:
        variant = "1.1" if "SWE-agent-mini-swe-agent" in run.location.path else "1"
        for e in replay(run).exchanges:
            outcome = "refused" if e.result.ran is False else "failed" if e.failed else "ok"
            made[(variant, outcome)] += 1
            assert e.result is not None  # every action, the submit included, is answered
    assert made == {
        ("1", "ok"): 940,  # 1,013 single blocks, 915 `<returncode>0` and 25 submissions
        ("1", "failed"): 73,  # `<returncode>` 1, 2 or 127
        ("1", "refused"): 75,  # 31 turns of 2 to 5 blocks
        ("1.1", "ok"): 499,  # 546 calls, the 9 submit calls answered by `exit` included
        ("1.1", "failed"): 47,
    }
    no_calls = [r.location.path.rsplit("/", 1)[1] for r in runs if not replay(r).exchanges]
    assert no_calls == ["pvlib__pvlib-python-1154.traj.json"]  # the run that timed out
