"""A text is read once however many walks and rules ask for its values (`values._read`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable

import pytest

from auditor.reading import values
from tests.helpers import FIXTURES, audit

Reader = Callable[[str], Iterable[values.Value]]


@pytest.fixture
def readings(monkeypatch: pytest.MonkeyPatch) -> Counter[tuple[str, str]]:
    """Each reading of a text, by reader, with the values' cache as the product keeps it."""
    read: Counter[tuple[str, str]] = Counter()
    original = values._read.__wrapped__

    def counting(find: Reader, text: str) -> tuple[values.Value, ...]:
        read[find.__name__, text] += 1
        return original(find, text)

    monkeypatch.setattr(values, "_read", values.lru_cache(maxsize=512)(counting))
    return read


def test_a_text_asked_for_again_is_not_read_again(readings: Counter[tuple[str, str]]) -> None:
    text = "I will book HAT136 on May 20 with the Visa ending in 7447, $1,200.00 in total."
    first = values.in_text(text)
    assert values.in_text(text) == first
    assert values.money_in(text) == tuple(v for v in first if v.kind == "money")
    assert values.payments_in(text) == values.payments_in(text)
    assert readings == {("_in_text", text): 1, ("_amounts_in", text): 1, ("_payments", text): 1}


def test_the_approvals_and_the_rules_read_each_text_once(
    readings: Counter[tuple[str, str]],
) -> None:
    # tau-bench: the approvals walk reads each user and assistant text, CF003 the claims and
    # results, FB007 the prices.
    report = audit([FIXTURES / "formats" / "tau" / "tau-bench-gpt-4o-airline-excerpt.json"])
    assert report.findings
    assert {reader for reader, _ in readings} == {"_in_text", "_amounts_in", "_payments"}
    assert max(readings.values()) == 1
