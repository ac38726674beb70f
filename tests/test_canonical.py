"""Equality in meaning: what loops and approvals both call "the same arguments"."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.canonical import Change, changes, excerpt, key, missing, same_meaning
from tests.helpers import examples


def test_key_order_whitespace_and_number_form_do_not_matter():
    assert same_meaning({"a": 1, "b": [1.0, "x"]}, {"b": [1, "x"], "a": 1.0})
    assert same_meaning({"name": "Zoe\u0301"}, {"name": "Zo\u00e9"})  # NFD vs NFC


def test_meaning_does_matter():
    assert not same_meaning({"a": 1}, {"a": "1"})
    assert not same_meaning({"a": True}, {"a": 1})  # a boolean is not a number
    assert not same_meaning([1, 2], [2, 1])  # arrays keep their order
    assert not same_meaning({"a": None}, {})


def test_changes_name_each_path_old_and_new():
    old = {"user": "mia", "flights": [{"n": "HAT1", "date": "05-20"}], "pay": "card_1"}
    new = {"user": "mia", "flights": [{"n": "HAT1", "date": "05-21"}], "pay": "gift_7", "x": 1}
    assert changes(old, new) == [
        Change("flights[0].date", "05-20", "05-21"),
        Change("pay", "card_1", "gift_7"),
        Change("x", missing(), 1),
    ]
    assert excerpt(missing()) == "(missing)"
    assert changes({"a": 1.0}, {"a": 1}) == []


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**60), 2**60) | st.text(max_size=4),
    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=3), c, max_size=3),
    max_leaves=10,
)


@settings(max_examples=examples(100))
@given(json_values)
def test_key_is_stable_under_reordering(value):
    def reorder(v):
        if isinstance(v, dict):
            return {k: reorder(v[k]) for k in reversed(list(v))}
        if isinstance(v, list):
            return [reorder(x) for x in v]
        return v

    assert key(value) == key(reorder(value))
    assert changes(value, reorder(value)) == []
