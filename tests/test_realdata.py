"""The real logs in ../shared/realdata (dev machines only; skipped in a user's clone)."""

from __future__ import annotations

from collections import Counter

from tests.conftest import REALDATA, audit, requires_realdata

pytestmark = requires_realdata


def test_tau_bench_reads_all_200_conversations_with_nothing_unreadable():
    report = audit([REALDATA / "tau-bench" / "gpt-4o-airline.json"])
    assert report.counts.conversations == 200
    assert report.errors == ()
    codes = Counter(f.code for f in report.findings)
    assert codes["IN001"] == 0 and codes["IN002"] == 0
    for f in report.findings:
        assert f.path.endswith("gpt-4o-airline.json")
        assert f.line is not None and f.pointer and f.conversation and f.turn is not None


def test_tau2_bench_reads_all_168_simulations():
    report = audit([REALDATA / "tau2-bench-blakeelias"])
    assert report.counts.conversations == 168
    assert report.errors == ()
    assert not [f for f in report.findings if f.code in ("IN001", "IN002")]


def test_every_call_in_the_tau_logs_is_answered():
    # The manifest counts as many results as calls, in both benchmarks.
    report = audit(
        [REALDATA / "tau-bench", REALDATA / "tau2-bench-blakeelias"], select=["EX001", "EX002"]
    )
    assert report.findings == ()
