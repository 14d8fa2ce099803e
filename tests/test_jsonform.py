"""The JSON form: every item, event, fragment (both backends) and error round-trips to an equal object."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from argstream import _backend, _fragments_py, iter_tool_stream, jsonform
from argstream.aggregate import Completed
from argstream.builder import EventBuilder
from argstream.errors import ArgumentStreamError, DuplicateKeyError, IncompleteJSONError
from argstream.events import (
    ArgumentChunk, ChatMessage, ChatReasoning, ChatStructured, ConversationEvent, Finished, FinishReason, Flush,
    Message, Part, Reasoning, Structured, ToolCall, ToolCallArgumentProgress, ToolCallRequest, ToolCallStart,
)
from argstream.schema.violation import Violation
from argstream.stream import StreamFinished, ToolCallFailed, ToolCallFinished, ToolCallViolation

from _provider_runs import FOLDERS, expected_of, read_recording
from test_ui_encoders import anthropic_wire


def round_trip(obj: Any) -> Any:
    data = jsonform.to_dict(obj)
    back = jsonform.from_dict(type(obj), json.loads(json.dumps(data)))
    assert back == obj and type(back) is type(obj)
    assert jsonform.to_dict(back) == data  # fields outside equality (path, leaf, completed, index) survive too
    return back


def test_items_of_every_recording_round_trip(make_parser) -> None:
    factory = lambda: EventBuilder(parser_factory=lambda: make_parser(catch_duplicate_keys=True))  # noqa: E731
    count = 0
    for folder in FOLDERS:
        expected = expected_of(folder)
        for key in sorted(expected):
            fmt = expected[key]["format"]
            try:
                for item in iter_tool_stream(read_recording(folder, key, expected[key]), fmt, builder_factory=factory):
                    back = round_trip(item)
                    assert type(item).from_dict(item.to_dict()) == item
                    assert jsonform.load(item.to_dict()) == back
                    count += 1
            except Exception as exc:  # noqa: BLE001 - a recording the adapter rejects ends its items
                assert type(exc).__name__ == "ProviderProtocolError"
    if count == 0:
        pytest.skip("no recordings")


def test_fragments_of_both_backends(make_parser, fragment_types) -> None:
    fragments = make_parser().push('{"a": [1, "x\\u00e9", {}, [], "", null, true, 2.5e3]}')
    assert fragments
    for fragment in fragments:
        back = round_trip(fragment)
        assert type(back) is type(fragment)
    nested = fragment_types.ObjectEntry("k", fragment_types.ArrayItem(3, fragment_types.String("s")))
    back = jsonform.from_dict(type(nested), jsonform.to_dict(nested))
    assert type(back.value.value) is fragment_types.String
    for module in filter(None, (_fragments_py, _backend.fragments_c)):  # either backend's classes decode either's data
        assert jsonform.from_dict(module.String, {"type": "String", "text": "z"}) == _fragments_py.String("z")


def test_errors_violations_and_events() -> None:
    duplicate = DuplicateKeyError("duplicate key", 12, 1, 13, key="path")
    duplicate.fragments = [_fragments_py.String("a")]
    errors = [ArgumentStreamError("Expecting value", 3, 2, 1), IncompleteJSONError("ended", 9), duplicate]
    for error in errors:
        back = round_trip(error)
        assert (back.msg, back.pos, back.line, back.col) == (error.msg, error.pos, error.line, error.col)
    assert round_trip(duplicate).key == "path" and round_trip(duplicate).fragments == duplicate.fragments
    violation = Violation(("patterns", 0, "paths"), "maxLength", "too long", 17, "/properties/x")
    round_trip(violation)
    stamp = datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=timezone(timedelta(hours=-5)))
    request = ToolCallRequest("c", "t", {"a": [1, None]}, errors[2], (violation,))
    events = [
        ConversationEvent(ChatMessage("hi"), stamp, {"id": "x"}), ConversationEvent(ChatReasoning("r"), stamp),
        ConversationEvent(ChatStructured({"k": 1}, errors[0]), stamp), ConversationEvent(request, stamp),
    ]
    for event in events:
        assert round_trip(event).timestamp == stamp
    items = [
        ToolCallFailed("c", "t", errors[1], 2), ToolCallViolation("c", "t", violation, 1),
        ToolCallFinished("c", "t", {"a": 1}, errors[2], 3, events[3], (violation,)),
        StreamFinished(FinishReason.PAUSED, tuple(events), (events[0],), {"stop_reason": "pause_turn"}),
        Part(0, Message("m")), Part(1, Reasoning("r")), Part(2, Structured("{")),
        Part(3, ToolCall(ToolCallStart("id", "name")), {"k": "v"}), Part(3, ToolCall(ArgumentChunk('{"a'))),
        Flush(3, {"k": 1}), Finished(FinishReason.ERROR, {"error": {"message": "x"}}),
    ]
    for item in items:
        round_trip(item)
    for reason in FinishReason:
        assert FinishReason.from_dict(json.loads(json.dumps(reason.to_dict()))) is reason


def test_progress_keeps_path_leaf_and_completed() -> None:
    items = list(iter_tool_stream(anthropic_wire(['{"path": "src/a', '.py", "n": [1]}'])))
    progress = [i for i in items if type(i) is ToolCallArgumentProgress]
    for item in progress:
        back = round_trip(item)
        assert (back.path, back.leaf, back.completed, back.index) == (item.path, item.leaf, item.completed, item.index)
    assert any(p.completed == Completed(("path",), "src/a.py") for p in progress)
    data = progress[0].to_dict()
    assert set(data) == {"type", "tool_call_id", "tool_name", "index", "path", "leaf", "completed"}


@pytest.mark.parametrize("bad", [
    None, [], "x", {}, {"type": "TextDelta"}, {"type": "TextDelta", "text": 1, "index": 0},
    {"type": "TextDelta", "text": "a", "index": True}, {"type": "ReasoningDelta", "text": "a", "index": 0},
    {"type": "String", "text": ""}, {"type": "ToolCallArgumentProgress", "tool_call_id": "c", "tool_name": "t",
                                     "index": 0, "path": [1.5], "leaf": {"type": "Done"}, "completed": None},
    {"type": "ToolCallArgumentProgress", "tool_call_id": "c", "tool_name": "t", "index": 0, "path": [],
     "leaf": {"type": "ObjectEntry", "key": "a", "value": {"type": "Done"}}, "completed": None},
    {"type": "ConversationEvent", "kind": {"type": "ChatMessage", "text": "x"}, "timestamp": "yesterday"},
    {"type": "StreamFinished", "reason": "exploded"},
    {"type": "ToolCallFailed", "id": "c", "name": "t", "error": None, "index": 0},
])
def test_bad_data_raises_value_error(bad: Any) -> None:
    target = {"String": _fragments_py.String, "ToolCallArgumentProgress": ToolCallArgumentProgress,
              "ConversationEvent": ConversationEvent, "StreamFinished": StreamFinished,
              "ToolCallFailed": ToolCallFailed}.get(bad.get("type") if isinstance(bad, dict) else None)
    from argstream.stream import TextDelta

    with pytest.raises(ValueError):
        jsonform.from_dict(target or TextDelta, bad)
    if not (isinstance(bad, dict) and bad.get("type") == "ReasoningDelta"):  # that one is a valid ReasoningDelta
        with pytest.raises(ValueError):
            jsonform.load(bad if isinstance(bad, dict) and bad.get("type") else {"type": "Nope"})


def test_no_form_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        jsonform.to_dict(object())
    with pytest.raises(TypeError):
        jsonform.from_dict(dict, {})
