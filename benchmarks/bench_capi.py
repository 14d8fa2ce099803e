"""The compiled core through its C API, from a Cython consumer (fastrlock ``lockbench`` style).

The loop over chunks runs in Cython and the sink only counts, so this is the
tokenizer's cost without building fragment objects: the floor under
``argstream-cython``. Same groups as ``bench_core.py``.
"""

from __future__ import annotations

from typing import Any

import pytest

from data import CHUNK_SIZES, CORPORA, corpus


def expected_counts(value: Any) -> tuple[int, int]:
    """What ``CountingSink`` must count for ``value``: (events other than string data, string characters)."""
    if isinstance(value, dict):
        events, chars = 2 + len(value), 0  # begin/end object, one key per member
        items = value.values()
    elif isinstance(value, list):
        events, chars = 2, 0
        items = value
    elif isinstance(value, str):
        return 2, len(value)  # begin/end string
    else:
        return 1, 0  # scalar
    for item in items:
        e, c = expected_counts(item)
        events += e
        chars += c
    return events, chars


@pytest.mark.parametrize(
    ("name", "n", "impl"),
    [
        pytest.param(name, n, impl, id=f"{name}-c{n}-{impl}")
        for name in CORPORA
        for n in CHUNK_SIZES
        for impl in ("argstream-capi", "argstream-capi-bytes")
    ],
)
def test_capi_stream(benchmark: Any, capi_consumer: Any, name: str, n: int, impl: str) -> None:
    """Feed every chunk through ``Tokenizer.feed_str`` / ``Tokenizer.feed`` into a counting ``Sink``."""
    c = corpus(name)
    if impl.endswith("-bytes"):
        chunks, fn = c.byte_chunks(n), capi_consumer.stream_bytes
    else:
        chunks, fn = c.chunks(n), capi_consumer.stream_str
    benchmark.group = f"{name} chunk={n}"
    benchmark.extra_info.update(
        corpus=name, chunk=n, impl=impl, chunks=len(chunks), units=sum(len(ch) for ch in chunks),
        input="bytes" if impl.endswith("-bytes") else "str",
    )
    result = benchmark(fn, chunks)
    assert result == expected_counts(c.value)
