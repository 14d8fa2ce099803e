"""Issue 9's edge cases through the official clients, streamed from the loopback server (tests/loopback.py).

Parallel calls that all reuse ``tool_calls[].index == 0`` (Groq, vLLM) through the real ``openai``
client, sync and async, and a duplicated Anthropic ``message_start`` through the real
``anthropic`` client: the SDKs pass the chunks through unmerged, and the adapters must still
tell the calls apart. Each test skips when its SDK is not installed.
"""

from __future__ import annotations

import pytest
from loopback import LoopbackServer, Reply, sse

from argstream.events import FinishReason
from argstream.providers import anthropic as anthropic_adapter
from argstream.providers import openai_chat

from _provider_runs import collect

REQUEST = {"model": "test-model", "messages": [{"role": "user", "content": "go"}]}


def chunk(delta: dict, finish: str | None = None) -> dict:
    return {"id": "chatcmpl-groq", "object": "chat.completion.chunk", "created": 1, "model": "llama",
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}


def entry(call_id: str | None, name: str | None, arguments: str) -> dict:
    out: dict = {"index": 0, "function": {"arguments": arguments}}
    if call_id is not None:
        out.update(id=call_id, type="function")
        out["function"]["name"] = name
    return out


INDEX_REUSE = [
    chunk({"role": "assistant", "content": None}),
    chunk({"tool_calls": [entry("call_a", "get_weather", '{"city": "Paris"}')]}),
    chunk({"tool_calls": [entry("call_b", "get_weather", '{"city": ')]}),
    chunk({"tool_calls": [entry(None, None, '"Rome"}')]}),
    chunk({"tool_calls": [entry("call_c", "get_time", '{"zone": "CET"}')]}),
    chunk({}, "tool_calls"),
]
WANT = [("call_a", "get_weather", {"city": "Paris"}), ("call_b", "get_weather", {"city": "Rome"}),
        ("call_c", "get_time", {"zone": "CET"})]


def test_index_reuse_through_the_openai_client() -> None:
    openai = pytest.importorskip("openai")
    with LoopbackServer(Reply.body(sse(INDEX_REUSE, done=True), 11)) as server:
        client = openai.OpenAI(base_url=server.url + "/v1", api_key="test-key", max_retries=0, timeout=20)
        with client.chat.completions.create(stream=True, **REQUEST) as stream:
            events = list(openai_chat.to_events(stream))
        client.close()
    outcome = collect(events)
    assert [(c.id, c.name, c.arguments) for c in outcome.runnable] == WANT
    assert [f.reason for f in outcome.finished] == [FinishReason.TOOL_USE]


async def test_index_reuse_through_the_async_openai_client() -> None:
    openai = pytest.importorskip("openai")
    with LoopbackServer(Reply.body(sse(INDEX_REUSE, done=True), 5)) as server:
        client = openai.AsyncOpenAI(base_url=server.url + "/v1", api_key="test-key", max_retries=0, timeout=20)
        stream = await client.chat.completions.create(stream=True, **REQUEST)
        events = [event async for event in openai_chat.ato_events(stream)]
        await client.close()
    assert [(c.id, c.name, c.arguments) for c in collect(events).runnable] == WANT


def test_a_duplicated_message_start_through_the_anthropic_client() -> None:
    anthropic = pytest.importorskip("anthropic")
    start = {"type": "message_start", "message": {
        "id": "msg_dup", "type": "message", "role": "assistant", "model": "claude", "content": [],
        "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}}
    items = [start, start,
             {"type": "content_block_start", "index": 0, "content_block": {
                 "type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {}}},
             {"type": "content_block_delta", "index": 0,
              "delta": {"type": "input_json_delta", "partial_json": '{"q": 1}'}},
             {"type": "content_block_stop", "index": 0},
             {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None},
              "usage": {"output_tokens": 5}},
             {"type": "message_stop"}]
    body = sse(items, event_field="type")
    with LoopbackServer(Reply.body(body, 9)) as server:
        client = anthropic.Anthropic(base_url=server.url, api_key="test-key", max_retries=0, timeout=20)
        with client.messages.create(max_tokens=100, stream=True, **REQUEST) as stream:
            events = list(anthropic_adapter.to_events(stream))
        client.close()
    outcome = collect(events)
    assert [(c.id, c.name, c.arguments) for c in outcome.runnable] == [("toolu_1", "lookup", {"q": 1})]
    assert [f.reason for f in outcome.finished] == [FinishReason.TOOL_USE]
