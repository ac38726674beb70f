"""Inspect AI eval logs (`inspect_ai.py`): approval events the CF rules read, and `.eval`
archives: members named in locations, Zstandard members. A corrupt archive and a bad member
(`sources/archives.py`) are in tests/sources/test_archives.py."""

from __future__ import annotations

import sys

import pytest

from auditor.replay import replay
from tests.helpers import FORMAT_DIR, audit, brief, conversations, normalised

INSPECT = FORMAT_DIR / "inspect-ai"


def _approvals(path) -> list[tuple]:
    (conversation,) = conversations(path, strict=True)
    return [
        (
            a.name,
            a.approved,
            a.edited,
            a.arguments.get("amount") if isinstance(a.arguments, dict) else a.arguments,
            a.execution.call.arguments.get("amount") if a.execution else None,
        )
        for a in replay(conversation).approvals
    ]


@pytest.mark.parametrize(
    "name", ["approval-demo.json", "approval-demo.eval", "approval-demo-zstd.eval"]
)
def test_inspect_approval_events_are_approvals_the_cf_rules_read(name):
    if name.endswith("zstd.eval") and sys.version_info < (3, 14):
        pytest.importorskip("zstandard")
    assert _approvals(INSPECT / name) == [
        ("get_balance", True, False, None, None),
        ("transfer_funds", True, False, 500, 500),
        ("transfer_funds", False, False, 200, None),  # rejected: it did not run
        ("transfer_funds", True, True, 1000, 1000),  # modified from 2000, ran with 1000
        ("get_balance", True, False, None, None),
    ]
    report = audit([INSPECT / name])
    # the modify was followed and the rejection respected: no CF finding, no tool error loop
    assert [brief(f) for f in report.findings] == []


def test_inspect_approval_error_is_a_denial_not_a_tool_failure():
    (conversation,) = conversations(INSPECT / "approval-demo.json", strict=True)
    rejected = next(m for m in conversation.messages if m.result and m.result.call_id == "call_3")
    assert rejected.result.is_error is False
    assert rejected.approval_decision.approved is False
    assert rejected.approval_decision.reason == "transfers to external accounts are not allowed"
    failed = next(m for m in conversation.messages if m.result and m.result.call_id == "call_5")
    assert failed.result.is_error is True and failed.result.text == "unknown account NOPE-0"


def test_inspect_eval_archive_locations_name_the_member():
    (conversation,) = normalised(INSPECT / "metr-small-excerpt.eval")
    assert conversation["id"] == "CLPhCQJvY7wQmn2ueDnBSn:default:3"
    first_call = next(m for m in conversation["messages"] if m.get("tool_calls"))
    assert first_call["location"].startswith(
        "formats/inspect-ai/metr-small-excerpt.eval/samples/default_epoch_3.json/messages/"
    )


def test_zstd_members_without_zstandard_say_how_to_read_them(monkeypatch):
    monkeypatch.setitem(sys.modules, "zstandard", None)
    if sys.version_info >= (3, 14):
        pytest.skip("Python 3.14 reads Zstandard members itself")
    report = audit([INSPECT / "approval-demo-zstd.eval"])
    assert {f.message for f in report.findings} == {
        "zip member compressed with Zstandard (INSPECT_USE_ZSTD): install `zstandard` "
        "(pip install 'transcript-auditor[zstd]') or use Python 3.14+"
    }
