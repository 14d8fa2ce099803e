"""The text of an argument value a provider sent whole (Gemini ``args``, Ollama ``arguments``).

``providers._common.json_text`` is ``json.dumps(plain(value), ensure_ascii=False, separators=(",", ":"))``;
the compiled ``_encode.compact`` writes that same text for a value of plain types and declines (``None``)
everything else, which then takes ``json.dumps``. A different text would give the call different
fragments, spans and violation positions than the pure twin gives, so the property is exact equality.
"""

from __future__ import annotations

import enum
import json
from collections import OrderedDict
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from argstream import _backend
from argstream.providers import _common

compact = _backend.encode_c.compact if _backend.encode_c is not None else None
needs_compiled = pytest.mark.skipif(compact is None, reason="the compiled core is not in use")


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


#: characters of every width and every kind the writer treats apart: the escaped ones (quote, backslash,
#: the short control escapes, the \u00XX ones), DEL, Latin-1, BMP, astral
_WELL_FORMED_CHARS = list('a"\\\b\t\n\f\r\x00\x01\x0b\x1f\x7f\x80é\u0100☃\uffff🎉\U0010ffff/ ')


def _texts(chars: list[str]) -> st.SearchStrategy[str]:
    alphabet = st.sampled_from(chars)
    return st.one_of(st.text(alphabet, max_size=8), st.text(alphabet, max_size=200),
                     st.builds(lambda run, tail: "x" * run + tail, st.integers(0, 80), st.text(alphabet, max_size=20)))


#: and with lone surrogate halves, which the writer passes through as json.dumps does
_TEXT = st.one_of(st.text(max_size=8), _texts(_WELL_FORMED_CHARS + ["\ud83d", "\udc00"]))
#: text without lone surrogate halves, which the parser reads as U+FFFD (tests/test_raw_surrogates.py)
_WELL_FORMED = _texts(_WELL_FORMED_CHARS)
_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.integers(-(10 ** 60), 10 ** 60),
                     st.floats(allow_nan=True, allow_infinity=True), _TEXT)
_VALUES = st.recursive(_SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=6), st.lists(inner, max_size=4).map(tuple),
    st.dictionaries(_TEXT, inner, max_size=6)), max_leaves=40)


@needs_compiled
@settings(max_examples=400)
@given(_VALUES)
def test_the_compiled_writer_gives_json_dumps_text(value: Any) -> None:
    text = compact(value)
    assert text == dumps(value)
    assert text is not None and max(map(ord, text), default=0) <= 0x10FFFF
    # the same str json would give, also in its width (a wider str than needed compares unequal elsewhere)
    assert text.encode("utf-8", "surrogatepass") == dumps(value).encode("utf-8", "surrogatepass")


@needs_compiled
@pytest.mark.parametrize("n", [0, 1, 15, 16, 17, 63, 64, 65, 200])
@pytest.mark.parametrize("special", ['"', "\\", "\n", "\x00", "\x1f", "é", "🎉"])
@pytest.mark.parametrize("width", ["a", "é", "☃", "🎉"])
def test_escapes_at_every_place_of_a_vector_block(n: int, special: str, width: str) -> None:
    for at in range(0, n + 1, max(1, n // 7)):
        text = width * at + special + width * (n - at)
        assert compact(text) == dumps(text)
        assert compact({text: [text]}) == dumps({text: [text]})


class Color(enum.IntEnum):
    RED = 1


class Text(str):
    pass


def _deep(levels: int) -> Any:
    value: Any = "end"
    for _ in range(levels):
        value = [value]
    return value


def _cycle() -> Any:
    a: list[Any] = []
    a.append(a)
    return a


#: values the writer leaves to json.dumps: subclasses, other key types, objects, deep or cyclic nesting,
#: an int whose text Python refuses
DECLINED = [
    OrderedDict(a=1), {"a": Color.RED}, {"a": Text("x")}, {Text("k"): 1}, {1: "one"}, {None: 1},
    {True: 1}, {1.5: 2}, [object()], {"a": b"bytes"}, _deep(300), _cycle(), 10 ** 5000,
]


@needs_compiled
@pytest.mark.parametrize("value", DECLINED, ids=range(len(DECLINED)))
def test_anything_unusual_is_declined(value: Any) -> None:
    assert compact(value) is None


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("value", DECLINED[:-3] + [_deep(100), {"a": [1.5, -0.0, float("nan")]}],
                         ids=range(len(DECLINED) - 1))
def test_json_text_is_json_dumps_of_the_plain_copy(value: Any, compiled: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    if compiled and compact is None:
        pytest.skip("the compiled core is not in use")
    if not compiled:
        monkeypatch.setattr(_common, "_compact", None)
    try:
        expected: Any = dumps(_common.plain(value))
    except TypeError as exc:
        expected = type(exc)
    try:
        got: Any = _common.json_text(value)
    except TypeError as exc:
        got = type(exc)
    assert got == expected


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("value", [_deep(5000), _cycle(), 10 ** 5000], ids=["deep", "cycle", "long-int"])
def test_what_json_refuses_it_still_refuses(value: Any, compiled: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Too deep, cyclic, a number too long to write: the same exception as before, on either backend."""
    if compiled and compact is None:
        pytest.skip("the compiled core is not in use")
    if not compiled:
        monkeypatch.setattr(_common, "_compact", None)
    with pytest.raises((RecursionError, ValueError)) as caught:
        _common.json_text(value)
    with pytest.raises(caught.type):
        json.dumps(_common.plain(value), ensure_ascii=False, separators=(",", ":"))


def _gemini_stream(arguments: Any) -> list[dict]:
    return [{"candidates": [{"content": {"parts": [{"functionCall": {"name": "f", "args": arguments}}], "role": "model"},
                             "finishReason": "STOP", "index": 0}], "responseId": "r"}]


def _ollama_stream(arguments: Any) -> list[dict]:
    return [{"model": "m", "message": {"role": "assistant", "content": "", "tool_calls": [
                {"function": {"name": "f", "arguments": arguments}}]}, "done": False},
            {"model": "m", "message": {"role": "assistant", "content": ""}, "done": True, "done_reason": "stop"}]


def _arguments(text: st.SearchStrategy[str]) -> st.SearchStrategy[dict]:
    scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False), text)
    return st.dictionaries(text, st.recursive(scalars, lambda inner: st.one_of(
        st.lists(inner, max_size=5), st.dictionaries(text, inner, max_size=5)), max_leaves=25), max_size=6)



def _items(stream: list[dict], provider: str, compiled: bool) -> list[Any]:
    from argstream import iter_tool_stream

    saved = _common._compact
    try:
        if not compiled:
            _common._compact = None
        return [item for item in iter_tool_stream(stream, provider) if type(item).__name__ != "StreamFinished"]
    finally:
        _common._compact = saved


@settings(max_examples=150)
@given(arguments=_arguments(_WELL_FORMED), provider=st.sampled_from(["gemini", "ollama"]))
def test_whole_arguments_reach_the_call_as_sent(arguments: dict, provider: str) -> None:
    """Arguments a provider sent whole are the finished call's arguments: control characters, quotes and
    backslashes in keys and strings, text of every width, numbers of any size."""
    stream = (_gemini_stream if provider == "gemini" else _ollama_stream)(arguments)
    finished = [i for i in _items(stream, provider, True) if type(i).__name__ == "ToolCallFinished"]
    assert len(finished) == 1 and finished[0].error is None
    assert finished[0].arguments == arguments


@needs_compiled
@settings(max_examples=150)
@given(arguments=_arguments(_TEXT), provider=st.sampled_from(["gemini", "ollama"]))
def test_either_writer_gives_the_same_items(arguments: dict, provider: str) -> None:
    """Every item of the stream (progress, errors, the finished call) is the same whichever writer made the
    argument text, lone surrogate halves and the duplicate keys they can become included."""
    stream = (_gemini_stream if provider == "gemini" else _ollama_stream)(arguments)
    assert [repr(i) for i in _items(stream, provider, True)] == [repr(i) for i in _items(stream, provider, False)]


def _nested(levels: int) -> Any:
    value: Any = {"leaf": 1}
    for _ in range(levels):
        value = {"k": value}
    return value


#: arguments a hostile or broken model sends whole: not an object, nested past the tool limit (64) but
#: within the writer's (256), a key and string built to look like JSON structure, a huge number
HOSTILE_ARGUMENTS = [
    "not an object", ["a", 1], 7, True, 1.5, {}, _nested(100), _nested(300),
    {'", "injected": true, "x': '"}, {"evil": "\\u0000"}', "\x00": "\u2028\u2029"},
    {"n": 10 ** 300, "f": 1e308, "neg": -0.0},
]


@needs_compiled
@pytest.mark.parametrize("provider", ["gemini", "ollama"])
@pytest.mark.parametrize("arguments", HOSTILE_ARGUMENTS, ids=range(len(HOSTILE_ARGUMENTS)))
def test_hostile_whole_arguments_give_the_same_items_on_either_writer(arguments: Any, provider: str) -> None:
    """Whatever the model sends as the arguments object, the stream's items (a failed call, its error and
    position, or the call) are those json.dumps's text gives; an injected key stays inside its string."""
    stream = (_gemini_stream if provider == "gemini" else _ollama_stream)(arguments)
    items = _items(stream, provider, True)
    assert [repr(i) for i in items] == [repr(i) for i in _items(stream, provider, False)]
    finished = [i for i in items if type(i).__name__ == "ToolCallFinished"]
    failed = type(arguments) is not dict or arguments in (HOSTILE_ARGUMENTS[6], HOSTILE_ARGUMENTS[7])
    assert any(type(i).__name__ == "ToolCallFailed" for i in items) == failed
    assert (finished[0].error is not None) == failed  # not an object, or past the nesting limit: with a position
    if arguments == HOSTILE_ARGUMENTS[8]:
        assert finished[0].arguments == arguments and "injected" not in finished[0].arguments
