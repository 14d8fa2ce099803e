"""Per argument piece: Vertex AI's streamed function-call arguments (``partialArgs``), against the parser
and the ``json.loads`` floor.

Vertex streams a call's arguments as pieces, one a chunk: ``{"jsonPath": "$.content", "stringValue":
"...", "willContinue": true}``. The call is the ``fs_create_file`` call of ``wire_data`` (its ``path``
whole, then its ``content`` in pieces of 2-12 characters, seeded), each chunk with the fields Vertex
sends (``usageMetadata``, ``modelVersion``, ``createTime``, ``responseId``), then the closing piece, the
terminator and the finish. Every figure is for the whole stream; the report divides it by the
content's pieces (``extra_info["deltas"]``).

Cases, all through public API:

``parser``
    the parser alone on the argument text the pieces make (the JSON text each one adds).
``json.loads-floor``
    ``json.loads`` of each event's ``data:`` line and nothing else.
``wire-dicts`` / ``raw-sse``
    ``iter_tool_stream`` on the decoded wire dicts; on the raw SSE text (CRLF line ends, as Gemini
    sends it), one chunk per event. Each keeps the finished call's arguments.

Every case is verified outside the timed call.

    python -m pytest benchmarks/bench_vertex.py --benchmark-timer=time.process_time
    python benchmarks/bench_vertex.py        # the table: interleaved rounds, medians, per piece
"""

from __future__ import annotations

import functools
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import environment  # noqa: F401 - first: puts src/ on the path when argstream is not installed
import pytest
from bench_events import final_arguments, parser_alone
from wire_data import DELTA_LENGTHS, SIZES, TOOL_NAME, call_arguments

from argstream import iter_tool_stream

IMPLS = ("parser", "json.loads-floor", "wire-dicts", "raw-sse")
BENCH_SIZES = ("2K", "20K")


@functools.cache
def vertex_stream(size: str) -> tuple[dict[str, Any], tuple[str, ...], tuple[Any, ...], tuple[str, ...]]:
    """``(arguments, content pieces, wire dicts, data lines)`` of the ``size`` call streamed by Vertex."""
    arguments, _ = call_arguments(size)
    content = arguments["content"]
    rng = random.Random(17_100 + SIZES[size])
    pieces, pos = [], 0
    while pos < len(content):
        n = rng.randint(*DELTA_LENGTHS)
        pieces.append(content[pos:pos + n])
        pos += n
    head = {"modelVersion": "gemini-3.1-pro-preview", "createTime": "2026-04-07T16:49:58.333958Z",
            "responseId": "tjXVaYaxFISTq8YP_MWiyAo"}

    def chunk(call: dict[str, Any], finish: str | None = None, usage: Any = None) -> dict[str, Any]:
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": [{"functionCall": call}]}}
        if finish:
            candidate["finishReason"] = finish
        return {"candidates": [candidate], "usageMetadata": usage or {"trafficType": "ON_DEMAND"}, **head}

    events = [chunk({"name": TOOL_NAME, "willContinue": True}),
              chunk({"partialArgs": [{"jsonPath": "$.path", "stringValue": arguments["path"]}], "willContinue": True})]
    events += [chunk({"partialArgs": [{"jsonPath": "$.content", "stringValue": p, "willContinue": True}],
                      "willContinue": True}) for p in pieces]
    events += [chunk({"partialArgs": [{"jsonPath": "$.content", "stringValue": ""}], "willContinue": True}),
               chunk({}),
               chunk({}, "STOP", {"promptTokenCount": 31, "candidatesTokenCount": len(pieces),
                                  "totalTokenCount": 31 + len(pieces), "trafficType": "ON_DEMAND"})]
    lines = tuple(json.dumps(e, ensure_ascii=False, separators=(",", ":")) for e in events)
    return arguments, tuple(pieces), tuple(json.loads(line) for line in lines), lines


def argument_pieces(size: str) -> tuple[str, ...]:
    """The argument JSON text as the pieces write it: the ``path`` entry with the first piece, then
    each piece's escaped text, then the closing quote and brace."""
    arguments, pieces, _, _ = vertex_stream(size)
    body = [json.dumps(p, ensure_ascii=False)[1:-1] for p in pieces]
    head = '{"path":' + json.dumps(arguments["path"], ensure_ascii=False) + ',"content":"'
    return (head + body[0], *body[1:], '"}')


def _floor(lines: tuple[str, ...]) -> int:
    loads = json.loads
    for line in lines:
        loads(line)
    return len(lines)


def prepare(size: str, impl: str) -> tuple[Callable[[Any], Any], Any]:
    """The case's function and argument, verified once."""
    arguments, _, items, lines = vertex_stream(size)
    if impl == "parser":
        fn, arg, check = parser_alone, argument_pieces(size), (lambda r: r > 0)
    elif impl == "json.loads-floor":
        fn, arg, check = _floor, lines, (lambda r: r == len(lines))
    elif impl == "wire-dicts":
        fn, arg = (lambda its: final_arguments(iter_tool_stream(its, "gemini"))), items
        check = arguments.__eq__
    else:
        fn, arg = (lambda chunks: final_arguments(iter_tool_stream(chunks, "gemini"))), tuple(
            f"data: {line}\r\n\r\n" for line in lines)
        check = arguments.__eq__
    assert check(fn(arg)), impl
    return fn, arg


@pytest.mark.parametrize("size", BENCH_SIZES)
@pytest.mark.parametrize("impl", IMPLS)
def test_vertex(benchmark: Any, size: str, impl: str) -> None:
    benchmark.group = f"vertex partialArgs {size}"
    benchmark.extra_info.update(size=size, impl=impl, deltas=len(vertex_stream(size)[1]))
    fn, arg = prepare(size, impl)
    benchmark(fn, arg)


def table(rounds: int = 15) -> str:
    """Per piece, median of interleaved rounds (each sample at least 20 ms of CPU time)."""
    rows = ["| per piece | " + " | ".join(BENCH_SIZES) + " |", "|---" * (len(BENCH_SIZES) + 1) + "|"]
    medians: dict[tuple[str, str], float] = {}
    for size in BENCH_SIZES:
        cases = {impl: prepare(size, impl) for impl in IMPLS}
        samples: dict[str, list[float]] = {impl: [] for impl in IMPLS}
        for r in range(rounds):
            for impl in IMPLS if r % 2 == 0 else reversed(IMPLS):
                fn, arg = cases[impl]
                start, n = time.process_time(), 0
                while time.process_time() - start < 0.02:
                    fn(arg)
                    n += 1
                samples[impl].append((time.process_time() - start) / n)
        pieces = len(vertex_stream(size)[1])
        for impl in IMPLS:
            medians[impl, size] = statistics.median(samples[impl]) / pieces
    for impl in IMPLS:
        cells = []
        for size in BENCH_SIZES:
            us = medians[impl, size] * 1e6
            ratio = "" if impl == "parser" else f" ({medians[impl, size] / medians['parser', size]:.1f}x the parser)"
            cells.append(f"{us:.2f} us{ratio}")
        rows.append(f"| {impl} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


if __name__ == "__main__":
    print(table(int(sys.argv[1]) if len(sys.argv) > 1 else 15))
