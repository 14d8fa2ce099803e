"""Tools compiled once: the same definitions sent with every turn are not compiled again, and nothing a
caller does to its own dicts afterwards, nor a look-alike that is not plain JSON, changes what is checked."""

from __future__ import annotations

import copy
import json
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from argstream import EventBuilder, iter_tool_stream
from argstream import builder as builder_module
from argstream._backend import encode_c
from argstream.events import ArgumentChunk, Finished, FinishReason, Flush, Part, ToolCall, ToolCallStart
from argstream.schema import SchemaError
from argstream.stream import ToolCallFinished

SCHEMA = {
    "type": "object",
    "properties": {"mode": {"enum": ["read", "write"]}, "path": {"type": "string", "maxLength": 8}},
    "required": ["mode", "path"],
    "additionalProperties": False,
}


def tools() -> dict[str, Any]:
    return {"fs": copy.deepcopy(SCHEMA)}


def finished(arguments: dict[str, Any], tool_defs: Any) -> ToolCallFinished:
    events = [Part(0, ToolCall(ToolCallStart("c1", "fs"))), Part(0, ToolCall(ArgumentChunk(json.dumps(arguments)))),
              Flush(0), Finished(FinishReason.TOOL_USE)]
    return next(i for i in iter_tool_stream(events, provider=lambda s: s, tools=tool_defs)
                if type(i) is ToolCallFinished)


@pytest.fixture(autouse=True)
def empty_cache(monkeypatch: pytest.MonkeyPatch) -> Any:
    builder_module._SCHEMA_CACHE.clear()
    monkeypatch.setattr(builder_module, "_LAST_SCHEMAS", None)
    yield
    builder_module._SCHEMA_CACHE.clear()


compiled_only = pytest.mark.skipif(encode_c is None, reason="the last tools are walked in C only (_encode.same_json)")


def test_the_same_tools_are_compiled_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    compile_schemas = builder_module._compile_schemas
    monkeypatch.setattr(builder_module, "_compile_schemas", lambda s: calls.append(s) or compile_schemas(s))
    for _ in range(3):
        assert finished({"mode": "read", "path": "a"}, tools()).ok
        assert not finished({"mode": "delete", "path": "a"}, tools()).ok
    assert len(calls) == 1
    # each builder has its own dict: one that a caller changes leaves the others as they were
    first, second = EventBuilder(tools=tools()), EventBuilder(tools=tools())
    assert first._schemas is not second._schemas and first._schemas["fs"] is second._schemas["fs"]


def test_changing_the_callers_dicts_afterwards_changes_nothing_checked() -> None:
    defs = tools()
    assert not finished({"mode": "delete", "path": "a"}, defs).ok
    defs["fs"]["properties"]["mode"]["enum"].append("delete")  # the caller's own list, changed in place
    assert finished({"mode": "delete", "path": "a"}, defs).ok  # the changed tools: their own check
    # the original definitions again, as a new object: "delete" is still refused
    assert not finished({"mode": "delete", "path": "a"}, tools()).ok
    assert [v.keyword for v in finished({"mode": "delete", "path": "a"}, tools()).violations] == ["enum"]


@pytest.mark.parametrize("look_alike", [
    # close to SCHEMA (the first has its very JSON text), not the same schema: neither may take its compiled form
    {"fs": {**SCHEMA, "required": ("mode", "path")}},
    {"fs": {**SCHEMA, "properties": {**SCHEMA["properties"], "path": {"type": "string", "maxLength": 8.0}}}},
])
def test_a_look_alike_that_is_not_plain_json_is_compiled_as_it_is(look_alike: Any) -> None:
    def outcome() -> Any:
        try:
            return finished({"mode": "read", "path": "a"}, look_alike).ok
        except SchemaError as exc:
            return str(exc)

    alone = outcome()
    assert not finished({"mode": "delete", "path": "a"}, tools()).ok  # SCHEMA compiled and kept
    assert outcome() == alone
    assert outcome() == alone


def test_bool_and_int_are_told_apart() -> None:
    as_int = {"fs": {"type": "object", "properties": {"n": {"type": "integer", "maximum": 1}}}}
    as_bool = {"fs": {"type": "object", "properties": {"n": {"type": "integer", "maximum": True}}}}
    assert not finished({"n": 2}, as_int).ok
    with pytest.raises(SchemaError):  # a boolean where a number belongs: refused, never the int's schema
        EventBuilder(tools=as_bool)
    assert not finished({"n": 2}, as_int).ok


@pytest.mark.parametrize("odd", [
    {"fs": {"type": "object", "properties": {1: {"type": "string"}}}},  # a key that is not a string
    {"fs": {"type": "object", "properties": {"x": {"enum": [math.nan]}}}},  # NaN: not equal to itself
    {"fs": {"type": "object", "properties": {"x": {"enum": [object()]}}}},  # not JSON at all
])
def test_tools_that_are_not_plain_json_are_not_kept(odd: Any) -> None:
    try:
        EventBuilder(tools=odd)
    except (SchemaError, TypeError, ValueError):
        pass
    assert not builder_module._SCHEMA_CACHE


def test_an_invalid_schema_fails_every_time_with_its_own_error() -> None:
    bad = {"fs": {"type": "object", "properties": {"x": {"type": "string", "pattern": "(?<=a)b"}}}}
    for _ in range(2):
        with pytest.raises(SchemaError, match="tool 'fs'"):
            EventBuilder(tools=copy.deepcopy(bad))
    assert not builder_module._SCHEMA_CACHE


def test_the_cache_is_bounded() -> None:
    for n in range(builder_module._SCHEMA_CACHE_SIZE + 10):
        EventBuilder(tools={"fs": {"type": "object", "properties": {f"p{n}": {"type": "string"}}}})
    assert len(builder_module._SCHEMA_CACHE) == builder_module._SCHEMA_CACHE_SIZE


def test_the_order_of_keys_is_the_callers() -> None:
    """Two definitions that differ only in the order of their keys are two entries, each compiled from
    its own order (what the order of checks, and so of violations, follows)."""
    forward = tools()
    backward = {"fs": {k: SCHEMA[k] for k in reversed(list(SCHEMA))}}
    backward["fs"]["properties"] = {k: SCHEMA["properties"][k] for k in reversed(list(SCHEMA["properties"]))}
    for defs in (forward, backward, forward, backward):
        compiled = EventBuilder(tools=defs)._schemas["fs"]
        assert list(compiled.source) == list(defs["fs"])
        assert list(compiled.source["properties"]) == list(defs["fs"]["properties"])
    assert len(builder_module._SCHEMA_CACHE) == 2


def test_streams_on_several_threads_share_the_cache_safely() -> None:
    """Threads compiling, evicting and reading at once: every builder checks its own tools."""
    import threading

    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            for n in range(40):
                limit = 1 + (k * 40 + n) % 90  # more distinct tools than the cache holds: evictions
                defs = {"fs": {"type": "object", "properties": {"path": {"type": "string", "maxLength": limit}}}}
                ok = finished({"path": "x" * limit}, defs).ok
                too_long = finished({"path": "x" * (limit + 1)}, defs).ok
                assert ok and not too_long, limit
        except BaseException as exc:  # noqa: BLE001 - reported on the test's thread
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors and len(builder_module._SCHEMA_CACHE) <= builder_module._SCHEMA_CACHE_SIZE


def test_the_cache_holds_a_bounded_amount_of_schema_text() -> None:
    """Tool definitions may come from a server the application does not control: a schema too large is
    compiled as given and not kept, and the kept text never passes the bound, however many arrive."""
    huge = {"fs": {"type": "object", "description": "x" * (builder_module._SCHEMA_CACHE_TEXT // 8 + 1)}}
    EventBuilder(tools=huge)
    assert not builder_module._SCHEMA_CACHE
    for n in range(30):
        big = {"fs": {"type": "object", "description": f"{n}" + "y" * (builder_module._SCHEMA_CACHE_TEXT // 10)}}
        EventBuilder(tools=big)
        assert sum(map(len, builder_module._SCHEMA_CACHE)) <= builder_module._SCHEMA_CACHE_TEXT
    assert 1 <= len(builder_module._SCHEMA_CACHE) < 10


# ---- the tools the last stream used, tried first (compiled core: ``_encode.same_json``) ----------------


@compiled_only
def test_tools_sent_again_skip_the_cache_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same tools, as the same object or a new one, are the last stream's entry: the cache's key (their
    JSON text) is not written again, and each builder still has its own dict."""
    assert not finished({"mode": "delete", "path": "a"}, tools()).ok
    lookups = []
    cached = builder_module._cached_schemas
    monkeypatch.setattr(builder_module, "_cached_schemas", lambda s: lookups.append(s) or cached(s))
    defs = tools()
    for given_ in (defs, defs, tools(), [{"name": "fs", "input_schema": copy.deepcopy(SCHEMA)}]):
        assert finished({"mode": "read", "path": "a"}, given_).ok
        assert [v.keyword for v in finished({"mode": "delete", "path": "a"}, given_).violations] == ["enum"]
    assert lookups == []
    first, second = EventBuilder(tools=defs), EventBuilder(tools=defs)
    assert first._schemas is not second._schemas and first._schemas["fs"] is second._schemas["fs"]


@compiled_only
@pytest.mark.parametrize("change", [
    lambda d: d["fs"]["properties"]["mode"]["enum"].append("delete"),  # in place, nested
    lambda d: d["fs"]["properties"]["path"].update(maxLength=8.0),  # a float for an int
    lambda d: d["fs"]["properties"]["path"].update(maxLength=True),  # a bool for an int
    lambda d: d["fs"].update(required=("mode", "path")),  # a tuple for a list
    lambda d: d["fs"].update(required=list(reversed(d["fs"]["required"]))),  # another order
    lambda d: d["fs"]["properties"].update(extra={"minimum": -0.0}),  # a key more
])
def test_tools_that_differ_from_the_last_in_any_way_are_not_taken_for_them(change: Any) -> None:
    """What the last stream's entry is taken for: the very same plain JSON (types, order, sign of zero)."""
    assert not finished({"mode": "delete", "path": "a"}, tools()).ok
    defs = tools()
    change(defs)

    def outcome() -> Any:
        try:
            return finished({"mode": "delete", "path": "a"}, defs).ok, [
                v.keyword for v in finished({"mode": "read", "path": "a" * 9}, defs).violations]
        except SchemaError as exc:
            return str(exc)

    monkeypatch = pytest.MonkeyPatch()
    try:
        monkeypatch.setattr(builder_module, "_same_json", None)  # the text cache alone decides
        builder_module._SCHEMA_CACHE.clear()
        alone = outcome()
    finally:
        monkeypatch.undo()
    builder_module._SCHEMA_CACHE.clear()
    assert not finished({"mode": "delete", "path": "a"}, tools()).ok  # SCHEMA is the last entry again
    assert outcome() == alone


def _plain(value: Any, depth: int = 0) -> bool:
    """Exact JSON types, no NaN: the values whose equal ``json.dumps`` text means one value."""
    kind = type(value)
    if kind is float:
        return not math.isnan(value)
    if kind in (str, int, bool) or value is None:
        return True
    if kind is list:
        return all(_plain(v, depth + 1) for v in value)
    if kind is dict:
        return all(type(k) is str and _plain(v, depth + 1) for k, v in value.items())
    return False


class _Str(str):
    pass


_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from([0.0, -0.0, 1.0, math.inf, math.nan, 2.5]),
    st.sampled_from(["", "a", "b", "\u00e9"]), st.builds(_Str, st.sampled_from(["a", "b"])),
)
_VALUES = st.recursive(_SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.lists(inner, max_size=3).map(tuple),
    st.dictionaries(st.sampled_from(["a", "b", "c", 1]), inner, max_size=3)), max_leaves=12)


def _mutate(value: Any, data: Any) -> Any:
    """A copy of ``value``, sometimes with one leaf or container swapped for another value."""
    if data.draw(st.integers(0, 6)) == 0:
        return data.draw(_VALUES)
    if type(value) is list:
        return [_mutate(v, data) for v in value]
    if type(value) is dict:
        return {k: _mutate(v, data) for k, v in value.items()}
    return value


@compiled_only
@given(a=_VALUES, data=st.data())
def test_same_json_is_one_compact_text(a: Any, data: Any) -> None:
    b = data.draw(st.one_of(st.just(copy.deepcopy(a)), st.builds(lambda: _mutate(a, data)), _VALUES))
    expected = _plain(a) and _plain(b) and json.dumps(a) == json.dumps(b)
    assert encode_c.same_json(a, b) is expected
    assert encode_c.same_json(b, a) is expected


@compiled_only
def test_same_json_stops_at_its_depth() -> None:
    deep: Any = []
    for _ in range(300):
        deep = [deep]
    assert encode_c.same_json(deep, copy.deepcopy(deep)) is False  # too deep to walk: not the same (a cache miss)
    shallow: Any = []
    for _ in range(200):
        shallow = [shallow]
    assert encode_c.same_json(shallow, copy.deepcopy(shallow)) is True
