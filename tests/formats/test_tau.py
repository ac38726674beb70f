"""tau-bench and tau2-bench results (`tau.py`): ids, pointers, arguments and the simulated user's
calls; and the real runs of both in ../shared/realdata (skipped in a user's clone)."""

from __future__ import annotations

from collections import Counter

from tests.helpers import FORMAT_DIR, REALDATA, audit, normalised, requires_realdata


def test_tau_bench_ids_and_pointers():
    _small, loop = normalised(FORMAT_DIR / "tau" / "tau-bench-gpt-4o-airline-excerpt.json")
    assert loop["id"] == "task-8-trial-1"
    assert loop["location"].endswith("tau-bench-gpt-4o-airline-excerpt.json/1")
    assert loop["messages"][30]["tool_calls"][0]["name"] == "book_reservation"
    assert loop["messages"][30]["tool_calls"][0]["location"].endswith("/1/traj/30/tool_calls/0")


def test_tau2_dict_arguments_error_flag_and_user_calls():
    telecom, airline = normalised(FORMAT_DIR / "tau" / "tau2-bench-excerpt.json")
    user_calls = [m for m in telecom["messages"] if m["role"] == "user" and m.get("tool_calls")]
    assert user_calls, "the telecom simulation has calls made by the simulated user"
    first = user_calls[0]["tool_calls"][0]
    assert "raw_arguments" not in first and isinstance(first["arguments"], dict)
    errors = [m["result"] for m in airline["messages"] if m.get("result", {}).get("is_error")]
    assert errors and all(e["call_id"] for e in errors)


@requires_realdata
def test_tau_bench_reads_all_200_conversations_with_nothing_unreadable():
    report = audit([REALDATA / "tau-bench" / "gpt-4o-airline.json"])
    assert report.counts.conversations == 200
    assert report.errors == ()
    codes = Counter(f.code for f in report.findings)
    assert codes["IN001"] == 0 and codes["IN002"] == 0
    for f in report.findings:
        assert f.path.endswith("gpt-4o-airline.json")
        assert f.line is not None and f.pointer and f.conversation and f.turn is not None


@requires_realdata
def test_tau2_bench_reads_all_168_simulations():
    report = audit([REALDATA / "tau2-bench-blakeelias"])
    assert report.counts.conversations == 168
    assert report.errors == ()
    assert not [f for f in report.findings if f.code in ("IN001", "IN002")]


@requires_realdata
def test_every_call_in_the_tau_logs_is_answered():
    # The manifest counts as many results as calls, in both benchmarks.
    report = audit(
        [REALDATA / "tau-bench", REALDATA / "tau2-bench-blakeelias"], select=["EX001", "EX002"]
    )
    assert report.findings == ()
