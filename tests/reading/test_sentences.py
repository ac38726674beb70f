"""One sentence splitter for claims, facts and replies (`auditor.reading.sentences`)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.reading import sentences
from tests.helpers import examples


@pytest.mark.parametrize(
    ("text", "ends"),
    [
        ("I cancelled it. Then I left.", [15, 28]),
        ("It costs $2.00 in total", []),  # a decimal point ends nothing
        ("e.g. this, v1.2 and that", [4]),  # an abbreviation before a space does: bounded reach
        ("Done!\n- refund sent\n- order cancelled", [5, 6, 20]),
        ("Really?Yes.", [11]),  # no space after the `?`: one sentence
    ],
)
def test_ends(text: str, ends: list[int]) -> None:
    assert [m.end() for m in sentences.END.finditer(text)] == ends


def test_a_sentence_around_a_place() -> None:
    text = "I looked. I have cancelled order #12. Anything else?"
    at = text.index("cancelled")
    assert sentences.last_end(text, 0, at, 0) == 9
    assert sentences.next_end(text, at, at + 400) == text.index("#12.") + 4
    assert sentences.last_end(text, 10, at, 10) == 10  # none in reach: the default
    assert sentences.next_end("no end in sight", 0, 400) is None


def test_a_line_end_ends_a_sentence_unless_told_not_to() -> None:
    reply = "No\nok, go ahead"
    assert sentences.ends_between(reply, 2, len(reply))
    assert not sentences.ends_between(reply, 2, len(reply), lines=False)
    assert sentences.ends_between("No. Fine, go ahead", 2, 18, lines=False)


@settings(max_examples=examples(200), deadline=None)
@given(st.text(alphabet=st.sampled_from("ab .!?\n$2"), max_size=40))
def test_last_end_is_the_last_of_the_ends(text: str) -> None:
    ends = [m.end() for m in sentences.END.finditer(text)]
    assert sentences.last_end(text, 0, len(text), -1) == (ends[-1] if ends else -1)
    assert sentences.next_end(text, 0, len(text)) == (ends[0] if ends else None)
