"""Property tests (hypothesis): random schemas from the supported subset, random instances (conforming
and mutated), random chunkings, both backends. The final verdict equals ``jsonschema``'s; no violation
comes before the character that proves it, nor after the fragment that completes its value."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, note, settings
from hypothesis import strategies as st

jsonschema = pytest.importorskip("jsonschema")

from argstream.parser import IncrementalArgParserC, IncrementalArgParserPy  # noqa: E402
from argstream.schema import Schema  # noqa: E402

from _schema_support import check_chars  # noqa: E402
from _support import cut  # noqa: E402

pytestmark = pytest.mark.hypothesis

PARSERS = pytest.mark.parametrize(
    "parser_cls", [IncrementalArgParserPy] + ([IncrementalArgParserC] if IncrementalArgParserC else []),
    ids=lambda cls: cls.__module__.rsplit(".", 1)[-1],
)
# No newline: Python's ``$`` (the oracle's) also matches before a final newline, ECMAScript's does not.
ALPHABET = "ab-1é\"\\ 🙂"
KEYS = ["a", "b", "é", 'q"', ""]
PATTERNS = ["^a", "b$", "^[a-z]*$", "\\d", "^(a|b)+$", "é", "^[^-]+(-[^-]+)*$"]
FORMAT_EXAMPLES = {"email": "a@b", "ipv4": "10.0.0.1", "ipv6": "::1", "date": "2024-02-29", "uuid": "12345678-1234-1234-1234-123456789abc",
                   "path": "src/x.py"}
DEFS = {"type": "string", "maxLength": 3}

texts = st.text(alphabet=ALPHABET, max_size=6)
numbers = st.integers(-20, 20) | st.sampled_from([0.5, -1.5, 2.0, 1e300, 10 ** 20, 0.1, 3.0])
json_values = st.recursive(
    st.none() | st.booleans() | numbers | texts,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(KEYS), inner, max_size=4),
    max_leaves=10,
)

string_schemas = st.fixed_dictionaries(
    {"type": st.just("string")},
    optional={"minLength": st.integers(0, 3), "maxLength": st.integers(0, 5), "pattern": st.sampled_from(PATTERNS),
              "format": st.sampled_from(sorted(FORMAT_EXAMPLES)), "nullable": st.booleans()},
)
number_schemas = st.fixed_dictionaries(
    {"type": st.sampled_from(["integer", "number", ["integer", "string"]])},
    optional={"minimum": numbers, "maximum": numbers, "exclusiveMinimum": numbers, "exclusiveMaximum": numbers,
              "multipleOf": st.sampled_from([1, 2, 3, 0.5, 0.1])},
)
leaf_schemas = (
    string_schemas
    | number_schemas
    | st.fixed_dictionaries({"enum": st.lists(json_values, min_size=1, max_size=4)})
    | st.fixed_dictionaries({"enum": st.lists(texts, min_size=1, max_size=4, unique=True)})
    | st.fixed_dictionaries({"const": json_values})
    | st.sampled_from([{"type": "boolean"}, {"type": "null"}, {}, True, False, {"$ref": "#/$defs/d"},
                       {"type": ["string", "null"]}])
)


def _containers(inner: st.SearchStrategy) -> st.SearchStrategy:
    objects = st.fixed_dictionaries(
        {},
        optional={"type": st.just("object"), "properties": st.dictionaries(st.sampled_from(KEYS), inner, max_size=3),
                  "required": st.lists(st.sampled_from(KEYS), max_size=2, unique=True),
                  "additionalProperties": st.booleans() | inner},
    )
    arrays = st.fixed_dictionaries(
        {},
        optional={"type": st.just("array"), "items": inner, "prefixItems": st.lists(inner, max_size=2),
                  "minItems": st.integers(0, 2), "maxItems": st.integers(0, 3)},
    )
    combined = st.builds(lambda k, v: {k: v}, st.sampled_from(["anyOf", "oneOf", "allOf"]),
                         st.lists(inner, min_size=1, max_size=3))
    return objects | arrays | combined


schemas = st.builds(
    lambda body: {"$defs": {"d": DEFS}, "allOf": [body]},
    st.recursive(leaf_schemas, _containers, max_leaves=6),
)


def oracle(schema: Any) -> Any:
    """``schema`` as plain JSON Schema for ``jsonschema``: ``nullable: true`` spelled out as an ``anyOf``."""
    if isinstance(schema, list):
        return [oracle(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: (oracle(v) if k not in ("enum", "const") else v) for k, v in schema.items() if k != "nullable"}
    if k_props := out.get("properties"):
        out["properties"] = {k: oracle(v) for k, v in k_props.items()}
    if schema.get("nullable") is True:
        return {"anyOf": [{"type": "null"}, out]}
    return out


def oracle_valid(schema: Any, instance: Any) -> bool:
    checker = jsonschema.FormatChecker(formats=["email", "ipv4", "ipv6", "date", "uuid"])
    return jsonschema.Draft202012Validator(oracle(schema), format_checker=checker).is_valid(instance)


@st.composite
def conforming(draw, schema: Any) -> Any:
    """A value meant to satisfy ``schema`` (best effort: the oracle has the last word)."""
    if schema is True or schema is False or not isinstance(schema, dict):
        return draw(json_values)
    if "$ref" in schema:
        return draw(conforming(DEFS))
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return draw(st.sampled_from(schema["enum"]))
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            return draw(conforming(draw(st.sampled_from(schema[key]))))
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = draw(st.sampled_from(kind))
    if schema.get("nullable") and draw(st.booleans()):
        return None
    if kind == "string":
        if "format" in schema:
            return FORMAT_EXAMPLES[schema["format"]]
        low = schema.get("minLength", 0)
        return draw(st.text(alphabet=ALPHABET, min_size=low, max_size=max(low, schema.get("maxLength", 6))))
    if kind in ("integer", "number"):
        low = max([schema.get("minimum", -50), schema.get("exclusiveMinimum", -51) + 1])
        high = min([schema.get("maximum", 50), schema.get("exclusiveMaximum", 51) - 1])
        if low > high:
            return draw(numbers)
        step = schema.get("multipleOf", 1)
        value = draw(st.integers(int(low // step), int(high // step) + 1)) * step
        return value if kind == "number" or isinstance(value, int) else int(value)
    if kind == "boolean":
        return draw(st.booleans())
    if kind == "null":
        return None
    if "properties" in schema or "required" in schema or kind == "object":
        props = schema.get("properties", {})
        out = {}
        for key in sorted(set(schema.get("required", [])) | {k for k in props if draw(st.booleans())}):
            sub = props.get(key, schema.get("additionalProperties", True))
            out[key] = draw(conforming(sub))
        return out
    if kind == "array" or "items" in schema or "prefixItems" in schema:
        out = [draw(conforming(s)) for s in schema.get("prefixItems", [])]
        for _ in range(draw(st.integers(0, 2))):
            out.append(draw(conforming(schema.get("items", True))))
        return out
    return draw(json_values)


def verdict(parser_cls: Any, schema: Schema, chunks: list[str], flat: bool) -> bool:
    parser = parser_cls(flat=flat)
    validator = schema.validator()
    for chunk in chunks:
        validator.extend(parser.push(chunk))
    validator.extend(parser.finish())
    assert validator.done
    return validator.valid


@PARSERS
@given(st.data())
def test_final_verdict_equals_jsonschema(parser_cls, data):
    raw = data.draw(schemas)
    note(f"schema: {raw!r}")
    instance = data.draw(conforming(raw) | json_values)
    note(f"instance: {instance!r}")
    text = json.dumps(instance, ensure_ascii=data.draw(st.booleans()), indent=data.draw(st.sampled_from([None, 1])))
    chunks = cut(text, data.draw(st.lists(st.integers(0, len(text)), max_size=8)))
    expected = oracle_valid(raw, instance)
    assert verdict(parser_cls, Schema(raw), chunks, data.draw(st.booleans())) is expected


def _mutants(text: str) -> st.SearchStrategy:
    edits = st.tuples(st.integers(0, max(0, len(text) - 1)), st.sampled_from(["insert", "delete", "replace"]),
                      st.sampled_from(list(ALPHABET) + list("0]}[{,:tfn.e")))
    return edits.map(lambda e: text[:e[0]] + (e[2] if e[1] != "delete" else "") + text[e[0] + (e[1] != "insert"):])


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise ValueError("duplicate key")
    return dict(pairs)


@PARSERS
@settings(suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(st.data())
def test_no_violation_before_its_proof_nor_after_its_value(parser_cls, data):
    raw = data.draw(schemas)
    note(f"schema: {raw!r}")
    valid = data.draw(conforming(raw))
    assume(oracle_valid(raw, valid))
    text = json.dumps(valid, ensure_ascii=False)
    schema = Schema(raw)
    found, _ = check_chars(schema, parser_cls, text)
    assert found == []
    mutant = data.draw(_mutants(text))
    note(f"valid: {text!r}, mutant: {mutant!r}")
    common = next((i for i, (a, b) in enumerate(zip(text, mutant)) if a != b), min(len(text), len(mutant)))
    found, done_at = check_chars(schema, parser_cls, mutant)
    for violation, position in found:
        assert position > common, (violation, position, common)  # the common prefix could still end validly
        assert violation.offset >= common, (violation, common)
        # no later than its value's Done: the first Done at that path after the offset it points to (a key
        # given twice has a value, and a Done, for each occurrence)
        done = next((d for d in done_at.get(violation.path, ()) if d > violation.offset), None)
        if done is not None:
            assert position <= done, (violation, position)
    try:
        value = json.loads(mutant, object_pairs_hook=_no_duplicate_keys)
    except ValueError:  # not JSON, or a key given twice (each occurrence is checked; json.loads keeps the last)
        return
    assert (not found) is oracle_valid(raw, value)


@pytest.mark.skipif(IncrementalArgParserC is None, reason="compiled core not in use")
@given(st.data())
def test_both_backends_report_the_same_violations(data):
    raw = data.draw(schemas)
    instance = data.draw(conforming(raw) | json_values)
    text = json.dumps(instance, ensure_ascii=False)
    schema = Schema(raw)
    chunks = cut(text, data.draw(st.lists(st.integers(0, len(text)), max_size=8)))
    reports = []
    for cls in (IncrementalArgParserC, IncrementalArgParserPy):
        parser, validator = cls(flat=True), schema.validator()
        per_chunk = [list(validator.extend(parser.push(chunk))) for chunk in chunks]
        per_chunk.append(list(validator.extend(parser.finish())))
        reports.append(per_chunk)
    assert reports[0] == reports[1]


@settings(max_examples=200)
@given(text=st.text(max_size=40), cuts=st.lists(st.integers(1, 8), max_size=12),
       max_length=st.one_of(st.none(), st.integers(0, 30)), min_length=st.one_of(st.none(), st.integers(0, 30)),
       pattern=st.sampled_from([None, "^[a-z]*$", "b", "^[^x]*$"]), backend=st.sampled_from(["cython", "python"]))
def test_counted_strings_give_the_violations_of_the_piece_by_piece_path(text, cuts, max_length, min_length, pattern,
                                                                         backend) -> None:
    """A string checked only by its length and its whole text is counted below the Python call: the
    violations (keyword, path, offset) are those of feeding each piece through the string's state."""
    from argstream import _backend
    from argstream.schema import Schema, SchemaValidator

    parser_class = _backend.IncrementalArgParserC if backend == "cython" else _backend.IncrementalArgParserPy
    if parser_class is None:
        return
    prop: dict = {"type": "string"}
    for key, value in (("maxLength", max_length), ("minLength", min_length), ("pattern", pattern)):
        if value is not None:
            prop[key] = value
    schema = Schema({"type": "object", "properties": {"content": prop, "n": {"type": "integer"}}})

    class PieceByPiece(SchemaValidator):
        __slots__ = ()

        def _skip_after(self, path):  # never skip: every piece reaches the string's state
            self._skip = None

    doc = json.dumps({"content": text, "n": 1})
    got = []
    for validator in (SchemaValidator(schema), PieceByPiece(schema)):
        parser = parser_class(flat=True, spans=True)
        i, k = 0, 0
        while i < len(doc):
            n = cuts[k % len(cuts)] if cuts else len(doc)
            validator.extend(parser.push(doc[i:i + n]), parser.spans)
            i, k = i + n, k + 1
        validator.extend(parser.finish(), parser.spans)
        got.append([(v.path, v.keyword, v.offset) for v in validator.violations])
    assert got[0] == got[1]


bodies = st.recursive(leaf_schemas, _containers, max_leaves=6)


@given(st.data())
def test_a_whole_value_is_accepted_exactly_when_the_streaming_check_finds_nothing(data):
    """``schema.whole.accepts`` (a provider's decoded arguments checked at once) answers ``True`` exactly
    when the streaming check of the value's text proves no violation, ``False`` exactly when it proves
    one, or ``None`` (combinators, ``$ref``, an ``enum`` of objects or arrays): then the streaming check runs."""
    from argstream.schema.whole import accepts

    body = data.draw(bodies)
    raw = {"$defs": {"d": DEFS}, **body} if isinstance(body, dict) else body
    note(f"schema: {raw!r}")
    schema = Schema(raw)
    instance = data.draw(conforming(body) | json_values)
    note(f"instance: {instance!r}")
    found = accepts(schema.root, instance)
    if found is not None:
        assert found is (not schema.validate(instance))
    validator = schema.validator()
    if validator.accept_whole(instance):
        assert found is True and validator.done and validator.valid is True and not validator.violations
    else:
        assert found is not True and not validator.done and validator.valid is None
