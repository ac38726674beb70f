"""tau-bench and tau2-bench results (`tau.py`): ids, pointers, arguments and the simulated user's
calls."""

from __future__ import annotations

from tests.helpers import FORMAT_DIR, normalised


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
