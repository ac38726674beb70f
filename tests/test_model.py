"""The model is read, never changed: after replay and every rule, each conversation of every
fixture equals a copy taken before (the per-message objects are not frozen, for speed)."""

from __future__ import annotations

import copy

import pytest

from auditor import sources
from auditor.formats import FileReader
from auditor.model import Conversation
from auditor.replay import ApprovalOptions, replay
from auditor.rules import RULES
from tests.helpers import FIXTURES

LOGS = sorted(
    p
    for p in FIXTURES.rglob("*")
    if p.is_file() and p.suffix in (".jsonl", ".json", ".traj", ".txt", ".eval")
)


def _conversations(path) -> list[Conversation]:
    kind, compressed = sources.kind_of(str(path))
    reader = FileReader()
    found = []
    for record in sources.read(sources.Source(str(path), kind, compressed, True)):
        if isinstance(record, sources.Record):
            found += [c for c in reader.feed(record) if isinstance(c, Conversation)]
    found += [c for c in reader.finish() if isinstance(c, Conversation)]
    return found


@pytest.mark.parametrize("path", LOGS, ids=[str(p.relative_to(FIXTURES)) for p in LOGS])
def test_rules_leave_the_model_as_they_found_it(path):
    for conversation in _conversations(path):
        before = copy.deepcopy(conversation)
        rep = replay(conversation, ApprovalOptions())
        for rule in RULES:
            if rule.check is not None:
                list(rule.check(rep, rule.default_options()))
        assert conversation == before, conversation.id
