"""The same conversations in six languages, audited end to end: one verdict for all six.

`fixtures/languages/<code>/` holds, for English, Spanish, Portuguese, French, German and
Italian, the same conversations written in that language (its tool names too: `anular_reserva`,
`fazerTransferencia`, `effectuer_virement`, `ueberweisung_ausfuehren`, `esegui-bonifico`), each
bad case beside its clean twin or nearest negative: a cancellation claimed with no cancel call
and one its call backs (FB003), an e-mail said sent to one address and sent to another (FB007),
a transfer approved for 250 EUR (`€250.00`, `250,00 €`) that ran for 2,500 (CF001), one that ran
after "no, wait" and one that ran after a later yes (CF003), a question that merely holds the
word for yes ("Si le digo que sí, ¿…?") under a policy asking for an explicit yes, and "no
problem, go ahead" as the yes it is (CF003), made-up data reported as a result (FB006) and a
reworded apology sent three times (LP004). `bad_<case>.jsonl` must give exactly the findings of
`bad_<case>.expected` (one per conversation, all of the case's rule) with every rule that reads
text in a language enabled; `good_<case>.jsonl` none. `AUDITOR_UPDATE_EXPECTED=1` rewrites the
expected files. Single-language fixtures per rule stay in `fixtures/rules/` (FB006's and LP004's
`*_in_five_languages.jsonl`).
"""

from __future__ import annotations

import json
import os

import pytest

from auditor.languages.detect import languages_of, sample
from tests.helpers import FIXTURES, UPDATE, audit, brief, conversations

FOLDER = FIXTURES / "languages"
LANGUAGES = ("en", "es", "pt", "fr", "de", "it")
READING = ("FB003", "FB005", "FB006", "FB007", "CF001", "CF002", "CF003", "CF004", "LP004")
"""The rules that read what is written in a language: every case is audited with all of them."""
CASES = {
    "bad_cancellation_claimed_without_call": "FB003",
    "good_cancellation_backed_by_its_call": "FB003",
    "bad_email_sent_to_another_address": "FB007",
    "good_email_sent_to_the_address_claimed": "FB007",
    "bad_transfer_ran_for_another_amount": "CF001",
    "good_transfer_ran_as_approved": "CF001",
    "bad_transfer_ran_after_a_no": "CF003",
    "good_transfer_ran_after_a_later_yes": "CF003",
    "bad_question_holding_the_word_yes": "CF003",
    "good_no_problem_as_approval": "CF003",
    "bad_made_up_data_reported": "FB006",
    "good_made_up_data_caveated": "FB006",
    "bad_apology_reworded": "LP004",
    "good_distinct_replies": "LP004",
}
"""Each case, by the rule its bad conversations break and its good ones must not."""
PAIRS = [(code, case) for case in CASES for code in LANGUAGES]


def _codes(code: str, case: str) -> list[str]:
    report = audit([FOLDER / code / f"{case}.jsonl"], select=READING)
    assert not report.errors, report.errors
    return [f.code for f in report.findings]


def test_every_language_holds_every_case():
    for code in LANGUAGES:
        names = {p.name for p in (FOLDER / code).iterdir()}
        logs = {n.removesuffix(".jsonl") for n in names if n.endswith(".jsonl")}
        assert logs == set(CASES), code
        assert {n.removesuffix(".expected") for n in names if n.endswith(".expected")} == {
            case for case in CASES if case.startswith("bad_")
        }, code


@pytest.mark.parametrize(("code", "case"), PAIRS, ids=[f"{c}-{n}" for c, n in PAIRS])
def test_each_conversation_is_read_in_its_language(code, case):
    for conversation in conversations(FOLDER / code / f"{case}.jsonl"):
        read = languages_of(sample(conversation.messages))
        assert (read == ("en",)) if code == "en" else (code in read), (conversation.id, read)


@pytest.mark.parametrize(("code", "case"), PAIRS, ids=[f"{c}-{n}" for c, n in PAIRS])
def test_case(code, case):
    path = FOLDER / code / f"{case}.jsonl"
    report = audit([path], select=READING)
    assert not report.errors, report.errors
    found = [brief(f) for f in report.findings]
    if case.startswith("good_"):
        assert found == [], f"{code}/{case} should fire nothing"
        return
    expected_path = path.with_suffix(".expected")
    if os.environ.get(UPDATE):
        expected_path.write_text("".join(json.dumps(f, ensure_ascii=False) + "\n" for f in found))
    expected = [json.loads(line) for line in expected_path.read_text().splitlines() if line]
    assert len(expected) == len(conversations(path)), "one finding per conversation"
    assert {f["code"] for f in expected} == {CASES[case]}
    assert found == expected


def test_the_six_languages_agree_case_by_case():
    """The verdict (the rules that fire, in order) of every case is English's in every
    language; the table names each disagreement."""
    table = {case: {code: _codes(code, case) for code in LANGUAGES} for case in CASES}
    differ = [
        f"{case}: {code} {found} vs en {row['en']}"
        for case, row in table.items()
        for code, found in row.items()
        if found != row["en"]
    ]
    assert differ == []
    for case, row in table.items():
        if case.startswith("good_"):
            assert row["en"] == [], case
        else:
            assert row["en"], case
            assert set(row["en"]) == {CASES[case]}, case
