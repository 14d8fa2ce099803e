"""``TurnCoordinator`` with the real SDK clients streaming from the loopback server.

The server sends one SSE frame per HTTP chunk. To stand in for a model that is still generating,
the single-call tests hold the response right after the frame that completes ``path`` (the
server writes nothing more until the client closes): the coordinator must decide, prompt and
close the stream with only those bytes, and everything after them is never streamed. Without
the decline, the client would wait for more and its read timeout would fail the test.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from argstream.events import ArgumentChunk, Part, ToolCall
from argstream.policy import ToolCallState, TurnCoordinator, load_policies
from argstream.providers import anthropic as anthropic_events
from argstream.providers import openai_chat as openai_events
from argstream.providers.anthropic import AnthropicAdapter
from argstream.providers.openai_chat import OpenAIChatAdapter

loopback = pytest.importorskip("loopback")
recordings = pytest.importorskip("recordings.generate")

pytestmark = pytest.mark.sdk

TOOLS = {
    "fs_create_file": {
        "type": "object",
        "properties": {"path": {"type": "string", "format": "path"}, "content": {"type": "string"}},
        "required": ["path", "content"],
    }
}
POLICIES = load_policies(
    '[tools.fs_create_file.policy]\nrun = [{ arg = "/path", prefix = "src/", mode = "ask" }, { mode = "skip" }]\n',
    tools=TOOLS,
)
ANTHROPIC_TOOLS = [{"name": n, "description": "create a file", "input_schema": s} for n, s in TOOLS.items()]
OPENAI_TOOLS = [{"type": "function", "function": {"name": n, "description": "create a file", "parameters": s}}
                for n, s in TOOLS.items()]


def frames(items: list[dict], fmt: str) -> list[bytes]:
    """One SSE frame per wire item (the pieces the server writes one at a time)."""
    if fmt == "anthropic":
        return [loopback.sse([item], event_field="type") for item in items]
    return [loopback.sse([item]) for item in items] + [b"data: [DONE]\n\n"]


def argument_frame(items: list[dict], fmt: str, chunk: int) -> int:
    """The index of the wire item that carries argument chunk number ``chunk`` (1-based)."""
    adapter = AnthropicAdapter() if fmt == "anthropic" else OpenAIChatAdapter()
    seen = 0
    for i, item in enumerate(items):
        for event in adapter.feed(item):
            if isinstance(event, Part) and isinstance(event.part, ToolCall) and type(event.part.part) is ArgumentChunk:
                seen += 1
                if seen == chunk:
                    return i
    raise AssertionError(f"no argument chunk {chunk}")


def open_stream(fmt: str, url: str) -> tuple[Any, Any]:
    """A streaming request through the official SDK; returns (stream, events)."""
    if fmt == "anthropic":
        sdk = pytest.importorskip("anthropic")
        client = sdk.Anthropic(base_url=url, api_key="test", max_retries=0, timeout=20)
        stream = client.messages.create(model="claude-opus-4-6", max_tokens=32000, tools=ANTHROPIC_TOOLS,
                                        messages=[{"role": "user", "content": "create the module"}], stream=True)
        return stream, anthropic_events.to_events(stream)
    sdk = pytest.importorskip("openai")
    client = sdk.OpenAI(base_url=url + "/v1", api_key="test", max_retries=0, timeout=20)
    stream = client.chat.completions.create(model="gpt-4.1", tools=OPENAI_TOOLS, stream=True,
                                            messages=[{"role": "user", "content": "create the module"}])
    return stream, openai_events.to_events(stream)


def deciding_chunk(items: list[dict], module: Any) -> tuple[int, int]:
    """(argument chunk that decides, argument chunks in all), from a run that approves (the early answer
    covering the call, so that the decision stays the early one)."""
    result = TurnCoordinator(POLICIES, prompt=lambda c: True, early_answer="call").run(module.to_events(items))
    call = result.calls[-1]
    assert call.decided_at is not None
    return call.decided_at, call.chunks


@pytest.mark.parametrize("fmt", ["anthropic", "openai_chat"])
def test_declining_the_only_call_closes_the_stream_early(fmt: str) -> None:
    rec = recordings.RECORDINGS[f"{fmt}/create_file_20k"]
    module = anthropic_events if fmt == "anthropic" else openai_events
    decided_at, total_chunks = deciding_chunk(rec.items, module)
    pieces = frames(rec.items, fmt)
    body = sum(len(p) for p in pieces)
    held = sum(len(p) for p in pieces[: argument_frame(rec.items, fmt, decided_at) + 1])

    prompts: list[tuple[int | None, dict, str | None]] = []

    def prompt(call: ToolCallState) -> bool:
        prompts.append((call.decided_at, call.partial_arguments(), call.name))
        return False

    with loopback.LoopbackServer(loopback.Reply(pieces, hold_after=held)) as server:
        stream, events = open_stream(fmt, server.url)
        result = TurnCoordinator(POLICIES, prompt=prompt).run(events, close=stream.close)
        exchange = server.wait(1)

    (_, _, args), = rec.tool_calls
    assert prompts == [(decided_at, {"path": args["path"]}, "fs_create_file")]
    call = result.calls[-1]
    assert call.skipped and call.response == "skipped by user" and result.cancelled
    assert call.chunks == decided_at < total_chunks // 100
    assert exchange.client_closed and not exchange.completed
    assert exchange.bytes_written == held
    assert body - exchange.bytes_written > 0.99 * body  # never streamed


def interleaved_chat(first: dict, second: dict, size: int = 9) -> list[dict]:
    """A Chat Completions stream with two calls whose argument deltas alternate."""
    def chunk(delta: dict, finish: str | None = None) -> dict:
        return {"id": "chatcmpl-two", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4.1",
                "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}

    items = [chunk({"role": "assistant", "content": None})]
    texts = [json.dumps(first), json.dumps(second)]
    for n in (0, 1):
        items.append(chunk({"tool_calls": [{"index": n, "id": f"call_{n}", "type": "function",
                                            "function": {"name": "fs_create_file", "arguments": ""}}]}))
    queues = [[t[i:i + size] for i in range(0, len(t), size)] for t in texts]
    while any(queues):
        for n, queue in enumerate(queues):
            if queue:
                items.append(chunk({"tool_calls": [{"index": n, "function": {"arguments": queue.pop(0)}}]}))
    items.append(chunk({}, "tool_calls"))
    return items


def test_two_calls_in_flight_keep_the_stream_open() -> None:
    first = {"path": "src/declined.rs", "content": "x" * 3000}
    second = {"path": "src/kept.rs", "content": "fn kept() {}\n" * 200}
    items = interleaved_chat(first, second)
    pieces = frames(items, "openai_chat")
    ran: list[tuple[str, dict]] = []
    with loopback.LoopbackServer(loopback.Reply(pieces)) as server:
        stream, events = open_stream("openai_chat", server.url)
        co = TurnCoordinator(POLICIES, prompt=lambda c: c.id == "call_1",
                             execute=lambda c: ran.append((c.id, c.arguments)))
        result = co.run(events, close=stream.close)
        exchange = server.wait(1)

    declined, kept = result.calls
    assert declined.skipped and declined.dropped and declined.dropped_chunks > 0
    assert declined.arguments is None
    assert kept.approved and kept.arguments == second and ran == [("call_1", second)]
    assert not result.cancelled
    assert exchange.completed and exchange.bytes_written == sum(len(p) for p in pieces)


async def test_async_client_decline_closes_the_stream() -> None:
    sdk = pytest.importorskip("anthropic")
    rec = recordings.RECORDINGS["anthropic/create_file_20k"]
    decided_at, _ = deciding_chunk(rec.items, anthropic_events)
    pieces = frames(rec.items, "anthropic")
    held = sum(len(p) for p in pieces[: argument_frame(rec.items, "anthropic", decided_at) + 1])

    async def prompt(call: ToolCallState) -> bool:
        return False

    with loopback.LoopbackServer(loopback.Reply(pieces, hold_after=held)) as server:
        client = sdk.AsyncAnthropic(base_url=server.url, api_key="test", max_retries=0, timeout=20)
        stream = await client.messages.create(model="claude-opus-4-6", max_tokens=32000, tools=ANTHROPIC_TOOLS,
                                              messages=[{"role": "user", "content": "go"}], stream=True)
        result = await TurnCoordinator(POLICIES, prompt=prompt).arun(anthropic_events.ato_events(stream),
                                                                      close=stream.close)
        exchange = server.wait(1)
        await client.close()
    assert result.cancelled and result.calls[-1].skipped
    assert exchange.client_closed and exchange.bytes_written == held
