"""Surrogates written raw in ``str`` input (hypothesis): at any chunking both backends agree, and the
value is ``json.loads``'s with each lone surrogate as U+FFFD (``surrogates="pass"``: as it is)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from argstream.parser import IncrementalArgParserC, IncrementalArgParserPy

from _support import aggregate, cut, loads, same_json
from test_differential import assert_same, trace

pytestmark = [
    pytest.mark.hypothesis,
    pytest.mark.c_extension,
    pytest.mark.skipif(IncrementalArgParserC is None, reason="compiled core not in use"),
]

# Surrogates often, and characters of every width, so that chunks are of kind 1, 2 and 4.
CHARS = st.one_of(
    st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF),
    st.sampled_from('a"\\\n\x01é€😀'),
    st.characters(codec="utf-8"),
)
TEXT = st.lists(CHARS, max_size=12).map("".join)  # st.text() would drop the surrogates
VALUES = st.recursive(
    st.one_of(TEXT, st.integers(-10, 10), st.booleans(), st.none()),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(TEXT, inner, max_size=4)),
    max_leaves=8,
)


@st.composite
def documents(draw: st.DrawFn) -> tuple[str, list[str]]:
    """A JSON text with surrogates raw (escaped too, in some), and a random chunking of it."""
    value = draw(VALUES)
    doc = json.dumps(value, ensure_ascii=False)
    if draw(st.booleans()):  # escape some of them: raw and escaped ones side by side
        doc = "".join(json.dumps(c)[1:-1] if "\ud800" <= c <= "\udfff" and draw(st.booleans()) else c for c in doc)
    points = draw(st.lists(st.integers(0, len(doc)), max_size=8))
    return doc, cut(doc, points)


@given(documents(), st.sampled_from(["replace", "pass"]), st.booleans())
def test_raw_surrogates_at_any_chunking(case: tuple[str, list[str]], surrogates: str, flat: bool) -> None:
    doc, chunks = case
    options = {"surrogates": surrogates, "flat": flat, "spans": True, "max_depth": 64}
    assert_same(chunks, options)
    expected = loads(doc, surrogates)
    for cls in (IncrementalArgParserC, IncrementalArgParserPy):
        steps, _ = trace(cls, chunks, options)
        fragments = [f for step in steps for f in step[2]]
        assert steps[-1][0] == "ok", steps[-1]
        assert same_json(aggregate(fragments), expected)
        if surrogates == "replace":
            json.dumps(aggregate(fragments), ensure_ascii=False).encode("utf-8")  # no surrogate is left


@given(documents(), st.sampled_from(["replace", "pass"]), st.integers(0, 40))
def test_raw_surrogates_with_duplicate_keys_and_damage(case: tuple[str, list[str]], surrogates: str, at: int) -> None:
    """Keys are compared decoded (two surrogate keys are both U+FFFD by default), and a document cut
    short or broken after a surrogate fails alike on both backends."""
    doc, chunks = case
    options = {"surrogates": surrogates, "catch_duplicate_keys": True}
    assert_same(chunks, options)
    broken = doc[: at % (len(doc) + 1)] + "\x01" + doc[at % (len(doc) + 1):]
    assert_same(cut(broken, [at, at + 1]), {"surrogates": surrogates})
