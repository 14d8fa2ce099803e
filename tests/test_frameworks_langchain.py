"""LangChain's own chat models (``ChatOpenAI``, also on the Responses API, and ``ChatAnthropic``)
streaming recorded responses from the loopback server, read by ``iter_tool_stream`` as they come.

The calls argstream reports equal the recording's (expected.json), at several chunkings of the
body, over both parser backends; its argument items are the ones the native adapter gives for
the same bytes; a cut-off call never finishes; a declined call closes LangChain's stream (its
generator), so the rest is never sent and the tool never runs. Skips without the extra.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from _frameworks_support import (
    CHUNKINGS,
    EXPECTED,
    PIECES,
    Seen,
    body_of,
    builder_factory,
    cut_mid_arguments,
    expected_calls,
    items_of,
    keys,
)
from loopback import LoopbackServer, Reply, sse
from recordings.generate import RECORDINGS as OWN

from argstream import DONE, ObjectEntry
from argstream.builder import EventBuilder
from argstream.events import FinishReason, ToolCallRequest
from argstream.policy import TurnCoordinator, load_policies
from argstream.policy.drivers import run_inline
from argstream.providers import langchain as langchain_events
from argstream.providers.detect import detect_provider
from argstream.stream import (
    StreamFinished,
    ToolCallArgumentProgress,
    ToolCallFinished,
    ToolCallStarted,
    aiter_tool_stream,
    iter_tool_stream,
)

pytest.importorskip("langchain_core", reason="the frameworks extra is not installed (langchain-core)")
langchain_openai = pytest.importorskip("langchain_openai", reason="the frameworks extra is not installed")
langchain_anthropic = pytest.importorskip("langchain_anthropic", reason="the frameworks extra is not installed")

pytestmark = [pytest.mark.sdk, pytest.mark.filterwarnings("ignore::UserWarning")]

BROKEN_IN_LANGCHAIN = "LangChain's own stream raises merging these chunks (TypeError in AIMessageChunk.__add__)"
EXCLUDE = {
    "azure-client-tool-search.1.chunks.txt": BROKEN_IN_LANGCHAIN,
    "azure-reasoning-encrypted-content.1.chunks.txt": BROKEN_IN_LANGCHAIN,
    "azure-tool-search.1.chunks.txt": BROKEN_IN_LANGCHAIN,
    "openai-reasoning-encrypted-content.1.chunks.txt": BROKEN_IN_LANGCHAIN,
    "lmstudio-tool-call.1.chunks.txt": "LM Studio sends the arguments only in .done, which LangChain does not hand on",
    "lmstudio-tool-call.2.chunks.txt": "LM Studio sends the arguments only in .done, which LangChain does not hand on",
}
KEYS = keys("anthropic") + keys("openai_chat") + keys("openai_responses", exclude=EXCLUDE)


def model(fmt: str, server: LoopbackServer) -> Any:
    """LangChain's chat model for ``fmt``, pointed at the loopback server by its base URL option."""
    if fmt == "anthropic":
        return langchain_anthropic.ChatAnthropic(model="claude-test", base_url=server.url, api_key="test",
                                                 max_retries=0, timeout=20)
    return langchain_openai.ChatOpenAI(model="gpt-test", base_url=server.url + "/v1", api_key="test", max_retries=0,
                                       timeout=20, use_responses_api=fmt == "openai_responses")


def native(fmt: str, items: list[dict], make_parser: Any) -> Seen:
    """The same recording through the native adapter (what LangChain's stream must match)."""
    seen = Seen()
    for item in iter_tool_stream(items, fmt, builder_factory=builder_factory(make_parser)):
        seen(item)
    return seen


def by_call(seen: Seen) -> dict[str, list[Any]]:
    """Each call's argument fragments, keyed by call id."""
    ids: dict[int, str] = {}
    out: dict[str, list[Any]] = {}
    for item in seen.items:
        if type(item) is ToolCallStarted:
            ids[item.index] = item.id
        elif type(item) is ToolCallArgumentProgress:
            out.setdefault(ids[item.index], []).append(item.fragment)
    return out


@pytest.mark.parametrize("chunking", list(CHUNKINGS))
@pytest.mark.parametrize("key", KEYS)
def test_recorded_calls_through_langchain(key: str, chunking: str, make_parser: Any) -> None:
    fmt = key.split("/")[0]
    items = items_of(key)
    seen = Seen()
    with LoopbackServer(Reply.body(body_of(fmt, items), CHUNKINGS[chunking])) as server:
        for item in iter_tool_stream(model(fmt, server).stream("go"), builder_factory=builder_factory(make_parser)):
            seen(item)
        assert server.wait(1).completed
    want = expected_calls(EXPECTED[key])
    assert seen.calls == want
    assert all(c.ok for c in seen.finished) and not seen.failed
    assert seen.ends and seen.ends[-1].reason in (FinishReason.TOOL_USE, FinishReason.COMPLETED)
    assert "ERROR" not in seen.reasons
    assert [(s.id, s.name) for s in seen.started if s.id in {c[0] for c in want}] == [c[:2] for c in want]
    theirs = by_call(native(fmt, items, make_parser))
    for call_id, fragments in by_call(seen).items():
        assert fragments == theirs[call_id]  # the same argument items as the native stream


@pytest.mark.parametrize("fmt", ["anthropic", "openai_chat"])
async def test_astream_events_parallel_calls(fmt: str, make_parser: Any) -> None:
    rec = OWN[f"{fmt}/parallel"]
    seen = Seen()
    with LoopbackServer(Reply.body(body_of(fmt, rec.items), PIECES)) as server:
        events = model(fmt, server).astream_events("go", version="v2")
        async for item in aiter_tool_stream(events, builder_factory=builder_factory(make_parser)):
            seen(item)
    assert sorted(seen.calls, key=lambda c: c[0]) == sorted([tuple(c) for c in rec.tool_calls], key=lambda c: c[0])
    assert ("now" in [c[1] for c in seen.calls]) and all(c.ok for c in seen.finished)
    assert [c.arguments for c in seen.finished if c.name == "now"] == [{}]  # the call without arguments
    assert seen.reasons == ["TOOL_USE"]


@pytest.mark.parametrize("fmt", ["anthropic", "openai_chat"])
def test_stream_that_ends_mid_arguments(fmt: str, make_parser: Any) -> None:
    rec = OWN[f"{fmt}/abrupt_close"]
    seen = Seen()
    with LoopbackServer(Reply.body(body_of(fmt, rec.items), PIECES)) as server:
        for item in iter_tool_stream(model(fmt, server).stream("go"), builder_factory=builder_factory(make_parser)):
            seen(item)
    assert seen.reasons == ["ERROR"]  # LangChain's chunk_position="last" is no finish
    assert seen.finished == []
    assert [e.kind.name for e in seen.ends[0].incomplete if type(e.kind) is ToolCallRequest] == ["fs_create_file"]
    assert len(seen.failed) == 1 and seen.failed[0].name == "fs_create_file"


@pytest.mark.parametrize("fmt", ["anthropic", "openai_chat"])
def test_connection_cut_mid_arguments(fmt: str, make_parser: Any) -> None:
    items = cut_mid_arguments(items_of("anthropic/anthropic-issue-11719-quoted-tool-input.chunks.txt"), fmt) \
        if fmt == "anthropic" else OWN["openai_chat/modify_file"].items
    body = body_of(fmt, items)
    seen = Seen()
    with LoopbackServer(Reply.body(body, PIECES, cut_after=len(body) * 2 // 3)) as server:
        with pytest.raises(Exception) as caught:
            for item in iter_tool_stream(model(fmt, server).stream("go"), builder_factory=builder_factory(make_parser)):
                seen(item)
    assert not isinstance(caught.value, AssertionError)
    assert seen.reasons == ["ERROR"] and seen.finished == []


def test_finish_on_last_for_models_without_a_finish_reason(make_parser: Any) -> None:
    from langchain_core.messages import AIMessageChunk

    chunks = [
        AIMessageChunk(content="", tool_call_chunks=[{"name": "now", "args": "", "id": "c1", "index": 0}]),
        AIMessageChunk(content="", tool_call_chunks=[{"name": None, "args": '{"tz": "UTC"}', "id": None, "index": 0}]),
        AIMessageChunk(content="", chunk_position="last"),
    ]
    cut = list(iter_tool_stream(chunks, builder_factory=builder_factory(make_parser)))
    assert [i.reason for i in cut if type(i) is StreamFinished] == [FinishReason.ERROR]
    done = list(iter_tool_stream(chunks, "langchain", provider_options={"finish_on_last": True}))
    assert [(i.id, i.arguments) for i in done if type(i) is ToolCallFinished] == [("c1", {"tz": "UTC"})]
    assert [i.reason for i in done if type(i) is StreamFinished] == [FinishReason.TOOL_USE]


def test_detected_shapes() -> None:
    from langchain_core.messages import AIMessageChunk
    from langchain_core.outputs import ChatGenerationChunk

    chunk = AIMessageChunk(content="hi")
    assert detect_provider(chunk) == "langchain"
    assert detect_provider((chunk, {"langgraph_node": "agent"})) == "langchain"
    assert detect_provider({"event": "on_chat_model_start", "run_id": "r", "data": {}}) == "langchain"
    assert detect_provider(ChatGenerationChunk(message=chunk)) == "langchain"


def test_langgraph_pairs_and_callback_chunks(make_parser: Any) -> None:
    from langchain_core.messages import AIMessageChunk, ToolMessage
    from langchain_core.outputs import ChatGenerationChunk

    first = AIMessageChunk(content="", tool_call_chunks=[{"name": "read", "args": '{"pa', "id": "c1", "index": 0}])
    rest = AIMessageChunk(content="", tool_call_chunks=[{"name": None, "args": 'th": "a"}', "id": None, "index": 0}],
                          response_metadata={"finish_reason": "tool_calls"})
    pairs = [(first, {}), (rest, {}), (ToolMessage(content="x", tool_call_id="c1"), {})]
    for stream in (pairs, [ChatGenerationChunk(message=first), ChatGenerationChunk(message=rest)]):
        items = list(iter_tool_stream(stream, builder_factory=builder_factory(make_parser)))
        assert [(i.id, i.arguments) for i in items if type(i) is ToolCallFinished] == [("c1", {"path": "a"})]


# -- deciding while the call streams ----------------------------------------------------------------

TOOLS = {"fs_create_file": {"type": "object", "required": ["path", "content"],
                            "properties": {"path": {"type": "string", "format": "path"}, "content": {"type": "string"}}}}
POLICIES = load_policies(
    '[tools.fs_create_file.policy]\nrun = [{ arg = "/path", prefix = "src/", mode = "ask" }, { mode = "skip" }]\n',
    tools=TOOLS)


def frames(fmt: str, items: list[dict]) -> list[bytes]:
    """One SSE frame per wire item, so the server can stop right after any of them."""
    if fmt == "anthropic":
        return [sse([item], event_field="type") for item in items]
    return [sse([item]) for item in items] + [b"data: [DONE]\n\n"]


def path_frame(fmt: str, items: list[dict]) -> int:
    """The index of the wire item after which ``path`` is complete (read by the native adapter)."""
    from argstream.providers.anthropic import AnthropicAdapter
    from argstream.providers.openai_chat import OpenAIChatAdapter

    adapter = AnthropicAdapter() if fmt == "anthropic" else OpenAIChatAdapter()
    builder = EventBuilder()
    for n, item in enumerate(items):
        for event in adapter.feed(item):
            out = builder.handle(event)
            if isinstance(out, list) and any(p.fragment == ObjectEntry("path", DONE) for p in out):
                return n
    raise AssertionError("path never completes")


@pytest.mark.parametrize("fmt", ["anthropic", "openai_chat"])
def test_declined_call_closes_the_langchain_stream(fmt: str) -> None:
    rec = OWN[f"{fmt}/create_file_20k"]
    pieces = frames(fmt, rec.items)
    held = sum(len(p) for p in pieces[: path_frame(fmt, rec.items) + 1])
    ran: list[Any] = []
    prompts: list[dict] = []

    def prompt(call: Any) -> bool:
        prompts.append(call.partial_arguments())
        return False

    with LoopbackServer(Reply(pieces, hold_after=held)) as server:
        stream = model(fmt, server).stream("create the module")
        co = TurnCoordinator(POLICIES, prompt=prompt, execute=lambda call: ran.append(call.name))
        result = run_inline(co, langchain_events.to_events(stream), close=stream.close)
        exchange = server.wait(1)
    (call,) = result.calls
    assert prompts == [{"path": rec.tool_calls[0][2]["path"]}]
    assert call.skipped and result.cancelled and ran == []
    assert exchange.client_closed and not exchange.completed and exchange.bytes_written == held


def test_schema_checks_as_on_the_native_stream(make_parser: Any) -> None:
    key = "anthropic/anthropic-issue-11719-quoted-tool-input.chunks.txt"
    items = items_of(key)
    tools = {"website_update": {"type": "object", "properties": {
        "website_path": {"type": "string", "maxLength": 5}, "tasks": {"type": "array", "maxItems": 0}}}}
    seen = Seen()
    with LoopbackServer(Reply.body(body_of("anthropic", items), PIECES)) as server:
        for item in iter_tool_stream(model("anthropic", server).stream("go"), builder_factory=builder_factory(
                make_parser, tools)):
            seen(item)
    theirs = Seen()
    for item in iter_tool_stream(items, "anthropic", builder_factory=builder_factory(make_parser, tools)):
        theirs(item)
    assert seen.violations and [v.violation for v in seen.violations] == [v.violation for v in theirs.violations]
    assert [c.violations for c in seen.finished] == [c.violations for c in theirs.finished]
    assert not seen.finished[0].ok


def test_hostile_chunks_raise_the_documented_error() -> None:
    from langchain_core.messages import AIMessageChunk

    from argstream.providers import ProviderProtocolError

    bad = AIMessageChunk(content="", tool_call_chunks=[{"name": "x", "args": "{", "id": "c", "index": 0}])
    bad.tool_call_chunks[0]["args"] = 5  # type: ignore[typeddict-item]
    with pytest.raises(ProviderProtocolError):
        list(langchain_events.to_events([bad]))
    for item in ([AIMessageChunk(content="a"), ("x", "y", "z")], [AIMessageChunk(content=[{"type": "text", "text": 3}])]):
        events = []
        with pytest.raises(ProviderProtocolError), warnings.catch_warnings():
            for event in langchain_events.to_events(item):
                events.append(event)
        assert events[-1].reason is FinishReason.ERROR
