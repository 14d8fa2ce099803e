"""The framework adapters without the frameworks: no import of them, detection by type module, hostile items.

Objects stand in for the frameworks' own (same type module, same fields), so these run where the
``frameworks`` extra is not installed.
"""

from __future__ import annotations

import random
import subprocess
import sys
from types import SimpleNamespace
from typing import Any

import pytest
from _frameworks_support import builder_factory

from argstream.events import Finished, FinishReason, Flush
from argstream.providers import ProviderProtocolError, langchain, openai_agents, pydantic_ai
from argstream.providers import litellm as litellm_events
from argstream.providers.detect import detect_provider
from argstream.stream import ToolCallFinished, iter_tool_stream


def test_adapters_import_no_framework() -> None:
    code = ("import sys, argstream.providers.langchain, argstream.providers.pydantic_ai, "
            "argstream.providers.openai_agents, argstream.providers.litellm, argstream.providers.detect; "
            "print([m for m in ('langchain_core', 'pydantic_ai', 'agents', 'litellm', 'openai', 'anthropic') "
            "if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def stand_in(module: str, name: str, **fields: Any) -> Any:
    """An object whose type is defined in ``module`` (what detection reads), with ``fields``."""
    cls = type(name, (SimpleNamespace,), {"__module__": module})
    return cls(**fields)


def ai_chunk(**fields: Any) -> Any:
    base = {"type": "AIMessageChunk", "content": "", "tool_call_chunks": [], "response_metadata": {}}
    return stand_in("langchain_core.messages.ai", "AIMessageChunk", **{**base, **fields})


def test_detection_by_type_module() -> None:
    assert detect_provider(ai_chunk()) == "langchain"
    assert detect_provider(stand_in("pydantic_ai.messages", "PartStartEvent", event_kind="part_start")) == "pydantic_ai"
    assert detect_provider(stand_in("agents.stream_events", "AgentUpdatedStreamEvent",
                                    type="agent_updated_stream_event")) == "openai_agents"
    assert detect_provider(stand_in("litellm.types.utils", "ModelResponseStream", choices=[])) == "litellm"
    with pytest.raises(ValueError):  # some other package named ``agents``
        detect_provider(stand_in("agents.mine", "Thing", type="something"))


def test_langchain_parallel_calls_on_reused_indexes_and_reasons(make_parser: Any) -> None:
    chunks = [
        ai_chunk(content="Two calls.", tool_call_chunks=[{"name": "a", "args": '{"x": ', "id": "c1", "index": 0}]),
        ai_chunk(tool_call_chunks=[{"name": "b", "args": "", "id": "c2", "index": 1}]),
        ai_chunk(tool_call_chunks=[{"name": None, "args": "1}", "id": None, "index": 0}]),
        ai_chunk(tool_call_chunks=[{"name": "c", "args": "{}", "id": "c3", "index": 0}]),  # c1 is over
        ai_chunk(response_metadata={"stop_reason": "max_tokens"}),
        ai_chunk(chunk_position="last"),
    ]
    items = list(iter_tool_stream(chunks, builder_factory=builder_factory(make_parser)))
    assert [(i.id, i.name, i.arguments) for i in items if type(i) is ToolCallFinished] == [
        ("c1", "a", {"x": 1}), ("c2", "b", {}), ("c3", "c", {})]
    assert items[-1].reason is FinishReason.MAX_TOKENS


@pytest.mark.parametrize("status, reason", [("completed", FinishReason.TOOL_USE), ("failed", FinishReason.ERROR),
                                            ("incomplete", FinishReason.MAX_TOKENS)])
def test_langchain_responses_status(status: str, reason: FinishReason) -> None:
    chunks = [ai_chunk(tool_call_chunks=[{"name": "a", "args": "{}", "id": "c1", "index": 0}]),
              ai_chunk(response_metadata={"object": "response", "status": status})]
    events = list(langchain.to_events(chunks))
    assert events[-1].reason is reason


def test_pydantic_ai_events_as_dicts() -> None:
    events = [
        {"event_kind": "part_start", "index": 0, "part": {"part_kind": "thinking", "content": "hm"}},
        {"event_kind": "part_start", "index": 1, "part": {"part_kind": "tool-call", "tool_name": "a",
                                                          "tool_call_id": "c1", "args": {"x": [1]}}},
        {"event_kind": "part_end", "index": 1},
        {"event_kind": "function_tool_call"},
        {"event_kind": "part_start", "index": 0, "part": {"part_kind": "text", "content": "done"}},
    ]
    items = list(iter_tool_stream(events, "pydantic_ai"))
    assert [(i.id, i.arguments) for i in items if type(i) is ToolCallFinished] == [("c1", {"x": [1]})]
    assert [i.reason for i in items if type(i).__name__ == "StreamFinished"] == [FinishReason.TOOL_USE,
                                                                                  FinishReason.COMPLETED]


def test_agents_ignores_run_items_and_placeholder_ids() -> None:
    def raw(data: dict) -> dict:
        return {"type": "raw_response_event", "data": data}

    fake = "__fake_id__"
    events = [{"type": "agent_updated_stream_event"}, raw({"type": "response.created", "response": {"id": "r"}})]
    for n in (1, 2):
        events.append(raw({"type": "response.output_item.added", "output_index": n, "item": {
            "type": "function_call", "id": fake, "call_id": f"c{n}", "name": "f", "arguments": ""}}))
    for n, text in ((1, '{"a"'), (2, '{"b"'), (1, ": 1}"), (2, ": 2}")):
        events.append(raw({"type": "response.function_call_arguments.delta", "item_id": fake, "output_index": n,
                           "delta": text}))
    events += [raw({"type": "response.completed", "response": {"id": "r", "status": "completed", "output": []}}),
               {"type": "run_item_stream_event", "name": "tool_called"}]
    items = list(iter_tool_stream(events, "openai_agents"))
    assert sorted((i.id, i.arguments) for i in items if type(i) is ToolCallFinished) == [
        ("c1", {"a": 1}), ("c2", {"b": 2})]


HOSTILE: list[tuple[Any, list[Any]]] = [
    (langchain, [ai_chunk(tool_call_chunks=[{"name": 5, "args": "{", "id": "c", "index": 0}])]),
    (langchain, [ai_chunk(tool_call_chunks=[{"name": "a", "args": "{", "id": "c", "index": "0"}])]),
    (langchain, [ai_chunk(tool_call_chunks="nope")]),
    (langchain, [ai_chunk(content=7)]),
    (langchain, [ai_chunk(response_metadata={"finish_reason": ["stop"]})]),
    (langchain, [(ai_chunk(), {}, {})]),
    (langchain, [{"event": "on_chat_model_stream", "data": {}}]),
    (pydantic_ai, [{"event_kind": "part_start", "index": "0", "part": {}}]),
    (pydantic_ai, [{"event_kind": "part_start", "index": 0, "part": {"part_kind": "tool-call", "tool_name": 1}}]),
    (pydantic_ai, [{"event_kind": "part_start", "index": 0, "part": {"part_kind": "text", "content": ""}},
                   {"event_kind": "part_delta", "index": 0, "delta": {"part_delta_kind": "tool_call"}}]),
    (pydantic_ai, [{"event_kind": "part_start", "index": 0, "part": {"part_kind": "text"}},
                   {"event_kind": "part_start", "index": 0, "part": {"part_kind": "text"}}]),
    (openai_agents, [{"type": "raw_response_event"}]),
    (openai_agents, [{"type": "raw_response_event", "data": 5}]),
]


@pytest.mark.parametrize("module, items", HOSTILE)
def test_hostile_items_raise_the_documented_error(module: Any, items: list[Any]) -> None:
    events: list[Any] = []
    with pytest.raises(ProviderProtocolError):
        for event in module.to_events(items):
            events.append(event)
    assert type(events[-1]) is Finished and events[-1].reason is FinishReason.ERROR
    assert not any(type(e) is Flush for e in events)


def _garbage(rng: random.Random, depth: int = 0) -> Any:
    pick = rng.randrange(9 if depth < 3 else 5)
    if pick == 0:
        return None
    if pick == 1:
        return rng.choice(["", "{", "part_start", "part_delta", "tool-call", "text", "raw_response_event",
                           "on_chat_model_stream", "AIMessageChunk", "stop", '{"a": 1}'])
    if pick == 2:
        return rng.choice([0, 1, -1, 2**70, 1.5, True])
    if pick == 3:
        return []
    if pick == 4:
        return {}
    keys = ["type", "event", "event_kind", "index", "part", "delta", "data", "content", "tool_call_chunks",
            "response_metadata", "args", "args_delta", "name", "id", "tool_name", "part_kind", "part_delta_kind",
            "finish_reason", "chunk", "status", "object", "chunk_position", "content_delta", "tool_call_id"]
    if pick in (5, 6):
        return {rng.choice(keys): _garbage(rng, depth + 1) for _ in range(rng.randrange(1, 5))}
    if pick == 7:
        return [_garbage(rng, depth + 1) for _ in range(rng.randrange(1, 4))]
    return tuple(_garbage(rng, depth + 1) for _ in range(2))


@pytest.mark.parametrize("module", [langchain, pydantic_ai, openai_agents, litellm_events])
def test_random_garbage_never_escapes_the_documented_error(module: Any) -> None:
    rng = random.Random(f"garbage-{module.__name__}")
    for _ in range(400):
        items = [_garbage(rng) for _ in range(rng.randrange(1, 6))]
        events: list[Any] = []
        try:
            for event in module.to_events(items):
                events.append(event)
        except ProviderProtocolError:
            assert events[-1].reason is FinishReason.ERROR
        assert type(events[-1]) is Finished
        assert sum(1 for e in events if type(e) is Finished and e.reason is FinishReason.ERROR) <= 1
