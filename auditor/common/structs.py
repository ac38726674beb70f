"""`dataclass`, as the standard library's, with `__repr__`, `__eq__` and `__hash__` built
without compiling code.

Python 3.11's `dataclasses` writes each generated method as source and compiles it, class by
class: half a millisecond a method, and ~45% of a run's start-up over the auditor's classes.
This decorator has `dataclasses.dataclass` generate `__init__` (and, for a frozen class,
`__setattr__` and `__delattr__`), and gives the class the other three as closures over its
fields, which cost nothing to make. They behave as the generated ones: the same fields (those
`compare`, `repr` or `hash` select), the same strings and values, `NotImplemented` against
another class, `...` for a value that holds itself, `__hash__` added, set to None or left
as the standard table says.

A frozen class's `__setattr__` and `__delattr__`, which Python 3.11 and 3.12 compile in
`dataclasses._frozen_get_del_attr` (a third of a frozen class's cost), are closures too: that
function is swapped for `_frozen_attributes`, which makes the same two, while this decorator
runs (3.13 compiles a class's methods at once, and is left alone).
`tests/common/test_structs.py` holds every method to the standard library's.
"""

from __future__ import annotations

import contextlib
import dataclasses
import sys
from _thread import get_ident
from collections.abc import Callable, Iterator
from operator import attrgetter
from typing import Any, TypeVar, dataclass_transform

T = TypeVar("T")

__all__ = ["dataclass"]


@dataclass_transform(field_specifiers=(dataclasses.field, dataclasses.Field))
def dataclass(
    cls: type[T] | None = None,
    /,
    *,
    repr: bool = True,
    eq: bool = True,
    unsafe_hash: bool = False,
    frozen: bool = False,
    **options: Any,
) -> Any:
    """`dataclasses.dataclass(cls, ...)`, the same parameters, the same class."""

    def wrap(cls: type[T]) -> type[T]:
        own = cls.__dict__
        explicit_hash = "__hash__" in own and not (own["__hash__"] is None and "__eq__" in own)
        if (unsafe_hash and explicit_hash) or options.get("order"):  # as the standard one does
            return dataclasses.dataclass(
                cls, repr=repr, eq=eq, unsafe_hash=unsafe_hash, frozen=frozen, **options
            )
        wants_repr, wants_eq = repr and "__repr__" not in own, eq and "__eq__" not in own
        with _closures_for_frozen(frozen):
            made: type[T] = dataclasses.dataclass(
                cls, repr=False, eq=False, unsafe_hash=False, frozen=frozen, **options
            )
        fields = dataclasses.fields(made)  # type: ignore[arg-type]
        if wants_repr:
            _method(made, "__repr__", _repr([f.name for f in fields if f.repr]))
        if wants_eq:
            _method(made, "__eq__", _eq(_key([f.name for f in fields if f.compare])))
        if not explicit_hash:
            hashed = [f.name for f in fields if (f.compare if f.hash is None else f.hash)]
            if unsafe_hash or (eq and frozen):
                _method(made, "__hash__", _hash(_key(hashed)))
            elif eq:
                made.__hash__ = None  # type: ignore[assignment]
        return made

    return wrap if cls is None else wrap(cls)


def _method(cls: type, name: str, function: Callable[..., Any]) -> None:
    function.__name__ = name
    function.__qualname__ = f"{cls.__qualname__}.{name}"
    function.__module__ = cls.__module__
    setattr(cls, name, function)


_COMPILED = getattr(dataclasses, "_frozen_get_del_attr", None)
"""The standard library's maker of a frozen class's two methods, where it compiles them."""


@contextlib.contextmanager
def _closures_for_frozen(frozen: bool) -> Iterator[None]:
    """`dataclasses` makes a frozen class's `__setattr__` and `__delattr__` with
    `_frozen_attributes` while the class is processed (Python 3.11 and 3.12)."""
    if not frozen or _COMPILED is None or sys.version_info >= (3, 13):
        yield
        return
    dataclasses._frozen_get_del_attr = _frozen_attributes  # type: ignore[attr-defined]
    try:
        yield
    finally:
        dataclasses._frozen_get_del_attr = _COMPILED  # type: ignore[attr-defined]


def _frozen_attributes(
    cls: type, fields: list[dataclasses.Field[Any]], globals: dict[str, Any]
) -> tuple[Callable[..., None], Callable[..., None]]:
    """`dataclasses._frozen_get_del_attr`'s two methods, as closures: assigning or deleting a
    field, or any attribute of an instance of the class itself, raises FrozenInstanceError;
    a subclass's own attributes go to the class above."""
    names = tuple(f.name for f in fields)
    frozen_error = dataclasses.FrozenInstanceError
    owner: type = cls

    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is owner or name in names:
            raise frozen_error(f"cannot assign to field {name!r}")
        super(owner, self).__setattr__(name, value)  # type: ignore[arg-type]

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is owner or name in names:
            raise frozen_error(f"cannot delete field {name!r}")
        super(owner, self).__delattr__(name)  # type: ignore[arg-type]

    for function in (__setattr__, __delattr__):
        function.__module__ = globals.get("__name__", cls.__module__)
    return __setattr__, __delattr__


def _key(names: list[str]) -> Callable[[Any], tuple[Any, ...]]:
    """The tuple of these fields' values, as the generated methods build it."""
    if not names:
        return lambda _: ()
    if len(names) == 1:
        one = attrgetter(names[0])
        return lambda value: (one(value),)
    return attrgetter(*names)


def _eq(key: Callable[[Any], tuple[Any, ...]]) -> Callable[[Any, Any], Any]:
    def __eq__(self: Any, other: Any) -> Any:
        if other.__class__ is self.__class__:
            return key(self) == key(other)
        return NotImplemented

    return __eq__


def _hash(key: Callable[[Any], tuple[Any, ...]]) -> Callable[[Any], int]:
    def __hash__(self: Any) -> int:
        return hash(key(self))

    return __hash__


_REPRS: set[tuple[int, int]] = set()
"""The values whose repr is being written, per thread: one met again inside itself is `...`."""


def _repr(names: list[str]) -> Callable[[Any], str]:
    def __repr__(self: Any) -> str:
        key = (id(self), get_ident())
        if key in _REPRS:
            return "..."
        _REPRS.add(key)
        try:
            shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
        finally:
            _REPRS.discard(key)
        return f"{self.__class__.__qualname__}({shown})"

    return __repr__
