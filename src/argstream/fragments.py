"""The fragment value types of RFD 043, and the nested <-> flat conversions.

Every value, at every depth, streams as fragments that end with its own
``Done``; ``ObjectEntry`` / ``ArrayItem`` wrap the inner fragment once per
nesting level. With the compiled backend the four hot types are extension
types with the same fields, equality, hashing, ``repr`` and ``__match_args__``
(and equal to the twin's instances). ``flatten`` takes the fragments of either
parser; ``nest`` builds the backend's types. ``*_TYPES`` hold both backends' classes, for code
that dispatches on ``type(fragment)`` and may see either.
"""

from __future__ import annotations

from typing import Any, Union

from ._backend import (
    ARRAY_ITEM_TYPES, OBJECT_ENTRY_TYPES, SCALAR_TYPES, STRING_TYPES, ArrayItem, ObjectEntry, Scalar, String,
)
from ._fragments_py import DONE, Done, Empty

__all__ = [
    "Scalar", "String", "ArrayItem", "ObjectEntry", "Empty", "Done", "DONE",
    "Fragment", "Leaf", "Path", "flatten", "nest",
    "SCALAR_TYPES", "STRING_TYPES", "ARRAY_ITEM_TYPES", "OBJECT_ENTRY_TYPES",
]

Fragment = Union[Scalar, String, ArrayItem, ObjectEntry, Empty, Done]
Leaf = Union[Scalar, String, Empty, Done]
Path = tuple[Union[str, int], ...]


def flatten(fragment: Any) -> tuple[Path, Any]:
    """Turn a nested fragment into ``(path, leaf)``: the keys and indexes from the root, and the leaf."""
    path: list[str | int] = []
    while True:
        cls = type(fragment)
        if cls in OBJECT_ENTRY_TYPES:
            path.append(fragment.key)
        elif cls in ARRAY_ITEM_TYPES:
            path.append(fragment.index)
        else:
            return tuple(path), fragment
        fragment = fragment.value


def nest(path: Path, leaf: Any) -> Any:
    """Inverse of :func:`flatten`: wrap ``leaf`` in one entry or item per path element."""
    fragment = leaf
    for step in reversed(path):
        if isinstance(step, str):
            fragment = ObjectEntry(step, fragment)
        elif isinstance(step, int) and not isinstance(step, bool):
            fragment = ArrayItem(step, fragment)
        else:
            raise TypeError(f"path elements are str keys or int indexes, not {step!r}")
    return fragment
