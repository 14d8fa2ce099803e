"""iter_tool_stream / aiter_tool_stream: one loop over a provider stream."""

from __future__ import annotations

import pytest
from recordings.generate import RECORDINGS as OWN

from argstream import DONE, ObjectEntry, String
from argstream.events import Finished, FinishReason, ToolCallArgumentProgress, ToolCallRequest
from argstream.providers import anthropic, openai_chat
from argstream.stream import (
    ReasoningDelta,
    StreamFinished,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    ToolStreamState,
    aiter_tool_stream,
    detect_provider,
    iter_tool_stream,
)


def kinds(items):
    return [type(i).__name__ for i in items]


@pytest.mark.parametrize("fmt", ["anthropic", "openai_chat"])
def test_one_loop_gives_text_starts_progress_and_finished_calls(fmt):
    rec = OWN[f"{fmt}/thinking_then_call"]
    items = list(iter_tool_stream(rec.items))
    assert "".join(i.text for i in items if isinstance(i, ReasoningDelta)) == rec.reasoning
    assert "".join(i.text for i in items if isinstance(i, TextDelta)) == rec.text
    started = [i for i in items if isinstance(i, ToolCallStarted)]
    assert [(s.id, s.name) for s in started] == [rec.tool_calls[0][:2]]
    progress = [i for i in items if isinstance(i, ToolCallArgumentProgress)]
    assert ObjectEntry("path", DONE) in [p.fragment for p in progress]
    finished = [i for i in items if isinstance(i, ToolCallFinished)]
    assert [(f.id, f.name, f.arguments) for f in finished] == rec.tool_calls
    assert finished[0].ok and finished[0].event.kind == ToolCallRequest(*rec.tool_calls[0])
    # order: started, then its progress, then finished, then the end of the response
    first, last = items.index(started[0]), items.index(finished[0])
    assert all(first < items.index(p) < last for p in progress)
    end = items[-1]
    assert isinstance(end, StreamFinished) and end.reason is FinishReason.TOOL_USE
    assert end.text == rec.text
    assert end.tool_calls == [ToolCallRequest(*rec.tool_calls[0])]
    assert end.incomplete == ()


def test_path_is_done_while_content_still_streams():
    rec = OWN["anthropic/create_file_20k"]
    items = list(iter_tool_stream(rec.items))
    fragments = [i.fragment for i in items if isinstance(i, ToolCallArgumentProgress)]
    path_done = fragments.index(ObjectEntry("path", DONE))
    content = [f for f in fragments[path_done:] if isinstance(f, ObjectEntry) and isinstance(f.value, String)]
    assert len(content) > 100  # the content streams in many pieces after the path is known
    assert "".join(f.value.text for f in content) == rec.tool_calls[0][2]["content"]


@pytest.mark.parametrize("fmt", ["anthropic", "openai_chat"])
def test_cut_off_call_is_never_finished(fmt):
    rec = OWN[f"{fmt}/abrupt_close"]
    items = list(iter_tool_stream(rec.items))
    assert not any(isinstance(i, ToolCallFinished) for i in items)
    end = items[-1]
    assert end.reason is FinishReason.ERROR
    cut = [e for e in end.incomplete if isinstance(e.kind, ToolCallRequest)]
    assert cut and cut[0].kind.error is not None


@pytest.mark.parametrize(
    "provider", [None, "anthropic", anthropic, anthropic.to_events], ids=["detect", "name", "module", "function"]
)
def test_provider_can_be_named(provider):
    rec = OWN["anthropic/parallel"]
    finished = [i for i in iter_tool_stream(rec.items, provider) if isinstance(i, ToolCallFinished)]
    assert [(f.id, f.name, f.arguments) for f in finished] == rec.tool_calls


def test_detect_provider():
    assert detect_provider(OWN["anthropic/parallel"].items[0]) == "anthropic"
    assert detect_provider(OWN["openai_chat/parallel"].items[0]) == "openai_chat"
    assert detect_provider({"type": "response.created", "sequence_number": 0, "response": {}}) == "openai_responses"
    assert detect_provider({"candidates": [{"content": {"parts": [{"text": "x"}]}}]}) == "gemini"
    ollama_line = {"model": "qwen3", "message": {"role": "assistant", "content": ""}, "done": False}
    assert detect_provider(ollama_line) == "ollama"
    with pytest.raises(ValueError):
        detect_provider({"what": "ever"})


def test_detect_provider_from_sdk_objects():
    pytest.importorskip("anthropic")
    pytest.importorskip("openai")
    from openai.types.chat import ChatCompletionChunk
    from pydantic import TypeAdapter

    from anthropic.types import RawMessageStreamEvent

    assert detect_provider(TypeAdapter(RawMessageStreamEvent).validate_python(OWN["anthropic/parallel"].items[0])) == (
        "anthropic")
    assert detect_provider(ChatCompletionChunk.model_validate(OWN["openai_chat/parallel"].items[0])) == "openai_chat"


def test_interleaved_parallel_calls():
    rec = OWN["openai_chat/parallel"]
    items = list(iter_tool_stream(rec.items))
    started = [(i.id, i.index) for i in items if isinstance(i, ToolCallStarted)]
    assert started == [("call_par_0", 1), ("call_par_1", 2), ("call_par_2", 3), ("call_par_3", 4)]
    ids = [i.tool_call_id for i in items if isinstance(i, ToolCallArgumentProgress)]
    switches = sum(a != b for a, b in zip(ids, ids[1:]))
    assert switches > 4  # the progress interleaves as the wire does, not grouped per call
    assert [(f.id, f.arguments) for f in items if isinstance(f, ToolCallFinished)] == [
        (i, a) for i, _, a in rec.tool_calls]


def test_empty_stream_finishes_with_error():
    assert [i.reason for i in iter_tool_stream([])] == [FinishReason.ERROR]


class Boom(Exception):
    pass


def test_exception_gives_stream_finished_then_raises():
    rec = OWN["anthropic/create_file_20k"]

    def source():
        yield from rec.items[:200]
        raise Boom()

    seen = []
    with pytest.raises(Boom):
        for item in iter_tool_stream(source()):
            seen.append(item)
    assert isinstance(seen[-1], StreamFinished) and seen[-1].reason is FinishReason.ERROR
    assert not any(isinstance(i, ToolCallFinished) for i in seen)


def test_exception_on_the_first_item():
    def source():
        raise Boom()
        yield  # pragma: no cover

    seen = []
    with pytest.raises(Boom):
        for item in iter_tool_stream(source()):
            seen.append(item)
    assert [i.reason for i in seen] == [FinishReason.ERROR]


class ClosableStream:
    def __init__(self, items):
        self.items = items
        self.closed = False

    def __iter__(self):
        return iter(self.items)

    def close(self):
        self.closed = True


def test_stopping_early_closes_the_provider_stream():
    stream = ClosableStream(OWN["anthropic/create_file_20k"].items)
    for item in iter_tool_stream(stream):
        if isinstance(item, ToolCallArgumentProgress) and item.fragment == ObjectEntry("path", DONE):
            break
    assert stream.closed


def test_stopping_early_can_leave_the_stream_open():
    stream = ClosableStream(OWN["anthropic/create_file_20k"].items)
    gen = iter_tool_stream(stream, close_stream=False)
    next(gen)
    gen.close()
    assert not stream.closed


def test_several_responses_each_finish():
    items = OWN["anthropic/parallel"].items + OWN["anthropic/thinking_then_call"].items
    ends = [i for i in iter_tool_stream(items) if isinstance(i, StreamFinished)]
    assert [len(e.tool_calls) for e in ends] == [4, 1]


def test_state_is_sans_io():
    state = ToolStreamState()
    out = []
    for event in openai_chat.to_events(OWN["openai_chat/modify_file"].items):
        out += state.feed(event)
    assert isinstance(out[-1], StreamFinished)
    with pytest.raises(TypeError):
        state.feed(Finished)  # the class, not an event


@pytest.mark.parametrize("fmt", ["anthropic", "openai_chat"])
async def test_async_helper_matches_sync(fmt):
    rec = OWN[f"{fmt}/modify_file"]

    async def source():
        for item in rec.items:
            yield item

    def strip(items):  # the persisted events carry timestamps: compare the rest
        return [(type(i), i.reason) if isinstance(i, StreamFinished) else i for i in items]

    expected = strip(iter_tool_stream(rec.items))
    assert strip([i async for i in aiter_tool_stream(source())]) == expected
    assert strip([i async for i in aiter_tool_stream(rec.items)]) == expected


async def test_async_helper_exception_and_close():
    rec = OWN["openai_chat/create_file_20k"]

    async def failing():
        for item in rec.items[:50]:
            yield item
        raise Boom()

    seen = []
    with pytest.raises(Boom):
        async for item in aiter_tool_stream(failing()):
            seen.append(item)
    assert seen[-1].reason is FinishReason.ERROR

    class AsyncClosable:
        closed = False

        def __aiter__(self):
            return self._gen()

        async def _gen(self):
            for item in rec.items:
                yield item

        async def close(self):
            AsyncClosable.closed = True

    stream = AsyncClosable()
    gen = aiter_tool_stream(stream)
    async for item in gen:
        if isinstance(item, ToolCallStarted):
            break
    await gen.aclose()
    assert stream.closed


def test_provider_options_reach_the_adapter():
    from argstream.stream import StructuredDelta
    from argstream.events import ChatStructured

    def chunk(delta, finish=None):
        return {"id": "c", "object": "chat.completion.chunk",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    items = [chunk({"content": '{"k": 1}'}), chunk({}, "stop")]
    out = list(iter_tool_stream(items, provider_options={"structured": True}))
    assert out[0] == StructuredDelta('{"k": 1}', 0)
    assert out[-1].events[0].kind == ChatStructured({"k": 1})


def test_detect_error_events():
    assert detect_provider({"type": "error", "error": {"type": "overloaded_error"}}) == "anthropic"
    assert detect_provider({"type": "error", "code": "x", "message": "m", "sequence_number": 3}) == "openai_responses"
