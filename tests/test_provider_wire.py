"""SSE / NDJSON decoding (argstream.providers.wire) and provider detection (argstream.providers.detect)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from argstream.providers import ProviderProtocolError
from argstream.providers.detect import detect_provider
from argstream.providers.wire import WireDecoder, iter_wire, read_wire

from _provider_runs import FOLDERS, expected_of

EVENTS = [{"type": "message_start", "n": 1}, {"type": "ping"}, {"a": "x\ny", "b": [1, 2]}]


def sse(events: list, newline: str = "\n") -> str:
    return "".join(f"event: e{newline}data: {json.dumps(e)}{newline}{newline}" for e in events)


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_sse_with_every_line_ending(newline: str) -> None:
    assert read_wire(sse(EVENTS, newline) + f"data: [DONE]{newline}{newline}") == EVENTS


def test_a_data_field_over_several_lines_is_one_event() -> None:
    # issue 9 item 9: the SSE spec joins an event's data lines with "\n"
    text = 'event: message_start\ndata: {"type": "message_start",\ndata:  "n": 1}\n\n: keep-alive\nid: 7\nretry: 10\n\n'
    assert read_wire(text) == [{"type": "message_start", "n": 1}]


def test_ndjson_and_blank_lines() -> None:
    assert read_wire("\n" + "\n\n".join(json.dumps(e) for e in EVENTS)) == EVENTS


def test_leniencies_last_event_without_blank_line_and_missing_blank_lines() -> None:
    assert read_wire(f"data: {json.dumps(EVENTS[0])}") == EVENTS[:1]
    assert read_wire("".join(f"data: {json.dumps(e)}\n" for e in EVENTS)) == EVENTS
    assert read_wire('data: {"a": 1}\n\n{"error": "overloaded"}\n') == [{"a": 1}, {"error": "overloaded"}]


@pytest.mark.parametrize("text", ["data: {not json\n\n", "{not json}\n", "data: [1,\n\n"])
def test_text_that_is_not_json_is_the_documented_error(text: str) -> None:
    with pytest.raises(ProviderProtocolError, match="line 1"):
        read_wire(text)


def test_memory_is_bounded_per_line_and_per_event() -> None:
    decoder = WireDecoder(max_event=100)
    with pytest.raises(ProviderProtocolError, match="longer than 100"):
        decoder.feed("data: " + "x" * 200)
    decoder = WireDecoder(max_event=100)
    with pytest.raises(ProviderProtocolError, match="longer than 100"):
        for _ in range(20):
            decoder.feed("data: " + "x" * 10 + "\n")


def test_lines_as_given_by_iter_lines() -> None:
    decoder = WireDecoder()
    out = []
    for line in sse(EVENTS).split("\n"):
        out += decoder.feed_line(line)
    assert out + decoder.close() == EVENTS


@given(st.lists(st.integers(0, 400), max_size=8), st.sampled_from(["\n", "\r\n", "\r"]))
def test_any_chunking_gives_the_same_items(cuts: list[int], newline: str) -> None:
    text = sse(EVENTS, newline) + "data: [DONE]" + newline + newline
    bounds = [0, *sorted(c for c in cuts if c < len(text)), len(text)]
    assert list(iter_wire(text[a:b] for a, b in zip(bounds, bounds[1:]))) == EVENTS


def every_first_item() -> list:
    out = []
    for folder in FOLDERS:
        expected = expected_of(folder)
        for key, entry in sorted(expected.items()):
            lines = (folder / key).read_text(encoding="utf-8").split("\n")
            skip = set(entry.get("lines_not_json") or ())
            first = read_wire("\n".join(line for n, line in enumerate(lines, 1) if n not in skip))[0]
            out.append(pytest.param(first, entry["format"], id=key))
    return out or [pytest.param(None, None, marks=pytest.mark.skip("no recordings"))]


@pytest.mark.parametrize(("item", "fmt"), every_first_item())
def test_every_recording_is_detected_from_its_first_item(item: dict, fmt: str) -> None:
    # issue 9 item 9: the Interactions API stream (event_type) included
    assert detect_provider(item) == fmt


@pytest.mark.parametrize("item", [{}, {"type": 5}, "text", 3, [1], {"message": "m"}])
def test_an_unknown_item_is_a_value_error(item: object) -> None:
    with pytest.raises(ValueError):
        detect_provider(item)
