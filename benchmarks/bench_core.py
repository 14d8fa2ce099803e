"""Core benchmarks: corpus x chunk size x implementation, each consuming every chunk in order.

The timed call returns a cheap checksum (fragment or event count, or the final
value); each test then verifies OUTSIDE the timed call, with one more untimed
run that keeps everything, that the implementation decoded the document
exactly as ``json.loads`` does and that the checksum matches.
"""

from __future__ import annotations

import json
from typing import Any, Callable

import pytest

import argstream
from argstream import parser as _parser
from data import CHUNK_SIZES, CORPORA, W1_SIZES, Corpus, corpus

try:
    import jiter
except ImportError:  # pragma: no cover
    jiter = None
try:
    import orjson
except ImportError:  # pragma: no cover
    orjson = None
try:
    import ijson
except ImportError:  # pragma: no cover
    ijson = None
try:
    import json_stream
    from json_stream_rs_tokenizer import RustTokenizer, rust_tokenizer_or_raise
except ImportError:  # pragma: no cover
    json_stream = None
else:
    try:  # the Rust tokenizer ships as a wheel; without one it would silently be a slow Python fallback
        rust_tokenizer_or_raise()
    except Exception:  # noqa: BLE001 - its own error type when the extension is missing
        json_stream = None


def _ijson_backend(name: str) -> Any:
    try:
        return ijson.get_backend(name)
    except Exception:  # noqa: BLE001 - ImportError or YAJLImportError: backend not built
        return None


# ijson-push: the C backend (the fastest, except that it re-lexes a string split across chunks from
# its start at every chunk, so a long string costs O(chunks x length)); ijson-python: the pure
# backend, linear on long strings.
_ijson_c = _ijson_backend("yajl2_c") if ijson is not None else None
_ijson_py = _ijson_backend("python") if ijson is not None else None
try:
    from axio.tool_args import ToolArgStream
except ImportError:  # pragma: no cover - axio needs Python >= 3.12
    ToolArgStream = None

ParserC = _parser.IncrementalArgParserC
ParserPy = _parser.IncrementalArgParserPy

# Quadratic implementations: a round costs about (chunks) x (half the document) x (time per unit
# re-scanned), measured on CPython 3.12 / x86-64: jiter re-parses long-string JSON at ~1.7 ns a
# character and scalar-dense JSON at ~13 ns; ijson's yajl2_c re-lexes a split string at ~1.6 ns a byte.
# Estimated rounds above these many seconds run 3 rounds, 1 round, or skip.
QUADRATIC_NS_PER_UNIT = {("jiter-reparse", "W1"): 1.7, ("jiter-reparse", "W3"): 13.0, ("ijson-push", "W1"): 1.6}
QUADRATIC_FEW_ROUNDS = 0.3
QUADRATIC_ONE_ROUND = 1.0
QUADRATIC_SKIP = 20.0


# -- implementations: (chunks) -> checksum; the *_collect twins keep everything for verification -----


def argstream_stream(cls: Any, chunks: list, **options: Any) -> int:
    """One parser; push every chunk, then finish. Returns the number of fragments."""
    p = cls(**options)
    push = p.push
    n = 0
    for chunk in chunks:
        n += len(push(chunk))
    return n + len(p.finish())


def argstream_collect(cls: Any, chunks: list, **options: Any) -> tuple[Any, int]:
    p = cls(**options)
    agg = argstream.FragmentAggregator()
    n = 0
    for chunk in chunks:
        frags = p.push(chunk)
        n += len(frags)
        agg.extend(frags)
    frags = p.finish()
    agg.extend(frags)
    assert p.done
    assert p.position == sum(len(c) for c in chunks)
    return agg.value, n + len(frags)


def jiter_reparse(chunks: list[str]) -> Any:
    """What the official SDKs do: re-parse the whole buffer after every chunk (quadratic)."""
    from_json = jiter.from_json
    buf = ""
    value = None
    for chunk in chunks:
        buf += chunk
        value = from_json(buf.encode(), partial_mode="trailing-strings")
    return value


def ijson_push(backend: Any, chunks: list[bytes]) -> int:
    """ijson's push (coroutine) interface fed UTF-8 byte chunks; events cleared per chunk."""
    events = ijson.sendable_list()
    coro = backend.basic_parse_coro(events, use_float=True)
    n = 0
    for chunk in chunks:
        coro.send(chunk)
        n += len(events)
        del events[:]
    coro.close()
    return n + len(events)


def ijson_collect(backend: Any, chunks: list[bytes]) -> tuple[Any, int]:
    events = ijson.sendable_list()
    coro = backend.basic_parse_coro(events, use_float=True)
    for chunk in chunks:
        coro.send(chunk)
    coro.close()
    builder = ijson.ObjectBuilder()
    for event, value in events:
        builder.event(event, value)
    return builder.value, len(events)


def orjson_once(chunks: list[str]) -> Any:
    """The non-streaming floor: join everything, parse once at the end."""
    return orjson.loads("".join(chunks))


def json_loads_once(chunks: list[str]) -> Any:
    """The standard library's floor: join everything, ``json.loads`` once at the end."""
    return json.loads("".join(chunks))


def json_stream_rs(chunks: list[str]) -> Any:
    """json-stream pulling the chunks through its Rust tokenizer, building the whole value."""
    return json_stream.to_standard_types(json_stream.load(iter(chunks), tokenizer=RustTokenizer))


def find_floor(chunks: list[str]) -> int:
    """The floor for touching each chunk at all: one ``str.find`` per chunk."""
    n = 0
    for chunk in chunks:
        n += chunk.find('"')
    return n


def axio_stream(chunks: list[str]) -> int:
    """axio's ToolArgStream (top-level fields only). Returns the number of events."""
    s = ToolArgStream("bench")
    feed = s.feed
    n = 0
    for chunk in chunks:
        n += len(feed(chunk))
    return n


def axio_collect(chunks: list[str]) -> tuple[dict[str, str], int]:
    s = ToolArgStream("bench")
    fields: dict[str, list[str]] = {}
    n = 0
    for chunk in chunks:
        events = s.feed(chunk)
        n += len(events)
        for ev in events:
            text = getattr(ev, "text", None)
            if text is not None:
                fields.setdefault(ev.key, []).append(text)
    assert s.done
    return {k: "".join(v) for k, v in fields.items()}, n


# -- the matrix ---------------------------------------------------------------------------------


def stream_skip(impl: str, name: str, n: int) -> str | None:
    """Why ``impl`` does not run on this corpus / chunk size (``None``: it runs)."""
    if impl.startswith("argstream-cython") and ParserC is None:
        return "compiled core not built (IncrementalArgParserC is None)"
    if impl == "jiter-reparse":
        if jiter is None:
            return "jiter not installed"
        if name == "W1-1M":
            return "quadratic re-parse: too slow at 1 MB"
    if impl == "ijson-push" and _ijson_c is None:
        return "ijson yajl2_c backend not available"
    if impl == "ijson-python" and _ijson_py is None:
        return "ijson not installed"
    if impl == "orjson-once" and orjson is None:
        return "orjson not installed"
    if impl == "json-stream-rs" and json_stream is None:
        return "json-stream with its Rust tokenizer (json-stream-rs-tokenizer) not installed"
    if impl == "axio":
        if ToolArgStream is None:
            return "axio not importable"
        if not name.startswith("W1"):
            return "axio only parses top-level fields (W1 only)"
    return None


def _quadratic_seconds(impl: str, name: str, chunks: list) -> float:
    """Estimated seconds per round of a quadratic implementation (0 for the linear ones)."""
    ns = QUADRATIC_NS_PER_UNIT.get((impl, name.split("-")[0]))
    if ns is None:
        return 0.0
    return len(chunks) * sum(len(ch) for ch in chunks) / 2 * ns * 1e-9


STREAM_IMPLS = (
    "argstream-cython",
    "argstream-python",
    "argstream-cython-bytes",
    "argstream-python-bytes",
    "jiter-reparse",
    "ijson-push",
    "ijson-python",
    "orjson-once",
    "json.loads-once",
    "json-stream-rs",
    "str.find-floor",
    "axio",
)

PARAMS = [
    pytest.param(name, n, impl, id=f"{name}-c{n}-{impl}")
    for name in CORPORA
    for n in CHUNK_SIZES
    for impl in STREAM_IMPLS
]


def stream_case(impl: str, c: Corpus, n: int) -> tuple[Callable[[list], Any], list, Callable[[Any], None]]:
    """The function to time, its chunks, and the check of its result."""
    expected = c.value
    if impl.startswith("argstream-"):
        cls = ParserC if impl.startswith("argstream-cython") else ParserPy
        chunks = c.byte_chunks(n) if impl.endswith("-bytes") else c.chunks(n)

        def fn(chunks: list) -> int:
            return argstream_stream(cls, chunks)

        def verify(result: int) -> None:
            value, count = argstream_collect(cls, chunks)
            assert value == expected
            assert result == count

        return fn, chunks, verify
    if impl.startswith("ijson-"):
        backend = _ijson_c if impl == "ijson-push" else _ijson_py
        chunks = c.byte_chunks(n)

        def fn(chunks: list) -> int:
            return ijson_push(backend, chunks)

        def verify(result: int) -> None:
            value, count = ijson_collect(backend, chunks)
            assert value == expected
            assert result == count

        return fn, chunks, verify
    if impl in VALUE_IMPLS:

        def verify(result: Any) -> None:
            assert result == expected

        return VALUE_IMPLS[impl], c.chunks(n), verify
    if impl == "str.find-floor":
        chunks = c.chunks(n)

        def verify(result: int) -> None:
            assert result == sum(ch.find('"') for ch in chunks)

        return find_floor, chunks, verify
    if impl == "axio":
        chunks = c.chunks(n)

        def verify(result: int) -> None:
            fields, count = axio_collect(chunks)
            assert fields == expected
            assert result == count

        return axio_stream, chunks, verify
    raise AssertionError(impl)


# Implementations whose timed call returns the decoded value itself.
VALUE_IMPLS: dict[str, Callable[[list], Any]] = {
    "jiter-reparse": jiter_reparse,
    "orjson-once": orjson_once,
    "json.loads-once": json_loads_once,
    "json-stream-rs": json_stream_rs,
}


@pytest.mark.parametrize(("name", "n", "impl"), PARAMS)
def test_stream(benchmark: Any, name: str, n: int, impl: str) -> None:
    """Stream one corpus in ``n``-unit chunks through one implementation."""
    reason = stream_skip(impl, name, n)
    if reason:
        pytest.skip(reason)
    c = corpus(name)
    fn, chunks, verify = stream_case(impl, c, n)
    estimate = _quadratic_seconds(impl, name, chunks)
    if estimate > QUADRATIC_SKIP:
        pytest.skip(f"quadratic: ~{estimate:.0f} s per round")
    benchmark.group = f"{name} chunk={n}"
    benchmark.extra_info.update(
        corpus=name,
        chunk=n,
        impl=impl,
        chunks=len(chunks),
        units=sum(len(ch) for ch in chunks),
        input="bytes" if isinstance(chunks[0], bytes) else "str",
    )
    if impl.startswith("ijson-"):
        benchmark.extra_info["ijson_backend"] = "yajl2_c" if impl == "ijson-push" else "python"
    if estimate > QUADRATIC_FEW_ROUNDS:
        rounds = 1 if estimate > QUADRATIC_ONE_ROUND else 3
        result = benchmark.pedantic(fn, args=(chunks,), rounds=rounds, iterations=1)
    else:
        result = benchmark(fn, chunks)
    verify(result)


# -- the parser's options: their cost on, and (against test_stream) that off costs nothing ------------

OPTIONS = {"off": {}, "catch_duplicate_keys": {"catch_duplicate_keys": True}, "spans": {"spans": True}}


@pytest.mark.parametrize("option", OPTIONS)
@pytest.mark.parametrize("impl", ["argstream-cython", "argstream-python", "argstream-cython-bytes"])
@pytest.mark.parametrize("name", ["W1-100K", "W3"])
def test_options(benchmark: Any, name: str, impl: str, option: str) -> None:
    """One corpus in 32-unit chunks with each option of ``IncrementalArgParser`` on."""
    if impl.startswith("argstream-cython") and ParserC is None:
        pytest.skip("compiled core not built (IncrementalArgParserC is None)")
    c = corpus(name)
    cls = ParserC if impl.startswith("argstream-cython") else ParserPy
    chunks = c.byte_chunks(32) if impl.endswith("-bytes") else c.chunks(32)
    options = OPTIONS[option]
    benchmark.group = f"{name} chunk=32 options"
    benchmark.extra_info.update(corpus=name, chunk=32, impl=impl, option=option)
    result = benchmark(argstream_stream, cls, chunks, **options)
    value, count = argstream_collect(cls, chunks, **options)
    assert value == c.value
    assert result == count


# -- one push of the whole 1 MB document ---------------------------------------------------------

WHOLE = "W1-1M"
WHOLE_IMPLS = (
    "argstream-cython",
    "argstream-cython-bytes",
    "argstream-python",
    "orjson.loads",
    "orjson.loads-bytes",
    "json.loads",
    "jiter.from_json",
)


def _one_push(cls: Any, doc: Any) -> list:
    p = cls()
    out = p.push(doc)
    out += p.finish()
    return out


def whole_skip(impl: str) -> str | None:
    """Why ``impl`` does not run on the whole document (``None``: it runs)."""
    if impl.startswith("argstream-cython") and ParserC is None:
        return "compiled core not built (IncrementalArgParserC is None)"
    if impl.startswith("orjson") and orjson is None:
        return "orjson not installed"
    if impl.startswith("jiter") and jiter is None:
        return "jiter not installed"
    return None


def whole_case(impl: str, c: Corpus) -> tuple[Callable[[Any], Any], Any, Callable[[Any], None]]:
    """The function to time on the whole document, its argument, and the check of its result."""
    if impl.startswith("argstream-"):
        cls = ParserC if impl.startswith("argstream-cython") else ParserPy

        def push_once(doc: Any) -> list:
            return _one_push(cls, doc)

        def verify_fragments(frags: list) -> None:
            agg = argstream.FragmentAggregator()
            agg.extend(frags)
            assert agg.value == c.value

        return push_once, (c.data if impl.endswith("-bytes") else c.text), verify_fragments

    def verify(result: Any) -> None:
        assert result == c.value

    fn = {"orjson.loads": orjson and orjson.loads, "orjson.loads-bytes": orjson and orjson.loads,
          "json.loads": json.loads, "jiter.from_json": jiter and jiter.from_json}[impl]
    return fn, (c.data if impl.endswith("-bytes") or impl.startswith("jiter") else c.text), verify


@pytest.mark.parametrize("impl", WHOLE_IMPLS)
def test_whole(benchmark: Any, impl: str) -> None:
    """The whole 1 MB W1 document at once: argstream's single-push cost against plain parsers."""
    reason = whole_skip(impl)
    if reason:
        pytest.skip(reason)
    c = corpus(WHOLE)
    benchmark.group = "W1 1MB whole"
    benchmark.extra_info.update(corpus=WHOLE, impl=impl, units=len(c.text), bytes=len(c.data))
    fn, arg, verify = whole_case(impl, c)
    verify(benchmark(fn, arg))


def test_workloads_are_deterministic() -> None:
    """The corpora are what the README describes: exact content sizes, the character mix present."""
    for name, size in W1_SIZES.items():
        c = corpus(name)
        content = c.value["content"]
        assert len(content) == size
        for needle in ('"', "\\", "\n", "\t", "é", "日本語", "🚀"):
            assert needle in content, needle
    rows = corpus("W3").value["rows"]
    assert len(rows) == 2000
    assert {type(v) for row in rows for v in row.values()} == {int, float, bool, str, type(None)}
