"""The encoders' fast paths write exactly what the generic ones do.

An argument string's pieces take a branch of their own (``progress``), and the SSE framers write
their frames from precomputed text around ``quote(delta)`` (``progress_frames``). Hypothesis, over
hostile text (HTML, ``</script>``, bidi controls, lone surrogates, U+2028, control characters) and
both backends: the chunks equal those of the general path, and the frames equal, byte for byte,
``json.dumps(chunk, ensure_ascii=True, allow_nan=False, separators=(",", ":"))`` of each chunk.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from argstream import iter_tool_stream  # noqa: E402
from argstream.builder import EventBuilder  # noqa: E402
from argstream.events import ToolCallArgumentProgress  # noqa: E402
from argstream.ui import (  # noqa: E402
    AgUiEncoder, AiSdkEncoder, aag_ui_events, aai_sdk_chunks, ag_ui_events, ag_ui_sse, ai_sdk_chunks, ai_sdk_sse,
    sse_event,
)
from argstream.ui._jsontext import json_text, quote  # noqa: E402

from test_ui_encoders import anthropic_wire  # noqa: E402
from test_ui_properties import item as any_item  # noqa: E402

pytestmark = pytest.mark.hypothesis

BITS = ["</script>", "<script>alert(1)</script>", "<!--", "]]>", "&amp;", "\u2028", "\u2029", "\u202e", "\u2066",
        "\ufeff", "\ud800", "\udfff", "\udbff\udfff", '"', "\\", "\\u0000", "\x00", "\x1f", "\x7f", "\n", "é", "😀",
        "\U0010ffff", "/"]
hostile = st.lists(st.one_of(st.sampled_from(BITS), st.text(st.characters(exclude_categories=()), max_size=4)),
                   max_size=8).map("".join)
FIXTURE = settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                          HealthCheck.data_too_large], deadline=None)


def reference_frames(chunks: list[dict[str, Any]], end: bytes | None) -> bytes:
    out = b"".join(b"data: " + json.dumps(c, ensure_ascii=True, allow_nan=False, separators=(",", ":")).encode("ascii")
                   + b"\n\n" for c in chunks)
    return out + (end or b"")


def general_chunks(encoder: Any, items: list[Any]) -> list[dict[str, Any]]:
    """The chunks of the encoder's general path: every progress item through ``_progress``."""
    out = encoder.start()
    for one in items:
        if type(one) is ToolCallArgumentProgress:
            if not getattr(encoder, "ended", False):
                out += encoder._progress(one)
        else:
            out += encoder.encode(one)
    return out + encoder.finish()


def check(items: list[Any], fragments: bool) -> None:
    chunks = list(ai_sdk_chunks(items, message_id="m", fragments=fragments))
    assert chunks == general_chunks(AiSdkEncoder(message_id="m", fragments=fragments), items)
    assert b"".join(ai_sdk_sse(ai_sdk_chunks(items, message_id="m", fragments=fragments))) == reference_frames(
        chunks, b"data: [DONE]\n\n")
    events = list(ag_ui_events(items, thread_id="t", run_id="r", fragments=fragments))
    assert events == general_chunks(AgUiEncoder(thread_id="t", run_id="r", fragments=fragments), items)
    assert b"".join(ag_ui_sse(ag_ui_events(items, thread_id="t", run_id="r", fragments=fragments))) == (
        reference_frames(events, None))


@FIXTURE
@given(st.lists(st.tuples(hostile, hostile), min_size=1, max_size=4), hostile, st.booleans(), st.booleans(),
       st.randoms(use_true_random=False))
def test_streamed_hostile_arguments_frame_as_json_dumps_does(make_parser, pairs, name, ascii_only, fragments,
                                                             rng) -> None:
    arguments = json.dumps({"path": name, "content": [dict(pairs), name * 3], "n": 1}, ensure_ascii=ascii_only)
    pieces, pos = [], 0
    while pos < len(arguments):
        n = rng.randint(1, 12)
        pieces.append(arguments[pos:pos + n])
        pos += n
    factory = lambda: EventBuilder(parser_factory=make_parser)  # noqa: E731
    items = list(iter_tool_stream(anthropic_wire(pieces, text=name), builder_factory=factory))
    assert any(type(one) is ToolCallArgumentProgress for one in items)
    check(items, fragments)


@settings(max_examples=150)
@given(st.lists(any_item, max_size=25), st.booleans())
def test_any_item_stream_frames_as_json_dumps_does(items: list[Any], fragments: bool) -> None:
    check(items, fragments)


@given(hostile)
def test_quote_and_json_text_are_json_dumps(text: str) -> None:
    assert quote(text) == json.dumps(text)
    value = {"a": [text, 1, -2.5, None, True], text: {"b": 1e300}}
    assert json_text(value) == json.dumps(value, ensure_ascii=True, allow_nan=False, separators=(",", ":"))
    assert sse_event(value) == reference_frames([value], None)


def test_non_finite_floats_and_cycles_are_refused() -> None:
    with pytest.raises(ValueError):
        sse_event({"x": float("inf")})
    cycle: dict[str, Any] = {}
    cycle["self"] = cycle
    with pytest.raises(RecursionError):
        sse_event(cycle)


def test_frames_of_chunks_already_read_are_the_rest() -> None:
    items = list(iter_tool_stream(anthropic_wire(['{"path": "a', '<b>', '.py"}'])))
    chunks = ai_sdk_chunks(items, message_id="m")
    first = next(chunks)
    assert first == {"type": "start", "messageId": "m"}
    rest = b"".join(ai_sdk_sse(chunks))
    assert rest == reference_frames(list(ai_sdk_chunks(items, message_id="m"))[1:], b"data: [DONE]\n\n")
    events = ag_ui_events(items, thread_id="t", run_id="r")
    framed = ag_ui_sse(events)
    assert list(events) == []  # the frames read the items
    assert b"".join(framed) == reference_frames(list(ag_ui_events(items, thread_id="t", run_id="r")), None)


def test_async_frames_equal_the_sync_ones() -> None:
    items = list(iter_tool_stream(anthropic_wire(['{"path": "\u2028', '</script>', '", "content": "x\\ud800"}'])))

    async def source() -> Any:
        for one in items:
            yield one

    async def collect(frames: Any) -> bytes:
        return b"".join([f async for f in frames])

    sync = b"".join(ai_sdk_sse(ai_sdk_chunks(items, message_id="m")))
    assert asyncio.run(collect(ai_sdk_sse(aai_sdk_chunks(source(), message_id="m")))) == sync
    assert asyncio.run(collect(ai_sdk_sse(aai_sdk_chunks(items, message_id="m")))) == sync
    sync = b"".join(ag_ui_sse(ag_ui_events(items, thread_id="t", run_id="r")))
    assert asyncio.run(collect(ag_ui_sse(aag_ui_events(source(), thread_id="t", run_id="r")))) == sync

    async def rest() -> tuple[Any, bytes]:
        chunks = aai_sdk_chunks(source(), message_id="m")
        first = await chunks.__anext__()
        return first, await collect(ai_sdk_sse(chunks))

    first, frames = asyncio.run(rest())
    assert first == {"type": "start", "messageId": "m"}
    assert frames == reference_frames(list(ai_sdk_chunks(items, message_id="m"))[1:], b"data: [DONE]\n\n")


def test_a_source_that_raises_frames_alike_sync_async_and_as_chunks() -> None:
    items = list(iter_tool_stream(anthropic_wire(['{"path": "a', '<b>', '.py"}'])))[:-3]

    def plain() -> Any:
        yield from items
        raise ConnectionError("secret request details")

    async def source() -> Any:
        for one in plain():
            yield one

    async def collect(frames: Any) -> list[Any]:
        return [f async for f in frames]

    for encode, frame_all, end, options in ((ai_sdk_chunks, ai_sdk_sse, b"data: [DONE]\n\n", {"message_id": "m"}),
                                            (ag_ui_events, ag_ui_sse, None, {"thread_id": "t", "run_id": "r"})):
        chunks = list(encode(plain(), **options))
        assert chunks[-1]["type"] in ("finish", "RUN_ERROR") and b"secret" not in reference_frames(chunks, None)
        expected = reference_frames(chunks, end)
        assert b"".join(frame_all(encode(plain(), **options))) == expected
        twin = aai_sdk_chunks if encode is ai_sdk_chunks else aag_ui_events
        assert asyncio.run(collect(twin(source(), **options))) == chunks
        assert asyncio.run(collect(twin(plain(), **options))) == chunks
        assert b"".join(asyncio.run(collect(frame_all(twin(source(), **options))))) == expected
        assert b"".join(asyncio.run(collect(frame_all(twin(plain(), **options))))) == expected
