"""``PipelineBase.items``, what ``iter_tool_stream`` yields from: the compiled iterator object
(``_calls.PipelineItems``) gives the items of its pure twin (``_calls_py.PipelineBase.items``, a
generator) for random provider streams, stops where the twin stops (a stream ended by an error event,
an exhausted iterator) and raises what the twin raises, after the same items (a protocol error, the
wire iterator's own failure)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_pipeline_fastpath import MODULES, STREAMS, canon, json_values, mutate

from argstream import EventBuilder, _backend, _calls_py
from argstream.stream import StreamPipeline, ToolStreamState

pytestmark = pytest.mark.skipif(_backend.calls_c is None, reason="the compiled pipeline is not in use")


class Failed(Exception):
    """The wire iterator's read failed."""


def reading(items: list[Any], fail_at: int | None) -> Any:
    for n, item in enumerate(items):
        if n == fail_at:
            raise Failed(n)
        yield item


def stepping(pipeline: StreamPipeline, wire: Any, twin: bool) -> Any:
    """The async driver's loop, without the event loop: each wire item's ``step``, a lone item as
    itself, a list item by item, stopping when the stream is over."""
    step = (lambda item: _calls_py.PipelineBase.step(pipeline, item)) if twin else pipeline.step
    for item in wire:
        out = step(item)
        if type(out) is not list:
            yield out
            continue
        yield from out
        if pipeline.over:
            return


def drain(fmt: str, items: list[Any], twin: bool, make_parser: Any, fail_at: int | None,
          steps: bool = False) -> list[Any]:
    factory = (lambda: EventBuilder(parser_factory=lambda: make_parser(catch_duplicate_keys=True, max_depth=64,
                                                                      flat=True)))
    pipeline = StreamPipeline(MODULES[fmt].adapter(), ToolStreamState(factory))
    wire = reading(items, fail_at)
    if steps:
        source = stepping(pipeline, wire, twin)
    else:
        source = _calls_py.PipelineBase.items(pipeline, wire) if twin else pipeline.items(wire)
    out: list[Any] = []
    try:
        for item in source:
            out.append(canon(item))
    except Exception as exc:  # noqa: BLE001 - the same error either way
        out.append(("raised", type(exc).__name__, str(exc)))
    try:  # where the pipeline stopped reading: the wire's next item, which may be the failing one
        rest = next(wire, "exhausted") if not pipeline.over else None
    except Failed as exc:
        rest = ("failed", exc.args)
    out.append(("over", pipeline.over, pipeline.count, rest))
    return out


@pytest.mark.parametrize("fmt", sorted(STREAMS))
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(responses=st.lists(st.lists(st.one_of(st.none(), st.dictionaries(st.text(max_size=4), json_values,
                                                                        max_size=3)), min_size=1, max_size=3),
                          min_size=1, max_size=2),
       seed=st.integers(0, 2**32), mutated=st.booleans(), fail_at=st.none() | st.integers(0, 80),
       error_at=st.none() | st.integers(0, 80))
def test_the_iterator_gives_the_twins_items(fmt: str, responses: list[list[Any]], seed: int, mutated: bool,
                                            fail_at: int | None, error_at: int | None, make_parser: Any) -> None:
    rng = random.Random(seed)
    items = STREAMS[fmt](responses, rng)
    if mutated:
        items = mutate(items, rng)
    if error_at is not None and error_at <= len(items):  # an error event: the stream is over there
        items.insert(error_at, {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
                     if fmt == "anthropic" else {"type": "error", "code": "server_error", "message": "Overloaded"}
                     if fmt == "openai_responses" else {"error": {"message": "Overloaded", "type": "server_error"}})
    expected = drain(fmt, items, True, make_parser, fail_at)
    assert drain(fmt, items, False, make_parser, fail_at) == expected
    assert drain(fmt, items, False, make_parser, fail_at, steps=True) == expected  # the async loop's way
    assert drain(fmt, items, True, make_parser, fail_at, steps=True) == expected


def test_step_gives_a_lone_item_as_itself_and_a_list_otherwise() -> None:
    rng = random.Random(7)
    items = STREAMS["anthropic"]([[{"path": "src/a"}]], rng)
    for twin in (False, True):
        pipeline = StreamPipeline(MODULES["anthropic"].adapter(), ToolStreamState())
        step = (lambda item, p=pipeline: _calls_py.PipelineBase.step(p, item)) if twin else pipeline.step
        shapes = [type(step(item)) is list for item in items]
        assert shapes[0] and not all(shapes)  # the stream's start gives no item; an argument delta gives one
        assert not pipeline.over


def test_an_iterator_that_is_not_a_list_and_an_empty_one(make_parser: Any) -> None:
    rng = random.Random(5)
    items = STREAMS["anthropic"]([[{"path": "src/a", "content": "x" * 50}]], rng)
    assert drain("anthropic", items, False, make_parser, None) == drain("anthropic", items, True, make_parser, None)
    pipeline = StreamPipeline(MODULES["anthropic"].adapter(), ToolStreamState())
    source = pipeline.items(iter(()))
    assert iter(source) is source and list(source) == [] and list(source) == []
