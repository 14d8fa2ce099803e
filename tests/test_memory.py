"""Memory held by a parser does not grow with the input (tracemalloc; no timings)."""

from __future__ import annotations

import gc
import sys
import tracemalloc
from typing import Iterator

import pytest

from argstream import ArgumentStreamError

pytestmark = pytest.mark.slow

MB = 1 << 20
CHUNK = 64 * 1024
GROWTH_LIMIT = 1 * MB
# Small objects allocate per token, and tracemalloc traces every allocation: smaller volumes, tighter
# bound (a leak of even a few bytes per object would exceed it).
OBJECTS_LIMIT = 256 * 1024


def windows(unit, total: int) -> Iterator[object]:
    """``total`` bytes of an endless repetition of ``unit``, in consecutive 64 KB chunks (made on the fly)."""
    period = unit * (CHUNK // len(unit) + 2)
    off = sent = 0
    while sent < total:
        yield period[off : off + CHUNK]
        off = (off + CHUNK) % len(unit)
        sent += CHUNK


def string_chunks(total: int, as_bytes: bool) -> tuple[object, Iterator[object]]:
    """One string value streamed in 64 KB chunks; escapes, surrogate pairs and UTF-8 straddle the cuts."""
    pattern = "x" * 9973 + 'é€😀\\u00e9\\ud83d\\ude00\\n\\"'
    if as_bytes:
        return b'{"content": "', windows(pattern.encode(), total)
    return '{"content": "', windows(pattern, total)


def object_chunks(total: int) -> tuple[str, Iterator[str]]:
    """An array of many small objects, in 64 KB chunks cut anywhere."""
    item = '{"id": 12345, "name": "' + "n" * 60 + '", "tags": [1, "a", null], "ok": true, "x": -1.5e3},'
    return "[", windows(item, total)


def growth(make_parser, head, chunks, warmup: int = 4, **kwargs) -> int:
    """Traced memory after all ``chunks`` minus after the warm-up, returned fragments discarded."""
    p = make_parser(**kwargs)
    p.push(head)
    gc.collect()
    tracemalloc.start()
    try:
        for _ in range(warmup):
            p.push(next(chunks))
        gc.collect()
        base = tracemalloc.get_traced_memory()[0]
        n = 0
        for chunk in chunks:
            p.push(chunk)
            n += 1
        gc.collect()
        end = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert n > 0
    assert not p.done
    return end - base


@pytest.mark.parametrize("as_bytes", [False, True], ids=["str", "bytes"])
def test_long_string_does_not_grow(make_parser, as_bytes):
    head, chunks = string_chunks(50 * MB, as_bytes)
    assert growth(make_parser, head, chunks) < GROWTH_LIMIT


def test_long_string_flat_does_not_grow(make_parser):
    head, chunks = string_chunks(50 * MB, True)
    assert growth(make_parser, head, chunks, flat=True) < GROWTH_LIMIT


def test_many_small_objects_do_not_grow(make_parser, backend):
    # the pure twin walks these a character at a time, and tracing slows every allocation several times
    head, chunks = object_chunks(8 * MB if backend == "cython" else 1 * MB)
    assert growth(make_parser, head, chunks) < OBJECTS_LIMIT


def test_many_small_objects_flat_do_not_grow(make_parser, backend):
    head, chunks = object_chunks(4 * MB if backend == "cython" else MB)
    assert growth(make_parser, head, chunks, flat=True) < OBJECTS_LIMIT


@pytest.mark.parametrize("option", ["catch_duplicate_keys", "spans"])
def test_many_small_objects_with_options_do_not_grow(make_parser, backend, option):
    """Each object's key set is freed when it closes; spans are kept for the last call only."""
    head, chunks = object_chunks(4 * MB if backend == "cython" else MB)
    assert growth(make_parser, head, chunks, **{option: True}) < OBJECTS_LIMIT


def test_long_string_with_spans_does_not_grow(make_parser):
    head, chunks = string_chunks(20 * MB, False)
    assert growth(make_parser, head, chunks, spans=True) < GROWTH_LIMIT


# -- what a push returns: bounded per character (issue 18, item 15) ---------------------------------

NESTED_DEPTH = 64  # the documented default max_depth of nested fragments (flat: 512)
WRAPPER_BYTES = 56  # an ObjectEntry / ArrayItem (48 bytes on 64-bit CPython), with slack
HOSTILE = {
    # the input, 500-deep bracket triangles: now refused at the 65th bracket
    "triangles-500": "[" + ("[" * 499 + "]" * 499 + ",") * 20,
    # the same shape within the default depth: about depth/4 wrappers per character
    "triangles-63": "[" + ("[" * 62 + "]" * 62 + ",") * 160,
    # the worst case: a fragment per character at full depth
    "scalars-at-depth": "[" * 63 + "0," * 10_000,
    "empties-at-depth": '{"k":' * 63 + '[],"k":' * 2_500,
}


def wrappers(fragment: object) -> int:
    n = 0
    while type(fragment).__name__ in ("ArrayItem", "ObjectEntry"):
        n += 1
        fragment = fragment.value  # type: ignore[attr-defined]
    return n


def test_default_depths(make_parser):
    assert make_parser().max_depth == NESTED_DEPTH
    assert make_parser(lenient=True).max_depth == NESTED_DEPTH
    assert make_parser(flat=True).max_depth == 512
    assert make_parser(max_depth=1000).max_depth == 1000


def test_both_cores_document_the_same_default_depths():
    from argstream import _backend, _parser_py

    assert (_parser_py.MAX_DEPTH, _parser_py.NESTED_MAX_DEPTH) == (512, NESTED_DEPTH)
    if _backend.IncrementalArgParserC is not None:
        compiled = sys.modules[_backend.IncrementalArgParserC.__module__]
        assert (compiled.MAX_DEPTH, compiled.NESTED_MAX_DEPTH) == (512, NESTED_DEPTH)


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_nested_fragments_cost_at_most_max_depth_wrappers_per_character(make_parser, name):
    """20 KB of hostile nesting: at most ``max_depth`` wrappers and ``max_depth`` * 56 bytes per
    character in what one push returns (the 500-deep triangles made 483 MB before the default fell)."""
    text = HOSTILE[name]
    p = make_parser()
    gc.collect()
    tracemalloc.start()
    try:
        try:
            fragments = p.push(text)
        except ArgumentStreamError as exc:
            assert name == "triangles-500" and exc.msg == "Maximum nesting depth exceeded" and exc.pos == 64
            fragments = exc.fragments
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    count = sum(wrappers(f) for f in fragments)
    assert len(fragments) <= len(text) + 1
    assert count <= NESTED_DEPTH * (len(text) + 1)
    assert held <= NESTED_DEPTH * WRAPPER_BYTES * (len(text) + 1)
    if name != "triangles-500":
        assert count >= 10 * len(text) / 2  # the inputs do reach the depth the bound is about
