"""``argstream.providers.gemini`` on hand-written wire dicts: generateContent, Vertex partialArgs, Interactions."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from _support import build
from argstream import DONE, ArrayItem, ObjectEntry, String
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
from argstream.providers.gemini import (
    MAX_PATH_STEPS, GeminiAdapter, PartialArgsWriter, ato_events, parse_json_path, to_events,
)


def calls(events: list[Any]) -> list[ToolCallRequest]:
    return [e.kind for e in build(events)[0] if isinstance(e.kind, ToolCallRequest)]


def chunk(*parts: dict, finish: str | None = None, rid: str | None = "R1") -> dict:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": list(parts)}, "index": 0}
    if finish:
        candidate["finishReason"] = finish
    out: dict[str, Any] = {"candidates": [candidate], "modelVersion": "gemini-x"}
    if rid:
        out["responseId"] = rid
    return out


def fcall(**fields: Any) -> dict:
    return {"functionCall": fields}


def pa(path: str, **value: Any) -> dict:
    return {"jsonPath": path, **value}


def streamed(name: str, *pieces: dict, terminator: bool = True) -> list[dict]:
    out = [chunk(fcall(name=name, willContinue=True))]
    out += [chunk(fcall(partialArgs=[p], willContinue=True)) for p in pieces]
    if terminator:
        out.append(chunk(fcall()))
    return out


# -- generateContent -------------------------------------------------------------------


def test_text_thoughts_and_a_whole_call() -> None:
    stream = [
        chunk({"text": "Let me ", "thought": True}),
        chunk({"text": "think.", "thought": True}),
        chunk({"text": "I'll create it."}),
        chunk({"text": "", "thoughtSignature": "U0lH"}),
        chunk({**fcall(name="fs_create_file", args={"path": "a.py", "content": "é\n"}), "thoughtSignature": "c2ln"}),
        chunk({"text": ""}, finish="STOP"),
    ]
    events = list(to_events(stream))
    assert events[:3] == [Part(0, Reasoning("Let me ")), Part(0, Reasoning("think.")), Flush(0)]
    start = Part(2, ToolCall(ToolCallStart("R1-call-0", "fs_create_file")), {"thought_signature": "c2ln"})
    assert start in events
    assert Part(2, ToolCall(ArgumentChunk('{"path":"a.py","content":"é\\n"}'))) in events
    flushed, _, finished = build(events)
    assert [e.kind for e in flushed] == [
        ChatReasoning("Let me think."),
        ChatMessage("I'll create it."),
        ToolCallRequest("R1-call-0", "fs_create_file", {"path": "a.py", "content": "é\n"}),
    ]
    assert flushed[1].metadata == {"thought_signature": "U0lH"}  # an empty text part's signature joins its run
    assert flushed[2].metadata == {"thought_signature": "c2ln", "id_generated": True}
    assert finished == [Finished(FinishReason.TOOL_USE, {"stop_reason": "STOP"})]


def test_ids_thought_signatures_and_parallel_calls() -> None:
    stream = [
        chunk(fcall(name="a", args={"x": 1}, id="given"), {**fcall(name="b", args={}), "thoughtSignature": "c2ln"}),
        chunk(fcall(name="c"), finish="STOP"),
    ]
    events = list(to_events(stream))
    flushed, _, _ = build(events)
    assert [e.kind for e in flushed] == [ToolCallRequest("given", "a", {"x": 1}),
                                         ToolCallRequest("R1-call-1", "b", {}),
                                         ToolCallRequest("R1-call-2", "c", {})]
    assert flushed[0].metadata == {}
    assert flushed[1].metadata == {"thought_signature": "c2ln", "id_generated": True}
    assert list(to_events(stream)) == events  # deterministic ids
    no_rid = [chunk(fcall(name="a", args={}), rid=None), chunk(finish="STOP", rid=None)]
    assert calls(list(to_events(no_rid)))[0].id == "gemini-call-0"


@pytest.mark.parametrize(("finish", "calls_made", "reason"), [
    ("STOP", False, FinishReason.COMPLETED),
    ("STOP", True, FinishReason.TOOL_USE),
    ("MAX_TOKENS", True, FinishReason.MAX_TOKENS),
    ("SAFETY", False, FinishReason.REFUSAL),
    ("RECITATION", False, FinishReason.REFUSAL),
    ("PROHIBITED_CONTENT", False, FinishReason.REFUSAL),
    ("MALFORMED_FUNCTION_CALL", False, FinishReason.ERROR),
    ("UNEXPECTED_TOOL_CALL", True, FinishReason.ERROR),
    ("OTHER", False, FinishReason.ERROR),
])
def test_finish_reasons(finish: str, calls_made: bool, reason: FinishReason) -> None:
    parts = [fcall(name="f", args={})] if calls_made else [{"text": "hi"}]
    events = list(to_events([chunk(*parts), chunk(finish=finish)]))
    assert events[-1] == Finished(reason, {"stop_reason": finish})
    assert sum(isinstance(e, Finished) for e in events) == 1


def test_blocked_prompt_is_a_refusal() -> None:
    events = list(to_events([{"promptFeedback": {"blockReason": "SAFETY"}, "responseId": "R"}]))
    assert events == [Finished(FinishReason.REFUSAL, {"stop_reason": "SAFETY"})]


def test_a_stream_without_finish_reason_ends_in_error_and_flushes_no_open_call() -> None:
    stream = streamed("w", pa("$.a", stringValue="x", willContinue=True), terminator=False)
    events = list(to_events(stream))
    assert events[-1] == Finished(FinishReason.ERROR)
    assert not any(isinstance(e, Flush) for e in events)


def test_provider_run_parts_are_skipped() -> None:
    stream = [chunk({"executableCode": {"language": "PYTHON", "code": "1+1"}},
                    {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "2"}},
                    {"inlineData": {"mimeType": "image/png", "data": "AA=="}}),
              chunk({"text": "2"}, finish="STOP")]
    flushed, _, finished = build(list(to_events(stream)))
    assert [e.kind for e in flushed] == [ChatMessage("2")]
    assert finished[0].reason is FinishReason.COMPLETED


# -- Vertex partialArgs ----------------------------------------------------------------


def test_partial_args_stream_as_json_text() -> None:
    stream = [chunk({**fcall(name="cook", willContinue=True), "thoughtSignature": "c2ln"})] + streamed(
        "", pa("$.recipe.ingredients[0].amount", stringValue="16 ", willContinue=True),
        pa("$.recipe.ingredients[0].amount", stringValue="oz", willContinue=True),
        pa("$.recipe.ingredients[0].amount", stringValue=""),
        pa("$.recipe.ingredients[0].name", stringValue="Noodles", willContinue=True),
        pa("$.recipe.ingredients[0].name", stringValue=""),
        pa("$.recipe.ingredients[1].amount", numberValue=2.0),
        pa("$.recipe.name", stringValue="La\"sagna\n", willContinue=True),
        pa("$.recipe.name", stringValue=""),
        pa("$.recipe.steps[0]", stringValue="Preheat", willContinue=True),
        pa("$.recipe.steps[0]", stringValue=""),
        pa("$.recipe.vegan", boolValue=False),
        pa("$.note", nullValue="NULL_VALUE"),
    )[1:] + [chunk(finish="STOP")]
    events = list(to_events(stream))
    text = "".join(e.part.part.text for e in events if isinstance(e, Part) and isinstance(e.part.part, ArgumentChunk))
    expected = {"recipe": {"ingredients": [{"amount": "16 oz", "name": "Noodles"}, {"amount": 2}],
                           "name": "La\"sagna\n", "steps": ["Preheat"], "vegan": False}, "note": None}
    assert json.loads(text) == expected
    assert '"amount":2}' in text  # an integral double is written as an integer
    flushed, progress, _ = build(events)
    assert flushed[0].kind == ToolCallRequest("R1-call-0", "cook", expected)
    assert flushed[0].metadata == {"thought_signature": "c2ln", "id_generated": True}
    # the first string piece streams before its value is complete
    first = progress[0].fragment
    assert first == ObjectEntry("recipe", ObjectEntry("ingredients", ArrayItem(0, ObjectEntry("amount", String("16 ")))))


def test_each_partial_arg_chunk_yields_progress_at_once() -> None:
    stream = streamed("w", pa("$.path", stringValue="src/a.py", willContinue=True), pa("$.path", stringValue=""),
                      pa("$.content", stringValue="x" * 50, willContinue=True))
    adapter, builder = GeminiAdapter(), EventBuilder()
    per_chunk = []
    for item in stream[:4]:  # one adapter fed chunk by chunk, the call still open
        progress: list[Any] = []
        for event in adapter.feed(item):
            result = builder.handle(event)
            if isinstance(event, Part):
                progress += [p.fragment for p in result]
        per_chunk.append(progress)
    assert per_chunk[1] == [ObjectEntry("path", String("src/a.py"))]
    assert ObjectEntry("path", DONE) in per_chunk[2]
    assert per_chunk[3] == [ObjectEntry("content", String("x" * 50))]


def test_a_call_ends_at_its_last_piece_without_a_terminator() -> None:
    stream = [chunk(fcall(name="writeItems", willContinue=True)),
              chunk(fcall(partialArgs=[pa("$.ops[0].id", stringValue="a", willContinue=True)], willContinue=True)),
              chunk(fcall(partialArgs=[pa("$.ops[0].id", stringValue="")], willContinue=True)),
              chunk(fcall(partialArgs=[pa("$.ops[0].price", numberValue=0.5)])),  # no willContinue: the end
              chunk({"text": ""}, finish="STOP")]
    assert calls(list(to_events(stream))) == [ToolCallRequest("R1-call-0", "writeItems", {"ops": [{"id": "a", "price": 0.5}]})]


def test_a_new_call_or_the_finish_reason_cuts_off_a_call_that_said_more_would_follow() -> None:
    # closing its brackets would make up a value: {"x": "1"} may have been {"x": "1...", "z": ...}
    stream = [chunk(fcall(name="a", willContinue=True)),
              chunk(fcall(partialArgs=[pa("$.x", stringValue="1", willContinue=True)], willContinue=True)),
              chunk(fcall(name="b", willContinue=True)),
              chunk(fcall(partialArgs=[pa("$.y", numberValue=2)], willContinue=True)),
              chunk(finish="STOP")]
    events = list(to_events(stream))
    assert calls(events) == [] and not any(isinstance(e, Flush) for e in events)
    builder = EventBuilder()
    leftovers = [out for e in events if (out := builder.handle(e)) and isinstance(e, Finished)][0]
    assert [(e.kind.name, e.metadata["incomplete"]) for e in leftovers] == [("a", True), ("b", True)]
    assert all(e.kind.error is not None for e in leftovers)


def test_a_streamed_call_without_arguments() -> None:
    stream = streamed("read_theme") + [chunk(finish="STOP")]
    assert calls(list(to_events(stream))) == [ToolCallRequest("R1-call-0", "read_theme", {})]


def test_parse_json_path() -> None:
    assert parse_json_path("$") == ()
    assert parse_json_path("$.a.b_c[12].d") == ("a", "b_c", 12, "d")
    assert parse_json_path("$['a.b'][\"c d\"]['it\\'s']") == ("a.b", "c d", "it's")
    with pytest.raises(ValueError):
        parse_json_path("a.b")
    with pytest.raises(ValueError):
        parse_json_path("$.a[*]")


def write(pieces: list[tuple[str, Any, str, bool]]) -> str:
    writer = PartialArgsWriter()
    text = "".join(writer.feed(parse_json_path(p), v, k, c) for p, v, k, c in pieces)
    return text + writer.close()


def test_writer_arrays_of_arrays_and_quoted_keys() -> None:
    text = write([("$.m[0][0]", 1, "number", False), ("$.m[0][1]", 2, "number", False),
                  ("$.m[1][0]", True, "bool", False), ("$['a \"key\"']", None, "null", False)])
    assert json.loads(text) == {"m": [[1, 2], [True]], 'a "key"': None}


@pytest.mark.parametrize("pieces", [
    [("$.gap[2]", "z", "string", False)],
    [("$.a[0]", 1, "number", False), ("$.a[2]", 1, "number", False)],
    [("$[1]", 1, "number", False)],
    [("$.a[10000000]", 1, "number", False)],
    [("$.a[0]", 1, "number", False), ("$.b", 1, "number", False), ("$.a[5]", 1, "number", False)],  # fallback
])
def test_writer_refuses_an_index_that_skips_ahead(pieces) -> None:
    # issue 9 item 6: a skipped index would have to be filled; refused at once, whatever its size
    with pytest.raises(ProviderProtocolError, match="skips ahead|next position"):
        write(pieces)


def test_writer_falls_back_when_paths_go_back() -> None:
    pieces = [("$.a.x", "1", "string", False), ("$.b", 2, "number", False),
              ("$.a.y", "par", "string", True), ("$.a.y", "tial", "string", False),
              ("$.b", 3, "number", False)]
    text = write(pieces)
    assert json.loads(text) == {"a": {"x": "1", "y": "partial"}, "b": 3}  # set each path; the last one wins


def test_writer_numbers() -> None:
    text = write([("$.i", 3.0, "number", False), ("$.f", 0.25, "number", False), ("$.big", 1e300, "number", False),
                  ("$.nan", float("nan"), "number", False), ("$.inf", "Infinity", "number", False)])
    assert json.loads(text) == {"i": 3, "f": 0.25, "big": 1e300, "nan": "NaN", "inf": "Infinity"}
    assert '"i":3,' in text


@pytest.mark.hypothesis
def test_writer_rebuilds_any_object_streamed_in_document_order() -> None:
    from hypothesis import given
    from hypothesis import strategies as st

    leaves = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6),
                       st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=12))
    keys = st.text(min_size=1, max_size=5)
    values = st.recursive(leaves, lambda inner: st.one_of(st.lists(inner, min_size=1, max_size=3),
                                                          st.dictionaries(keys, inner, min_size=1, max_size=3)),
                          max_leaves=12)
    documents = st.dictionaries(keys, values, min_size=1, max_size=4)

    @given(documents, st.integers(1, 4))
    def check(document: dict, split: int) -> None:
        pieces: list[tuple[tuple, Any, str, bool]] = []

        def walk(path: tuple, value: Any) -> None:
            if isinstance(value, dict):
                for k, v in value.items():
                    walk(path + (k,), v)
            elif isinstance(value, list):
                for i, v in enumerate(value):
                    walk(path + (i,), v)
            elif isinstance(value, str):
                cuts = [value[i:i + split] for i in range(0, len(value), split)] + [""]
                for i, piece in enumerate(cuts):
                    pieces.append((path, piece, "string", i + 1 < len(cuts)))
            elif value is None:
                pieces.append((path, None, "null", False))
            elif isinstance(value, bool):
                pieces.append((path, value, "bool", False))
            else:
                pieces.append((path, value, "number", False))

        walk((), document)
        writer = PartialArgsWriter()
        text = "".join(writer.feed(*p) for p in pieces) + writer.close()
        assert json.loads(text) == document

    check()


# -- Interactions API ------------------------------------------------------------------


def interaction(*steps: dict, status: str = "requires_action") -> list[dict]:
    return ([{"interaction": {"id": "v1", "status": "in_progress"}, "event_type": "interaction.created"}]
            + list(steps)
            + [{"interaction": {"id": "v1", "status": status}, "event_type": "interaction.completed"}])


def test_interactions_function_call() -> None:
    stream = interaction(
        {"index": 0, "step": {"type": "thought"}, "event_type": "step.start"},
        {"index": 0, "delta": {"type": "thought_summary", "content": {"type": "text", "text": "Hmm."}},
         "event_type": "step.delta"},
        {"index": 0, "delta": {"signature": "U0lH", "type": "thought_signature"}, "event_type": "step.delta"},
        {"index": 0, "event_type": "step.stop"},
        {"index": 1, "step": {"type": "model_output"}, "event_type": "step.start"},
        {"index": 1, "delta": {"type": "text", "text": "Checking."}, "event_type": "step.delta"},
        {"index": 1, "event_type": "step.stop"},
        {"index": 2, "step": {"id": "c1", "type": "function_call", "name": "getWeather", "arguments": {}},
         "event_type": "step.start"},
        {"index": 2, "delta": {"arguments": '{"location":', "type": "arguments_delta"}, "event_type": "step.delta"},
        {"index": 2, "delta": {"arguments": '"SF"}', "type": "arguments_delta"}, "event_type": "step.delta"},
        {"index": 2, "event_type": "step.stop"},
    )
    flushed, progress, finished = build(list(to_events(stream)))
    assert [e.kind for e in flushed] == [ChatReasoning("Hmm."), ChatMessage("Checking."),
                                         ToolCallRequest("c1", "getWeather", {"location": "SF"})]
    assert flushed[0].metadata == {"thought_signature": "U0lH"}
    assert progress[0].fragment == ObjectEntry("location", String("SF"))
    assert finished == [Finished(FinishReason.TOOL_USE, {"stop_reason": "requires_action"})]


def test_interactions_whole_arguments_are_sent_once() -> None:
    stream = interaction(
        {"index": 0, "step": {"id": "c1", "type": "function_call", "name": "f", "arguments": {"a": [1]}},
         "event_type": "step.start"},
        {"index": 0, "event_type": "step.stop"},
    )
    events = list(to_events(stream))
    assert [e.part.part for e in events if isinstance(e, Part)] == [ToolCallStart("c1", "f"), ArgumentChunk('{"a":[1]}')]


@pytest.mark.parametrize(("status", "reason"), [
    ("completed", FinishReason.COMPLETED), ("incomplete", FinishReason.MAX_TOKENS),
    ("cancelled", FinishReason.CANCELLED), ("failed", FinishReason.ERROR), ("weird", FinishReason.ERROR),
])
def test_interactions_statuses(status: str, reason: FinishReason) -> None:
    assert list(to_events(interaction(status=status)))[-1] == Finished(reason, {"stop_reason": status})


def test_interactions_error_event_and_cut_stream() -> None:
    error = {"event_type": "error", "error": {"code": "x", "message": "boom"}}
    assert list(to_events([error])) == [Finished(FinishReason.ERROR, {"stop_reason": "error", "error": error["error"]})]
    cut = interaction({"index": 0, "step": {"id": "c", "type": "function_call", "name": "f", "arguments": {}},
                       "event_type": "step.start"})[:-1]
    events = list(to_events(cut))
    assert events[-1] == Finished(FinishReason.ERROR) and not any(isinstance(e, Flush) for e in events)


# -- SDK objects, async, exceptions -----------------------------------------------------


def test_sdk_objects_match_wire_dicts() -> None:
    types = pytest.importorskip("google.genai.types")
    stream = [chunk({**fcall(name="w", willContinue=True), "thoughtSignature": base64.b64encode(b"sig").decode()})]
    stream += streamed("", pa("$.a[0]", stringValue="x", willContinue=True), pa("$.a[0]", stringValue=""),
                       pa("$.n", numberValue=1))[1:]
    stream += [chunk({"text": "done", "thoughtSignature": "c2ln"}, finish="STOP")]
    sdk = [types.GenerateContentResponse.model_validate_json(json.dumps(c)) for c in stream]
    assert isinstance(sdk[0].candidates[0].content.parts[0].thought_signature, bytes)
    assert list(to_events(sdk)) == list(to_events(stream))


async def test_ato_events() -> None:
    stream = [chunk(fcall(name="f", args={"a": 1})), chunk(finish="STOP")]

    async def agen():
        for item in stream:
            yield item

    assert [e async for e in ato_events(agen())] == list(to_events(stream))


def test_an_sdk_exception_yields_finished_error_then_reraises() -> None:
    def stream():
        yield chunk({"text": "partial"})
        raise TimeoutError("read timed out")

    events: list[Any] = []
    with pytest.raises(TimeoutError):
        for event in to_events(stream()):
            events.append(event)
    assert events == [Part(0, Message("partial")), Finished(FinishReason.ERROR)]


def test_usage_goes_in_the_finished_metadata() -> None:
    usage = {"promptTokenCount": 3, "candidatesTokenCount": 4, "totalTokenCount": 7}
    last = {**chunk({"text": "hi"}, finish="STOP"), "usageMetadata": usage}
    assert list(to_events([last]))[-1] == Finished(FinishReason.COMPLETED, {"stop_reason": "STOP", "usage": usage})


def test_a_repeated_finish_reason_adds_no_second_finished() -> None:
    stream = [chunk({"text": "hi"}, finish="STOP"), chunk(finish="STOP"), {"usageMetadata": {"totalTokenCount": 9}}]
    assert [type(e).__name__ for e in to_events(stream)] == ["Part", "Flush", "Finished"]


def _cost(stream: list[dict]) -> tuple[int, ProviderProtocolError | None, list[Any]]:
    """Peak traced memory while the stream goes through the adapter and a builder, the error, the events."""
    import tracemalloc

    events: list[Any] = []
    builder = EventBuilder()
    tracemalloc.start()
    try:
        for event in to_events(stream):
            builder.handle(event)
            events.append(event)
        error = None
    except ProviderProtocolError as exc:
        error = exc
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak, error, events


@pytest.mark.parametrize("path", ["$.a[10000000]", "$.a[0][99999999999999999999]", "$[4000000000]"])
def test_a_skipping_index_costs_nothing_and_is_refused_at_once(path: str) -> None:
    # issue 9 item 6: one 150-byte event used to cost 328 s and 4.2 GB and give an ok call
    stream = [chunk(fcall(name="f", willContinue=True)),
              chunk(fcall(partialArgs=[pa(path, numberValue=1)], willContinue=True)),
              chunk(fcall(), finish="STOP")]
    peak, error, events = _cost(stream)
    assert error is not None and "index" in error.msg and error.event == 1
    assert peak < 200_000
    assert calls(events) == [] and events[-1] == Finished(FinishReason.ERROR, events[-1].metadata)


@pytest.mark.parametrize("path", ["$" + ".a" * 300_000, "$.a" + "[0]" * 200_000, "$" + "['k']" * 100_000])
def test_a_path_deeper_than_the_parser_allows_is_refused_before_it_is_walked(path: str) -> None:
    stream = [chunk(fcall(name="f", willContinue=True)),
              chunk(fcall(partialArgs=[pa(path, numberValue=1)], willContinue=True))]
    peak, error, _ = _cost(stream)
    assert error is not None and f"deeper than {MAX_PATH_STEPS}" in error.msg
    assert peak < 200_000  # the path is never expanded into 100,000s of steps


def test_a_path_at_the_depth_limit_is_read() -> None:
    path = "$" + ".a" * (MAX_PATH_STEPS - 1)  # the arguments object itself is one level more
    stream = streamed("f", pa(path, numberValue=1)) + [chunk(finish="STOP")]
    [call] = calls(list(to_events(stream)))
    value = call.arguments
    for _ in range(MAX_PATH_STEPS - 2):
        value = value["a"]
    assert value == {"a": 1}
