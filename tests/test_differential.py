"""Differential tests (hypothesis): the compiled core and the pure twin agree chunk by chunk."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from argstream import ArgumentStreamError
from argstream.parser import IncrementalArgParserC, IncrementalArgParserPy

from _support import canon, cut
from test_properties import MUTANTS, documents

pytestmark = [
    pytest.mark.hypothesis,
    pytest.mark.c_extension,
    pytest.mark.skipif(IncrementalArgParserC is None, reason="compiled core not in use"),
]

OPTIONS = st.fixed_dictionaries(
    {},
    optional={
        "flat": st.booleans(),
        "surrogates": st.sampled_from(["replace", "pass"]),
        "max_depth": st.integers(1, 6),
        "catch_duplicate_keys": st.booleans(),
        "spans": st.booleans(),
    },
)


def trace(cls, chunks, options):
    """Per call: ("ok", (canonical fragments, spans), fragments), or for the error: ("error", (fields,
    canonical ``exc.fragments``, spans), ``exc.fragments``); and the final (position, done)."""
    p = cls(**options)
    out = []
    for chunk in [*chunks, None]:
        try:
            got = p.push(chunk) if chunk is not None else p.finish()
        except ArgumentStreamError as exc:
            fields = (type(exc), exc.msg, exc.pos, exc.line, exc.col, getattr(exc, "key", None))
            out.append(("error", (fields, [canon(f) for f in exc.fragments], p.spans), exc.fragments))
            break
        out.append(("ok", ([canon(f) for f in got], p.spans), got))
    return out, (p.position, p.done)


def assert_same(chunks, options):
    c_trace, c_state = trace(IncrementalArgParserC, chunks, options)
    py_trace, py_state = trace(IncrementalArgParserPy, chunks, options)
    assert [t[:2] for t in c_trace] == [t[:2] for t in py_trace]
    for c, py in zip(c_trace, py_trace):
        assert c[2] == py[2]  # the fragments themselves (or exc.fragments) compare equal too
    assert c_state == py_state


@st.composite
def cases(draw, mutate: bool):
    doc = draw(documents())
    if mutate:
        i = draw(st.integers(0, max(0, len(doc) - 1)))
        op = draw(st.sampled_from(["insert", "delete", "replace"]))
        ch = draw(MUTANTS)
        tail = doc[i:] if op == "insert" else doc[i + 1 :]
        doc = doc[:i] + ("" if op == "delete" else ch) + tail
    data = doc.encode() if draw(st.booleans()) else doc
    points = draw(st.lists(st.integers(0, len(data)), max_size=12))
    return cut(data, points), draw(OPTIONS)


@given(cases(mutate=False))
def test_valid_documents(case):
    assert_same(*case)


@given(cases(mutate=True))
def test_mutated_documents(case):
    assert_same(*case)


@given(st.binary(max_size=40), st.lists(st.integers(0, 40), max_size=6))
def test_arbitrary_bytes(data, points):
    assert_same(cut(b'["' + data + b'"]', points), {"spans": True})


@pytest.mark.parametrize(
    "doc",
    [
        '{"a": [1, -2.5e-3, true, null, {"b": "\\u00e9\\ud83d\\ude00\\n"}], "c": ""}',
        '"\\ud800\\udc00\\ud800x\\udc00"',
        '{"a": {"a": 1, "b": [{"a": 2}]}, "b": "x", "\\u0062": 3}',
        '["\\ud800\\ud800\\u00e9\\ud83d',
        "[" * 600,
        "1" * 5000,
        '["\x01"]',
        "12",
        "",
    ],
)
@pytest.mark.parametrize("as_bytes", [False, True])
def test_examples_one_unit_at_a_time(doc, as_bytes):
    data = doc.encode() if as_bytes else doc
    for options in (
        {}, {"flat": True}, {"surrogates": "pass"}, {"max_depth": 3}, {"catch_duplicate_keys": True}, {"spans": True},
    ):
        assert_same([data[i : i + 1] for i in range(len(data))], options)
        assert_same([data], options)


def test_type_errors_agree():
    for cls in (IncrementalArgParserC, IncrementalArgParserPy):
        p = cls()
        p.push("[")
        with pytest.raises(TypeError):
            p.push(b"1")
        with pytest.raises(TypeError):
            cls().push(1)
        with pytest.raises(ValueError):
            cls(max_depth=0)
        with pytest.raises(ValueError):
            cls(surrogates="strict")


def test_json_sanity():
    """The strategy produces what it claims (guards the differential tests against vacuity)."""
    doc = json.dumps({"a": [1, "é"]}, ensure_ascii=False)
    assert_same([doc], {})


def test_invalid_utf8_after_a_lone_high_surrogate():
    """The pending surrogate is decoded text of the failing chunk: both cores hand it out on ``exc.fragments``."""
    for chunks in ([b'["a\\ud800\xff"]'], [b'["a\\ud800', b'\xff"]'], [b'["a', b'\\ud800\xff"]']):
        assert_same(chunks, {"spans": True})
