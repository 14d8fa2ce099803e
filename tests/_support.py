"""Helpers shared by the core test modules: feeding chunks, chunkings, strict comparisons."""

from __future__ import annotations

import json
import math
import random
import re
from typing import Any, Callable, Iterable, Iterator

import argstream
from argstream import DONE, Empty, Scalar, String
from argstream._backend import OBJECT_ENTRY_TYPES, SCALAR_TYPES, STRING_TYPES  # either parser's fragments

def run(make_parser: Callable[..., Any], chunks: Iterable[Any], **kwargs: Any) -> list[Any]:
    """Push every chunk into a fresh parser, then ``finish()``; return all fragments."""
    p = make_parser(**kwargs)
    out: list[Any] = []
    for chunk in chunks:
        out += p.push(chunk)
    out += p.finish()
    return out


def run_per_push(make_parser: Callable[..., Any], chunks: Iterable[Any], **kwargs: Any) -> list[list[Any]]:
    """Like :func:`run`, but keep each push's fragments apart (the ``finish()`` list last)."""
    p = make_parser(**kwargs)
    out = [p.push(chunk) for chunk in chunks]
    out.append(p.finish())
    return out


def error_of(make_parser: Callable[..., Any], chunks: Iterable[Any], **kwargs: Any) -> argstream.ArgumentStreamError:
    """The ``ArgumentStreamError`` that feeding ``chunks`` (then ``finish()``) raises; fails if none."""
    p = make_parser(**kwargs)
    try:
        for chunk in chunks:
            p.push(chunk)
        p.finish()
    except argstream.ArgumentStreamError as exc:
        return exc
    raise AssertionError(f"no error for {list(chunks)!r}")


def fields(exc: argstream.ArgumentStreamError) -> tuple:
    """What identifies an error: (type, msg, pos, line, col)."""
    return (type(exc), exc.msg, exc.pos, exc.line, exc.col)


# -- chunkings ----------------------------------------------------------------


def whole(doc: Any) -> list[Any]:
    return [doc]


def one_unit(doc: Any) -> list[Any]:
    """One character (str) or one byte (bytes) per chunk."""
    return [doc[i : i + 1] for i in range(len(doc))]


def cut(doc: Any, points: Iterable[int]) -> list[Any]:
    """Split ``doc`` at the given offsets (sorted, deduplicated; empty pieces dropped)."""
    bounds = [0, *sorted(set(points)), len(doc)]
    return [doc[a:b] for a, b in zip(bounds, bounds[1:]) if b > a]


def random_chunks(doc: Any, seed: int | str, max_len: int = 7) -> list[Any]:
    """Chunks of 1..max_len units, reproducible from ``seed``."""
    rng = random.Random(seed)
    out, i = [], 0
    while i < len(doc):
        n = rng.randint(1, max_len)
        out.append(doc[i : i + n])
        i += n
    return out


def every_split(doc: Any) -> Iterator[list[Any]]:
    """Every way to cut ``doc`` in two (including the whole document as one chunk)."""
    for k in range(len(doc) + 1):
        yield cut(doc, [k])


CHUNKINGS: dict[str, Callable[[Any], list[Any]]] = {
    "whole": whole,
    "one": one_unit,
    "random": lambda doc: random_chunks(doc, repr(doc)),
}


# -- comparisons --------------------------------------------------------------


def same_json(a: Any, b: Any) -> bool:
    """Equality that is strict about types (1 vs 1.0 vs True), NaN-safe, keeps the sign of zero; no recursion."""
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


def aggregate(fragments: Iterable[Any]) -> Any:
    """The value that a complete fragment stream (nested or flat) describes."""
    agg = argstream.FragmentAggregator()
    for f in fragments:
        agg.push(f)
    return agg.value


def canon(fragment: Any) -> tuple:
    """A plain, type-strict form of one fragment (nested or ``(path, leaf)``), built without recursion."""
    path, leaf = fragment if type(fragment) is tuple else argstream.flatten(fragment)
    return (tuple((type(s).__name__, s) for s in path), _leaf(leaf))


def _leaf(leaf: Any) -> tuple:
    if type(leaf) in SCALAR_TYPES:
        v = leaf.value
        return ("Scalar", type(v).__name__, repr(v))
    if type(leaf) in STRING_TYPES:
        return ("String", leaf.text)
    if isinstance(leaf, Empty):
        return ("Empty", leaf.kind)
    if leaf is DONE:
        return ("Done",)
    raise AssertionError(f"not a leaf: {leaf!r}")


def structure(fragments: Iterable[Any]) -> list[tuple]:
    """The non-``String`` fragments, canonical: they must not depend on chunking."""
    return [c for c in map(canon, fragments) if c[1][0] != "String"]


def string_texts(fragments: Iterable[Any]) -> list[tuple]:
    """Each string value's whole text, in order, with its canonical path (its pieces are consecutive)."""
    out: list[list] = []
    prev_string = False
    for path, leaf in map(canon, fragments):
        if leaf[0] == "String":
            if prev_string and out[-1][0] == path:
                out[-1][1] += leaf[1]
            else:
                out.append([path, leaf[1]])
            prev_string = True
        else:
            prev_string = False
    return [tuple(x) for x in out]


def check_stream(fragments: list[Any], reference: list[Any], expected: Any) -> None:
    """The invariants every chunking must keep, against the whole-document ``reference`` run."""
    for f in fragments:
        leaf = f[1] if type(f) is tuple else argstream.flatten(f)[1]
        if type(leaf) in STRING_TYPES:
            assert leaf.text, f"empty String fragment in {fragments!r}"
    assert structure(fragments) == structure(reference)
    assert string_texts(fragments) == string_texts(reference)
    assert same_json(aggregate(fragments), expected), (aggregate(fragments), expected)


def loads(doc: Any, surrogates: str = "replace") -> Any:
    """``json.loads``, with lone surrogates mapped to U+FFFD unless ``surrogates == "pass"``."""
    value = json.loads(doc)
    return value if surrogates == "pass" else _replace_lone(value)


_LONE = re.compile("[\ud800-\udfff]")


def _replace_lone(value: Any) -> Any:
    if isinstance(value, str):
        return _LONE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_replace_lone(v) for v in value]
    if isinstance(value, dict):
        return {_replace_lone(k): _replace_lone(v) for k, v in value.items()}
    return value


def get_path(value: Any, path: tuple) -> Any:
    for step in path:
        value = value[step]
    return value


__all__ = [
    "run", "run_per_push", "error_of", "fields", "whole", "one_unit", "cut", "random_chunks", "every_split",
    "CHUNKINGS", "same_json", "aggregate", "canon", "structure", "string_texts", "check_stream", "loads", "get_path",
]


def build(events: list[Any]) -> tuple[list[Any], list[Any], list[Any]]:
    """Feed provider events to an ``EventBuilder``: the flushed events, the progress, and the ``Finished`` events."""
    from argstream.builder import EventBuilder
    from argstream.events import Finished, Part

    builder = EventBuilder()
    flushed: list[Any] = []
    progress: list[Any] = []
    finished: list[Any] = []
    for event in events:
        result = builder.handle(event)
        if isinstance(event, Finished):
            finished.append(event)
        elif isinstance(event, Part):
            progress += result
        elif result is not None:
            flushed.append(result)
    return flushed, progress, finished
