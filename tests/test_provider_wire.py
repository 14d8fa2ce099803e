"""SSE / NDJSON decoding (argstream.providers.wire) and provider detection (argstream.providers.detect)."""

from __future__ import annotations

import json
import tracemalloc

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


@st.composite
def mixed_line_ends(draw: st.DrawFn, ndjson: bool) -> tuple[str, list]:
    """Events whose lines each end in their own LF, CRLF or CR (as a stream that changes writers might);
    an empty line after a CR never ends in a bare LF, which would make that CR and LF one line end."""
    events = draw(st.lists(st.dictionaries(st.sampled_from(["a", "é", "👋"]), st.text(max_size=6) | st.integers(),
                                           max_size=2), min_size=1, max_size=4))
    lines: list[str] = []
    for event in events:
        if ndjson:
            lines.append(json.dumps(event, ensure_ascii=False))
            continue
        if draw(st.booleans()):
            lines.append(": keep-alive")
        lines += ["event: e", f"data: {json.dumps(event, ensure_ascii=False)}", ""]
    out, last = [], ""
    for line in lines:
        end = draw(st.sampled_from(["\n", "\r\n", "\r"]))
        if last == "\r" and not line and end == "\n":
            end = "\r\n"
        out.append(line + end)
        last = end
    return "".join(out), events


@given(st.booleans().flatmap(mixed_line_ends), st.lists(st.integers(0, 600), max_size=10))
def test_line_ends_mixed_in_one_stream_cut_anywhere(stream: tuple[str, list], cuts: list[int]) -> None:
    text, events = stream
    bounds = [0, *sorted(c for c in cuts if c < len(text)), len(text)]
    assert list(iter_wire(text[a:b] for a, b in zip(bounds, bounds[1:]))) == events
    assert list(iter_wire([text])) == events


@pytest.mark.parametrize("piece", [None, 65536])
@pytest.mark.parametrize("newline", ["\n", "\r\n", "ndjson"])
def test_a_long_event_is_held_in_two_copies_at_most(newline: str, piece: int | None) -> None:
    """Reading a 1 MB event holds its line (or the data sliced from it) and the decoded value, not a third
    copy: each line is let go once read, a line begun in earlier chunks is joined once, and a data line's
    value is sliced once (traced allocations; the chunks themselves are the caller's)."""
    n = 1_000_000
    end = "\n" if newline == "ndjson" else newline
    if newline == "ndjson":
        first, big = json.dumps({"a": 1}) + end, json.dumps({"s": "x" * n}) + end
    else:
        first, big = f"data: {json.dumps({'a': 1})}{end}{end}", f"data: {json.dumps({'s': 'x' * n})}{end}{end}"
    decoder = WireDecoder()
    assert decoder.feed(first) == [{"a": 1}]
    chunks = [big] if piece is None else [big[i:i + piece] for i in range(0, len(big), piece)]
    tracemalloc.start()
    try:
        out = [item for chunk in chunks for item in decoder.feed(chunk)]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert out == [{"s": "x" * n}]
    assert peak < 2.3 * n


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


# -- bytes in, and every character scanned once (issue 22 item 12, issue 18 item 15) -----------------


def _feed_all(chunks: list) -> list:
    decoder = WireDecoder()
    out = []
    for chunk in chunks:
        out += decoder.feed(chunk)
    return out + decoder.close()


@given(st.data())
def test_bytes_cut_anywhere_decode_like_the_text(data: st.DataObject) -> None:
    """UTF-8 bytes as an HTTP client reads them: a character split across reads is kept until whole."""
    events = [{"text": data.draw(st.text(max_size=12))}, {"emoji": "👋 wörld 世界", "crlf": "a\r\nb"}]
    newline = data.draw(st.sampled_from(["\n", "\r\n", "\r"]))
    raw = sse(events, newline).encode("utf-8")
    cuts = sorted(data.draw(st.lists(st.integers(0, len(raw)), max_size=8)))
    pieces = [raw[a:b] for a, b in zip([0, *cuts], [*cuts, len(raw)])]
    kinds = data.draw(st.sampled_from([bytes, bytearray, memoryview]))
    assert _feed_all([kinds(p) for p in pieces]) == events


def test_bytes_one_at_a_time_and_iter_wire_takes_bytes() -> None:
    raw = sse(EVENTS + [{"é": "👋"}], "\r\n").encode("utf-8")
    assert _feed_all([raw[i:i + 1] for i in range(len(raw))]) == EVENTS + [{"é": "👋"}]
    assert list(iter_wire([raw[:7], raw[7:]])) == EVENTS + [{"é": "👋"}]


def test_bytes_that_are_not_utf8_or_end_inside_a_character_are_a_protocol_error() -> None:
    decoder = WireDecoder()
    assert decoder.feed(b'data: {"a": 1}\n\n') == [{"a": 1}]
    with pytest.raises(ProviderProtocolError, match="line 3 is not UTF-8 text"):
        decoder.feed(b'data: {"a": "\xff"}\n\n')
    decoder = WireDecoder()
    decoder.feed('data: {"a": "'.encode() + "👋".encode()[:2])
    with pytest.raises(ProviderProtocolError, match="ends inside a UTF-8 character"):
        decoder.close()


def test_a_chunk_of_another_type_is_a_clear_type_error() -> None:
    with pytest.raises(TypeError, match="str or UTF-8 bytes, not int"):
        WireDecoder().feed(42)  # type: ignore[arg-type]


class _CountingPattern:
    """Stands in for the line-ending pattern and counts the characters each scan is given."""

    def __init__(self, pattern) -> None:
        self.pattern = pattern
        self.scanned = 0

    def finditer(self, text: str, pos: int = 0):
        self.scanned += len(text) - pos
        return self.pattern.finditer(text, pos)


@pytest.mark.parametrize("size", [1, 7, 4096])
def test_a_long_line_in_small_chunks_is_scanned_once(monkeypatch, size: int) -> None:
    """Issue 18 item 15: the unfinished line is never rescanned, so a line in n chunks costs O(n)
    (it took seconds: 4 MB in 4 KB chunks, 256 KB in 1-character chunks)."""
    from argstream.providers import wire

    counter = _CountingPattern(wire._NEWLINE)
    monkeypatch.setattr(wire, "_NEWLINE", counter)
    text = "data: " + json.dumps({"content": "x" * 50_000}) + "\n\n"
    decoder = WireDecoder()
    out = []
    for start in range(0, len(text), size):
        out += decoder.feed(text[start:start + size])
    assert out + decoder.close() == [{"content": "x" * 50_000}]
    assert counter.scanned <= len(text)  # (pieces without a line ending are not even given to the pattern)


def test_a_cr_at_the_end_of_a_chunk_ends_its_line_at_once() -> None:
    decoder = WireDecoder()
    assert decoder.feed('{"a": 1}\r') == [{"a": 1}]  # NDJSON: the line is complete at its CR
    assert decoder.feed('\n{"b": 2}\r\n') == [{"b": 2}]  # the LF completing that CRLF is no blank line
    assert decoder.close() == []


def test_the_line_limit_holds_across_chunks() -> None:
    decoder = WireDecoder(max_event=10)
    decoder.feed("data: 12")
    with pytest.raises(ProviderProtocolError, match="longer than 10"):
        decoder.feed("345678")


@pytest.mark.parametrize("text", ['\ufeffdata: {"a": 1}\n\n', '\ufeff{"a": 1}\n'])
def test_a_byte_order_mark_opening_the_stream_is_ignored(text: str) -> None:
    assert read_wire(text) == [{"a": 1}]
    assert _feed_all([b"\xef", b"\xbb", text.encode("utf-8")[2:]]) == [{"a": 1}]
    with pytest.raises(ProviderProtocolError):
        read_wire('{"a": 1}\n\ufeff{"b": 2}\n')  # only at the very start
