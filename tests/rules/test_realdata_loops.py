"""The loops of tau-bench's gpt-4o airline run, found where they are (dev machines only)."""

from __future__ import annotations

from tests.helpers import REALDATA, audit, requires_realdata

pytestmark = requires_realdata

TAU = REALDATA / "tau-bench" / "gpt-4o-airline.json"


def _by_conversation(report, code):
    return {f.conversation: f for f in report.findings if f.code == code}


def test_the_three_known_loops_are_found_with_pointers_into_their_traj():
    found = _by_conversation(audit([TAU], select=["LP001"]), "LP001")
    entry_58 = found["task-8-trial-1"]
    assert (entry_58.pointer, entry_58.line, entry_58.turn) == (
        "/58/traj/30/tool_calls/0",
        16188,
        30,
    )
    assert entry_58.message == (
        "`book_reservation` called 3 times with the same arguments, each answered with the same "
        "error `Error: payment amount does not add up, total price is 4875, but paid 1625` "
        "(turns 30, 34, 38)"
    )
    entry_109 = found["task-9-trial-2"]
    assert (entry_109.pointer, entry_109.line, entry_109.turn) == (
        "/109/traj/48/tool_calls/0",
        29545,
        48,
    )
    assert entry_109.message.startswith("`book_reservation` called 4 times with the same arguments")
    assert entry_109.message.endswith("(turns 48, 52, 56, 60)")
    entry_13 = found["task-13-trial-0"]
    assert (entry_13.pointer, entry_13.line, entry_13.turn) == (
        "/13/traj/24/tool_calls/0",
        4281,
        24,
    )
    assert entry_13.message == (
        "`update_reservation_flights` called 3 times with the same arguments, each answered with "
        "the same error `Error: flight HAT030 not available on date 2024-05-13` (turns 24, 28, 40)"
    )


def test_reworked_arguments_with_the_same_error_are_lp002():
    found = _by_conversation(audit([TAU], select=["LP002"]), "LP002")
    # The flight the error names stays in every attempt while the other legs change.
    flight = found["task-13-trial-2"]
    assert (flight.pointer, flight.turn) == ("/113/traj/12/tool_calls/0", 12)
    assert flight.message == (
        "`update_reservation_flights` failed 4 calls in succession with the same error across 3 "
        "different sets of arguments: `Error: flight HAT030 not available on date 2024-05-13` "
        "(turns 12, 26, 36, 40)"
    )
    # The amount the error quotes comes back (957, 1047, 957), never the 1002 it asks for.
    assert found["task-46-trial-3"].message.endswith(
        "`Error: payment amount does not add up, total price is 1002, but paid 957` "
        "(turns 38, 46, 52)"
    )
    # A different gift card each time, and the error never says which would do: not stuck.
    assert "task-3-trial-0" not in found
    assert sorted(found) == ["task-13-trial-2", "task-13-trial-3", "task-46-trial-3"]


def test_the_simulated_users_speed_tests_in_tau2_telecom_are_not_loops():
    report = audit([REALDATA / "tau2-bench-blakeelias"], select=["LP001", "LP002", "LP003"])
    assert report.findings == ()


def test_a_tau2_conversation_stuck_in_reworded_apologies_is_one_finding():
    # Verbatim, the apologies form a cycle of 4 messages from turn 56; read as rewordings of
    # two, the loop starts at turn 12.
    report = audit([REALDATA / "tau2-bench-blakeelias"], select=["LP004"])
    (stuck,) = report.findings
    assert stuck.conversation.startswith("4d9c488b")
    assert stuck.turn == 12 and stuck.pointer == "/simulations/19/messages/12"
    assert stuck.message.startswith(
        "the assistant cycles through the same 2 messages, each sent at least 20 times "
        "(turns 12 to 200), starting with `I'm sorry to hear about your frustration, Sophia"
    )
