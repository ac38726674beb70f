"""`auditor.common.structs.dataclass` makes the class `dataclasses.dataclass` makes: the same repr,
equality and hash, for every combination of options the auditor uses and a few it does not."""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

import pytest

from auditor.common import structs

OPTIONS = [
    {},
    {"frozen": True},
    {"frozen": True, "slots": True},
    {"slots": True},
    {"slots": True, "unsafe_hash": True},
    {"unsafe_hash": True},
    {"eq": False},
    {"repr": False},
    {"eq": False, "frozen": True},
    {"order": True},
]


def _both(options: dict[str, Any], body: dict[str, Any] | None = None) -> list[type]:
    """The same class body decorated by the standard library and by `structs`."""
    made = []
    for decorate in (dataclasses.dataclass, structs.dataclass):
        namespace = {
            "__annotations__": {"a": int, "b": Any, "c": str, "kind": ClassVar[str]},
            "b": None,
            "c": dataclasses.field(default="x", repr=False, compare=False),
            "kind": "k",
            **(body or {}),
        }
        cls = type("Point", (), namespace)
        cls.__qualname__ = "Outer.Point"
        made.append(decorate(**options)(cls))
    return made


def _hash(value: Any) -> Any:
    try:
        return hash(value)
    except TypeError as exc:
        return str(exc)


@pytest.mark.parametrize("options", OPTIONS)
def test_repr_equality_and_hash_are_the_standard_librarys(options):
    standard, ours = _both(options)
    for args in [(1,), (1, [1, "two"]), (2, (3,), "y"), (1, None, "z")]:
        a, b = standard(*args), ours(*args)
        if options.get("repr", True):
            assert repr(a) == repr(b)
        if standard.__hash__ is object.__hash__:  # by identity
            assert ours.__hash__ is object.__hash__
        else:
            assert _hash(a) == _hash(b)
        for other in [(1,), (1, [1, "two"]), (1, None, "other c")]:
            assert (a == standard(*other)) == (b == ours(*other))
            assert (a != standard(*other)) == (b != ours(*other))
        assert (a == args) == (b == args) is False  # another class: NotImplemented both ways
    assert standard.__hash__ is None if ours.__hash__ is None else standard.__hash__ is not None
    assert [f.name for f in dataclasses.fields(ours)] == ["a", "b", "c"]
    assert dataclasses.replace(ours(1, 2), b=3) == ours(1, 3) or not options.get("eq", True)


def _outcome(action: Any) -> str:
    try:
        action()
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return "done"


@pytest.mark.parametrize("options", OPTIONS)
def test_frozen_alike(options):
    """Assigning or deleting a field, or another attribute, on the class and on a subclass
    that is not a dataclass: the same error, or the same success, either way."""
    said = []
    for cls in _both(options):
        sub = type("Sub", (cls,), {})
        results = []
        for made in (cls, sub):
            value = made(1)
            results += [
                _outcome(lambda v=value: setattr(v, "a", 2)),
                _outcome(lambda v=value: delattr(v, "b")),
                _outcome(lambda v=value: setattr(v, "other", 3)),
                _outcome(lambda v=value: delattr(v, "other")),
                repr(getattr(value, "a", None)),
            ]
        said.append(results)
    assert said[1] == said[0]
    if options.get("frozen"):
        assert said[1][0] == "FrozenInstanceError: cannot assign to field 'a'"
        assert said[1][1] == "FrozenInstanceError: cannot delete field 'b'"


def test_frozen_methods_are_named_and_placed_as_the_standard_librarys():
    standard, ours = _both({"frozen": True})
    for name in ("__setattr__", "__delattr__", "__init__"):
        made, compiled = getattr(ours, name), getattr(standard, name)
        assert (made.__qualname__, made.__module__) == (compiled.__qualname__, compiled.__module__)
    assert dataclasses._frozen_get_del_attr is structs._COMPILED  # put back after each class


def test_a_value_that_holds_itself_is_shown_as_dots():
    standard, ours = _both({})
    a, b = standard(1, []), ours(1, [])
    a.b.append(a)
    b.b.append(b)
    assert repr(b) == repr(a) == "Outer.Point(a=1, b=[...])"


def test_methods_the_class_writes_are_kept():
    body = {
        "__repr__": lambda self: "mine",
        "__eq__": lambda self, other: True,
        "__hash__": lambda self: 7,
    }
    standard, ours = _both({"frozen": True}, body)
    assert (repr(ours(1)), ours(1) == ours(2), hash(ours(1))) == ("mine", True, 7)
    assert (repr(standard(1)), hash(standard(1))) == ("mine", 7)
    with pytest.raises(TypeError):
        _both({"unsafe_hash": True}, {"__hash__": lambda self: 7})


def test_an_eq_without_hash_leaves_the_class_unhashable_as_python_does():
    standard, ours = _both({}, {"__eq__": lambda self, other: True})
    assert ours.__hash__ is None and standard.__hash__ is None
    assert ours.__eq__.__qualname__ == standard.__eq__.__qualname__


def test_generated_methods_are_named_as_the_standard_librarys():
    standard, ours = _both({"frozen": True})
    for name in ("__repr__", "__eq__", "__hash__"):
        made, compiled = getattr(ours, name), getattr(standard, name)
        assert (made.__qualname__, made.__module__) == (compiled.__qualname__, compiled.__module__)
