"""Text tool calls through the official clients: Chat Completions content deltas (``openai``) and Ollama
(``ollama``) from the loopback server, as a local server without a tool parser sends them; and hypothesis
splits of every format's text, inside markers and multi-byte characters."""

from __future__ import annotations

from typing import Any

import pytest
from loopback import LoopbackServer, Reply, ndjson, sse
from test_textcalls import CASES, IDS, build, scan, summary

from argstream.events import ChatMessage, ChatReasoning, FinishReason, ToolCallRequest
from argstream.providers import ollama, openai_chat
from argstream.textcalls import atext_tool_call_events, text_tool_call_events

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


def pieces(text: str, size: int) -> list[str]:
    return [text[k : k + size] for k in range(0, len(text), size)]


def chat_chunks(text: str, size: int) -> list[dict]:
    """Chat Completions chunks carrying ``text`` as content deltas, then ``finish_reason: stop``."""
    base = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "local"}
    out = [{**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}]}]
    for piece in pieces(text, size):
        out.append({**base, "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]})
    out.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    return out


def ollama_lines(text: str, size: int) -> list[dict]:
    base = {"model": "local", "created_at": "2025-01-01T00:00:00Z"}
    out = [{**base, "message": {"role": "assistant", "content": p}, "done": False} for p in pieces(text, size)]
    out.append({**base, "message": {"role": "assistant", "content": ""}, "done": True, "done_reason": "stop"})
    return out


def check(persisted: list[Any], reader: str, calls: list, reasoning: str) -> None:
    requests = [e.kind for e in persisted if type(e.kind) is ToolCallRequest]
    assert [(r.name, r.arguments) for r in requests] == calls
    assert all(r.error is None for r in requests)
    assert "".join(e.kind.text for e in persisted if type(e.kind) is ChatMessage) == reader
    assert "".join(e.kind.text for e in persisted if type(e.kind) is ChatReasoning) == reasoning


@pytest.fixture(scope="module")
def openai_sdk() -> Any:
    return pytest.importorskip("openai")


@pytest.mark.parametrize(("fmt", "text", "reader", "calls", "reasoning"), CASES, ids=IDS)
def test_openai_chat_content_deltas(openai_sdk: Any, fmt: str, text: str, reader: str, calls: list,
                                    reasoning: str) -> None:
    body = sse(chat_chunks(text, 3), done=True)
    with LoopbackServer(Reply.body(body, 37, content_type="text/event-stream")) as server:
        client = openai_sdk.OpenAI(base_url=server.url + "/v1", api_key="test", max_retries=0, timeout=20)
        stream = client.chat.completions.create(model="local", messages=[{"role": "user", "content": "go"}],
                                                stream=True)
        events = list(text_tool_call_events(openai_chat.to_events(stream), fmt))
    check(build(events), reader, calls, reasoning)
    assert events[-1].reason is (FinishReason.TOOL_USE if calls else FinishReason.COMPLETED)


async def test_openai_chat_async(openai_sdk: Any) -> None:
    fmt, text, reader, calls, reasoning = CASES[0]
    body = sse(chat_chunks(text, 2), done=True)
    with LoopbackServer(Reply.body(body, 11, content_type="text/event-stream")) as server:
        client = openai_sdk.AsyncOpenAI(base_url=server.url + "/v1", api_key="test", max_retries=0, timeout=20)
        stream = await client.chat.completions.create(model="local", messages=[{"role": "user", "content": "go"}],
                                                      stream=True)
        events = [e async for e in atext_tool_call_events(openai_chat.ato_events(stream), fmt)]
    check(build(events), reader, calls, reasoning)


@pytest.mark.parametrize(("fmt", "text", "reader", "calls", "reasoning"), CASES, ids=IDS)
def test_ollama_content(fmt: str, text: str, reader: str, calls: list, reasoning: str) -> None:
    ollama_sdk = pytest.importorskip("ollama")
    body = ndjson(ollama_lines(text, 4))
    with LoopbackServer(Reply.body(body, 29, content_type="application/x-ndjson")) as server:
        stream = ollama_sdk.Client(host=server.url).chat(model="local", messages=[{"role": "user", "content": "go"}],
                                                         stream=True)
        events = list(text_tool_call_events(ollama.to_events(stream), fmt))
    check(build(events), reader, calls, reasoning)


@pytest.mark.parametrize(("fmt", "text", "reader", "calls", "reasoning"), CASES, ids=IDS)
@given(cuts=st.lists(st.integers(0, 1 << 16), max_size=12))
@settings(max_examples=30)
def test_random_splits(fmt: str, text: str, reader: str, calls: list, reasoning: str, cuts: list[int]) -> None:
    points = sorted({c % (len(text) + 1) for c in cuts})
    bounds = [0, *points, len(text)]
    chunks = [text[a:b] for a, b in zip(bounds, bounds[1:]) if b > a]
    assert summary(scan(fmt, chunks)) == (reader, calls, reasoning, [])


ATOMS = [*'<>{}[]"\\/`|_=\n ,:toolcal', "<tool_call>", "</tool_call>", "```", '{"name": "f", "arguments": ', "é", "🙂"]


@given(data=st.lists(st.sampled_from(ATOMS), max_size=40).map("".join),
       cuts=st.lists(st.integers(0, 1 << 16), max_size=8))
@settings(max_examples=150)
def test_garbage_never_raises_and_never_loses_text_outside_calls(data: str, cuts: list[int]) -> None:
    points = sorted({c % (len(data) + 1) for c in cuts})
    bounds = [0, *points, len(data)]
    chunks = [data[a:b] for a, b in zip(bounds, bounds[1:]) if b > a]
    got = summary_safe(scan("hermes", chunks))
    whole = summary_safe(scan("hermes", [data]))
    assert got == whole
    if "<tool_call>" not in data:
        assert got[0] == data


def summary_safe(items: list[Any]) -> tuple:
    from argstream.textcalls import CallArguments, CallBegin, CallEnd, TextPiece

    text = "".join(i.text for i in items if type(i) is TextPiece)
    args: dict[int, list[str]] = {}
    shape = []
    for i in items:
        if type(i) is CallBegin:
            args[i.call] = []
            shape.append(("begin", i.name))
        elif type(i) is CallArguments:
            args[i.call].append(i.text)
        elif type(i) is CallEnd:
            shape.append(("end", "".join(args[i.call]), bool(i.error)))
    return text, shape
