"""`auditor.patterns`: patterns compiled on first use, and word lists written as tries."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.patterns import lazy, one_of

_WORDS = st.lists(st.text(alphabet="abAé -", min_size=1, max_size=5), min_size=1, max_size=8)


@settings(max_examples=300, deadline=None)
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
