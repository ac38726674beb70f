"""Plain-language approvals on the real tau-bench and tau2 logs (dev machines only).

Every finding asserted here was read by hand in its transcript and judged true; the counts
are pinned so that a change to the approval model shows up as a diff to review.
"""

from __future__ import annotations

import dataclasses

from auditor import config, engine
from auditor.replay import ApprovalOptions
from tests.helpers import REALDATA, requires_realdata

pytestmark = requires_realdata

TAU = [str(REALDATA / "tau-bench"), str(REALDATA / "tau2-bench-blakeelias")]


def _with(options: ApprovalOptions, select: list[str]) -> config.Settings:
    settings = config.build(select=select)
    return dataclasses.replace(settings, options={r.code: options for r in settings.rules})


def test_plain_language_decisions_are_read_without_configuration():
    report = engine.audit(TAU, config.build(select=["EX005", "EX006", "EX007", "CF"]))
    assert {f.code for f in report.findings} == {"CF001", "CF003"}
    # Charges to a payment method the user was never shown nor asked about, that is not the
    # one the booking was made with: the agent picked it (the user objects in task-4-trial-3).
    # Refunds and charges to the booking's own payment, and refunds when payment never came
    # up, are not reported (28 of them in these logs).
    unshown = [f for f in report.findings if "a payment method never shown" in f.message]
    assert sorted((f.conversation, f.turn) for f in unshown) == [
        ("6a9c9e49-90fc-4fd3-ba8a-68979e06e603", 18),
        ("task-0-trial-1", 16),
        ("task-0-trial-1", 20),
        ("task-4-trial-0", 16),
        ("task-4-trial-3", 18),
        ("task-4-trial-3", 20),
    ]
    found = {(f.conversation, f.turn): f.message for f in report.findings}
    # The user picked two gift cards from a list of five; after an error the agent charged a
    # certificate from the same list.
    assert found[("task-3-trial-0", 54)] == (
        "`update_reservation_flights` ran with arguments that differ from what the user chose "
        "(options at turn 48, chosen at turn 49): `payment_id` “Gift Card 6276644” or "
        "“Gift Card 7091239” → `certificate_8544743`, an option the user did not pick"
    )
    # The user chose the $255 itinerary; the agent paid $305 (a bag nobody asked for).
    assert found[("task-0-trial-3", 20)].endswith(
        "`payment_methods[].amount` “$255” → `250 + 55 = 305`"
    )
    # tau-bench's system prompt demands an explicit yes before changes: CF003 needs no setting.
    assert found[("task-28-trial-1", 22)] == (
        "`cancel_reservation` ran without approval: the log's policy requires it (system "
        "prompt: “you must list the action details and obtain explicit user confirmation (yes) "
        "to proceed”) and no confirmation from the user came since the last such call"
    )
    # The same policy: the user's request alone ("Please downgrade all of them to economy",
    # answering a list of reservation ids) is not the explicit yes it asks for.
    assert found[("task-2-trial-2", 20)] == (
        "`update_reservation_flights` ran on the user's request at turn 7 alone: the log's "
        "policy requires it (system prompt: “you must list the action details and obtain "
        "explicit user confirmation (yes) to proceed”), and no summary of the action's details "
        "was confirmed"
    )
    assert sum(f.code == "CF003" for f in report.findings) == 23


REQUESTS_ALONE = sorted(
    [
        *(("task-2-trial-2", t) for t in (20, 22, 24, 26, 28)),
        *(("task-28-trial-0", t) for t in (22, 24, 26, 28)),
        *(("task-29-trial-3", t) for t in (24, 26)),
        ("task-10-trial-3", 32),
        ("task-14-trial-1", 28),
        ("task-19-trial-1", 22),
        ("task-19-trial-3", 28),
    ]
)
"""Writes on the user's request alone, which tau-bench's policy (an explicit yes) fails."""


def test_require_approval_finds_the_changes_tau_bench_made_without_a_decision():
    options = ApprovalOptions(require_approval=("book_*", "cancel_*", "update_*"))
    report = engine.audit(TAU, _with(options, ["CF003"]))
    assert sorted((f.conversation, f.turn) for f in report.findings) == sorted(
        [
            ("task-0-trial-3", 24),
            ("task-0-trial-3", 26),
            ("task-0-trial-3", 30),
            ("task-28-trial-1", 22),
            ("task-28-trial-1", 24),
            ("task-28-trial-1", 26),
            ("task-28-trial-1", 28),
            ("task-28-trial-1", 30),
            *REQUESTS_ALONE,
        ]
    )
    found = {(f.conversation, f.turn): f.message for f in report.findings}
    # "Cancel all of my upcoming flights": five cancellations, none listed or confirmed.
    assert found[("task-28-trial-1", 22)] == (
        "`cancel_reservation` ran without approval: `require-approval` names it (`cancel_*`) "
        "and no confirmation from the user came since the last such call"
    )


def test_claims_of_changes_no_call_made_are_found_with_inferred_tools():
    # tau logs declare no tools: FB003 runs on the tools the run's calls show. Every claim of
    # a change in these logs with no successful call behind it, and nothing else.
    report = engine.audit([str(REALDATA)], config.build(select=["FB003"]))
    assert sorted((f.conversation, f.turn) for f in report.findings) == [
        ("38ee0474-a784-4f1a-9756-9cc3f587ffdf", 14),  # the calls were written as text
        ("9f98912e-3305-458a-b431-d5f654b4eeb0", 12),
        ("9f98912e-3305-458a-b431-d5f654b4eeb0", 24),
        ("task-3-trial-0", 60),  # "one checked bag has been added": no baggage call
        ("task-5-trial-0", 24),  # "three checked bags have been added": idem
    ]
    found = {(f.conversation, f.turn): f.message for f in report.findings}
    assert found[("9f98912e-3305-458a-b431-d5f654b4eeb0", 12)] == (
        "the assistant says “I've successfully processed the cancellation for reservation "
        "H9ZU1C.”, but no matching tool (`cancel_reservation`, written only as text in this "
        "conversation) was called successfully since the user asked at turn 11"
    )
    assert report.coverage()["tool_sets"]["inferred"] > 500


def test_nothing_else_of_the_real_logs_is_read_as_an_unapproved_or_changed_call():
    report = engine.audit([str(REALDATA)], config.build(select=["CF"]))
    assert {f.path.split("/realdata/")[1].split("/")[0] for f in report.findings} == {
        "tau-bench",
        "tau2-bench-blakeelias",
    }
