"""What the framework tests share: recordings served by the loopback server, and what a stream reported.

The shared recordings (../shared/recordings, skipped when absent) are served as their API frames
them; ``expected_calls`` gives the client calls a framework can hand on (calls of provider-run
tools, and calls given whole inside a later ``message_start``, are not tool call chunks in any
framework). The builder of each run uses the backend under test.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import RECORDINGS
from loopback import sse

from argstream.builder import TOOL_MAX_DEPTH, EventBuilder
from argstream.stream import (
    StreamFinished,
    ToolCallArgumentProgress,
    ToolCallFailed,
    ToolCallFinished,
    ToolCallStarted,
    ToolCallViolation,
)

EXPECTED_PATH = RECORDINGS / "expected.json"
EXPECTED: dict[str, Any] = json.loads(EXPECTED_PATH.read_text(encoding="utf-8")) if EXPECTED_PATH.exists() else {}
PIECES = [1, 7, 64, 200, 3, 1024, 4096, 13, 2048]  # body piece sizes, cycled: frames and UTF-8 split
CHUNKINGS = {"mixed": PIECES, "tiny": [3], "large": [4096]}


def keys(fmt: str, *, exclude: dict[str, str] | None = None) -> list[Any]:
    """The shared recordings of ``fmt`` that hold client calls; ``exclude`` maps a name to why it is skipped."""
    out: list[Any] = []
    for key, entry in sorted(EXPECTED.items()):
        if entry["format"] != fmt or not expected_calls(entry):
            continue
        reason = (exclude or {}).get(key.split("/", 1)[1])
        out.append(pytest.param(key, marks=pytest.mark.skip(reason)) if reason else key)
    return out or [pytest.param("absent", marks=pytest.mark.skip("no shared recordings"))]


def expected_calls(entry: dict[str, Any]) -> list[tuple[str, str, Any]]:
    """(id, name, arguments) of the client function calls a framework streams as tool call chunks."""
    return [
        (call["id"], call["name"], call["arguments"])
        for call in entry["tool_calls"]
        if call.get("client", True) and call.get("kind", "function_call") in ("tool_use", "function_call", "function")
        and call.get("arguments_from") != "message_start"
    ]


def items_of(key: str) -> list[dict[str, Any]]:
    """A shared recording's wire items; the test skips when ../shared is absent (an unpacked sdist)."""
    path = RECORDINGS / key
    if not path.exists():
        pytest.skip(f"no shared recordings ({path} is absent)")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def body_of(fmt: str, items: list[dict[str, Any]]) -> bytes:
    """SSE as the API frames it: ``event:`` lines for Anthropic and Responses, ``[DONE]`` for Chat."""
    if fmt == "openai_chat":
        return sse(items, done=True)
    return sse(items, event_field="type")


def builder_factory(make_parser: Any, tools: Any = None) -> Any:
    """An ``EventBuilder`` factory over the backend under test (as the default one is built)."""
    if tools is None:
        return lambda: EventBuilder(parser_factory=lambda: make_parser(catch_duplicate_keys=True,
                                                                       max_depth=TOOL_MAX_DEPTH))
    return lambda: EventBuilder(tools=tools, parser_factory=lambda: make_parser(
        catch_duplicate_keys=True, max_depth=TOOL_MAX_DEPTH, spans=True))


class Seen:
    """The stream items of one run, sorted by kind."""

    def __init__(self) -> None:
        self.items: list[Any] = []
        self.started: list[ToolCallStarted] = []
        self.finished: list[ToolCallFinished] = []
        self.failed: list[ToolCallFailed] = []
        self.violations: list[ToolCallViolation] = []
        self.progress: list[ToolCallArgumentProgress] = []
        self.ends: list[StreamFinished] = []

    def __call__(self, item: Any) -> None:
        self.items.append(item)
        kind = type(item)
        if kind is ToolCallStarted:
            self.started.append(item)
        elif kind is ToolCallFinished:
            self.finished.append(item)
        elif kind is ToolCallFailed:
            self.failed.append(item)
        elif kind is ToolCallViolation:
            self.violations.append(item)
        elif kind is ToolCallArgumentProgress:
            self.progress.append(item)
        elif kind is StreamFinished:
            self.ends.append(item)

    @property
    def calls(self) -> list[tuple[str, str, Any]]:
        return [(c.id, c.name, c.arguments) for c in self.finished]

    @property
    def reasons(self) -> list[str]:
        return [e.reason.name for e in self.ends]


def chat_text_reply(text: str = "done") -> list[dict[str, Any]]:
    """A Chat Completions response holding only text (an agent's next turn, after its tools ran)."""
    base = {"id": "chatcmpl-final", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    return [
        {**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": text}, "finish_reason": None}]},
        {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
    ]


def responses_text_reply(text: str = "done") -> list[dict[str, Any]]:
    """A Responses stream holding only text."""
    response = {"id": "resp_final", "object": "response", "created_at": 1, "model": "m", "output": [],
                "status": "in_progress", "parallel_tool_calls": True, "tool_choice": "auto", "tools": []}
    message = {"type": "message", "id": "msg_final", "role": "assistant", "status": "completed",
               "content": [{"type": "output_text", "text": text, "annotations": []}]}
    added = {**message, "status": "in_progress", "content": []}
    part = {"type": "output_text", "text": "", "annotations": []}
    events = [
        {"type": "response.created", "response": response},
        {"type": "response.output_item.added", "output_index": 0, "item": added},
        {"type": "response.content_part.added", "item_id": "msg_final", "output_index": 0, "content_index": 0,
         "part": part},
        {"type": "response.output_text.delta", "item_id": "msg_final", "output_index": 0, "content_index": 0,
         "delta": text, "logprobs": []},
        {"type": "response.output_text.done", "item_id": "msg_final", "output_index": 0, "content_index": 0,
         "text": text, "logprobs": []},
        {"type": "response.output_item.done", "output_index": 0, "item": message},
        {"type": "response.completed", "response": {**response, "status": "completed", "output": [message]}},
    ]
    return [{**event, "sequence_number": n} for n, event in enumerate(events)]


def anthropic_text_reply(text: str = "done") -> list[dict[str, Any]]:
    """A Messages stream holding only text."""
    return [
        {"type": "message_start", "message": {"id": "msg_final", "type": "message", "role": "assistant",
                                              "model": "m", "content": [], "stop_reason": None,
                                              "usage": {"input_tokens": 1, "output_tokens": 1}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 1}},
        {"type": "message_stop"},
    ]


def cut_mid_arguments(items: list[dict[str, Any]], fmt: str) -> list[dict[str, Any]]:
    """``items`` up to the middle of the last argument delta's stream: no final events."""
    deltas = [n for n, item in enumerate(items) if _is_argument_delta(item, fmt)]
    return items[: deltas[len(deltas) // 2] + 1]


def _is_argument_delta(item: dict[str, Any], fmt: str) -> bool:
    if fmt == "anthropic":
        return item.get("type") == "content_block_delta" and item["delta"].get("type") == "input_json_delta" \
            and bool(item["delta"].get("partial_json"))
    if fmt == "openai_responses":
        return item.get("type") == "response.function_call_arguments.delta"
    return any(tc.get("function", {}).get("arguments") for c in item.get("choices", [])
               for tc in (c.get("delta") or {}).get("tool_calls") or [])


__all__ = [
    "CHUNKINGS", "EXPECTED", "PIECES", "Seen", "anthropic_text_reply", "body_of", "builder_factory",
    "chat_text_reply", "cut_mid_arguments", "expected_calls", "items_of", "keys", "responses_text_reply",
]
