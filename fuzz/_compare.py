"""Type-strict comparison helpers for the targets (the fuzz package does not import the tests)."""

from __future__ import annotations

import math
import re
from typing import Any

import argstream
from argstream import DONE, Empty
from argstream._backend import SCALAR_TYPES, STRING_TYPES


def same_json(a: Any, b: Any) -> bool:
    """Equal as JSON values: strict about types (1, 1.0, True), NaN equal to NaN, the sign of zero kept."""
    stack = [(a, b)]
    while stack:
        a, b = stack.pop()
        if type(a) is not type(b):
            return False
        if isinstance(a, float):
            if math.isnan(a) or math.isnan(b):
                if not (math.isnan(a) and math.isnan(b)):
                    return False
            elif a != b or math.copysign(1.0, a) != math.copysign(1.0, b):
                return False
        elif isinstance(a, list):
            if len(a) != len(b):
                return False
            stack.extend(zip(a, b))
        elif isinstance(a, dict):
            if a.keys() != b.keys():
                return False
            stack.extend((a[k], b[k]) for k in a)
        elif a != b:
            return False
    return True


def canon(fragment: Any) -> tuple:
    """One fragment (nested or ``(path, leaf)``) as plain, type-strict data."""
    path, leaf = fragment if type(fragment) is tuple else argstream.flatten(fragment)
    steps = tuple((type(s).__name__, s) for s in path)
    if type(leaf) in SCALAR_TYPES:
        return (steps, "Scalar", type(leaf.value).__name__, repr(leaf.value))
    if type(leaf) in STRING_TYPES:
        return (steps, "String", leaf.text)
    if isinstance(leaf, Empty):
        return (steps, "Empty", leaf.kind)
    if leaf is DONE:
        return (steps, "Done")
    raise AssertionError(f"not a leaf: {leaf!r}")


def joined(canons: list[tuple]) -> list[tuple]:
    """Consecutive ``String`` pieces of one path joined: what no chunking may change."""
    out: list[tuple] = []
    for c in canons:
        if c[1] == "String" and out and out[-1][1] == "String" and out[-1][0] == c[0]:
            out[-1] = (c[0], "String", out[-1][2] + c[2])
        else:
            out.append(c)
    return out


def aggregate(fragments: list[Any]) -> Any:
    agg = argstream.FragmentAggregator()
    for f in fragments:
        agg.push(f)
    return agg.value


def error_fields(exc: argstream.ArgumentStreamError) -> tuple:
    return (type(exc).__name__, exc.msg, exc.pos, exc.line, exc.col, getattr(exc, "key", None))


_LONE = re.compile("[\ud800-\udfff]")


def replace_lone_surrogates(value: Any) -> Any:
    """``value`` with lone surrogates as U+FFFD, as the parser's default ``surrogates="replace"`` gives them."""
    if isinstance(value, str):
        return _LONE.sub("\ufffd", value)
    if isinstance(value, list):
        return [replace_lone_surrogates(v) for v in value]
    if isinstance(value, dict):
        return {replace_lone_surrogates(k): replace_lone_surrogates(v) for k, v in value.items()}
    return value


_VOLATILE = re.compile(r"timestamp=datetime\.datetime\([^)]*\)| at 0x[0-9a-f]+")


def stable_repr(value: Any) -> str:
    """``repr`` without what differs between two equal runs (timestamps, object addresses)."""
    return _VOLATILE.sub("", repr(value))


__all__ = ["same_json", "canon", "joined", "aggregate", "error_fields", "replace_lone_surrogates", "stable_repr"]
