"""``argstream.providers.ollama`` on hand-written NDJSON lines."""

from __future__ import annotations

from typing import Any

import pytest

from _support import build
from argstream import ObjectEntry, String
from argstream.events import (
    ArgumentChunk,
    ChatMessage,
    ChatReasoning,
    Finished,
    FinishReason,
    Flush,
    Message,
    Part,
    Reasoning,
    ToolCall,
    ToolCallRequest,
    ToolCallStart,
)
from argstream.providers import ProviderProtocolError
from argstream.providers.ollama import ato_events, to_events

CREATED = "2025-06-01T10:00:00.000000Z"


def line(content: str = "", thinking: str | None = None, tool_calls: list | None = None, done: bool = False,
         done_reason: str | None = None) -> dict:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if thinking is not None:
        message["thinking"] = thinking
    if tool_calls is not None:
        message["tool_calls"] = tool_calls
    out: dict[str, Any] = {"model": "qwen3:8b", "created_at": CREATED, "message": message, "done": done}
    if done:
        out.update(done_reason=done_reason, total_duration=1, eval_count=3)
    return out


def call(name: str, arguments: Any, index: int = 0, call_id: str | None = None) -> dict:
    out: dict[str, Any] = {"function": {"index": index, "name": name, "arguments": arguments}}
    if call_id:
        out["id"] = call_id
    return out


ARGS = {"path": "src/a.py", "content": "print('é')\n", "mode": {"append": False, "n": [1, 2.5, None]}}


def chat(*calls: dict, reason: str = "stop") -> list[dict]:
    return [
        line(thinking="The "),
        line(thinking="user wants a file."),
        line("I'll "),
        line("create it."),
        line(tool_calls=list(calls)),
        line(done=True, done_reason=reason),
    ]


def test_thinking_content_and_tool_calls() -> None:
    events = list(to_events(chat(call("fs_create_file", ARGS), call("ls", {}, 1, "call_abc"))))
    assert events[:3] == [Part(0, Reasoning("The ")), Part(0, Reasoning("user wants a file.")), Flush(0)]
    start = Part(2, ToolCall(ToolCallStart(f"{CREATED}-call-0", "fs_create_file")))
    assert start in events
    text = [e.part.part.text for e in events if isinstance(e, Part) and e.index == 2 and
            isinstance(e.part.part, ArgumentChunk)]
    assert text == ['{"path":"src/a.py","content":"print(\'é\')\\n","mode":{"append":false,"n":[1,2.5,null]}}']
    flushed, progress, finished = build(events)
    assert [e.kind for e in flushed] == [
        ChatReasoning("The user wants a file."),
        ChatMessage("I'll create it."),
        ToolCallRequest(f"{CREATED}-call-0", "fs_create_file", ARGS),
        ToolCallRequest("call_abc", "ls", {}),
    ]
    assert flushed[2].metadata == {"id_generated": True}
    assert flushed[3].metadata == {}
    assert progress[0].fragment == ObjectEntry("path", String("src/a.py"))
    usage = {"total_duration": 1, "eval_count": 3}
    assert finished == [Finished(FinishReason.TOOL_USE, {"stop_reason": "stop", "usage": usage})]


def test_calls_across_lines_and_ids_are_deterministic() -> None:
    stream = [line(tool_calls=[call("a", {"x": 1})]), line(tool_calls=[call("b", {"y": 2}, 1)]),
              line(done=True, done_reason="stop")]
    events = list(to_events(stream))
    assert [(c.kind.id, c.kind.name) for c in build(events)[0]] == [(f"{CREATED}-call-0", "a"),
                                                                   (f"{CREATED}-call-1", "b")]
    assert list(to_events(stream)) == events


def test_arguments_given_as_json_text_are_passed_on() -> None:
    events = list(to_events([line(tool_calls=[call("a", '{"x": [1]}')]), line(done=True, done_reason="stop")]))
    assert build(events)[0][0].kind.arguments == {"x": [1]}


@pytest.mark.parametrize(("reason", "with_calls", "expected"), [
    ("stop", False, FinishReason.COMPLETED),
    ("stop", True, FinishReason.TOOL_USE),
    ("length", True, FinishReason.MAX_TOKENS),
    ("load", False, FinishReason.COMPLETED),
    ("unload", False, FinishReason.COMPLETED),
    ("something_else", False, FinishReason.ERROR),
])
def test_done_reasons(reason: str, with_calls: bool, expected: FinishReason) -> None:
    stream = [line("hi")] + ([line(tool_calls=[call("a", {})])] if with_calls else [])
    stream.append(line(done=True, done_reason=reason))
    finished = list(to_events(stream))[-1]
    assert finished.reason is expected and finished.metadata["stop_reason"] == reason


def test_an_error_line() -> None:
    events = list(to_events([line("par"), {"error": "model ran out of memory"}]))
    assert events == [Part(0, Message("par")),
                      Finished(FinishReason.ERROR, {"stop_reason": "error", "error": "model ran out of memory"})]


def test_a_stream_cut_before_done() -> None:
    events = list(to_events([line("par")]))
    assert events[-1] == Finished(FinishReason.ERROR)
    assert not any(isinstance(e, Flush) for e in events)


def test_sdk_chat_responses_and_a_raised_response_error() -> None:
    ollama = pytest.importorskip("ollama")
    lines = chat(call("fs_create_file", ARGS))
    sdk = [ollama.ChatResponse(**d) for d in lines]
    assert list(to_events(sdk)) == list(to_events(lines))

    def stream():
        yield sdk[0]
        raise ollama.ResponseError("boom")

    events: list[Any] = []
    with pytest.raises(ollama.ResponseError):
        for event in to_events(stream()):
            events.append(event)
    assert events == [Part(0, Reasoning("The ")), Finished(FinishReason.ERROR)]


async def test_ato_events() -> None:
    lines = chat(call("fs_create_file", ARGS))

    async def agen():
        for item in lines:
            yield item

    assert [e async for e in ato_events(agen())] == list(to_events(lines))


def test_a_load_response_then_the_answer_is_one_response() -> None:
    # issue 9 item 8: LangChain skips the empty load response; so do we, with one Finished
    events = list(to_events([line(done=True, done_reason="load"), line("Hi"), line(done=True, done_reason="stop")]))
    assert [(e.reason, e.metadata["stop_reason"]) for e in events if isinstance(e, Finished)] == [
        (FinishReason.COMPLETED, "stop")]
    assert [e for e in events if isinstance(e, Part)] == [Part(0, Message("Hi"))]


def test_a_load_response_alone_keeps_its_finished() -> None:
    events = list(to_events([line(done=True, done_reason="load")]))
    assert [(e.reason, e.metadata["stop_reason"]) for e in events] == [(FinishReason.COMPLETED, "load")]


@pytest.mark.parametrize("bad", [
    {"message": {"content": 5}, "done": False},
    {"message": {"tool_calls": {"function": {"name": "f"}}}, "done": False},
    {"message": {"tool_calls": [{"function": "f"}]}, "done": False},
    {"message": {"tool_calls": [{"function": {"name": ["f"]}}]}, "done": False},
    {"message": "hello", "done": False},
])
def test_wrong_field_types_raise_the_documented_error(bad: dict) -> None:
    events = []
    with pytest.raises(ProviderProtocolError):
        for event in to_events([line("a"), bad, line(done=True, done_reason="stop")]):
            events.append(event)
    assert [type(e) for e in events].count(Finished) == 1 and events[-1].reason is FinishReason.ERROR
