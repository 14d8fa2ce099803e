"""Errors: fields, ``str()``, the position of the first proving character under any chunking, stickiness."""

from __future__ import annotations

import json
import pickle

import pytest

import argstream
from argstream import DONE, ArgumentStreamError, ArrayItem, IncompleteJSONError, ObjectEntry, Scalar, String

from _support import CHUNKINGS, aggregate, error_of, every_split, fields, one_unit, random_chunks, string_texts
from conftest import CONFORMANCE

# (document, msg, pos, line, col, incomplete). pos is the first character that proves the input invalid
# (for end-of-input errors: the end). Where json.JSONDecodeError agrees, the comment says "= json".
INVALID = [
    ("[1,]", "Illegal trailing comma before end of array", 3, 1, 4, False),
    ('{"a":1,}', "Illegal trailing comma before end of object", 7, 1, 8, False),
    ('{\n"a":1\n,\n}', "Illegal trailing comma before end of object", 10, 4, 1, False),
    ("[1,,]", "Expecting value", 3, 1, 4, False),  # = json
    ('{"a":1,,}', "Expecting property name enclosed in double quotes", 7, 1, 8, False),  # = json
    ("[1 2]", "Expecting ',' delimiter", 3, 1, 4, False),  # = json
    ('{"a" 1}', "Expecting ':' delimiter", 5, 1, 6, False),  # = json
    ("{1:2}", "Expecting property name enclosed in double quotes", 1, 1, 2, False),  # = json
    ("{,}", "Expecting property name enclosed in double quotes", 1, 1, 2, False),  # = json
    ('{"a":}', "Expecting value", 5, 1, 6, False),  # = json
    ("[,1]", "Expecting value", 1, 1, 2, False),  # = json
    ("[1}", "Expecting ',' delimiter", 2, 1, 3, False),  # = json
    ('{"a":1]', "Expecting ',' delimiter", 6, 1, 7, False),  # = json
    ('{"a":1 "b":2}', "Expecting ',' delimiter", 7, 1, 8, False),  # = json
    ('["a" "b"]', "Expecting ',' delimiter", 5, 1, 6, False),  # = json
    ("[true1]", "Expecting ',' delimiter", 5, 1, 6, False),  # = json
    ("[01]", "Expecting ',' delimiter", 2, 1, 3, False),  # = json
    ("[1,\n 2\n x]", "Expecting ',' delimiter", 8, 3, 2, False),  # = json
    ("[\r\n1 2]", "Expecting ',' delimiter", 5, 2, 3, False),  # = json
    ("]", "Expecting value", 0, 1, 1, False),  # = json
    ("}", "Expecting value", 0, 1, 1, False),  # = json
    (":", "Expecting value", 0, 1, 1, False),  # = json
    (".5", "Expecting value", 0, 1, 1, False),  # = json
    ("+1", "Expecting value", 0, 1, 1, False),  # = json
    ("'a'", "Expecting value", 0, 1, 1, False),  # = json
    ("True", "Expecting value", 0, 1, 1, False),  # = json
    ("NaN", "Expecting value", 0, 1, 1, False),  # json accepts NaN; we do not
    ("\n\n  }", "Expecting value", 4, 3, 3, False),  # = json
    ("[-]", "Invalid number", 2, 1, 3, False),
    ("-x", "Invalid number", 1, 1, 2, False),
    ("-Infinity", "Invalid number", 1, 1, 2, False),
    ("1.e5", "Invalid number", 2, 1, 3, False),
    ("[1.]", "Invalid number", 3, 1, 4, False),
    ("[1e+]", "Invalid number", 4, 1, 5, False),
    ("trux", "Invalid literal", 3, 1, 4, False),
    ("[nul]", "Invalid literal", 4, 1, 5, False),
    ("fAlse", "Invalid literal", 1, 1, 2, False),
    ('"\\x"', "Invalid \\escape", 2, 1, 3, False),
    ('"\\U0041"', "Invalid \\escape", 2, 1, 3, False),
    ('"\\ "', "Invalid \\escape", 2, 1, 3, False),
    ("\"\\'\"", "Invalid \\escape", 2, 1, 3, False),
    ('["ok", "\\a"]', "Invalid \\escape", 9, 1, 10, False),
    ('"\\u12g4"', "Invalid \\uXXXX escape", 5, 1, 6, False),
    ('"\\uD800\\u"', "Invalid \\uXXXX escape", 9, 1, 10, False),
    ('{"k\\u00"', "Invalid \\uXXXX escape", 7, 1, 8, False),
    ('"a\x01"', "Invalid control character in string", 2, 1, 3, False),
    ('{"a\tb":1}', "Invalid control character in string", 3, 1, 4, False),
    ('["x\ny"]', "Invalid control character in string", 3, 1, 4, False),
    ("01", "Extra data", 1, 1, 2, False),  # = json
    ("-01", "Extra data", 2, 1, 3, False),  # = json
    ("1.5.3", "Extra data", 3, 1, 4, False),  # = json
    ("[] x", "Extra data", 3, 1, 4, False),  # = json
    ("{}{}", "Extra data", 2, 1, 3, False),  # = json
    ("1 2", "Extra data", 2, 1, 3, False),  # = json
    ('"a""b"', "Extra data", 3, 1, 4, False),  # = json
    ("true false", "Extra data", 5, 1, 6, False),  # = json
    ("nulll", "Extra data", 4, 1, 5, False),  # = json
    ("[]]", "Extra data", 2, 1, 3, False),  # = json
    ('{"a":1}x', "Extra data", 7, 1, 8, False),  # = json
    ("[1]\n\n x", "Extra data", 6, 3, 2, False),  # = json
    ("", "Expecting value", 0, 1, 1, True),  # = json
    (" ", "Expecting value", 1, 1, 2, True),  # = json
    ("   \n  ", "Expecting value", 6, 2, 3, True),  # = json
    ("[", "Unterminated array", 1, 1, 2, True),
    ("[1,", "Unterminated array", 3, 1, 4, True),
    ("[\n", "Unterminated array", 2, 2, 1, True),
    ("{", "Unterminated object", 1, 1, 2, True),
    ('{"a"', "Unterminated object", 4, 1, 5, True),
    ('{"a":', "Unterminated object", 5, 1, 6, True),
    ('{"a":1,', "Unterminated object", 7, 1, 8, True),
    ('"abc', "Unterminated string", 4, 1, 5, True),
    ('"abc\\', "Unterminated string", 5, 1, 6, True),
    ('"\\u12', "Unterminated string", 5, 1, 6, True),
    ('{"ke', "Unterminated string", 4, 1, 5, True),
    ("[1", "Incomplete number", 2, 1, 3, True),
    ("-", "Incomplete number", 1, 1, 2, True),
    ("1.", "Incomplete number", 2, 1, 3, True),
    ("1e", "Incomplete number", 2, 1, 3, True),
    ("1e-", "Incomplete number", 3, 1, 4, True),
    ("t", "Incomplete literal", 1, 1, 2, True),
    ("nu", "Incomplete literal", 2, 1, 3, True),
    ("[fals", "Incomplete literal", 5, 1, 6, True),
    ("[1,\x0c2]", "Expecting value", 3, 1, 4, False),  # = json: form feed is not JSON whitespace
    ("[\x0b]", "Expecting value", 1, 1, 2, False),  # = json
    ("\u00a0[]", "Expecting value", 0, 1, 1, False),  # = json
    ("\ufeff[]", "Expecting value", 0, 1, 1, False),  # a BOM is not whitespace
    ("[1]\u2028", "Extra data", 3, 1, 4, False),  # = json
]

INVALID_IDS = [repr(d[0])[1:-1][:24] or "empty" for d in INVALID]


def expected_error(doc, msg, pos, line, col, incomplete):
    return (IncompleteJSONError if incomplete else ArgumentStreamError, msg, pos, line, col)


@pytest.mark.parametrize("case", INVALID, ids=INVALID_IDS)
@pytest.mark.parametrize("chunking", CHUNKINGS)
def test_error_position(make_parser, case, chunking):
    """The same (type, msg, pos, line, col) whole, one character at a time and in random chunks."""
    doc = case[0]
    assert fields(error_of(make_parser, CHUNKINGS[chunking](doc))) == expected_error(*case)


@pytest.mark.parametrize("case", INVALID, ids=INVALID_IDS)
def test_error_position_every_split_and_bytes(make_parser, case):
    expected = expected_error(*case)
    doc = case[0]
    for chunks in every_split(doc):
        assert fields(error_of(make_parser, chunks)) == expected, chunks
    for seed in range(3):
        assert fields(error_of(make_parser, random_chunks(doc.encode(), seed, 3))) == expected


@pytest.mark.parametrize("case", INVALID, ids=INVALID_IDS)
def test_raised_by_push_or_by_finish(make_parser, case):
    """Invalid input raises from the push that holds the proving character; only the end raises from finish()."""
    doc, incomplete = case[0], case[5]
    p = make_parser()
    if incomplete:
        p.push(doc)
        with pytest.raises(IncompleteJSONError):
            p.finish()
    else:
        with pytest.raises(ArgumentStreamError) as info:
            p.push(doc)
        assert type(info.value) is ArgumentStreamError


# -- the exception type ----------------------------------------------------------------


def test_exception_fields_and_str():
    e = ArgumentStreamError("Expecting value", 12, 3, 4)
    assert isinstance(e, ValueError)
    assert (e.msg, e.pos, e.line, e.col) == ("Expecting value", 12, 3, 4)
    assert str(e) == "Expecting value: line 3 column 4 (char 12)"
    assert issubclass(IncompleteJSONError, ArgumentStreamError)


@pytest.mark.parametrize("cls", [ArgumentStreamError, IncompleteJSONError])
def test_exception_pickles(cls):
    e = cls("Unterminated array", 7, 2, 3)
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is cls
    assert (back.msg, back.pos, back.line, back.col, str(back)) == (e.msg, e.pos, e.line, e.col, str(e))


@pytest.mark.parametrize("case", INVALID, ids=INVALID_IDS)
def test_str_format(make_parser, case):
    e = error_of(make_parser, [case[0]])
    assert str(e) == f"{e.msg}: line {e.line} column {e.col} (char {e.pos})"
    assert e.args == (str(e),)


# -- agreement with json.JSONDecodeError ----------------------------------------------

# Messages whose position json and we define alike. (json points escapes at the backslash and a bad
# number at its start; we point at the character that proves the error.)
AGREEING = {
    "Expecting value",
    "Extra data",
    "Expecting ',' delimiter",
    "Expecting ':' delimiter",
    "Expecting property name enclosed in double quotes",
}


def _json_corpus() -> list[str]:
    docs = [case[0] for case in INVALID]
    if CONFORMANCE.is_dir():
        for path in sorted(CONFORMANCE.glob("n_*.json")):
            try:
                docs.append(path.read_bytes().decode("utf-8"))
            except UnicodeDecodeError:
                pass
    return docs


def test_positions_agree_with_json(make_parser):
    compared = 0
    for doc in _json_corpus():
        try:
            json.loads(doc)
            continue
        except json.JSONDecodeError as exc:
            ref = exc
        except (ValueError, RecursionError):  # an int too long to convert; json's recursion limit
            continue
        ours = error_of(make_parser, [doc])
        if ours.msg == ref.msg and ours.msg in AGREEING:
            assert (ours.pos, ours.line, ours.col, str(ours)) == (ref.pos, ref.lineno, ref.colno, str(ref)), doc
            compared += 1
    assert compared >= 40


@pytest.mark.parametrize("case", [c for c in INVALID if c[1] in AGREEING and c[0] != "NaN"], ids=str)
def test_marked_cases_agree_with_json(case):
    """The table's "= json" rows: json.loads reports the same message and position."""
    with pytest.raises(json.JSONDecodeError) as info:
        json.loads(case[0])
    if info.value.msg == case[1]:
        assert (info.value.pos, info.value.lineno, info.value.colno) == case[2:5]


# -- stickiness -----------------------------------------------------------------------


@pytest.mark.parametrize("case", INVALID[::4], ids=INVALID_IDS[::4])
def test_errors_are_sticky(make_parser, case):
    doc = case[0]
    first = error_of(make_parser, [doc])
    p = make_parser()
    with pytest.raises(ArgumentStreamError) as info:
        p.push(doc)
        p.finish()
    assert fields(info.value) == fields(first)
    for later in ["", " ", "]", "}", '"x"', "1"]:
        with pytest.raises(ArgumentStreamError) as again:
            p.push(later)
        assert fields(again.value) == fields(first)
    with pytest.raises(ArgumentStreamError) as again:
        p.finish()
    assert fields(again.value) == fields(first)


def test_sticky_error_comes_before_type_checks(make_parser):
    p = make_parser()
    with pytest.raises(ArgumentStreamError) as info:
        p.push("[x")
    for later in (b"1", bytearray(b"1"), 123, None):
        with pytest.raises(ArgumentStreamError) as again:
            p.push(later)
        assert fields(again.value) == fields(info.value)
    assert not p.done


def test_sticky_error_keeps_its_fragments(make_parser):
    p = make_parser()
    with pytest.raises(ArgumentStreamError) as info:
        p.push("[1, 2 x")
    first = info.value
    decoded = list(first.fragments)
    assert decoded == [ArrayItem(0, Scalar(1)), ArrayItem(0, DONE), ArrayItem(1, Scalar(2)), ArrayItem(1, DONE)]
    with pytest.raises(ArgumentStreamError) as again:
        p.push("]")
    assert fields(again.value) == fields(first)
    assert first.fragments == decoded


def test_incomplete_error_is_sticky(make_parser):
    p = make_parser()
    p.push('{"a": [1')
    with pytest.raises(IncompleteJSONError) as info:
        p.finish()
    for call in (lambda: p.push("]}"), p.finish):
        with pytest.raises(IncompleteJSONError) as again:
            call()
        assert fields(again.value) == fields(info.value)


# -- truncated input --------------------------------------------------------------------

VALID = [
    '{"path": "/tmp/x", "n": [1, -2.5e3, true, null, {"k": "\\u00e9\\n"}], "e": {}}',
    '[[], {}, "", [[[]]], 0]',
    '"str\\"ing"',
    "  true  ",
]


@pytest.mark.parametrize("doc", VALID)
def test_every_truncation_is_incomplete(make_parser, doc):
    """Every proper prefix pushes without error; finish() raises IncompleteJSONError at its end."""
    for k in range(len(doc.rstrip())):
        prefix = doc[:k]
        p = make_parser()
        p.push(prefix)
        with pytest.raises(IncompleteJSONError) as info:
            p.finish()
        assert info.value.pos == k
        assert info.value.fragments == []


def test_empty_input(make_parser):
    for chunks in ([], [""], ["", ""], [b""]):
        e = error_of(make_parser, chunks)
        assert fields(e) == (IncompleteJSONError, "Expecting value", 0, 1, 1)


# -- data after the root, depth -------------------------------------------------------------


def test_extra_data_after_complete_root(make_parser):
    p = make_parser()
    assert p.push("[]") == [argstream.Empty("array"), DONE]
    assert p.done
    with pytest.raises(ArgumentStreamError) as info:
        p.push("  x")
    assert fields(info.value) == (ArgumentStreamError, "Extra data", 4, 1, 5)


def test_extra_data_after_root_number(make_parser):
    p = make_parser()
    with pytest.raises(ArgumentStreamError) as info:
        p.push("12 3")
    assert (info.value.msg, info.value.pos) == ("Extra data", 3)
    assert info.value.fragments == [Scalar(12), DONE]


@pytest.mark.parametrize("chunk_size", [100_000, 4096, 1])
@pytest.mark.parametrize("flat, depth", [(False, 64), (True, 512)])  # the default max_depth of each form
def test_hundred_thousand_open_brackets(make_parser, chunk_size, flat, depth):
    """The depth error, not a RecursionError or a crash."""
    doc = "[" * 100_000
    chunks = [doc[i : i + chunk_size] for i in range(0, len(doc), chunk_size)]
    assert fields(error_of(make_parser, chunks, flat=flat)) == (
        ArgumentStreamError, "Maximum nesting depth exceeded", depth, 1, depth + 1)


def test_hundred_thousand_open_brackets_within_max_depth(make_parser):
    e = error_of(make_parser, ["[" * 100_000], max_depth=1_000_000)
    assert fields(e) == (IncompleteJSONError, "Unterminated array", 100_000, 1, 100_001)


@pytest.mark.parametrize("depth", [1, 2, 3, 17, 64, 512])
@pytest.mark.parametrize("opener", ["[", '{"a":', '[{"a":'])
def test_max_depth_is_exact(make_parser, depth, opener):
    flat_kw = {} if depth == 512 else {"max_depth": depth}  # the defaults: 512 flat, 64 nested
    kw = {} if depth == 64 else {"max_depth": depth}
    closer = {"[": "]", '{"a":': "}", '[{"a":': "}]"}[opener]
    levels = len(closer)
    reps = depth // levels
    ok = opener * reps + "0" + closer * reps
    assert aggregate(argstream_run(make_parser, ok, **flat_kw)) == json.loads(ok)
    too_deep = opener * reps + "[" * (depth - reps * levels + 1) + "0"
    e = error_of(make_parser, [too_deep], flat=True, **flat_kw)
    assert (e.msg, e.pos) == ("Maximum nesting depth exceeded", len(too_deep) - 2)
    e = error_of(make_parser, [too_deep], **kw)
    assert (e.msg, e.pos) == ("Maximum nesting depth exceeded", len(too_deep) - 2)
    e = error_of(make_parser, one_unit(too_deep), **kw)
    assert (e.msg, e.pos) == ("Maximum nesting depth exceeded", len(too_deep) - 2)


def argstream_run(make_parser, doc, **kw):
    p = make_parser(flat=True, **kw)
    return p.push(doc) + p.finish()


# -- strings ------------------------------------------------------------------------------------


@pytest.mark.parametrize("code", range(0x20))
def test_control_characters(make_parser, code):
    c = chr(code)
    for doc, pos in ((f'["ab{c}"]', 4), (f'{{"k{c}": 1}}', 3), (f'"\\n{c}"', 3)):
        for chunks in ([doc], one_unit(doc), [doc.encode()]):
            e = error_of(make_parser, chunks)
            assert (type(e), e.msg, e.pos) == (ArgumentStreamError, "Invalid control character in string", pos)


def test_delete_is_not_a_control_character(make_parser):
    assert aggregate(argstream_run(make_parser, '"\x7f\x80"')) == "\x7f\x80"


@pytest.mark.parametrize("esc", list("acdeghijklmopqsvwxyzABFNRTU0'` \x7f\né"))
def test_invalid_escapes(make_parser, esc):
    doc = '["x", "ab\\' + esc + 'cd"]'
    for chunks in ([doc], one_unit(doc)):
        e = error_of(make_parser, chunks)
        assert (e.msg, e.pos) == ("Invalid \\escape", 10)


@pytest.mark.parametrize("bad", ["g", "G", " ", '"', "\\", "-", "x"])
@pytest.mark.parametrize("at", range(4))
def test_invalid_unicode_escapes(make_parser, bad, at):
    doc = '"\\u' + "0A1f"[:at] + bad + '00"'
    for chunks in ([doc], one_unit(doc)):
        e = error_of(make_parser, chunks)
        assert (e.msg, e.pos) == ("Invalid \\uXXXX escape", 3 + at)


# (bytes, pos): pos is the first byte of the ill-formed sequence, whichever byte proves it.
INVALID_UTF8 = [
    (b'"\xff"', 1),
    (b'"\x80"', 1),
    (b'"\xc3"', 1),  # truncated before the quote
    (b'"ab\xe2\x82"', 3),  # truncated before the quote
    (b'"\xf0\x9f\x98"', 1),
    (b'"\xe2\x82x"', 1),
    (b'"\xe2\x82\\n"', 1),  # truncated before an escape
    (b'"\xe2\x01"', 1),  # truncated before a control character
    (b'"\xed\xa0\x80"', 1),  # an encoded surrogate
    (b'"\xc0\xaf"', 1),  # overlong
    (b'"\xe0\x80\x80"', 1),  # overlong
    (b'"\xf4\x90\x80\x80"', 1),  # above U+10FFFF
    (b'"\xf5\x80\x80\x80"', 1),
    (b'"\xf0\x9f\x98\x80\xf0"', 5),
    (b'{"\xe9":1}', 2),  # latin-1 in a key
    (b'["ok", "\xc3\xa9\xe2"]', 10),
]


@pytest.mark.parametrize("data,pos", INVALID_UTF8, ids=[repr(d)[2:-1] for d, _ in INVALID_UTF8])
def test_invalid_utf8(make_parser, data, pos):
    expected = (ArgumentStreamError, "Invalid UTF-8", pos, 1, pos + 1)
    for chunks in [*every_split(data), one_unit(data), [bytearray(data)], [memoryview(data)]]:
        assert fields(error_of(make_parser, chunks)) == expected, chunks


def test_non_ascii_bytes_outside_strings(make_parser):
    assert fields(error_of(make_parser, [b"\xff"])) == (ArgumentStreamError, "Expecting value", 0, 1, 1)
    assert fields(error_of(make_parser, [b"\xef\xbb\xbf[]"])) == (ArgumentStreamError, "Expecting value", 0, 1, 1)
    assert fields(error_of(make_parser, ['["é", x]'.encode()])) == (ArgumentStreamError, "Expecting value", 7, 1, 8)
    assert fields(error_of(make_parser, ['["é", x]'])) == (ArgumentStreamError, "Expecting value", 6, 1, 7)


def test_longest_convertible_int(make_parser):
    """int() converts up to 4300 digits (sys.get_int_max_str_digits()); one more is an error, as in json.loads."""
    assert aggregate(argstream_run(make_parser, "[" + "7" * 4300 + "]")) == json.loads("[" + "7" * 4300 + "]")
    assert aggregate(argstream_run(make_parser, "-" + "7" * 4300)) == json.loads("-" + "7" * 4300)
    e = error_of(make_parser, ["[" + "7" * 4301 + "]"])
    assert (e.msg, e.pos) == ("Number too large to convert", 1)
    assert aggregate(argstream_run(make_parser, "7" * 5000 + ".5")) == float("inf")


@pytest.mark.parametrize("doc,pos", [("1" * 5000, 0), ("[" + "1" * 5000 + "]", 1), ('{"a": -' + "9" * 5000 + "}", 6)])
def test_number_too_large(make_parser, doc, pos):
    """An int too long for int() (like json.loads) is an error at the number's start, under any chunking."""
    for chunks in ([doc], [doc[i : i + 97] for i in range(0, len(doc), 97)]):
        e = error_of(make_parser, chunks)
        assert (type(e), e.msg, e.pos) == (ArgumentStreamError, "Number too large to convert", pos)


# -- fragments decoded before the error -------------------------------------------------------------


def test_fragments_before_the_error(make_parser):
    p = make_parser()
    first = p.push('[1, "ab')
    kept = list(first)
    with pytest.raises(ArgumentStreamError) as info:
        p.push('c", x]')
    assert info.value.fragments == [ArrayItem(1, String("c")), ArrayItem(1, DONE)]
    assert first == kept == [ArrayItem(0, Scalar(1)), ArrayItem(0, DONE), ArrayItem(1, String("ab"))]


def test_fragments_before_the_error_in_first_chunk(make_parser):
    with pytest.raises(ArgumentStreamError) as info:
        make_parser().push('{"a": 1, "b": tx')
    assert info.value.fragments == [ObjectEntry("a", Scalar(1)), ObjectEntry("a", DONE)]
    with pytest.raises(ArgumentStreamError) as info:
        make_parser(flat=True).push('{"a": {"b": []}, "c": 1.5e}')
    assert info.value.fragments == [
        (("a", "b"), argstream.Empty("array")), (("a", "b"), DONE), (("a",), DONE),
    ]


STRING_ERRORS = [
    '["abcd\x01"]',
    '["abcd\\x"]',
    '["abcd\\u12x4"]',
    '{"k": "abcd\\ud800\x01"}',
    '"abcd\\ud800\\q"',
]


@pytest.mark.parametrize("doc", STRING_ERRORS + [b'["abcd\xff"]', b'["abcd\xc3\xa9\xe2\x82x"]'])
def test_string_data_before_an_error_does_not_depend_on_chunking(make_parser, doc):
    """What arrives before an error (returned, plus ``exc.fragments``) is the same under every chunking."""
    delivered = []
    for chunks in [[doc], one_unit(doc), *every_split(doc)]:
        p, got = make_parser(), []
        try:
            for chunk in chunks:
                got += p.push(chunk)
        except ArgumentStreamError as exc:
            got += exc.fragments
        delivered.append(string_texts(got))
    assert all(d == delivered[1] for d in delivered), delivered


def test_fragments_stay_valid_after_an_error(make_parser):
    p = make_parser()
    got = p.push('{"a": [1, {"b": "x"}], "c": "te') + []
    snapshot = list(got)
    with pytest.raises(ArgumentStreamError):
        p.push("xt\x00")
    assert got == snapshot
    agg = argstream.FragmentAggregator()
    agg.extend(got)
    assert agg.snapshot() == {"a": [1, {"b": "x"}], "c": "te"}
