"""Schema validation in the stream: EventBuilder, iter_tool_stream and TurnCoordinator with ``tools=``."""

from __future__ import annotations

import json
from typing import Any

import pytest

from argstream import EventBuilder, iter_tool_stream
from argstream.events import ArgumentChunk, Finished, FinishReason, Flush, Part, ToolCall, ToolCallStart
from argstream.policy import CallStatus, TurnCoordinator, run_inline
from argstream.schema import SchemaError
from argstream.stream import ToolCallArgumentProgress, ToolCallFinished, ToolCallViolation

ANTHROPIC_TOOLS = [{
    "name": "fs_write",
    "description": "write a file",
    "input_schema": {
        "type": "object",
        "properties": {"mode": {"enum": ["read", "write"]}, "path": {"type": "string"},
                       "content": {"type": "string", "maxLength": 100_000}},
        "required": ["mode", "path", "content"],
        "additionalProperties": False,
    },
}]
OPENAI_TOOLS = [{"type": "function", "function": {"name": t["name"], "parameters": t["input_schema"]}}
                for t in ANTHROPIC_TOOLS]


def call_events(text: str, size: int = 16, name: str = "fs_write", start: bool = True) -> list[Any]:
    events: list[Any] = [Part(0, ToolCall(ToolCallStart("call_1", name if start else "")))]
    events += [Part(0, ToolCall(ArgumentChunk(text[i:i + size]))) for i in range(0, len(text), size)]
    if not start:
        events.append(Part(0, ToolCall(ToolCallStart("call_1", name))))
    return events + [Flush(0), Finished(FinishReason.TOOL_USE)]


BAD = json.dumps({"mode": "delete", "path": "a.txt", "content": "x" * 5000})


@pytest.mark.parametrize("tools", [ANTHROPIC_TOOLS, OPENAI_TOOLS, {"fs_write": ANTHROPIC_TOOLS[0]["input_schema"]}])
def test_first_violation_is_an_item_at_its_proving_character(tools: Any) -> None:
    items = list(iter_tool_stream(call_events(BAD), provider=lambda s: s, tools=tools))
    violation = next(i for i in items if type(i) is ToolCallViolation)
    assert violation.violation.keyword == "enum" and violation.violation.path == ("mode",)
    assert violation.violation.offset == BAD.index("delete")  # the "d": no allowed value continues
    progress = [i for i in items if type(i) is ToolCallArgumentProgress]
    before = items[: items.index(violation)]
    assert sum(type(i) is ToolCallArgumentProgress for i in before) < len(progress) // 50  # long before content
    finished = next(i for i in items if type(i) is ToolCallFinished)
    assert not finished.ok and finished.error is None and finished.violations[0] == violation.violation
    assert finished.event.kind.violations == finished.violations


def test_valid_call_is_ok_and_has_no_violation() -> None:
    good = json.dumps({"mode": "write", "path": "a.txt", "content": "hello"})
    items = list(iter_tool_stream(call_events(good), provider=lambda s: s, tools=ANTHROPIC_TOOLS))
    assert not any(type(i) is ToolCallViolation for i in items)
    assert next(i for i in items if type(i) is ToolCallFinished).ok


def test_name_after_the_arguments_is_validated_when_the_call_completes() -> None:
    items = list(iter_tool_stream(call_events(BAD, start=False), provider=lambda s: s, tools=ANTHROPIC_TOOLS))
    finished = next(i for i in items if type(i) is ToolCallFinished)
    assert [v.keyword for v in finished.violations] == ["enum"] and finished.violations[0].offset is None
    assert items.index(next(i for i in items if type(i) is ToolCallViolation)) == items.index(finished) - 1


def test_unknown_tool_is_not_validated() -> None:
    items = list(iter_tool_stream(call_events(BAD, name="other"), provider=lambda s: s, tools=ANTHROPIC_TOOLS))
    assert next(i for i in items if type(i) is ToolCallFinished).ok


def test_a_schema_that_cannot_be_enforced_fails_when_the_builder_is_made_naming_the_tool() -> None:
    with pytest.raises(SchemaError, match="tool 'x'"):
        EventBuilder(tools={"x": {"type": "object", "patternProperties": {"a": {}}}})


def test_coordinator_declines_on_the_first_violation_and_cancels_the_stream() -> None:
    events = call_events(BAD)
    closed: list[bool] = []
    ran: list[Any] = []
    co = TurnCoordinator({"*": "unattended"}, tools=ANTHROPIC_TOOLS, execute=ran.append)
    result = run_inline(co, events, close=lambda: closed.append(True))
    call = result.calls[0]
    assert call.status is CallStatus.FAILED and call.response.startswith("invalid arguments:")
    assert "/mode" in call.response and call.violations[0].keyword == "enum"
    assert ran == [] and result.cancelled and closed == [True]
    assert call.chunks <= BAD.index("delete") // 16 + 1  # no token spent on the 5,000-byte content


def test_coordinator_report_mode_records_and_lets_the_policy_decide() -> None:
    ran: list[Any] = []
    co = TurnCoordinator({"*": "unattended"}, tools=ANTHROPIC_TOOLS, on_violation="report",
                         execute=lambda c: ran.append(c.arguments))
    result = run_inline(co, call_events(BAD))
    call = result.calls[0]
    assert [v.keyword for v in call.violations] == ["enum"] and ran == [json.loads(BAD)]


def test_violation_message_quotes_model_text_safely_on_screen() -> None:
    from argstream.render.sanitize import visible_line

    hostile = json.dumps({"mode": "\x1b]0;pwned\x07", "path": "a", "content": ""})
    items = list(iter_tool_stream(call_events(hostile), provider=lambda s: s, tools=ANTHROPIC_TOOLS))
    message = next(i for i in items if type(i) is ToolCallViolation).violation.message
    assert "\x1b" not in visible_line(message)


PURE_PROCESS = """
from argstream import BACKEND
from argstream.stream import ToolCallViolation, iter_tool_stream
assert BACKEND == "python", BACKEND
tools = [{"name": "write", "input_schema": {"type": "object", "properties": {
    "path": {"type": "string", "maxLength": 3}, "content": {"type": "string"}}}}]
events = [
    {"type": "message_start", "message": {"id": "m", "role": "assistant", "content": []}},
    {"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "t", "name": "write", "input": {}}},
    *({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": p}}
      for p in ['{"content": "', "abc", "def", '", "path": "', "toolong", '"}']),
    {"type": "content_block_stop", "index": 0},
    {"type": "message_delta", "delta": {"stop_reason": "tool_use"}},
    {"type": "message_stop"},
]
items = list(iter_tool_stream(events, "anthropic", tools=tools))
print(sum(type(i) is ToolCallViolation for i in items))
"""


def test_a_whole_pure_process_checks_streamed_strings() -> None:
    """With ``ARGSTREAM_PURE=1`` the validator's base is the pure ``PieceSkipper``, whose slots the
    validator sets itself (the compiled base starts them at zero): a schema-checked stream runs."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    import argstream

    env = {**os.environ, "ARGSTREAM_PURE": "1",
           "PYTHONPATH": os.pathsep.join([str(Path(argstream.__file__).parent.parent), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", PURE_PROCESS], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "1"
