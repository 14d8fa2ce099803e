"""``argstream.providers.openai_responses`` on hand-written wire dicts."""

from __future__ import annotations

import json
from typing import Any

import pytest

from _support import build
from argstream import DONE, ObjectEntry, String
from argstream.builder import EventBuilder
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
from argstream.providers import ProviderProtocolError, openai_responses
from argstream.providers.openai_responses import ato_events, to_events


def chunks(events: list[Any], index: int) -> list[str]:
    return [e.part.part.text for e in events
            if isinstance(e, Part) and e.index == index and isinstance(e.part, ToolCall)
            and isinstance(e.part.part, ArgumentChunk)]


def created(rid: str = "resp_1") -> dict:
    return {"type": "response.created", "response": {"id": rid, "status": "in_progress", "output": []}}


def added(output_index: int, item: dict) -> dict:
    return {"type": "response.output_item.added", "output_index": output_index, "item": item}


def item_done(output_index: int, item: dict) -> dict:
    return {"type": "response.output_item.done", "output_index": output_index, "item": item}


def fc(item_id: str = "fc_1", call_id: str = "call_1", name: str = "fs_create_file", arguments: str = "",
       status: str = "in_progress") -> dict:
    return {"id": item_id, "type": "function_call", "status": status, "arguments": arguments,
            "call_id": call_id, "name": name}


def args_delta(delta: str, item_id: str = "fc_1", output_index: int = 0) -> dict:
    return {"type": "response.function_call_arguments.delta", "item_id": item_id, "output_index": output_index,
            "delta": delta, "obfuscation": "xxxx"}


def args_done(arguments: str, item_id: str = "fc_1", output_index: int = 0) -> dict:
    return {"type": "response.function_call_arguments.done", "item_id": item_id, "output_index": output_index,
            "arguments": arguments}


def completed(output: list[dict], status: str = "completed", **extra: Any) -> dict:
    return {"type": f"response.{status}", "response": {"status": status, "output": output, **extra}}


ARGS = '{"path":"src/a.py","content":"print(\\"hi\\")\\n"}'


def call_stream(pieces: list[str], *, added_args: str = "", done_args: str | None = ARGS,
                item_args: str = ARGS) -> list[dict]:
    out = [created(), added(0, fc(arguments=added_args))]
    out += [args_delta(p) for p in pieces]
    if done_args is not None:
        out.append(args_done(done_args))
    out.append(item_done(0, fc(arguments=item_args, status="completed")))
    out.append(completed([fc(arguments=item_args, status="completed")]))
    return out


def the_call(events: list[Any]) -> ToolCallRequest:
    flushed, _, _ = build(events)
    calls = [e.kind for e in flushed if isinstance(e.kind, ToolCallRequest)]
    assert len(calls) == 1
    return calls[0]


def test_streamed_arguments() -> None:
    pieces = [ARGS[i:i + 5] for i in range(0, len(ARGS), 5)]
    events = list(to_events(call_stream(pieces)))
    assert events[0] == Part(0, ToolCall(ToolCallStart("call_1", "fs_create_file")))
    assert chunks(events, 0) == pieces  # .done and output_item.done add nothing
    flushed, progress, finished = build(events)
    call = flushed[0].kind
    assert call == ToolCallRequest("call_1", "fs_create_file", json.loads(ARGS))
    assert flushed[0].metadata["item_id"] == "fc_1"
    assert progress[0].tool_call_id == "call_1" and progress[0].tool_name == "fs_create_file"
    assert finished == [Finished(FinishReason.TOOL_USE, {"stop_reason": "completed"})]
    assert events[-1] is not None and isinstance(events[-1], Finished)


def test_path_progress_arrives_before_the_content_streams() -> None:
    pieces = ['{"path":"src/a.py"', ',"content":"print(', '\\"hi\\")\\n"}']
    events = list(to_events(call_stream(pieces)))
    builder = EventBuilder()
    seen: list[Any] = []
    for event in events:
        result = builder.handle(event)
        if isinstance(event, Part) and isinstance(event.part.part, ArgumentChunk):
            seen.append([p.fragment for p in result])
    assert ObjectEntry("path", DONE) in seen[0]
    assert seen[1] == [ObjectEntry("content", String("print("))]


def test_arguments_only_in_done_are_sent_once() -> None:  # LM Studio
    events = list(to_events(call_stream([])))
    assert chunks(events, 0) == [ARGS]
    assert the_call(events).arguments == json.loads(ARGS)


def test_arguments_only_in_output_item_done_are_sent_once() -> None:
    events = list(to_events(call_stream([], done_args=None)))
    assert chunks(events, 0) == [ARGS]


def test_arguments_whole_in_output_item_added_are_sent_once() -> None:  # xAI
    events = list(to_events(call_stream([], added_args=ARGS)))
    assert chunks(events, 0) == [ARGS]
    assert the_call(events).arguments == json.loads(ARGS)


def test_a_whole_copy_longer_than_the_deltas_sends_only_the_tail() -> None:
    events = list(to_events(call_stream([ARGS[:10], ARGS[10:20]])))
    assert chunks(events, 0) == [ARGS[:10], ARGS[10:20], ARGS[20:]]
    assert the_call(events).arguments == json.loads(ARGS)


def test_a_final_copy_that_contradicts_the_deltas_is_an_error_and_never_an_ok_call() -> None:
    # issue 9 item 4: deltas say 'passwd', the provider's own final copies say '/etc/passwd'
    stream = call_stream(['{"path":"', 'passwd"}'], done_args='{"path":"/etc/passwd"}',
                         item_args='{"path":"/etc/passwd"}')
    events = []
    with pytest.raises(ProviderProtocolError, match="contradicts") as info:
        for event in to_events(stream):
            events.append(event)
    assert info.value.event == 4  # the .done event
    flushed, _, finished = build(events)
    assert flushed == [] and [f.reason for f in finished] == [FinishReason.ERROR]


def test_a_final_copy_spaced_differently_is_the_same_value() -> None:
    events = list(to_events(call_stream(['{"a":1}'], done_args='{"a": 1}', item_args='{ "a" : 1 }')))
    assert chunks(events, 0) == ['{"a":1}']
    assert the_call(events).arguments == {"a": 1}


WRAPPER = json.dumps({"tool_uses": [
    {"recipient_name": "functions.weather", "parameters": {"location": "San Francisco"}},
    {"recipient_name": "functions.cityAttractions", "parameters": {"city": "Rome"}}]})


def test_a_parallel_wrapper_call_is_its_calls() -> None:
    # issue 9 item 3 (vercel/ai issue 19067)
    pieces = [WRAPPER[:30], WRAPPER[30:]]
    stream = [created(), added(0, fc("fc_p", "call_p", "parallel"))] + [args_delta(p, "fc_p") for p in pieces]
    stream += [args_done(WRAPPER, "fc_p"), item_done(0, fc("fc_p", "call_p", "parallel", WRAPPER, status="completed")),
               completed([fc("fc_p", "call_p", "parallel", WRAPPER, status="completed")])]
    flushed, _, finished = build(list(to_events(stream)))
    assert [e.kind for e in flushed] == [
        ToolCallRequest("call_p-0", "weather", {"location": "San Francisco"}),
        ToolCallRequest("call_p-1", "cityAttractions", {"city": "Rome"})]
    assert all(e.metadata["id_generated"] and e.metadata["wrapper"] == "parallel" for e in flushed)
    assert [f.reason for f in finished] == [FinishReason.TOOL_USE]


@pytest.mark.parametrize("arguments", ['{"tool_uses": []}', '{"tool_uses": [{"recipient_name": 1}]}',
                                       '{"x": 1}', '{"tool_uses": [', '[1]'])
def test_a_call_named_parallel_of_another_shape_stays_one_call(arguments: str) -> None:
    stream = [created(), added(0, fc("fc_p", "call_p", "parallel")), args_delta(arguments, "fc_p"),
              item_done(0, fc("fc_p", "call_p", "parallel", arguments, status="completed")), completed([])]
    flushed, _, _ = build(list(to_events(stream)))
    assert [(e.kind.id, e.kind.name) for e in flushed] == [("call_p", "parallel")]
    if arguments == '{"x": 1}':
        assert flushed[0].kind.arguments == {"x": 1}
    else:
        assert flushed[0].kind.error is not None or flushed[0].kind.arguments != {}


def test_parallel_calls_are_routed_by_output_index_and_item_id() -> None:
    stream = [
        created(),
        added(0, fc("fc_a", "call_a", "read")),
        added(1, fc("fc_b", "call_b", "write")),
        args_delta('{"x":', "fc_a", 0),
        args_delta('{"y":', "fc_b", 1),
        {"type": "response.function_call_arguments.delta", "output_index": 0, "delta": "1}"},  # no item_id
        {"type": "response.function_call_arguments.delta", "item_id": "fc_b", "delta": "2}"},  # no output_index
        item_done(0, fc("fc_a", "call_a", "read", '{"x":1}', "completed")),
        item_done(1, fc("fc_b", "call_b", "write", '{"y":2}', "completed")),
        completed([fc("fc_a", "call_a", "read", '{"x":1}'), fc("fc_b", "call_b", "write", '{"y":2}')]),
    ]
    flushed, _, finished = build(list(to_events(stream)))
    assert [e.kind for e in flushed] == [ToolCallRequest("call_a", "read", {"x": 1}),
                                         ToolCallRequest("call_b", "write", {"y": 2})]
    assert finished[0].reason is FinishReason.TOOL_USE


def test_text_and_reasoning() -> None:
    rs = {"id": "rs_1", "type": "reasoning", "summary": [], "encrypted_content": "ENC0"}
    msg = {"id": "msg_1", "type": "message", "status": "in_progress", "content": [], "role": "assistant"}
    stream = [
        created(),
        added(0, rs),
        {"type": "response.reasoning_summary_part.added", "item_id": "rs_1", "output_index": 0, "summary_index": 0},
        {"type": "response.reasoning_summary_text.delta", "item_id": "rs_1", "output_index": 0,
         "summary_index": 0, "delta": "First."},
        {"type": "response.reasoning_summary_text.delta", "item_id": "rs_1", "output_index": 0,
         "summary_index": 1, "delta": "Second."},
        item_done(0, {**rs, "encrypted_content": "ENC1"}),
        added(1, msg),
        {"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 1, "content_index": 0,
         "delta": "Hello ", "logprobs": []},
        {"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 1, "content_index": 0,
         "delta": "world", "logprobs": []},
        item_done(1, msg),
        completed([rs, msg]),
    ]
    events = list(to_events(stream))
    assert Part(0, Reasoning("\n\n")) in events
    flushed, _, finished = build(events)
    assert flushed[0].kind == ChatReasoning("First.\n\nSecond.")
    assert flushed[0].metadata == {"item_id": "rs_1", "encrypted_content": "ENC1"}
    assert flushed[1].kind == ChatMessage("Hello world")
    assert finished == [Finished(FinishReason.COMPLETED, {"stop_reason": "completed"})]


def test_reasoning_text_deltas_and_reasoning_without_text() -> None:
    rs_text = {"id": "rs_1", "type": "reasoning", "summary": [], "content": []}
    rs_bare = {"id": "rs_2", "type": "reasoning", "summary": [], "encrypted_content": "ENC"}
    stream = [
        created(),
        added(0, rs_text),
        {"type": "response.reasoning_text.delta", "item_id": "rs_1", "output_index": 0, "content_index": 0,
         "delta": "thinking"},
        item_done(0, rs_text),
        added(1, rs_bare),
        item_done(1, rs_bare),
        completed([]),
    ]
    flushed, _, _ = build(list(to_events(stream)))
    assert flushed[0].kind == ChatReasoning("thinking")
    assert flushed[1].kind == ChatReasoning("")  # kept for its encrypted_content
    assert flushed[1].metadata == {"item_id": "rs_2", "encrypted_content": "ENC"}


def test_items_whose_text_never_streamed_send_it_from_the_done_item() -> None:
    rs = {"id": "rs_1", "type": "reasoning", "summary": [{"type": "summary_text", "text": "S"}]}
    msg = {"id": "msg_1", "type": "message", "role": "assistant",
           "content": [{"type": "output_text", "text": "T", "annotations": []}]}
    stream = [created(), added(0, {**rs, "summary": []}), item_done(0, rs),
              added(1, {**msg, "content": []}), item_done(1, msg), completed([rs, msg])]
    flushed, _, _ = build(list(to_events(stream)))
    assert [e.kind for e in flushed] == [ChatReasoning("S"), ChatMessage("T")]


def test_refusal() -> None:
    msg = {"id": "msg_1", "type": "message", "role": "assistant", "content": []}
    stream = [created(), added(0, msg),
              {"type": "response.refusal.delta", "item_id": "msg_1", "output_index": 0, "content_index": 0,
               "delta": "I can't help with that."},
              item_done(0, msg), completed([msg])]
    events = list(to_events(stream))
    assert Part(0, Message("I can't help with that."), {"refusal": True}) in events
    flushed, _, finished = build(events)
    assert flushed[0].metadata["refusal"] is True
    assert finished[0].reason is FinishReason.REFUSAL


def ctc(item_id: str = "ctc_1", text: str = "") -> dict:
    return {"id": item_id, "type": "custom_tool_call", "status": "in_progress", "call_id": "call_c",
            "input": text, "name": "setHtml"}


def test_custom_tool_input_streams_as_an_input_string() -> None:
    text = '<p class="x">a\\b\n</p> é ✓'
    pieces = ['<p class="', 'x">a\\', "b\n</p> é", " ✓"]
    stream = [created(), added(0, ctc())]
    stream += [{"type": "response.custom_tool_call_input.delta", "item_id": "ctc_1", "output_index": 0,
                "delta": p} for p in pieces]
    stream += [{"type": "response.custom_tool_call_input.done", "item_id": "ctc_1", "output_index": 0,
                "input": text},
               item_done(0, ctc(text=text)), completed([ctc(text=text)])]
    events = list(to_events(stream))
    assert "".join(chunks(events, 0)) == json.dumps({"input": text}, ensure_ascii=False, separators=(",", ":"))
    flushed, progress, finished = build(events)
    assert flushed[0].kind == ToolCallRequest("call_c", "setHtml", {"input": text})
    assert flushed[0].metadata == {"item_id": "ctc_1", "kind": "custom_tool_call"}
    texts = [p.fragment.value.text for p in progress
             if isinstance(p.fragment, ObjectEntry) and isinstance(p.fragment.value, String)]
    assert "".join(texts) == text and len(texts) == len(pieces)
    assert progress[0].fragment == ObjectEntry("input", String('<p class="'))
    assert finished[0].reason is FinishReason.TOOL_USE


def test_custom_tool_input_only_whole() -> None:
    stream = [created(), added(0, ctc()), item_done(0, ctc(text="a b")), completed([ctc(text="a b")])]
    assert the_call(list(to_events(stream))).arguments == {"input": "a b"}


@pytest.mark.parametrize(("terminal", "reason", "stop"), [
    (completed([], "incomplete", incomplete_details={"reason": "max_output_tokens"}),
     FinishReason.MAX_TOKENS, "max_output_tokens"),
    (completed([], "incomplete", incomplete_details={"reason": "content_filter"}),
     FinishReason.REFUSAL, "content_filter"),
    (completed([], "completed"), FinishReason.COMPLETED, "completed"),
    (completed([], "cancelled"), FinishReason.CANCELLED, "cancelled"),
])
def test_terminal_reasons(terminal: dict, reason: FinishReason, stop: str) -> None:
    events = list(to_events([created(), terminal]))
    assert events == [Finished(reason, {"stop_reason": stop})]


def test_failed_and_error_events() -> None:
    error = {"code": "server_error", "message": "boom"}
    events = list(to_events([created(), completed([], "failed", error=error)]))
    assert events == [Finished(FinishReason.ERROR, {"stop_reason": "failed", "error": error})]
    events = list(to_events([created(), {"type": "error", "code": "rate_limit", "message": "slow down",
                                         "param": None, "sequence_number": 3}]))
    assert events == [Finished(FinishReason.ERROR, {"stop_reason": "error",
                                                    "error": {"code": "rate_limit", "message": "slow down"}})]


def test_a_stream_cut_before_its_terminal_event() -> None:
    events = list(to_events(call_stream([ARGS[:7]])[:3]))
    assert events[-1] == Finished(FinishReason.ERROR)
    assert not any(isinstance(e, Flush) for e in events)  # the cut call is never reported complete
    assert sum(isinstance(e, Finished) for e in events) == 1


def test_several_responses_back_to_back() -> None:
    first = call_stream(['{"a":', "1}"], done_args='{"a":1}', item_args='{"a":1}')
    second = [created("resp_2"), added(0, fc("fc_2", "call_2", "again")),
              args_delta('{"b":2}', "fc_2", 0), item_done(0, fc("fc_2", "call_2", "again", '{"b":2}')),
              completed([fc("fc_2", "call_2", "again", '{"b":2}')])]
    events = list(to_events(first + second))
    flushed, _, finished = build(events)
    assert [e.kind for e in flushed] == [ToolCallRequest("call_1", "fs_create_file", {"a": 1}),
                                         ToolCallRequest("call_2", "again", {"b": 2})]
    assert [f.reason for f in finished] == [FinishReason.TOOL_USE, FinishReason.TOOL_USE]
    assert {e.index for e in events if isinstance(e, Flush)} == {0, 1}  # indexes are not reused


def test_a_response_that_starts_before_the_previous_one_ended() -> None:
    stream = [created(), added(0, fc()), args_delta('{"a"'), created("resp_2"), completed([])]
    events = []
    with pytest.raises(ProviderProtocolError, match="spliced"):
        for event in to_events(stream):
            events.append(event)
    assert [e.reason for e in events if isinstance(e, Finished)] == [FinishReason.ERROR]
    assert not any(isinstance(e, Flush) for e in events)


def test_hosted_tool_items_and_unknown_events_are_skipped() -> None:
    stream = [created(),
              added(0, {"id": "ws_1", "type": "web_search_call", "status": "in_progress"}),
              {"type": "response.web_search_call.searching", "item_id": "ws_1", "output_index": 0},
              item_done(0, {"id": "ws_1", "type": "web_search_call", "status": "completed"}),
              {"type": "response.something_new", "output_index": 0},
              completed([{"id": "ws_1", "type": "web_search_call"}])]
    assert list(to_events(stream)) == [Finished(FinishReason.COMPLETED, {"stop_reason": "completed"})]


def test_an_sdk_exception_yields_finished_error_then_reraises() -> None:
    def stream():
        yield created()
        yield added(0, fc())
        yield args_delta('{"a"')
        raise ConnectionError("cut")

    events: list[Any] = []
    with pytest.raises(ConnectionError, match="cut"):
        for event in to_events(stream()):
            events.append(event)
    assert events[-1] == Finished(FinishReason.ERROR)
    assert not any(isinstance(e, Flush) for e in events)


async def test_ato_events() -> None:
    async def stream():
        for item in call_stream([ARGS[:9], ARGS[9:]]):
            yield item

    events = [e async for e in ato_events(stream())]
    assert events == list(to_events(call_stream([ARGS[:9], ARGS[9:]])))
    assert the_call(events).arguments == json.loads(ARGS)


def test_sdk_event_objects() -> None:
    construct = pytest.importorskip("openai._models").construct_type
    from openai.types.responses import ResponseStreamEvent

    stream = [construct(type_=ResponseStreamEvent, value=d) for d in call_stream([ARGS[:4], ARGS[4:]])]
    assert type(stream[0]).__name__ == "ResponseCreatedEvent"
    assert list(to_events(stream)) == list(to_events(call_stream([ARGS[:4], ARGS[4:]])))


def test_module_exports() -> None:
    assert set(openai_responses.__all__) >= {"to_events", "ato_events"}


def test_usage_goes_in_the_finished_metadata() -> None:
    usage = {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}
    events = list(to_events([created(), completed([], usage=usage)]))
    assert events == [Finished(FinishReason.COMPLETED, {"stop_reason": "completed", "usage": usage})]
