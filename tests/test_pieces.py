"""A streaming string's pieces are kept compact (``_pieces``): the same text, about its own size held.

A value streamed in token-sized pieces used to be held as one ``str`` per piece until it ended (about
60 bytes each, so a 200 KB ``content`` held 1.8 MB). Every holder now joins the trailing run of short
pieces each time its list's length reaches a multiple of ``PIECES_EVERY``. What is checked here: the
list still joins to the text, both twins leave the same list, what is held is about the text's own
size, and every holder on the product's path (the aggregator, a call's direct appends, the validator's
kept pieces, the builder's text, Responses' sent arguments) compacts.
"""

from __future__ import annotations

import gc
import json
import sys
import tracemalloc
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from argstream import _pieces_py, aggregate, iter_tool_stream
from argstream._pieces_py import PIECES_EVERY, PIECES_LONG, PIECES_RUN
from argstream.fragments import String

try:
    from argstream import _pieces as _pieces_c
except ImportError:  # a pure build
    _pieces_c = None

from conftest import REQUIRE_EXTENSION

if _pieces_c is None and REQUIRE_EXTENSION:
    raise RuntimeError("ARGSTREAM_REQUIRE_EXTENSION is set but the compiled _pieces is missing")

COMPACTS: list[tuple[str, Callable[[list[Any]], None]]] = [("python", _pieces_py.compact_pieces)]
if _pieces_c is not None:
    COMPACTS.append(("cython", _pieces_c.compact))


def keep(pieces: list[Any], text: Any, compact: Callable[[list[Any]], None]) -> None:
    """What every holder does with a piece."""
    pieces.append(text)
    if not len(pieces) & (PIECES_EVERY - 1):
        compact(pieces)


def held(pieces: list[str]) -> int:
    return sys.getsizeof(pieces) + sum(sys.getsizeof(p) for p in pieces)


piece_text = st.one_of(
    st.text(max_size=12),
    st.text(alphabet="é€😀", max_size=3),
    st.builds(lambda n: "L" * n, st.integers(PIECES_LONG - 2, PIECES_LONG + 2)),
)


@pytest.mark.parametrize("name,compact", COMPACTS, ids=[n for n, _ in COMPACTS])
@given(st.lists(piece_text, max_size=1500), st.data())
def test_the_pieces_join_to_the_same_text(name, compact, texts, data):
    pieces: list[Any] = []
    for i, text in enumerate(texts):
        keep(pieces, text, compact)
        if data.draw(st.integers(0, 400)) == 0:  # a snapshot joins the open string in place
            pieces[:] = ["".join(pieces)] if pieces else []
        assert "".join(pieces) == "".join(texts[: i + 1])


@pytest.mark.skipif(_pieces_c is None, reason="the compiled core is not built")
@given(st.lists(piece_text, max_size=1500))
def test_both_twins_leave_the_same_list(texts):
    lists: list[list[Any]] = [[], []]
    for text in texts:
        keep(lists[0], text, _pieces_py.compact_pieces)
        keep(lists[1], text, _pieces_c.compact)
        assert lists[0] == lists[1]


@pytest.mark.parametrize("name,compact", COMPACTS, ids=[n for n, _ in COMPACTS])
def test_an_entry_that_is_not_a_str_ends_the_run(name, compact):
    """A holder's list only ever gets ``str``; anything else is left where it is, never joined."""
    class Odd(str):
        pass

    pieces: list[Any] = ["a"] * 10 + [Odd("b")] + ["c"] * (PIECES_EVERY - 11)
    compact(pieces)
    assert pieces[:11] == ["a"] * 10 + ["b"] and type(pieces[10]) is Odd
    assert pieces[11:] == ["c" * (PIECES_EVERY - 11)]
    short = ["x"] * (PIECES_RUN - 1)
    compact(short)  # a run too short to be worth a join
    assert short == ["x"] * (PIECES_RUN - 1)


@pytest.mark.parametrize("name,compact", COMPACTS, ids=[n for n, _ in COMPACTS])
@pytest.mark.parametrize("width", [1, 2, 7])
def test_what_is_held_is_about_the_text_itself(name, compact, width):
    pieces: list[str] = []
    texts = [format(i % 10**width, f"0{width}d") for i in range(100_000)]
    for text in texts:
        keep(pieces, text, compact)
    whole = "".join(texts)
    assert "".join(pieces) == whole
    assert len(pieces) <= PIECES_EVERY + PIECES_RUN + len(whole) // PIECES_LONG + 1
    assert held(pieces) < 1.2 * sys.getsizeof(whole) + 64 * 1024


@pytest.mark.parametrize("name,compact", COMPACTS, ids=[n for n, _ in COMPACTS])
def test_short_pieces_stranded_between_long_ones_stay_bounded(name, compact):
    """The worst a stream can do: a long piece after each run too short to join. Those runs are left,
    so this holds more than the text, but a bounded multiple of it, not ~60 bytes a character."""
    pieces: list[str] = []
    total = 0
    for _ in range(200):
        for _ in range(PIECES_RUN - 1):
            keep(pieces, "s", compact)
        keep(pieces, "L" * PIECES_LONG, compact)
        total += PIECES_RUN - 1 + PIECES_LONG
    assert held(pieces) < 3 * total


# -- the holders on the product's path -------------------------------------------------------------

CONTENT = "".join(format(i, "x") + (" é" if i % 997 == 0 else " ") for i in range(30_000))


def token_cuts(text: str) -> list[str]:
    """``text`` in token-sized pieces (2-9 characters), as a model streams it."""
    out, i, k = [], 0, 0
    while i < len(text):
        n = 2 + k % 8
        out.append(text[i : i + n])
        i, k = i + n, k + 1
    return out


def anthropic_events(arguments: str) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": {"id": "msg_1", "role": "assistant", "content": [], "model": "m"}},
        {"type": "content_block_start", "index": 0,
         "content_block": {"type": "tool_use", "id": "toolu_1", "name": "write", "input": {}}},
    ]
    for piece in token_cuts(arguments):
        events.append({"type": "content_block_delta", "index": 0,
                       "delta": {"type": "input_json_delta", "partial_json": piece}})
    events += [{"type": "content_block_stop", "index": 0},
               {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 1}},
               {"type": "message_stop"}]
    return events


def responses_events(arguments: str) -> list[dict[str, Any]]:
    item = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "write", "arguments": ""}
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": {"id": "resp_1"}},
        {"type": "response.output_item.added", "output_index": 0, "item": item},
    ]
    for piece in token_cuts(arguments):
        events.append({"type": "response.function_call_arguments.delta", "output_index": 0, "item_id": "fc_1",
                       "delta": piece})
    events += [{"type": "response.function_call_arguments.done", "output_index": 0, "item_id": "fc_1",
                "arguments": arguments},
               {"type": "response.output_item.done", "output_index": 0, "item": {**item, "arguments": arguments}},
               {"type": "response.completed", "response": {"id": "resp_1", "status": "completed"}}]
    return events


def held_while_streaming(events: list[Any], provider: str, **kwargs: Any) -> tuple[int, Any]:
    """Memory traced when all but the last six events have been read, less before; and the final
    arguments."""
    measured: list[int] = []

    def source():
        gc.collect()
        base = tracemalloc.get_traced_memory()[0]
        for n, event in enumerate(events):
            if n == len(events) - 6:
                gc.collect()
                measured.append(tracemalloc.get_traced_memory()[0] - base)
            yield event

    final = None
    tracemalloc.start()
    try:
        for item in iter_tool_stream(source(), provider, **kwargs):
            if type(item).__name__ == "ToolCallFinished":
                final = item.arguments
    finally:
        tracemalloc.stop()
    return measured[0], final


@pytest.mark.slow
@pytest.mark.parametrize("provider,make", [("anthropic", anthropic_events), ("openai_responses", responses_events)])
@pytest.mark.parametrize("tools", [False, True], ids=["plain", "tools"])
def test_a_long_string_streamed_in_tokens_holds_about_its_size(provider, make, tools):
    arguments = json.dumps({"path": "a.txt", "content": CONTENT})
    kwargs: dict[str, Any] = {}
    if tools:  # the validator keeps the pieces too, for its pattern
        kwargs["tools"] = [{"name": "write", "input_schema": {"type": "object", "properties": {
            "path": {"type": "string"}, "content": {"type": "string", "pattern": "^[0-9a-f é]*$"}}}}]
    size, final = held_while_streaming(make(arguments), provider, **kwargs)
    assert final == {"path": "a.txt", "content": CONTENT}
    value = sys.getsizeof(CONTENT)
    # the value itself, plus Responses' sent text (kept to compare with ``.done``), plus the validator's
    # pieces with ``tools=``; one str a piece would be 10x the value
    copies = 1 + (provider == "openai_responses") + tools
    assert size < copies * 1.3 * value + 256 * 1024, (size, value)


@pytest.mark.parametrize("twin", ["C", "Py"])
def test_the_aggregator_compacts_a_long_string(twin):
    cls = getattr(aggregate, f"FragmentAggregator{twin}")
    if cls is None:
        pytest.skip("the compiled core is not in use")
    agg = cls()
    pieces = token_cuts(CONTENT)
    for piece in pieces:
        agg.push(((), String(piece)))
    assert len(agg.open_pieces()) <= PIECES_EVERY + PIECES_RUN + len(CONTENT) // PIECES_LONG + 1
    assert agg.snapshot() == CONTENT


def test_the_builders_text_compacts():
    from argstream.builder import EventBuilder
    from argstream.events import Message

    builder = EventBuilder()
    for piece in token_cuts(CONTENT):
        builder.text_piece(0, piece, Message)
    buffer = builder._buffers[0]
    assert len(buffer.pieces) <= PIECES_EVERY + PIECES_RUN + len(CONTENT) // PIECES_LONG + 1
    assert builder.snapshot(0) == CONTENT
