"""``text_tool_calls=`` and ``lenient=`` on the stream and the coordinator: calls written in message text
become the same items as native calls, decided by the same policy; a name ``tools=`` lacks never runs."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from argstream import iter_tool_stream
from argstream.policy import RunMode, RunRule, TurnCoordinator
from argstream.stream import TextDelta, ToolCallFailed, ToolCallFinished, ToolCallStarted

TOOLS = {"read": {"type": "object", "properties": {"path": {"type": "string"}}}}
TEXT = ('Let me look. <tool_call>{"name": "read", "arguments": {"path": "src/a.py"}}</tool_call>'
        '<tool_call>{"name": "rm", "arguments": {"path": "/"}}</tool_call> Done.')


def chat(text: str, sizes: list[int]) -> list[dict]:
    items, i, k = [], 0, 0
    while i < len(text):
        n = max(1, sizes[k % len(sizes)] if sizes else 5)
        items.append({"id": "c1", "choices": [{"index": 0, "delta": {"content": text[i:i + n]}}]})
        i, k = i + n, k + 1
    items.append({"id": "c1", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    return items


@given(sizes=st.lists(st.integers(1, 12), max_size=6))
def test_calls_in_chat_content_are_tool_calls_and_the_markup_leaves_the_text(sizes: list[int]) -> None:
    items = list(iter_tool_stream(chat(TEXT, sizes), text_tool_calls="hermes", tools=TOOLS))
    text = "".join(i.text for i in items if isinstance(i, TextDelta))
    assert "<tool_call>" not in text and text.startswith("Let me look.") and text.endswith("Done.")
    assert [i.name for i in items if isinstance(i, ToolCallStarted)] == ["read", "rm"]
    finished = {i.name: i for i in items if isinstance(i, ToolCallFinished)}
    assert finished["read"].ok and finished["read"].arguments == {"path": "src/a.py"}
    assert not finished["rm"].ok and "not one of the tools given" in str(finished["rm"].error)
    assert any(isinstance(i, ToolCallFailed) and i.name == "rm" for i in items)
    assert items[-1].reason.value == "tool_use"


def test_the_coordinator_decides_text_calls_and_never_runs_an_unknown_one() -> None:
    ran: list[Any] = []
    rules = {"*": [RunRule(RunMode.UNATTENDED)]}
    result = TurnCoordinator(rules, execute=lambda c: ran.append((c.name, c.arguments)), tools=TOOLS,
                             text_tool_calls="hermes", provider="openai_chat").run(chat(TEXT, [7]))
    assert ran == [("read", {"path": "src/a.py"})]
    assert [(c.name, c.failed) for c in result.calls] == [("read", False), ("rm", True)]


def test_without_the_option_the_markup_is_text() -> None:
    items = list(iter_tool_stream(chat(TEXT, [9])))
    assert not any(isinstance(i, ToolCallStarted) for i in items)
    assert "<tool_call>" in "".join(i.text for i in items if isinstance(i, TextDelta))


@pytest.mark.parametrize("fmt", ["anthropic", "openai_chat"])
def test_lenient_repairs_arguments_in_the_stream(fmt: str) -> None:
    text = "{'path': 'src/a.py', /* why */ 'recursive': True,}"
    if fmt == "anthropic":
        items = [{"type": "message_start", "message": {"id": "m", "content": []}},
                 {"type": "content_block_start", "index": 0,
                  "content_block": {"type": "tool_use", "id": "t", "name": "read", "input": {}}}]
        items += [{"type": "content_block_delta", "index": 0,
                   "delta": {"type": "input_json_delta", "partial_json": text[i:i + 4]}} for i in range(0, len(text), 4)]
        items += [{"type": "content_block_stop", "index": 0}, {"type": "message_stop"}]
    else:
        items = [{"id": "c", "choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "id": "t", "function": {"name": "read", "arguments": ""}}]}}]}]
        items += [{"id": "c", "choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "function": {"arguments": text[i:i + 4]}}]}}]} for i in range(0, len(text), 4)]
        items.append({"id": "c", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    (strict,) = [i for i in iter_tool_stream(items) if isinstance(i, ToolCallFinished)]
    assert not strict.ok
    (lenient,) = [i for i in iter_tool_stream(items, lenient=True) if isinstance(i, ToolCallFinished)]
    assert lenient.ok and lenient.arguments == {"path": "src/a.py", "recursive": True}
    assert json.dumps(lenient.arguments)


def test_event_builder_reads_calls_written_in_text() -> None:
    """``EventBuilder(text_tool_calls=...)``: the same calls, for a user who drives the builder with events."""
    from argstream import EventBuilder
    from argstream.events import Finished, FinishReason, Flush, Message, Part, ToolCallArgumentProgress, ToolCallRequest

    tools = {"fs_read": {"type": "object", "properties": {"path": {"type": "string"}}}}
    builder = EventBuilder(text_tool_calls="hermes", tools=tools)
    text = ('Reading it. <tool_call>{"name": "fs_read", "arguments": {"path": "src/a"}}</tool_call>'
            '<tool_call>{"name": "rm", "arguments": {"path": "/"}}</tool_call>')
    out: list = []
    for i in range(0, len(text), 7):
        got = builder.handle(Part(0, Message(text[i:i + 7])))
        out += got if isinstance(got, list) else [got]
    out += [builder.handle(Flush(0))]
    out += builder.handle(Finished(FinishReason.COMPLETED)) or []
    progress = [o for o in out if isinstance(o, ToolCallArgumentProgress)]
    requests = [o.kind for o in out if getattr(o, "kind", None) is not None and isinstance(o.kind, ToolCallRequest)]
    assert {p.tool_name for p in progress} >= {"fs_read"}
    assert [(r.name, r.arguments, r.error is None) for r in requests] == [
        ("fs_read", {"path": "src/a"}, True), ("rm", {}, False)]  # rm is no tool given: refused, never runs
    chat = [o.kind.text for o in out if type(getattr(o, "kind", None)).__name__ == "ChatMessage"]
    assert chat == ["Reading it. "]
