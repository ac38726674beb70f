"""The model is read, never changed: after replay and every rule, each conversation of every
fixture equals a copy taken before (the per-message objects are not frozen, for speed)."""

from __future__ import annotations

import copy

import pytest

from auditor.replay import ApprovalOptions, replay
from auditor.rules import RULES
from tests.helpers import FIXTURES, conversations

LOGS = sorted(
    p
    for p in FIXTURES.rglob("*")
    if p.is_file() and p.suffix in (".jsonl", ".json", ".traj", ".txt", ".eval")
)


@pytest.mark.parametrize("path", LOGS, ids=[str(p.relative_to(FIXTURES)) for p in LOGS])
def test_rules_leave_the_model_as_they_found_it(path):
    for conversation in conversations(path):
        before = copy.deepcopy(conversation)
        rep = replay(conversation, ApprovalOptions())
        for rule in RULES:
            if rule.check is not None:
                list(rule.check(rep, rule.default_options()))
        assert conversation == before, conversation.id
