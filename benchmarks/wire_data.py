"""Wire streams of one ``fs_create_file`` call per provider, for the per-event benchmarks (issue 17).

The call is ``{"path": "src/...", "content": <source>}`` whose content is ``data.source_text`` (stdlib
source with lines of accented Latin, CJK, emoji, tabs, quotes and backslashes injected), cut so that
the argument JSON is about 2 KB, 20 KB or 200 KB. Its text is sent as token-sized deltas of 2-12
characters (as fine-grained streaming sends them), random with a fixed seed per size, so every provider
streams the same pieces:

- ``anthropic``: ``content_block_delta`` / ``input_json_delta`` SSE frames (``event:`` + ``data:``);
- ``openai_chat``: Chat Completions chunks with one ``tool_calls[].function.arguments`` delta, ``[DONE]``;
- ``openai_responses``: ``response.function_call_arguments.delta`` frames, the full text again in
  ``.done``, ``output_item.done`` and ``response.completed``;
- ``gemini`` (SSE) and ``ollama`` (NDJSON): the arguments whole, in one event (secondary cases).

The frames carry the fields the real services send (ids, model, usage, sequence numbers) so that the
``json.loads`` floor decodes what a consumer of the real stream decodes. Deterministic: no network, one
seeded RNG.
"""

from __future__ import annotations

import functools
import json
import random
from dataclasses import dataclass
from typing import Any

from data import source_text

#: Size name -> target length of the argument JSON, in characters.
SIZES: dict[str, int] = {"2K": 2_000, "20K": 20_000, "200K": 200_000}
#: Providers whose arguments stream as deltas (the per-delta margins), then the whole-argument ones.
DELTA_PROVIDERS: tuple[str, ...] = ("anthropic", "openai_chat", "openai_responses")
WHOLE_PROVIDERS: tuple[str, ...] = ("gemini", "ollama")
PROVIDERS: tuple[str, ...] = DELTA_PROVIDERS + WHOLE_PROVIDERS
DELTA_LENGTHS = (2, 12)

TOOL_NAME = "fs_create_file"
CALL_ID = "call_bench_0001"
PATH = "src/argstream_bench/generated_module.py"
#: The tool definition, as JSON Schema: ``tools=`` checks ``maxLength`` and ``pattern`` on ``path``.
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "minLength": 1, "maxLength": 4096, "pattern": "^[A-Za-z0-9_./-]+$"},
        "content": {"type": "string"},
    },
    "required": ["path", "content"],
    "additionalProperties": False,
}
TOOLS: dict[str, Any] = {TOOL_NAME: SCHEMA}
#: The decision the coordinator cases reach at ``path``: everything under ``src/`` runs unattended.
POLICY_TOML = f"""
[tools."*".policy]
run = "ask"

[tools.{TOOL_NAME}.policy]
run = [{{ arg = "/path", prefix = "src/", mode = "unattended" }}, {{ mode = "ask" }}]
"""


@dataclass(frozen=True)
class WireStream:
    """One provider's stream of the call: its wire items, their ``data`` lines and the raw text."""

    provider: str
    size: str
    arguments: dict[str, Any]
    argument_text: str  # the argument JSON as the model wrote it
    deltas: tuple[str, ...]  # the argument text as streamed (one piece for the whole-argument providers)
    items: tuple[Any, ...]  # wire dicts decoded from ``lines``, one per event
    lines: tuple[str, ...]  # the JSON text of each event (an SSE data: line, an NDJSON line)
    chunks: tuple[str, ...]  # the raw SSE / NDJSON text, one chunk per event (as a live stream arrives)

    @property
    def body(self) -> bytes:
        return "".join(self.chunks).encode()

    @property
    def byte_chunks(self) -> tuple[bytes, ...]:
        return tuple(c.encode() for c in self.chunks)

    @property
    def n_deltas(self) -> int:
        """Argument deltas: the unit of the per-delta figures (1 for a whole-argument provider)."""
        return len(self.deltas)

    @property
    def content_type(self) -> str:
        return "application/x-ndjson" if self.provider == "ollama" else "text/event-stream"


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@functools.cache
def call_arguments(size: str) -> tuple[dict[str, Any], str]:
    """The arguments and their JSON text, the longest content whose text is at most ``SIZES[size]``."""
    target = SIZES[size]
    source = source_text(target)
    lo, hi = 0, len(source)
    while lo < hi:  # the text only grows with the content
        mid = (lo + hi + 1) // 2
        if len(json.dumps({"path": PATH, "content": source[:mid]}, ensure_ascii=False)) <= target:
            lo = mid
        else:
            hi = mid - 1
    arguments = {"path": PATH, "content": source[:lo]}
    return arguments, json.dumps(arguments, ensure_ascii=False)


@functools.cache
def deltas(size: str) -> tuple[str, ...]:
    """The argument text in pieces of 2-12 characters (seeded per size)."""
    _, text = call_arguments(size)
    rng = random.Random(17_000 + SIZES[size])
    out = []
    pos = 0
    while pos < len(text):
        n = rng.randint(*DELTA_LENGTHS)
        out.append(text[pos : pos + n])
        pos += n
    return tuple(out)


def _anthropic(arguments: dict, text: str, pieces: tuple[str, ...]) -> list[dict]:
    items: list[dict] = [
        {"type": "message_start", "message": {
            "id": "msg_bench01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
            "content": [], "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": 812, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
                      "output_tokens": 1, "service_tier": "standard"}}},
        {"type": "ping"},
        {"type": "content_block_start", "index": 0,
         "content_block": {"type": "tool_use", "id": CALL_ID, "name": TOOL_NAME, "input": {}}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": ""}},
    ]
    items += [{"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": p}}
              for p in pieces]
    items += [
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None},
         "usage": {"output_tokens": len(pieces)}},
        {"type": "message_stop"},
    ]
    return items


def _chat(arguments: dict, text: str, pieces: tuple[str, ...]) -> list[dict]:
    def chunk(delta: dict, finish: str | None = None) -> dict:
        return {"id": "chatcmpl-bench01", "object": "chat.completion.chunk", "created": 1764000000,
                "model": "gpt-4.1-2025-04-14", "system_fingerprint": "fp_bench01",
                "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
                "usage": None}

    items = [
        chunk({"role": "assistant", "content": None, "refusal": None}),
        chunk({"tool_calls": [{"index": 0, "id": CALL_ID, "type": "function",
                               "function": {"name": TOOL_NAME, "arguments": ""}}]}),
    ]
    items += [chunk({"tool_calls": [{"index": 0, "function": {"arguments": p}}]}) for p in pieces]
    items.append(chunk({}, "tool_calls"))
    return items


def _responses(arguments: dict, text: str, pieces: tuple[str, ...]) -> list[dict]:
    item = {"id": "fc_bench01", "type": "function_call", "status": "in_progress", "arguments": "",
            "call_id": CALL_ID, "name": TOOL_NAME}
    response = {"id": "resp_bench01", "object": "response", "created_at": 1764000000, "status": "in_progress",
                "model": "gpt-4.1-2025-04-14", "output": [], "parallel_tool_calls": True, "tool_choice": "auto",
                "tools": [], "error": None, "incomplete_details": None, "usage": None}
    seq = iter(range(1 << 30))
    items: list[dict] = [
        {"type": "response.created", "sequence_number": next(seq), "response": response},
        {"type": "response.in_progress", "sequence_number": next(seq), "response": response},
        {"type": "response.output_item.added", "sequence_number": next(seq), "output_index": 0, "item": item},
    ]
    items += [{"type": "response.function_call_arguments.delta", "sequence_number": next(seq),
               "item_id": "fc_bench01", "output_index": 0, "delta": p} for p in pieces]
    done = dict(item, status="completed", arguments=text)
    items += [
        {"type": "response.function_call_arguments.done", "sequence_number": next(seq), "item_id": "fc_bench01",
         "output_index": 0, "arguments": text},
        {"type": "response.output_item.done", "sequence_number": next(seq), "output_index": 0, "item": done},
        {"type": "response.completed", "sequence_number": next(seq), "response": dict(
            response, status="completed", output=[done],
            usage={"input_tokens": 812, "output_tokens": len(pieces), "total_tokens": 812 + len(pieces),
                   "input_tokens_details": {"cached_tokens": 0},
                   "output_tokens_details": {"reasoning_tokens": 0}})},
    ]
    return items


def _gemini(arguments: dict, text: str, pieces: tuple[str, ...]) -> list[dict]:
    usage = {"promptTokenCount": 812, "candidatesTokenCount": 900, "totalTokenCount": 1712}
    return [
        {"candidates": [{"content": {"parts": [{"text": "I'll create the file."}], "role": "model"}, "index": 0}],
         "usageMetadata": usage, "modelVersion": "gemini-2.5-flash", "responseId": "bench01"},
        {"candidates": [{"content": {"parts": [{"functionCall": {"name": TOOL_NAME, "args": arguments}}],
                                     "role": "model"}, "finishReason": "STOP", "index": 0}],
         "usageMetadata": usage, "modelVersion": "gemini-2.5-flash", "responseId": "bench01"},
    ]


def _ollama(arguments: dict, text: str, pieces: tuple[str, ...]) -> list[dict]:
    head = {"model": "qwen3:8b", "created_at": "2025-11-26T02:00:00.000000Z"}
    return [
        dict(head, message={"role": "assistant", "content": "I'll create the file."}, done=False),
        dict(head, message={"role": "assistant", "content": "", "tool_calls": [
            {"id": CALL_ID, "function": {"index": 0, "name": TOOL_NAME, "arguments": arguments}}]}, done=False),
        dict(head, message={"role": "assistant", "content": ""}, done=True, done_reason="stop",
             total_duration=1_000_000, eval_count=900),
    ]


_BUILDERS = {"anthropic": _anthropic, "openai_chat": _chat, "openai_responses": _responses,
             "gemini": _gemini, "ollama": _ollama}


@functools.cache
def wire_stream(provider: str, size: str) -> WireStream:
    """The stream of the ``size`` call for ``provider`` (built once)."""
    arguments, text = call_arguments(size)
    pieces = deltas(size) if provider in DELTA_PROVIDERS else (_compact(arguments),)
    items = _BUILDERS[provider](arguments, text, pieces)
    lines = tuple(_compact(item) for item in items)
    if provider in ("anthropic", "openai_responses"):
        chunks = tuple(f"event: {item['type']}\ndata: {line}\n\n" for item, line in zip(items, lines))
    elif provider == "openai_chat":
        chunks = tuple(f"data: {line}\n\n" for line in lines) + ("data: [DONE]\n\n",)
    elif provider == "gemini":
        chunks = tuple(f"data: {line}\r\n\r\n" for line in lines)
    else:
        chunks = tuple(f"{line}\n" for line in lines)
    # the items as a consumer of the wire has them: decoded from their lines (built here, their keys would
    # be the interned constants of this module, which dict lookups find by identity; decoded keys are
    # compared by content)
    decoded = tuple(json.loads(line) for line in lines)
    return WireStream(provider, size, arguments, text, pieces, decoded, lines, chunks)


def describe() -> str:
    """One line per size: argument length, deltas, and the wire size per provider."""
    rows = []
    for size in SIZES:
        _, text = call_arguments(size)
        non_ascii = sum(1 for ch in text if ord(ch) > 127)
        wire = ", ".join(f"{p} {len(wire_stream(p, size).body):,} B" for p in PROVIDERS)
        rows.append(f"{size}: {len(text):,} chars of argument JSON ({non_ascii:,} non-ASCII), "
                    f"{len(deltas(size)):,} deltas; wire: {wire}")
    return "\n".join(rows)


if __name__ == "__main__":
    print(describe())
