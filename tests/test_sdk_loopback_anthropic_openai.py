"""The official anthropic and openai clients, streaming our recordings from a loopback server.

The server (tests/loopback.py) sends each SSE body in small pieces (some of them split UTF-8
sequences and SSE frames); the adapters must rebuild exactly the argument text the server
sent, report ``path`` as done while the content is still on its way (the server holds the rest
of the body until the client has seen it), and handle a connection cut mid-argument, an error
event and a client that stops reading early. Each test skips when its SDK is not installed.
"""

from __future__ import annotations

import contextlib
import json
from collections import defaultdict
from collections.abc import Iterator
from http.client import HTTPConnection, IncompleteRead
from typing import Any

import pytest
from loopback import LoopbackServer, Reply, ndjson, split, sse
from recordings.generate import RECORDINGS as OWN

from argstream import DONE, ObjectEntry
from argstream.builder import EventBuilder
from argstream.events import ArgumentChunk, Finished, FinishReason, Flush, Part, ToolCall, ToolCallRequest
from argstream.providers import anthropic as anthropic_adapter
from argstream.providers import openai_chat as openai_adapter
from argstream.stream import (
    StreamFinished,
    ToolCallArgumentProgress,
    ToolCallFinished,
    ToolCallStarted,
    aiter_tool_stream,
    iter_tool_stream,
)

pytestmark = pytest.mark.sdk

PIECES = [1, 7, 64, 200, 3, 1024, 4096, 13, 2048]  # body piece sizes, cycled: frames and UTF-8 sequences get split
FORMATS = ["anthropic", "openai_chat"]
ADAPTERS = {"anthropic": anthropic_adapter, "openai_chat": openai_adapter}
COMPLETE = sorted(k for k, r in OWN.items() if not r.truncated)


def body_of(fmt: str, items: list[dict]) -> bytes:
    if fmt == "anthropic":
        return sse(items, event_field="type")
    return sse(items, done=True)


def sdk(fmt: str):
    return pytest.importorskip("anthropic" if fmt == "anthropic" else "openai")


def client(fmt: str, server: LoopbackServer, asynchronous: bool = False):
    mod = sdk(fmt)
    if fmt == "anthropic":
        cls = mod.AsyncAnthropic if asynchronous else mod.Anthropic
        return cls(base_url=server.url, api_key="test-key", max_retries=0, timeout=20)
    cls = mod.AsyncOpenAI if asynchronous else mod.OpenAI
    return cls(base_url=server.url + "/v1", api_key="test-key", max_retries=0, timeout=20)


REQUEST = {"model": "test-model", "messages": [{"role": "user", "content": "go"}]}


def create(fmt: str, c: Any):
    """A raw SDK stream (sync or async client alike; await it for the async one)."""
    if fmt == "anthropic":
        return c.messages.create(max_tokens=64_000, stream=True, **REQUEST)
    return c.chat.completions.create(stream=True, **REQUEST)


class Collect:
    """Feeds events to an EventBuilder; keeps flushed calls, argument texts, progress and finishes."""

    def __init__(self) -> None:
        self.builder = EventBuilder()
        self.calls: list[ToolCallRequest] = []
        self.texts: dict[str, str] = {}
        self.progress: list[Any] = []
        self.finished: list[Finished] = []
        self.leftovers: list[Any] = []
        self._pending: dict[int, list[str]] = defaultdict(list)

    def __call__(self, event: Any) -> None:
        out = self.builder.handle(event)
        if isinstance(event, Part):
            if isinstance(event.part, ToolCall) and isinstance(event.part.part, ArgumentChunk):
                self._pending[event.index].append(event.part.part.text)
            self.progress += out
        elif isinstance(event, Flush) and out is not None and isinstance(out.kind, ToolCallRequest):
            self.calls.append(out.kind)
            self.texts[out.kind.id] = "".join(self._pending.pop(event.index, []))
        elif isinstance(event, Finished):
            self.finished.append(event)
            self.leftovers += out


# -- complete streams -----------------------------------------------------------------------------


@pytest.mark.parametrize("key", COMPLETE)
def test_sdk_stream_rebuilds_the_arguments_sent(key):
    rec = OWN[key]
    body = body_of(rec.format, rec.items)
    with LoopbackServer(Reply.body(body, PIECES)) as server:
        c = client(rec.format, server)
        seen = Collect()
        with create(rec.format, c) as stream:
            for event in ADAPTERS[rec.format].to_events(stream):
                seen(event)
        c.close()
        exchange = server.wait(1)
    assert exchange.completed and exchange.bytes_written == len(body)
    assert [(x.id, x.name, x.arguments) for x in seen.calls] == rec.tool_calls
    assert all(x.error is None for x in seen.calls)
    for call_id, text in rec.arg_texts.items():
        assert seen.texts[call_id] == text  # exactly the argument text the server sent
    assert [f.reason.name for f in seen.finished] == [rec.finish]
    assert seen.leftovers == []


@pytest.mark.parametrize("key", COMPLETE)
async def test_async_sdk_stream_rebuilds_the_arguments_sent(key):
    rec = OWN[key]
    with LoopbackServer(Reply.body(body_of(rec.format, rec.items), PIECES)) as server:
        c = client(rec.format, server, asynchronous=True)
        seen = Collect()
        stream = await create(rec.format, c)
        async for event in ADAPTERS[rec.format].ato_events(stream):
            seen(event)
        await c.close()
    assert [(x.id, x.name, x.arguments) for x in seen.calls] == rec.tool_calls
    for call_id, text in rec.arg_texts.items():
        assert seen.texts[call_id] == text
    assert [f.reason.name for f in seen.finished] == [rec.finish]


# -- progress while the body is still on its way --------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_path_is_done_while_the_rest_is_still_streaming(fmt):
    rec = OWN[f"{fmt}/create_file_20k"]
    body = body_of(fmt, rec.items)
    hold = len(body) // 3  # the server stops here until the client has seen the path
    with LoopbackServer(Reply.body(body, PIECES, hold_after=hold)) as server:
        c = client(fmt, server)
        seen = Collect()
        path_done_at = None
        with create(fmt, c) as stream:
            for event in ADAPTERS[fmt].to_events(stream):
                seen(event)
                if path_done_at is None and ObjectEntry("path", DONE) in [p.fragment for p in seen.progress]:
                    exchange = server.exchanges[0]
                    path_done_at = exchange.bytes_written
                    assert not exchange.completed
                    server.release()
        c.close()
        exchange = server.wait(1)
    assert path_done_at is not None and path_done_at <= hold < len(body)
    assert exchange.completed
    assert [(x.id, x.name, x.arguments) for x in seen.calls] == rec.tool_calls


@pytest.mark.parametrize("fmt", FORMATS)
async def test_async_path_is_done_while_the_rest_is_still_streaming(fmt):
    rec = OWN[f"{fmt}/create_file_20k"]
    body = body_of(fmt, rec.items)
    hold = len(body) // 3
    with LoopbackServer(Reply.body(body, PIECES, hold_after=hold)) as server:
        c = client(fmt, server, asynchronous=True)
        released = False
        finished = []
        async for item in aiter_tool_stream(await create(fmt, c)):
            path_done = isinstance(item, ToolCallArgumentProgress) and item.fragment == ObjectEntry("path", DONE)
            if path_done and not released:
                assert not server.exchanges[0].completed
                assert server.exchanges[0].bytes_written <= hold
                server.release()
                released = True
            if isinstance(item, ToolCallFinished):
                finished.append(item)
        await c.close()
    assert released
    assert [(f.id, f.name, f.arguments) for f in finished] == rec.tool_calls


# -- a connection cut mid-argument ----------------------------------------------------------------


def _is_cut_error(fmt: str, exc: BaseException) -> bool:
    if fmt == "anthropic":  # the SDK lets httpx's error through
        return type(exc).__name__ == "RemoteProtocolError" or isinstance(exc, sdk(fmt).APIConnectionError)
    return isinstance(exc, sdk(fmt).APIConnectionError)


@pytest.mark.parametrize("fmt", FORMATS)
def test_connection_cut_mid_argument(fmt):
    rec = OWN[f"{fmt}/create_file_20k"]
    body = body_of(fmt, rec.items)
    with LoopbackServer(Reply.body(body, PIECES, cut_after=len(body) // 2)) as server:
        c = client(fmt, server)
        seen = Collect()
        with pytest.raises(Exception) as info:
            with create(fmt, c) as stream:
                for event in ADAPTERS[fmt].to_events(stream):
                    seen(event)
        c.close()
        assert server.wait(1).cut
    assert _is_cut_error(fmt, info.value), repr(info.value)
    assert seen.finished == [Finished(FinishReason.ERROR)]  # yielded before the SDK's exception
    assert seen.calls == []  # never reported as complete
    assert ObjectEntry("path", DONE) in [p.fragment for p in seen.progress]
    cut = [e for e in seen.leftovers if isinstance(e.kind, ToolCallRequest)]
    assert len(cut) == 1 and cut[0].metadata["incomplete"]
    assert type(cut[0].kind.error).__name__ == "IncompleteJSONError"


@pytest.mark.parametrize("fmt", FORMATS)
async def test_async_connection_cut_mid_argument(fmt):
    rec = OWN[f"{fmt}/create_file_20k"]
    body = body_of(fmt, rec.items)
    with LoopbackServer(Reply.body(body, PIECES, cut_after=len(body) // 2)) as server:
        c = client(fmt, server, asynchronous=True)
        items = []
        with pytest.raises(Exception) as info:
            async for item in aiter_tool_stream(await create(fmt, c)):
                items.append(item)
        await c.close()
    assert _is_cut_error(fmt, info.value), repr(info.value)
    assert not any(isinstance(i, ToolCallFinished) for i in items)
    end = items[-1]
    assert isinstance(end, StreamFinished) and end.reason is FinishReason.ERROR
    assert [e.kind.id for e in end.incomplete if isinstance(e.kind, ToolCallRequest)] == [rec.tool_calls[0][0]]


# -- error events ---------------------------------------------------------------------------------


def test_anthropic_error_event_mid_stream():
    mod = sdk("anthropic")
    rec = OWN["anthropic/create_file_20k"]
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    body = body_of("anthropic", rec.items[:300] + [error])
    with LoopbackServer(Reply.body(body, PIECES)) as server:
        c = client("anthropic", server)
        seen = Collect()
        with pytest.raises(mod.APIStatusError):
            with create("anthropic", c) as stream:
                for event in anthropic_adapter.to_events(stream):
                    seen(event)
        c.close()
    assert seen.finished == [Finished(FinishReason.ERROR)]
    assert seen.calls == []


def test_openai_error_chunk_mid_stream():
    mod = sdk("openai")
    rec = OWN["openai_chat/create_file_20k"]
    body = body_of("openai_chat", rec.items[:300] + [{"error": {"message": "upstream", "code": 502}}])
    with LoopbackServer(Reply.body(body, PIECES)) as server:
        c = client("openai_chat", server)
        seen = Collect()
        with pytest.raises(mod.APIError):
            with create("openai_chat", c) as stream:
                for event in openai_adapter.to_events(stream):
                    seen(event)
        c.close()
    assert seen.finished == [Finished(FinishReason.ERROR)]
    assert seen.calls == []


def test_stream_ending_without_its_final_event():
    rec = OWN["openai_chat/create_file_20k"]
    body = sse(rec.items[:-2])  # no finish_reason, no [DONE]: the SDK ends silently
    with LoopbackServer(Reply.body(body, PIECES)) as server:
        c = client("openai_chat", server)
        with create("openai_chat", c) as stream:
            items = list(iter_tool_stream(stream))
        c.close()
    assert not any(isinstance(i, ToolCallFinished) for i in items)
    assert items[-1].reason is FinishReason.ERROR and items[-1].incomplete


# -- a client that stops early --------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_stopping_early_closes_the_connection(fmt):
    rec = OWN[f"{fmt}/create_file_20k"]
    body = body_of(fmt, rec.items)
    with LoopbackServer(Reply.body(body, PIECES, hold_after=len(body) // 3)) as server:
        c = client(fmt, server)
        for item in iter_tool_stream(create(fmt, c)):
            if isinstance(item, ToolCallArgumentProgress) and item.fragment == ObjectEntry("path", DONE):
                break
        exchange = server.wait(1)
        c.close()
    assert exchange.client_closed and not exchange.completed


@pytest.mark.parametrize("fmt", FORMATS)
async def test_async_stopping_early_closes_the_connection(fmt):
    rec = OWN[f"{fmt}/create_file_20k"]
    body = body_of(fmt, rec.items)
    with LoopbackServer(Reply.body(body, PIECES, hold_after=len(body) // 3)) as server:
        c = client(fmt, server, asynchronous=True)
        gen = aiter_tool_stream(await create(fmt, c))
        async for item in gen:
            if isinstance(item, ToolCallStarted):
                break
        await gen.aclose()
        exchange = server.wait(1)
        await c.close()
    assert exchange.client_closed and not exchange.completed


# -- the SDKs' own stream helpers as input ----------------------------------------------------------


def test_anthropic_messages_stream_helper_as_input():
    rec = OWN["anthropic/thinking_then_call"]
    with LoopbackServer(Reply.body(body_of("anthropic", rec.items), PIECES)) as server:
        c = client("anthropic", server)
        with c.messages.stream(max_tokens=1024, **REQUEST) as stream:
            items = list(iter_tool_stream(stream))
            final = stream.get_final_message()
        c.close()
    finished = [i for i in items if isinstance(i, ToolCallFinished)]
    assert [(f.id, f.name, f.arguments) for f in finished] == rec.tool_calls
    sdk_call = [b for b in final.content if b.type == "tool_use"][0]
    assert finished[0].arguments == sdk_call.input
    assert items[-1].events[0].metadata["signature"] == final.content[0].signature


def test_openai_chat_stream_helper_as_input():
    rec = OWN["openai_chat/modify_file"]
    with LoopbackServer(Reply.body(body_of("openai_chat", rec.items), PIECES)) as server:
        c = client("openai_chat", server)
        with c.chat.completions.stream(**REQUEST) as stream:
            items = list(iter_tool_stream(stream))
            final = stream.get_final_completion()
        c.close()
    finished = [i for i in items if isinstance(i, ToolCallFinished)]
    assert [(f.id, f.name, f.arguments) for f in finished] == rec.tool_calls
    assert finished[0].arguments == json.loads(final.choices[0].message.tool_calls[0].function.arguments)


# -- the loopback server itself (stdlib client) -----------------------------------------------------


@contextlib.contextmanager
def get(server: LoopbackServer) -> Iterator[Any]:
    conn = HTTPConnection("127.0.0.1", server.port, timeout=10)
    conn.request("POST", "/anything", body=b'{"x": 1}', headers={"Content-Type": "application/json"})
    try:
        yield conn.getresponse()
    finally:
        conn.close()


def test_loopback_serves_pieces_and_records_the_exchange():
    body = ndjson([{"a": i} for i in range(50)])
    with LoopbackServer(Reply(split(body, 5), content_type="application/x-ndjson")) as server:
        with get(server) as response:
            assert response.status == 200
            assert response.getheader("Content-Type") == "application/x-ndjson"
            assert response.read() == body
        exchange = server.wait(1)
    assert exchange.completed and exchange.bytes_written == len(body) == server.bytes_written
    assert exchange.method == "POST" and exchange.path == "/anything" and exchange.json() == {"x": 1}


def test_loopback_cut_and_queue():
    body = sse([{"n": i} for i in range(20)], done=True)
    with LoopbackServer(Reply.body(body, 10, cut_after=55), Reply.body(body, 10)) as server:
        with get(server) as response, pytest.raises(IncompleteRead):
            response.read()
        assert server.wait(1).cut and server.exchanges[0].bytes_written == 55
        with get(server) as response:
            assert response.read() == body  # the next queued reply
        with get(server) as response:
            assert response.read() == body  # the last reply repeats
    assert split(b"abcdefg", [2, 3]) == [b"ab", b"cde", b"fg"]
    framed = sse([{"type": "ping"}], event_field="type", comments=["keep"])
    assert framed == b': keep\n\nevent: ping\ndata: {"type":"ping"}\n\n'

