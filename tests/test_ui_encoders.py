"""The AI SDK UI and AG-UI encoders, checked by the protocols' own models: pydantic-ai's chunk models of
the AI SDK UI stream (``pydantic_ai.ui.vercel_ai.response_types``) and ``ag_ui.core.Event``.

Every recording in ../shared/recordings and ../shared/recordings-more (skipped when absent), as recorded
and re-chunked at random, over both backends: every chunk validates, the sequence is in protocol order
(starts, deltas inside their part, ends), and rebuilds each tool call (a start with id and name, input
deltas that stream as the fragments do and join to JSON equal to the final input, the input available).
"""

from __future__ import annotations

import importlib
import json
import random
from collections.abc import Iterator
from typing import Any

import pytest

from argstream import iter_tool_stream
from argstream.builder import EventBuilder
from argstream.events import ArgumentChunk, FinishReason, Part, ToolCall
from argstream.providers import ProviderProtocolError
from argstream.stream import (
    StreamFinished, TextDelta, ToolCallFailed, ToolCallFinished, ToolCallStarted, ToolCallViolation,
)
from argstream.ui import AI_SDK_HEADERS, ag_ui_events, ag_ui_sse, ai_sdk_chunks, ai_sdk_sse, sse_event
from argstream.ui._argtext import json_safe

from _provider_runs import FOLDERS, expected_of, read_recording

rt = pytest.importorskip("pydantic_ai.ui.vercel_ai.response_types", reason="the ui extra (pydantic-ai-slim)")
ag_core = pytest.importorskip("ag_ui.core", reason="the ui extra (ag-ui-protocol)")
from pydantic import TypeAdapter  # noqa: E402

AI_SDK_MODELS = {
    cls.model_fields["type"].default: cls
    for cls in vars(rt).values()
    if isinstance(cls, type) and issubclass(cls, rt.BaseChunk) and cls is not rt.BaseChunk
    and isinstance(cls.model_fields["type"].default, str)
}
AG_UI_EVENT = TypeAdapter(ag_core.Event)


def validate_ai_sdk(chunk: dict[str, Any]) -> None:
    """One chunk against pydantic-ai's model of it (extra keys forbidden), which writes it back the same
    (as its ``encode`` does: camelCase, a ``null`` field left out), and as JSON."""
    kind = chunk["type"]
    model = rt.DataChunk if kind.startswith("data-") else AI_SDK_MODELS[kind]
    written = model.model_validate(chunk).model_dump(by_alias=True, exclude_none=True)
    assert written == {key: value for key, value in chunk.items() if value is not None}
    assert json.loads(json.dumps(chunk, allow_nan=False)) == chunk


def validate_ag_ui(event: dict[str, Any]) -> None:
    """One event against ``ag_ui.core.Event``; the model keeps unknown keys, so check there are none."""
    model = AG_UI_EVENT.validate_python(event)
    known = {field.alias or name for name, field in type(model).model_fields.items()}
    assert set(event) <= known, set(event) - known
    assert json.loads(json.dumps(event, allow_nan=False)) == event


# -- protocol order ------------------------------------------------------------------------------


def check_ai_sdk(chunks: list[dict[str, Any]], items: list[Any]) -> None:
    for chunk in chunks:
        validate_ai_sdk(chunk)
    assert chunks[0]["type"] == "start" and chunks[-1]["type"] == "finish"
    assert sum(c["type"] == "start" for c in chunks) == 1 and sum(c["type"] == "finish" for c in chunks) == 1
    open_parts: dict[str, str] = {}
    seen_parts: set[str] = set()
    calls: dict[str, dict[str, Any]] = {}
    in_step = False
    for chunk in chunks[1:-1]:
        kind = chunk["type"]
        if kind == "start-step":
            assert not in_step
            in_step = True
        elif kind == "finish-step":
            assert in_step and not open_parts
            in_step = False
        elif kind in ("text-start", "reasoning-start"):
            assert in_step and chunk["id"] not in seen_parts
            seen_parts.add(chunk["id"])
            open_parts[chunk["id"]] = kind.split("-")[0]
        elif kind in ("text-delta", "reasoning-delta", "text-end", "reasoning-end"):
            assert open_parts.get(chunk["id"]) == kind.split("-")[0]
            if kind.endswith("-end"):
                del open_parts[chunk["id"]]
        elif kind == "tool-input-start":
            assert in_step and chunk["toolCallId"] not in calls, "tool call ids are unique per message"
            calls[chunk["toolCallId"]] = {"name": chunk["toolName"], "text": [], "end": None}
        elif kind == "tool-input-delta":
            call = calls[chunk["toolCallId"]]
            assert call["end"] is None and chunk["inputTextDelta"]
            call["text"].append(chunk["inputTextDelta"])
        elif kind in ("tool-input-available", "tool-input-error"):
            call = calls[chunk["toolCallId"]]
            assert call["end"] is None and chunk["toolName"] == call["name"]
            call["end"] = chunk
        elif kind.startswith("data-argstream-"):
            assert chunk["data"]["toolCallId"] in calls
    assert not in_step and not open_parts
    rebuild_calls(calls, items, "tool-input-available")


def check_ag_ui(events: list[dict[str, Any]], items: list[Any]) -> None:
    for event in events:
        validate_ag_ui(event)
    assert events[0]["type"] == "RUN_STARTED"
    errored = any(type(i) is StreamFinished and i.reason is FinishReason.ERROR for i in items)
    assert events[-1]["type"] == ("RUN_ERROR" if errored else "RUN_FINISHED")
    message: str | None = None
    calls: dict[str, dict[str, Any]] = {}
    seen: set[str] = set()
    for event in events[1:-1]:
        kind = event["type"]
        assert kind not in ("RUN_STARTED", "RUN_FINISHED", "RUN_ERROR")
        if kind in ("TEXT_MESSAGE_START", "REASONING_START"):
            assert message is None and event["messageId"] not in seen
            message = event["messageId"]
            seen.add(message)
        elif kind in ("TEXT_MESSAGE_CONTENT", "REASONING_MESSAGE_START", "REASONING_MESSAGE_CONTENT",
                      "REASONING_MESSAGE_END"):
            assert event["messageId"] == message
        elif kind in ("TEXT_MESSAGE_END", "REASONING_END"):
            assert event["messageId"] == message
            message = None
        elif kind == "TOOL_CALL_START":
            assert message is None and event["toolCallId"] not in calls
            calls[event["toolCallId"]] = {"name": event["toolCallName"], "text": [], "end": None}
        elif kind == "TOOL_CALL_ARGS":
            call = calls[event["toolCallId"]]
            assert call["end"] is None and event["delta"]
            call["text"].append(event["delta"])
        elif kind == "TOOL_CALL_END":
            call = calls[event["toolCallId"]]
            assert call["end"] is None
            call["end"] = event
    assert message is None
    rebuild_calls(calls, items, "TOOL_CALL_END")


def rebuild_calls(calls: dict[str, dict[str, Any]], items: list[Any], end: str) -> None:
    """Each finished call: started with its name, its deltas joined to its arguments."""
    started = [i for i in items if type(i) is ToolCallStarted]
    assert len(calls) <= len(started)  # a start without a name waits for the call's next item
    order = list(calls.values())
    finished = [i for i in items if type(i) is ToolCallFinished]
    for item in finished:
        matching = [c for c in order if c["end"] is not None and c["name"] == item.name
                    and (end == "TOOL_CALL_END" or c["end"]["type"] == ("tool-input-available" if item.ok
                                                                          else "tool-input-error"))]
        assert matching, item
        if item.ok:
            texts = ["".join(c["text"]) for c in matching]
            arguments = json_safe(item.arguments)
            assert any(json.loads(text) == arguments for text in texts), (texts, arguments)
            if end == "tool-input-available":
                assert any(c["end"]["input"] == arguments for c in matching)


# -- the recordings --------------------------------------------------------------------------------


def recordings() -> Iterator[Any]:
    for folder in FOLDERS:
        expected = expected_of(folder)
        for key in sorted(expected):
            yield pytest.param(folder, key, expected[key], id=f"{folder.name}/{key}")


RECORDINGS = list(recordings())


def rechunk(module: Any, seed: int | None) -> Any:
    """The adapter's ``to_events``, with each argument chunk cut again at random (``seed=None``: as recorded)."""

    def to_events(stream: Any, **options: Any) -> Iterator[Any]:
        rng = random.Random(seed)
        for event in module.to_events(stream, **options):
            part = event.part.part if type(event) is Part and type(event.part) is ToolCall else None
            if seed is None or type(part) is not ArgumentChunk or len(part.text) < 2:
                yield event
                continue
            text, pos = part.text, 0
            while pos < len(text):
                n = rng.randint(1, 6)
                yield Part(event.index, ToolCall(ArgumentChunk(text[pos:pos + n])), event.metadata)
                pos += n

    return to_events


def items_of(folder: Any, key: str, expected: dict[str, Any], make_parser: Any, seed: int | None) -> list[Any]:
    module = importlib.import_module(f"argstream.providers.{expected['format']}")
    factory = lambda: EventBuilder(parser_factory=lambda: make_parser(catch_duplicate_keys=True))  # noqa: E731
    items: list[Any] = []
    try:
        for item in iter_tool_stream(read_recording(folder, key, expected), rechunk(module, seed),
                                     builder_factory=factory):
            items.append(item)
    except ProviderProtocolError:
        pass  # the items before it still encode; the encoders' own error path is tested below
    return items


@pytest.mark.skipif(not RECORDINGS, reason="no recordings at ../shared/recordings or ../shared/recordings-more")
@pytest.mark.parametrize("seed", [None, 7])
@pytest.mark.parametrize(("folder", "key", "expected"), RECORDINGS)
def test_recording_encodes_to_valid_protocol_streams(folder, key, expected, seed, make_parser) -> None:
    items = items_of(folder, key, expected, make_parser, seed)
    check_ai_sdk(list(ai_sdk_chunks(items)), items)
    check_ag_ui(list(ag_ui_events(items)), items)


# -- behaviour ---------------------------------------------------------------------------------------


def anthropic_wire(arguments_json: list[str], text: str = "ok", name: str = "fs_create_file") -> list[dict[str, Any]]:
    """A small Anthropic stream: text, then one tool call whose argument JSON arrives in the given pieces."""
    wire: list[dict[str, Any]] = [
        {"type": "message_start", "message": {"id": "m", "type": "message", "role": "assistant", "model": "x",
                                              "content": [], "stop_reason": None, "usage": {"input_tokens": 1}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}},
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1,
         "content_block": {"type": "tool_use", "id": "toolu_1", "name": name, "input": {}}},
    ]
    for piece in arguments_json:
        wire.append({"type": "content_block_delta", "index": 1,
                     "delta": {"type": "input_json_delta", "partial_json": piece}})
    wire += [{"type": "content_block_stop", "index": 1},
             {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 1}},
             {"type": "message_stop"}]
    return wire


HOSTILE = '<script>alert(1)</script><img src=x onerror=alert(2)>\u202eevil\u2066 \u2028 \ud800 "quote" \\'


def test_hostile_text_is_data_in_every_chunk() -> None:
    arguments = json.dumps({"path": HOSTILE, "content": HOSTILE, "n": 0, "deep": [[{"a": None}]]})
    arguments = arguments.replace('"n": 0', '"n": 1e999')
    items = list(iter_tool_stream(anthropic_wire([arguments[:9], arguments[9:40], arguments[40:]], text=HOSTILE)))
    chunks = list(ai_sdk_chunks(items))
    check_ai_sdk(chunks, items)  # 1e999 is infinity: the input carries null for it
    available = next(c for c in chunks if c["type"] == "tool-input-available")
    assert available["input"]["n"] is None and available["input"]["path"] == HOSTILE.replace("\ud800", "\ufffd")
    text = "".join(c["inputTextDelta"] for c in chunks if c["type"] == "tool-input-delta")
    assert json.loads(text) == available["input"]
    frames = b"".join(ai_sdk_sse(iter(chunks)))
    assert frames.isascii() and b"<script>" in frames and b"\\u202e" in frames and b"\\ud800" in frames
    assert frames.endswith(b"data: [DONE]\n\n")
    events = list(ag_ui_events(items))
    for event in events:
        validate_ag_ui(event)
    assert b"".join(ag_ui_sse(iter(events))).isascii()


def test_ids_are_unique_when_the_provider_repeats_or_omits_them() -> None:
    items = [ToolCallStarted("same", "a", 0), ToolCallStarted("same", "b", 1), ToolCallStarted("", "c", 2),
             StreamFinished(FinishReason.TOOL_USE), ToolCallStarted("same", "d", 0),
             StreamFinished(FinishReason.COMPLETED)]
    chunks = list(ai_sdk_chunks(items, message_id="m"))
    ids = [c["toolCallId"] for c in chunks if c["type"] == "tool-input-start"]
    assert ids[0] == "same" and len(set(ids)) == 4
    assert [c["type"] for c in chunks].count("start-step") == 2
    assert chunks[-1] == {"type": "finish", "finishReason": "stop"}
    again = list(ai_sdk_chunks(items, message_id="m"))
    assert again == chunks  # stable: the same items and message id give the same ids
    events = list(ag_ui_events(items, thread_id="t", run_id="r"))
    assert len({e["toolCallId"] for e in events if e["type"] == "TOOL_CALL_START"}) == 4


def test_invalid_arguments_become_tool_input_errors() -> None:
    items = list(iter_tool_stream(anthropic_wire(['{"path": "a", "path": "b"}'])))
    assert any(type(i) is ToolCallFailed for i in items)
    chunks = list(ai_sdk_chunks(items))
    errors = [c for c in chunks if c["type"] == "tool-input-error"]
    assert len(errors) == 1 and "duplicate" in errors[0]["errorText"].lower()
    assert not any(c["type"] == "tool-input-available" for c in chunks)
    events = list(ag_ui_events(items))
    assert any(e["type"] == "CUSTOM" and e["name"] == "argstream.tool_input_error" for e in events)


def test_schema_violations_become_tool_input_errors() -> None:
    tools = {"fs_create_file": {"type": "object", "properties": {"path": {"type": "string", "maxLength": 3}}}}
    items = list(iter_tool_stream(anthropic_wire(['{"path": "much too long"}']), tools=tools))
    assert any(type(i) is ToolCallViolation for i in items)
    chunks = list(ai_sdk_chunks(items))
    for chunk in chunks:
        validate_ai_sdk(chunk)
    assert [c["type"] for c in chunks if c["type"].startswith("tool-input-e")] == ["tool-input-error"]
    violation = next(c for c in chunks if c["type"] == "data-argstream-violation")
    assert violation["data"]["violation"]["keyword"] == "maxLength"


def test_a_stream_that_raises_ends_cleanly() -> None:
    def items() -> Iterator[Any]:
        yield ToolCallStarted("c", "t", 0)
        yield StreamFinished(FinishReason.ERROR, metadata={"error": {"message": "overloaded"}})
        raise ConnectionError("secret request details")

    chunks = list(ai_sdk_chunks(items()))
    for chunk in chunks:
        validate_ai_sdk(chunk)
    errors = [c["errorText"] for c in chunks if c["type"] == "error"]
    assert errors == ["the model's response failed: overloaded", "the stream failed (ConnectionError)"]
    assert chunks[-1]["type"] == "finish"
    events = list(ag_ui_events(items()))
    assert events[-1]["type"] == "RUN_ERROR" and [e["type"] for e in events].count("RUN_ERROR") == 1


def test_not_an_item_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        list(ai_sdk_chunks([object()]))  # a bug in the caller, not a stream failure: it is not swallowed


def test_headers() -> None:
    assert AI_SDK_HEADERS["x-vercel-ai-ui-message-stream"] == "v1"
    assert AI_SDK_HEADERS["content-type"] == "text/event-stream"


async def test_async_twins_give_the_same_sequence() -> None:
    from argstream.ui import aag_ui_events, aai_sdk_chunks

    items = list(iter_tool_stream(anthropic_wire(['{"path": "src/a.py", "content": "x"}'])))

    async def source() -> Any:
        for item in items:
            yield item

    chunks = [c async for c in aai_sdk_chunks(source(), message_id="m")]
    assert chunks == list(ai_sdk_chunks(items, message_id="m"))
    events = [e async for e in aag_ui_events(items, thread_id="t", run_id="r")]
    assert events == list(ag_ui_events(items, thread_id="t", run_id="r"))
    frames = [f async for f in ai_sdk_sse(aai_sdk_chunks(source()))]
    assert frames[-1] == b"data: [DONE]\n\n"


def test_finished_reason_error_without_items() -> None:
    chunks = list(ai_sdk_chunks([StreamFinished(FinishReason.ERROR)]))
    assert [c["type"] for c in chunks] == ["start", "start-step", "error", "finish-step", "finish"]


def test_starlette_streaming_response_carries_the_headers_and_frames() -> None:
    pytest.importorskip("starlette", reason="the ui extra (starlette)")
    from starlette.applications import Starlette
    from starlette.responses import StreamingResponse
    from starlette.routing import Route
    from starlette.testclient import TestClient

    from argstream.ui import AG_UI_HEADERS, aag_ui_events, aai_sdk_chunks

    wire = anthropic_wire(['{"path": "src/a.py"}'])

    async def chat(request: Any) -> Any:
        return StreamingResponse(ai_sdk_sse(aai_sdk_chunks(iter_tool_stream(wire))), headers=AI_SDK_HEADERS)

    async def agent(request: Any) -> Any:
        return StreamingResponse(ag_ui_sse(aag_ui_events(iter_tool_stream(wire))), headers=AG_UI_HEADERS)

    app = Starlette(routes=[Route("/chat", chat, methods=["POST"]), Route("/agent", agent, methods=["POST"])])
    with TestClient(app) as client:
        response = client.post("/chat")
        assert response.headers["content-type"].startswith("text/event-stream")
        assert response.headers["x-vercel-ai-ui-message-stream"] == "v1"
        frames = response.text.split("\n\n")
        assert frames[-2] == "data: [DONE]" and frames[-1] == ""
        for frame in frames[:-2]:
            validate_ai_sdk(json.loads(frame.removeprefix("data: ")))
        response = client.post("/agent")
        assert response.headers["content-type"].startswith("text/event-stream")
        frames = response.text.split("\n\n")[:-1]
        for frame in frames:
            validate_ag_ui(json.loads(frame.removeprefix("data: ")))
        assert json.loads(frames[-1].removeprefix("data: "))["type"] == "RUN_FINISHED"


def test_ag_ui_framing_reads_as_the_sdks_own_encoder_writes() -> None:
    """``ag_ui_sse`` frames each event as ``ag_ui.encoder.EventEncoder`` does: the same JSON per ``data:`` line
    (and a lone surrogate in model text, which the SDK's encoder cannot write, travels escaped)."""
    from ag_ui.encoder import EventEncoder

    encoder = EventEncoder()
    lone = next(e for e in ag_ui_events([TextDelta("\ud800", 0)]) if e["type"] == "TEXT_MESSAGE_CONTENT")
    with pytest.raises(ValueError):
        encoder.encode(AG_UI_EVENT.validate_python(lone))
    assert json.loads(sse_event(lone)[6:]) == lone
    text = HOSTILE.replace("\ud800", "")
    items = list(iter_tool_stream(anthropic_wire(['{"path": "src/<a>.py", "content": "\u2028x"}'], text=text)))
    events = list(ag_ui_events(items))
    ours = b"".join(ag_ui_sse(iter(events))).decode("ascii").split("\n\n")[:-1]
    theirs = [encoder.encode(AG_UI_EVENT.validate_python(event)) for event in events]
    assert len(ours) == len(theirs)
    for mine, sdk in zip(ours, theirs):
        assert mine.startswith("data: ") and sdk.startswith("data: ") and sdk.endswith("\n\n")
        assert json.loads(mine[6:]) == json.loads(sdk[6:-2])
