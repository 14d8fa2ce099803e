"""Arguments a provider sends whole (Gemini ``args``, Ollama ``arguments``, a whole Anthropic or Responses
input) reach the fused pipeline's call as the decoded value (``WholeArguments``), whose fragments are
read from the value itself, not written as compact JSON text and parsed back.

The contract: the same items as the text. ``ArgumentCall.push_value(value)`` against ``push`` of the
value's compact text, for random and hostile values (lone surrogates, numbers beyond 64 bits, NaN,
nesting deeper than the parser allows, dict subclasses), on both ``ArgumentCall`` backends and both
parsers; and whole streams of Gemini and Ollama through the pipeline against the generic path, whose
public events carry the text.
"""

from __future__ import annotations

import collections
import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_pipeline_fastpath import canon, canon_event

from argstream import EventBuilder, _backend, _calls_py
from argstream.aggregate import FragmentAggregator
from argstream.events import ArgumentChunk, Flush, Part, ToolCall, ToolCallStart, WholeArguments
from argstream.policy import RunMode, TurnCoordinator
from argstream.providers import gemini, ollama
from argstream.stream import ToolCallArgumentProgress, iter_tool_stream, pipeline_for, ToolStreamState

CALLS = {"compiled": _backend.ArgumentCall, "twin": _calls_py.ArgumentCall}
PROGRESS = {"compiled": _backend.ToolCallArgumentProgress, "twin": _calls_py.ToolCallArgumentProgress}

hostile_text = st.text(max_size=8) | st.sampled_from(["\ud800", "a\udfffb", "\U0001F600\udc00", "\u0100", "é\n\""])
hostile_scalars = (st.none() | st.booleans() | st.integers() | st.integers(-2**64, 2**64)
                   | st.floats(allow_nan=True, allow_infinity=True) | hostile_text)
hostile_values = st.recursive(
    hostile_scalars,
    lambda inner: (st.lists(inner, max_size=3) | st.lists(inner, max_size=2).map(tuple)
                   | st.dictionaries(hostile_text, inner, max_size=3)
                   | st.dictionaries(st.text(max_size=3), inner, max_size=2).map(collections.OrderedDict)),
    max_leaves=10,
)

#: values the walk takes: plain text, numbers within 64 bits, finite floats
plain_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**63, 2**63 - 1) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(exclude_categories=("Cs",)), max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=10,
)



def nested(depth: int, leaf: Any = 1) -> Any:
    value = leaf
    for n in range(depth):
        value = [value] if n % 2 else {"k": value}
    return value


def items_of(out: list[Any]) -> list[Any]:
    return [(i.path, repr(i.leaf), type(i.leaf).__name__, None if i.completed is None else
             (i.completed.path, json.dumps(i.completed.value)), repr(i.fragment)) for i in out]


def call(kind: str, make_parser: Any, max_depth: int) -> Any:
    parser = make_parser(catch_duplicate_keys=True, max_depth=max_depth, flat=True)
    return CALLS[kind](parser, FragmentAggregator(), PROGRESS[kind], 0)


def state_of(c: Any) -> Any:
    error = None if c.error is None else type(c.error).__name__
    value = json.dumps(c.aggregator.value) if c.aggregator.done else None
    return error, c.seen, value


@pytest.mark.parametrize("kind", sorted(CALLS))
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=hostile_values, max_depth=st.integers(1, 6), more=st.sampled_from(["", " ", "\n", "1", "}"]))
def test_a_value_gives_the_items_of_its_text(kind: str, value: Any, max_depth: int, more: str,
                                             make_parser: Any) -> None:
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except ValueError:  # an int json will not write: not a value any provider's JSON decodes to
        return
    by_value, by_text = call(kind, make_parser, max_depth), call(kind, make_parser, max_depth)
    assert items_of(by_value.push_value(value)) == items_of(by_text.push(text))
    assert state_of(by_value) == state_of(by_text)
    # what follows the value: whitespace is nothing, anything else breaks the arguments, either way
    assert items_of(by_value.push(more)) == items_of(by_text.push(more))
    assert (by_value.error is None) == (by_text.error is None)


@pytest.mark.parametrize("kind", sorted(CALLS))
def test_the_value_is_read_from_the_value(kind: str, make_parser: Any) -> None:
    """A walked call hands on the wire's own strings (no text written, no copy parsed out of it)."""
    content = "line\n" * 1000 + "\U0001F600"
    value = {"path": "a.py", "content": content, "n": [1, 2.5, None, True, {}]}
    c = call(kind, make_parser, 64)
    out = c.push_value(value)
    texts = [i.leaf.text for i in out if type(i.leaf).__name__ == "String"]
    assert any(t is content for t in texts)
    assert c.aggregator.value == value and c.aggregator.value["content"] is content


@pytest.mark.parametrize("value", [
    {"s": "\ud800"}, {"\udfff": 1}, {"n": 10**40}, {"x": float("nan")}, {"x": float("-inf")},
    collections.OrderedDict(a=1), nested(70), nested(300), 5, 2.5, "text", [],
])
@pytest.mark.parametrize("kind", sorted(CALLS))
def test_what_the_walk_declines_is_parsed_from_its_text(kind: str, value: Any, make_parser: Any) -> None:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    by_value, by_text = call(kind, make_parser, 64), call(kind, make_parser, 64)
    assert items_of(by_value.push_value(value)) == items_of(by_text.push(text))
    assert state_of(by_value) == state_of(by_text)
    if by_text.error is not None:
        assert (by_value.error.msg, by_value.error.pos) == (by_text.error.msg, by_text.error.pos)


class Recorder:
    """A validator that keeps what each push feeds it (fragments, spans, keys) and proves nothing."""

    def __init__(self) -> None:
        self.fed: list[Any] = []
        self.violations: list[Any] = []

    def extend(self, fragments: Any, spans: Any = None, keys: Any = None) -> Any:
        self.fed.append(([repr(f) for f in fragments], None if spans is None else list(spans),
                         None if keys is None else [tuple(k) for k in keys]))
        return ()


def checked_call(kind: str, make_parser: Any, validator: Any, spans: bool = True) -> Any:
    parser = make_parser(catch_duplicate_keys=True, max_depth=64, flat=True, spans=spans)
    c = CALLS[kind](parser, FragmentAggregator(), PROGRESS[kind], 0)
    c.validator = validator
    c.spans = spans
    return c


@pytest.mark.parametrize("spans", [True, False])
@pytest.mark.parametrize("kind", sorted(CALLS))
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=hostile_values)
def test_a_checked_value_feeds_its_check_what_its_text_would(kind: str, spans: bool, value: Any,
                                                             make_parser: Any) -> None:
    """With a schema check the walk also gives the spans and keys the parser records for the text, so a
    violation names the offset the text would have given (and nothing is written or parsed)."""
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except ValueError:
        return
    by_value = checked_call(kind, make_parser, Recorder(), spans)
    by_text = checked_call(kind, make_parser, Recorder(), spans)
    assert items_of(by_value.push_value(value)) == items_of(by_text.push(text))
    assert by_value.validator.fed == by_text.validator.fed
    assert state_of(by_value) == state_of(by_text)


SCHEMA = {"type": "object", "additionalProperties": False, "required": ["a", "n"], "properties": {
    "a": {"type": "string", "maxLength": 3, "pattern": "^[a-z\"]*$"},
    "é": {"enum": ["x", "\n"]},
    "n": {"type": "array", "maxItems": 2, "items": {"type": "integer", "maximum": 5}},
    "o": {"type": "object", "properties": {"k": {"type": "boolean"}}, "additionalProperties": {"type": "null"}},
}}
schema_keys = st.sampled_from(["a", "é", "n", "o", "k", "z\t", "\"q"])
schema_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10, 10) | st.floats(-1e20, 1e20) | st.sampled_from(
        ["", "ab", "abcd", "x", "\n", "a\"b", "é\u0001", "\U0001F600"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(schema_keys, inner, max_size=4),
    max_leaves=12,
)


@pytest.mark.parametrize("kind", sorted(CALLS))
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=st.dictionaries(schema_keys, schema_values, max_size=5))
def test_a_checked_value_gets_the_violations_of_its_text(kind: str, value: Any, make_parser: Any) -> None:
    from argstream.schema import Schema

    schema = Schema(SCHEMA)
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    by_value = checked_call(kind, make_parser, schema.validator())
    by_text = checked_call(kind, make_parser, schema.validator())
    assert items_of(by_value.push_value(value)) == items_of(by_text.push(text))
    assert by_value.validator.violations == by_text.validator.violations
    assert state_of(by_value) == state_of(by_text)


@pytest.mark.parametrize("kind", sorted(CALLS))
def test_a_checked_value_is_read_from_the_value(kind: str, make_parser: Any) -> None:
    from argstream.schema import Schema

    content = "é\n" * 1000
    c = checked_call(kind, make_parser, Schema(SCHEMA).validator())
    out = c.push_value({"a": "abcd", "n": [1, 7], "content": content})
    assert any(getattr(i.leaf, "text", None) is content for i in out)
    # offsets into {"a":"abcd","n":[1,7],"content":...: the 'd', the ']' that ends the 7, the key's quote
    offsets = [(v.path, v.keyword, v.offset) for v in c.validator.violations]
    assert offsets == [(("a",), "maxLength", 9), (("n", 1), "maximum", 20), (("content",), "additionalProperties", 30)]


def test_walkable_twins_agree() -> None:
    values = [{"a": "\ud800"}, {"a": 2**63 - 1}, {"a": 2**63}, {"a": -2**63}, {"a": -2**63 - 1}, True, None,
              float("inf"), 1e308, (1, [2]), collections.OrderedDict(), {1: 2}, nested(256), nested(257), b"x"]
    compiled = _backend.walkable
    assert [compiled(v) for v in values] == [_calls_py.walkable(v) for v in values]
    assert [_calls_py.walkable(v) for v in values] == [False, True, False, True, False, True, True, False, True,
                                                       True, False, False, True, False, False]


#: code units a 2-byte string may hold: plain ones, one of each surrogate half and the units next to them
_UNITS = st.sampled_from(["a", "\u00e9", "\u0800", "\ud7ff", "\ud800", "\udbff", "\udc00", "\udfff", "\ue000",
                          "\uffff", "\U0001f600"])


@given(st.lists(_UNITS, max_size=40), st.integers(0, 3))
def test_walkable_finds_a_lone_surrogate_anywhere(units: list[str], pad: int) -> None:
    """A lone surrogate anywhere in a 2-byte string (the compiled scan reads such a string in a loop that
    the compiler vectorises) declines the value on both backends (``pad`` shifts it against the vectors)."""
    text = "\u0100" * pad + "".join(units)
    value = {"content": text, text: [text]}
    assert _backend.walkable(value) == _calls_py.walkable(value)
    assert _backend.walkable(text) == _calls_py.walkable(text) == (not any(0xD800 <= ord(c) <= 0xDFFF for c in text))


# -- a call sent whole, opened and closed at once ----------------------------------------------------

#: a schema that accepts some values certainly (a short ``a``), rejects others and cannot say for the rest
ONCE_TOOLS = {"f": {"type": "object", "properties": {"a": {"type": "string", "maxLength": 3},
                                                      "n": {"type": "integer", "maximum": 5}}}}


class _Subclass(EventBuilder):
    """A builder subclass that overrides nothing: ``sent_whole`` leaves it to its three steps."""

    __slots__ = ()


def _whole_items(state: ToolStreamState, value: Any, name: str, call_id: str, metadata: dict[str, Any],
                 taken: bool) -> list[Any]:
    """The items of a call sent whole at index 1 (index 0 a text run; ``taken``: index 1 too), as data."""
    from argstream.events import Message

    state.feed(Part(0, Message("hi")))
    if taken:
        state.feed(Part(1, Message("x")))
    try:
        out = state.whole_call(1, call_id, name, value, metadata)
    except TypeError as exc:  # index 1 holds a text run: the three steps' own error, either way
        return [("raised", str(exc))]
    data = [canon(item) for item in out]
    for item in out:
        if type(item).__name__ == "ToolCallFinished":
            data.append((repr(item.violations), item.repairs, canon_event(item.event), item.event in state.events))
    return data + [canon_event(e) for e in state.events] + [sorted(state.builder.pending())]


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=st.dictionaries(st.sampled_from(["a", "n", "b", "\u00e9"]), plain_values, max_size=3)
       | st.dictionaries(st.sampled_from(["a", "n", "b"]), hostile_values, max_size=3) | hostile_values,
       name=st.sampled_from(["f", "g", ""]), call_id=st.sampled_from(["c1", ""]),
       metadata=st.sampled_from([{}, {"id_generated": True}]), tools=st.booleans(),
       taken=st.sampled_from([False, False, False, True]), depth=st.sampled_from([0, 0, 0, 0, 30, 62, 63, 70]))
def test_a_call_opened_and_closed_at_once_gives_the_items_of_the_three_steps(
        value: Any, name: str, call_id: str, metadata: dict[str, Any], tools: bool, taken: bool, depth: int) -> None:
    """``EventBuilder.sent_whole`` makes a whole call's items and event without its buffer and parser: the
    same items, event and state as opening the call, pushing the value and flushing it (what a builder
    subclass still does), for any value (objects or not, deeper than the parser takes, lone surrogates,
    numbers past 64 bits), named or not, with ``tools=`` (a value the schema certainly accepts, one it
    rejects, one it cannot tell) and with the index taken already."""
    if depth:
        value = {"a": nested(depth, value)}
    # (with ``tools=``, a call sent whole is walkable, as its adapter checks: the schema reads no other value)
    options = {"tools": ONCE_TOOLS} if tools and _backend.walkable(value) else {}
    fast = ToolStreamState(lambda: EventBuilder(**options))
    three = ToolStreamState(lambda: _Subclass(**options))
    assert _whole_items(fast, value, name, call_id, metadata, taken) == _whole_items(three, value, name, call_id,
                                                                                     metadata, taken)


def test_a_call_opened_and_closed_at_once_takes_the_short_way() -> None:
    """The short way is taken where it can be (plain values, ``tools=`` that certainly accept) and not
    elsewhere: the builder's own steps are not called then, and are otherwise."""
    opened: list[int] = []

    class Counting(EventBuilder):
        __slots__ = ()

        def open_call(self, *args: Any) -> Any:
            opened.append(args[0])
            return super().open_call(*args)

    value = {"a": "ok", "n": 1}
    assert EventBuilder().sent_whole(0, "c", "f", value, {}) is not None
    assert EventBuilder(tools=ONCE_TOOLS).sent_whole(0, "c", "f", value, {}) is not None
    assert EventBuilder(tools=ONCE_TOOLS).sent_whole(0, "c", "f", {"a": "long"}, {}) is None
    assert EventBuilder(lenient=True).sent_whole(0, "c", "f", value, {}) is None
    assert EventBuilder().sent_whole(0, "c", "f", [1], {}) is None
    assert EventBuilder().sent_whole(0, "c", "f", {"a": 10**40}, {}) is None
    assert Counting().sent_whole(0, "c", "f", value, {}) is None
    items, arguments, event = EventBuilder().sent_whole(0, "c", "f", value, {"id_generated": True})
    assert event.kind.arguments is arguments and arguments == value and arguments is not value
    assert event.metadata == {"id_generated": True} and [i.path for i in items][-1] == ()
    ToolStreamState(Counting).whole_call(0, "c", "f", value, {})
    assert opened == [0]


# -- whole streams -------------------------------------------------------------------------------


def gemini_stream(calls: list[Any], rng: random.Random) -> list[Any]:
    parts: list[Any] = []
    for n, args in enumerate(calls):
        if rng.random() < 0.5:
            parts.append({"text": f"text {n} "})
        fields: dict[str, Any] = {"name": f"tool_{n}", "args": args}
        if rng.random() < 0.5:
            fields["id"] = f"id-{n}"
        parts.append({"functionCall": fields})
    items = []
    while parts:
        n = rng.randint(1, 3)
        take, parts = parts[:n], parts[n:]
        items.append({"candidates": [{"content": {"parts": take, "role": "model"}, "index": 0}],
                      "responseId": "r1", "modelVersion": "gemini-2.5-flash"})
    usage = rng.choice([None, {"promptTokenCount": 3, "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 3}]},
                        {"totalTokenCount": (1, 2)}])
    if rng.random() < 0.5:  # the finish in the last chunk of calls (the whole-call test takes both)
        items[-1]["candidates"][0]["finishReason"] = "STOP"
        if usage is not None:
            items[-1]["usageMetadata"] = usage
        return items
    items.append({"candidates": [{"content": {"parts": [], "role": "model"}, "finishReason": "STOP", "index": 0}],
                  "responseId": "r1"})
    return items


def ollama_stream(calls: list[Any], rng: random.Random) -> list[Any]:
    head = {"model": "qwen3:8b", "created_at": "2025-11-26T02:00:00Z"}
    items = [dict(head, message={"role": "assistant", "content": "hi"}, done=False)]
    batch: list[Any] = []
    for n, args in enumerate(calls):
        batch.append({"function": {"name": f"tool_{n}", "arguments": args}})
        if rng.random() < 0.5:
            items.append(dict(head, message={"role": "assistant", "content": "", "tool_calls": batch}, done=False))
            batch = []
    if batch:
        items.append(dict(head, message={"role": "assistant", "content": "", "tool_calls": batch}, done=False))
    items.append(dict(head, message={"role": "assistant", "content": ""}, done=True, done_reason="stop"))
    return items


WHOLE = {"gemini": (gemini, gemini_stream), "ollama": (ollama, ollama_stream)}


#: the hostile values break these at every depth, so a checked whole call reports violations whose
#: offsets the walk counted (fused) and the parser read from the text (generic)
ANY_VALUE = {"type": ["string", "integer", "object", "array", "boolean"], "maxLength": 2, "maximum": 5,
             "maxItems": 1}
TOOLS = {"tool_0": {"type": "object", "properties": {"a": {"type": "string", "maxLength": 3}},
                    "additionalProperties": ANY_VALUE},
         "tool_1": {"type": "object", "required": ["é"]},
         "tool_2": {"type": "object", "additionalProperties": ANY_VALUE},
         "tool_3": {"type": "object", "additionalProperties": False, "properties": {"": ANY_VALUE}}}


def run(items: list[Any], fmt: str, fused: bool, make_parser: Any, **options: Any) -> list[Any]:
    module = WHOLE[fmt][0]
    factory = (lambda: EventBuilder(parser_factory=lambda: make_parser(catch_duplicate_keys=True, max_depth=64,
                                                                      flat=True)))
    if options.get("tools") is not None:
        factory = EventBuilder  # the schema check's own parser (with spans)
    out: list[Any] = []
    try:
        for item in iter_tool_stream(items, module if fused else module.to_events, builder_factory=factory,
                                     **options):
            out.append(canon(item))
    except Exception as exc:  # noqa: BLE001 - the same error either way
        out.append(("raised", type(exc).__name__, str(exc)))
    return out


@pytest.mark.parametrize("fmt", sorted(WHOLE))
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(calls=st.lists(hostile_values.filter(lambda v: not isinstance(v, float) or v == v) | st.builds(nested,
                      st.integers(60, 70)), min_size=1, max_size=4), seed=st.integers(0, 2**32),
       tools=st.sampled_from([None, TOOLS]), text_tool_calls=st.sampled_from([None, "auto"]))
def test_a_whole_stream_gives_the_generic_items(fmt: str, calls: list[Any], seed: int, tools: Any,
                                                text_tool_calls: Any, make_parser: Any) -> None:
    items = WHOLE[fmt][1](calls, random.Random(seed))
    options = {"tools": tools, "text_tool_calls": text_tool_calls}
    assert run(items, fmt, True, make_parser, **options) == run(items, fmt, False, make_parser, **options)


@pytest.mark.parametrize("fmt", sorted(WHOLE))
def test_only_the_pipeline_gets_the_value(fmt: str) -> None:
    """``to_events`` gives the text, as documented; the fused pipeline's adapter gives the value."""
    module, stream = WHOLE[fmt]
    args = {"path": "a.py", "content": "x" * 100}
    items = stream([args], random.Random(1))
    public = [e.part.part for e in module.to_events(items) if type(e) is Part and type(e.part) is ToolCall]
    assert [type(p) for p in public][1:] == [ArgumentChunk]
    pipeline = pipeline_for(module, items[0], ToolStreamState())
    fused = [e.part.part for item in items for e in pipeline.events(item)
             if type(e) is Part and type(e.part) is ToolCall]
    assert [type(p) for p in fused][1:] == [WholeArguments] and fused[1].value is args
    progress = [i for i in iter_tool_stream(items, module) if type(i) is ToolCallArgumentProgress]
    assert any(getattr(i.leaf, "text", None) is args["content"] for i in progress)


@pytest.mark.parametrize("fmt", sorted(WHOLE))
def test_a_call_refused_at_its_start_drops_its_whole_arguments(fmt: str) -> None:
    module, stream = WHOLE[fmt]
    items = stream([{"cmd": "rm -rf /"}], random.Random(3))
    result = TurnCoordinator(policies={"tool_0": RunMode.SKIP}, provider=module).run(items)
    (state,) = result.calls
    assert state.skipped and state.dropped and state.dropped_chunks == 1 and state.chunks == 0
    assert state.arguments is None


# -- with tools=: whole arguments that certainly pass start no check -----------------------------------------

WHOLE_TOOLS = {"fs": {"type": "object", "properties": {
    "path": {"type": "string", "maxLength": 12, "pattern": "^[a-z/._]+$"}, "mode": {"enum": ["r", "w"]},
    "n": {"type": "integer", "minimum": 0}}, "required": ["path"], "additionalProperties": False}}


@pytest.mark.parametrize("value, violations", [
    ({"path": "src/a.py"}, []),
    ({"path": "src/a.py", "mode": "w", "n": 3}, []),
    ({"path": "x" * 12, "n": 0}, []),  # at the bounds
    ({"path": "x" * 13}, ["maxLength"]),
    ({"path": "SRC"}, ["pattern"]),
    ({"path": "a", "mode": "rw"}, ["enum"]),
    ({"path": "a", "n": -1}, ["minimum"]),
    ({"path": "a", "n": 1.5}, ["type"]),
    ({"path": "a", "n": True}, ["type"]),  # a boolean is no integer
    ({"path": "a", "run": "rm -rf /"}, ["additionalProperties"]),  # a key the tool does not take
    ({"mode": "r"}, ["required"]),
])
def test_whole_arguments_are_checked_once(value: Any, violations: list[str]) -> None:
    """``open_call`` with the whole arguments to come: a value that certainly satisfies the schema gets no
    validator (no fragment is checked, nothing at the flush); any other is checked as its fragments, and
    either way the items are those of the arguments fed as events."""
    builder = EventBuilder(tools=WHOLE_TOOLS)
    call = builder.open_call(0, "c1", "fs", value)
    assert (call.validator is None) is (not violations)
    fused = ToolStreamState(lambda: EventBuilder(tools=WHOLE_TOOLS)).whole_call(0, "c1", "fs", value, {})
    general = ToolStreamState(lambda: EventBuilder(tools=WHOLE_TOOLS))
    expected = general.feed(Part(0, ToolCall(ToolCallStart("c1", "fs"))))
    expected += general.feed(Part(0, ToolCall(WholeArguments(value))))
    expected += general.feed(Flush(0))
    assert canon(fused) == canon(expected)
    finished = fused[-1]
    assert [v.keyword for v in finished.violations] == violations and finished.ok is (not violations)
    assert builder.open_call(1, "c2", "fs").validator is not None  # no whole value: the check starts
