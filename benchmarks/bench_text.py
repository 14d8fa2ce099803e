"""Per message text delta: the provider pipeline on a streamed answer, against the ``json.loads`` floor
and the SDKs' stream helpers.

A chat front end's stream is mostly message text: here one answer of about 6 KB (``data.source_text``)
streamed in token-sized deltas (2-12 characters, seeded) by Anthropic (``text_delta``), Chat
Completions (``delta.content``) and Responses (``output_text.delta``), with the frames' usual fields;
and the same text as a reasoning model's thinking before its answer (``kind`` ``reasoning``: Anthropic
``thinking_delta``, Chat ``delta.reasoning_content``, Responses ``reasoning_summary_text.delta``).
Every figure is for the whole stream; the report divides it by the stream's text deltas
(``extra_info["deltas"]``).

Cases, all through public API:

``json.loads-floor``
    ``json.loads`` of each event's ``data:`` line and nothing else.
``wire-dicts`` / ``raw-sse`` / ``coordinator``
    ``iter_tool_stream`` on the decoded wire dicts; on the raw SSE text, one chunk per event;
    ``TurnCoordinator.run`` on the wire dicts. Each joins the ``TextDelta`` texts.
``sdk-helper`` / ``argstream-e2e``
    end to end over ``httpx.MockTransport``, raw SSE bytes to the answer's text: the SDK's stream
    helper (``messages.stream``, ``chat.completions.stream``; its text events iterated), and argstream
    reading the HTTP body itself.

Every case is verified outside the timed call: its text is the answer's.

    python -m pytest benchmarks/bench_text.py --benchmark-timer=time.process_time
"""

from __future__ import annotations

import functools
import json
import random
from collections.abc import Callable
from typing import Any

import environment  # noqa: F401 - first: puts src/ on the path when argstream is not installed
import pytest
from bench_events import SDK, http_client, raw_tool_stream, sdk_skip
from data import source_text
from wire_data import DELTA_LENGTHS, WireStream

from argstream import ReasoningDelta, TextDelta, iter_tool_stream
from argstream.policy import RunMode, RunRule, TurnCoordinator

PROVIDERS = ("anthropic", "openai_chat", "openai_responses")
ANSWER_LENGTH = 6_000
IMPLS = ("json.loads-floor", "wire-dicts", "raw-sse", "coordinator", "sdk-helper", "argstream-e2e")
KINDS = ("message", "reasoning")


@functools.cache
def answer() -> tuple[str, tuple[str, ...]]:
    """The answer's text and its deltas (seeded)."""
    text = source_text(ANSWER_LENGTH)[:ANSWER_LENGTH]
    rng = random.Random(17_017)
    pieces, pos = [], 0
    while pos < len(text):
        n = rng.randint(*DELTA_LENGTHS)
        pieces.append(text[pos:pos + n])
        pos += n
    return text, tuple(pieces)


def _events(provider: str, pieces: tuple[str, ...], kind: str) -> list[dict[str, Any]]:
    thinking = kind == "reasoning"
    if provider == "anthropic":
        usage = {"input_tokens": 812, "output_tokens": 1}
        block, delta, field = ("thinking", "thinking_delta", "thinking") if thinking else ("text", "text_delta", "text")
        events: list[dict[str, Any]] = [
            {"type": "message_start", "message": {"id": "msg_bench01", "type": "message", "role": "assistant",
                                                  "model": "claude-bench", "content": [], "stop_reason": None,
                                                  "stop_sequence": None, "usage": usage}},
            {"type": "content_block_start", "index": 0, "content_block": {"type": block, block: ""}}]
        events += [{"type": "content_block_delta", "index": 0, "delta": {"type": delta, field: p}} for p in pieces]
        if thinking:
            events.append({"type": "content_block_delta", "index": 0,
                           "delta": {"type": "signature_delta", "signature": "RXhhbXBsZQ=="}})
        return events + [{"type": "content_block_stop", "index": 0},
                         {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                          "usage": {"output_tokens": 1500}},
                         {"type": "message_stop"}]
    if provider == "openai_chat":
        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            return {"id": "chatcmpl-bench01", "object": "chat.completion.chunk", "created": 1764122400,
                    "model": "gpt-bench", "system_fingerprint": "fp_bench",
                    "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}

        return ([chunk({"role": "assistant", "content": "", "refusal": None})]
                + [chunk({"reasoning_content" if thinking else "content": p}) for p in pieces] + [chunk({}, "stop")])
    if thinking:
        message = {"id": "msg_bench01", "type": "reasoning", "summary": []}
        where = {"summary_index": 0}
    else:
        message = {"id": "msg_bench01", "type": "message", "status": "in_progress", "role": "assistant", "content": []}
        where = {"content_index": 0, "logprobs": []}
    events = [{"type": "response.created", "sequence_number": 0,
               "response": {"id": "resp_bench01", "object": "response", "status": "in_progress", "output": []}},
              {"type": "response.output_item.added", "sequence_number": 1, "output_index": 0, "item": message}]
    kind_name = "response.reasoning_summary_text.delta" if thinking else "response.output_text.delta"
    events += [{"type": kind_name, "sequence_number": n + 2, "item_id": "msg_bench01", "output_index": 0, **where,
                "delta": p, "obfuscation": "aZ09"[:n % 4]} for n, p in enumerate(pieces)]
    done = {**message, "status": "completed"}
    return events + [{"type": "response.output_item.done", "sequence_number": len(pieces) + 2, "output_index": 0,
                      "item": done},
                     {"type": "response.completed", "sequence_number": len(pieces) + 3,
                      "response": {"id": "resp_bench01", "object": "response", "status": "completed",
                                   "output": [done]}}]


@functools.cache
def text_stream(provider: str, kind: str = "message") -> WireStream:
    """The answer (``kind`` ``reasoning``: the thinking) streamed by ``provider`` (built once)."""
    text, pieces = answer()
    lines = tuple(json.dumps(e, ensure_ascii=False, separators=(",", ":")) for e in _events(provider, pieces, kind))
    if provider == "openai_chat":
        chunks = tuple(f"data: {line}\n\n" for line in lines) + ("data: [DONE]\n\n",)
    else:
        chunks = tuple(f"event: {json.loads(line)['type']}\ndata: {line}\n\n" for line in lines)
    return WireStream(provider, "text", {}, text, pieces, tuple(json.loads(line) for line in lines), lines, chunks)


def joined(items: Any) -> str:
    return "".join(item.text for item in items if type(item) is TextDelta or type(item) is ReasoningDelta)


def _coordinator(items: Any, provider: str) -> str:
    out: list[str] = []
    TurnCoordinator({"*": [RunRule(RunMode.ASK)]}, provider=provider,
                    render=lambda item: type(item) in (TextDelta, ReasoningDelta) and out.append(item.text)).run(items)
    return "".join(out)


class TextSDK(SDK):
    """The SDK client of ``bench_events``, its helper reading text."""

    def text_helper(self) -> str:
        client = self.client
        if self.provider == "anthropic":
            with client.messages.stream(model="bench-model", max_tokens=64_000,
                                        messages=[{"role": "user", "content": "hi"}]) as stream:
                for _ in stream:
                    pass
                block = stream.get_final_message().content[0]
                return block.thinking if block.type == "thinking" else block.text
        with client.chat.completions.stream(model="bench-model",
                                            messages=[{"role": "user", "content": "hi"}]) as stream:
            for _ in stream:
                pass
            return stream.get_final_completion().choices[0].message.content


def prepare(provider: str, impl: str, kind: str = "message") -> tuple[Callable[[Any], Any], Any] | str:
    """The timed function and its argument, verified once; or why the case cannot run."""
    stream = text_stream(provider, kind)
    if impl == "json.loads-floor":
        fn: Callable[[Any], Any] = lambda lines: [json.loads(line) for line in lines]  # noqa: E731
        arg: Any = stream.lines
        fn(arg)
        return fn, arg
    if impl == "wire-dicts":
        fn, arg = (lambda items: joined(iter_tool_stream(items, provider))), stream.items
    elif impl == "raw-sse":
        fn, arg = (lambda chunks: joined(raw_tool_stream(chunks, provider))), stream.chunks
    elif impl == "coordinator":
        fn, arg = (lambda items: _coordinator(items, provider)), stream.items
    elif impl == "argstream-e2e":
        def e2e(client: Any) -> str:
            with client.stream("POST", "/stream", json={"model": "bench-model", "stream": True}) as response:
                return joined(raw_tool_stream(response.iter_bytes(), provider))

        fn, arg = e2e, http_client(stream)
    else:  # sdk-helper
        if provider == "openai_responses" or (provider == "openai_chat" and kind == "reasoning"):
            return f"no SDK text helper case for {provider} {kind}"
        reason = sdk_skip(provider)
        if reason:
            return reason
        fn, arg = (lambda sdk_: sdk_.text_helper()), TextSDK(stream)
    assert fn(arg) == stream.argument_text, f"{provider} {impl}: the text differs from the answer's"
    return fn, arg


CASES = [(kind, p, impl) for kind in KINDS for p in PROVIDERS for impl in IMPLS]


@pytest.mark.parametrize(("kind", "provider", "impl"), CASES, ids=["-".join(c) for c in CASES])
def test_text(benchmark: Any, kind: str, provider: str, impl: str) -> None:
    benchmark.group = f"{kind} {provider}"
    stream = text_stream(provider, kind)
    benchmark.extra_info.update(provider=provider, impl=impl, kind=kind, deltas=len(stream.deltas),
                                events=len(stream.items))
    case = prepare(provider, impl, kind)
    if isinstance(case, str):
        pytest.skip(case)
    benchmark(*case)
