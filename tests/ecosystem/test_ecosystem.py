"""The ecosystem gate: every finding on ../shared/realdata* has a verdict in
tests/ecosystem/judged.jsonl, and none judged false still fires unless its entry says the false
alarm is open (known, not fixed yet). Gone entries only warn: see tests/ecosystem/README.md.
"""

from __future__ import annotations

import json
import warnings

import pytest

from tests.ecosystem import check
from tests.helpers import requires_corpora


@pytest.fixture(scope="module")
def comparison() -> check.Comparison:
    c = check.compare(check.findings(check.SHARED), check.read_ledger(check.LEDGER))
    if c.gone:
        # A fixed false alarm or a lost true finding: worth a look, not a failed suite.
        lines = "\n".join(f"  [{e['verdict']}] {check.describe(e)}" for e in c.gone)
        warnings.warn(
            f"{len(c.gone)} judged finding(s) no longer fire; read them, then "
            f"`python tests/ecosystem/check.py --drop-gone`:\n{lines}",
            stacklevel=1,
        )
    if c.reworded:
        lines = "\n".join(f"  {check.describe(f)}" for f, _ in c.reworded)
        warnings.warn(
            f"{len(c.reworded)} judged finding(s) now say something else; check the verdicts, "
            f"then `python tests/ecosystem/check.py --refresh`:\n{lines}",
            stacklevel=1,
        )
    return c


def test_the_ledger_is_well_formed():
    entries = check.read_ledger(check.LEDGER)
    assert check.problems(entries) == []
    assert entries == sorted(entries, key=check.order), "unsorted: rewrite it with check.write"


@requires_corpora
def test_every_finding_on_the_corpora_is_judged(comparison):
    unjudged = [check.describe(f) for f in comparison.unjudged]
    assert not unjudged, (
        f"{len(unjudged)} finding(s) nobody judged: read each in its log and judge it "
        "(`python tests/ecosystem/check.py --write-stubs`, tests/ecosystem/README.md):\n"
        + "\n".join(unjudged)
    )


@requires_corpora
def test_no_finding_judged_false_still_fires_unless_open(comparison):
    firing = [f"{check.describe(f)} <- {e['class']}" for f, e in comparison.false_firing]
    assert not firing, (
        f"{len(firing)} finding(s) judged false still fire (their entry is not open):\n"
        + "\n".join(firing)
    )


# The comparison itself, on findings and entries made here.


def _finding(fp: str, message: str = "says this", code: str = "FB004") -> dict:
    return {
        "path": "realdata/x.jsonl",
        "line": 3,
        "conversation": "c-1",
        "turn": 2,
        "code": code,
        "name": "ungrounded-argument",
        "fingerprint": fp,
        "message": message,
    }


def _entry(fp: str, verdict: str, **extra) -> dict:
    return {**check.stub(_finding(fp)), "verdict": verdict, "reason": "read it", **extra}


def test_compare_sorts_findings_into_what_fails_what_is_known_and_what_is_gone():
    found = [
        _finding("new"),
        _finding("t"),
        _finding("f"),
        _finding("open"),
        _finding("stub"),
        _finding("moved", "says that"),
    ]
    entries = [
        _entry("t", "true"),
        _entry("f", "false", **{"class": "fb004-dates"}),
        _entry("open", "false", open=True),
        _entry("stub", ""),
        _entry("moved", "unclear"),
        _entry("gone", "false", open=True),
    ]
    c = check.compare(found, entries)
    assert [f["fingerprint"] for f in c.unjudged] == ["new", "stub"]
    assert [f["fingerprint"] for f, _ in c.false_firing] == ["f"]
    assert [f["fingerprint"] for f, _ in c.open_firing] == ["open"]
    assert [e["fingerprint"] for e in c.gone] == ["gone"]
    assert [(f["message"], e["message"]) for f, e in c.reworded] == [("says that", "says this")]
    assert (c.failures(), c.failures(strict=True)) == (3, 4)
    assert check.describe(c.unjudged[0]) == (
        "realdata/x.jsonl:3: FB004 [conversation c-1, turn 2] says this"
    )
    assert check.precision_lines(c.matched)[1:] == [
        "FB004  ungrounded-argument               4     1     2       1     25.0 %"
    ]


def test_stubs_drop_and_refresh_rewrite_only_what_was_asked(tmp_path):
    found = [_finding("new"), _finding("kept", "now says this"), _finding("stub")]
    entries = [_entry("kept", "true"), _entry("gone", "false"), _entry("stub", "")]
    c = check.compare(found, entries)
    assert check.updated(c, entries, False, False, False) == entries
    new = check.updated(c, entries, stubs=True, drop_gone=True, refresh=True)
    assert [(e["fingerprint"], e["verdict"], e["message"]) for e in new] == [
        ("kept", "true", "now says this"),
        ("stub", "", "says this"),  # one stub a finding: not a second one
        ("new", "", "says this"),
    ]
    ledger = tmp_path / "judged.jsonl"
    check.write(ledger, [{**new[0], "open": False}, new[2]])
    lines = ledger.read_text(encoding="utf-8").splitlines()
    assert list(json.loads(lines[0])) == [k for k in check.FIELDS if k != "open"]
    assert [json.loads(line)["fingerprint"] for line in lines] == ["kept", "new"]


@pytest.mark.parametrize(
    ("entry", "problem"),
    [
        ({"verdict": "maybe"}, "verdict 'maybe' is not true, false or unclear"),
        ({"verdict": "true", "reason": ""}, "a verdict needs its reason"),
        ({"verdict": "true", "open": True}, "`open` is only `true`, on a false verdict"),
        ({"verdict": "false", "open": "yes"}, "`open` is only `true`, on a false verdict"),
    ],
)
def test_malformed_entries_are_named(entry, problem):
    assert check.problems([_entry("x", "true") | entry]) == [
        f"entry 1 (FB004 realdata/x.jsonl): {problem}"
    ]


def test_a_fingerprint_twice_and_a_missing_field_are_named():
    entries = [_entry("x", "true"), _entry("x", "true")]
    del entries[1]["turn"]
    assert check.problems(entries) == [
        "entry 2 (FB004 realdata/x.jsonl): missing turn",
        "entry 2 (FB004 realdata/x.jsonl): fingerprint x appears twice",
    ]


def test_adopt_takes_verdicts_judged_elsewhere_by_what_the_finding_says():
    found = [_finding("fp-1"), _finding("fp-2", "says that"), _finding("fp-3", "twice")]
    found.append({**_finding("fp-4", "twice"), "line": 9})
    entries = [_entry("fp-2", "true")]
    true = {"verdict": "true", "reason": "r", "class": "true"}
    verdicts = [
        # Judged from the checkout on main: other fingerprints, paths under ../shared/.
        {
            **_finding("old-1"),
            "path": "../shared/realdata/x.jsonl",
            "verdict": "false",
            "reason": "the date is not an id",
            "class": "fb004-dates",
        },
        {**_finding("old-2", "says that"), "verdict": "false", "reason": "r", "class": "c"},
        {**_finding("old-4", "twice"), "line": 9, **true},
        {**_finding("old-5", "not said"), **true},
    ]
    adopted, notes = check.adopt(found, entries, verdicts)
    assert [(e["fingerprint"], e["verdict"], e["class"]) for e in adopted] == [
        ("fp-2", "true", ""),  # the ledger's verdict stays
        ("fp-1", "false", "fb004-dates"),
        ("fp-4", "true", "true"),  # of two findings alike, the one on its line
    ]
    assert notes == [
        "kept the ledger's 'true', not 'false': "
        "realdata/x.jsonl:3: FB004 [conversation c-1, turn 2] says that",
        "no single finding for realdata/x.jsonl:3: FB004 [conversation c-1, turn 2] not said",
    ]


def test_judgments_of_a_labelled_corpus_are_put_on_the_findings_they_name(tmp_path):
    part = tmp_path / "labelled-9" / "a"
    part.mkdir(parents=True)
    (part / "x.jsonl").write_text("{}\n", encoding="utf-8")
    judgment = {"file": "a/x.jsonl", "conversation": "a/x.jsonl:3", "code": "FB004", "turn": 2}
    rows = [
        {**judgment, "fingerprint": "other-build", "verdict": "false", "why": "a scheme added"},
        {**judgment, "turn": 7, "fingerprint": "gone", "verdict": "true", "why": "fired once"},
        {**judgment, "code": "LP001", "fingerprint": "1", "verdict": "true", "why": "r"},
        {**judgment, "code": "LP001", "fingerprint": "2", "verdict": "false", "why": "r"},
    ]
    (part / "judgments.json").write_text(json.dumps(rows), encoding="utf-8")
    extra = tmp_path / "verdicts.jsonl"
    extra.write_text(
        json.dumps({**judgment, "code": "EX001", "verdict": "true", "why": "ends", "class": "c"}),
        encoding="utf-8",
    )
    here = {"path": "labelled-9/a/x.jsonl", "conversation": "labelled-9/a/x.jsonl:3"}
    found = [
        {**_finding("fp-1"), **here},
        {**_finding("fp-2"), **here},  # the same finding twice: one verdict for both
        {**_finding("fp-3", code="LP001"), **here},
        {**_finding("fp-4", code="EX001"), **here},
    ]
    verdicts, notes = check.judged_elsewhere(tmp_path, found, [extra])
    assert [(v["fingerprint"], v["verdict"], v.get("open"), v["class"]) for v in verdicts] == [
        ("fp-1", "false", True, "labelled"),
        ("fp-2", "false", True, "labelled"),
        ("fp-4", "true", None, "c"),
    ]
    assert notes == [
        "fires no more: labelled-9/a/x.jsonl: FB004 [conversation labelled-9/a/x.jsonl:3, "
        "turn 7] (fired once)",
        "judged true and false: labelled-9/a/x.jsonl: LP001 "
        "[conversation labelled-9/a/x.jsonl:3, turn 2]",
    ]
    entries, kept = check.put([_entry("fp-1", "true")], verdicts)
    assert [(e["fingerprint"], e["verdict"]) for e in entries] == [
        ("fp-1", "true"),
        ("fp-2", "false"),
        ("fp-4", "true"),
    ]
    assert kept == [f"kept the ledger's 'true', not 'false': {check.describe(verdicts[0])}"]
