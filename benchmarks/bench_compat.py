"""The compat layers on the core issue's W1 workload, against the peers they replace.

- ``compat-axio``: ``argstream.compat.axio.ToolArgStream`` (over each backend) against axio's own
  ``ToolArgStream``, feeding W1 (``{"path": ..., "content": <100 KB of source>}``) in 8/32/256-char
  chunks (``data.CHUNK_SIZES``).
- ``compat-segments``: ``argstream.compat.segments.SegmentHandler`` on a ``write_file`` call against
  the peer's extractor approach: the char-by-char state machine that seeds/003 describes
  ("Minimal Streaming Parser"), re-implemented below from that description as the baseline.

Each test verifies, outside the timed call, that the events carry exactly the decoded field
values. The seed's extractor decodes only ``\\\\ \\" \\n \\t \\r``; W1 holds no other escape, so
it is exact here too (``extra_info["exact"]`` records it; only argstream's layers must be exact).

    PYTHONPATH=src .venv/bin/python -m pytest benchmarks/bench_compat.py --benchmark-min-rounds=3
"""

from __future__ import annotations

from typing import Any, Callable

import pytest

from argstream import parser as _parser
from argstream.compat.axio import ToolArgStream
from argstream.compat.segments import (
    SEGMENT_CONTENT,
    SEGMENT_END,
    SEGMENT_START,
    WRITE_FILE,
    SegmentEvent,
    SegmentHandler,
)
from data import CHUNK_SIZES, corpus

try:
    from axio.tool_args import ToolArgStream as AxioToolArgStream
except ImportError:  # pragma: no cover - axio needs Python >= 3.12
    AxioToolArgStream = None

ParserC = _parser.IncrementalArgParserC
ParserPy = _parser.IncrementalArgParserPy
CORPUS = "W1-100K"


# -- ToolArgStream: ours and axio's -------------------------------------------------------------


def tool_arg_stream(make: Callable[[], Any], chunks: list[str]) -> int:
    feed = make().feed
    n = 0
    for chunk in chunks:
        n += len(feed(chunk))
    return n


def tool_arg_fields(make: Callable[[], Any], chunks: list[str]) -> tuple[dict[str, str], int]:
    s = make()
    fields: dict[str, list[str]] = {}
    n = 0
    for chunk in chunks:
        events = s.feed(chunk)
        n += len(events)
        for ev in events:
            if type(ev).__name__ == "ToolFieldDelta":
                fields.setdefault(ev.key, []).append(ev.text)
    assert s.done
    return {k: "".join(v) for k, v in fields.items()}, n


AXIO_IMPLS = ("compat-cython", "compat-python", "axio")


def _axio_maker(impl: str) -> Callable[[], Any] | str:
    if impl == "axio":
        return (lambda: AxioToolArgStream("bench")) if AxioToolArgStream is not None else "axio not installed"
    cls = ParserC if impl == "compat-cython" else ParserPy
    if cls is None:
        return "compiled core not built"
    return lambda: ToolArgStream("bench", parser_factory=cls)


@pytest.mark.parametrize(("n", "impl"), [pytest.param(n, i, id=f"c{n}-{i}") for n in CHUNK_SIZES for i in AXIO_IMPLS])
def test_tool_arg_stream(benchmark: Any, n: int, impl: str) -> None:
    make = _axio_maker(impl)
    if isinstance(make, str):
        pytest.skip(make)
    c = corpus(CORPUS)
    chunks = c.chunks(n)
    benchmark.group = f"compat-axio {CORPUS} chunk={n}"
    benchmark.extra_info.update(corpus=CORPUS, chunk=n, impl=impl, chunks=len(chunks))
    result = benchmark(tool_arg_stream, make, chunks)
    fields, count = tool_arg_fields(make, chunks)
    assert fields == c.value
    assert result == count


# -- segments: ours and the seed's extractor -----------------------------------------------------


class SeedExtractor:
    """The seed's "Minimal Streaming Parser" (seeds/003), one character at a time.

    Modes ``scan_key`` | ``read_key`` | ``expect_colon`` | ``expect_value`` | ``read_value``; a
    string is taken as a key when a ``:`` follows it (any depth: the approach has no nesting);
    target values (``path``, ``content``, ``patch``) are decoded with the escapes the seed lists
    (``\\\\ \\" \\n \\t \\r``; any other escaped character is kept as is) and only the newly decoded
    suffix of ``content`` / ``patch`` is returned per chunk.
    """

    ESCAPES = {"\\": "\\", '"': '"', "n": "\n", "t": "\t", "r": "\r"}
    TARGETS = frozenset({"path", "content", "patch"})

    def __init__(self) -> None:
        self.mode = "scan_key"
        self.current_key: list[str] = []
        self.in_string = False
        self.escape = False
        self.value_target: str | None = None
        self.value_buffer: list[str] = []
        self.path: str | None = None

    def feed(self, chunk: str) -> str:
        """Process one chunk; return the newly decoded content suffix."""
        delta: list[str] = []
        for ch in chunk:
            mode = self.mode
            if mode == "read_value":
                if self.escape:
                    self.escape = False
                    ch = self.ESCAPES.get(ch, ch)
                elif ch == "\\":
                    self.escape = True
                    continue
                elif ch == '"':
                    self.in_string = False
                    if self.value_target == "path":
                        self.path = "".join(self.value_buffer)
                    self.value_target = None
                    self.mode = "scan_key"
                    continue
                if self.value_target == "path":
                    self.value_buffer.append(ch)
                else:
                    delta.append(ch)
            elif mode == "scan_key":
                if ch == '"':
                    self.mode = "read_key"
                    self.in_string = True
                    self.current_key = []
            elif mode == "read_key":
                if self.escape:
                    self.escape = False
                    self.current_key.append(self.ESCAPES.get(ch, ch))
                elif ch == "\\":
                    self.escape = True
                elif ch == '"':
                    self.in_string = False
                    self.mode = "expect_colon"
                else:
                    self.current_key.append(ch)
            elif mode == "expect_colon":
                if ch == ":":
                    self.mode = "expect_value"
                elif ch not in " \t\r\n":
                    self.mode = "scan_key"  # that string was a value, not a key
            elif mode == "expect_value":
                if ch == '"' and "".join(self.current_key) in self.TARGETS:
                    self.value_target = "".join(self.current_key)
                    self.value_buffer = []
                    self.in_string = True
                    self.mode = "read_value"
                elif ch not in " \t\r\n":
                    self.mode = "read_key" if ch == '"' else "scan_key"
                    self.current_key = []
        return "".join(delta)


def seed_segments(chunks: list[str], call_id: str = "call_bench") -> list[SegmentEvent]:
    """The seed's handler flow for a write_file call: START at once, decoded content, END with path."""
    events = [SegmentEvent(SEGMENT_START, call_id, WRITE_FILE, {})]
    extractor = SeedExtractor()
    for chunk in chunks:
        delta = extractor.feed(chunk)
        if delta:
            events.append(SegmentEvent(SEGMENT_CONTENT, call_id, None, {"delta": delta}))
    metadata = {"path": extractor.path} if extractor.path else {}
    events.append(SegmentEvent(SEGMENT_END, call_id, None, {"metadata": metadata} if metadata else {}))
    return events


def argstream_segments(cls: Any, chunks: list[str], call_id: str = "call_bench") -> list[SegmentEvent]:
    h = SegmentHandler(parser_factory=cls)
    events = h.start(call_id, "write_file")
    feed = h.feed
    for chunk in chunks:
        events += feed(call_id, chunk)
    events += h.end(call_id)
    return events


SEGMENT_IMPLS = ("segments-cython", "segments-python", "seed-extractor")


@pytest.mark.parametrize(
    ("n", "impl"), [pytest.param(n, i, id=f"c{n}-{i}") for n in CHUNK_SIZES for i in SEGMENT_IMPLS]
)
def test_segments(benchmark: Any, n: int, impl: str) -> None:
    c = corpus(CORPUS)
    chunks = c.chunks(n)
    if impl == "seed-extractor":
        fn: Callable[[list[str]], list[SegmentEvent]] = seed_segments
    else:
        cls = ParserC if impl == "segments-cython" else ParserPy
        if cls is None:
            pytest.skip("compiled core not built")

        def fn(chunks: list[str]) -> list[SegmentEvent]:
            return argstream_segments(cls, chunks)

    benchmark.group = f"compat-segments {CORPUS} chunk={n}"
    benchmark.extra_info.update(corpus=CORPUS, chunk=n, impl=impl, chunks=len(chunks))
    events = benchmark(fn, chunks)
    content = "".join(e.delta for e in events if e.event_type is SEGMENT_CONTENT)
    path = events[-1].metadata.get("path")
    exact = content == c.value["content"] and path == c.value["path"]
    benchmark.extra_info["exact"] = exact
    if impl != "seed-extractor":
        assert exact
