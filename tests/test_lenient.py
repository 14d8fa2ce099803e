"""Lenient JSON (``IncrementalArgParser(lenient=True)``): each repair, its record, every split, both backends."""

from __future__ import annotations

import json
from typing import Any

import pytest
from _support import one_unit, run

from argstream import ArgumentStreamError, FragmentAggregator, IncompleteJSONError, nest
from argstream.errors import Repair

#: (text, value, [repair kinds]) where json_repair gives the same value
REPAIRED = [
    ('{"a": 1,}', {"a": 1}, ["trailing_comma"]),
    ("[1, 2, ]", [1, 2], ["trailing_comma"]),
    ('{"x": [1, {"y": 2,},],}', {"x": [1, {"y": 2}]}, ["trailing_comma"] * 3),
    ("{'a': 'b \"c\"'}", {"a": 'b "c"'}, ["single_quotes"] * 2),
    ("{'it': 'it\\'s'}", {"it": "it's"}, ["single_quotes"] * 2),
    ("{a: 1, b_2: 'x'}", {"a": 1, "b_2": "x"}, ["unquoted_key", "unquoted_key", "single_quotes"]),
    ('{"a": True, "b": False, "c": None}', {"a": True, "b": False, "c": None}, ["python_literal"] * 3),
    ('{"a": 1 // one\n, "b": 2}', {"a": 1, "b": 2}, ["comment"]),
    ('{/* c */"a": /* d */ 1}', {"a": 1}, ["comment", "comment"]),
    ('```json\n{"a": 1}\n```', {"a": 1}, ["code_fence"]),
    ('```\n[1]\n```', [1], ["code_fence"]),
    ('{"a": "xy', {"a": "xy"}, ["closed_string", "closed_container"]),
    ('{"a": [1, 2', {"a": [1, 2]}, ["closed_container", "closed_container"]),
    ('{"a":', {"a": ""}, ["missing_value", "closed_container"]),
    ('{"a": tr', {"a": "tr"}, ["incomplete_literal", "closed_container"]),
    ("[1.", [1.0], ["incomplete_number", "closed_container"]),
    ('{"a": 1e', {"a": 1}, ["incomplete_number", "closed_container"]),
    ("[-", [], ["incomplete_number", "closed_container"]),
    ('{"a": 1', {"a": 1}, ["closed_container"]),
    ('{"k": "é🙂"}', {"k": "é🙂"}, []),
]
#: where argstream and json_repair differ on purpose (docs/lenient.md)
DIFFERENT = [
    ('"{\\"a\\": 1}"', {"a": 1}, ["double_encoded"]),  # json_repair keeps the string
    ('"  [1, 2]"', [1, 2], ["double_encoded"]),
    ('{"a', {}, ["incomplete_key", "closed_container"]),  # json_repair: ["a"]
    ('{"a"', {"a": ""}, ["missing_value", "closed_container"]),  # json_repair: ["a"]
]


def value(make_parser: Any, chunks: list[Any], **kw: Any) -> tuple[Any, list[str]]:
    parser = make_parser(lenient=True, **kw)
    agg = FragmentAggregator()
    for chunk in chunks:
        for fragment in parser.push(chunk):
            agg.push(fragment)
    for fragment in parser.finish():
        agg.push(fragment)
    return agg.value, [r.kind for r in parser.repairs]


@pytest.mark.parametrize(("text", "expected", "kinds"), REPAIRED + DIFFERENT)
def test_repairs_at_every_split(make_parser: Any, text: str, expected: Any, kinds: list[str]) -> None:
    assert value(make_parser, [text]) == (expected, kinds)
    assert value(make_parser, one_unit(text)) == (expected, kinds)
    for k in range(1, len(text)):
        assert value(make_parser, [text[:k], text[k:]]) == (expected, kinds), k


@pytest.mark.parametrize(("text", "expected", "kinds"), REPAIRED)
def test_bytes_input(make_parser: Any, text: str, expected: Any, kinds: list[str]) -> None:
    data = text.encode()
    assert value(make_parser, one_unit(data)) == (expected, kinds)


@pytest.mark.parametrize(("text", "expected", "kinds"), REPAIRED)
def test_same_value_as_json_repair(text: str, expected: Any, kinds: list[str]) -> None:
    json_repair = pytest.importorskip("json_repair")
    assert json_repair.loads(text) == expected


def test_repair_records_kind_and_offset(make_parser: Any) -> None:
    parser = make_parser(lenient=True)
    parser.push("{'a': True, b: [1,],")
    parser.push(" // x\n}")
    assert parser.repairs == [Repair("single_quotes", 1), Repair("python_literal", 6), Repair("unquoted_key", 12),
                              Repair("trailing_comma", 18), Repair("comment", 21), Repair("trailing_comma", 26)]
    assert all(isinstance(r, Repair) for r in parser.repairs)
    assert parser.done


def test_valid_json_needs_no_repair(make_parser: Any) -> None:
    doc = {"a": [1, 2.5, True, None, "x\\n\u00e9"], "b": {"c": ""}}
    text = json.dumps(doc)
    strict = run(make_parser, [text])
    parser = make_parser(lenient=True)
    lenient = parser.push(text) + parser.finish()
    assert lenient == strict and parser.repairs == []


def test_strict_is_unchanged(make_parser: Any) -> None:
    parser = make_parser()
    assert parser.repairs == [] and parser.lenient is False
    with pytest.raises(ArgumentStreamError, match="Illegal trailing comma"):
        run(make_parser, ['{"a": 1,}'])
    with pytest.raises(IncompleteJSONError):
        run(make_parser, ['{"a": 1'])


@pytest.mark.parametrize("text", ["", "   ", "// only a comment\n"])
def test_nothing_at_all_is_still_incomplete(make_parser: Any, text: str) -> None:
    parser = make_parser(lenient=True)
    parser.push(text)
    with pytest.raises(IncompleteJSONError):
        parser.finish()


@pytest.mark.parametrize("text", ['{"a" 1}', "[1 2]", '{"a": 1} x', "{'a': 1} ``` ```", "[/x]", '{"a": @}',
                                  "```" + "x" * 100 + "\n{}", "{" + "a" * 70000 + ": 1}"])
def test_what_it_cannot_repair_still_raises(make_parser: Any, text: str) -> None:
    parser = make_parser(lenient=True)
    with pytest.raises(ArgumentStreamError):
        parser.push(text)
        parser.finish()
    with pytest.raises(ArgumentStreamError):  # sticky
        parser.push("1")


def test_depth_limit_still_applies(make_parser: Any) -> None:
    parser = make_parser(lenient=True, max_depth=4)
    with pytest.raises(ArgumentStreamError, match="depth"):
        parser.push("[[[[[")


def test_duplicate_keys_still_caught(make_parser: Any) -> None:
    from argstream import DuplicateKeyError

    parser = make_parser(lenient=True, catch_duplicate_keys=True)
    with pytest.raises(DuplicateKeyError):
        parser.push("{a: 1, 'a': 2}")


def test_a_compiled_lenient_parser_keeps_at_most_a_bounded_prefix() -> None:
    """Valid input longer than ``HISTORY_LIMIT``: the twin takes over and the kept chunks are let go, so
    the parser holds about the limit whatever the input's length; the value is the strict parse's."""
    import json
    import tracemalloc

    from argstream import _backend

    if _backend.core is None:
        pytest.skip("the compiled core is not in use")
    limit = _backend.core.HISTORY_LIMIT
    text = json.dumps({"content": "x" * (3 * limit), "n": [1, 2, {"k": None}]})
    chunks = [text[i:i + 4096] for i in range(0, len(text), 4096)]

    def held() -> int:
        parser = _backend.IncrementalArgParserC(lenient=True, flat=True)
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            for i in range(0, len(text), 4096):
                parser.push(text[i:i + 4096])  # each chunk made here; its fragments dropped
            return tracemalloc.get_traced_memory()[0] - before
        finally:
            tracemalloc.stop()

    assert held() < limit + limit // 2  # not the 3 MiB the input holds
    lenient = _backend.IncrementalArgParserC(lenient=True, flat=True)
    agg = FragmentAggregator()
    for chunk in chunks:
        for path, leaf in lenient.push(chunk):
            agg.push(nest(path, leaf))
    for path, leaf in lenient.finish():
        agg.push(nest(path, leaf))
    assert agg.value == json.loads(text) and lenient.repairs == []
