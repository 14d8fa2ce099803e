"""The Anthropic adapter on hand-written wire dicts (SDK objects in the loopback tests)."""

from __future__ import annotations

import pytest

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
from argstream.providers import ProviderProtocolError, anthropic
from argstream.providers.anthropic import ato_events, to_events


def message_start(content=(), stop_reason=None):
    return {"type": "message_start", "message": {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude", "content": list(content),
        "stop_reason": stop_reason, "stop_sequence": None, "usage": {"input_tokens": 5, "output_tokens": 1}}}


def block_start(index, block):
    return {"type": "content_block_start", "index": index, "content_block": block}


def delta(index, **delta):
    return {"type": "content_block_delta", "index": index, "delta": delta}


def stop(index):
    return {"type": "content_block_stop", "index": index}


def message_end(reason="tool_use"):
    return [{"type": "message_delta", "delta": {"stop_reason": reason, "stop_sequence": None},
             "usage": {"output_tokens": 42}},
            {"type": "message_stop"}]


def tool_use(index, call_id="toolu_1", name="fs_create_file", kind="tool_use", **extra):
    return block_start(index, {"type": kind, "id": call_id, "name": name, "input": {}, **extra})


def json_delta(index, text):
    return delta(index, type="input_json_delta", partial_json=text)


def run(items):
    """Events, and the builder's persisted output (flushed events, then leftovers at each Finished)."""
    builder = EventBuilder()
    events, persisted = list(to_events(items)), []
    for event in events:
        out = builder.handle(event)
        if isinstance(event, Flush) and out is not None:
            persisted.append(out)
        elif isinstance(event, Finished):
            persisted.extend(out)
    return events, persisted


def test_thinking_text_and_tool_call():
    items = [
        message_start(), {"type": "ping"},
        block_start(0, {"type": "thinking", "thinking": "", "signature": ""}),
        delta(0, type="thinking_delta", thinking="Hmm, "),
        delta(0, type="thinking_delta", thinking="a file."),
        delta(0, type="signature_delta", signature="SIG=="),
        stop(0),
        block_start(1, {"type": "text", "text": ""}),
        delta(1, type="text_delta", text="Creating it."),
        stop(1),
        tool_use(2),
        json_delta(2, ""),
        json_delta(2, '{"path": "a.txt", '),
        json_delta(2, '"content": "hi"}'),
        stop(2),
        *message_end(),
    ]
    events, persisted = run(items)
    assert events == [
        Part(0, Reasoning("Hmm, ")),
        Part(0, Reasoning("a file.")),
        Part(0, Reasoning(""), {"signature": "SIG=="}),
        Flush(0),
        Part(1, Message("Creating it.")),
        Flush(1),
        Part(2, ToolCall(ToolCallStart("toolu_1", "fs_create_file")), {"block_type": "tool_use"}),
        Part(2, ToolCall(ArgumentChunk('{"path": "a.txt", '))),
        Part(2, ToolCall(ArgumentChunk('"content": "hi"}'))),
        Flush(2),
        Finished(FinishReason.TOOL_USE, {"stop_reason": "tool_use", "usage": {"output_tokens": 42}}),
    ]
    assert persisted[0].kind == ChatReasoning("Hmm, a file.")
    assert persisted[0].metadata == {"signature": "SIG=="}
    assert persisted[1].kind == ChatMessage("Creating it.")
    assert persisted[2].kind == ToolCallRequest("toolu_1", "fs_create_file", {"path": "a.txt", "content": "hi"})
    assert persisted[2].metadata == {"block_type": "tool_use"}


def test_redacted_thinking_and_citations_go_to_metadata():
    citation = {"type": "char_location", "cited_text": "x", "document_index": 0, "start_char_index": 0,
                "end_char_index": 1}
    items = [
        message_start(),
        block_start(0, {"type": "redacted_thinking", "data": "ENCRYPTED"}),
        stop(0),
        block_start(1, {"type": "text", "text": ""}),
        delta(1, type="text_delta", text="cited"),
        delta(1, type="citations_delta", citation=citation),
        stop(1),
        *message_end("end_turn"),
    ]
    events, persisted = run(items)
    assert persisted[0].kind == ChatReasoning("")
    assert persisted[0].metadata == {"redacted_thinking": "ENCRYPTED"}
    assert persisted[1].kind == ChatMessage("cited")
    assert persisted[1].metadata == {"citations": [citation]}
    assert events[-1].reason is FinishReason.COMPLETED


def test_server_tool_use_streams_but_does_not_make_tool_use():
    items = [
        message_start(),
        tool_use(0, "srvtoolu_1", "web_fetch", kind="server_tool_use"),
        json_delta(0, '{"url": "https://x"}'),
        stop(0),
        block_start(1, {"type": "web_fetch_tool_result", "tool_use_id": "srvtoolu_1", "content": {}}),
        stop(1),
        block_start(2, {"type": "text", "text": ""}),
        delta(2, type="text_delta", text="fetched"),
        stop(2),
        *message_end("end_turn"),
    ]
    events, persisted = run(items)
    assert persisted[0].kind == ToolCallRequest("srvtoolu_1", "web_fetch", {"url": "https://x"})
    assert persisted[0].metadata == {"block_type": "server_tool_use"}
    assert [type(e.kind) for e in persisted] == [ToolCallRequest, ChatMessage]  # the result block makes nothing
    assert events[-1].reason is FinishReason.COMPLETED


def test_input_given_whole_is_one_chunk_at_the_stop():
    caller = {"type": "code_execution_20250825", "tool_id": "srvtoolu_1"}
    items = [message_start(),
             block_start(0, {"type": "tool_use", "id": "t", "name": "rollDie", "input": {"player": "p1", "n": "é"},
                             "caller": caller}),
             stop(0), *message_end()]
    events, persisted = run(items)
    assert events[:3] == [
        Part(0, ToolCall(ToolCallStart("t", "rollDie")), {"block_type": "tool_use", "caller": caller}),
        Part(0, ToolCall(ArgumentChunk('{"player":"p1","n":"é"}'))),
        Flush(0),
    ]
    assert persisted[0].kind.arguments == {"player": "p1", "n": "é"}


def test_blocks_inside_message_start():
    block = {"type": "tool_use", "id": "t2", "name": "rollDie", "input": {"player": "p2"}}
    items = [message_start([block], stop_reason="tool_use"), {"type": "message_stop"}]
    events, persisted = run(items)
    assert persisted[0].kind == ToolCallRequest("t2", "rollDie", {"player": "p2"})
    assert events[-1] == Finished(FinishReason.TOOL_USE, {"stop_reason": "tool_use", "usage": {"input_tokens": 5,
                                                                                                "output_tokens": 1}})


def test_no_args_tool_flushes_empty_object():
    items = [message_start(), tool_use(0, "t", "updateIssueList"), json_delta(0, ""), stop(0), *message_end()]
    _, persisted = run(items)
    assert persisted[0].kind == ToolCallRequest("t", "updateIssueList", {})


@pytest.mark.parametrize(
    "stop_reason, tools, reason",
    [
        ("end_turn", False, FinishReason.COMPLETED),
        ("stop_sequence", False, FinishReason.COMPLETED),
        ("end_turn", True, FinishReason.TOOL_USE),
        ("tool_use", True, FinishReason.TOOL_USE),
        ("max_tokens", False, FinishReason.MAX_TOKENS),
        ("max_tokens", True, FinishReason.MAX_TOKENS),
        ("model_context_window_exceeded", False, FinishReason.MAX_TOKENS),
        ("refusal", False, FinishReason.REFUSAL),
        ("pause_turn", False, FinishReason.PAUSED),
        (None, True, FinishReason.TOOL_USE),
        (None, False, FinishReason.COMPLETED),
    ],
)
def test_stop_reasons(stop_reason, tools, reason):
    items = [message_start()]
    if tools:
        items += [tool_use(0, "t", "f"), json_delta(0, "{}"), stop(0)]
    if stop_reason is not None:
        items += [{"type": "message_delta", "delta": {"stop_reason": stop_reason}, "usage": {"output_tokens": 1}}]
    items += [{"type": "message_stop"}]
    events = list(to_events(items))
    assert [type(e) for e in events].count(Finished) == 1
    assert events[-1].reason is reason
    assert anthropic.STOP_REASONS.keys() >= {"end_turn", "max_tokens", "tool_use", "refusal", "pause_turn"}


def test_max_tokens_mid_argument_is_never_a_complete_call():
    items = [message_start(), tool_use(0), json_delta(0, '{"path": "a.txt", "content": "abc'), stop(0),
             *message_end("max_tokens")]
    events, persisted = run(items)
    assert events[-1].reason is FinishReason.MAX_TOKENS
    request = persisted[0].kind
    assert request.arguments == {}
    assert type(request.error).__name__ == "IncompleteJSONError"


def test_invalid_json_is_reported_with_its_position():
    items = [message_start(), tool_use(0), json_delta(0, '{"a": 1,, "b": 2}'), stop(0), *message_end()]
    _, persisted = run(items)
    assert persisted[0].kind.error.pos == 8
    assert persisted[0].kind.arguments == {}


def test_error_event_mid_stream():
    items = [message_start(), tool_use(0), json_delta(0, '{"path": "a'),
             {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}]
    events, persisted = run(items)
    assert events[-1] == Finished(FinishReason.ERROR, {"error": {"type": "overloaded_error", "message": "Overloaded"}})
    assert Flush(0) not in events
    assert persisted[0].metadata["incomplete"] is True
    assert persisted[0].kind.error is not None


def test_stream_without_final_event_ends_with_error():
    items = [message_start(), tool_use(0), json_delta(0, '{"path": "a.txt"}'), stop(0)]
    events, persisted = run(items)
    assert events[-1] == Finished(FinishReason.ERROR)
    assert [type(e) for e in events].count(Finished) == 1
    # the call's block closed, so it was flushed; the response never finished, and says so
    assert persisted[0].kind.arguments == {"path": "a.txt"}


def test_cut_mid_argument_is_never_complete():
    items = [message_start(), tool_use(0), json_delta(0, '{"path": "a.txt"}')]  # no block stop
    events, persisted = run(items)
    assert not any(isinstance(e, Flush) for e in events)
    assert events[-1] == Finished(FinishReason.ERROR)
    assert persisted[0].metadata["incomplete"] is True
    assert persisted[0].kind.error is not None


def test_empty_stream():
    assert list(to_events([])) == [Finished(FinishReason.ERROR)]


class Boom(Exception):
    pass


def failing(items, exc):
    yield from items
    raise exc


def test_exception_mid_stream_yields_error_then_reraises():
    exc = Boom("connection dropped")
    seen = []
    with pytest.raises(Boom) as info:
        for event in to_events(failing([message_start(), tool_use(0), json_delta(0, '{"a"')], exc)):
            seen.append(event)
    assert info.value is exc
    assert seen[-1] == Finished(FinishReason.ERROR)
    assert [type(e) for e in seen].count(Finished) == 1


def test_exception_after_message_stop_adds_no_second_finished():
    seen = []
    with pytest.raises(Boom):
        for event in to_events(failing([message_start(), *message_end("end_turn")], Boom())):
            seen.append(event)
    assert seen == [Finished(FinishReason.COMPLETED, {"stop_reason": "end_turn", "usage": {"output_tokens": 42}})]


def test_several_messages_back_to_back():
    first = [message_start(), tool_use(0, "a", "f"), json_delta(0, '{"x": 1}'), stop(0), *message_end()]
    second = [message_start(), block_start(0, {"type": "text", "text": ""}), delta(0, type="text_delta", text="ok"),
              stop(0), *message_end("end_turn")]
    events, persisted = run(first + second)
    assert [e.reason for e in events if isinstance(e, Finished)] == [FinishReason.TOOL_USE, FinishReason.COMPLETED]
    assert [e.kind for e in persisted] == [ToolCallRequest("a", "f", {"x": 1}), ChatMessage("ok")]


def events_until_error(items):
    events = []
    with pytest.raises(ProviderProtocolError) as info:
        for event in to_events(items):
            events.append(event)
    return events, info.value


def test_a_spliced_message_start_ends_the_stream_with_an_error():
    # issue 9 item 2: another message starts while one is open; its call must never be runnable
    second = message_start()
    second["message"]["id"] = "msg_2"
    items = [message_start(), tool_use(0, "a", "f"), json_delta(0, '{"x"'),
             second, tool_use(0, "b", "f"), json_delta(0, '{"x": 1}'), stop(0), *message_end("tool_use")]
    events, error = events_until_error(items)
    assert "spliced" in str(error) and error.event == 3
    assert events[-1].reason is FinishReason.ERROR and [type(e) for e in events].count(Finished) == 1
    assert not any(isinstance(e, Flush) for e in events)


def test_a_duplicated_message_start_is_the_same_message():
    # issue 9 item 2 (vercel/ai #18331): same id again while open: one message, one Finished
    items = [message_start(), message_start(), block_start(0, {"type": "text", "text": ""}),
             delta(0, type="text_delta", text="answer"), stop(0), *message_end("end_turn")]
    events, persisted = run(items)
    assert [e for e in events if isinstance(e, Finished)] == [
        Finished(FinishReason.COMPLETED, {"stop_reason": "end_turn", "usage": {"output_tokens": 42}})]
    assert [p.kind for p in persisted] == [ChatMessage("answer")]


def test_a_second_block_start_on_an_open_index_never_joins_two_calls():
    # issue 9 item 5
    items = [message_start(), tool_use(0, "toolu_a", "read"), json_delta(0, '{"path":'),
             tool_use(0, "toolu_b", "delete"), json_delta(0, '"/"}'), stop(0), *message_end()]
    events, error = events_until_error(items)
    assert "second content_block_start" in str(error)
    assert events[-1].reason is FinishReason.ERROR and not any(isinstance(e, Flush) for e in events)


def test_a_delta_of_another_kind_than_its_block_is_malformed():
    items = [message_start(), tool_use(0), delta(0, type="text_delta", text="x"), stop(0), *message_end()]
    events, error = events_until_error(items)
    assert "text_delta" in str(error) and events[-1].reason is FinishReason.ERROR


def test_items_after_message_stop_are_dropped_until_the_next_message():
    items = [message_start(), *message_end("end_turn"), tool_use(0), json_delta(0, "{}"), stop(0),
             *message_end("tool_use")]
    events, persisted = run(items)
    assert [type(e) for e in events] == [Finished] and persisted == []


@pytest.mark.parametrize("item", [
    {"type": "content_block_start", "index": [0], "content_block": {"type": "text", "text": ""}},
    {"type": "content_block_start", "index": 0, "content_block": "tool_use"},
    {"type": "content_block_start", "index": 0, "content_block": {"type": 5}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": 5}},
    {"type": "content_block_delta", "index": 0, "delta": ["text_delta"]},
    {"type": "message_start", "message": {"id": "m", "content": {"type": "text"}}},
    {"type": "message_delta", "delta": "stop"},
])
def test_wrong_field_types_raise_the_documented_error(item):
    items = [message_start(), block_start(0, {"type": "text", "text": ""}), item, stop(0), *message_end("end_turn")]
    if item["type"] == "message_start":
        items = [item, *message_end("end_turn")]
    events, error = events_until_error(items)
    assert events[-1].reason is FinishReason.ERROR
    assert [type(e) for e in events].count(Finished) == 1


def test_message_stream_helper_events_are_skipped():
    # messages.stream() yields derived events next to the raw ones
    items = [message_start(), block_start(0, {"type": "text", "text": ""}),
             delta(0, type="text_delta", text="hi"), {"type": "text", "text": "hi", "snapshot": "hi"},
             stop(0), *message_end("end_turn")]
    events, _ = run(items)
    assert [e for e in events if isinstance(e, Part)] == [Part(0, Message("hi"))]


async def test_ato_events_async_and_plain_iterables():
    items = [message_start(), tool_use(0), json_delta(0, '{"a": 1}'), stop(0), *message_end()]

    async def agen():
        for item in items:
            yield item

    expected = list(to_events(items))
    assert [e async for e in ato_events(agen())] == expected
    assert [e async for e in ato_events(items)] == expected


async def test_ato_events_exception_yields_error_then_reraises():
    async def agen():
        yield message_start()
        yield tool_use(0)
        raise Boom()

    seen = []
    with pytest.raises(Boom):
        async for event in ato_events(agen()):
            seen.append(event)
    assert seen[-1] == Finished(FinishReason.ERROR)


def test_sdk_objects_are_read_like_dicts():
    pytest.importorskip("anthropic")
    from pydantic import TypeAdapter

    from anthropic.types import RawMessageStreamEvent

    adapter = TypeAdapter(RawMessageStreamEvent)
    items = [message_start(),
             block_start(0, {"type": "thinking", "thinking": "", "signature": ""}),
             delta(0, type="thinking_delta", thinking="hm"), delta(0, type="signature_delta", signature="S"), stop(0),
             tool_use(1), json_delta(1, ""), json_delta(1, '{"path": '), json_delta(1, '"x"}'), stop(1),
             *message_end()]
    sdk_items = [adapter.validate_python(i) for i in items]
    assert list(to_events(sdk_items)) == list(to_events(items))


def test_structured_text():
    from argstream.events import ChatStructured, Structured

    items = [message_start(), block_start(0, {"type": "text", "text": ""}),
             delta(0, type="text_delta", text='{"a": '), delta(0, type="text_delta", text="[true]}"),
             stop(0), *message_end("end_turn")]
    events = list(to_events(items, structured=True))
    assert events[0] == Part(0, Structured('{"a": '))
    builder = EventBuilder()
    flushed = [builder.handle(e) for e in events][2]
    assert flushed.kind == ChatStructured({"a": [True]})
