"""pydantic-ai agents (``OpenAIChatModel``, ``OpenAIResponsesModel``, ``AnthropicModel``) streaming
recorded responses from the loopback server; their ``run_stream_events()`` read by
``aiter_tool_stream`` as it comes.

The calls argstream reports equal the recording's and the ones the agent then runs, at several
chunkings, over both parser backends; a connection cut mid-arguments ends in ``Finished(ERROR)``
and the tool never runs; a declined call cancels the run (leaving ``run_stream_events``), so the
rest of the response is never sent and the tool never runs. Skips without the extra.
"""

from __future__ import annotations

from typing import Any

import pytest
from _frameworks_support import (
    CHUNKINGS,
    EXPECTED,
    PIECES,
    Seen,
    anthropic_text_reply,
    body_of,
    builder_factory,
    chat_text_reply,
    expected_calls,
    items_of,
    keys,
    responses_text_reply,
)
from loopback import LoopbackServer, Reply, sse
from recordings.generate import RECORDINGS as OWN

from argstream import DONE, ObjectEntry
from argstream.events import FinishReason, Flush, Part
from argstream.providers import ProviderProtocolError
from argstream.providers import pydantic_ai as pydantic_ai_events
from argstream.providers.detect import detect_provider
from argstream.stream import aiter_tool_stream

pydantic_ai = pytest.importorskip("pydantic_ai", reason="the frameworks extra is not installed (pydantic-ai-slim)")
openai = pytest.importorskip("openai", reason="the frameworks extra is not installed (pydantic-ai-slim[openai])")
anthropic = pytest.importorskip("anthropic", reason="the frameworks extra is not installed (pydantic-ai-slim[anthropic])")

from pydantic_ai.models.anthropic import AnthropicModel  # noqa: E402
from pydantic_ai.models.openai import OpenAIChatModel, OpenAIResponsesModel  # noqa: E402
from pydantic_ai.providers.anthropic import AnthropicProvider  # noqa: E402
from pydantic_ai.providers.openai import OpenAIProvider  # noqa: E402
from pydantic_ai.toolsets import FunctionToolset  # noqa: E402

pytestmark = pytest.mark.sdk

ONE_MESSAGE = "pydantic-ai reads one response per request; this stream holds several (it raises or merges them)"
EXCLUDE = {
    "anthropic-tool-search-deferred-bm25.chunks.txt": ONE_MESSAGE,
    "anthropic-tool-search-deferred-regex.chunks.txt": ONE_MESSAGE,
    "cererebras-structured-output-tools.1.chunks.txt": ONE_MESSAGE,
    "azure-client-tool-search.1.chunks.txt": "pydantic-ai rejects this tool_search call's arguments",
}
KEYS = keys("anthropic", exclude=EXCLUDE) + keys("openai_chat", exclude=EXCLUDE) + \
    keys("openai_responses", exclude=EXCLUDE)
FINAL = {"anthropic": anthropic_text_reply, "openai_chat": chat_text_reply, "openai_responses": responses_text_reply}


def model(fmt: str, server: LoopbackServer) -> Any:
    """pydantic-ai's model for ``fmt``, pointed at the loopback server by its provider's base URL."""
    if fmt == "anthropic":
        client = anthropic.AsyncAnthropic(base_url=server.url, api_key="test", max_retries=0, timeout=20)
        return AnthropicModel("claude-test", provider=AnthropicProvider(anthropic_client=client))
    client = openai.AsyncOpenAI(base_url=server.url + "/v1", api_key="test", max_retries=0, timeout=20)
    provider = OpenAIProvider(openai_client=client)
    return (OpenAIResponsesModel if fmt == "openai_responses" else OpenAIChatModel)("gpt-test", provider=provider)


def toolset(names: set[str], ran: list[tuple[str, dict]]) -> FunctionToolset:
    """Tools of the given names that record their arguments and return ``"ok"``."""
    tools = FunctionToolset()
    for name in sorted(names):
        def tool(_name: str = name, **arguments: Any) -> str:
            ran.append((_name, arguments))
            return "ok"
        tools.add_function(tool, name=name, takes_ctx=False)
    return tools


async def run_agent(fmt: str, items: list[dict], names: set[str], make_parser: Any, pieces: Any = PIECES,
                    **reply: Any) -> tuple[Seen, list[tuple[str, dict]]]:
    seen = Seen()
    ran: list[tuple[str, dict]] = []
    agent = pydantic_ai.Agent()
    final = Reply.body(body_of(fmt, FINAL[fmt]()), PIECES)
    with LoopbackServer(Reply.body(body_of(fmt, items), pieces, **reply), final) as server:
        async with agent.run_stream_events("go", model=model(fmt, server), toolsets=[toolset(names, ran)]) as stream:
            async for item in aiter_tool_stream(stream, builder_factory=builder_factory(make_parser)):
                seen(item)
    return seen, ran


@pytest.mark.parametrize("chunking", list(CHUNKINGS))
@pytest.mark.parametrize("key", KEYS)
async def test_recorded_calls_through_pydantic_ai(key: str, chunking: str, make_parser: Any) -> None:
    fmt = key.split("/")[0]
    want = expected_calls(EXPECTED[key])
    seen, ran = await run_agent(fmt, items_of(key), {c[1] for c in want}, make_parser, CHUNKINGS[chunking])
    assert seen.calls == want
    assert all(c.ok for c in seen.finished) and not seen.failed
    assert seen.reasons == ["TOOL_USE", "COMPLETED"]  # the tool calls, then the answer after the tools ran
    assert sorted(ran, key=repr) == sorted(((c[1], c[2]) for c in want), key=repr)  # what the agent ran


@pytest.mark.parametrize("fmt", ["anthropic", "openai_chat"])
async def test_parallel_calls_and_a_call_without_arguments(fmt: str, make_parser: Any) -> None:
    rec = OWN[f"{fmt}/parallel"]
    seen, ran = await run_agent(fmt, rec.items, {c[1] for c in rec.tool_calls}, make_parser)
    assert sorted(seen.calls) == sorted(tuple(c) for c in rec.tool_calls)
    assert [c.arguments for c in seen.finished if c.name == "now"] == [{}]
    assert sorted(ran, key=repr) == sorted(((c[1], c[2]) for c in rec.tool_calls), key=repr)


@pytest.mark.parametrize("fmt", ["anthropic", "openai_chat"])
async def test_connection_cut_mid_arguments(fmt: str, make_parser: Any) -> None:
    rec = OWN[f"{fmt}/modify_file"]
    body = body_of(fmt, rec.items)
    seen = Seen()
    with LoopbackServer(Reply.body(body, PIECES, cut_after=len(body) * 2 // 3)) as server:
        ran: list[Any] = []
        agent = pydantic_ai.Agent()
        with pytest.raises(Exception) as caught:
            async with agent.run_stream_events("go", model=model(fmt, server),
                                               toolsets=[toolset({"fs_modify_file"}, ran)]) as stream:
                async for item in aiter_tool_stream(stream, builder_factory=builder_factory(make_parser)):
                    seen(item)
    assert not isinstance(caught.value, AssertionError)
    assert seen.reasons == ["ERROR"] and seen.finished == [] and ran == []


async def test_declined_call_cancels_the_run() -> None:
    from argstream.policy import TurnCoordinator, load_policies
    from argstream.policy.drivers import arun

    rec = OWN["openai_chat/create_file_20k"]
    pieces = [sse([item]) for item in rec.items] + [b"data: [DONE]\n\n"]
    policies = load_policies('[tools.fs_create_file.policy]\nrun = [{ arg = "/path", prefix = "nowhere/", '
                             'mode = "unattended" }, { mode = "skip" }]\n')
    ran: list[Any] = []
    with LoopbackServer(Reply(pieces, hold_after=sum(len(p) for p in pieces) // 3)) as server:
        agent = pydantic_ai.Agent()
        async with agent.run_stream_events("go", model=model("openai_chat", server),
                                           toolsets=[toolset({"fs_create_file"}, ran)]) as stream:
            co = TurnCoordinator(policies)
            result = await arun(co, pydantic_ai_events.ato_events(stream))
        exchange = server.wait(1)  # leaving run_stream_events cancelled the run and closed the connection
    (call,) = result.calls
    assert call.skipped and result.cancelled and ran == []
    assert exchange.client_closed and not exchange.completed


async def test_event_stream_handler_sees_each_response(make_parser: Any) -> None:
    key = "openai_chat/deepseek-tool-call.chunks.txt"
    paths: list[Any] = []
    ends: list[FinishReason] = []

    async def handler(ctx: Any, events: Any) -> None:
        async for item in aiter_tool_stream(events, builder_factory=builder_factory(make_parser)):
            if type(item).__name__ == "ToolCallArgumentProgress" and item.fragment == ObjectEntry("location", DONE):
                paths.append(item.completed.value if item.completed else None)
            if type(item).__name__ == "StreamFinished":
                ends.append(item.reason)

    ran: list[Any] = []
    with LoopbackServer(Reply.body(body_of("openai_chat", items_of(key)), PIECES),
                        Reply.body(body_of("openai_chat", chat_text_reply()), PIECES)) as server:
        result = await pydantic_ai.Agent().run("go", model=model("openai_chat", server), event_stream_handler=handler,
                                               toolsets=[toolset({"weather"}, ran)])
    assert result.output == "done" and ran == [("weather", {"location": "San Francisco"})]
    assert paths == ["San Francisco"]
    # one stream per node: the model's calls, the tools being run (no parts: COMPLETED), the answer,
    # and the end node's stream, which holds no event at all (iter_tool_stream's empty stream: ERROR)
    assert ends == [FinishReason.TOOL_USE, FinishReason.COMPLETED, FinishReason.COMPLETED, FinishReason.ERROR]


def test_detected_and_hostile_events() -> None:
    from pydantic_ai.messages import PartDeltaEvent, PartStartEvent, ToolCallPart, ToolCallPartDelta

    start = PartStartEvent(index=0, part=ToolCallPart(tool_name="read", args='{"a"', tool_call_id="c1"))
    assert detect_provider(start) == "pydantic_ai"
    events = list(pydantic_ai_events.to_events([start, PartDeltaEvent(index=0, delta=ToolCallPartDelta(
        args_delta=": 1}"))]))
    assert [type(e).__name__ for e in events] == ["Part", "Part", "Part", "Flush", "Finished"]
    assert events[-1].reason is FinishReason.TOOL_USE
    bad = PartDeltaEvent(index=0, delta=ToolCallPartDelta(args_delta="x"))
    bad.delta.args_delta = 5  # type: ignore[assignment]
    out: list[Any] = []
    with pytest.raises(ProviderProtocolError):
        for event in pydantic_ai_events.to_events([start, bad]):
            out.append(event)
    assert out[-1].reason is FinishReason.ERROR and not any(type(e) is Flush for e in out)
    assert all(type(e) is Part for e in out[:-1])


async def test_declined_in_the_event_stream_handler_cancels_by_token() -> None:
    rec = OWN["anthropic/create_file_20k"]
    pieces = [sse([item], event_field="type") for item in rec.items]
    token = pydantic_ai.CancellationToken()
    declined: list[str] = []

    async def handler(ctx: Any, events: Any) -> None:
        async for item in aiter_tool_stream(events):
            if type(item).__name__ == "ToolCallArgumentProgress" and item.fragment == ObjectEntry("path", DONE):
                if not item.completed.value.startswith("docs/"):
                    declined.append(item.completed.value)
                    token.cancel()  # pydantic-ai's own cancellation: the run raises RunCancelled

    ran: list[Any] = []
    with LoopbackServer(Reply(pieces, hold_after=sum(len(p) for p in pieces) // 2)) as server:
        with pytest.raises(pydantic_ai.RunCancelled):
            await pydantic_ai.Agent().run("go", model=model("anthropic", server), event_stream_handler=handler,
                                          cancellation_token=token, toolsets=[toolset({"fs_create_file"}, ran)])
        exchange = server.wait(1)
    assert declined == [rec.tool_calls[0][2]["path"]] and ran == []
    assert exchange.client_closed and not exchange.completed
