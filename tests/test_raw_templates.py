"""Raw input read by event templates (``providers.templates``, ``raw.RawReader``): an event that fits a
learned template gives exactly what decoding it would, and anything else is decoded.

The soundness property: whenever a template reads an event's text, ``json.loads`` of that text is the
learned event with the read text (and other free values) in the holes. Hostile lines (a key written
twice, structure smuggled into the argument string, other spacing, escapes in a free field) either
fit with that meaning or are decoded; a stream gives the same items raw as from its decoded events.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from argstream import FinishReason, _backend, iter_tool_stream
from argstream.providers import templates
from argstream.providers.templates import learn
from argstream.providers.wire import iter_wire
from argstream.raw import RawReader

from _provider_runs import FOLDERS, expected_of
from test_pipeline_fastpath import canon
from test_raw_input import anthropic_sse, cut


@pytest.fixture(autouse=True, params=["cython", "python"])
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every test over the compiled template and SSE lane, and over the pure path."""
    if request.param == "cython":
        if _backend.raw_c is None:
            pytest.skip("the compiled core is not in use")
    else:
        monkeypatch.setattr(templates, "_TEMPLATE", templates.EventTemplate)
        monkeypatch.setattr(RawReader, "lane", None)
    return str(request.param)


ANTHROPIC = ("delta", "partial_json")
CHAT = ("choices", 0, "delta", "tool_calls", 0, "function", "arguments")
RESPONSES = ("delta",)


def anthropic_event(text: str, index: int = 0) -> str:
    return json.dumps({"type": "content_block_delta", "index": index,
                       "delta": {"type": "input_json_delta", "partial_json": text}}, separators=(",", ":"))


def responses_event(text: str, number: int = 7, pad: str = "aZ09") -> str:
    return json.dumps({"type": "response.function_call_arguments.delta", "sequence_number": number,
                       "item_id": "fc_1", "output_index": 0, "delta": text, "obfuscation": pad},
                      separators=(",", ":"))


def chat_event(text: str) -> str:
    return json.dumps({"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
                       "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": text}}]},
                                    "finish_reason": None}]}, separators=(",", ":"))


def template_of(line: str, path: tuple[Any, ...], free: tuple[str, ...] = ()) -> Any:
    template = learn(line, json.loads(line), path, free)
    assert template is not None
    return template


def at(value: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        value = value[step]
    return value


def agrees(template: Any, line: str, path: tuple[Any, ...], free: tuple[str, ...] = ()) -> None:
    """What the template reads of ``line`` is what decoding it says, or nothing."""
    text = template.match(line)
    if text is None:
        return
    value = json.loads(line)  # a fit is valid JSON
    assert at(value, path) == text and type(at(value, path)) is str
    for name in free:
        value.pop(name, None)
    item = dict(template.item)
    for name in free:
        item.pop(name, None)
    expected = json.loads(json.dumps(item))
    node = expected
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = text
    assert value == expected


@pytest.mark.parametrize("text", ["a", "{\"path\": \"src/", "é☃🎉", "\\n\t\"", "\ud83d", "", " "])
def test_a_fit_reads_the_decoded_text(text: str) -> None:
    template = template_of(anthropic_event("seed"), ANTHROPIC)
    assert template.match(anthropic_event(text)) == text
    responses = template_of(responses_event("seed"), RESPONSES, ("sequence_number", "obfuscation"))
    assert responses.match(responses_event(text, number=123456, pad="")) == text
    chat = template_of(chat_event("seed"), CHAT, ("obfuscation",))
    assert chat.match(chat_event(text)) == text


HOSTILE = [
    # a key written twice: decoding keeps the last, a template must not read the first
    '{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"a","partial_json":"b"}}',
    # structure after the string that changes the call the event is for
    '{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"a"},"index":1}',
    '{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"a"}} ',
    '{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"a\\"}}',
    '{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"a\x01"}}',
    '{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"\\x"}}',
    '{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"a\\ud83d"}}',
    '{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"a"}}',
    '{"type":"content_block_delta", "index":0,"delta":{"type":"input_json_delta","partial_json":"a"}}',
    '{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":1}}',
]


@pytest.mark.parametrize("line", HOSTILE)
def test_hostile_lines_fit_only_with_their_decoded_meaning(line: str) -> None:
    template = template_of(anthropic_event("seed"), ANTHROPIC)
    agrees(template, line, ANTHROPIC)
    if '"partial_json":"b"' in line or '"index":1' in line or "\x01" in line or "\\x" in line:
        assert template.match(line) is None


def test_free_fields_take_plain_tokens_only() -> None:
    free = ("sequence_number", "obfuscation")
    template = template_of(responses_event("seed"), RESPONSES, free)
    line = responses_event("x")
    assert template.match(line.replace('"sequence_number":7', '"sequence_number":1.5')) is None
    assert template.match(line.replace('"sequence_number":7', '"sequence_number":"7"')) is None
    assert template.match(line.replace('"sequence_number":7', '"sequence_number":07')) is None
    assert template.match(line.replace('"obfuscation":"aZ09"', '"obfuscation":"a\\"Z"')) is None
    assert template.match(line.replace('"item_id":"fc_1"', '"item_id":"fc_2"')) is None


def test_no_template_when_the_text_key_is_ambiguous() -> None:
    line = '{"type":"content_block_delta","index":0,"x\\"partial_json":"z","delta":{"type":"input_json_delta","partial_json":"a"}}'
    assert learn(line, json.loads(line), ANTHROPIC) is None
    twice = '{"partial_json":"q","type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"a"}}'
    assert learn(twice, json.loads(twice), ANTHROPIC) is None


_JSONISH = st.sampled_from(['"', "\\", ",", ":", "}", "]", "{", "[", " ", '"a":"b"', '\\"', "\\u0041", "\x00", "1", "null"])


@settings(max_examples=300)
@given(text=st.text(max_size=20), where=st.integers(0, 200), insert=st.lists(_JSONISH, max_size=4),
       drop=st.integers(0, 3), kind=st.sampled_from(["anthropic", "responses", "chat"]))
def test_soundness_a_fit_always_means_what_decoding_says(text: str, where: int, insert: list[str], drop: int,
                                                          kind: str) -> None:
    event, path, free = {"anthropic": (anthropic_event, ANTHROPIC, ()),
                         "responses": (responses_event, RESPONSES, ("sequence_number", "obfuscation")),
                         "chat": (chat_event, CHAT, ("obfuscation",))}[kind]
    template = template_of(event("seed"), path, free)
    line = event(text)
    assert template.match(line) == text
    where = min(where, len(line))
    mutated = line[:where] + "".join(insert) + line[where + drop:]
    agrees(template, mutated, path, free)


#: pieces of a JSON string's text: escapes of every kind (surrogate pairs, lone and mismatched halves,
#: bad hex, unknown letters, a backslash at the end), control characters, quotes, text of each width
_STRING_PIECES = st.sampled_from([
    "a", "é", "☃", "🎉", "\ud83d", '"', "\\", "\x00", "\x1f", "\x7f", "\\n", "\\t", '\\"', "\\\\", "\\/",
    "\\b", "\\f", "\\r", "\\u0041", "\\u00e9", "\\u2603", "\\uD83D", "\\ud83d", "\\uDE00", "\\ude00",
    "\\uDBFF", "\\uDFFF", "\\u12", "\\uZZZZ", "\\u12G4", "\\x", "\\U0041", "\\", "\\u", "\\ud83d\\u",
    "\\ud83d\\uZZZZ", "\\ud83d\\u0041", "\\ud83d\\ude00", "\\ud83d\\\\", "0", " ",
])


@settings(max_examples=600)
@given(pieces=st.lists(_STRING_PIECES, max_size=12), cut=st.integers(0, 40),
       tail=st.sampled_from(['"}', '"', "", '"}x']))
def test_the_compiled_string_reader_decodes_as_json_does(pieces: list[str], cut: int, tail: str) -> None:
    """The compiled template reads its text hole in C; the pure one with ``json``'s ``scanstring``.
    Each must give the same text (same characters and the same compact form) or both ``None``."""
    if RawReader.lane is None:
        pytest.skip("compares the compiled reader with the pure one")
    body = "".join(pieces)
    data = '{"d":"' + (body[:-cut] if cut and cut < len(body) else body) + tail
    pure = templates.EventTemplate({}, '{"d":"', ((0, "}"),)).match(data)
    compiled = _backend.raw_c.EventTemplate({}, '{"d":"', ((0, "}"),)).match(data)
    assert compiled == pure
    if pure is not None:
        assert compiled.isascii() == pure.isascii() and max(map(ord, compiled), default=0) == max(
            map(ord, pure), default=0)


@settings(max_examples=300)
@given(number=st.sampled_from(["0", "7", "-1", "123456", "01", "-", "", "1.5", "1e5", " 1", "-0", "٣"]),
       pad=st.lists(_STRING_PIECES, max_size=4), text=st.lists(_STRING_PIECES, max_size=4))
def test_the_compiled_free_holes_read_as_the_pure_ones(number: str, pad: list[str], text: list[str]) -> None:
    """A free integer and a free string hole (a sequence number, a padding string) in C and in Python."""
    if RawReader.lane is None:
        pytest.skip("compares the compiled reader with the pure one")
    rest = ((2, ',"s":"'), (1, ',"d":"'), (0, "}"))
    data = '{"n":' + number + ',"s":"' + "".join(pad) + '","d":"' + "".join(text) + '"}'
    pure = templates.EventTemplate({}, '{"n":', rest).match(data)
    assert _backend.raw_c.EventTemplate({}, '{"n":', rest).match(data) == pure


# -- whole streams: raw text gives the items its decoded events give ------------------------------------


_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**20), 10**20) | st.floats() | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=12)


@settings(max_examples=400)
@given(a=_JSON_VALUES, b=_JSON_VALUES, same=st.booleans())
def test_the_learned_check_tells_values_apart_as_json_does(a: Any, b: Any, same: bool) -> None:
    """``templates._same`` (the compiled compact writer when the core is compiled) says what comparing
    ``json.dumps`` texts says: ``1``, ``1.0`` and ``true`` differ, key order counts, NaN is its text."""
    if same:
        b = json.loads(json.dumps(a))
    assert templates._same(a, b) == (json.dumps(a) == json.dumps(b))


def items_of(chunks: Any, provider: str) -> tuple[list[Any], type | None]:
    """The stream's items as comparable data, and the type of the exception that ended it."""
    out: list[Any] = []
    try:
        for item in iter_tool_stream(chunks, provider):
            out.append(canon(item))
    except Exception as exc:  # noqa: BLE001 - compared below
        return out, type(exc)
    return out, None


def recordings() -> list[tuple[Path, str, str]]:
    found = []
    for folder in FOLDERS:
        for key, expected in sorted(expected_of(folder).items()):
            if isinstance(expected, dict) and expected.get("format") and not expected.get("lines_not_json"):
                found.append((folder, key, expected["format"]))
    return found


@pytest.mark.parametrize("folder,key,fmt", recordings() or [pytest.param(None, None, None, marks=pytest.mark.skip(
    reason="../shared/recordings is absent"))])
@settings(max_examples=3)
@given(sizes=st.lists(st.integers(1, 300), max_size=4))
def test_every_recording_raw_gives_what_its_decoded_events_give(folder: Path, key: str, fmt: str,
                                                                sizes: list[int]) -> None:
    text = (folder / key).read_text(encoding="utf-8")
    assert items_of(cut(text, sizes), fmt) == items_of(iter_wire([text]), fmt)


@settings(max_examples=150)
@given(where=st.integers(0, 10**6), insert=st.lists(_JSONISH, max_size=3), drop=st.integers(0, 2),
       sizes=st.lists(st.integers(1, 200), max_size=4))
def test_a_mutated_delta_mid_stream_gives_what_decoding_gives(where: int, insert: list[str], drop: int,
                                                             sizes: list[int]) -> None:
    lines = anthropic_sse().split("\n")
    deltas = [n for n, line in enumerate(lines) if "input_json_delta" in line]
    n = deltas[len(deltas) // 2 + where % (len(deltas) // 2)]  # after templates are learned
    line = lines[n]
    at_ = 6 + where % (len(line) - 6)
    lines[n] = line[:at_] + "".join(insert) + line[at_ + drop:]
    text = "\n".join(lines)
    raw, raw_error = items_of(cut(text, sizes), "anthropic")
    decoded, decoded_error = items_of(_decoded_events(text), "anthropic")
    assert raw == decoded
    assert (raw_error is None) == (decoded_error is None)


def _decoded_events(text: str) -> Any:
    """The events of ``text`` decoded one line at a time (so none is lost to an error after it)."""
    yield from iter_wire(line + "\n" for line in text.split("\n"))


def test_the_async_twin_reads_raw_recordings_the_same() -> None:
    import asyncio

    from argstream import aiter_tool_stream

    async def body(chunks: list[str]) -> Any:
        for chunk in chunks:
            yield chunk

    async def collect(chunks: list[str], fmt: str) -> tuple[list[Any], type | None]:
        out: list[Any] = []
        try:
            async for item in aiter_tool_stream(body(chunks), fmt):
                out.append(canon(item))
        except Exception as exc:  # noqa: BLE001 - compared below
            return out, type(exc)
        return out, None

    found = recordings()
    if not found:
        pytest.skip("../shared/recordings is absent")
    for folder, key, fmt in found[::5]:
        chunks = cut((folder / key).read_text(encoding="utf-8"), [97])
        assert asyncio.run(collect(chunks, fmt)) == items_of(chunks, fmt), key


def test_the_compiled_lane_reads_the_deltas_of_a_live_stream(backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    decoded, matched = [], []  # the events decoded (the general way), and those offered to the pure templates
    decode, shortcut = RawReader._decode_event, RawReader._shortcut
    monkeypatch.setattr(RawReader, "_decode_event",
                        lambda self, data, lines, out: decoded.append(data) or decode(self, data, lines, out))
    monkeypatch.setattr(RawReader, "_shortcut", lambda self, data, out: matched.append(data) or shortcut(self, data, out))
    whole = anthropic_sse()
    deltas = whole.count("input_json_delta")
    for chunks in ([event + "\n\n" for event in whole.split("\n\n") if event], [whole]):
        decoded.clear()
        matched.clear()
        items, error = items_of(chunks, "anthropic")
        assert error is None and items == items_of(iter_wire([whole]), "anthropic")[0]
        # the first delta teaches the template and is the only one decoded; then the lane reads every other
        # (the pure path: its templates; the lane's events never reach them, but for the first delta
        # where the pure reader reads the chunk that holds it)
        assert sum("input_json_delta" in data for data in decoded) == 1
        offered = sum("input_json_delta" in data for data in matched)
        assert offered <= 1 if backend == "cython" else offered == deltas


# -- the compiled loop (``_raw.RawItems``) against the pure one, event by event, with faults ------------

_FAULTS = ("none", "not-json", "crlf", "cr-split", "not-utf8", "comment", "source-fails", "blank-line", "no-event-line",
           "unknown-event", "ping", "done", "error-event", "after-end", "cr-ends-event", "cr-in-event-line")


def _faulty_stream(fault: str, at: int, as_bytes: bool, sizes: list[int]) -> list[Any]:
    """``anthropic_sse`` one event per chunk (as a live stream arrives; ``sizes`` recuts it), with
    ``fault`` at event ``at`` after the lane has taken over."""
    events = [event + "\n\n" for event in anthropic_sse().split("\n\n") if event]
    k = 3 + at % (len(events) - 7)  # a delta after the first (the lane reads from the second on)
    if fault == "not-json":
        events[k] = "event: content_block_delta\ndata: {nope}\n\n"
    elif fault == "crlf":
        events[k] = events[k].replace("\n", "\r\n")
    elif fault == "cr-split":
        events[k] = events[k][:-1] + "\r"  # the CR ends the event's blank line; the LF opens the next chunk
        events[k + 1] = "\n" + events[k + 1]
    elif fault == "comment":
        events.insert(k, ": keep-alive\n\n")
    elif fault == "blank-line":
        events.insert(k, "\n")
    elif fault == "no-event-line":
        events[k] = events[k].split("\n", 1)[1]
    elif fault == "unknown-event":  # events the lane frames but takes no delta from: read the general way
        events.insert(k, 'event: custom\ndata: {"type": "custom_event", "n": 1}\n\n')
    elif fault == "ping":
        events.insert(k, 'event: ping\ndata: {"type": "ping"}\n\n')
    elif fault == "done":
        events.insert(k, "data: [DONE]\n\n")
    elif fault == "error-event":
        events.insert(k, 'event: error\ndata: {"type": "error", "error": {"type": "overloaded_error", '
                         '"message": "Overloaded"}}\n\n')
    elif fault == "cr-ends-event":  # CRs end the event, then a data-only event: one line up to the next LF for
        events[k] = events[k][:-2] + "\r\r"  # the lane, two events for SSE
        events[k + 1] = events[k + 1].split("\n", 1)[1]
    elif fault == "cr-in-event-line":  # a CR ends the event: line, two data lines follow (the lane sees one)
        first, second = (e.split("\n")[1] for e in events[k:k + 2])
        events[k:k + 2] = [f"event: content_block_delta\r{first}\n{second}\n\n"]
    elif fault == "after-end":  # not JSON, after the stream's end: never read
        events.append("event: content_block_delta\ndata: {nope}\n\n")
    chunks: list[Any] = [e.encode() for e in events] if as_bytes else events
    if fault == "not-utf8":
        chunks = [e.encode() for e in events]
        chunks[k] = chunks[k].replace(b'"partial_json": "', b'"partial_json": "\xff')
    if sizes:
        chunks = cut(b"".join(chunks) if isinstance(chunks[0], bytes) else "".join(chunks), sizes)
    if fault == "source-fails":
        chunks = chunks[:k] + [RuntimeError("the connection dropped")]
    return chunks


def _outcome(chunks: list[Any], run_async: bool) -> tuple[list[Any], Any]:
    """The stream's items and its exception (type and message: the line numbers it names)."""
    from argstream import aiter_tool_stream

    def source() -> Any:
        for chunk in chunks:
            if isinstance(chunk, Exception):
                raise chunk
            yield chunk

    async def asource() -> Any:
        for chunk in source():
            yield chunk

    async def collect() -> tuple[list[Any], Any]:
        out: list[Any] = []
        try:
            async for item in aiter_tool_stream(asource(), "anthropic"):
                out.append(canon(item))
        except Exception as exc:  # noqa: BLE001 - compared below
            return out, (type(exc), str(exc))
        return out, None

    if run_async:
        return asyncio.run(collect())
    out: list[Any] = []
    try:
        for item in iter_tool_stream(source(), "anthropic"):
            out.append(canon(item))
    except Exception as exc:  # noqa: BLE001 - compared below
        return out, (type(exc), str(exc))
    return out, None


@settings(max_examples=120)
@given(fault=st.sampled_from(_FAULTS), at=st.integers(0, 10**6), as_bytes=st.booleans(),
       sizes=st.one_of(st.just([]), st.lists(st.integers(1, 90), min_size=1, max_size=4)), run_async=st.booleans())
def test_the_compiled_loop_gives_what_the_pure_loop_gives(fault: str, at: int, as_bytes: bool, sizes: list[int],
                                                          run_async: bool) -> None:
    """Items, the exception and the line it names: the compiled loop hands the reader what its lane
    does not read (the rest of a chunk, a CR, a split character, bad bytes) and the lines it read."""
    chunks = _faulty_stream(fault, at, as_bytes, sizes)
    got = _outcome(chunks, run_async)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(templates, "_TEMPLATE", templates.EventTemplate)
        patch.setattr(RawReader, "lane", None)
        assert got == _outcome(chunks, run_async)
    if fault in ("none", "crlf", "cr-split", "comment", "blank-line", "no-event-line", "unknown-event", "ping", "done",
                 "cr-ends-event", "cr-in-event-line"):
        assert got[1] is None and got[0][-1][0] == "finished"
    elif fault == "error-event":  # the provider's error ends the stream as one
        assert got[1] is None and got[0][-1][:2] == ("finished", FinishReason.ERROR)
    elif fault == "source-fails":
        assert got[1] == (RuntimeError, "the connection dropped")
    else:
        assert got[1] is not None and "line" in got[1][1]


@pytest.mark.parametrize("fail_at", [5, 40])
@pytest.mark.parametrize("whole", [False, True])
def test_a_chunk_that_raises_mid_lane_keeps_the_items_before_it(fail_at: int, whole: bool) -> None:
    """A user's adapter whose own ``chunk`` raises on its n-th delta: the items of the deltas before it
    are given, then ``StreamFinished(ERROR)``, then the exception (the lane, too, calls that ``chunk``),
    and the compiled loop gives what the pure one gives, whether each event is a chunk or all are one."""
    from types import ModuleType

    from argstream.providers import anthropic

    calls_: list[int] = []

    class Failing(type(anthropic.adapter())):  # type: ignore[misc]
        def chunk(self, item: Any, text: Any = None) -> Any:
            calls_.append(item.get("type") == "content_block_delta")
            if sum(calls_) == fail_at:
                raise RuntimeError("the adapter gave up")
            return super().chunk(item, text=text)

    module = ModuleType("failing")
    module.adapter = Failing  # type: ignore[attr-defined]
    events = [event + "\n\n" for event in anthropic_sse().split("\n\n") if event]
    chunks = ["".join(events)] if whole else events

    def outcome() -> tuple[list[Any], Any]:
        calls_.clear()
        out: list[Any] = []
        try:
            for item in iter_tool_stream(chunks, module):
                out.append(canon(item))
        except RuntimeError as exc:
            return out, str(exc)
        return out, None

    got = outcome()
    assert got[1] == "the adapter gave up" and got[0][-1][0] == "finished"
    clean = [canon(item) for item in iter_tool_stream(chunks, "anthropic")]
    progress = [item for item in got[0] if item[0] == "progress"]
    before = [item for item in clean if item[0] == "progress"][:len(progress)]
    assert len(progress) >= fail_at - 2 and progress == before
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(templates, "_TEMPLATE", templates.EventTemplate)
        patch.setattr(RawReader, "lane", None)
        assert got == outcome()


# -- message text deltas, read by template as argument deltas are ----------------------------------------

_TEXT_LINES = {"anthropic": '"text_delta"', "openai_chat": '"content"', "openai_responses": "output_text.delta"}


def _text_stream(fmt: str, seed: int) -> str:
    """A stream of ``fmt`` (SSE text) with message text before a call, in random pieces."""
    import random

    from loopback import sse
    from test_pipeline_fastpath import STREAMS

    rng = random.Random(seed)
    shape: list[Any] = [None, {"path": "a.py"}] if fmt == "anthropic" else [{"path": "a.py"}]
    items = STREAMS[fmt]([shape, shape], rng)
    return sse(items, event_field=None if fmt == "openai_chat" else "type", done=fmt == "openai_chat").decode()


@settings(max_examples=60)
@given(fmt=st.sampled_from(sorted(_TEXT_LINES)), seed=st.integers(0, 2**32), where=st.integers(0, 10**6),
       insert=st.lists(_JSONISH, max_size=3), drop=st.integers(0, 2), sizes=st.lists(st.integers(1, 200), max_size=4))
def test_message_text_read_raw_gives_what_decoding_gives(fmt: str, seed: int, where: int, insert: list[str],
                                                         drop: int, sizes: list[int]) -> None:
    """Text deltas read by template, as they arrive and with one of them mutated (after a template is
    learned, most often): the items of decoding every event, and an error where decoding has one."""
    text = _text_stream(fmt, seed)
    assert items_of(cut(text, sizes), fmt) == items_of(iter_wire([text]), fmt)
    lines = text.split("\n")
    found = [n for n, line in enumerate(lines) if line.startswith("data: ") and _TEXT_LINES[fmt] in line]
    if found:
        n = found[-1 - where % len(found)]
        at_ = 6 + where % (len(lines[n]) - 6)
        lines[n] = lines[n][:at_] + "".join(insert) + lines[n][at_ + drop:]
        mutated = "\n".join(lines)
        assert items_of(cut(mutated, sizes), fmt) == items_of(_decoded_events(mutated), fmt)


def _live_text(fmt: str, reasoning: bool = False) -> str:
    """A message (or the reasoning before one) streamed as a server sends it: 20 text deltas of one
    shape, then the end."""
    pieces = [f"piece {n} \u00e9\"\\ " for n in range(20)]
    if fmt == "anthropic":
        block, kind, field = ("thinking", "thinking_delta", "thinking") if reasoning else ("text", "text_delta", "text")
        events: list[Any] = [{"type": "message_start", "message": {"id": "m1", "content": []}},
                             {"type": "content_block_start", "index": 0, "content_block": {"type": block, block: ""}}]
        events += [{"type": "content_block_delta", "index": 0, "delta": {"type": kind, field: p}} for p in pieces]
        events += [{"type": "content_block_stop", "index": 0},
                   {"type": "message_delta", "delta": {"stop_reason": "end_turn"}}, {"type": "message_stop"}]
    elif fmt == "openai_chat":
        field = "reasoning_content" if reasoning else "content"
        events = [{"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
                   "choices": [{"index": 0, "delta": {field: p}, "finish_reason": None}]} for p in pieces]
        events.append({"id": "c1", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    else:
        kind = "response.reasoning_summary_text.delta" if reasoning else "response.output_text.delta"
        message = ({"type": "reasoning", "id": "msg_1", "summary": []} if reasoning else
                   {"type": "message", "id": "msg_1", "role": "assistant", "content": []})
        events = [{"type": "response.created", "response": {"id": "r1"}},
                  {"type": "response.output_item.added", "output_index": 0, "item": message}]
        events += [{"type": kind, "sequence_number": n + 2, "item_id": "msg_1", "output_index": 0,
                    "content_index": 0, "summary_index": 0, "delta": p, "obfuscation": "x" * (n % 5)}
                   for n, p in enumerate(pieces)]
        events += [{"type": "response.output_item.done", "output_index": 0, "item": message},
                   {"type": "response.completed", "response": {"id": "r1", "status": "completed", "output": []}}]
    return "".join((f"event: {e['type']}\n" if fmt != "openai_chat" else "") + f"data: {json.dumps(e)}\n\n"
                   for e in events)


@pytest.mark.parametrize("reasoning", [False, True])
@pytest.mark.parametrize("fmt", sorted(_TEXT_LINES))
def test_the_text_deltas_of_a_live_stream_are_read_by_template(fmt: str, reasoning: bool, backend: str,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """After the first text delta the fast test takes (decoded, and a template learned from it), no text
    delta is decoded, of a message or of reasoning: the compiled lane reads them, or the pure path's
    template; the items are those of decoding every event."""
    whole = _live_text(fmt, reasoning)
    decoded = []
    original = RawReader._deliver
    monkeypatch.setattr(RawReader, "_deliver", lambda self, value, data, out: (
        decoded.append(data), original(self, value, data, out))[1])
    for chunks in ([event + "\n\n" for event in whole.split("\n\n") if event], cut(whole, [61])):
        decoded.clear()
        items, error = items_of(chunks, fmt)
        assert error is None and items == items_of(iter_wire([whole]), fmt)[0]
        assert sum(1 for item in items if str(item).startswith("ReasoningDelta" if reasoning else "TextDelta")) == 20
        texts = [data for data in decoded if data and "piece" in data]
        # (Chat's first gives the message its index; a Responses summary part's first starts the part)
        assert len(texts) == (2 if fmt == "openai_chat" or (reasoning and fmt == "openai_responses") else 1)
