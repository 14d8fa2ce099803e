"""The real official clients (openai Responses, google-genai, ollama) reading streams from a loopback server.

The bodies are our own recordings (tests/recordings/{responses,gemini,ollama}_*.chunks.txt, with
``*.expected.json`` beside them) and the shared Gemini recordings, framed as each API frames them
(SSE with ``event:`` lines, SSE with CRLF, NDJSON) and sent in small HTTP chunks. The SDK's own
stream objects go through ``to_events`` and an ``EventBuilder``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from argstream import DONE, ObjectEntry, String
from argstream.builder import EventBuilder
from argstream.events import (
    ChatMessage,
    ChatReasoning,
    ConversationEvent,
    Finished,
    FinishReason,
    Flush,
    Part,
    ToolCall,
    ToolCallRequest,
)
from argstream.providers import gemini, ollama, openai_responses

from conftest import RECORDINGS
from loopback import LoopbackServer, Reply, ndjson, sse

pytestmark = pytest.mark.sdk

OWN = Path(__file__).resolve().parent / "recordings"
MESSAGES = [{"role": "user", "content": "Create the greeting module."}]


def recording(name: str) -> tuple[list[dict], dict]:
    items = [json.loads(line) for line in (OWN / f"{name}.chunks.txt").read_text(encoding="utf-8").splitlines()]
    return items, json.loads((OWN / f"{name}.expected.json").read_text(encoding="utf-8"))


class Collected:
    """Events through an ``EventBuilder``: flushed events, progress fragments, finishes."""

    def __init__(self) -> None:
        self.builder = EventBuilder()
        self.events: list[Any] = []
        self.flushed: list[ConversationEvent] = []
        self.progress: list[Any] = []
        self.finished: list[Finished] = []

    def add(self, event: Any) -> list[Any]:
        self.events.append(event)
        result = self.builder.handle(event)
        if isinstance(event, Finished):
            self.finished.append(event)
            return []
        if isinstance(event, Part):
            self.progress += [p.fragment for p in result]
            return result
        if result is not None:
            self.flushed.append(result)
        return []

    def calls(self) -> list[ToolCallRequest]:
        return [e.kind for e in self.flushed if isinstance(e.kind, ToolCallRequest)]

    def texts(self, kind: type) -> list[str]:
        return [e.kind.text for e in self.flushed if isinstance(e.kind, kind)]


def collect(events: Any) -> Collected:
    out = Collected()
    for event in events:
        out.add(event)
    return out


def drain_until_error(events: Any) -> tuple[Collected, BaseException]:
    out = Collected()
    try:
        for event in events:
            out.add(event)
    except Exception as exc:  # the SDK's exception, re-raised by to_events
        return out, exc
    raise AssertionError("the stream did not raise")


def check_expected(got: Collected, expected: dict, ids: list[str] | None = None) -> None:
    calls = got.calls()
    assert [(c.id, c.name, c.arguments, c.error) for c in calls] == [
        (i, w["name"], w["arguments"], None)
        for i, w in zip(ids or [w["id"] for w in expected["tool_calls"]], expected["tool_calls"])
    ]
    assert got.texts(ChatMessage) == [expected["text"]]
    assert got.texts(ChatReasoning) == [expected["reasoning"]]
    assert [f.reason.name for f in got.finished] == expected["finish"]
    assert isinstance(got.events[-1], Finished)


def frames_until(frames: list[bytes], items: list[dict], predicate: Any) -> int:
    """Body bytes up to and including the frame of the first item matching ``predicate``."""
    for n, item in enumerate(items):
        if predicate(item):
            return sum(len(f) for f in frames[: n + 1])
    raise AssertionError("no such item")


def _lazy(make: Any) -> Any:
    """An iterable that makes the SDK call on first iteration (so its exception passes through the driver)."""
    yield from make()


# -- OpenAI Responses -------------------------------------------------------------------------


@pytest.fixture
def openai_sdk() -> Any:
    return pytest.importorskip("openai")


def responses_client(openai_sdk: Any, server: LoopbackServer, cls: str = "OpenAI") -> Any:
    return getattr(openai_sdk, cls)(base_url=server.url + "/v1", api_key="test", max_retries=0, timeout=20)


def test_responses_stream_through_the_sdk(openai_sdk: Any) -> None:
    items, expected = recording("responses_create_and_modify")
    with LoopbackServer(Reply.body(sse(items, event_field="type"), 97)) as server:
        stream = responses_client(openai_sdk, server).responses.create(model="gpt-5.1", input="hi", stream=True)
        got = collect(openai_responses.to_events(stream))
        assert server.wait().completed and server.exchanges[0].path == "/v1/responses"
    assert type(stream).__module__.startswith("openai")
    check_expected(got, expected)
    assert got.flushed[0].metadata["encrypted_content"] == "gAAAAABargstream-encrypted-2"


def test_responses_path_is_done_before_the_content_finishes_streaming(openai_sdk: Any) -> None:
    items, expected = recording("responses_create_and_modify")
    frames = [sse([item], event_field="type") for item in items]
    content = expected["tool_calls"][0]["arguments"]["content"]
    # the server stops once the first characters of the content are out, and waits until released
    sent: list[str] = []

    def content_started(item: dict) -> bool:
        if item["type"] == "response.function_call_arguments.delta":
            sent.append(item["delta"])
        text = "".join(sent)
        return '"content":"' in text and not text.endswith('"content":"')

    hold = frames_until(frames, items, content_started)
    with LoopbackServer(Reply(frames, hold_after=hold)) as server:
        stream = responses_client(openai_sdk, server).responses.create(model="gpt-5.1", input="hi", stream=True)
        got = Collected()
        held = None
        for event in openai_responses.to_events(stream):
            got.add(event)
            if held is None and any(f == ObjectEntry("content", String(f.value.text)) for f in got.progress
                                    if isinstance(f, ObjectEntry) and isinstance(f.value, String)):
                # the server cannot send more until released: what arrived so far came before the rest
                exchange = server.exchanges[0]
                held = (exchange.bytes_written <= hold and not exchange.completed,
                        ObjectEntry("path", DONE) in got.progress)
                server.release()
        assert server.wait().completed
    assert held == (True, True)
    streamed = "".join(f.value.text for f in got.progress
                       if isinstance(f, ObjectEntry) and f.key == "content" and isinstance(f.value, String))
    assert streamed == content
    check_expected(got, expected)


def test_responses_connection_cut_mid_arguments(openai_sdk: Any) -> None:
    items, _ = recording("responses_create_and_modify")
    body = sse(items, event_field="type")
    cut = frames_until([sse([i], event_field="type") for i in items], items,
                       lambda i: i.get("type") == "response.function_call_arguments.delta") + 40
    with LoopbackServer(Reply.body(body, 64, cut_after=cut)) as server:
        stream = responses_client(openai_sdk, server).responses.create(model="gpt-5.1", input="hi", stream=True)
        got, exc = drain_until_error(openai_responses.to_events(stream))
        assert server.wait().cut
    assert isinstance(exc, openai_sdk.APIConnectionError)
    assert got.events[-1] == Finished(FinishReason.ERROR)
    assert got.calls() == []  # the cut call is never reported complete
    assert got.texts(ChatReasoning) and got.texts(ChatMessage)  # what completed before the cut is kept


def test_responses_error_event(openai_sdk: Any) -> None:
    items, _ = recording("responses_create_and_modify")
    error = {"type": "error", "code": "server_error", "message": "The server had an error", "param": None,
             "sequence_number": 5}
    with LoopbackServer(Reply.body(sse(items[:5] + [error], event_field="type"), 128)) as server:
        stream = responses_client(openai_sdk, server).responses.create(model="gpt-5.1", input="hi", stream=True)
        got = collect(openai_responses.to_events(stream))
    assert got.finished == [Finished(FinishReason.ERROR, {
        "stop_reason": "error", "error": {"code": "server_error", "message": "The server had an error"}})]


def test_responses_http_error_before_the_stream(openai_sdk: Any) -> None:
    body = json.dumps({"error": {"message": "Invalid API key", "type": "invalid_request_error"}}).encode()
    with LoopbackServer(Reply([body], status=401, content_type="application/json")) as server:
        client = responses_client(openai_sdk, server)
        got = Collected()
        with pytest.raises(openai_sdk.AuthenticationError):
            for event in openai_responses.to_events(_lazy(lambda: client.responses.create(
                    model="gpt-5.1", input="hi", stream=True))):
                got.add(event)
    assert got.events == [Finished(FinishReason.ERROR)]


async def test_responses_async(openai_sdk: Any) -> None:
    items, expected = recording("responses_create_and_modify")
    with LoopbackServer(Reply.body(sse(items, event_field="type"), 211)) as server:
        client = responses_client(openai_sdk, server, "AsyncOpenAI")
        stream = await client.responses.create(model="gpt-5.1", input="hi", stream=True)
        got = Collected()
        async for event in openai_responses.ato_events(stream):
            got.add(event)
        await client.close()
    check_expected(got, expected)


async def test_responses_async_connection_cut(openai_sdk: Any) -> None:
    items, _ = recording("responses_create_and_modify")
    body = sse(items, event_field="type")
    with LoopbackServer(Reply.body(body, 64, cut_after=len(body) // 2)) as server:
        client = responses_client(openai_sdk, server, "AsyncOpenAI")
        stream = await client.responses.create(model="gpt-5.1", input="hi", stream=True)
        got = Collected()
        with pytest.raises(openai_sdk.APIConnectionError):
            async for event in openai_responses.ato_events(stream):
                got.add(event)
        await client.close()
    assert got.events[-1] == Finished(FinishReason.ERROR)
    assert got.calls() == []


# -- Gemini (google-genai) ---------------------------------------------------------------------


@pytest.fixture
def genai() -> Any:
    return pytest.importorskip("google.genai")


def gemini_client(genai: Any, server: LoopbackServer) -> Any:
    from google.genai import types

    return genai.Client(api_key="test", http_options=types.HttpOptions(base_url=server.url, timeout=20_000))


def gemini_stream(client: Any) -> Any:
    """Keep ``client`` referenced while streaming: a collected ``genai.Client`` closes its connection pool."""
    return client.models.generate_content_stream(model="gemini-3-flash-preview", contents="hi")


def test_gemini_partial_args_through_the_sdk(genai: Any) -> None:
    items, expected = recording("gemini_partial_args")
    with LoopbackServer(Reply.body(sse(items, newline="\r\n"), 101)) as server:
        client = gemini_client(genai, server)  # kept referenced (see gemini_stream)
        got = collect(gemini.to_events(gemini_stream(client)))
        assert server.wait().completed and ":streamGenerateContent" in server.exchanges[0].path
    check_expected(got, expected)
    create = [e for e in got.flushed if isinstance(e.kind, ToolCallRequest)][0]
    assert create.metadata == {"thought_signature": "Q2lRQmFyZ3N0cmVhbS1zaWduYXR1cmU=", "id_generated": True}


def test_gemini_path_is_done_before_the_content_finishes_streaming(genai: Any) -> None:
    items, expected = recording("gemini_partial_args")
    frames = [sse([item], newline="\r\n") for item in items]
    hold = frames_until(frames, items, lambda i: "$.content" in json.dumps(i))
    with LoopbackServer(Reply(frames, hold_after=hold)) as server:
        got = Collected()
        held = None
        client = gemini_client(genai, server)  # kept referenced (see gemini_stream)
        for event in gemini.to_events(gemini_stream(client)):
            got.add(event)
            if held is None and any(isinstance(f, ObjectEntry) and f.key == "content" for f in got.progress):
                exchange = server.exchanges[0]
                held = (exchange.bytes_written <= hold and not exchange.completed,
                        ObjectEntry("path", DONE) in got.progress)
                server.release()
        assert server.wait().completed
    assert held == (True, True)
    check_expected(got, expected)


GEMINI_RECORDINGS = sorted(
    p.name for p in (RECORDINGS / "gemini").glob("*.chunks.txt") if "step" not in p.name
) if (RECORDINGS / "gemini").exists() else []


@pytest.mark.parametrize("name", GEMINI_RECORDINGS)
def test_gemini_shared_recordings_through_the_sdk(genai: Any, name: str) -> None:
    expected = json.loads((RECORDINGS / "expected.json").read_text(encoding="utf-8"))[f"gemini/{name}"]
    items = [json.loads(line) for line in (RECORDINGS / "gemini" / name).read_text(encoding="utf-8").splitlines()]
    with LoopbackServer(Reply.body(sse(items, newline="\r\n"), 173)) as server:
        client = gemini_client(genai, server)  # kept referenced (see gemini_stream)
        got = collect(gemini.to_events(gemini_stream(client)))
    assert [(c.name, c.arguments, c.error) for c in got.calls()] == [
        (w["name"], w["arguments"], None) for w in expected["tool_calls"]]
    for want, call in zip(expected["tool_calls"], got.calls()):
        assert call.id == (want["id"] or call.id) and call.id
    assert [(f.reason, f.metadata["stop_reason"]) for f in got.finished] == [(FinishReason.TOOL_USE, "STOP")]


def test_gemini_connection_cut(genai: Any) -> None:
    items, _ = recording("gemini_partial_args")
    body = sse(items, newline="\r\n")
    with LoopbackServer(Reply.body(body, 64, cut_after=len(body) // 2)) as server:
        client = gemini_client(genai, server)  # kept referenced (see gemini_stream)
        got, exc = drain_until_error(gemini.to_events(gemini_stream(client)))
    assert type(exc).__name__ == "RemoteProtocolError"  # httpx's, unwrapped by google-genai
    assert got.events[-1] == Finished(FinishReason.ERROR)
    assert any(isinstance(e, Part) and isinstance(e.part, ToolCall) for e in got.events)  # cut inside the call
    assert got.calls() == []  # the open call was not flushed


def test_gemini_http_error(genai: Any) -> None:
    from google.genai import errors

    body = json.dumps({"error": {"code": 500, "message": "Internal error", "status": "INTERNAL"}}).encode()
    with LoopbackServer(Reply([body], status=500, content_type="application/json")) as server:
        got = Collected()
        client = gemini_client(genai, server)  # kept referenced (see gemini_stream)
        with pytest.raises(errors.ServerError):
            for event in gemini.to_events(gemini_stream(client)):
                got.add(event)
    assert got.events == [Finished(FinishReason.ERROR)]


async def test_gemini_async(genai: Any) -> None:
    items, expected = recording("gemini_partial_args")
    with LoopbackServer(Reply.body(sse(items, newline="\r\n"), 89)) as server:
        client = gemini_client(genai, server)
        stream = await client.aio.models.generate_content_stream(model="gemini-3-flash-preview", contents="hi")
        got = Collected()
        async for event in gemini.ato_events(stream):
            got.add(event)
    check_expected(got, expected)


# -- Ollama --------------------------------------------------------------------------------------


@pytest.fixture
def ollama_sdk() -> Any:
    return pytest.importorskip("ollama")


def ndjson_reply(items: list[dict], piece: int = 83, **kw: Any) -> Reply:
    return Reply.body(ndjson(items), piece, content_type="application/x-ndjson", **kw)


def sdk_ids(items: list[dict]) -> list[str]:
    """The SDK drops the server's call ids, so every call gets a generated one."""
    created = items[0]["created_at"]
    n = sum(len(i["message"].get("tool_calls", [])) for i in items)
    return [f"{created}-call-{k}" for k in range(n)]


def test_ollama_stream_through_the_sdk(ollama_sdk: Any) -> None:
    items, expected = recording("ollama_create_and_modify")
    with LoopbackServer(ndjson_reply(items)) as server:
        stream = ollama_sdk.Client(host=server.url).chat(model="qwen3:8b", messages=MESSAGES, stream=True)
        got = collect(ollama.to_events(stream))
        assert server.wait().completed and server.exchanges[0].path == "/api/chat"
    check_expected(got, expected, sdk_ids(items))


def test_ollama_error_line_reraises_response_error(ollama_sdk: Any) -> None:
    items, _ = recording("ollama_create_and_modify")
    with LoopbackServer(ndjson_reply(items[:4] + [{"error": "model runner has unexpectedly stopped"}])) as server:
        stream = ollama_sdk.Client(host=server.url).chat(model="qwen3:8b", messages=MESSAGES, stream=True)
        got, exc = drain_until_error(ollama.to_events(stream))
    assert isinstance(exc, ollama_sdk.ResponseError) and "unexpectedly stopped" in str(exc)
    assert got.events[-1] == Finished(FinishReason.ERROR)
    assert not any(isinstance(e, Flush) for e in got.events)


def test_ollama_connection_cut(ollama_sdk: Any) -> None:
    items, _ = recording("ollama_create_and_modify")
    body = ndjson(items)
    cut = body.index(b'"tool_calls"') + 200  # inside the first call's line
    with LoopbackServer(ndjson_reply(items, cut_after=cut)) as server:
        stream = ollama_sdk.Client(host=server.url).chat(model="qwen3:8b", messages=MESSAGES, stream=True)
        got, exc = drain_until_error(ollama.to_events(stream))
    assert type(exc).__name__ == "RemoteProtocolError"
    assert got.events[-1] == Finished(FinishReason.ERROR)
    assert got.calls() == []


async def test_ollama_async(ollama_sdk: Any) -> None:
    items, expected = recording("ollama_create_and_modify")
    with LoopbackServer(ndjson_reply(items, 57)) as server:
        stream = await ollama_sdk.AsyncClient(host=server.url).chat(model="qwen3:8b", messages=MESSAGES, stream=True)
        got = Collected()
        async for event in ollama.ato_events(stream):
            got.add(event)
    check_expected(got, expected, sdk_ids(items))


def test_recordings_match_their_expectations_as_wire_dicts() -> None:
    """The same recordings fed as decoded wire dicts (the server's ids kept)."""
    for name, to_events in (("responses_create_and_modify", openai_responses.to_events),
                            ("gemini_partial_args", gemini.to_events),
                            ("ollama_create_and_modify", ollama.to_events)):
        items, expected = recording(name)
        assert len(items) == expected["chunks"]
        got = collect(to_events(items))
        check_expected(got, expected)
