"""Provider stream → events → EventBuilder, against the SDKs' own stream helpers, on the 20 KB recording.

The workload is tests/recordings/generate.py's ``create_file_20k``: an ``fs_create_file`` call
whose ~20 KB of argument JSON arrives in ~4,300 deltas (Anthropic ``input_json_delta`` /
OpenAI ``tool_calls[].function.arguments``). Two modes, one group each per format:

``decoded``
    Real SDK objects, decoded once from the loopback server, replayed from a list: measures only
    what happens per event after the SDK has decoded it. ``argstream`` is ``to_events`` +
    ``EventBuilder`` (incremental parse, progress per chunk, the call at the flush);
    ``argstream-helper`` is ``iter_tool_stream``; ``sdk-helper`` is the accumulation
    ``messages.stream()`` / ``chat.completions.stream()`` run per event (Anthropic:
    ``accumulate_event`` + ``build_events``, which re-parse the whole argument buffer with jiter on
    every delta; OpenAI: ``ChatCompletionStreamState.handle_chunk``, plus ``-strict`` with a strict
    tool, which also re-parses the arguments per chunk).
``loopback``
    End to end over HTTP from tests/loopback.py: the SDK client's raw stream through ``to_events``
    + ``EventBuilder``, the SDK's stream helper, and the raw stream alone (``sdk-raw``, the floor
    both pay for HTTP, SSE decoding and pydantic).

Every case is checked outside the timed call: the arguments equal the recording's. ``extra_info``
holds ``events`` (wire events per round) and ``events_per_s`` (from the mean).

    PYTHONPATH=src .venv/bin/python -m pytest benchmarks/bench_pipeline.py --benchmark-min-rounds=5
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from loopback import LoopbackServer, Reply, sse  # noqa: E402
from recordings.generate import RECORDINGS  # noqa: E402

from argstream.builder import EventBuilder  # noqa: E402
from argstream.events import Flush, ToolCallRequest  # noqa: E402
from argstream.providers import anthropic as anthropic_adapter  # noqa: E402
from argstream.providers import openai_chat as openai_adapter  # noqa: E402
from argstream.stream import ToolCallFinished, iter_tool_stream  # noqa: E402

REQUEST = {"model": "test-model", "messages": [{"role": "user", "content": "go"}]}
STRICT_TOOL = {"type": "function", "function": {
    "name": "fs_create_file", "strict": True,
    "parameters": {"type": "object", "additionalProperties": False, "required": ["path", "content"],
                   "properties": {"path": {"type": "string"}, "content": {"type": "string"}}}}}


class Setup:
    """One format's loopback server, SDK client, wire body and decoded SDK objects."""

    def __init__(self, fmt: str) -> None:
        self.fmt = fmt
        self.rec = RECORDINGS[f"{fmt}/create_file_20k"]
        self.arguments = self.rec.tool_calls[0][2]
        body = sse(self.rec.items, event_field="type") if fmt == "anthropic" else sse(self.rec.items, done=True)
        self.server = LoopbackServer(Reply.body(body, 16_384))
        if fmt == "anthropic":
            import anthropic

            self.client: Any = anthropic.Anthropic(base_url=self.server.url, api_key="k", max_retries=0)
        else:
            import openai

            self.client = openai.OpenAI(base_url=self.server.url + "/v1", api_key="k", max_retries=0)
        with self.raw() as stream:
            self.objects = list(stream)

    def raw(self) -> Any:
        if self.fmt == "anthropic":
            return self.client.messages.create(max_tokens=64_000, stream=True, **REQUEST)
        return self.client.chat.completions.create(stream=True, **REQUEST)

    def close(self) -> None:
        self.client.close()
        self.server.close()


@pytest.fixture(scope="module", params=["anthropic", "openai_chat"])
def setup(request: pytest.FixtureRequest):
    pytest.importorskip("anthropic" if request.param == "anthropic" else "openai")
    s = Setup(request.param)
    yield s
    s.close()


def _record(benchmark: Any, events: int) -> None:
    benchmark.extra_info["events"] = events
    mean = benchmark.stats.stats.mean if benchmark.stats else 0
    if mean:
        benchmark.extra_info["events_per_s"] = round(events / mean)


# -- what each case runs ----------------------------------------------------------------------------


def argstream_pipeline(adapter: Any, stream: Any) -> list[ToolCallRequest]:
    builder = EventBuilder()
    handle = builder.handle
    calls = []
    for event in adapter.to_events(stream):
        out = handle(event)
        if type(event) is Flush and out is not None and type(out.kind) is ToolCallRequest:
            calls.append(out.kind)
    return calls


def argstream_helper(stream: Any) -> list[dict]:
    return [i.arguments for i in iter_tool_stream(stream) if type(i) is ToolCallFinished]


def anthropic_accumulate(objects: list[Any]) -> Any:
    from anthropic.lib.streaming._messages import accumulate_event, build_events

    snapshot, json_bufs = None, {}
    for event in objects:
        snapshot = accumulate_event(event=event, current_snapshot=snapshot, json_bufs=json_bufs)
        build_events(event=event, message_snapshot=snapshot)
    return [b.input for b in snapshot.content if b.type == "tool_use"]


def openai_accumulate(objects: list[Any], tools: Any = None) -> Any:
    from openai.lib.streaming.chat import ChatCompletionStreamState

    state = ChatCompletionStreamState(input_tools=tools) if tools else ChatCompletionStreamState()
    for chunk in objects:
        for _ in state.handle_chunk(chunk):
            pass
    calls = state.get_final_completion().choices[0].message.tool_calls
    return [c.function.parsed_arguments if tools else c.function.arguments for c in calls]


# -- decoded SDK objects ----------------------------------------------------------------------------


@pytest.mark.parametrize("impl", ["argstream", "argstream-helper", "sdk-helper", "sdk-helper-strict"])
def test_decoded(benchmark: Any, setup: Setup, impl: str) -> None:
    benchmark.group = f"pipeline {setup.fmt} 20KB decoded"
    objects = setup.objects
    adapter = anthropic_adapter if setup.fmt == "anthropic" else openai_adapter
    if impl == "argstream":
        calls = benchmark(argstream_pipeline, adapter, objects)
        assert [c.arguments for c in calls] == [setup.arguments]
    elif impl == "argstream-helper":
        assert benchmark(argstream_helper, objects) == [setup.arguments]
    elif impl == "sdk-helper":
        if setup.fmt == "anthropic":
            assert benchmark(anthropic_accumulate, objects) == [setup.arguments]
        else:
            assert [__import__("json").loads(a) for a in benchmark(openai_accumulate, objects)] == [setup.arguments]
    else:
        if setup.fmt == "anthropic":
            pytest.skip("the Anthropic helper has no strict variant")
        assert benchmark(openai_accumulate, objects, [STRICT_TOOL]) == [setup.arguments]
    _record(benchmark, len(objects))


# -- end to end over the loopback server ------------------------------------------------------------


@pytest.mark.parametrize("impl", ["argstream", "sdk-helper", "sdk-raw"])
def test_loopback(benchmark: Any, setup: Setup, impl: str) -> None:
    benchmark.group = f"pipeline {setup.fmt} 20KB loopback"
    adapter = anthropic_adapter if setup.fmt == "anthropic" else openai_adapter
    client = setup.client

    def run_argstream() -> list[dict]:
        with setup.raw() as stream:
            return [c.arguments for c in argstream_pipeline(adapter, stream)]

    def run_sdk_helper() -> list[Any]:
        if setup.fmt == "anthropic":
            with client.messages.stream(max_tokens=64_000, **REQUEST) as stream:
                for _ in stream:
                    pass
                return [b.input for b in stream.get_final_message().content if b.type == "tool_use"]
        with client.chat.completions.stream(**REQUEST) as stream:
            for _ in stream:
                pass
            calls = stream.get_final_completion().choices[0].message.tool_calls
            return [__import__("json").loads(c.function.arguments) for c in calls]

    def run_raw() -> int:
        with setup.raw() as stream:
            return sum(1 for _ in stream)

    if impl == "argstream":
        assert benchmark(run_argstream) == [setup.arguments]
    elif impl == "sdk-helper":
        assert benchmark(run_sdk_helper) == [setup.arguments]
    else:
        assert benchmark(run_raw) == len(setup.objects)
    _record(benchmark, len(setup.objects))
