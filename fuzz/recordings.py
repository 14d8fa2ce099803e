"""Seed streams for the adapter target: the recordings of ../shared when present, and a small stream
per provider written here so that the target runs without them."""

from __future__ import annotations

import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("ARGSTREAM_SHARED", ROOT.parent / "shared"))
FOLDERS = (SHARED / "recordings", SHARED / "recordings-more")
PROVIDERS = ("anthropic", "openai_chat", "openai_responses", "gemini", "ollama")

_CALL = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "read", "arguments": ""}
BUILT_IN: dict[str, list[list[Any]]] = {
    "anthropic": [[
        {"type": "message_start", "message": {"id": "msg_1", "role": "assistant", "content": []}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Reading."}},
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1,
         "content_block": {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {}}},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": '{"pa'}},
        {"type": "content_block_delta", "index": 1,
         "delta": {"type": "input_json_delta", "partial_json": 'th": "src/a"}'}},
        {"type": "content_block_stop", "index": 1},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 9}},
        {"type": "message_stop"},
    ]],
    "openai_chat": [[
        {"id": "c1", "object": "chat.completion.chunk", "choices": [
            {"index": 0, "delta": {"role": "assistant", "content": "Reading."}, "finish_reason": None}]},
        {"id": "c1", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "id": "call_1", "type": "function", "function": {"name": "read", "arguments": '{"pa'}}]},
            "finish_reason": None}]},
        {"id": "c1", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "function": {"arguments": 'th": "src/a"}'}}]}, "finish_reason": None}]},
        {"id": "c1", "object": "chat.completion.chunk", "choices": [
            {"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    ]],
    "openai_responses": [[
        {"type": "response.created", "response": {"id": "resp_1", "status": "in_progress"}},
        {"type": "response.output_item.added", "output_index": 0, "item": _CALL},
        {"type": "response.function_call_arguments.delta", "item_id": "fc_1", "output_index": 0, "delta": '{"pa'},
        {"type": "response.function_call_arguments.delta", "item_id": "fc_1", "output_index": 0,
         "delta": 'th": "src/a"}'},
        {"type": "response.function_call_arguments.done", "item_id": "fc_1", "output_index": 0,
         "arguments": '{"path": "src/a"}'},
        {"type": "response.output_item.done", "output_index": 0, "item": {**_CALL, "arguments": '{"path": "src/a"}'}},
        {"type": "response.completed", "response": {"id": "resp_1", "status": "completed"}},
    ]],
    "gemini": [[
        {"candidates": [{"content": {"role": "model", "parts": [{"text": "Reading."}]}}]},
        {"candidates": [{"content": {"role": "model", "parts": [
            {"functionCall": {"name": "read", "args": {"path": "src/a"}}}]}, "finishReason": "STOP"}]},
    ]],
    "ollama": [[
        {"model": "m", "message": {"role": "assistant", "content": "Reading."}, "done": False},
        {"model": "m", "message": {"role": "assistant", "content": "", "tool_calls": [
            {"function": {"name": "read", "arguments": {"path": "src/a"}}}]}, "done": False},
        {"model": "m", "message": {"role": "assistant", "content": ""}, "done": True, "done_reason": "stop"},
    ]],
}


def _read(folder: Path, key: str, entry: dict[str, Any]) -> list[Any]:
    from argstream.providers.wire import read_wire

    lines = (folder / key).read_text(encoding="utf-8").split("\n")
    skip = set(entry.get("lines_not_json") or ())
    return read_wire("\n".join(line for n, line in enumerate(lines, 1) if n not in skip))


@lru_cache(maxsize=None)
def recorded() -> dict[str, list[list[Any]]]:
    """Every recording of ../shared (empty when it is absent), by provider format."""
    out: dict[str, list[list[Any]]] = {p: [] for p in PROVIDERS}
    for folder in FOLDERS:
        path = folder / "expected.json"
        if not path.exists():
            continue
        for key, entry in sorted(json.loads(path.read_text(encoding="utf-8")).items()):
            if entry.get("format") in out:
                out[entry["format"]].append(_read(folder, key, entry))
    return out


def seeds(provider: str) -> list[list[Any]]:
    """The seed streams of one provider: the built-in one first, then the recordings."""
    return [*BUILT_IN[provider], *recorded()[provider]]


__all__ = ["PROVIDERS", "SHARED", "FOLDERS", "BUILT_IN", "recorded", "seeds"]
