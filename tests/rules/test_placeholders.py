"""Stand-in values (`_placeholders.filler`): what a model writes when it has no value at all."""

from __future__ import annotations

import pytest

from auditor.rules._placeholders import filler, possible


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("file_id", "result of previous function"),
        ("recipients", "extracted from TODO list"),
        ("id", "the id returned by the search"),
        ("date", "To be determined"),
        ("cliente_id", "A determinar (necesito consultar la base de datos)"),
        ("orden_id", "resultado de la función anterior"),
        ("commande", "à déterminer"),
        ("kunde", "zu bestimmen"),
        ("user_id", "unknown"),
        ("orderId", "N/A"),
        ("email", "<unknown>"),
        ("cliente_id", "desconocido"),
        ("phone", "?"),
    ],
)
def test_stand_ins_are_read_as_the_whole_value(key, value):
    assert filler(key, value) == value
    assert possible(f'{{"{key}": "{value}"}}')


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("query", "unknown"),  # free text: the word is what it says
        ("status", "unknown"),  # a state, not an identifier
        ("text", "Sender unknown"),
        ("artist_id", "unknown_artist_42"),  # a real id that holds the word
        ("query", "result of previous election"),  # a search for just that
        ("title", "Extracted from the Q3 report"),
        ("body", "The figures were extracted from the Q3 report, as agreed."),
        ("file_id", "report_from_2023.pdf"),
        ("source", "data extracted yesterday"),
        ("user_id", "U003"),
    ],
)
def test_words_that_are_values_are_no_stand_ins(key, value):
    assert filler(key, value) is None
