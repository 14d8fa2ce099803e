"""Hypothesis: any stream of items, in any order and with any ids, names and text, encodes to a chunk
sequence that pydantic-ai's AI SDK UI models and ``ag_ui.core.Event`` accept, in protocol order; and
any item round-trips through its JSON form."""

from __future__ import annotations

import json
from typing import Any

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from argstream import DONE, Empty, Scalar, String  # noqa: E402
from argstream.aggregate import Completed  # noqa: E402
from argstream.errors import ArgumentStreamError, DuplicateKeyError, IncompleteJSONError  # noqa: E402
from argstream.events import FinishReason, ToolCallArgumentProgress  # noqa: E402
from argstream.fragments import nest  # noqa: E402
from argstream.schema.violation import Violation  # noqa: E402
from argstream.stream import (  # noqa: E402
    ReasoningDelta, StreamFinished, StructuredDelta, TextDelta, ToolCallFailed, ToolCallFinished, ToolCallStarted,
    ToolCallViolation,
)
from argstream.ui import ag_ui_events, ai_sdk_chunks  # noqa: E402
from argstream.ui.items import (  # noqa: E402
    ApprovalAnswered, ApprovalRequested, ToolCallDecided, ToolCallDenied, ToolCallOutput,
)

from test_ui_encoders import validate_ag_ui, validate_ai_sdk  # noqa: E402

pytestmark = pytest.mark.hypothesis

text = st.text(max_size=12)
ids = st.sampled_from(["", "a", "b", "toolu_1", "a/b~c", "<x>"])
index = st.integers(0, 3)
step = st.one_of(st.sampled_from(["path", "content", "a/b", "~"]), st.integers(0, 3))
json_value = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | text,
                          lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3),
                          max_leaves=6)
leaf = st.one_of(text.filter(bool).map(String), st.sampled_from([DONE, Empty("object"), Empty("array"),
                                                                   Empty("string")]),
                 st.one_of(st.none(), st.booleans(), st.integers(), st.floats()).map(Scalar))
error = st.one_of(st.builds(ArgumentStreamError, text, st.integers(0, 99)),
                  st.builds(IncompleteJSONError, text, st.integers(0, 99)),
                  st.builds(DuplicateKeyError, text, st.integers(0, 99), key=text))
violation = st.builds(Violation, st.lists(step, max_size=2).map(tuple), text, text)


@st.composite
def progress(draw: Any) -> ToolCallArgumentProgress:
    path = tuple(draw(st.lists(step, max_size=3)))
    fragment_leaf = draw(leaf)
    completed = draw(st.none() | st.builds(Completed, st.lists(step, max_size=2).map(tuple), json_value))
    return ToolCallArgumentProgress(draw(ids), draw(text), nest(path, fragment_leaf), path, fragment_leaf, completed,
                                    draw(index))


item = st.one_of(
    st.builds(TextDelta, text, index), st.builds(ReasoningDelta, text, index), st.builds(StructuredDelta, text, index),
    st.builds(ToolCallStarted, ids, text, index), progress(),
    st.builds(ToolCallFinished, ids, text, st.dictionaries(text, json_value, max_size=3), st.none() | error, index,
              violations=st.lists(violation, max_size=1).map(tuple)),
    st.builds(ToolCallFailed, ids, text, error, index), st.builds(ToolCallViolation, ids, text, violation, index),
    st.builds(StreamFinished, st.sampled_from(list(FinishReason))),
    st.builds(ToolCallDecided, ids, text, index, st.sampled_from(["ask", "skip", "unattended"])),
    st.builds(ApprovalRequested, text, ids, text, index, st.dictionaries(text, json_value, max_size=2)),
    st.builds(ApprovalAnswered, text, ids, index, st.booleans()),
    st.builds(ToolCallDenied, ids, index, text),
    st.builds(ToolCallOutput, ids, index, json_value, st.none() | text),
)


def ai_sdk_order(chunks: list[dict[str, Any]]) -> None:
    assert chunks[0]["type"] == "start" and chunks[-1]["type"] == "finish"
    open_parts: set[str] = set()
    started: set[str] = set()
    tools: set[str] = set()
    ended: set[str] = set()
    in_step = False
    for chunk in chunks[1:-1]:
        kind = chunk["type"]
        assert kind not in ("start", "finish")
        if kind == "start-step":
            assert not in_step
            in_step = True
        elif kind == "finish-step":
            assert in_step and not open_parts
            in_step = False
        elif kind.endswith("-start") and kind != "tool-input-start":
            assert in_step and chunk["id"] not in started
            started.add(chunk["id"])
            open_parts.add(chunk["id"])
        elif kind in ("text-delta", "reasoning-delta"):
            assert chunk["id"] in open_parts
        elif kind in ("text-end", "reasoning-end"):
            open_parts.remove(chunk["id"])
        elif kind == "tool-input-start":
            assert in_step and chunk["toolCallId"] not in tools
            tools.add(chunk["toolCallId"])
        elif kind == "tool-input-delta":
            assert chunk["toolCallId"] in tools and chunk["toolCallId"] not in ended
        elif kind in ("tool-input-available", "tool-input-error"):
            assert chunk["toolCallId"] in tools and chunk["toolCallId"] not in ended
            ended.add(chunk["toolCallId"])
        elif "toolCallId" in chunk:
            assert chunk["toolCallId"] in tools
    assert not in_step and not open_parts


@settings(max_examples=150)
@given(st.lists(item, max_size=25))
def test_any_item_stream_encodes_to_valid_ordered_chunks(items: list[Any]) -> None:
    chunks = list(ai_sdk_chunks(items))
    for chunk in chunks:
        validate_ai_sdk(chunk)
    ai_sdk_order(chunks)
    events = list(ag_ui_events(items))
    for event in events:
        validate_ag_ui(event)
    assert events[0]["type"] == "RUN_STARTED" and events[-1]["type"] in ("RUN_FINISHED", "RUN_ERROR")
    assert sum(e["type"] in ("RUN_FINISHED", "RUN_ERROR") for e in events) == 1
    json.dumps(chunks, allow_nan=False)
    json.dumps(events, allow_nan=False)


@settings(max_examples=150)
@given(st.lists(item, max_size=10))
def test_any_core_item_round_trips_through_its_json_form(items: list[Any]) -> None:
    from argstream import jsonform

    for one in items:
        if type(one).__module__.startswith("argstream.ui"):
            continue  # the decision items have no JSON form of their own
        data = json.loads(json.dumps(jsonform.to_dict(one)))
        back = jsonform.from_dict(type(one), data)
        if not _has_nan(data):  # NaN (a model cannot write it; JSON has no NaN) never equals itself
            assert jsonform.to_dict(back) == jsonform.to_dict(one)
            assert back == one


def _has_nan(value: Any) -> bool:
    if isinstance(value, float):
        return value != value
    if isinstance(value, dict):
        return any(_has_nan(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_nan(v) for v in value)
    return False
