"""Argument shapes: the per-delta cost when the arguments are many small values, not one long string.

``bench_events.py`` streams one ``fs_create_file`` call, whose content is one long string: after its
first piece, each delta continues that string, which the pipeline appends without the aggregator.
Real calls are often the other shape: a list of edits, of rows, of search terms, where nearly every
delta closes a key or a value and each fragment goes through the ``FragmentAggregator``. This
workload is ``{"path": ..., "edits": [{"old", "new", "count", "all"} x 300]}`` (about 20 KB of JSON,
3,200 fragments), in token-sized deltas (2-12 characters, seeded) of Anthropic wire dicts.

Cases: ``parser`` (the compiled parser alone, flat fragments), ``wire-dicts`` (``iter_tool_stream``
on the wire dicts, to the final arguments), ``aggregator`` / ``aggregator-twin`` (the compiled
``FragmentAggregator`` and its pure-Python twin over the parser's fragments). ``extra_info`` holds
``deltas`` and ``fragments``; divide by them.

    python -m pytest benchmarks/bench_shapes.py --benchmark-timer=time.process_time
"""

from __future__ import annotations

import json
import random
from typing import Any

import environment  # noqa: F401 - first: puts src/ on the path when argstream is not installed
import pytest

from argstream import IncrementalArgParser, ToolCallFinished, iter_tool_stream
from argstream.aggregate import FragmentAggregatorC, FragmentAggregatorPy
from bench_events import parser_alone

ARGUMENTS = {"path": "src/app/models.py", "edits": [
    {"old": f"field_{i} = Column(Integer)", "new": f"field_{i} = Column(BigInteger)", "count": i, "all": i % 3 == 0}
    for i in range(300)]}
TEXT = json.dumps(ARGUMENTS)


def _deltas() -> tuple[str, ...]:
    rng = random.Random(17_321)
    out, at = [], 0
    while at < len(TEXT):
        n = rng.randint(2, 12)
        out.append(TEXT[at:at + n])
        at += n
    return tuple(out)


DELTAS = _deltas()
ITEMS: tuple[dict[str, Any], ...] = (
    {"type": "message_start", "message": {"id": "msg_shapes", "type": "message", "role": "assistant",
                                          "model": "claude-sonnet-4-5", "content": [], "stop_reason": None,
                                          "usage": {"input_tokens": 900, "output_tokens": 1}}},
    {"type": "content_block_start", "index": 0,
     "content_block": {"type": "tool_use", "id": "toolu_shapes", "name": "edit_file", "input": {}}},
    *({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": d}}
      for d in DELTAS),
    {"type": "content_block_stop", "index": 0},
    {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 4000}},
    {"type": "message_stop"},
)


def _fragments() -> list[Any]:
    parser = IncrementalArgParser(flat=True, catch_duplicate_keys=True)
    out: list[Any] = []
    for delta in DELTAS:
        out += parser.push(delta)
    return out + parser.finish()


FRAGMENTS = _fragments()


def wire_dicts() -> Any:
    out = None
    for item in iter_tool_stream(ITEMS, "anthropic"):
        if type(item) is ToolCallFinished:
            out = item.arguments
    return out


def aggregate(cls: Any) -> Any:
    agg = cls()
    push = agg.push
    for fragment in FRAGMENTS:
        push(fragment)
    return agg.value


CASES = {
    "parser": (lambda: parser_alone(DELTAS), lambda n: n == len(FRAGMENTS)),
    "wire-dicts": (wire_dicts, lambda value: value == ARGUMENTS),
    "aggregator": (lambda: aggregate(FragmentAggregatorC), lambda value: value == ARGUMENTS),
    "aggregator-twin": (lambda: aggregate(FragmentAggregatorPy), lambda value: value == ARGUMENTS),
}


@pytest.mark.parametrize("impl", list(CASES))
def test_edits_20k(benchmark: Any, impl: str) -> None:
    if impl == "aggregator" and FragmentAggregatorC is None:
        pytest.skip("the compiled core is not in use")
    run, check = CASES[impl]
    assert check(run())
    benchmark.extra_info.update(deltas=len(DELTAS), fragments=len(FRAGMENTS))
    benchmark.group = "shapes edits-20K"
    benchmark(run)
