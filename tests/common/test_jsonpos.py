"""Pointers inside a JSON document resolve to the line their value starts on."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from auditor.common.jsonpos import pointer_lines, split_pointer
from auditor.model import escape_pointer_token
from tests.helpers import examples

DOC = b"""{
  "a": [
    {"x": 1},
    {
      "y/z": "has \\" quote, } and ] inside",
      "t~": [10, 20,
        30]
    }
  ],
  "b": null
}"""


def test_lines_of_nested_pointers():
    lines = pointer_lines(DOC, ["/a/1/y~1z", "/a/0", "/b", "/a/1/t~0/2", "", "/missing", "/a/9"])
    assert lines == {"": 1, "/a/0": 3, "/a/1/y~1z": 5, "/a/1/t~0/2": 7, "/b": 10}


def test_a_value_nested_past_the_recursion_limit_is_passed_over():
    # the C decoder that passes over values off the pointers' paths stops at the recursion
    # limit; brackets and strings are then counted instead
    deep = b"[" * 1500 + b'"]"' + b"]" * 1500
    doc = b"[\n" + deep + b',\n{"a": [\n"}", 2]}\n]'
    assert pointer_lines(doc, ["/1/a/1", "/1"]) == {"/1": 3, "/1/a/1": 4}


def test_non_ascii_text_counts_lines_not_bytes():
    # U+2028 and U+00A0 are whitespace to Python's str methods, never a line to JSON
    doc = '{"é\u2028": "ü\\n",\n "k": [\n "\u00a0", 1]}'.encode()
    assert pointer_lines(doc, ["/k/1", "/k"]) == {"/k": 2, "/k/1": 3}


def test_split_pointer_unescapes():
    assert split_pointer("/a~1b/c~0d/3") == ["a/b", "c~d", "3"]
    assert escape_pointer_token("a/b~") == "a~1b~0"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=4), children, max_size=4)
    ),
    max_leaves=20,
)


def _pointers(value, prefix=""):
    yield prefix
    if isinstance(value, list):
        for i, v in enumerate(value):
            yield from _pointers(v, f"{prefix}/{i}")
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _pointers(v, f"{prefix}/{escape_pointer_token(k)}")


def _replaced(value, tokens, sentinel):
    if not tokens:
        return sentinel
    head, rest = tokens[0], tokens[1:]
    if isinstance(value, list):
        copy = list(value)
        copy[int(head)] = _replaced(value[int(head)], rest, sentinel)
        return copy
    copy = dict(value)
    copy[head] = _replaced(value[head], rest, sentinel)
    return copy


@settings(max_examples=examples(100))
@given(json_values)
def test_every_pointer_of_a_document_is_found_on_its_line(value):
    text = json.dumps(value, indent=1)
    pointers = list(_pointers(value))
    lines = pointer_lines(text.encode(), pointers)
    assert set(lines) == set(pointers)
    for pointer, line in lines.items():
        # Put a sentinel where the value is: everything before it keeps its line, so the
        # sentinel's line is the line the value starts on.
        marked = json.dumps(_replaced(value, split_pointer(pointer), "\u2603SENTINEL"), indent=1)
        expected = marked[: marked.index("\\u2603SENTINEL")].count("\n") + 1
        assert line == expected, pointer


@settings(max_examples=examples(100))
@given(json_values, st.data())
def test_some_pointers_are_found_on_the_lines_all_are(value, data):
    """Asked for a few pointers, the scan skips the values around them: the same lines."""
    text = json.dumps(value, indent=1).encode()
    pointers = list(_pointers(value))
    every = pointer_lines(text, pointers)
    some = data.draw(st.lists(st.sampled_from(pointers), max_size=4))
    assert pointer_lines(text, some) == {p: every[p] for p in some}
