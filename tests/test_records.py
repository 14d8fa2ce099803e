"""``_records.Maker``: the library's frozen dataclasses made without their ``__init__`` are the instances
``cls(*values)`` makes (same type, the very field values, equal, same hash, repr, pickle and JSON form),
still frozen; and only classes it can make that way are taken, on either backend."""

from __future__ import annotations

import dataclasses
import pickle
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from argstream import _backend, _records_py
from argstream.aggregate import Completed
from argstream.events import (
    ArgumentChunk, ChatMessage, ChatReasoning, ChatStructured, ConversationEvent, Finished, Flush, Part, ToolCall,
    ToolCallRequest, ToolCallStart,
)
from argstream.stream import (
    ReasoningDelta, StreamFinished, StructuredDelta, TextDelta, ToolCallFinished, ToolCallStarted,
)

from conftest import REQUIRE_EXTENSION

MADE = [ToolCallStarted, TextDelta, ReasoningDelta, StructuredDelta, ToolCallFinished, StreamFinished, ToolCallRequest,
        ChatStructured, ChatMessage, ChatReasoning, ConversationEvent, Part, ToolCall, ToolCallStart, ArgumentChunk,
        Flush, Finished, Completed]
VALUES = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=5),
                   st.dictionaries(st.text(max_size=3), st.integers(), max_size=2), st.tuples(st.integers()))


def compiled_maker() -> Any:
    if _backend.records_c is None:
        if REQUIRE_EXTENSION:
            pytest.fail("ARGSTREAM_REQUIRE_EXTENSION is set but the compiled core is not in use")
        pytest.skip("the compiled core is not in use")
    return _backend.records_c.Maker


def valid(cls: type, values: list[Any]) -> list[Any]:
    """``values`` made acceptable to the classes whose ``__post_init__`` checks a field's type."""
    if cls is Part:
        values[1] = ToolCall(ArgumentChunk("x"))
    if cls is ToolCall:
        values[0] = ToolCallStart("i", "n")
    if cls is ConversationEvent:
        values[0] = ChatMessage("x")
    return values


@pytest.mark.parametrize("cls", MADE, ids=lambda c: c.__name__)
@given(data=st.data())
def test_a_made_instance_is_the_one_init_makes(cls: type, data: st.DataObject) -> None:
    maker = compiled_maker()(cls)
    values = valid(cls, [data.draw(VALUES) for _ in dataclasses.fields(cls)])
    made, built = maker(*values), cls(*values)
    assert type(made) is cls
    assert all(getattr(made, f.name) is v for f, v in zip(dataclasses.fields(cls), values))
    assert made == built and repr(made) == repr(built)
    try:
        expected_hash: Any = hash(built)
    except TypeError:  # a dict among the values
        with pytest.raises(TypeError):
            hash(made)
    else:
        assert hash(made) == expected_hash
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(made, dataclasses.fields(cls)[0].name, 1)
    if all(type(v) is not dict for v in values):
        assert pickle.loads(pickle.dumps(made)) == built


def test_the_library_makes_each_class_the_same_way_on_either_backend() -> None:
    for cls in MADE:
        assert _records_py.maker(cls) is cls  # the twin: the class itself, its __init__ runs
        if _backend.records_c is not None:
            assert repr(_backend.records_c.Maker(cls)) == f"Maker({cls.__qualname__})"


@dataclasses.dataclass(frozen=True, slots=True)
class _Fine:
    a: int
    b: str = ""


@dataclasses.dataclass(frozen=True)
class _NoSlots:
    a: int


@dataclasses.dataclass(slots=True)
class _NotFrozen:
    a: int


@dataclasses.dataclass(frozen=True, slots=True)
class _NotInit:
    a: int
    b: int = dataclasses.field(default=0, init=False)


@dataclasses.dataclass(frozen=True, slots=True)
class _OwnNew:
    a: int

    def __new__(cls, *args: Any) -> Any:
        return super().__new__(cls)


class _Plain:
    __slots__ = ("a",)


@pytest.mark.parametrize("cls", [_NoSlots, _NotFrozen, _NotInit, _OwnNew, _Plain, int, dict], ids=repr)
def test_any_other_class_is_refused_on_either_backend(cls: type) -> None:
    with pytest.raises(TypeError):
        _records_py.maker(cls)
    if _backend.records_c is not None:
        with pytest.raises(TypeError):
            _backend.records_c.Maker(cls)


def test_every_field_is_given() -> None:
    maker = compiled_maker()(_Fine)
    assert maker(1, "x") == _Fine(1, "x")
    for values in [(1,), (1, "x", 2), ()]:
        with pytest.raises(TypeError, match="takes 2 values"):
            maker(*values)


def test_a_maker_made_by_new_alone_makes_nothing() -> None:
    maker_type = compiled_maker()
    empty = maker_type.__new__(maker_type)
    with pytest.raises(TypeError, match="no class"):
        empty()


_WRONG_TYPES = {
    "a Gemini call id that is a number": ("gemini", [{"candidates": [{"content": {"parts": [
        {"functionCall": {"id": 7, "name": "fs", "args": {"a": 1}}}]}, "finishReason": "STOP"}]}]),
    "a Gemini call name that is a list": ("gemini", [{"candidates": [{"content": {"parts": [
        {"functionCall": {"name": ["fs"], "args": {"a": 1}}}]}, "finishReason": "STOP"}]}]),
    "a Gemini text that is a number": ("gemini", [{"candidates": [{"content": {"parts": [{"text": 5}]},
                                                                 "finishReason": "STOP"}]}]),
    "an Ollama call name that is a number": ("ollama", [{"message": {"role": "assistant", "content": "", "tool_calls": [
        {"function": {"name": 3, "arguments": {"a": 1}}}]}, "done": True, "done_reason": "stop"}]),
    "an Ollama content that is an object": ("ollama", [{"message": {"role": "assistant", "content": {"x": 1}},
                                                        "done": True, "done_reason": "stop"}]),
    # the delta adapters' general way makes its call, flush and finish events through the makers too
    "an Anthropic call id that is a number": ("anthropic", [{"type": "content_block_start", "index": 0,
                                                             "content_block": {"type": "tool_use", "id": 7,
                                                                               "name": "fs", "input": {}}}]),
    "an Anthropic tool name that is a list": ("anthropic", [{"type": "content_block_start", "index": 0,
                                                             "content_block": {"type": "tool_use", "id": "t",
                                                                               "name": ["fs"], "input": {}}}]),
    "a Chat call id that is an object": ("openai_chat", [{"id": "r", "choices": [{"index": 0, "delta": {"tool_calls": [
        {"index": 0, "id": {"x": 1}, "function": {"name": "fs", "arguments": "{}"}}]}}]}]),
    "Chat arguments that are a list": ("openai_chat", [{"id": "r", "choices": [{"index": 0, "delta": {"tool_calls": [
        {"index": 0, "id": "c", "function": {"name": "fs", "arguments": ["{}"]}}]}}]}]),
    "a Responses call name that is a number": ("openai_responses", [{"type": "response.output_item.added",
                                                                      "output_index": 0, "item": {
        "type": "function_call", "id": "fc", "call_id": "c", "name": 5, "arguments": ""}}]),
}


@pytest.mark.parametrize("case", list(_WRONG_TYPES))
def test_hostile_field_types_still_fail_where_events_skip_their_init(case: str) -> None:
    """The whole-call and text events are made without ``__post_init__``: a model's wire item with a
    field of the wrong type still ends the stream with ``ProviderProtocolError``, after
    ``StreamFinished(ERROR)``, and no call is finished."""
    from argstream import StreamFinished, ToolCallFinished, iter_tool_stream
    from argstream.events import FinishReason
    from argstream.providers import ProviderProtocolError

    provider, items = _WRONG_TYPES[case]
    got: list[Any] = []
    with pytest.raises(ProviderProtocolError, match="wire item 0"):
        for item in iter_tool_stream(items, provider):
            got.append(item)
    assert type(got[-1]) is StreamFinished and got[-1].reason is FinishReason.ERROR
    assert not any(type(item) is ToolCallFinished for item in got)


# -- the timestamp of a flushed event -----------------------------------------------------------------

#: microseconds from 0001-01-01 to 9999-12-31 23:59:59.999999, the years ``datetime`` holds
_FIRST_US = -62_135_596_800_000_000
_LAST_US = 253_402_300_799_999_999


@given(st.one_of(st.integers(_FIRST_US, _LAST_US),
                 st.sampled_from([_FIRST_US, _LAST_US, 0, -1, 1, 951_782_400_000_000, 4_107_542_400_000_000 - 1,
                                  -2_208_988_800_000_000, 1_700_000_000_123_456, -86_400_000_000, -86_399_999_999])))
def test_the_compiled_date_of_a_timestamp_is_the_datetime_module_s(us: int) -> None:
    """``utc_from_microseconds`` works the civil date out itself (leap days, centuries, the 400-year
    cycle, times before 1970): every microsecond of ``datetime``'s range gives the instance that
    ``datetime``'s own arithmetic gives, aware, in UTC."""
    compiled_maker()  # (skips without the compiled core)
    made = _backend.records_c.utc_from_microseconds(us)
    expected = _records_py.utc_from_microseconds(us)
    assert made == expected
    assert (made.year, made.month, made.day, made.hour, made.minute, made.second, made.microsecond) == (
        expected.year, expected.month, expected.day, expected.hour, expected.minute, expected.second,
        expected.microsecond)
    assert made.tzinfo is expected.tzinfo and made.fold == 0 and type(made) is type(expected)


def test_a_flushed_event_is_stamped_now_in_utc_on_either_backend() -> None:
    """The builder stamps each flushed event with ``datetime.now(timezone.utc)``: the compiled clock
    reads the same clock and gives the same kind of instance."""
    from datetime import datetime, timezone

    from argstream.builder import EventBuilder
    from argstream.events import Flush, Message, Part

    for now in filter(None, (_backend.utc_now, _records_py.utc_now,
                             getattr(_backend.records_c, "utc_now", None))):
        before = datetime.now(timezone.utc)
        stamp = now()
        after = datetime.now(timezone.utc)
        assert before <= stamp <= after and stamp.tzinfo is timezone.utc and type(stamp) is datetime
    builder = EventBuilder()
    builder.handle(Part(0, Message("hi")))
    before = datetime.now(timezone.utc)
    event = builder.handle(Flush(0))
    assert before <= event.timestamp <= datetime.now(timezone.utc) and event.timestamp.tzinfo is timezone.utc
