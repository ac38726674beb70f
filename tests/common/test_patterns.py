"""`auditor.common.patterns`: patterns compiled on first use, and word lists written as tries."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.common.patterns import Folded, folded, lazy, one_of
from tests.helpers import examples

_WORDS = st.lists(st.text(alphabet="abAé -", min_size=1, max_size=5), min_size=1, max_size=8)


@settings(max_examples=examples(300), deadline=None)
@given(_WORDS, st.text(alphabet="abAÉé -x", max_size=30), st.booleans())
def test_a_trie_matches_what_the_alternation_longest_first_matches(words, text, fold):
    if fold:  # under re.I, words are given in one case (`one_of`)
        words = [w.lower() for w in words]
    plain = "(?:" + "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True)) + ")"
    flags = re.I if fold else 0
    for tail in ("", r"\b", "x"):  # what follows may make a longer word fail: backtracking
        expected = [(m.span(), m.group()) for m in re.finditer(plain + tail, text, flags)]
        found = [(m.span(), m.group()) for m in re.finditer(one_of(words) + tail, text, flags)]
        assert found == expected


def test_one_of_is_a_trie() -> None:
    assert one_of(["jan", "january", "june"]) == "(?:j(?:an(?:uary)?|une))"
    assert re.fullmatch(one_of(["a.b", "a"]), "a.b")  # escaped: `.` is a full stop
    assert not re.fullmatch(one_of(["a.b"]), "axb")


def test_lazy_compiles_on_first_use() -> None:
    pattern = lazy(r"\d+")
    assert "search" not in vars(pattern)
    assert pattern.search("ab 12")[0] == "12"  # type: ignore[index]
    assert "search" in vars(pattern)


def _folded_patterns() -> list[Folded]:
    from auditor.reading import values, written
    from auditor.replay.approvals import replies

    found = [values._PAYMENT_TEXT, values._QUANTITY, written.MONTH_NAMED, replies._ASKS]
    return found + [p for p in written.DATES if isinstance(p, Folded)]


_PIECES = st.sampled_from(
    [
        "May",
        "MAY",
        "may ",
        "20th",
        "the ",
        "Twenty-First",
        " of ",
        "Juli",
        "3. ",
        "März",
        "Visa ",
        "ending in ",
        "7447",
        "GIFT card",
        "2 ",
        "Extra ",
        "Bags",
        "three ",
        "checked ",
        "Would you like me to ",
        "proceed",
        "Shall I ",
        "WE",
        "?",
        ". ",
        "Yes or No",
        "Sound good?",
        "Kelvin \u212a",
        "\u017f",
        "İ",
        "2024",
        ", ",
        "\n",
    ]
)


@settings(max_examples=examples(400), deadline=None)
@given(st.lists(_PIECES, max_size=14).map("".join))
def test_a_folded_pattern_matches_where_re_i_matches(text: str) -> None:
    for pattern in _folded_patterns():
        folding = re.compile(pattern.pattern, re.I)
        assert [m.span() for m in pattern.finditer(text)] == [
            m.span() for m in folding.finditer(text)
        ]
        assert (pattern.search(text) is None) == (folding.search(text) is None)


def test_a_folded_pattern_is_written_in_lowercase() -> None:
    with pytest.raises(ValueError, match="lowercase: 'I'"):
        folded(r"\b(?:shall|should) (?:I|we)\b")
    assert folded(r"(?P<n>\d+)\W\S").pattern  # escapes and group names are not literals
