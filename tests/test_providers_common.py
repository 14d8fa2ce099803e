"""The shared adapter machinery: field access over dicts and SDK objects, and the drivers' guarantees."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from argstream.events import ArgumentChunk, Finished, FinishReason, Flush, Message, Part, ToolCall, ToolCallStart
from argstream.providers._common import (
    Adapter,
    ProviderProtocolError,
    Slots,
    adrive,
    drive,
    fields,
    finish_reason,
    get,
    get_list,
    json_text,
    plain,
    text_field,
)


def models():
    """A pydantic model that keeps extras (as the SDKs' do) and one that does not."""
    pydantic = pytest.importorskip("pydantic")

    class Delta(pydantic.BaseModel):
        model_config = pydantic.ConfigDict(extra="allow")
        content: str | None = None
        tool_calls: list | None = None

    class Strict(pydantic.BaseModel):
        content: str | None = None

        @property
        def computed(self) -> str:
            return "not a wire field"

    return Delta, Strict


def test_get_reads_dicts_objects_and_pydantic_extras():
    Delta, Strict = models()
    delta = Delta.model_validate({"content": "hi", "reasoning_content": "hm"})
    assert get(delta, "content") == "hi"
    assert get(delta, "reasoning_content") == "hm"  # model_extra
    assert get(delta, "tool_calls", "x") == "x"  # a declared field that is None
    assert get(delta, "missing", 0) == 0
    assert get(Strict(content="c"), "content") == "c"
    assert get(Strict(), "computed") is None  # pydantic objects: fields and extras only
    assert get({"a": None}, "a", 1) == 1
    assert get({"a": 0}, "a", 1) == 0
    assert get(SimpleNamespace(a="b"), "a") == "b"
    assert get(None, "a", "d") == "d"

    class Props:
        @property
        def value(self):
            return 5

    assert get(Props(), "value") == 5


def test_fields_is_one_mapping_of_every_field():
    Delta, Strict = models()
    delta = Delta.model_validate({"content": "hi", "reasoning_content": "hm"})
    f = fields(delta)
    assert f["content"] == "hi" and f["reasoning_content"] == "hm" and f.get("tool_calls") is None
    assert fields(Strict(content="c")) == {"content": "c"}
    d = {"a": 1}
    assert fields(d) is d
    assert fields(None) == {}
    view = fields(SimpleNamespace(a=1))
    assert view["a"] == 1 and view.get("b") is None

    class Slotted:
        __slots__ = ("x",)

        def __init__(self):
            self.x = 2

    slotted = fields(Slotted())
    assert slotted["x"] == 2 and slotted.get("y") is None and dict(slotted) == {"x": 2}


def test_a_field_of_its_own_wins_over_an_extra_of_its_name():
    """Extras set by hand under a declared field's name (pydantic never puts one there): ``get`` and
    ``fields`` read the object's own field, as attribute access does, and the fast tests' twins."""
    Delta, _ = models()
    delta = Delta.model_validate({"content": "hi", "reasoning_content": "hm"})
    delta.__pydantic_extra__.update({"content": "shadow", "tool_calls": ["shadow"]})
    assert delta.content == "hi" and delta.tool_calls is None
    assert get(delta, "content") == "hi" and get(delta, "tool_calls") is None
    f = fields(delta)
    assert f["content"] == "hi" and f["tool_calls"] is None and f["reasoning_content"] == "hm"
    assert list(f) == ["content", "tool_calls", "reasoning_content"]  # its own fields first, as before


def test_get_list_and_plain():
    assert get_list({"a": None}, "a") == ()
    assert get_list({"a": [1]}, "a") == [1]
    assert json_text({"p": "é", "n": [1, None]}) == '{"p":"é","n":[1,null]}'
    Delta, _ = models()
    delta = Delta.model_validate({"content": "x", "extra": {"k": [1, 2]}})
    assert plain({"d": delta, "t": (1, 2)}) == {"d": {"content": "x", "extra": {"k": [1, 2]}}, "t": [1, 2]}


def test_slots_hand_out_indexes_in_order():
    slots = Slots()
    assert [slots("a"), slots(("t", 3)), slots("a"), slots("b")] == [0, 1, 0, 2]
    assert "a" in slots and len(slots) == 3
    slots.reset()
    assert slots("b") == 0


@pytest.mark.parametrize(
    "reason, tools, expected",
    [
        (None, False, FinishReason.COMPLETED),
        (None, True, FinishReason.TOOL_USE),
        (FinishReason.COMPLETED, True, FinishReason.TOOL_USE),
        (FinishReason.MAX_TOKENS, True, FinishReason.MAX_TOKENS),
        (FinishReason.ERROR, True, FinishReason.ERROR),
        (FinishReason.REFUSAL, False, FinishReason.REFUSAL),
    ],
)
def test_finish_reason(reason, tools, expected):
    assert finish_reason(reason, tools) is expected


class Echo(Adapter):
    """Each item is a list of events to emit; None at the end of input."""

    def __init__(self, at_end=()):
        self.at_end = list(at_end)

    def feed(self, item):
        return list(item)

    def end(self):
        return self.at_end


PART, FLUSH, DONE = Part(0, Message("x")), Flush(0), Finished(FinishReason.COMPLETED)


@pytest.mark.parametrize(
    "items, at_end, expected",
    [
        ([], [], [Finished(FinishReason.ERROR)]),
        ([[PART]], [], [PART, Finished(FinishReason.ERROR)]),
        ([[PART, FLUSH], [DONE]], [], [PART, FLUSH, DONE]),
        ([[PART]], [FLUSH, DONE], [PART, FLUSH, DONE]),
        ([[DONE], [PART]], [], [DONE, PART, Finished(FinishReason.ERROR)]),  # a second response, cut
    ],
)
def test_drive_always_ends_with_finished(items, at_end, expected):
    assert list(drive(Echo(at_end), items)) == expected


class Boom(Exception):
    pass


def raising(items):
    yield from items
    raise Boom()


def test_drive_error_then_reraise():
    seen = []
    with pytest.raises(Boom):
        for event in drive(Echo(), raising([[PART]])):
            seen.append(event)
    assert seen == [PART, Finished(FinishReason.ERROR)]
    seen = []
    with pytest.raises(Boom):
        for event in drive(Echo(), raising([[PART, FLUSH, DONE]])):
            seen.append(event)
    assert seen == [PART, FLUSH, DONE]  # already finished: no second Finished


def test_drive_adapter_errors_become_the_one_documented_error():
    class Broken(Adapter):
        def feed(self, item):
            raise KeyError("bad item")

    seen = []
    with pytest.raises(ProviderProtocolError, match="bad item") as info:
        for event in drive(Broken(), [1]):
            seen.append(event)
    assert info.value.event == 0 and isinstance(info.value.__cause__, KeyError)
    assert [e.reason for e in seen] == [FinishReason.ERROR]
    assert seen[0].metadata["error"]["type"] == "protocol_error"


def test_drive_names_the_wire_item_of_each_error():
    """The position is the failing item's (0-based); the end's is the count of items; causes are kept."""
    class Late(Adapter):
        def feed(self, item):
            if item == "own":
                raise ProviderProtocolError("an impossible sequence")
            if item == "other":
                raise ValueError("hostile")
            return [] if item is None else list(item)

        def end(self):
            raise ProviderProtocolError("cut short")

    for items, message, event, cause in (
        ([None, None, "own"], "an impossible sequence", 2, None),
        ([None, "other"], "malformed wire item: ValueError: hostile", 1, ValueError),
        ([None, [PART], None], "cut short", 3, None),
    ):
        with pytest.raises(ProviderProtocolError) as info:
            list(drive(Late(), items))
        assert info.value.msg == message and info.value.event == event
        assert str(info.value).endswith(f"(wire item {event})")
        assert (cause is None and info.value.__cause__ is None) or isinstance(info.value.__cause__, cause)


def test_drive_refuses_an_adapter_that_returns_no_list():
    class Broken(Adapter):
        def feed(self, item):
            return None

    seen = []
    with pytest.raises(ProviderProtocolError, match="malformed wire item: TypeError"):
        for event in drive(Broken(), [1]):
            seen.append(event)
    assert [e.reason for e in seen] == [FinishReason.ERROR]


def test_a_bad_event_after_a_finish_in_one_item_still_finishes_the_stream():
    """Every event of an item is checked before any goes on, so a Finished followed by a bad event in
    the same item passes nothing and the stream still gets its Finished(ERROR)."""
    seen = []
    with pytest.raises(ProviderProtocolError):
        for event in drive(Echo(), [[PART], [DONE, Part(0, Message(5))]]):
            seen.append(event)
    assert seen == [PART, Finished(FinishReason.ERROR, seen[-1].metadata)]


@pytest.mark.parametrize("bad", [
    Part(0, Message(5)),
    Part(0, ToolCall(ArgumentChunk({"a": 1}))),
    Part(0, ToolCall(ToolCallStart(["id"], "n"))),
    Part("0", Message("x")),
    Flush(None),
    "not an event",
])
def test_drive_rejects_events_with_wrong_types(bad):
    seen = []
    with pytest.raises(ProviderProtocolError):
        for event in drive(Echo(), [[PART], [bad, FLUSH]]):
            seen.append(event)
    assert seen == [PART, Finished(FinishReason.ERROR, seen[-1].metadata)]


def test_drive_ends_the_stream_at_the_first_error_finish():
    error = Finished(FinishReason.ERROR)
    read = []

    def source():
        for batch in ([PART], [error, PART], [FLUSH], [DONE]):
            read.append(batch)
            yield batch

    assert list(drive(Echo(), source())) == [PART, error]
    assert len(read) == 2  # nothing read after the error


def test_get_rejects_scalars_where_objects_or_lists_belong():
    with pytest.raises(ProviderProtocolError):
        get("text", "index")
    with pytest.raises(ProviderProtocolError):
        fields(5)
    with pytest.raises(ProviderProtocolError):
        get_list({"a": {"k": 1}}, "a")
    with pytest.raises(ProviderProtocolError):
        text_field({"t": 3}, "t")
    assert text_field({}, "t") == "" and get_list({"a": [1]}, "a") == [1]


def test_drive_stopped_by_the_consumer_adds_nothing():
    gen = drive(Echo(), [[PART], [FLUSH]])
    assert next(gen) == PART
    gen.close()  # no Finished forced on a consumer that stopped


async def test_adrive_async_and_plain():
    async def source():
        yield [PART]
        raise Boom()

    seen = []
    with pytest.raises(Boom):
        async for event in adrive(Echo(), source()):
            seen.append(event)
    assert seen == [PART, Finished(FinishReason.ERROR)]
    assert [e async for e in adrive(Echo([DONE]), [[PART]])] == [PART, DONE]
