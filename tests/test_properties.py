"""Property tests (hypothesis): random JSON, random serialisation, random chunk boundaries."""

from __future__ import annotations

import json

import pytest
from hypothesis import assume, given, note
from hypothesis import strategies as st

import argstream
from argstream import ArgumentStreamError, FragmentAggregator, flatten

from _support import check_stream, cut, fields, loads, run, run_per_push, same_json

pytestmark = pytest.mark.hypothesis

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=8), children, max_size=5),
    max_leaves=20,
)


@st.composite
def documents(draw) -> str:
    """A random value serialised with random ``json.dumps`` options."""
    value = draw(json_values)
    indent = draw(st.sampled_from([None, None, 0, 2, "\t"]))
    separators = draw(st.sampled_from([None, (",", ":"), (", ", ": "), (" ,\n", " :\r\n")]))
    doc = json.dumps(value, ensure_ascii=draw(st.booleans()), indent=indent, separators=separators)
    pad = draw(st.sampled_from(["", " ", "\n", " \t\r\n "]))
    return pad + doc + draw(st.sampled_from(["", " ", "\n"]))


@st.composite
def chunked(draw, as_bytes: bool | None = None):
    """(document as str or UTF-8 bytes, the chunks it is cut into)."""
    doc = draw(documents())
    if as_bytes is None:
        as_bytes = draw(st.booleans())
    data = doc.encode() if as_bytes else doc
    points = draw(st.lists(st.integers(0, len(data)), max_size=12))
    if draw(st.booleans()):  # sometimes also a run of one-unit chunks somewhere
        start = draw(st.integers(0, len(data)))
        points += range(start, min(len(data), start + 12))
    return data, cut(data, points)


@given(chunked())
def test_aggregate_equals_json_loads(case):
    data, chunks = case
    expected = json.loads(data)
    reference = run(argstream.IncrementalArgParser, [data])
    check_stream(run(argstream.IncrementalArgParser, chunks), reference, expected)


@given(chunked())
def test_flat_output_is_flattened_nested_output(case):
    _, chunks = case
    nested = run_per_push(argstream.IncrementalArgParser, chunks)
    flat = run_per_push(argstream.IncrementalArgParser, chunks, flat=True)
    assert flat == [[flatten(f) for f in push] for push in nested]


@given(chunked())
def test_snapshot_is_a_prefix_view_after_every_chunk(case):
    """After each chunk every completed value is in the snapshot, and the rest is a prefix of the final."""
    data, chunks = case
    final = json.loads(data)
    p = argstream.IncrementalArgParser()
    agg = FragmentAggregator()
    completed = []
    for chunk in [*chunks, None]:
        completed += agg.extend(p.push(chunk) if chunk is not None else p.finish())
        snap = agg.snapshot()
        assert_prefix_view(snap, final)
        for c in completed:
            node = snap
            for step in c.path:
                node = node[step]
            assert same_json(node, c.value)
    assert same_json(agg.value, final)


def assert_prefix_view(snap, final) -> None:
    stack = [(snap, final)]
    while stack:
        s, f = stack.pop()
        if s is None and f is not None:
            continue  # nothing of this value yet (the root before its first fragment)
        if isinstance(f, dict):
            assert isinstance(s, dict) and s.keys() <= f.keys()
            stack.extend((s[k], f[k]) for k in s)
        elif isinstance(f, list):
            assert isinstance(s, list) and len(s) <= len(f)
            stack.extend(zip(s, f))
        elif isinstance(f, str):
            assert isinstance(s, str) and f.startswith(s)
        else:
            assert same_json(s, f)


# -- invalid mutations ---------------------------------------------------------------------

MUTANTS = st.sampled_from(list('{}[]:,"\\ \n0123456789.eE+-tfnulrsa\x00\x1fé\u2028/'))


@st.composite
def mutated(draw):
    """A document with one character inserted, deleted or replaced."""
    doc = draw(documents())
    i = draw(st.integers(0, max(0, len(doc) - 1)))
    op = draw(st.sampled_from(["insert", "delete", "replace"]))
    if op == "insert":
        doc = doc[:i] + draw(MUTANTS) + doc[i:]
    elif op == "delete":
        doc = doc[:i] + doc[i + 1 :]
    else:
        doc = doc[:i] + draw(MUTANTS) + doc[i + 1 :]
    as_bytes = draw(st.booleans())
    data = doc.encode() if as_bytes else doc
    points = draw(st.lists(st.integers(0, len(data)), max_size=10))
    return data, cut(data, points)


def outcome(chunks):
    p = argstream.IncrementalArgParser()
    try:
        out = []
        for chunk in chunks:
            out += p.push(chunk)
        out += p.finish()
    except ArgumentStreamError as exc:  # anything else fails the test
        return exc
    agg = FragmentAggregator()
    agg.extend(out)
    return agg.value


@given(mutated())
def test_mutations_raise_only_argument_stream_error(case):
    data, chunks = case
    note(repr(data))
    whole = outcome([data] if data else [])
    chunked = outcome(chunks)
    try:
        expected = loads(data)  # a split surrogate pair leaves lone surrogates: U+FFFD
    except (ValueError, RecursionError):
        assert isinstance(whole, ArgumentStreamError), f"accepted invalid JSON {data!r}"
    else:
        if isinstance(whole, ArgumentStreamError):
            text = data.decode() if isinstance(data, bytes) else data
            assert "NaN" in text or "Infinity" in text, f"rejected valid JSON {data!r}: {whole}"
        else:
            assert same_json(whole, expected)
    if isinstance(whole, ArgumentStreamError):
        assert isinstance(chunked, ArgumentStreamError)
        assert fields(chunked) == fields(whole)
    else:
        assert same_json(chunked, whole)


@given(mutated())
def test_error_fields_describe_the_input(case):
    """line and col follow from pos as json.JSONDecodeError computes them (str input)."""
    data, _ = case
    assume(isinstance(data, str))
    err = outcome([data])
    assume(isinstance(err, ArgumentStreamError))
    assert 0 <= err.pos <= len(data)
    assert err.line == data.count("\n", 0, err.pos) + 1
    assert err.col == err.pos - data.rfind("\n", 0, err.pos)
    assert str(err) == f"{err.msg}: line {err.line} column {err.col} (char {err.pos})"
