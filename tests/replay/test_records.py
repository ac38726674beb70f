"""`auditor.replay.approvals.records`: what tool results show of bookings and orders."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.replay.approvals.records import _ID_KEY, Records
from tests.helpers import examples


@settings(max_examples=examples(500), deadline=None)
@given(st.text(alphabet="_idIDıİ\nx", max_size=8))
def test_a_key_is_an_id_key_exactly_where_the_pattern_says(key):
    records = Records()
    records.read(f'{{"{key.encode("unicode_escape").decode()}": "X1", "name": "bag"}}')
    assert bool(records.described) == (_ID_KEY.search(key) is not None)


def test_an_id_key_ends_in_id_in_any_case():
    for key in ("id", "order_id", "Reservation_ID", "item_Id"):
        records = Records()
        records.read(f'{{"{key}": "X1", "name": "bag"}}')
        assert list(records.described) == ["X1"], key
    for key in ("paid", "valid", "order_ids", "idx"):
        records = Records()
        records.read(f'{{"{key}": "X1", "name": "bag"}}')
        assert records.described == {}, key
