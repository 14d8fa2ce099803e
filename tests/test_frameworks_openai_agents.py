"""The OpenAI Agents SDK (``Runner.run_streamed``) with its Responses and Chat Completions models
streaming recorded responses from the loopback server; ``stream_events()`` read by
``aiter_tool_stream`` as it comes.

The calls argstream reports equal the recording's and the ones the agent runs, at several
chunkings, over both parser backends; a declined call cancels the run (``result.cancel()``)
before its arguments are complete, so the tool never runs; a connection cut mid-arguments
ends in ``Finished(ERROR)``. Skips without the extra.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from _frameworks_support import (
    CHUNKINGS,
    EXPECTED,
    PIECES,
    Seen,
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
from argstream.events import FinishReason
from argstream.providers import openai_agents as agents_events
from argstream.providers.detect import detect_provider
from argstream.stream import aiter_tool_stream

agents = pytest.importorskip("agents", reason="the frameworks extra is not installed (openai-agents)")
openai = pytest.importorskip("openai", reason="the frameworks extra is not installed (openai)")
if not hasattr(agents, "Runner"):
    pytest.skip("another package named agents is installed", allow_module_level=True)

pytestmark = pytest.mark.sdk
agents.set_tracing_disabled(True)

EXCLUDE = {
    "azure-client-tool-search.1.chunks.txt": "the Agents SDK has no client tool_search tool to run",
    "openai-client-tool-search.2.chunks.txt": "the Agents SDK has no client tool_search tool to run",
    "programmatic-tool-calling.1.chunks.txt": "the Agents SDK does not run the program item's tools",
    "programmatic-tool-calling.2.chunks.txt": "the Agents SDK does not run the program item's tools",
    "openai-custom-text-tool.1.chunks.txt": "a custom (free text) tool, not a function tool",
    "cererebras-structured-output-tools.1.chunks.txt": "two responses in one stream: the SDK merges them",
    "azure-reasoning-encrypted-content.1.chunks.txt": "three responses in one stream: the SDK runs none of their calls",
    "openai-reasoning-encrypted-content.1.chunks.txt": "three responses in one stream: the SDK runs none of their calls",
    "azure-tool-search.1.chunks.txt": "a namespaced (tool search) call, which the SDK cannot resolve here",
    "openai-tool-search.1.chunks.txt": "a namespaced (tool search) call, which the SDK cannot resolve here",
}
KEYS = keys("openai_responses", exclude=EXCLUDE) + keys("openai_chat", exclude=EXCLUDE)


def client(server: LoopbackServer) -> Any:
    return openai.AsyncOpenAI(base_url=server.url + "/v1", api_key="test", max_retries=0, timeout=20)


def agent(fmt: str, server: LoopbackServer, names: set[str], ran: list[Any], **tool_options: Any) -> Any:
    """An agent on the loopback server whose tools record their arguments."""
    if fmt == "openai_responses":
        model = agents.OpenAIResponsesModel("gpt-test", openai_client=client(server))
    else:
        model = agents.OpenAIChatCompletionsModel("gpt-test", openai_client=client(server))
    tools = []
    for name in sorted(names):
        async def invoke(ctx: Any, arguments: str, _name: str = name) -> str:
            import json

            ran.append((_name, json.loads(arguments or "{}")))
            return "ok"
        tools.append(agents.FunctionTool(name=name, description=name, params_json_schema={"type": "object"},
                                         on_invoke_tool=invoke, strict_json_schema=False, **tool_options))
    return agents.Agent(name="test", model=model, tools=tools)


def final_reply(fmt: str) -> Reply:
    return Reply.body(body_of(fmt, responses_text_reply() if fmt == "openai_responses" else chat_text_reply()),
                      PIECES)


@pytest.mark.parametrize("chunking", list(CHUNKINGS))
@pytest.mark.parametrize("key", KEYS)
async def test_recorded_calls_through_the_agents_sdk(key: str, chunking: str, make_parser: Any) -> None:
    fmt = key.split("/")[0]
    want = expected_calls(EXPECTED[key])
    ran: list[Any] = []
    seen = Seen()
    with LoopbackServer(Reply.body(body_of(fmt, items_of(key)), CHUNKINGS[chunking]), final_reply(fmt)) as server:
        result = agents.Runner.run_streamed(agent(fmt, server, {c[1] for c in want}, ran), "go")
        async for item in aiter_tool_stream(result.stream_events(), builder_factory=builder_factory(make_parser)):
            seen(item)
    assert seen.calls == want
    assert all(c.ok for c in seen.finished) and not seen.failed
    assert seen.reasons[-1] == "COMPLETED" and "ERROR" not in seen.reasons
    assert seen.reasons.count("TOOL_USE") >= 1
    assert sorted(ran, key=repr) == sorted(((c[1], c[2]) for c in want), key=repr)


async def test_parallel_calls_and_a_call_without_arguments(make_parser: Any) -> None:
    rec = OWN["openai_chat/parallel"]
    ran: list[Any] = []
    seen = Seen()
    with LoopbackServer(Reply.body(body_of("openai_chat", rec.items), PIECES), final_reply("openai_chat")) as server:
        result = agents.Runner.run_streamed(agent("openai_chat", server, {c[1] for c in rec.tool_calls}, ran), "go")
        async for item in aiter_tool_stream(result.stream_events(), builder_factory=builder_factory(make_parser)):
            seen(item)
    assert sorted(seen.calls) == sorted(tuple(c) for c in rec.tool_calls)
    assert [c.arguments for c in seen.finished if c.name == "now"] == [{}]
    assert sorted(ran, key=repr) == sorted(((c[1], c[2]) for c in rec.tool_calls), key=repr)


async def test_connection_cut_mid_arguments(make_parser: Any) -> None:
    key = "openai_responses/openai-issue-11239.1.chunks.txt"
    body = body_of("openai_responses", items_of(key))
    cut = body.index(b"function_call_arguments.delta") + 200
    ran: list[Any] = []
    seen = Seen()
    with LoopbackServer(Reply.body(body, PIECES, cut_after=cut)) as server:
        result = agents.Runner.run_streamed(agent("openai_responses", server, {"lookupVerificationCode"}, ran), "go")
        with pytest.raises(Exception) as caught:
            async for item in aiter_tool_stream(result.stream_events(), builder_factory=builder_factory(make_parser)):
                seen(item)
    assert not isinstance(caught.value, AssertionError)
    assert seen.reasons == ["ERROR"] and seen.finished == [] and ran == []


async def test_declined_before_the_arguments_are_complete_cancels_the_run() -> None:
    from argstream.policy import TurnCoordinator, load_policies
    from argstream.policy.drivers import arun

    rec = OWN["openai_chat/create_file_20k"]
    pieces = [sse([item]) for item in rec.items] + [b"data: [DONE]\n\n"]
    policies = load_policies('[tools.fs_create_file.policy]\nrun = [{ arg = "/path", prefix = "docs/", '
                             'mode = "unattended" }, { mode = "ask" }]\n')
    asked: list[dict] = []
    ran: list[Any] = []
    with LoopbackServer(Reply(pieces, hold_after=sum(len(p) for p in pieces) // 3)) as server:
        result = agents.Runner.run_streamed(agent("openai_chat", server, {"fs_create_file"}, ran), "go")

        def prompt(call: Any) -> bool:
            asked.append(call.partial_arguments())
            return False

        turn = await arun(TurnCoordinator(policies, prompt=prompt), agents_events.ato_events(result.stream_events()),
                          close=result.cancel)
        async for _ in result.stream_events():  # the SDK finishes its cancellation while the stream is read
            pass
        exchange = await asyncio.to_thread(server.wait, 1)
    (call,) = turn.calls
    assert asked == [{"path": rec.tool_calls[0][2]["path"]}]  # decided on the path, the content still streaming
    assert call.skipped and turn.cancelled and ran == []
    assert exchange.client_closed and not exchange.completed


def test_detected_and_other_events_ignored() -> None:
    from openai.types.responses import ResponseFunctionCallArgumentsDeltaEvent

    raw = agents.RawResponsesStreamEvent(data=ResponseFunctionCallArgumentsDeltaEvent(
        delta="{", item_id="fc_1", output_index=0, sequence_number=1, type="response.function_call_arguments.delta"))
    updated = agents.AgentUpdatedStreamEvent(new_agent=agents.Agent(name="a"))
    assert detect_provider(updated) == "openai_agents" and detect_provider(raw) == "openai_agents"
    events = list(agents_events.to_events([updated, raw]))
    assert [e.reason for e in events] == [FinishReason.ERROR]  # no response.completed: cut off, nothing flushed


def test_same_items_as_the_native_responses_stream(make_parser: Any) -> None:
    from argstream.stream import iter_tool_stream

    key = "openai_responses/azure-reasoning-encrypted-content.1.chunks.txt"
    items = items_of(key)
    wrapped = [{"type": "agent_updated_stream_event"}] + [{"type": "raw_response_event", "data": item}
                                                          for item in items] + [{"type": "run_item_stream_event"}]
    ours = [i for i in iter_tool_stream(wrapped, "openai_agents", builder_factory=builder_factory(make_parser))]
    theirs = [i for i in iter_tool_stream(items, "openai_responses", builder_factory=builder_factory(make_parser))]
    def shown(items: list[Any]) -> list[Any]:  # persisted events carry timestamps: compare their kinds
        return [(i.reason, [e.kind for e in i.events]) if type(i).__name__ == "StreamFinished" else i for i in items]

    assert shown(ours) == shown(theirs)
    assert any(getattr(i, "fragment", None) == ObjectEntry("a", DONE) for i in ours)
