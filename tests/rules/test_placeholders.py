"""Stand-in values (`_placeholders.filler`): what a model writes when it has no value at all."""

from __future__ import annotations

import orjson
import pytest

from auditor.rules._placeholders import filler, possible
from tests.helpers import audit_bytes


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


def _fb005(tmp_path, arguments: str) -> list[tuple[str, int, str]]:
    """FB005's findings on a call with the given raw `arguments` that the tool answered."""
    function = {"name": "get_user", "arguments": arguments}
    call = {"id": "c1", "type": "function", "function": function}
    conversation = {
        "messages": [
            {"role": "user", "content": "What is on my account?"},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "c1", "content": '{"error": "no such user"}'},
        ]
    }
    report = audit_bytes(tmp_path, orjson.dumps(conversation) + b"\n", select=["FB005"])
    return [(f.code, f.line, f.message) for f in report.findings]


def test_a_stand_in_is_read_in_the_value_not_in_the_json_it_is_written_in(tmp_path):
    # `n\u002fa` is `n/a` escaped: the logged text does not hold it, the value does
    (found,) = _fb005(tmp_path, '{"user_id": "n\\u002fa"}')
    assert found[:2] == ("FB005", 1)
    assert "placeholder `n/a` in `user_id`" in found[2]


def test_a_key_that_holds_a_hint_is_not_read_as_a_value(tmp_path):
    # `first_name` holds `na`, `notes` `not`: keys are no values
    arguments = '{"first_name": "Mia", "notes": "VIP", "user_id": "mia_li_3668"}'
    assert _fb005(tmp_path, arguments) == []
