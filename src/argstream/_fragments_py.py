"""Pure-Python fragment types: the reference for the compiled ones in ``_fragments.pyx``.

``Empty`` and ``Done`` are rare (once per value end), so both backends share
these two classes; the four hot types have a compiled twin.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Literal, Union

__all__ = ["Scalar", "String", "ArrayItem", "ObjectEntry", "Empty", "Done", "DONE"]


@dataclass(frozen=True, slots=True)
class Scalar:
    """A complete ``null``, ``true``/``false`` or number, as ``json.loads`` gives it."""

    value: None | bool | int | float


@dataclass(frozen=True, slots=True)
class String:
    """One chunk of decoded string data; never empty."""

    text: str


@dataclass(frozen=True, slots=True)
class ArrayItem:
    """``value`` is the inner fragment for array item ``index``."""

    index: int
    value: Any


@dataclass(frozen=True, slots=True)
class ObjectEntry:
    """``value`` is the inner fragment for object member ``key``."""

    key: str
    value: Any


EmptyKind = Literal["object", "array", "string"]


@dataclass(frozen=True, slots=True)
class Empty:
    """The value is an empty object, array or string; comes right before its ``Done``."""

    kind: EmptyKind


class Done:
    """No more fragments for this value. ``Done()`` always returns ``DONE``."""

    __slots__ = ()
    __match_args__: ClassVar[tuple[str, ...]] = ()
    _instance: ClassVar[Done | None] = None

    def __new__(cls) -> Done:
        inst = cls._instance
        if inst is None:
            inst = cls._instance = object.__new__(cls)
        return inst

    def __repr__(self) -> str:
        return "DONE"

    def __reduce__(self) -> str:
        return "DONE"

    def __copy__(self) -> Done:
        return self

    def __deepcopy__(self, memo: dict) -> Done:
        return self


DONE = Done()

Fragment = Union[Scalar, String, ArrayItem, ObjectEntry, Empty, Done]
