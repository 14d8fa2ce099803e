"""``catch_duplicate_keys``: a repeated key raises ``DuplicateKeyError`` at its closing quote.

The attack: ``{"path": "README.md", "path": "/etc/passwd"}`` -- a policy decides on the first
value and the call runs with the second (``json.loads`` keeps the last).
"""

from __future__ import annotations

import json
import pickle

import pytest
from hypothesis import given, note
from hypothesis import strategies as st

import argstream
from argstream import DONE, ArgumentStreamError, DuplicateKeyError, ObjectEntry, Scalar, String
from argstream.parser import IncrementalArgParserC, IncrementalArgParserPy

from _support import CHUNKINGS, aggregate, cut, error_of, every_split, fields, run, same_json

ATTACK = '{"path": "README.md", "path": "/etc/passwd"}'
ATTACK_POS = ATTACK.index('"path"', 2) + len('"path')  # the repeated key's closing quote

# (document, repeated key, position of its closing quote)
DUPLICATES = [
    ('{"a":1,"a":2}', "a", 9),
    ('{"a":1,"b":2,"a":3}', "a", 15),
    ('{"":1,"":2}', "", 7),
    ('{"a":{"x":1},"a":[]}', "a", 15),
    ('{"a":{"b":1,"b":2}}', "b", 14),
    ('{"o":{"a":1},"p":{"a":1,"a":2}}', "a", 26),
    ('[{"a":1},{"b":1,"b":2}]', "b", 18),
    ('{"a":1,"\\u0061":2}', "a", 14),
    ('{"\\u0061":1,"a":2}', "a", 14),
    ('{"/":1,"\\/":2}', "/", 10),
    ('{"\\ud83d\\ude00":1,"\U0001f600":2}', "\U0001f600", 20),
    ('{"\\n":1,"\\u000a":2}', "\n", 15),
    ('{"é":1,"\\u00e9":2}', "é", 14),
    ('{\n  "a": 1,\n  "a": 2\n}', "a", 16),
]

# distinct keys, and the same key at different levels or in different objects
NOT_DUPLICATES = [
    '{"a":1,"b":2,"A":3,"a ":4," a":5}',
    '{"a":{"a":{"a":1}}}',
    '[{"a":1},{"a":2},{"a":3}]',
    '{"x":{"a":1},"y":{"a":1}}',
    '{"a":{"b":1},"b":2}',
    '{"a":[{"a":1},{"a":[{"a":2}]}]}',
    '{"k":"a","a":"k"}',
    '{"\\u00e9":1,"e\\u0301":2}',
    '[{"a":1,"b":{}},{"a":1,"b":{}}]',
]


def _doc(doc: str, as_bytes: bool):
    return doc.encode() if as_bytes else doc


@pytest.mark.parametrize("as_bytes", [False, True], ids=["str", "bytes"])
@pytest.mark.parametrize("flat", [False, True], ids=["nested", "flat"])
@pytest.mark.parametrize(("doc", "key", "quote"), DUPLICATES)
def test_duplicate_raises_at_the_closing_quote(make_parser, doc, key, quote, flat, as_bytes):
    data = _doc(doc, as_bytes)
    pos = len(doc[:quote].encode()) if as_bytes else quote
    assert data[pos : pos + 1] in ('"', b'"')
    for name, chunking in CHUNKINGS.items():
        exc = error_of(make_parser, chunking(data), catch_duplicate_keys=True, flat=flat)
        assert type(exc) is DuplicateKeyError, name
        assert isinstance(exc, ArgumentStreamError)
        assert (exc.msg, exc.pos, exc.key) == ("Duplicate key", pos, key), name
        last_nl = data.rfind(b"\n" if as_bytes else "\n", 0, pos)
        assert (exc.line, exc.col) == (doc.count("\n", 0, quote) + 1, pos - last_nl), name


@pytest.mark.parametrize("as_bytes", [False, True], ids=["str", "bytes"])
@pytest.mark.parametrize("flat", [False, True], ids=["nested", "flat"])
@pytest.mark.parametrize("doc", NOT_DUPLICATES)
def test_distinct_keys_parse(make_parser, doc, flat, as_bytes):
    data = _doc(doc, as_bytes)
    for chunking in CHUNKINGS.values():
        fragments = run(make_parser, chunking(data), catch_duplicate_keys=True, flat=flat)
        assert same_json(aggregate(fragments), json.loads(doc))
        assert fragments == run(make_parser, chunking(data), flat=flat)


@pytest.mark.parametrize("as_bytes", [False, True], ids=["str", "bytes"])
def test_every_split_point(make_parser, as_bytes):
    doc = '{"x":{"é":1},"\\u00e9":[{"a":1}],"é":2}'
    data = _doc(doc, as_bytes)
    quote = doc.rindex('"é"') + 2
    pos = len(doc[:quote].encode()) if as_bytes else quote
    expected = (DuplicateKeyError, "Duplicate key", pos, 1, pos + 1)
    for chunks in every_split(data):
        exc = error_of(make_parser, chunks, catch_duplicate_keys=True)
        assert (fields(exc), exc.key) == (expected, "é"), chunks


def test_off_by_default_last_value_wins(make_parser):
    p = make_parser()
    fragments = p.push(ATTACK) + p.finish()
    assert aggregate(fragments) == json.loads(ATTACK) == {"path": "/etc/passwd"}
    assert run(make_parser, [ATTACK], catch_duplicate_keys=False) == fragments


def test_the_attack(make_parser):
    exc = error_of(make_parser, [ATTACK], catch_duplicate_keys=True)
    assert (type(exc), exc.pos, exc.key) == (DuplicateKeyError, ATTACK_POS, "path")
    # the first value went out, the second never does
    assert exc.fragments == [
        ObjectEntry("path", String("README.md")),
        ObjectEntry("path", DONE),
    ]


def test_fragments_before_the_error_in_the_failing_chunk(make_parser):
    p = make_parser(catch_duplicate_keys=True)
    assert p.push('{"a":1,"b":') == [ObjectEntry("a", Scalar(1)), ObjectEntry("a", DONE)]
    with pytest.raises(DuplicateKeyError) as info:
        p.push('"x","a":2}')
    assert info.value.fragments == [ObjectEntry("b", String("x")), ObjectEntry("b", DONE)]


def test_sticky(make_parser):
    p = make_parser(catch_duplicate_keys=True)
    with pytest.raises(DuplicateKeyError) as first:
        p.push('{"a":1,"a"')
    for again in (lambda: p.push(":2}"), p.finish, lambda: p.push("")):
        with pytest.raises(DuplicateKeyError) as info:
            again()
        assert info.value is first.value
    assert not p.done


def test_bytes_and_bytearray(make_parser):
    doc = '{"k\\u00e9y":1,"ké\\u0079":2}'.encode()
    for chunk in (doc, bytearray(doc), memoryview(doc)):
        exc = error_of(make_parser, [chunk], catch_duplicate_keys=True)
        assert (exc.key, exc.pos) == ("kéy", len(doc) - 4)


def test_lone_surrogates_compare_as_decoded(make_parser):
    """Keys are compared after decoding: under "replace" two lone surrogates both become U+FFFD."""
    doc = '{"\\ud800":1,"\\udc00":2}'
    exc = error_of(make_parser, [doc], catch_duplicate_keys=True)
    assert (exc.key, exc.pos) == ("\ufffd", 19)
    fragments = run(make_parser, [doc], catch_duplicate_keys=True, surrogates="pass")
    assert len(aggregate(fragments)) == 2


def test_many_keys(make_parser):
    keys = [f"k{i}" for i in range(3000)]
    doc = "{" + ",".join(f'"{k}":{i}' for i, k in enumerate(keys)) + "}"
    assert aggregate(run(make_parser, [doc], catch_duplicate_keys=True)) == json.loads(doc)
    bad = doc[:-1] + ',"k1234":0}'
    exc = error_of(make_parser, [bad], catch_duplicate_keys=True)
    assert (exc.key, exc.pos) == ("k1234", len(bad) - 4)


def test_error_fields_and_pickle():
    exc = DuplicateKeyError("Duplicate key", 9, 1, 10, "a")
    assert str(exc) == "Duplicate key: line 1 column 10 (char 9)"
    again = pickle.loads(pickle.dumps(exc))
    assert (type(again), again.msg, again.pos, again.line, again.col, again.key) == (
        DuplicateKeyError, "Duplicate key", 9, 1, 10, "a",
    )
    assert "DuplicateKeyError" in argstream.__all__
    assert argstream.DuplicateKeyError is DuplicateKeyError


def test_tokenizer_option():
    from argstream import parser as _parser

    for cls in filter(None, (_parser.TokenizerPy, _parser.TokenizerC)):
        tok = cls(512, "replace", True)
        keys: list[str] = []

        class Keys:
            def __getattr__(self, name):
                return keys.append if name == "on_key" else lambda *a: None

        with pytest.raises(DuplicateKeyError):
            tok.push('{"a":{"a":1},"b":2,"a":3}', Keys())
        assert keys == ["a", "a", "b"]


# -- property: random objects with duplicates injected --------------------------------------------------

keys = st.sampled_from(["a", "b", "é", "", "k\n"])
values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=3),
    lambda children: st.lists(children, max_size=3) | st.lists(st.tuples(keys, children), max_size=4),
    max_leaves=12,
)


def _escape_key(key: str, draw) -> str:
    """Spell ``key`` with random escapes (the same key after unescaping)."""
    return "".join(f"\\u{ord(c):04x}" if draw(st.booleans()) else json.dumps(c)[1:-1] for c in key)


def _serialize(value, draw) -> str:
    """A JSON text in which member lists (lists of pairs) become objects that may repeat keys."""
    if isinstance(value, list) and value and all(isinstance(v, tuple) for v in value):
        members = ",".join(f'"{_escape_key(k, draw)}":{_serialize(v, draw)}' for k, v in value)
        return "{" + members + "}"
    if isinstance(value, list):
        if not value and draw(st.booleans()):
            return "{}"
        return "[" + ",".join(_serialize(v, draw) for v in value) + "]"
    return json.dumps(value)


def _has_duplicates(doc: str) -> bool:
    """Whether some object repeats a key, by ``json``'s own decoder (a check on the scanner below)."""
    found: list[bool] = []

    def hook(pairs):
        found.append(len({k for k, _ in pairs}) < len(pairs))
        return dict(pairs)

    json.loads(doc, object_pairs_hook=hook)
    return any(found)


def _scan_first_duplicate(doc: str) -> tuple[str, int] | None:
    """(key, closing quote offset) of the first key that repeats one of its object's keys, in document order."""
    stack: list[set[str] | None] = []
    i = 0
    expect_key = False
    while i < len(doc):
        c = doc[i]
        if c == '"':
            text, end = json.decoder.scanstring(doc, i + 1)
            if expect_key:
                seen = stack[-1]
                assert seen is not None
                if text in seen:
                    return text, end - 1
                seen.add(text)
                expect_key = False
            i = end
            continue
        if c == "{":
            stack.append(set())
            expect_key = True
        elif c == "[":
            stack.append(None)
        elif c in "]}":
            stack.pop()
        elif c == ",":
            expect_key = stack[-1] is not None
        i += 1
    return None


@st.composite
def documents_with_duplicates(draw):
    value = draw(values.filter(lambda v: isinstance(v, list) and bool(v) and all(isinstance(x, tuple) for x in v)))
    doc = _serialize(value, draw)
    as_bytes = draw(st.booleans())
    data = doc.encode() if as_bytes else doc
    points = draw(st.lists(st.integers(0, len(data)), max_size=10))
    return doc, as_bytes, cut(data, points)


@pytest.mark.hypothesis
@given(documents_with_duplicates())
def test_property_raises_exactly_on_duplicates(case):
    doc, as_bytes, chunks = case
    note(repr(doc))
    first = _scan_first_duplicate(doc)
    assert (first is not None) == _has_duplicates(doc)
    for cls in filter(None, (IncrementalArgParserC, IncrementalArgParserPy)):
        if first is None:
            fragments = run(cls, chunks, catch_duplicate_keys=True)
            assert same_json(aggregate(fragments), json.loads(doc))
        else:
            key, quote = first
            exc = error_of(cls, chunks, catch_duplicate_keys=True)
            pos = len(doc[:quote].encode()) if as_bytes else quote
            assert (type(exc), exc.key, exc.pos) == (DuplicateKeyError, key, pos)
