"""EventBuilder: parts accumulate per index and flush as RFD 012's table says (both parser backends)."""

from __future__ import annotations

import json

import pytest

from argstream import DONE, ArgumentStreamError, ArrayItem, Empty, IncompleteJSONError, ObjectEntry, Scalar, String
from argstream.builder import INCOMPLETE, EventBuilder
from argstream.events import (
    ArgumentChunk,
    ChatMessage,
    ChatReasoning,
    ChatStructured,
    ConversationEvent,
    Finished,
    FinishReason,
    Flush,
    Message,
    Part,
    Reasoning,
    Structured,
    ToolCall,
    ToolCallArgumentProgress,
    ToolCallRequest,
    ToolCallStart,
)


@pytest.fixture
def builder(make_parser) -> EventBuilder:
    return EventBuilder(parser_factory=make_parser)


def start(call_id: str, name: str) -> ToolCall:
    return ToolCall(ToolCallStart(call_id, name))


def chunk(text: str) -> ToolCall:
    return ToolCall(ArgumentChunk(text))


def test_message_and_reasoning_accumulate_and_flush(builder):
    assert builder.handle_part(0, Reasoning("Let me ")) == []
    assert builder.handle_part(0, Reasoning("think."), {"signature": "sig"}) == []
    assert builder.handle_part(1, Message("Hello, ")) == []
    assert builder.handle_part(1, Message("world")) == []
    reasoning = builder.handle_flush(0)
    assert reasoning.kind == ChatReasoning("Let me think.")
    assert reasoning.metadata == {"signature": "sig"}
    message = builder.handle_flush(1, {"citations": [1]})
    assert message.kind == ChatMessage("Hello, world")
    assert message.metadata == {"citations": [1]}
    assert builder.pending() == []


def test_metadata_merges_parts_then_flush(builder):
    builder.handle_part(0, Reasoning("a"), {"x": 1, "y": 1})
    builder.handle_part(0, Reasoning(""), {"y": 2, "signature": "s"})
    event = builder.handle_flush(0, {"z": 3})
    assert event.kind == ChatReasoning("a")
    assert event.metadata == {"x": 1, "y": 2, "signature": "s", "z": 3}


def test_flush_without_parts_is_none(builder):
    assert builder.handle_flush(7) is None


def test_tool_call_start_first_non_empty_wins(builder):
    builder.handle_part(0, start("", "fs_create_file"))
    builder.handle_part(0, start("call_1", ""))
    builder.handle_part(0, start("call_2", "other"))
    assert builder.tool_call(0) == ("call_1", "fs_create_file")
    event = builder.handle_flush(0)
    assert event.kind == ToolCallRequest("call_1", "fs_create_file", {})


def test_argument_chunks_return_progress_at_once(builder):
    builder.handle_part(3, start("toolu_1", "fs_create_file"))
    progress = builder.handle_part(3, chunk('{"path": "src/ma'))
    assert progress == [ToolCallArgumentProgress("toolu_1", "fs_create_file", ObjectEntry("path", String("src/ma")))]
    progress = builder.handle_part(3, chunk('in.rs", "content": "fn'))
    assert [p.fragment for p in progress] == [
        ObjectEntry("path", String("in.rs")),
        ObjectEntry("path", DONE),
        ObjectEntry("content", String("fn")),
    ]
    assert builder.snapshot(3) == {"path": "src/main.rs", "content": "fn"}
    progress = builder.handle_part(3, chunk(' main() {}"}'))
    assert [p.fragment for p in progress] == [
        ObjectEntry("content", String(" main() {}")), ObjectEntry("content", DONE), DONE]
    assert all(p.tool_call_id == "toolu_1" and p.tool_name == "fs_create_file" for p in progress)
    event = builder.handle_flush(3)
    assert event.kind == ToolCallRequest("toolu_1", "fs_create_file",
                                         {"path": "src/main.rs", "content": "fn main() {}"})
    assert event.kind.error is None


def test_nested_progress_for_patterns(builder):
    builder.handle_part(0, start("c", "fs_modify_file"))
    text = '{"path":"lib.rs","patterns":[{"old":"a","new":"b"}],"n":[]}'
    fragments = []
    for ch in text:
        fragments += [p.fragment for p in builder.handle_part(0, chunk(ch))]
    assert ObjectEntry("patterns", ArrayItem(0, ObjectEntry("old", String("a")))) in fragments
    assert ObjectEntry("patterns", ArrayItem(0, DONE)) in fragments
    assert ObjectEntry("n", Empty("array")) in fragments
    assert fragments[-1] == DONE
    assert builder.handle_flush(0).kind.arguments == json.loads(text)


def test_arguments_are_parsed_once_never_rebuffered(make_parser):
    pushed: list[str] = []
    finished: list[bool] = []

    class Spy:
        def __init__(self):
            self.inner = make_parser()

        def push(self, text):
            pushed.append(text)
            return self.inner.push(text)

        def finish(self):
            finished.append(True)
            return self.inner.finish()

        @property
        def position(self):
            return self.inner.position

    builder = EventBuilder(parser_factory=Spy)
    pieces = ['{"a": [1, 2', ', 3], "b": 4', "5}"]
    builder.handle_part(0, start("id", "f"))
    for piece in pieces:
        builder.handle_part(0, chunk(piece))
    assert builder.handle_flush(0).kind.arguments == {"a": [1, 2, 3], "b": 45}
    assert pushed == pieces  # each chunk pushed once, nothing re-parsed at flush
    assert finished == []  # the root object was complete: no finish() needed


@pytest.mark.parametrize("pieces", [[], [""], ["", "  ", "\n"]])
def test_arguments_that_never_arrive_flush_as_empty_object(builder, pieces):
    builder.handle_part(0, start("id", "no_args"))
    for piece in pieces:
        assert builder.handle_part(0, chunk(piece)) == []
    event = builder.handle_flush(0)
    assert event.kind == ToolCallRequest("id", "no_args", {})
    assert event.kind.error is None


def test_invalid_json_flushes_with_the_parse_error(builder):
    builder.handle_part(0, start("id", "f"))
    progress = builder.handle_part(0, chunk('{"path": "a.txt", "n": tru'))
    assert [p.fragment for p in progress] == [ObjectEntry("path", String("a.txt")), ObjectEntry("path", DONE)]
    assert builder.handle_part(0, chunk("x}")) == []
    assert builder.handle_part(0, chunk("more")) == []  # after an error, later chunks are ignored
    event = builder.handle_flush(0)
    request = event.kind
    assert request.arguments == {}
    assert isinstance(request.error, ArgumentStreamError)
    assert not isinstance(request.error, IncompleteJSONError)
    assert request.error.pos == 26  # the 'x' after "tru"
    assert request.error.msg


def test_truncated_arguments_flush_as_incomplete(builder):
    builder.handle_part(0, start("id", "f"))
    builder.handle_part(0, chunk('{"path": "a.t'))
    request = builder.handle_flush(0).kind
    assert request.arguments == {}
    assert isinstance(request.error, IncompleteJSONError)


@pytest.mark.parametrize("text", ['[1, 2]', '"str"', "12", "null"])
def test_non_object_arguments_are_an_error(builder, text):
    builder.handle_part(0, start("id", "f"))
    builder.handle_part(0, chunk(text))
    request = builder.handle_flush(0).kind
    assert request.arguments == {}
    assert isinstance(request.error, ArgumentStreamError)
    assert "JSON object" in request.error.msg


def test_structured_streams_through_the_parser(builder):
    for piece in ['{"answer": [1, ', '{"x": "y"}], "ok": t', "rue}"]:
        assert builder.handle_part(2, Structured(piece)) == []
    assert builder.snapshot(2) == {"answer": [1, {"x": "y"}], "ok": True}
    event = builder.handle_flush(2)
    assert event.kind == ChatStructured({"answer": [1, {"x": "y"}], "ok": True})


def test_structured_bare_number_needs_the_end(builder):
    builder.handle_part(0, Structured("12"))
    builder.handle_part(0, Structured("34"))
    assert builder.handle_flush(0).kind == ChatStructured(1234)


def test_structured_invalid_json(builder):
    builder.handle_part(0, Structured('{"a": }'))
    kind = builder.handle_flush(0).kind
    assert kind.data is None
    assert isinstance(kind.error, ArgumentStreamError)


def test_interleaved_tool_calls_by_index(builder):
    builder.handle_part(0, start("a", "f"))
    builder.handle_part(1, start("b", "g"))
    out = []
    for index, piece in [(0, '{"x"'), (1, '{"y": '), (0, ": 1"), (1, '"z"}'), (0, "}")]:
        out += builder.handle_part(index, chunk(piece))
    assert [(p.tool_call_id, p.fragment) for p in out] == [
        ("b", ObjectEntry("y", String("z"))),
        ("b", ObjectEntry("y", DONE)),
        ("b", DONE),
        ("a", ObjectEntry("x", Scalar(1))),
        ("a", ObjectEntry("x", DONE)),
        ("a", DONE),
    ]
    assert builder.handle_flush(1).kind == ToolCallRequest("b", "g", {"y": "z"})
    assert builder.handle_flush(0).kind == ToolCallRequest("a", "f", {"x": 1})


def test_progress_before_start_has_empty_identity(builder):
    progress = builder.handle_part(0, chunk('{"a": 1}'))
    assert progress[0] == ToolCallArgumentProgress("", "", ObjectEntry("a", Scalar(1)))


def test_finished_reports_leftovers_as_incomplete(builder):
    builder.handle_part(0, Message("partial te"))
    builder.handle_part(1, start("cut", "fs_create_file"))
    builder.handle_part(1, chunk('{"path": "a", "content": "abc'))
    builder.handle_part(2, start("whole", "f"))
    builder.handle_part(2, chunk('{"a": 1}'))  # complete text, but its block never closed
    builder.handle_part(3, start("none", "g"))  # no arguments at all, never closed
    leftovers = builder.handle(Finished(FinishReason.ERROR))
    assert [e.metadata[INCOMPLETE] for e in leftovers] == [True] * 4
    assert leftovers[0].kind == ChatMessage("partial te")
    for event in leftovers[1:]:
        assert isinstance(event.kind, ToolCallRequest)
        assert isinstance(event.kind.error, IncompleteJSONError)
        assert event.kind.arguments == {}
    assert builder.pending() == []
    # the builder is ready for the next response: indexes start again
    builder.handle_part(0, Message("next"))
    assert builder.handle_flush(0).kind == ChatMessage("next")


def test_handle_dispatches_every_event(builder):
    assert builder.handle(Part(0, start("i", "n"))) == []
    progress = builder.handle(Part(0, chunk('{"k": "v"}')))
    assert progress[-1].fragment == DONE
    event = builder.handle(Flush(0, {"m": 1}))
    assert isinstance(event, ConversationEvent)
    assert event.kind == ToolCallRequest("i", "n", {"k": "v"})
    assert event.metadata == {"m": 1}
    assert builder.handle(Finished(FinishReason.TOOL_USE)) == []
    with pytest.raises(TypeError):
        builder.handle("not an event")


@pytest.mark.parametrize(
    "first, second",
    [
        (Message("a"), Reasoning("b")),
        (Message("a"), ToolCall(ArgumentChunk("{}"))),
        (ToolCall(ToolCallStart("i", "n")), Structured("{}")),
        (Structured("{"), Message("x")),
    ],
)
def test_mixed_part_kinds_on_one_index_are_rejected(builder, first, second):
    builder.handle_part(0, first)
    with pytest.raises(TypeError, match="index 0"):
        builder.handle_part(0, second)


def test_every_split_of_a_document_gives_the_same_arguments(builder):
    text = '{"path": "a\\u00e9\\ud83d\\ude00\\"b", "n": [1.5, -2e3, null, {"t": false}], "e": {}}'
    expected = json.loads(text)
    for cut in range(len(text) + 1):
        builder.handle_part(cut, start("id", "f"))
        fragments = []
        for piece in (text[:cut], text[cut:]):
            fragments += [p.fragment for p in builder.handle_part(cut, chunk(piece))]
        assert fragments[-1] == DONE
        request = builder.handle_flush(cut).kind
        assert request.arguments == expected, cut
        assert request.error is None


def test_a_finished_strings_pieces_are_not_kept_to_the_calls_end(make_parser):
    """The pieces of a streamed string are joined once it closes and let go then: a long ``content``
    followed by more keys is not held twice (its pieces and its value) until the call is flushed."""
    import gc

    builder = EventBuilder(parser_factory=lambda: make_parser(flat=True))  # the flat fragments streams use
    builder.handle_part(0, ToolCall(ToolCallStart("c1", "write")))
    builder.handle_part(0, ToolCall(ArgumentChunk('{"content": "')))
    for _ in range(200):  # fewer than PIECES_EVERY: the pieces stay one str each (test_pieces.py)
        builder.handle_part(0, ToolCall(ArgumentChunk("abcdefg")))
    call = builder.call(0)

    def longest_list() -> int:  # held by the call or by its aggregator
        held = gc.get_referents(call) + gc.get_referents(call.aggregator)
        return max((len(r) for r in held if type(r) is list), default=0)

    assert longest_list() >= 200  # the open string's pieces, joined when it closes
    completed = builder.handle_part(0, ToolCall(ArgumentChunk('", "all": true')))
    assert [p.completed.value for p in completed if p.completed is not None] == ["abcdefg" * 200, True]
    assert longest_list() < 200


TOOL = {"w": {"type": "object", "properties": {"path": {"type": "string", "pattern": "^src/"}},
              "additionalProperties": False}}


@pytest.mark.parametrize("value", [{"path": "src/a"}, {"path": "/etc/passwd"}, {"path": "src/a", "mode": "x"},
                                   [1, 2], {}, {"path": "x" * 300, "deep": {"a": [None, True, 1.5]}}])
@pytest.mark.parametrize("tools", [None, TOOL])
def test_a_whole_call_gives_the_items_of_its_three_events(value, tools):
    """``ToolStreamState.whole_call`` (a call sent whole, no events built) gives the items of feeding its
    ``ToolCallStart``, ``WholeArguments`` and ``Flush``: progress, violations, the failure of a value
    that is no object, the finished call with its event."""
    from argstream.events import WholeArguments
    from argstream.stream import ToolStreamState

    def canon(items):
        return [(type(i).__name__, repr(getattr(i, "fragment", None)), getattr(i, "arguments", None),
                 repr(getattr(i, "violation", None)), repr(getattr(i, "error", None)),
                 getattr(getattr(i, "event", None), "metadata", None)) for i in items]

    fast = ToolStreamState(lambda: EventBuilder(tools=tools) if tools else EventBuilder())
    slow = ToolStreamState(lambda: EventBuilder(tools=tools) if tools else EventBuilder())
    got = fast.whole_call(3, "c1", "w", value, {"id_generated": True})
    want = (slow.feed(Part(3, ToolCall(ToolCallStart("c1", "w")))) + slow.feed(Part(3, ToolCall(WholeArguments(value))))
            + slow.feed(Flush(3, {"id_generated": True})))
    assert canon(got) == canon(want)
    assert [e.kind for e in fast.events] == [e.kind for e in slow.events]


def test_open_call_leaves_a_held_index_alone():
    """``open_call`` starts a call only at an index that holds nothing: at a held one it answers ``None``
    and the buffer there is untouched (the caller feeds the part, which tells what is wrong)."""
    builder = EventBuilder()
    builder.handle_part(0, Message("hi"))
    assert builder.open_call(0, "c1", "w") is None
    assert builder.pending() == [0] and builder.snapshot(0) == "hi" and builder.calls == {}
    call = builder.open_call(1, "c1", "w")
    assert (call.id, call.name) == ("c1", "w") and builder.calls == {1: call}


def test_open_text_opens_only_an_empty_index_as_handle_part_would():
    """``open_text`` opens a text at an index that holds nothing, as ``handle_part(index, cls(text))``
    does; at a held index it answers ``False`` and leaves the buffer alone (the caller feeds the part,
    which tells what is wrong)."""
    fast, slow = EventBuilder(), EventBuilder()
    assert fast.open_text(0, "hi", Reasoning) is True and fast.text_piece(0, " there", Reasoning)
    slow.handle_part(0, Reasoning("hi"))
    slow.handle_part(0, Reasoning(" there"))
    assert fast.handle_flush(0).kind == slow.handle_flush(0).kind == ChatReasoning("hi there")
    fast.handle_part(1, ToolCall(ToolCallStart("c1", "w")))
    assert fast.open_text(1, "x") is False and fast.open_text(2, "y") is True
    assert fast.pending() == [1, 2] and fast.tool_call(1) == ("c1", "w") and fast.snapshot(2) == "y"
