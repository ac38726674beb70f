"""Tool arguments and approvals on the real tau-bench and tau2 logs (dev machines only)."""

from __future__ import annotations

import dataclasses
from collections import Counter

from auditor import config, engine
from auditor.replay import ApprovalOptions
from tests.conftest import REALDATA, requires_realdata

pytestmark = requires_realdata

TAU = [str(REALDATA / "tau-bench"), str(REALDATA / "tau2-bench-blakeelias")]


def test_no_argument_or_approval_finding_by_default():
    # Every natural-language confirmation in these logs names what the call then used, and
    # without `require-approval` nothing obliges a call to be confirmed.
    report = engine.audit(TAU, config.build(select=["EX005", "EX006", "EX007", "CF"]))
    assert report.findings == ()
    gaps = {(g.reason, g.rules, g.conversations) for g in report.gaps}
    assert ("no tools declared", ("EX005", "EX007"), 368) in gaps


def test_require_approval_finds_the_changes_tau_bench_made_without_a_yes():
    settings = config.build(select=["CF"])
    options = ApprovalOptions(require_approval=("book_*", "cancel_*", "update_*"))
    settings = dataclasses.replace(settings, options={r.code: options for r in settings.rules})
    report = engine.audit(TAU, settings)
    assert Counter((f.path.rsplit("/", 1)[-1], f.code) for f in report.findings) == {
        ("gpt-4o-airline.json", "CF003"): 58
    }
    found = {(f.conversation, f.turn): f.message for f in report.findings}
    # "cancel all of these reservations": four cancellations, none listed or confirmed.
    assert found[("task-28-trial-0", 22)] == (
        "`cancel_reservation` ran without approval: `require-approval` names it (`cancel_*`) "
        "and no confirmation from the user came since the last such call"
    )
    # After the booking was done the user asked to change its payment: booked again, unasked.
    assert ("task-0-trial-3", 24) in found and ("task-0-trial-3", 26) in found
    # The user answered with a choice, not a yes, and the agent went ahead.
    assert found[("task-3-trial-0", 44)].startswith(
        "`update_reservation_flights` ran without a clear yes"
    )
