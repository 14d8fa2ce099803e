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
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from argstream import _backend, _calls_py
from argstream.aggregate import FragmentAggregator

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


def test_walkable_twins_agree() -> None:
    values = [{"a": "\ud800"}, {"a": 2**63 - 1}, {"a": 2**63}, {"a": -2**63}, {"a": -2**63 - 1}, True, None,
              float("inf"), 1e308, (1, [2]), collections.OrderedDict(), {1: 2}, nested(256), nested(257), b"x"]
    compiled = _backend.walkable
    assert [compiled(v) for v in values] == [_calls_py.walkable(v) for v in values]
    assert [_calls_py.walkable(v) for v in values] == [False, True, False, True, False, True, True, False, True,
                                                       True, False, False, True, False, False]
