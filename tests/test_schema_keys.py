"""An unknown key is proven at its closing quote (issue 18, item 4).

With ``spans=True`` the parser reports each key it reads on ``keys``; the validator, given them,
reports ``additionalProperties: false`` by the push that read the closing quote, at that quote,
even when the key's value starts in a later push. The fragments are the same either way.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from argstream import _backend, _calls_py
from argstream.aggregate import FragmentAggregator
from argstream.events import ArgumentChunk, Finished, FinishReason, Flush, Part, ToolCall, ToolCallStart
from argstream.schema import Schema
from argstream.stream import ToolCallViolation, iter_tool_stream

CLOSED = {"type": "object", "properties": {"a": {}, "opts": {"type": "object", "properties": {"x": {}},
                                                              "additionalProperties": False}},
          "additionalProperties": False}


def per_push(make_parser: Any, chunks: list[str], schema: Any = CLOSED, **options: Any) -> list[list[Any]]:
    """The violations each push reports (the last entry: ``finish()``'s)."""
    parser = make_parser(flat=True, spans=True, **options)
    validator = Schema(schema).validator()
    out = [list(validator.extend(parser.push(chunk), parser.spans, parser.keys)) for chunk in chunks]
    out.append(list(validator.extend(parser.finish(), parser.spans, parser.keys)))
    return out


def first_report(reports: list[list[Any]]) -> tuple[int, Any]:
    return next((i, found[0]) for i, found in enumerate(reports) if found)


@pytest.mark.parametrize("chunks", [
    ['{"a":1,"bad"', ':2}'],  # cut right after the closing quote
    ['{"a":1,"ba', 'd"', ':2}'],  # the key split across chunks
    ['{"a":1,"bad', '"', ':2}'],  # the closing quote alone
    ['{"a":1,"bad', '"', ' ', ':', ' ', '"v', 'alue"}'],  # a string value, whitespace between
    ['{"a":1,"bad"', ':{"deep":', '[1]}}'],  # an object value
])
def test_unknown_key_is_reported_by_the_push_that_read_its_closing_quote(make_parser, chunks) -> None:
    text = "".join(chunks)
    reports = per_push(make_parser, chunks)
    quote_push = next(i for i in range(len(chunks)) if len("".join(chunks[: i + 1])) > text.index('d"') + 1)
    at, violation = first_report(reports)
    assert at == quote_push
    assert violation.keyword == "additionalProperties" and violation.path == ("bad",)
    assert violation.offset == text.index('d"') + 1  # the closing quote
    assert [v.path for found in reports for v in found] == [("bad",)]


def test_a_nested_unknown_key_at_its_closing_quote(make_parser) -> None:
    chunks = ['{"opts":{"x":1,"evil"', ':true}}']
    reports = per_push(make_parser, chunks)
    assert [(v.path, v.offset) for v in reports[0]] == [(("opts", "evil"), chunks[0].rindex('"'))]
    assert reports[1:] == [[], []]


def test_keys_in_one_push_are_checked_in_document_order(make_parser) -> None:
    text = '{"zz":{"x":1},"opts":{"yy":1},"a":2}'
    found = per_push(make_parser, [text])[0]
    assert [(v.path, v.offset) for v in found] == [
        (("zz",), text.index('zz"') + 2), (("opts", "yy"), text.index('yy"') + 2)]


def test_a_duplicate_unknown_key_is_reported_once_and_a_known_one_not_at_all(make_parser) -> None:
    chunks = ['{"a":1,"a"', ':2,"bad"', ':1,"bad"', ':2}']
    reports = per_push(make_parser, chunks)
    assert [len(found) for found in reports] == [0, 1, 0, 0, 0]


def test_offsets_do_not_depend_on_the_chunking(make_parser) -> None:
    text = '{"a":[{"k":1}],"opts":{"q":{"r":[]}},"bad":{"x":"y"}}'
    whole = [v for found in per_push(make_parser, [text]) for v in found]
    assert [v.path for v in whole] == [("opts", "q"), ("bad",)]
    for size in (1, 2, 3, 5):
        chunks = [text[i:i + size] for i in range(0, len(text), size)]
        assert [v for found in per_push(make_parser, chunks) for v in found] == whole


def test_keys_leave_the_fragments_as_they_are(make_parser) -> None:
    text = '{"a":{"b":[1,{"c":"d"}]},"e":""}'
    for size in (1, 3, len(text)):
        chunks = [text[i:i + size] for i in range(0, len(text), size)]
        for flat in (True, False):
            plain, keyed = make_parser(flat=flat), make_parser(flat=flat, spans=True)
            assert [plain.push(c) for c in chunks] == [keyed.push(c) for c in chunks]
            assert plain.keys is None


def test_keys_name_the_path_and_the_closing_quote(make_parser) -> None:
    parser = make_parser(flat=True, spans=True)
    text = '{"a":[{"b":1}],"c\\n":2}'
    fragments = parser.push(text)
    assert parser.keys == [
        (0, ("a",), (3, 4)), (0, ("a", 0, "b"), (9, 10)), (4, ("c\n",), (19, 20))]
    assert fragments[0][0] is parser.keys[1][1]  # the flat fragments share the key's path tuple
    assert parser.push(" ") == [] and parser.keys == []


def test_lenient_bare_and_single_quoted_keys(make_parser) -> None:
    chunks = ["{a: 1, opts: {'evil'", ": 1}, bad", ": 2}"]  # a bare key ends at the character after it
    reports = per_push(make_parser, chunks, lenient=True)
    assert [[v.path for v in found] for found in reports] == [[("opts", "evil")], [], [("bad",)], []]
    assert reports[2][0].offset == "".join(chunks).index("bad") + 2


def test_lenient_repair_after_a_key_keeps_the_report(make_parser) -> None:
    chunks = ['{"a":1,"bad"', ": True,}"]  # the repairs (Python literal, trailing comma) come after
    reports = per_push(make_parser, chunks, lenient=True)
    assert [[v.path for v in found] for found in reports] == [[("bad",)], [], []]


def _calls(backend: str) -> tuple[Any, Any, Any]:
    if backend == "cython":
        if _backend.calls_c is None:
            pytest.skip("compiled calls not built")
        return _backend.calls_c.ArgumentCall, _backend.calls_c.ToolCallArgumentProgress, _backend
    return _calls_py.ArgumentCall, _calls_py.ToolCallArgumentProgress, _backend


@pytest.mark.parametrize("chunks, quote", [(['{"a":1', ',"bad"', ':2}'], 1), (['{"a":1,"ba', 'd', '"', ':2}'], 2)])
def test_argument_call_reports_at_the_push_with_the_closing_quote(backend, make_parser, chunks, quote) -> None:
    call_cls, progress, _ = _calls(backend)
    call = call_cls(make_parser(flat=True, spans=True, catch_duplicate_keys=True), FragmentAggregator(),
                    progress)
    call.validator = Schema(CLOSED).validator()
    call.spans = True
    counts = []
    for chunk in chunks:
        call.push(chunk)
        counts.append(len(call.validator.violations))
    assert counts == [0] * quote + [1] * (len(chunks) - quote)
    assert call.validator.violations[0].offset == "".join(chunks).index('d"') + 1


TOOLS = {"fs_read": {"type": "object", "properties": {"path": {"type": "string"}}, "additionalProperties": False}}


@pytest.mark.parametrize("chunks", [
    ['{"path":"a","sudo"', ':true}'],
    ['{"path":"a","sudo', '"', ':true}'],
    ['{"path":"a","su', 'do"', ':', 'true}'],
])
def test_the_stream_yields_the_violation_with_the_chunk_that_closes_the_key(chunks: list[str]) -> None:
    text = "".join(chunks)
    closing = next(i for i, c in enumerate(chunks) if c.endswith('"') and "sudo" in "".join(chunks[: i + 1]))
    events: list[Any] = [Part(0, ToolCall(ToolCallStart("call_1", "fs_read")))]
    events += [Part(0, ToolCall(ArgumentChunk(c))) for c in chunks]
    events += [Flush(0), Finished(FinishReason.TOOL_USE)]
    fed: list[int] = []

    def source():
        for n, event in enumerate(events):
            fed.append(n)
            yield event

    for item in iter_tool_stream(source(), provider=lambda s: s, tools=TOOLS):
        if type(item) is ToolCallViolation:
            assert fed[-1] == 1 + closing  # yielded while the chunk with the closing quote is the last one read
            assert item.violation.path == ("sudo",) and item.violation.offset == text.index('o"') + 1
            break
    else:
        pytest.fail("no violation")
