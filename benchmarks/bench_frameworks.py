"""argstream on the frameworks' own streams, per argument delta, beside what each framework costs.

The workload is tests/recordings/generate.py's ``create_file_20k`` (an ``fs_create_file`` call
whose ~20 KB of argument JSON arrives in ~4,300 deltas), streamed once from the loopback server
through each framework's own client; the framework's stream items are kept in a list and replayed,
so the timings hold only what happens per item after the framework has built it:

``argstream``
    ``iter_tool_stream`` over the framework's items (detection, the adapter, the incremental parse,
    progress items per delta, the call at its end). Divided by the deltas: what argstream adds per
    argument delta on top of iterating the framework's stream.
``native``
    The same recording's Chat Completions / Messages wire dicts through ``iter_tool_stream``: the
    native path the framework adapters are measured against.
``adapter``
    The framework adapter's ``to_events`` alone over the framework's items, beside the native
    adapter over the wire dicts (``native-adapter``): the reading of the framework's objects.
``framework``
    What the framework itself does per chunk: LangChain's ``AIMessageChunk`` merge (``acc + chunk``,
    as ``model.invoke`` and every accumulating consumer does), which re-parses the accumulated
    arguments with its partial-JSON parser on every chunk; pydantic-ai's parts manager taking the
    argument deltas (``handle_tool_call_delta``), which joins the text and parses it at the end.

``extra_info`` holds ``deltas`` and ``us_per_delta`` (from the mean). Skips a framework that is
not installed.

    PYTHONPATH=src python -m pytest benchmarks/bench_frameworks.py --benchmark-min-rounds=5
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from functools import reduce
from operator import add
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from loopback import LoopbackServer, Reply, sse  # noqa: E402
from recordings.generate import RECORDINGS  # noqa: E402

from argstream.stream import ToolCallFinished, iter_tool_stream  # noqa: E402

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

FMT = "openai_chat"
REC = RECORDINGS[f"{FMT}/create_file_20k"]
ARGUMENTS = REC.tool_calls[0][2]
DELTAS = sum(1 for item in REC.items for c in item.get("choices", ())
             for tc in (c.get("delta") or {}).get("tool_calls") or () if tc.get("function", {}).get("arguments"))
BODY = sse(REC.items, done=True)
FINAL = sse([
    {"id": "f", "object": "chat.completion.chunk", "created": 1, "model": "m",
     "choices": [{"index": 0, "delta": {"role": "assistant", "content": "done"}, "finish_reason": None}]},
    {"id": "f", "object": "chat.completion.chunk", "created": 1, "model": "m",
     "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}], done=True)


def _langchain() -> list[Any]:
    langchain_openai = pytest.importorskip("langchain_openai")
    with LoopbackServer(Reply.body(BODY, 4096)) as server:
        model = langchain_openai.ChatOpenAI(model="gpt-test", base_url=server.url + "/v1", api_key="test",
                                            max_retries=0)
        return list(model.stream("go"))


def _pydantic_ai() -> list[Any]:
    pydantic_ai = pytest.importorskip("pydantic_ai")
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    async def collect() -> list[Any]:
        with LoopbackServer(Reply.body(BODY, 4096), Reply.body(FINAL, 4096)) as server:
            agent = pydantic_ai.Agent(OpenAIChatModel("gpt-test", provider=OpenAIProvider(
                base_url=server.url + "/v1", api_key="test")))

            @agent.tool_plain
            def fs_create_file(path: str, content: str) -> str:
                return "ok"

            async with agent.run_stream_events("go") as stream:
                return [event async for event in stream]

    return asyncio.run(collect())


def _openai_agents() -> list[Any]:
    agents = pytest.importorskip("agents")
    openai = pytest.importorskip("openai")
    agents.set_tracing_disabled(True)

    async def collect() -> list[Any]:
        with LoopbackServer(Reply.body(BODY, 4096), Reply.body(FINAL, 4096)) as server:
            client = openai.AsyncOpenAI(base_url=server.url + "/v1", api_key="test", max_retries=0)

            @agents.function_tool
            def fs_create_file(path: str, content: str) -> str:
                """Create a file."""
                return "ok"

            agent = agents.Agent(name="a", model=agents.OpenAIChatCompletionsModel("gpt-test", openai_client=client),
                                 tools=[fs_create_file])
            result = agents.Runner.run_streamed(agent, "go")
            return [event async for event in result.stream_events()]

    return asyncio.run(collect())


def _quiet(step: float = 0.05, limit: float = 60.0) -> None:
    """Wait until no thread of this process works any more (its CPU time stops growing)."""
    deadline = time.monotonic() + limit
    last = time.process_time()
    while time.monotonic() < deadline:
        time.sleep(step)
        now = time.process_time()
        if now - last < step / 20:
            return
        last = now


def _litellm() -> list[Any]:
    litellm = pytest.importorskip("litellm")
    with LoopbackServer(Reply.body(BODY, 4096)) as server:
        items = list(litellm.completion(model="openai/gpt-test", api_base=server.url + "/v1", api_key="test",
                                        stream=True, messages=[{"role": "user", "content": "go"}]))
    # LiteLLM hands each chunk's logging to its own thread pool, which is still at it when the stream
    # ends: without this wait its work lands in whatever is measured next (4x the instructions of
    # native Chat wire dicts per delta, when counted with it).
    _quiet()
    return items


COLLECT = {"langchain": _langchain, "pydantic_ai": _pydantic_ai, "openai_agents": _openai_agents,
           "litellm": _litellm}
_ITEMS: dict[str, list[Any]] = {}


def items_of(framework: str) -> list[Any]:
    if framework not in _ITEMS:
        _ITEMS[framework] = COLLECT[framework]()
    return _ITEMS[framework]


def argstream_calls(items: list[Any], provider: Any = None) -> list[dict[str, Any]]:
    return [i.arguments for i in iter_tool_stream(items, provider) if type(i) is ToolCallFinished]


def _record(benchmark: Any) -> None:
    benchmark.extra_info["deltas"] = DELTAS
    stats = getattr(benchmark, "stats", None)
    if stats is not None:
        benchmark.extra_info["us_per_delta"] = round(stats.stats.mean / DELTAS * 1e6, 3)


@pytest.mark.parametrize("framework", list(COLLECT))
def test_argstream_on_the_framework_stream(benchmark: Any, framework: str) -> None:
    items = items_of(framework)
    benchmark.group = f"frameworks {framework} 20KB"
    assert benchmark(argstream_calls, items)[0] == ARGUMENTS
    _record(benchmark)


def test_native_chat_completions(benchmark: Any) -> None:
    benchmark.group = "frameworks native 20KB"
    assert benchmark(argstream_calls, REC.items, FMT) == [ARGUMENTS]
    _record(benchmark)


def test_langchain_merge(benchmark: Any) -> None:
    chunks = items_of("langchain")
    benchmark.group = "frameworks langchain 20KB"
    merged = benchmark.pedantic(reduce, (add, chunks), rounds=1, iterations=1)
    assert merged.tool_calls[0]["args"] == ARGUMENTS
    _record(benchmark)


def test_pydantic_ai_parts_manager(benchmark: Any) -> None:
    pytest.importorskip("pydantic_ai")
    from pydantic_ai._parts_manager import ModelResponsePartsManager
    from pydantic_ai.models import ModelRequestParameters

    deltas = [tc["function"] for item in REC.items for c in item.get("choices", ())
              for tc in (c.get("delta") or {}).get("tool_calls") or ()]

    def manage() -> Any:
        manager = ModelResponsePartsManager(ModelRequestParameters())
        for function in deltas:
            manager.handle_tool_call_delta(vendor_part_id=0, tool_name=function.get("name"),
                                           args=function.get("arguments"), tool_call_id=None)
        return manager.get_parts()[0].args_as_dict()

    benchmark.group = "frameworks pydantic_ai 20KB"
    assert benchmark(manage) == ARGUMENTS
    _record(benchmark)


@pytest.mark.parametrize("framework", [*COLLECT, "native"])
def test_adapter_only(benchmark: Any, framework: str) -> None:
    import importlib

    module = importlib.import_module(f"argstream.providers.{FMT if framework == 'native' else framework}")
    items = REC.items if framework == "native" else items_of(framework)
    benchmark.group = "frameworks adapters 20KB"
    events = benchmark(lambda: list(module.to_events(items)))
    assert events[-1].reason.name in ("TOOL_USE", "COMPLETED")
    _record(benchmark)
