"""The event types of RFD 012: streaming parts and persisted kinds never mix; values compare by value."""

from __future__ import annotations

import dataclasses

import pytest

import argstream.events as ev
from argstream import ArgumentStreamError, ObjectEntry, String


def test_part_holds_only_streaming_parts():
    assert ev.Part(0, ev.Message("hi")).metadata == {}
    with pytest.raises(TypeError):
        ev.Part(0, ev.ChatMessage("persisted kinds are not parts"))
    with pytest.raises(TypeError):
        ev.Part(0, "text")


def test_tool_call_holds_only_tool_call_parts():
    ev.ToolCall(ev.ToolCallStart("id", "name"))
    ev.ToolCall(ev.ArgumentChunk("{"))
    with pytest.raises(TypeError):
        ev.ToolCall(ev.Message("x"))


def test_conversation_event_holds_only_persisted_kinds():
    event = ev.ConversationEvent(ev.ChatMessage("done"))
    assert event.timestamp.tzinfo is not None
    assert event.metadata == {}
    with pytest.raises(TypeError):
        ev.ConversationEvent(ev.Message("streaming parts are not persisted"))


def test_values_are_frozen_and_compare_by_value():
    assert ev.Part(1, ev.Reasoning("r"), {"signature": "s"}) == ev.Part(1, ev.Reasoning("r"), {"signature": "s"})
    assert ev.Flush(2) == ev.Flush(2, {})
    assert hash(ev.ToolCallStart("a", "b")) == hash(ev.ToolCallStart("a", "b"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        ev.Message("x").text = "y"  # type: ignore[misc]


def test_finished_reason_and_optional_metadata():
    assert ev.Finished(ev.FinishReason.TOOL_USE) == ev.Finished(ev.FinishReason.TOOL_USE, {})
    finished = ev.Finished(ev.FinishReason.ERROR, {"error": {"type": "overloaded_error"}})
    assert finished.metadata["error"]["type"] == "overloaded_error"
    names = {r.name for r in ev.FinishReason}
    assert {"COMPLETED", "TOOL_USE", "MAX_TOKENS", "REFUSAL", "ERROR", "CANCELLED"} <= names


def test_tool_call_request_and_structured_carry_an_optional_error():
    assert ev.ToolCallRequest("id", "f", {}).error is None
    error = ArgumentStreamError("Expecting value", 3)
    assert ev.ToolCallRequest("id", "f", {}, error).error is error
    assert ev.ChatStructured({"a": 1}).error is None
    assert ev.ChatStructured(None, error).error is error


def test_match_args_allow_structural_matching():
    progress = ev.ToolCallArgumentProgress("toolu_1", "fs_create_file", ObjectEntry("path", String("a")))
    match progress:
        case ev.ToolCallArgumentProgress(_, "fs_create_file", ObjectEntry("path", String(text))):
            assert text == "a"
        case _:
            pytest.fail("no match")
    match ev.Part(0, ev.ToolCall(ev.ToolCallStart("i", "n"))):
        case ev.Part(index, ev.ToolCall(ev.ToolCallStart(call_id, name))):
            assert (index, call_id, name) == (0, "i", "n")
        case _:
            pytest.fail("no match")
