"""The raw HTTP body into ``iter_tool_stream`` / ``aiter_tool_stream``: SSE or NDJSON, text or UTF-8 bytes,
cut anywhere (a multi-byte character split across reads included), as httpx and aiohttp give it."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_pipeline_fastpath import canon

from argstream import aiter_tool_stream, iter_tool_stream
from argstream.providers import ProviderProtocolError
from argstream.stream import StreamFinished, ToolCallFinished

ARGS = {"path": "src/é.py", "content": "print('héllo ☃ 🎉')\n" * 20}


def anthropic_sse() -> str:
    text = json.dumps(ARGS, ensure_ascii=False)
    events = [{"type": "message_start", "message": {"id": "m1", "content": []}},
              {"type": "content_block_start", "index": 0,
               "content_block": {"type": "tool_use", "id": "toolu_1", "name": "fs_create_file", "input": {}}}]
    events += [{"type": "content_block_delta", "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": text[i:i + 7]}} for i in range(0, len(text), 7)]
    events += [{"type": "content_block_stop", "index": 0},
               {"type": "message_delta", "delta": {"stop_reason": "tool_use"}}, {"type": "message_stop"}]
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e, ensure_ascii=False)}\n\n" for e in events)


def ollama_ndjson() -> str:
    lines = [{"model": "m", "message": {"role": "assistant", "content": "",
                                        "tool_calls": [{"function": {"name": "fs_create_file", "arguments": ARGS}}]},
              "done": False},
             {"model": "m", "message": {"role": "assistant", "content": ""}, "done": True, "done_reason": "stop"}]
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)


def cut(data: Any, sizes: list[int]) -> list[Any]:
    out, i, k = [], 0, 0
    while i < len(data):
        n = sizes[k % len(sizes)] if sizes else len(data)
        out.append(data[i:i + max(n, 1)])
        i += max(n, 1)
        k += 1
    return out


def calls(items: Any) -> list[tuple[str, dict]]:
    found = [(i.name, i.arguments) for i in items if isinstance(i, ToolCallFinished)]
    return found


@pytest.mark.parametrize("body", [anthropic_sse, ollama_ndjson])
@given(sizes=st.lists(st.integers(1, 40), max_size=8), as_bytes=st.booleans())
def test_raw_chunks_cut_anywhere_give_the_calls(body: Any, sizes: list[int], as_bytes: bool) -> None:
    data: Any = body().encode() if as_bytes else body()
    items = list(iter_tool_stream(cut(data, sizes)))
    assert calls(items) == [("fs_create_file", ARGS)]
    assert isinstance(items[-1], StreamFinished) and items[-1].reason.value == "tool_use"


@pytest.mark.parametrize("body", [anthropic_sse, ollama_ndjson])
@given(sizes=st.lists(st.integers(1, 40), max_size=8), as_bytes=st.booleans(), fail_at=st.none() | st.integers(0, 60))
def test_the_async_twin_gives_the_synchronous_items(body: Any, sizes: list[int], as_bytes: bool,
                                                    fail_at: int | None) -> None:
    """``aiter_tool_stream`` on raw chunks, from an async source or a plain list, gives what
    ``iter_tool_stream`` gives for the same chunks, item for item, and raises what it raises after
    the same items (a source that fails mid-stream)."""
    data: Any = body().encode() if as_bytes else body()
    chunks = cut(data, sizes)

    def source() -> Any:
        for n, chunk in enumerate(chunks):
            if n == fail_at:
                raise ConnectionError("the connection dropped")
            yield chunk

    async def asource() -> Any:
        for chunk in source():
            yield chunk

    def outcome(items: Any) -> tuple[list[Any], Any]:
        out: list[Any] = []
        try:
            for item in items:
                out.append(canon(item))
        except ConnectionError as exc:
            return out, str(exc)
        return out, None

    async def collect(stream: Any) -> tuple[list[Any], Any]:
        out: list[Any] = []
        try:
            async for item in aiter_tool_stream(stream):
                out.append(canon(item))
        except ConnectionError as exc:
            return out, str(exc)
        return out, None

    expected = outcome(iter_tool_stream(source()))
    assert asyncio.run(collect(asource())) == expected
    assert asyncio.run(collect(source())) == expected  # a plain iterable under the async twin


def test_the_async_twin_reads_an_async_byte_stream() -> None:
    async def body() -> Any:
        for piece in cut(anthropic_sse().encode(), [5, 3, 11]):
            yield piece

    async def collect() -> list[Any]:
        return [item async for item in aiter_tool_stream(body())]

    assert calls(asyncio.run(collect())) == [("fs_create_file", ARGS)]


def test_httpx_iter_bytes_over_a_mock_transport() -> None:
    httpx = pytest.importorskip("httpx")
    payload = anthropic_sse().encode()

    def handler(request: Any) -> Any:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, stream=httpx.ByteStream(payload))

    with httpx.Client(transport=httpx.MockTransport(handler)) as client:
        with client.stream("POST", "https://api.example/v1/messages", json={}) as response:
            assert calls(iter_tool_stream(response.iter_bytes())) == [("fs_create_file", ARGS)]


def test_a_body_that_is_not_an_event_stream_ends_in_error_then_raises() -> None:
    items: list[Any] = []
    with pytest.raises(ProviderProtocolError):
        for item in iter_tool_stream(["data: {\"type\": \"message_start\", \"message\": {}}\n\n", "data: nope\n\n"]):
            items.append(item)
    assert isinstance(items[-1], StreamFinished) and items[-1].reason.value == "error"


def test_bytes_that_are_not_utf8_end_in_error_then_raise() -> None:
    with pytest.raises(ProviderProtocolError):
        list(iter_tool_stream([b"data: {\"type\": \"ping\"}\n\n", b"data: \xff\xfe\n\n"]))
