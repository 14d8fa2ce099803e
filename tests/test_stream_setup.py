"""What a stream makes once, made the short way: each the same as the long way it replaces.

Every stream makes a pipeline, a stream state and an adapter, and every tool call a parser and an
``ArgumentCall``; those are made without keyword parsing, attribute probes or pickers in between
(the fixed cost of a short call). These tests hold each short way to the long one, on both backends.
"""

from __future__ import annotations

import json

import pytest

from argstream import _backend, _calls_py, _parser_py, iter_tool_stream
from argstream.builder import TOOL_MAX_DEPTH, EventBuilder, _strict_parser, _strict_parser_with_spans
from argstream.errors import ArgumentStreamError
from argstream.providers import gemini
from argstream.stream import StreamPipeline, ToolStreamState, _Run, _report, pipeline_for

try:
    from argstream import _parser as _parser_c
except ImportError:  # pragma: no cover - a pure build
    _parser_c = None

TEXTS = [
    '{"a": 1, "b": [true, null, "x\\u00e9"], "c": {"d": -2.5e3}}',
    '{"a": 1, "a": 2}',  # a duplicate key: caught
    '{"a": ' + "[" * 70 + "]" * 70 + "}",  # deeper than TOOL_MAX_DEPTH
    '{"s": "\\ud83d\\ude00 \\ud800 tail"}',
    '{"a": 1} {"b": 2}',
    '["not", "an", "object"]',
]


def _strict_modules(backend: str):
    if backend == "cython":
        if _parser_c is None:
            pytest.skip("no compiled core")
        return _parser_c.StrictParsers, _parser_c.IncrementalArgParser
    return _parser_py.StrictParsers, _parser_py.IncrementalArgParser


def _run(parser, text: str, cut: int):
    """The fragments, spans, keys and error of ``text`` pushed in pieces of ``cut`` characters, then finished."""
    out: list = []
    try:
        for start in range(0, len(text), cut):
            out.append(("push", parser.push(text[start:start + cut]), parser.spans, parser.keys))
        out.append(("finish", parser.finish(), parser.spans, parser.keys))
    except ArgumentStreamError as exc:
        out.append(("error", type(exc).__name__, exc.pos, getattr(exc, "fragments", None)))
    return out


@pytest.mark.parametrize("spans", [False, True])
@pytest.mark.parametrize("text", TEXTS)
@pytest.mark.parametrize("cut", [1, 3, 1000])
def test_strict_parsers_make_the_parser_their_keywords_would(backend: str, spans: bool, text: str, cut: int) -> None:
    StrictParsers, Parser = _strict_modules(backend)
    made = StrictParsers(TOOL_MAX_DEPTH, spans=spans)()
    assert type(made) is Parser
    long_way = Parser(max_depth=TOOL_MAX_DEPTH, flat=True, catch_duplicate_keys=True, spans=spans)
    assert (made.flat, made.lenient, made.max_depth) == (True, False, TOOL_MAX_DEPTH)
    assert _run(made, text, cut) == _run(long_way, text, cut)


def test_strict_parsers_refuse_a_bad_depth_and_make_a_new_parser_each_call(backend: str) -> None:
    StrictParsers, _ = _strict_modules(backend)
    for bad in (0, -1, 1.5, "64", None, True):
        with pytest.raises(ValueError):
            StrictParsers(bad)
    make = StrictParsers(3)
    one, two = make(), make()
    assert one is not two
    one.push('{"a": ')
    assert two.push("[1]") and two.done and not one.done  # nothing shared between them
    with pytest.raises(ArgumentStreamError):
        make().push("[[[[1]]]]")  # max_depth 3
    assert "StrictParsers(3" in repr(make)


def test_the_builder_makes_each_call_a_parser_of_the_selected_backend() -> None:
    assert type(_strict_parser()) is _backend.IncrementalArgParser
    assert _strict_parser().spans is None and _strict_parser_with_spans().spans is not None


def test_a_compiled_call_reads_its_parser_as_the_general_reads_do() -> None:
    """``ArgumentCall`` takes the compiled parser's flags from its fields; any other parser by attribute."""
    if _backend.calls_c is None:
        pytest.skip("no compiled core")
    from argstream._aggregate import FragmentAggregator

    Call, Progress = _backend.calls_c.ArgumentCall, _backend.calls_c.ToolCallArgumentProgress
    makers = [
        lambda m: m.IncrementalArgParser(flat=True),
        lambda m: m.IncrementalArgParser(),
        lambda m: m.IncrementalArgParser(flat=True, lenient=True),
        lambda m: m.IncrementalArgParser(max_depth=2, flat=True),
    ]
    text = '{"a": [1, "two"], "b": {"c": null}, "d": {tru'
    for make in makers:
        for module in (_parser_c, _parser_py):
            calls = [Call(make(module), FragmentAggregator(), Progress, 0),
                     _calls_py.ArgumentCall(make(module), FragmentAggregator(), _calls_py.ToolCallArgumentProgress, 0)]
            got = []
            for call in calls:
                items = call.push(text[:9]) + call.push(text[9:])
                got.append(([(item.path, item.leaf) for item in items], call.flat, call.twin, call.lenient,
                            type(call.error).__name__, call.aggregator.snapshot()))
            assert got[0] == got[1]
    unset = _parser_c.IncrementalArgParser.__new__(_parser_c.IncrementalArgParser)
    with pytest.raises(TypeError):  # an uninitialised parser says so, as its ``flat`` always has
        Call(unset, FragmentAggregator(), Progress, 0)


def test_a_reused_fragment_builder_starts_clean() -> None:
    if _backend.core is None:
        pytest.skip("no compiled core")
    from argstream._fragment_builder import FragmentBuilder

    builder = FragmentBuilder(True)
    builder.out.append("left over")
    builder.__init__(True)
    assert builder.out == []


@pytest.mark.parametrize("first", [
    {"candidates": [{"content": {"parts": [{"text": "hi"}]}}]},
    {"event_type": "content.delta", "delta": {"type": "text", "text": "hi"}},
    {"event_type": None, "candidates": []},
    "not an item",
    None,
])
def test_gemini_adapter_for_is_the_pickers_choice(first) -> None:
    picked = gemini.adapter().for_item(first)
    made = gemini.adapter_for(first)
    assert type(made) is type(picked)
    assert made is not gemini.adapter_for(first)  # a new one each stream


def _fields(pipeline: StreamPipeline) -> dict:
    names = ("_chunk", "_text_chunk", "_call_chunk", "count", "over")
    out = {name: getattr(pipeline, name) for name in names}
    out["run"] = type(pipeline._run)
    out["state"] = pipeline.state
    out["calls"] = pipeline._calls
    out["report"] = pipeline._report
    return out


class _OwnParts(EventBuilder):
    def handle_part(self, index, part, metadata={}):  # noqa: B006 - the base's signature
        return super().handle_part(index, part, metadata)


@pytest.mark.parametrize("factory", [EventBuilder, _OwnParts])
@pytest.mark.parametrize("text_tool_calls", [None, "auto"])
def test_the_pipeline_is_wired_to_its_adapter_and_state(factory, text_tool_calls) -> None:
    state = ToolStreamState(factory, text_tool_calls=text_tool_calls)
    adapter = gemini.adapter_for({"candidates": []})
    pipeline = StreamPipeline(adapter, state)
    fields = _fields(pipeline)
    assert fields["run"] is _Run and pipeline._run.adapter is adapter
    assert fields["state"] is state and fields["calls"] is state.builder.calls and fields["report"] is _report
    assert fields["count"] == 0 and fields["over"] is False
    assert fields["_chunk"] == adapter.chunk
    own = factory is EventBuilder
    assert (fields["_text_chunk"] == adapter.text_chunk) is own
    assert (fields["_call_chunk"] == adapter.call_chunk) is own
    if not own:
        assert fields["_text_chunk"] is None and fields["_call_chunk"] is None
    expected_feed = state.feed if text_tool_calls else state._feed_one
    assert pipeline._feed == expected_feed


def test_options_still_reach_a_module_with_a_picker() -> None:
    """``provider_options`` go to ``adapter(...)`` as before (Gemini's takes none: the error says so)."""
    state = ToolStreamState()
    with pytest.raises(TypeError):
        pipeline_for("gemini", {"candidates": []}, state, {"structured": True})
    item = {"candidates": [{"content": {"parts": [{"text": "hi"}]}, "finishReason": "STOP"}]}
    kinds = [type(x).__name__ for x in iter_tool_stream([item], "gemini")]
    assert kinds == ["TextDelta", "StreamFinished"]
