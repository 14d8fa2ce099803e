"""The OpenAI Chat Completions adapter on hand-written wire dicts (SDK objects in the loopback tests)."""

from __future__ import annotations

import re

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
from argstream.providers import ProviderProtocolError
from argstream.providers.openai_chat import FINISH_REASONS, ato_events, to_events


def chunk(delta=None, finish=None, *, id="chatcmpl-1", choice=0, **extra):
    choices = [] if delta is None and finish is None else [
        {"index": choice, "delta": delta or {}, "logprobs": None, "finish_reason": finish}]
    return {"id": id, "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": choices, **extra}


def call(index, id=None, name=None, arguments=None, **extra):
    entry = {"index": index, **extra}
    if id is not None:
        entry["id"] = id
        entry["type"] = "function"
    function = {}
    if name is not None:
        function["name"] = name
    if arguments is not None:
        function["arguments"] = arguments
    entry["function"] = function
    return chunk({"tool_calls": [entry]})


def run(items):
    builder = EventBuilder()
    events, persisted = list(to_events(items)), []
    for event in events:
        out = builder.handle(event)
        if isinstance(event, Flush) and out is not None:
            persisted.append(out)
        elif isinstance(event, Finished):
            persisted.extend(out)
    return events, persisted


def requests(persisted):
    return [e.kind for e in persisted if isinstance(e.kind, ToolCallRequest)]


def test_reasoning_text_and_tool_call():
    items = [
        chunk({"role": "assistant", "content": "", "reasoning_content": ""}),
        chunk({"reasoning_content": "Think"}),
        chunk({"reasoning_content": "ing."}),
        chunk({"content": "I'll "}),
        chunk({"content": "write."}),
        call(0, "call_1", "fs_create_file", ""),
        call(0, arguments='{"path": '),
        call(0, arguments='"a.txt"}'),
        chunk({}, "tool_calls"),
        chunk(usage={"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3}),
    ]
    events, persisted = run(items)
    assert events == [
        Part(0, Reasoning("Think")),
        Part(0, Reasoning("ing.")),
        Part(1, Message("I'll ")),
        Part(1, Message("write.")),
        Part(2, ToolCall(ToolCallStart("call_1", "fs_create_file"))),
        Part(2, ToolCall(ArgumentChunk('{"path": '))),
        Part(2, ToolCall(ArgumentChunk('"a.txt"}'))),
        Flush(0), Flush(1), Flush(2),
        Finished(FinishReason.TOOL_USE, {"stop_reason": "tool_calls"}),
    ]
    assert [e.kind for e in persisted] == [
        ChatReasoning("Thinking."), ChatMessage("I'll write."), ToolCallRequest("call_1", "fs_create_file",
                                                                                {"path": "a.txt"})]


def test_usage_sent_with_the_finish_is_kept():
    usage = {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3}
    events = list(to_events([chunk({"content": "hi"}), chunk({}, "stop", usage=usage)]))
    assert events[-1] == Finished(FinishReason.COMPLETED, {"stop_reason": "stop", "usage": usage})


def test_openrouter_reasoning_and_details():
    items = [
        chunk({"role": "assistant", "content": "", "reasoning": "Plan", "reasoning_details": [
            {"type": "reasoning.text", "text": "Plan", "format": "anthropic-claude-v1", "index": 0}]}),
        chunk({"role": "assistant", "content": "", "reasoning": None, "reasoning_details": [
            {"type": "reasoning.text", "text": " ahead", "format": "anthropic-claude-v1", "index": 0}]}),
        chunk({"role": "assistant", "content": "", "reasoning_details": [
            {"type": "reasoning.text", "signature": "SIG", "format": "anthropic-claude-v1", "index": 0}]}),
        chunk({"role": "assistant", "content": "Done."}),
        chunk({"role": "assistant", "content": ""}, "stop", native_finish_reason="end_turn"),
    ]
    events, persisted = run(items)
    reasoning = persisted[0]
    assert reasoning.kind == ChatReasoning("Plan ahead")
    assert reasoning.metadata == {"signature": "SIG", "reasoning_format": "anthropic-claude-v1"}  # format not doubled
    assert persisted[1].kind == ChatMessage("Done.")
    assert events[-1].reason is FinishReason.COMPLETED


def test_ids_repeated_on_every_delta_are_not_concatenated():
    items = [
        call(0, "call_X", "weather", ""),
        call(0, "call_X", arguments='{"city":'),
        call(0, "call_X", arguments='"Paris"}'),
        chunk({}, "tool_calls"),
    ]
    events, persisted = run(items)
    starts = [e for e in events if isinstance(e, Part) and isinstance(e.part.part, ToolCallStart)]
    assert starts == [Part(0, ToolCall(ToolCallStart("call_X", "weather")))]
    assert requests(persisted) == [ToolCallRequest("call_X", "weather", {"city": "Paris"})]


def test_empty_ids_and_names_on_continuations_are_ignored():
    # Alibaba repeats "id": "", the GLM model on Mistral repeats "name": ""
    items = [
        call(0, "call_a", "weather", ""),
        call(0, "", "", '{"city": "Rome"}'),
        call(0, "", None, ""),
        chunk({}, "tool_calls"),
    ]
    _, persisted = run(items)
    assert requests(persisted) == [ToolCallRequest("call_a", "weather", {"city": "Rome"})]


def test_interleaved_parallel_calls_by_index():
    items = [
        call(0, "c0", "read", ""),
        call(1, "c1", "grep", ""),
        call(1, arguments='{"q": '),
        call(0, arguments='{"path"'),
        call(1, arguments='"x"}'),
        call(0, arguments=': "a"}'),
        chunk({}, "tool_calls"),
    ]
    _, persisted = run(items)
    assert requests(persisted) == [ToolCallRequest("c0", "read", {"path": "a"}),
                                   ToolCallRequest("c1", "grep", {"q": "x"})]


def test_calls_without_index_continue_unless_a_new_id_comes():
    def entry(**fields):
        return chunk({"tool_calls": [fields]})

    items = [
        entry(id="m1", function={"name": "a", "arguments": '{"x"'}),
        entry(function={"arguments": ": 1}"}),
        entry(id="m2", function={"name": "b", "arguments": "{}"}),
        entry(id="m2", function={"arguments": ""}),
        chunk({}, "tool_calls"),
    ]
    _, persisted = run(items)
    assert requests(persisted) == [ToolCallRequest("m1", "a", {"x": 1}), ToolCallRequest("m2", "b", {})]


def test_whole_arguments_in_one_chunk_with_the_finish():
    # mistral-small: the call and the finish in one chunk
    item = chunk({"content": None, "tool_calls": [{"id": "gS", "function": {"name": "weather",
                                                                            "arguments": '{"l": "SF"}'}}]},
                 "tool_calls")
    _, persisted = run([item])
    assert requests(persisted) == [ToolCallRequest("gS", "weather", {"l": "SF"})]


def test_arguments_sent_as_an_object():
    _, persisted = run([call(0, "c", "f", {"a": [1, "é"]}), chunk({}, "tool_calls")])
    assert requests(persisted) == [ToolCallRequest("c", "f", {"a": [1, "é"]})]


@pytest.mark.parametrize(
    "finish, tools, reason",
    [
        ("stop", False, FinishReason.COMPLETED),
        ("stop", True, FinishReason.TOOL_USE),
        ("tool_calls", True, FinishReason.TOOL_USE),
        ("function_call", True, FinishReason.TOOL_USE),
        ("length", False, FinishReason.MAX_TOKENS),
        ("length", True, FinishReason.MAX_TOKENS),
        ("content_filter", False, FinishReason.REFUSAL),
        ("error", False, FinishReason.ERROR),
        ("something_new", False, FinishReason.COMPLETED),
    ],
)
def test_finish_reasons(finish, tools, reason):
    items = [call(0, "c", "f", "{}")] if tools else [chunk({"content": "x"})]
    events = list(to_events([*items, chunk({}, finish)]))
    assert events[-1] == Finished(reason, {"stop_reason": finish})
    assert FINISH_REASONS["length"] is FinishReason.MAX_TOKENS


def test_length_cut_mid_argument_is_not_complete():
    _, persisted = run([call(0, "c", "fs_create_file", '{"path": "a", "content": "ab'), chunk({}, "length")])
    request = requests(persisted)[0]
    assert request.arguments == {}
    assert type(request.error).__name__ == "IncompleteJSONError"


def test_no_finish_reason_ends_with_error_and_flushes_nothing():
    events, persisted = run([chunk({"content": "hi"}), call(0, "c", "f", '{"a": 1}')])
    assert not any(isinstance(e, Flush) for e in events)
    assert events[-1] == Finished(FinishReason.ERROR)
    assert all(e.metadata["incomplete"] for e in persisted)
    assert requests(persisted)[0].error is not None


def test_error_chunk():
    error = {"message": "upstream failed", "code": 502}
    events = list(to_events([chunk({"content": "hi"}), {"error": error}]))
    assert events[-1] == Finished(FinishReason.ERROR, {"error": error})
    assert [type(e) for e in events].count(Finished) == 1


def test_usage_only_chunk_and_done_after_finish_add_nothing():
    events = list(to_events([chunk({"content": "a"}), chunk({}, "stop"), chunk(usage={"total_tokens": 1}),
                             chunk({"role": "assistant"}), "[DONE]"]))
    assert [type(e) for e in events] == [Part, Flush, Finished]


def test_responses_back_to_back():
    items = [call(0, "c1", "f", "{}"), chunk({}, "tool_calls"),
             chunk({"content": "hi"}, id="chatcmpl-B"), chunk({}, "stop", id="chatcmpl-B")]
    events, persisted = run(items)
    assert [e.reason for e in events if isinstance(e, Finished)] == [FinishReason.TOOL_USE, FinishReason.COMPLETED]
    assert [e.kind for e in persisted] == [ToolCallRequest("c1", "f", {}), ChatMessage("hi")]
    assert [e.index for e in events if isinstance(e, Flush)] == [0, 0]  # indexes start again per response


def test_new_response_before_finish_is_a_spliced_stream():
    items = [chunk({"content": "cut"}, id="A"), chunk({"content": "new"}, id="B"), chunk({}, "stop", id="B")]
    events = []
    with pytest.raises(ProviderProtocolError, match="unfinished") as info:
        for event in to_events(items):
            events.append(event)
    assert info.value.event == 1
    assert [e.reason for e in events if isinstance(e, Finished)] == [FinishReason.ERROR]


def test_refusal_and_legacy_function_call():
    items = [chunk({"refusal": "I can't"}), chunk({"refusal": " help."}), chunk({}, "stop")]
    _, persisted = run(items)
    assert persisted[0].kind == ChatMessage("I can't help.")
    assert persisted[0].metadata == {"refusal": True}
    items = [chunk({"function_call": {"name": "legacy", "arguments": '{"a"'}}),
             chunk({"function_call": {"arguments": ": 2}"}}), chunk({}, "function_call")]
    events, persisted = run(items)
    assert requests(persisted) == [ToolCallRequest("", "legacy", {"a": 2})]
    assert events[-1].reason is FinishReason.TOOL_USE


def test_two_choices_finish_when_both_have():
    items = [chunk({"content": "a"}, choice=0), chunk({"content": "b"}, choice=1), chunk({}, "stop", choice=0),
             chunk({}, "length", choice=1)]
    events, persisted = run(items)
    assert [type(e) for e in events].count(Finished) == 1
    assert events[-1].reason is FinishReason.COMPLETED
    assert [e.kind for e in persisted] == [ChatMessage("a"), ChatMessage("b")]


def test_stream_helper_events_are_unwrapped():
    # chat.completions.stream() yields {"type": "chunk", "chunk": ...} next to derived events
    items = [{"type": "chunk", "chunk": chunk({"content": "hi"})}, {"type": "content.delta", "delta": "hi"},
             {"type": "chunk", "chunk": chunk({}, "stop")}, {"type": "content.done", "content": "hi"}]
    assert list(to_events(items)) == [Part(0, Message("hi")), Flush(0),
                                      Finished(FinishReason.COMPLETED, {"stop_reason": "stop"})]


class Boom(Exception):
    pass


def test_exception_mid_stream_yields_error_then_reraises():
    def items():
        yield call(0, "c", "f", '{"a": ')
        raise Boom()

    seen = []
    with pytest.raises(Boom):
        for event in to_events(items()):
            seen.append(event)
    assert seen[-1] == Finished(FinishReason.ERROR)


async def test_ato_events():
    items = [call(0, "c", "f", '{"a": 1}'), chunk({}, "tool_calls")]

    async def agen():
        for item in items:
            yield item

    assert [e async for e in ato_events(agen())] == list(to_events(items))


def test_sdk_chunks_with_model_extra():
    pytest.importorskip("openai")
    from openai.types.chat import ChatCompletionChunk

    items = [chunk({"role": "assistant", "content": None, "reasoning_content": "hm"}),
             call(0, "c", "f", '{"a": '), call(0, "c", None, "1}"), chunk({}, "tool_calls")]
    sdk_items = [ChatCompletionChunk.model_validate(i) for i in items]
    assert sdk_items[0].choices[0].delta.model_extra == {"reasoning_content": "hm"}
    assert list(to_events(sdk_items)) == list(to_events(items))


def test_structured_content():
    from argstream.events import ChatStructured, Structured

    items = [chunk({"content": '{"answer": [1, '}), chunk({"content": '2], "ok": true}'}), chunk({}, "stop")]
    events, persisted = run([*items])
    assert persisted[0].kind == ChatMessage('{"answer": [1, 2], "ok": true}')
    builder = EventBuilder()
    events = list(to_events(items, structured=True))
    assert events[0] == Part(0, Structured('{"answer": [1, '))
    flushed = [builder.handle(e) for e in events][2]
    assert flushed.kind == ChatStructured({"answer": [1, 2], "ok": True})


def test_parallel_calls_that_reuse_index_zero_are_separate_calls():
    # issue 9 item 1: Groq and vLLM send every parallel call on tool_calls[].index 0 with a new id
    items = [call(0, "call_a", "read", '{"path": "a"}'),
             call(0, "call_b", "read", '{"path": '), call(0, arguments='"b"}'),
             chunk({}, "tool_calls")]
    events, persisted = run(items)
    assert requests(persisted) == [ToolCallRequest("call_a", "read", {"path": "a"}),
                                   ToolCallRequest("call_b", "read", {"path": "b"})]
    flushes = [i for i, e in enumerate(events) if isinstance(e, Flush)]
    assert flushes[0] < next(i for i, e in enumerate(events) if isinstance(e, Part)
                             and e.part.part == ToolCallStart("call_b", "read"))  # call_a flushed at once
    assert [e.reason for e in events if isinstance(e, Finished)] == [FinishReason.TOOL_USE]


def test_an_id_repeated_on_every_delta_continues_its_call():
    items = [call(0, "call_a", "read", '{"path": '), call(0, "call_a", None, '"a"}'), chunk({}, "tool_calls")]
    _, persisted = run(items)
    assert requests(persisted) == [ToolCallRequest("call_a", "read", {"path": "a"})]


def test_text_after_a_complete_value_on_one_index_is_never_silently_joined():
    items = [call(0, "call_a", "read", '{"path": "a"}'), call(0, arguments='{"path": "b"}'), chunk({}, "tool_calls")]
    _, persisted = run(items)
    [request] = requests(persisted)
    assert request.error is not None and request.arguments == {}


@pytest.mark.parametrize("entry", [
    {"index": [0], "id": "c", "function": {"name": "f"}},
    {"index": "0", "id": "c", "function": {"name": "f"}},
    {"index": 0, "id": "c", "function": {"name": "f", "arguments": 5}},
    {"index": 0, "id": "c", "function": {"name": ["f"]}},
    {"index": 0, "id": {"x": 1}, "function": {"name": "f"}},
    {"index": 0, "id": "c", "function": "f"},
])
def test_wrong_field_types_raise_the_documented_error(entry):
    events = []
    with pytest.raises(ProviderProtocolError) as info:
        for event in to_events([chunk({"content": "x"}), chunk({"tool_calls": [entry]}), chunk({}, "tool_calls")]):
            events.append(event)
    assert info.value.event == 1
    assert [type(e) for e in events].count(Finished) == 1 and events[-1].reason is FinishReason.ERROR


@pytest.mark.parametrize("bad", [
    {"choices": {"index": 0}}, {"choices": [{"index": {}, "delta": {}}]},
    {"choices": [{"delta": {"tool_calls": {"index": 0}}}]},
    {"choices": [{"delta": {"content": 7}}]}, {"choices": ["x"]},
])
def test_malformed_chunks_raise_the_documented_error(bad):
    with pytest.raises(ProviderProtocolError):
        list(to_events([chunk({"content": "x"}), {"id": "chatcmpl-1", **bad}]))


_ENTRY = {"index": 0, "id": "c", "function": {"name": "fs", "arguments": '{"a": 1}'}}
_WRONG = {
    "a choice index that is text": ([{"index": "0", "delta": {"content": "x"}}], "choices[].index must be an integer"),
    "a choice index that is a bool": ([{"index": True, "delta": {"content": "x"}}], "choices[].index must be an integer"),
    "a choice index that is a float": ([{"index": 0.0, "delta": {"content": "x"}}], "choices[].index must be an integer"),
    "choices that are an object": ({"index": 0}, "'choices' must be a list"),
    "a delta that is a list": ([{"index": 0, "delta": ["x"]}], "expected an object"),
    "tool_calls that are an object": ([{"index": 0, "delta": {"tool_calls": {"index": 0}}}], "'tool_calls' must be a list"),
    "tool_calls that are text": ([{"index": 0, "delta": {"tool_calls": "abc"}}], "'tool_calls' must be a list"),
    "an entry index that is text": ([{"index": 0, "delta": {"tool_calls": [{**_ENTRY, "index": "0"}]}}],
                                    "tool_calls[].index must be an integer"),
    "an entry index that is a bool": ([{"index": 0, "delta": {"tool_calls": [{**_ENTRY, "index": False}]}}],
                                      "tool_calls[].index must be an integer"),
    "an entry that is a list": ([{"index": 0, "delta": {"tool_calls": [["x"]]}}], "expected an object"),
    "a function that is a list": ([{"index": 0, "delta": {"tool_calls": [{**_ENTRY, "function": ["fs"]}]}}],
                                  "expected an object"),
}


@pytest.mark.parametrize("case", list(_WRONG))
def test_wrong_field_types_on_the_general_way_are_protocol_errors(case: str) -> None:
    """The general way tests exact dicts, lists and ints inline; anything else still goes to the checks
    that name the field: ``ProviderProtocolError`` after ``StreamFinished(ERROR)``, no call finished."""
    from argstream import StreamFinished, ToolCallFinished, iter_tool_stream

    choices, message = _WRONG[case]
    got: list = []
    with pytest.raises(ProviderProtocolError, match=re.escape(message)):
        for item in iter_tool_stream([{"id": "r", "choices": choices}, chunk(finish="stop", id="r")], "openai_chat"):
            got.append(item)
    assert type(got[-1]) is StreamFinished and got[-1].reason is FinishReason.ERROR
    assert not any(type(item) is ToolCallFinished for item in got)


def test_mappings_that_are_not_dicts_read_as_dicts() -> None:
    """A choice, delta, entry and function given as read-only mappings give the items of plain dicts."""
    from types import MappingProxyType

    from argstream import iter_tool_stream

    def stream(wrap):
        entry = wrap({**_ENTRY, "function": wrap(dict(_ENTRY["function"]))})
        items = [{"id": "r", "choices": [wrap({"index": 0, "delta": wrap({"tool_calls": [entry]})})]},
                 chunk(finish="tool_calls", id="r")]
        return [(type(x).__name__, getattr(x, "arguments", None)) for x in iter_tool_stream(items, "openai_chat")]

    assert stream(MappingProxyType) == stream(dict)
    assert ("ToolCallFinished", {"a": 1}) in stream(dict)
