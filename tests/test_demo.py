"""The demo log `make run` audits shows what each conversation is named after, and nothing else."""

from __future__ import annotations

from auditor import config, engine
from tests.helpers import FIXTURES

EXPECTED = {
    "clean-weather-001": [],
    "react-fabricated-002": ["FB001", "FB002"],
    "text-call-003": ["EX003"],
    "harmony-leak-004": ["EX003"],  # its tokens belong to the recovered call: no EX004
    "bad-arguments-005": ["EX005", "EX006", "EX007"],
    "approval-drift-006": ["CF001"],
    "retry-loop-007": ["LP001", "LP005"],
    "lost-results-008": ["EX001", "EX002"],
    "claimed-action-009": ["FB003"],
    "leaked-tokens-010": ["EX004"],
    "reworked-arguments-011": ["LP002"],
    "cycle-012": ["LP003"],
    "repeated-reply-013": ["LP004"],
    "reformatted-approval-014": ["CF002"],
    "unapproved-015": ["CF003"],
    "confirmation-loop-016": ["CF004"],
    "placeholder-key-017": ["FB005"],
    "ungrounded-id-018": ["FB004"],
    "simulated-data-019": ["FB006"],
    "contradicted-claim-020": ["FB007"],
}


def test_each_demo_conversation_fires_what_it_is_named_after():
    report = engine.audit([str(FIXTURES / "demo")], config.build())
    assert report.errors == ()
    assert report.counts.conversations == len(EXPECTED)
    found: dict[str, list[str]] = {cid: [] for cid in EXPECTED}
    for f in report.findings:
        found[f.conversation].append(f.code)
    assert {cid: sorted(codes) for cid, codes in found.items()} == EXPECTED


def test_the_demo_shows_every_behaviour_rule():
    every = {code for codes in EXPECTED.values() for code in codes}
    from auditor.rules import RULES

    behaviour = {r.code for r in RULES if r.check is not None and not r.preview}
    assert every == behaviour
