"""The schema pre-screen never calls valid what jsonschema calls invalid."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from auditor.rules._quickschema import certainly_valid, checker
from tests.helpers import examples

SIMPLE = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "units": {"type": "string", "enum": ["metric", "imperial"]},
        "days": {"type": "integer"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "when": {"type": ["string", "null"]},
    },
    "required": ["city"],
    "additionalProperties": False,
}


def test_answers_for_the_simple_subset():
    assert certainly_valid(SIMPLE, {"city": "Paris", "units": "metric", "days": 3.0})
    assert not certainly_valid(SIMPLE, {"units": "metric"})  # missing required
    assert not certainly_valid(SIMPLE, {"city": "Paris", "units": "kelvin"})
    assert not certainly_valid(SIMPLE, {"city": "Paris", "days": True})  # a boolean is no integer
    assert not certainly_valid(SIMPLE, {"city": "Paris", "zoom": 1})
    assert not certainly_valid({"type": "object", "minProperties": 1}, {"a": 1})  # unknown: ask


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-5, 5)
    | st.floats(-5, 5, allow_nan=False)
    | st.sampled_from(["Paris", "metric", "kelvin", ""]),
    lambda c: (
        st.lists(c, max_size=3)
        | st.dictionaries(
            st.sampled_from(["city", "units", "days", "tags", "when", "x"]), c, max_size=4
        )
    ),
    max_leaves=8,
)
schemas = st.recursive(
    st.fixed_dictionaries(
        {},
        optional={
            "type": st.sampled_from(
                ["string", "integer", "number", "boolean", "null", "object", "array"]
            )
            | st.lists(st.sampled_from(["string", "null", "integer"]), min_size=1, max_size=2),
            "enum": st.lists(st.sampled_from(["metric", "imperial", "Paris", 1, True]), max_size=3),
        },
    ),
    lambda c: st.fixed_dictionaries(
        {"type": st.just("object")},
        optional={
            "properties": st.dictionaries(
                st.sampled_from(["city", "units", "days", "tags"]), c, max_size=3
            ),
            "required": st.lists(
                st.sampled_from(["city", "units", "days"]), max_size=2, unique=True
            ),
            "additionalProperties": st.booleans(),
            "items": c,
        },
    ),
    max_leaves=6,
)


@settings(max_examples=examples(500))
@given(schemas, json_values)
def test_never_valid_where_jsonschema_says_invalid(schema, value):
    if certainly_valid(schema, value):
        assert Draft202012Validator(schema).is_valid(value), (schema, value)


odd_schemas = schemas | st.sampled_from(
    [
        True,
        {},
        {"type": "object", "properties": {"a": None}},
        {"type": "object", "properties": {"a": {"type": "string", "enum": None}}},
        {"type": "object", "properties": {"a": {"type": "string", "enum": [1]}}},
        {"type": "object", "properties": None},
        {"type": "object", "required": [1]},
        {"type": "object", "enum": None},
        {"type": "object", "additionalProperties": {"type": "string"}},
        {"type": "object", "properties": {"a": {"description": "x"}}, "title": "t"},
    ]
)
objects = st.dictionaries(st.sampled_from(["city", "units", "days", "tags", "a", "x"]), json_values)


@settings(max_examples=examples(1000))
@given(odd_schemas, objects)
def test_the_compiled_checker_answers_as_the_walk(schema, value):
    assert checker(schema)(value) == certainly_valid(schema, value), (schema, value)
