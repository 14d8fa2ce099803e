"""The recipes of docs/frameworks.md, run against each framework's own client and the loopback server.

Each ``# recipe: NAME`` block (with the shared ``POLICIES_TOML`` block) is executed as written; the
tests then drive it both ways: a call declined while its arguments stream (the framework's
cancellation path closes the connection, the tool never runs) and one approved (the tool runs
with the complete arguments).
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest
from _frameworks_support import PIECES, body_of, chat_text_reply
from conftest import ROOT
from loopback import LoopbackServer, Reply, sse
from recordings.generate import RECORDINGS as OWN

pytestmark = pytest.mark.sdk

DOC = (ROOT / "docs" / "frameworks.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```python\n(.*?)```", DOC, re.S)


def recipe(name: str) -> dict[str, Any]:
    """The namespace of the doc's ``# recipe: name`` block, run after the policy block."""
    namespace: dict[str, Any] = {}
    (policies,) = [b for b in BLOCKS if b.startswith("POLICIES_TOML")]
    (code,) = [b for b in BLOCKS if b.startswith(f"# recipe: {name}\n")]
    exec(compile(policies + code, f"docs/frameworks.md:{name}", "exec"), namespace)
    return namespace


def held_reply(fmt: str, fraction: int = 3) -> tuple[Reply, Any]:
    """The 20 KB create_file call, one SSE frame a piece, held a third of the way in (after its path)."""
    rec = OWN[f"{fmt}/create_file_20k"]
    if fmt == "anthropic":
        pieces = [sse([item], event_field="type") for item in rec.items]
    else:
        pieces = [sse([item]) for item in rec.items] + [b"data: [DONE]\n\n"]
    return Reply(pieces, hold_after=sum(len(p) for p in pieces) // fraction), rec


# -- LangChain ------------------------------------------------------------------------------------


def langchain_model(server: LoopbackServer) -> Any:
    langchain_anthropic = pytest.importorskip("langchain_anthropic", reason="the frameworks extra is not installed")
    return langchain_anthropic.ChatAnthropic(model="claude-test", base_url=server.url, api_key="test", max_retries=0,
                                             timeout=20)


async def test_langchain_recipe_declines_and_closes_the_stream() -> None:
    stream_and_decide = recipe("langchain")["stream_and_decide"]
    reply, rec = held_reply("anthropic")
    shown: list[Any] = []
    asked: list[dict] = []

    def ask(call: Any) -> bool:
        asked.append(call.partial_arguments())
        return False

    with LoopbackServer(reply) as server:
        turn = await stream_and_decide(langchain_model(server), "create the module", ask, shown.append)
        exchange = await asyncio.to_thread(server.wait, 1)
    (call,) = turn.calls
    assert asked == [{"path": rec.tool_calls[0][2]["path"]}]
    assert call.skipped and turn.cancelled
    assert exchange.client_closed and not exchange.completed
    assert any(type(item).__name__ == "TextDelta" for item in shown)


async def test_langchain_recipe_approves() -> None:
    stream_and_decide = recipe("langchain")["stream_and_decide"]
    rec = OWN["anthropic/create_file_20k"]
    with LoopbackServer(Reply.body(body_of("anthropic", rec.items), PIECES)) as server:
        turn = await stream_and_decide(langchain_model(server), "create the module", lambda call: True, print)
    (call,) = turn.calls
    assert call.approved and call.arguments == rec.tool_calls[0][2] and not turn.cancelled


# -- pydantic-ai ----------------------------------------------------------------------------------


def pydantic_ai_agent(server: LoopbackServer, ran: list[Any]) -> tuple[Any, dict[str, Any]]:
    pydantic_ai = pytest.importorskip("pydantic_ai", reason="the frameworks extra is not installed")
    anthropic = pytest.importorskip("anthropic", reason="the frameworks extra is not installed")
    from pydantic_ai.models.anthropic import AnthropicModel
    from pydantic_ai.providers.anthropic import AnthropicProvider

    client = anthropic.AsyncAnthropic(base_url=server.url, api_key="test", max_retries=0, timeout=20)
    agent = pydantic_ai.Agent(AnthropicModel("claude-test", provider=AnthropicProvider(anthropic_client=client)))

    @agent.tool_plain
    def fs_create_file(path: str, content: str) -> str:
        ran.append(path)
        return "created"

    return agent, {}


async def test_pydantic_ai_recipe_cancels_the_run() -> None:
    pydantic_ai = pytest.importorskip("pydantic_ai", reason="the frameworks extra is not installed")
    run_guarded = recipe("pydantic_ai")["run_guarded"]
    reply, _ = held_reply("anthropic", fraction=2)
    ran: list[Any] = []
    with LoopbackServer(reply) as server:
        agent, _ = pydantic_ai_agent(server, ran)
        with pytest.raises(pydantic_ai.RunCancelled):
            await run_guarded(agent, "create the module", allowed=lambda path: path.startswith("docs/"))
        exchange = await asyncio.to_thread(server.wait, 1)
    assert ran == [] and exchange.client_closed and not exchange.completed


async def test_pydantic_ai_recipe_lets_an_allowed_call_run() -> None:
    from _frameworks_support import anthropic_text_reply

    run_guarded = recipe("pydantic_ai")["run_guarded"]
    rec = OWN["anthropic/create_file_20k"]
    ran: list[Any] = []
    with LoopbackServer(Reply.body(body_of("anthropic", rec.items), PIECES),
                        Reply.body(body_of("anthropic", anthropic_text_reply()), PIECES)) as server:
        agent, _ = pydantic_ai_agent(server, ran)
        result = await run_guarded(agent, "create the module", allowed=lambda path: path.startswith("src/"))
    assert result.output == "done" and ran == [rec.tool_calls[0][2]["path"]]


# -- the OpenAI Agents SDK ------------------------------------------------------------------------


def agents_agent(server: LoopbackServer, ran: list[Any], approved: set[str]) -> Any:
    agents = pytest.importorskip("agents", reason="the frameworks extra is not installed (openai-agents)")
    openai = pytest.importorskip("openai", reason="the frameworks extra is not installed")
    agents.set_tracing_disabled(True)
    client = openai.AsyncOpenAI(base_url=server.url + "/v1", api_key="test", max_retries=0, timeout=20)

    async def needs_approval(ctx: Any, params: dict, call_id: str) -> bool:
        return call_id not in approved

    @agents.function_tool(needs_approval=needs_approval)
    def fs_create_file(path: str, content: str) -> str:
        """Create a file."""
        ran.append(path)
        return "created"

    model = agents.OpenAIChatCompletionsModel("gpt-test", openai_client=client)
    return agents.Agent(name="writer", model=model, tools=[fs_create_file])


async def test_agents_recipe_cancels_the_run_when_declined() -> None:
    run_with_early_approval = recipe("openai_agents")["run_with_early_approval"]
    reply, rec = held_reply("openai_chat")
    ran: list[Any] = []
    approved: set[str] = set()
    asked: list[dict] = []

    def ask(call: Any) -> bool:
        asked.append(call.partial_arguments())
        return False

    with LoopbackServer(reply) as server:
        result, turn = await run_with_early_approval(agents_agent(server, ran, approved), "go", ask, approved)
        exchange = await asyncio.to_thread(server.wait, 1)
    assert asked == [{"path": rec.tool_calls[0][2]["path"]}]
    assert turn.cancelled and ran == [] and approved == set()
    assert exchange.client_closed and not exchange.completed


async def test_agents_recipe_runs_an_approved_call_without_interrupting() -> None:
    run_with_early_approval = recipe("openai_agents")["run_with_early_approval"]
    rec = OWN["openai_chat/create_file_20k"]
    ran: list[Any] = []
    approved: set[str] = set()
    with LoopbackServer(Reply.body(body_of("openai_chat", rec.items), PIECES),
                        Reply.body(body_of("openai_chat", chat_text_reply()), PIECES)) as server:
        result, turn = await run_with_early_approval(agents_agent(server, ran, approved), "go", lambda call: True,
                                                     approved)
    assert approved == {rec.tool_calls[0][0]} and ran == [rec.tool_calls[0][2]["path"]]
    assert result.final_output == "done" and not result.interruptions
