"""Fingerprints: one a finding, over every fixture and every real corpus; stable where baselines
need them to be (runs, lines inserted above, the logs' order); identities unchanged since
version 1 baselines recorded them."""

from __future__ import annotations

import shutil
from collections import defaultdict

import pytest

from auditor.findings import fingerprint, identity, normal_path, occurrence
from tests.cli.test_ci import conversation
from tests.ecosystem import check
from tests.helpers import FIXTURES, ROOT, audit, requires_corpora


def shared(findings) -> list[str]:
    """The findings that share a fingerprint with another, one line each."""
    by_fingerprint = defaultdict(list)
    for f in findings:
        by_fingerprint[f["fingerprint"]].append(f)
    return [
        f"{fp}: {f['path']}:{f['line']} {f['code']} [{f['conversation']} turn {f['turn']}] "
        f"{f['message']}"
        for fp, group in by_fingerprint.items()
        if len(group) > 1
        for f in group
    ]


def test_no_two_findings_over_every_fixture_share_a_fingerprint(monkeypatch):
    # One run over every fixture: rule cases written as variations of one log (the same
    # conversation id in several files) are the collisions a run over many logs meets.
    monkeypatch.chdir(ROOT)
    report = audit([FIXTURES.relative_to(ROOT)])
    assert len(report.findings) > 300
    assert shared(f.to_dict() for f in report.findings) == []


@requires_corpora
def test_no_two_findings_on_any_corpus_share_a_fingerprint():
    # Each corpus is one run, as the ecosystem check audits it (in its ledger's fingerprints).
    found = check.findings(check.SHARED)
    assert {f["path"].split("/")[0] for f in found} == set(check.corpora(check.SHARED))
    assert shared(found) == []


def test_the_same_finding_in_two_logs_has_two_fingerprints_and_one_identity(tmp_path):
    for name in ("a.jsonl", "b.jsonl"):
        (tmp_path / name).write_text(conversation("alpha"))
    a, b = audit([tmp_path / "a.jsonl", tmp_path / "b.jsonl"]).findings
    assert (a.code, a.conversation, a.turn, a.message) == (
        b.code,
        b.conversation,
        b.turn,
        b.message,
    )
    assert a.identity == b.identity
    assert a.fingerprint != b.fingerprint


def test_alike_findings_in_one_log_are_told_apart_in_log_order(tmp_path):
    log = tmp_path / "runs.jsonl"
    twin = conversation("twin", own_id=False)
    log.write_text(twin * 3)
    first = audit([log]).findings
    assert [f.line for f in first] == [1, 2, 3]
    assert len({f.identity for f in first}) == 1
    fp = fingerprint(first[0].identity, str(log))
    assert [f.fingerprint for f in first] == [occurrence(fp, n) for n in range(3)]
    # Lines inserted above, and a line between the copies: every one keeps its own.
    log.write_text(conversation("new") + "\n" + twin + "\n" + twin * 2)
    again = audit([log]).findings
    assert [f.line for f in again] == [1, 3, 5, 6]
    assert [f.fingerprint for f in again[1:]] == [f.fingerprint for f in first]


def test_fingerprints_do_not_depend_on_the_order_or_company_of_the_logs(tmp_path):
    for name in ("a.jsonl", "b.jsonl"):
        (tmp_path / name).write_text(conversation("alpha") + conversation("x", own_id=False))
    both = {(f.path, f.line): f.fingerprint for f in audit([tmp_path]).findings}
    alone = {(f.path, f.line): f.fingerprint for f in audit([tmp_path / "b.jsonl"]).findings}
    assert len(both) == 4
    assert alone == {k: v for k, v in both.items() if k[0].endswith("b.jsonl")}


def test_fingerprints_survive_a_copy_of_the_tree_and_spellings_of_its_path(tmp_path, monkeypatch):
    logs = tmp_path / "one" / "logs"
    logs.mkdir(parents=True)
    (logs / "a.jsonl").write_text(conversation("alpha"))
    shutil.copytree(tmp_path / "one", tmp_path / "two")
    prints = []
    for where, path in (("one", "logs"), ("one", "./logs/"), ("two", "logs//a.jsonl")):
        monkeypatch.chdir(tmp_path / where)
        prints.append([f.fingerprint for f in audit([path]).findings])
    assert prints[0] == prints[1] == prints[2]
    assert len(prints[0]) == 1


@pytest.mark.parametrize(
    ("path", "normal"),
    [("logs//a.jsonl", "logs/a.jsonl"), ("./logs/./a.jsonl", "logs/a.jsonl"), ("-", "-")],
)
def test_normal_path(path, normal):
    assert normal_path(path) == normal


def test_identity_is_what_version_1_baselines_recorded_as_the_fingerprint(tmp_path):
    # Pinned: auditor 0.1's fingerprint of this finding; a version 1 baseline holds it.
    old = "5cb2eec8b3dbd56466bf"
    assert identity("EX001", "run-alpha", 1, 'lookup({"key": "alpha"})') == old
    (tmp_path / "runs.jsonl").write_text(conversation("alpha"))
    (f,) = audit([tmp_path / "runs.jsonl"]).findings
    assert (f.identity, f.evidence) == (old, 'lookup({"key": "alpha"})')
