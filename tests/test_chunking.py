"""Chunk boundaries anywhere: every split point of short documents, one unit at a time, random cuts.

For each document and chunking: the aggregate equals ``json.loads``, ``String`` fragments are never
empty, the non-``String`` fragments and each string's text do not depend on the chunking, and a chunk
that ends inside a string yields its decoded part at once (only a split escape, surrogate pair or
UTF-8 sequence is held back).
"""

from __future__ import annotations

import codecs
import itertools
import json

import pytest

import argstream
from argstream import DONE, ArrayItem, Empty, ObjectEntry, Scalar, String, flatten
from argstream._backend import OBJECT_ENTRY_TYPES, STRING_TYPES

from _support import (
    aggregate, canon, check_stream, cut, every_split, loads, one_unit, random_chunks, run, run_per_push, same_json,
)


def check_all_chunkings(make_parser, doc, *, surrogates="replace", three_way=False, expected=None):
    """Run ``doc`` whole, split in two at every point (in three too if asked), one unit at a time and at random."""
    kw = {} if surrogates == "replace" else {"surrogates": surrogates}
    if expected is None:
        expected = loads(doc, surrogates)
    reference = run(make_parser, [doc], **kw)
    check_stream(reference, reference, expected)
    chunkings = [*every_split(doc), one_unit(doc), *(random_chunks(doc, s) for s in range(3))]
    if three_way:
        chunkings += [cut(doc, [i, j]) for i, j in itertools.combinations(range(1, len(doc)), 2)]
    for chunks in chunkings:
        check_stream(run(make_parser, chunks, **kw), reference, expected)
    return reference


# -- strings: escapes, surrogates, UTF-8 --------------------------------------------

ESCAPE_DOCS = [
    r'"a\"b\\c\/d\be\ff\ng\rh\ti"',
    r'"\u0041\u00e9\u20AC\uD83D\uDE00\ud83d\ude00 x\u0000\u001f"',
    r'"\\u0041 \\\" \\\\\u005c"',
    r'"\"\"\\\\"',
    r'"\uDBFF\uDFFF\uD800\uDC00"',
]

LONE_SURROGATE_DOCS = [
    r'"\ud800"',
    r'"\ud800x"',
    r'"\udc00"',
    r'"\ud800\ud800"',
    r'"\udc00\ud800"',
    r'"\ud800\n"',
    r'"\ud800\u0041"',
    r'"x\uD83D"',
    r'"\ud800\\"',
    r'"\ude00\ud83d\ude00"',
]

RAW_DOCS = ['"aé€😀z\x7f"', '{"é😀": "€", "k": ["ÿ", "𝄞"]}', '"\u0800\uffff\U00010000\U0010ffff"']


@pytest.mark.parametrize("doc", ESCAPE_DOCS + RAW_DOCS)
@pytest.mark.parametrize("as_bytes", [False, True], ids=["str", "bytes"])
def test_strings(make_parser, doc, as_bytes):
    data = doc.encode() if as_bytes else doc
    check_all_chunkings(make_parser, data, three_way=len(data) <= 48, expected=json.loads(doc))


@pytest.mark.parametrize("doc", LONE_SURROGATE_DOCS)
@pytest.mark.parametrize("surrogates", ["replace", "pass"])
@pytest.mark.parametrize("as_bytes", [False, True], ids=["str", "bytes"])
def test_lone_surrogates(make_parser, doc, surrogates, as_bytes):
    """Lone surrogate escapes become U+FFFD; ``surrogates="pass"`` keeps them as ``json.loads`` does."""
    check_all_chunkings(make_parser, doc.encode() if as_bytes else doc, surrogates=surrogates, three_way=True,
                        expected=loads(doc, surrogates))


def test_lone_surrogate_values(make_parser):
    assert aggregate(run(make_parser, [r'["\ud800", "\udc00a", "\ud83d\ude00"]'])) == ["\ufffd", "\ufffda", "😀"]
    assert aggregate(run(make_parser, [r'["\ud800", "\udc00a"]'], surrogates="pass")) == ["\ud800", "\udc00a"]
    assert aggregate(run(make_parser, [r'{"\ud800": 1}'])) == {"\ufffd": 1}


RAW_SURROGATE_DOCS = [
    '["\ud800", "a\udfff"]',
    '{"\udc00k\ud83d": "\ud83d\ude00", "x": "\\ud83d\ude00"}',  # a raw pair, a raw low after an escaped high
    '"\U0001f600\ud800\u00e9\udbff\\n\udfff"',  # kind 4, with an escape between surrogates
]


@pytest.mark.parametrize("doc", RAW_SURROGATE_DOCS)
@pytest.mark.parametrize("surrogates", ["replace", "pass"])
def test_raw_surrogates_in_str_input(make_parser, doc, surrogates):
    """A ``str`` chunk may hold lone surrogate code points (an SDK's ``json.loads`` makes them from a
    model's escapes): each is decoded as its escape would be, one at a time (two in a row are not a
    pair, as in ``json.loads``). By default each becomes U+FFFD, so that the value can be written as
    UTF-8; ``surrogates="pass"`` keeps them, like ``json.loads``."""
    check_all_chunkings(make_parser, doc, surrogates=surrogates, three_way=True, expected=loads(doc, surrogates))


def test_raw_surrogate_values(make_parser):
    doc = '["\ud800", "a\udfff", "\ud83d\ude00"]'
    assert aggregate(run(make_parser, one_unit(doc))) == ["\ufffd", "a\ufffd", "\ufffd\ufffd"]
    assert aggregate(run(make_parser, [doc], surrogates="pass")) == json.loads(doc)
    assert aggregate(run(make_parser, ['{"\udfff": 1}'])) == {"\ufffd": 1}


def test_surrogates_argument(make_parser):
    with pytest.raises(ValueError):
        make_parser(surrogates="ignore")


# -- "push returns data as soon as it is decoded" -----------------------------------


def visible(body, surrogates="replace"):
    """What a parser must have emitted for a string whose raw body (after the quote) so far is ``body``.

    Everything is decoded except an incomplete escape, a high surrogate escape that a low one may still
    follow, and (bytes) an incomplete UTF-8 sequence, which also flushes a pending high surrogate.
    """
    if isinstance(body, bytes):
        text, used = codecs.utf_8_decode(body, "strict", False)
        if used < len(body):
            return loads('"' + text + '"', surrogates)
        body = text
    i, end, n = 0, 0, len(body)
    while i < n:
        if body[i] != "\\":
            i += 1
            end = i
            continue
        if i + 1 >= n or (body[i + 1] == "u" and i + 6 > n):
            break
        if body[i + 1] == "u" and 0xD800 <= int(body[i + 2 : i + 6], 16) <= 0xDBFF:
            end = i  # a high surrogate: held back until the next unit shows whether a low one follows
            i += 6
            continue
        i += 6 if body[i + 1] == "u" else 2
        end = i
    return loads('"' + body[:end] + '"', surrogates)


@pytest.mark.parametrize(
    "doc", ESCAPE_DOCS + LONE_SURROGATE_DOCS + RAW_DOCS[:1] + [r'"\ud800\\\ud800\udc00"', '"\\ud800é\\ud83d€x😀"']
)
@pytest.mark.parametrize("surrogates", ["replace", "pass"])
@pytest.mark.parametrize("as_bytes", [False, True], ids=["str", "bytes"])
@pytest.mark.parametrize("wrap", [("", "", ()), ('{"a": [1, ', "]}", ("a", 1))], ids=["root", "nested"])
def test_string_data_at_once(make_parser, doc, surrogates, as_bytes, wrap):
    """After ``push(prefix)`` a string's emitted text is exactly the decodable part of the prefix."""
    before, after, path = wrap
    full = before + doc + after
    data = full.encode() if as_bytes else full
    start = len(before) + 1
    final = loads(doc, surrogates)
    for k in range(start, start + len((doc.encode() if as_bytes else doc)) - 1):
        p = make_parser(surrogates=surrogates)
        first = p.push(data[:k])
        texts = [leaf.text for pth, leaf in map(flatten, first) if type(leaf) in STRING_TYPES]
        assert all(flatten(f)[0] == path for f in first if isinstance(flatten(f)[1], String))
        assert "".join(texts) == visible(data[start:k], surrogates), (data[:k], first)
        assert all(texts)
        assert all(flatten(f)[0] != path for f in first if flatten(f)[1] is DONE)
        rest = p.push(data[k:]) + p.finish()
        got = "".join(leaf.text for pth, leaf in map(flatten, first + rest) if type(leaf) in STRING_TYPES)
        assert got == final


def test_each_chunk_of_a_long_string_arrives_at_once(make_parser):
    p = make_parser()
    assert p.push('{"content": "') == []
    for piece in ["fn main(", ") {", "}\\", "n", "\\u00", "e9!"]:
        out = p.push(piece)
        assert all(type(f) in OBJECT_ENTRY_TYPES and f.key == "content" for f in out)
    assert p.push('"}') == [ObjectEntry("content", DONE), DONE]


def test_split_escape_holds_back_only_the_escape(make_parser):
    p = make_parser()
    assert p.push('"ab\\') == [String("ab")]
    assert p.push("u00") == []
    assert p.push("41cd\\u") == [String("Acd")]
    assert p.push('d83d\\ude00"') == [String("😀"), DONE]


def test_split_utf8_holds_back_only_the_sequence(make_parser):
    p = make_parser()
    data = '"a€b"'.encode()
    assert p.push(data[:3]) == [String("a")]
    assert p.push(data[3:4]) == []
    assert p.push(data[4:]) == [String("€b"), DONE]


# -- numbers -----------------------------------------------------------------------

NUMBERS = [
    "-12.5e+10", "0", "-0", "-0.0", "0.1", "1E400", "-1E400", "1e-400", "1.5E-3", "2e0", "0e0", "-0e-0", "10",
    "123456789012345678901234567890", "-98765432109876543210987654321", "4.940656458412465e-324",
    "1.7976931348623157e308", "9007199254740993", "9007199254740993.0", "2.2250738585072011e-308", "1e23",
    "1.00000000000000011102230246251565404236316680908203125",  # halfway: ties to even (1.0)
    "1.00000000000000011102230246251565404236316680908203126",  # just above: rounds up
    "0.30000000000000004", "123456789012345678901234567890e-10", "-0.000001e-5",
]


@pytest.mark.parametrize("num", NUMBERS)
@pytest.mark.parametrize("shape", ["{}", "[{}]", '{{"n": {}}}', "[{}, {}]", "{} "])
def test_numbers(make_parser, num, shape):
    doc = shape.format(num, num) if shape != '{{"n": {}}}' else '{"n": %s}' % num
    ref = check_all_chunkings(make_parser, doc, expected=json.loads(doc))
    scalars = [flatten(f)[1] for f in ref if isinstance(flatten(f)[1], Scalar)]
    assert all(same_json(s.value, json.loads(num)) for s in scalars)


@pytest.mark.parametrize("num", NUMBERS)
def test_root_number_completes_at_finish(make_parser, num):
    """A bare root number may go on in the next chunk: only ``finish()`` completes it."""
    for chunks in [[num], one_unit(num), *every_split(num)]:
        p = make_parser()
        assert [f for c in chunks for f in p.push(c)] == []
        assert not p.done
        out = p.finish()
        assert [canon(f) for f in out] == [canon(Scalar(json.loads(num))), canon(DONE)]
        assert p.done


def test_root_number_ends_at_whitespace(make_parser):
    p = make_parser()
    assert p.push("12") == []
    assert p.push("3") == []
    assert p.push(" ") == [Scalar(123), DONE]
    assert p.done
    assert p.push("\n ") == []
    assert p.finish() == []


@pytest.mark.parametrize("doc,value", [("true", True), ("false", False), ("null", None), ('"s"', "s")])
def test_root_literal_completes_on_push(make_parser, doc, value):
    for chunks in every_split(doc):
        p = make_parser()
        out = [f for c in chunks for f in p.push(c)]
        assert p.done
        assert aggregate(out) == value
        assert p.finish() == []


def test_number_types(make_parser):
    out = aggregate(run(make_parser, ["[1, 1.0, 1e2, -0, -0.0, 10000000000000000000000]"]))
    assert same_json(out, [1, 1.0, 100.0, 0, -0.0, 10**22])


@pytest.mark.parametrize("lit", ["true", "false", "null"])
def test_literals_split(make_parser, lit):
    check_all_chunkings(make_parser, f'[{lit},{lit}, {{"k":{lit}}}]')


# -- containers ------------------------------------------------------------------

CONTAINER_DOCS = [
    "{}", "[]", '""', "[[]]", "[{}]", '[""]', '{"a":{}}', '{"a":[]}', '{"a":""}',
    '{"a": {}, "b": [], "c": "", "d": [[], {}, "", [[]], {"e": {}}]}',
    ' \t\n\r[ 1 , { "k" : [ ] } , "" ] \n',
    '{"": ""}',
]


@pytest.mark.parametrize("doc", CONTAINER_DOCS)
def test_containers(make_parser, doc):
    check_all_chunkings(make_parser, doc, three_way=len(doc) <= 20)


@pytest.mark.parametrize("doc", CONTAINER_DOCS)
def test_empty_comes_right_before_its_done(make_parser, doc):
    flat = run(make_parser, one_unit(doc), flat=True)
    for i, (path, leaf) in enumerate(flat):
        if isinstance(leaf, Empty):
            assert flat[i + 1] == (path, DONE)
            assert leaf.kind == {dict: "object", list: "array", str: "string"}[type(_at(json.loads(doc), path))]


def _at(value, path):
    for step in path:
        value = value[step]
    return value


def test_empty_fragments(make_parser):
    assert run(make_parser, ["{}"]) == [Empty("object"), DONE]
    assert run(make_parser, ["[]"]) == [Empty("array"), DONE]
    assert run(make_parser, ['""']) == [Empty("string"), DONE]
    assert run(make_parser, ['{"a": [[], ""]}']) == [
        ObjectEntry("a", ArrayItem(0, Empty("array"))),
        ObjectEntry("a", ArrayItem(0, DONE)),
        ObjectEntry("a", ArrayItem(1, Empty("string"))),
        ObjectEntry("a", ArrayItem(1, DONE)),
        ObjectEntry("a", DONE),
        DONE,
    ]


def test_every_value_ends_with_its_own_done(make_parser):
    doc = '{"a": [1, "x", {"b": null}], "c": {}}'
    flat = run(make_parser, [doc], flat=True)
    dones = [path for path, leaf in flat if leaf is DONE]
    assert dones == [("a", 0), ("a", 1), ("a", 2, "b"), ("a", 2), ("a",), ("c",), ()]


# -- nesting and keys ----------------------------------------------------------------

DEEP_DOCS = {
    "arrays": "[" * 40 + '"x\\n"' + "]" * 40,
    "objects": '{"k":' * 25 + "1" + "}" * 25,
    "mixed": '[{"a":[{"b":' * 6 + '["s", 2.5, {}]' + "}]}]" * 6,
    "siblings": "[" + ", ".join('[{"i": %d, "s": "v%d"}, []]' % (i, i) for i in range(12)) + "]",
}


@pytest.mark.parametrize("name", DEEP_DOCS)
def test_deep_nesting(make_parser, name):
    check_all_chunkings(make_parser, DEEP_DOCS[name])


def test_nesting_up_to_max_depth(make_parser):
    depth = 2000
    doc = "[" * depth + "]" * depth
    flat = run(make_parser, random_chunks(doc, 1, 50), flat=True, max_depth=depth)
    assert flat[0] == ((0,) * (depth - 1), Empty("array"))
    assert [leaf for _, leaf in flat[1:]] == [DONE] * depth
    assert flat[-1] == ((), DONE)


@pytest.mark.parametrize(
    "doc",
    [
        '{"a": 1, "a": 2}',
        '{"a": {"x": 1}, "a": [2]}',
        '{"a": "x", "b": 1, "a": "y"}',
        '{"a": [], "a": {}, "a": ""}',
        '[{"k": 1, "k": {"k": 2, "k": 3}}]',
    ],
)
def test_duplicate_keys_last_wins(make_parser, doc):
    """Duplicate keys stream as they come; aggregated, the last one wins as in ``json.loads``."""
    check_all_chunkings(make_parser, doc)


def test_keys_are_never_split(make_parser):
    doc = '{"a long key with \\"escapes\\" and \\u00e9": 1, "é😀": 2}'
    for data in (doc, doc.encode()):
        for chunks in [one_unit(data), *every_split(data)]:
            keys = [f.key for f in run(make_parser, chunks) if type(f) in OBJECT_ENTRY_TYPES]
            assert keys == ['a long key with "escapes" and é'] * 2 + ["é😀"] * 2


def test_whitespace_everywhere(make_parser):
    doc = ' \n{ \t"a" \r\n: \n[ 1 ,\t2 ] , "b":\n"c" }\n\t '
    check_all_chunkings(make_parser, doc, three_way=True)


# -- input types, position, done --------------------------------------------------------

TYPED_DOC = '{"é": ["€😀", 1.5, true, null, {"k": "\\u00e9"}]}'


@pytest.mark.parametrize("kind", ["str", "bytes", "bytearray", "memoryview"])
def test_input_types(make_parser, kind):
    data = TYPED_DOC if kind == "str" else TYPED_DOC.encode()
    convert = {"str": str, "bytes": bytes, "bytearray": bytearray, "memoryview": memoryview}[kind]
    reference = run(make_parser, [TYPED_DOC])
    for chunks in [[data], one_unit(data), random_chunks(data, 3)]:
        p = make_parser()
        out, pos = [], 0
        for chunk in chunks:
            out += p.push(convert(chunk))
            pos += len(chunk)
            assert p.position == pos
        out += p.finish()
        check_stream(out, reference, json.loads(TYPED_DOC))
        assert p.position == len(data)
    assert run(make_parser, [convert(data)]) == reference


@pytest.mark.parametrize("step", [2, 3])
def test_strided_memoryview(make_parser, step):
    """A non-contiguous memoryview is read as ``bytes(view)`` would give it."""
    doc = b'[1, "ab", {}]'
    padded = bytes(b for c in doc for b in [c] + [0x20] * (step - 1))
    view = memoryview(padded)[::step]
    assert bytes(view) == doc
    p = make_parser()
    out = p.push(view) + p.finish()
    assert out == run(make_parser, [doc])
    assert p.position == len(doc)


def test_long_key_split_over_many_chunks(make_parser):
    key = "k" * 50_000 + "\u00e9"
    doc = '{"' + key + '": 1}'
    out = run(make_parser, [doc[i : i + 997] for i in range(0, len(doc), 997)])
    assert out == [ObjectEntry("k" * 50_000 + "é", Scalar(1)), ObjectEntry("k" * 50_000 + "é", DONE), DONE]


def test_memoryview_slices(make_parser):
    data = memoryview(bytearray(b'xx["ab", 1]yy'))[2:-2]
    assert aggregate(run(make_parser, [data[:4], data[4:]])) == ["ab", 1]


def test_position_counts_characters_or_bytes(make_parser):
    doc = '["é€😀"]'
    p = make_parser()
    p.push(doc)
    assert p.position == 7
    p = make_parser()
    p.push(doc.encode())
    assert p.position == len(doc.encode()) == 13


def test_position_and_done(make_parser):
    p = make_parser()
    assert (p.position, p.done) == (0, False)
    assert p.push("") == []
    assert (p.position, p.done) == (0, False)
    p.push('  {"a": ')
    assert (p.position, p.done) == (8, False)
    p.push("[1]")
    assert (p.position, p.done) == (11, False)
    p.push("} ")
    assert (p.position, p.done) == (13, True)
    p.push("\n")
    p.finish()
    assert (p.position, p.done) == (14, True)


def test_mixing_str_and_bytes_is_a_type_error(make_parser):
    p = make_parser()
    p.push('["a", ')
    with pytest.raises(TypeError):
        p.push(b'"b"]')
    p = make_parser()
    p.push(b'["a", ')
    with pytest.raises(TypeError):
        p.push('"b"]')


@pytest.mark.parametrize("chunk", [1, None, 1.5, ["["], object()])
def test_other_chunk_types_are_a_type_error(make_parser, chunk):
    with pytest.raises(TypeError):
        make_parser().push(chunk)


def test_push_after_done_accepts_whitespace_only(make_parser):
    p = make_parser()
    assert p.push("[1]") == [ArrayItem(0, Scalar(1)), ArrayItem(0, DONE), DONE]
    assert p.push("  \n\t\r") == []
    assert p.finish() == []
    with pytest.raises(argstream.ArgumentStreamError):
        p.push("1")


def test_flat_and_nested_agree_under_chunking(make_parser):
    doc = DEEP_DOCS["mixed"]
    for chunks in [one_unit(doc), random_chunks(doc, 9)]:
        nested = run_per_push(make_parser, chunks)
        flat = run_per_push(make_parser, chunks, flat=True)
        assert flat == [[flatten(f) for f in push] for push in nested]


def test_max_depth_argument(make_parser):
    assert make_parser(max_depth=3).max_depth == 3
    with pytest.raises(ValueError):
        make_parser(max_depth=0)
