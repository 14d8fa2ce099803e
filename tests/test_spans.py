"""``spans=True``: the input offsets each fragment was decoded from, parallel to each call's fragments."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, note
from hypothesis import strategies as st

from argstream import DONE, ArgumentStreamError, ArrayItem, Empty, Scalar, String, flatten
from argstream._backend import SCALAR_TYPES, STRING_TYPES
from argstream.parser import IncrementalArgParserC, IncrementalArgParserPy

from _support import canon, cut, same_json
from test_properties import documents

BACKENDS = [cls for cls in (IncrementalArgParserC, IncrementalArgParserPy) if cls is not None]


def spanned(cls, chunks, **options) -> tuple[list[tuple[object, tuple[int, int]]], int]:
    """(leaf, span) for every fragment of pushing ``chunks`` then ``finish()``; and the final position.

    Checks on the way that each call's ``spans`` is parallel to its fragments and within ``[0, position]``.
    """
    p = cls(spans=True, **options)
    out: list[tuple[object, tuple[int, int]]] = []
    for chunk in [*chunks, None]:
        fragments = p.push(chunk) if chunk is not None else p.finish()
        assert type(p.spans) is list and len(p.spans) == len(fragments)
        for fragment, span in zip(fragments, p.spans):
            assert type(span) is tuple and 0 <= span[0] <= span[1] <= p.position
            out.append((fragment[1] if type(fragment) is tuple else flatten(fragment)[1], span))
    return out, p.position


def leaves(doc, **options) -> list[tuple[object, tuple[int, int]]]:
    """``spanned`` for the whole document in one chunk, on every backend (which must agree)."""
    runs = [spanned(cls, [doc], **options)[0] for cls in BACKENDS]
    assert all(r == runs[0] for r in runs)
    return runs[0]


def test_off_by_default(make_parser):
    p = make_parser()
    p.push('{"a": "b"}')
    assert p.spans is None
    assert make_parser(spans=False).spans is None
    assert make_parser(spans=True).spans == []


def test_each_leaf_kind():
    doc = '{"s": "abc", "n": -12.5e1, "t": true, "f": false, "z": null, "e": "", "a": [], "o": {}, "x": [7]}'
    at = doc.index
    assert leaves(doc) == [
        (String("abc"), (at("abc"), at("abc") + 3)),
        (DONE, (at('", "n"'), at('", "n"') + 1)),  # the closing quote
        (Scalar(-125.0), (at("-12.5e1"), at("-12.5e1") + 7)),
        (DONE, (at(', "t"'), at(', "t"') + 1)),  # the delimiter after the number
        (Scalar(True), (at("true"), at("true") + 4)),
        (DONE, (at("true") + 3, at("true") + 4)),  # a literal's last letter
        (Scalar(False), (at("false"), at("false") + 5)),
        (DONE, (at("false") + 4, at("false") + 5)),
        (Scalar(None), (at("null"), at("null") + 4)),
        (DONE, (at("null") + 3, at("null") + 4)),
        (Empty("string"), (at('""') + 1, at('""') + 2)),
        (DONE, (at('""') + 1, at('""') + 2)),
        (Empty("array"), (at("[]") + 1, at("[]") + 2)),
        (DONE, (at("[]") + 1, at("[]") + 2)),
        (Empty("object"), (at("{}") + 1, at("{}") + 2)),
        (DONE, (at("{}") + 1, at("{}") + 2)),
        (Scalar(7), (at("7"), at("7") + 1)),
        (DONE, (at("7]") + 1, at("7]") + 2)),  # ']' ends the number
        (DONE, (len(doc) - 2, len(doc) - 1)),  # the array's ']'
        (DONE, (len(doc) - 1, len(doc))),  # the object's '}'
    ]


@pytest.mark.parametrize(
    ("doc", "expected"),
    [
        ("12", [(Scalar(12), (0, 2)), (DONE, (2, 2))]),  # finish() proves a root number
        ("12 ", [(Scalar(12), (0, 2)), (DONE, (2, 3))]),
        ("true", [(Scalar(True), (0, 4)), (DONE, (3, 4))]),
        ('"ab"', [(String("ab"), (1, 3)), (DONE, (3, 4))]),
        ("[1 ]", [(Scalar(1), (1, 2)), (DONE, (2, 3)), (DONE, (3, 4))]),
        ('"a\\nb"', [(String("a\nb"), (1, 5)), (DONE, (5, 6))]),  # escapes included: 4 raw, 3 decoded
        ('"\\ud83d\\ude00"', [(String("\U0001f600"), (1, 13)), (DONE, (13, 14))]),
    ],
)
def test_root_values(doc, expected):
    assert leaves(doc) == expected


@pytest.mark.parametrize(
    ("chunks", "expected"),
    [
        # an escape cut by the chunk's end belongs to the next piece, which starts at its backslash
        (['"ab\\u00', 'e9cd"'], [(String("ab"), (1, 3)), (String("écd"), (3, 11)), (DONE, (11, 12))]),
        (['"ab\\', 'ncd"'], [(String("ab"), (1, 3)), (String("\ncd"), (3, 7)), (DONE, (7, 8))]),
        # a high surrogate waits for its low half; a lone one goes out with what follows it
        (['"\\ud83d', '\\ude00"'], [(String("\U0001f600"), (1, 13)), (DONE, (13, 14))]),
        (['"x\\ud800', 'y"'], [(String("x"), (1, 2)), (String("\ufffdy"), (2, 9)), (DONE, (9, 10))]),
        (['"x\\ud800\\u00', 'e9"'], [(String("x"), (1, 2)), (String("\ufffdé"), (2, 14)), (DONE, (14, 15))]),
        (['"x', '\\ud800', '"'], [(String("x"), (1, 2)), (String("\ufffd"), (2, 8)), (DONE, (8, 9))]),
        # pieces wholly inside a string (the pure twin's fast path)
        (['"ab', "cd", 'e"'], [(String("ab"), (1, 3)), (String("cd"), (3, 5)), (String("e"), (5, 6)), (DONE, (6, 7))]),
        # bytes: UTF-8 counts in bytes, and a sequence cut by the chunk's end starts the next piece
        ([b'"\xc3\xa9x"'], [(String("éx"), (1, 4)), (DONE, (4, 5))]),
        ([b'"a\xc3', b'\xa9"'], [(String("a"), (1, 2)), (String("é"), (2, 4)), (DONE, (4, 5))]),
        ([b'"a\xf0\x9f', b"\x98", b'\x80b"'], [(String("a"), (1, 2)), (String("\U0001f600b"), (2, 7)), (DONE, (7, 8))]),
    ],
)
def test_pieces_across_chunks(chunks, expected):
    for cls in BACKENDS:
        assert spanned(cls, chunks)[0] == expected, cls


def test_flat_mode_has_the_same_spans():
    doc = '{"a": [1, {"b": "x\\ty"}], "c": null}'
    assert leaves(doc, flat=True) == leaves(doc)


def test_spans_of_the_failing_call(make_parser):
    p = make_parser(spans=True)
    p.push('["abc", 1')
    assert p.spans == [(2, 5), (5, 6)]
    with pytest.raises(ArgumentStreamError) as info:
        p.push(', "de\\x"]')
    assert info.value.fragments == [ArrayItem(1, Scalar(1)), ArrayItem(1, DONE), ArrayItem(2, String("de"))]
    assert p.spans == [(8, 9), (9, 10), (12, 14)]  # "de" ends where the bad escape began


def test_duplicate_key_error_spans(make_parser):
    p = make_parser(spans=True, catch_duplicate_keys=True)
    with pytest.raises(ArgumentStreamError):
        p.push('{"a": 1, "a": 2}')
    assert p.spans == [(6, 7), (7, 8)]


# -- property --------------------------------------------------------------------------------------------


@st.composite
def chunked(draw):
    doc = draw(documents())
    data = doc.encode() if draw(st.booleans()) else doc
    points = draw(st.lists(st.integers(0, len(data)), max_size=12))
    if draw(st.booleans()):  # and sometimes a run of one-unit chunks
        start = draw(st.integers(0, len(data)))
        points += range(start, min(len(data), start + 10))
    return data, cut(data, points)


@pytest.mark.hypothesis
@given(chunked())
def test_property_spans(case):
    data, chunks = case
    note(repr(data))
    text = data if isinstance(data, str) else data.decode("latin-1")  # one character per input unit
    quote = '"' if isinstance(data, str) else b'"'
    runs = [spanned(cls, chunks) for cls in BACKENDS]
    assert all(r == runs[0] for r in runs)  # identical across backends
    got, position = runs[0]
    assert position == len(data)
    reference, _ = spanned(BACKENDS[0], [data])
    # structure spans do not depend on chunking; String pieces tile their value's raw text
    assert [(canon(((), leaf)), span) for leaf, span in got if type(leaf) is not String] == [
        (canon(((), leaf)), span) for leaf, span in reference if type(leaf) is not String
    ]
    prev = (0, 0)
    for k, (leaf, (start, end)) in enumerate(got):
        assert start >= prev[0] and end >= prev[1], "spans go back"
        prev = (start, end)
        if type(leaf) in STRING_TYPES:
            raw = data[start:end]
            assert json.loads(quote + raw + quote) == leaf.text  # the raw input decodes to the piece
            if isinstance(data, str) and "\\" not in raw:
                assert raw == leaf.text
            nxt = got[k + 1]
            if type(nxt[0]) is String:
                assert nxt[1][0] == end  # consecutive pieces are contiguous
            else:
                assert nxt[1] == (end, end + 1) and text[end] == '"'
        elif type(leaf) in SCALAR_TYPES:
            assert same_json(json.loads(data[start:end]), leaf.value)
        else:
            assert end - start == 1 or (start == end == len(data) and leaf is DONE)
            if end > start:
                assert text[start] in '"]}' + "el" + " \t\r\n,"


@pytest.mark.parametrize("cls", BACKENDS)
def test_a_calls_spans_and_keys_outlive_the_next_call(cls) -> None:
    """``spans`` and ``keys`` are the last call's: read twice they are the same list, and a list read
    before the next call keeps its contents after it (the compiled builder makes them when read)."""
    p = cls(spans=True, flat=True)
    first = p.push('{"a": "xy')
    spans, keys = p.spans, p.keys
    assert p.spans is spans and p.keys is keys
    assert len(spans) == len(first) and [k[1] for k in keys] == [("a",)]
    kept_spans, kept_keys = list(spans), list(keys)
    second = p.push('z", "b": [1, 2]}')
    assert spans == kept_spans and keys == kept_keys
    assert len(p.spans) == len(second) and [k[1] for k in p.keys] == [("b",)]
    p.push(" ")
    assert p.spans == [] and p.keys == []


@pytest.mark.parametrize("cls", BACKENDS)
def test_a_large_call_then_small_ones(cls) -> None:
    """A call with many fragments (the compiled builder's span buffer grows, then is let go) and the
    calls after it give the spans a parser fed the same text in one call gives, shifted."""
    doc = json.dumps({"k": list(range(5000)), "s": "x" * 10})
    p = cls(spans=True, flat=True)
    cut_at = doc.index('"s"')
    big = p.push(doc[:cut_at])
    big_spans = list(p.spans)
    small = p.push(doc[cut_at:]) + p.finish()
    whole = cls(spans=True, flat=True)
    fragments = whole.push(doc)
    whole_spans = whole.spans
    assert big + small == fragments + whole.finish()
    assert big_spans == whole_spans[:len(big_spans)]
