"""The most expensive single wire events we could construct, through an adapter and an ``EventBuilder`` (issue 9).

Each case is one hostile event of about 1 MB (or the 150-byte ``$.a[10000000]`` that once cost
328 s and 4.2 GB) between the events that make it legal. The work per event must stay bounded
by the event's size: refusals cost microseconds, the rest is linear. ``extra_info["bytes"]`` is
the hostile event's size, ``extra_info["error"]`` the protocol error when the adapter refuses it.

    PYTHONPATH=src .venv/bin/python -m pytest benchmarks/bench_hostile_events.py --benchmark-min-rounds=3
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from argstream.builder import EventBuilder
from argstream.providers import ProviderProtocolError, anthropic, gemini, openai_chat, openai_responses

MB = 1_000_000


def _gemini(call: dict) -> dict:
    return {"candidates": [{"content": {"parts": [{"functionCall": call}]}}], "responseId": "r"}


def _partial(pieces: list[dict]) -> list[dict]:
    return [_gemini({"name": "f", "willContinue": True}), _gemini({"partialArgs": pieces, "willContinue": True}),
            {"candidates": [{"content": {"parts": [{"functionCall": {}}]}, "finishReason": "STOP"}]}]


def _responses(delta: str, name: str = "f", done: str | None = None) -> list[dict]:
    out = [{"type": "response.created", "response": {}},
           {"type": "response.output_item.added", "output_index": 0,
            "item": {"type": "function_call", "id": "fc", "call_id": "c", "name": name, "arguments": ""}},
           {"type": "response.function_call_arguments.delta", "item_id": "fc", "output_index": 0, "delta": delta}]
    if done is not None:
        out.append({"type": "response.function_call_arguments.done", "item_id": "fc", "output_index": 0,
                    "arguments": done})
    out += [{"type": "response.output_item.done", "output_index": 0,
             "item": {"type": "function_call", "id": "fc", "call_id": "c", "name": name}},
            {"type": "response.completed", "response": {"status": "completed"}}]
    return out


def _anthropic(partial_json: str) -> list[dict]:
    return [{"type": "message_start", "message": {"id": "m"}},
            {"type": "content_block_start", "index": 0,
             "content_block": {"type": "tool_use", "id": "t", "name": "f", "input": {}}},
            {"type": "content_block_delta", "index": 0,
             "delta": {"type": "input_json_delta", "partial_json": partial_json}},
            {"type": "content_block_stop", "index": 0}, {"type": "message_stop"}]


CASES: dict[str, tuple[Any, list[dict]]] = {
    "gemini-skip-ahead-150B": (gemini, _partial([{"jsonPath": "$.a[10000000]", "numberValue": 1}])),
    "gemini-path-1MB-deep": (gemini, _partial([{"jsonPath": "$" + ".a" * (MB // 2), "numberValue": 1}])),
    "gemini-50k-pieces": (gemini, _partial([{"jsonPath": f"$.k{i}", "numberValue": i} for i in range(50_000)])),
    "gemini-30k-pieces-back-and-forth": (gemini, _partial([{"jsonPath": f"$.k{i % 2}", "numberValue": i}
                                                          for i in range(30_000)])),
    "gemini-1MB-string": (gemini, _partial([{"jsonPath": "$.s", "stringValue": "x" * MB}])),
    "anthropic-1MB-delta": (anthropic, _anthropic(json.dumps({"s": "x" * MB}))),
    "anthropic-1MB-of-[": (anthropic, _anthropic('{"a":' + "[" * MB)),
    "anthropic-30KB-ten-500-deep-objects": (anthropic, _anthropic(
        '{"x":[' + ",".join('{"a":' * 500 + "1" + "}" * 500 for _ in range(10)) + "]}")),
    "responses-parallel-wrapper-40k-calls": (openai_responses, _responses(json.dumps({"tool_uses": [
        {"recipient_name": "functions.f", "parameters": {"i": i}} for i in range(40_000)]}), "parallel")),
    "responses-1MB-contradicting-copy": (openai_responses, _responses(json.dumps({"s": "x" * MB}),
                                                                      done=json.dumps({"s": "y" * MB}))),
    "chat-20k-calls-on-index-0": (openai_chat, [
        {"id": "c", "choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "id": f"call_{i}", "function": {"name": "f", "arguments": '{"a": 1}'}}
            for i in range(20_000)]}}]},
        {"id": "c", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}]),
}


def _feed(module: Any, items: list[dict]) -> str | None:
    builder = EventBuilder()
    try:
        for event in module.to_events(items):
            builder.handle(event)
    except ProviderProtocolError as exc:
        return exc.msg
    return None


@pytest.mark.parametrize("case", list(CASES))
def test_hostile_event(benchmark: Any, case: str) -> None:
    module, items = CASES[case]
    benchmark.group = "hostile-event"
    benchmark.extra_info["bytes"] = max(len(json.dumps(item)) for item in items)
    benchmark.extra_info["error"] = _feed(module, items)
    benchmark(_feed, module, items)
