"""A short call: what a stream costs when its fixed parts, not its deltas, are most of it.

``bench_events.py`` streams 2 KB to 200 KB of arguments, whose per-delta cost hides a stream's setup,
its call's start and end, and the schema check's look at each key and value. Most real tool calls are
short: here ``edit_file`` with five keys, 110 characters of JSON in 14 deltas of 7 characters, as
Chat Completions wire dicts (decoded from their JSON text, as a consumer of the wire has them).

Cases: ``parser`` (the compiled parser alone on the deltas), ``wire-dicts`` (``iter_tool_stream`` to
the final arguments), ``wire-dicts+tools`` (the same with ``tools=``: ``path`` with ``minLength``,
``maxLength`` and ``pattern``, ``line`` with ``minimum``, ``required``, ``additionalProperties``).
Every figure is one whole stream.

    python -m pytest benchmarks/bench_short.py --benchmark-timer=time.process_time
"""

from __future__ import annotations

import json
from typing import Any

import environment  # noqa: F401 - first: puts src/ on the path when argstream is not installed
import pytest

from argstream import ToolCallFinished, iter_tool_stream
from bench_events import parser_alone

ARGUMENTS = {"path": "src/app/main.py", "line": 42, "replace": "foo(x)", "with": "bar(1, 2)", "all": False}
SCHEMA = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "minLength": 1, "maxLength": 4096, "pattern": "^[A-Za-z0-9_./-]+$"},
        "line": {"type": "integer", "minimum": 1},
        "replace": {"type": "string"},
        "with": {"type": "string"},
        "all": {"type": "boolean"},
    },
    "required": ["path", "line", "replace", "with"],
    "additionalProperties": False,
}
TOOLS = {"edit_file": SCHEMA}
TEXT = json.dumps(ARGUMENTS)
DELTAS = tuple(TEXT[i:i + 7] for i in range(0, len(TEXT), 7))
_BASE = {"id": "chatcmpl-short", "object": "chat.completion.chunk", "created": 1764000000, "model": "gpt-4.1",
         "system_fingerprint": "fp_short"}


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    line = json.dumps({**_BASE, "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
                       "usage": None})
    return json.loads(line)


ITEMS: tuple[dict[str, Any], ...] = (
    _chunk({"role": "assistant", "content": None, "refusal": None}),
    _chunk({"tool_calls": [{"index": 0, "id": "call_short", "type": "function",
                            "function": {"name": "edit_file", "arguments": ""}}]}),
    *(_chunk({"tool_calls": [{"index": 0, "function": {"arguments": d}}]}) for d in DELTAS),
    _chunk({}, "tool_calls"),
)


def wire_dicts(tools: Any = None) -> Any:
    out = None
    for item in iter_tool_stream(ITEMS, "openai_chat", tools=tools):
        if type(item) is ToolCallFinished:
            assert item.ok
            out = item.arguments
    return out


CASES = {
    "parser": (lambda: parser_alone(DELTAS), lambda n: n > 0),
    "wire-dicts": (wire_dicts, lambda value: value == ARGUMENTS),
    "wire-dicts+tools": (lambda: wire_dicts(TOOLS), lambda value: value == ARGUMENTS),
}


@pytest.mark.parametrize("impl", list(CASES))
def test_short_call(benchmark: Any, impl: str) -> None:
    run, check = CASES[impl]
    assert check(run())
    benchmark.extra_info.update(deltas=len(DELTAS), characters=len(TEXT))
    benchmark.group = "short call, Chat wire dicts"
    benchmark(run)
