"""Property tests of keys proven at their closing quote (issue 18, item 4), both backends.

Random objects with unknown and repeated keys at random chunkings: each ``additionalProperties``
violation is reported by the push that read the key's closing quote and points at it; the
violations do not depend on the chunking; and, offsets aside, they are the ones the validator
reports without keys (the same checks in the same order, only earlier).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, note
from hypothesis import strategies as st

from argstream.parser import IncrementalArgParserC, IncrementalArgParserPy
from argstream.schema import Schema

from _support import cut
from test_schema_properties import conforming, json_values, schemas

pytestmark = pytest.mark.hypothesis

PARSERS = pytest.mark.parametrize(
    "parser_cls", [IncrementalArgParserPy] + ([IncrementalArgParserC] if IncrementalArgParserC else []),
    ids=lambda cls: cls.__module__.rsplit(".", 1)[-1],
)
# Objects allow the keys "a" (checked as the root is) and "x" (anything), nothing else.
CLOSED = {"properties": {"a": {"$ref": "#"}, "x": {}}, "additionalProperties": False}
KEYS = st.sampled_from(["a", "x", "bad", r"a\"", r"x\u0041", r"\u0061", "é", ""])  # as written in JSON
scalars = st.sampled_from(["1", "-2.5e3", "true", "null", '""', '"s"', r'"\u00e9"'])


def _obj(pairs: list[tuple[str, str]]) -> str:
    return "{" + ",".join(f'"{k}":{v}' for k, v in pairs) + "}"


texts = st.recursive(
    scalars,
    lambda inner: st.lists(st.tuples(KEYS, inner), max_size=4).map(_obj)
    | st.lists(inner, max_size=3).map(lambda items: "[" + ",".join(items) + "]"),
    max_leaves=12,
)
documents = st.lists(st.tuples(KEYS, texts), max_size=5).map(_obj)


def run(parser_cls: Any, schema: Schema, chunks: list[str], keys: bool = True) -> list[list[Any]]:
    """The violations per push (``finish()`` last), the parser's keys given to the validator or not."""
    parser = parser_cls(flat=True, spans=True)
    validator = schema.validator()
    out = []
    for chunk in chunks:
        fragments = parser.push(chunk)
        out.append(list(validator.extend(fragments, parser.spans, parser.keys if keys else None)))
    out.append(list(validator.extend(parser.finish(), parser.spans, parser.keys if keys else None)))
    assert validator.done
    return out


def _without_offsets(reports: list[list[Any]]) -> list[tuple]:
    return [(v.path, v.keyword, v.message, v.schema_path) for found in reports for v in found]


@PARSERS
@given(st.data())
def test_an_unknown_key_is_reported_by_the_push_that_read_its_closing_quote(parser_cls, data) -> None:
    text = data.draw(documents)
    json.loads(text)  # the strategy makes JSON (keys may repeat)
    chunks = cut(text, data.draw(st.lists(st.integers(0, len(text)), max_size=10)))
    note(f"chunks: {chunks!r}")
    schema = Schema(CLOSED)
    reports = run(parser_cls, schema, chunks)
    ends = [len("".join(chunks[: i + 1])) for i in range(len(chunks))]
    for at, found in enumerate(reports):
        for violation in found:
            assert violation.keyword == "additionalProperties"
            quote = violation.offset
            assert text[quote] == '"' and text[quote + 1] == ":"  # the key's closing quote
            assert at == next(i for i, end in enumerate(ends) if end > quote), (violation, at)
    assert [v for f in reports for v in f] == [v for f in run(parser_cls, schema, [text]) for v in f]
    assert _without_offsets(reports) == _without_offsets(run(parser_cls, schema, chunks, keys=False))


@PARSERS
@given(st.data())
def test_keys_change_when_violations_come_not_which(parser_cls, data) -> None:
    raw = data.draw(schemas)
    note(f"schema: {raw!r}")
    instance = data.draw(conforming(raw) | json_values)
    text = json.dumps(instance, ensure_ascii=data.draw(st.booleans()))
    chunks = cut(text, data.draw(st.lists(st.integers(0, len(text)), max_size=8)))
    note(f"chunks: {chunks!r}")
    schema = Schema(raw)
    keyed = run(parser_cls, schema, chunks)
    assert _without_offsets(keyed) == _without_offsets(run(parser_cls, schema, chunks, keys=False))
    whole = run(parser_cls, schema, [text])
    if "\\" in text:
        # a piece holding an escape places a violation at the latest input unit that can end the
        # character (SchemaValidator._offset): where the pieces are cut moves it, never what is found
        assert _without_offsets(keyed) == _without_offsets(whole)
        assert all(0 <= v.offset <= len(text) for f in keyed + whole for v in f if v.offset is not None)
    else:
        assert [v for f in keyed for v in f] == [v for f in whole for v in f]
