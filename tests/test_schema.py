"""The streaming schema validator: each keyword at its earliest point, build-time errors, offsets,
tool definitions, and the Pydantic round trip."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import argstream
from argstream.schema import ModelValidator, Schema, SchemaError, Violation, regex
from argstream.tools import tool_schemas

from _schema_support import check_chars


def first(schema: dict, text: str, make_parser) -> tuple[Violation, int]:
    """The first violation of ``text`` read a character at a time, and the position when it was reported."""
    found, _ = check_chars(Schema(schema), make_parser, text)
    assert found, f"no violation for {text!r}"
    return found[0]


def proof_at(schema: dict, text: str, marker: str, make_parser, keyword: str, path=None) -> Violation:
    """Assert the first violation is ``keyword``, at the offset of ``marker`` in ``text``, reported as
    soon as that character was read."""
    violation, position = first(schema, text, make_parser)
    offset = text.index(marker)
    assert violation.keyword == keyword, violation
    assert violation.offset == offset, (violation, offset)
    assert position == offset + 1, (violation, position, offset)
    if path is not None:
        assert violation.path == path
    return violation


MODE = {"type": "object", "properties": {"mode": {"enum": ["read", "write"]}}}


def test_enum_at_first_impossible_character(make_parser):
    text = '{"mode": "delete", "content": "' + "x" * 1000 + '"}'
    proof_at(MODE, text, "delete", make_parser, "enum", ("mode",))


def test_enum_shared_prefix_fails_where_candidates_end(make_parser):
    schema = {"enum": ["write", "wrote"]}
    proof_at(schema, '"writ!"', "!", make_parser, "enum")
    proof_at(schema, '"wa"', "a", make_parser, "enum")


def test_enum_prefix_of_candidate_fails_when_string_closes(make_parser):
    text = '"wri"'
    violation, position = first({"enum": ["write"]}, text, make_parser)
    assert violation.keyword == "enum" and violation.offset == 4 and position == 5


def test_const(make_parser):
    proof_at({"const": "abc"}, '"abd"', "d", make_parser, "const")
    violation, _ = first({"type": "array", "items": {"const": 3}}, "[4]", make_parser)
    assert violation.keyword == "const" and violation.offset == 2 and violation.path == (0,)


def test_type_at_first_character(make_parser):
    schema = {"type": "object", "properties": {"n": {"type": "integer"}, "s": {"type": "string"}}}
    violation, position = first(schema, '{"s": 12345}', make_parser)
    assert (violation.keyword, violation.path, violation.offset) == ("type", ("s",), 6)
    proof_at(schema, '{"n": "' + "y" * 100 + '"}', "y", make_parser, "type", ("n",))


def test_integer_type_accepts_integral_float_and_rejects_at_number_end(make_parser):
    assert Schema({"type": "integer"}).is_valid(1.0)
    violation, position = first({"type": "array", "items": {"type": "integer"}}, "[1.5]", make_parser)
    assert violation.keyword == "type" and violation.offset == 4


def test_max_length_at_character_past_limit(make_parser):
    text = '{"c": "abcdefgh"}'
    proof_at({"properties": {"c": {"maxLength": 5}}}, text, "f", make_parser, "maxLength", ("c",))


def test_min_length_and_required_and_min_items_when_closed(make_parser):
    violation, position = first({"minLength": 3}, '"ab"', make_parser)
    assert violation.keyword == "minLength" and violation.offset == 3 and position == 4
    violation, position = first({"required": ["a", "b"]}, '{"a": 1}', make_parser)
    assert violation.keyword == "required" and violation.offset == 7 and "'b'" in violation.message
    violation, position = first({"minItems": 2}, "[1]", make_parser)
    assert violation.keyword == "minItems" and violation.offset == 2


def test_max_items_at_the_extra_item(make_parser):
    violation, position = first({"maxItems": 1}, "[1, 2, 3]", make_parser)
    assert violation.keyword == "maxItems" and violation.path == (1,)


def test_additional_property_when_key_completes(make_parser):
    schema = {"properties": {"a": {}}, "additionalProperties": False}
    text = '{"a": 1, "rm": "' + "z" * 50 + '"}'
    violation, position = first(schema, text, make_parser)
    assert violation.keyword == "additionalProperties" and violation.path == ("rm",)
    assert position == text.index("z") + 1  # the key's first value character: nothing of the value is needed


def test_maximum_when_number_completes(make_parser):
    schema = {"properties": {"n": {"maximum": 10}}}
    violation, position = first(schema, '{"n": 11}', make_parser)
    assert violation.keyword == "maximum" and violation.offset == 8 and position == 9
    for keyword, bound, text in [("minimum", 5, "4"), ("exclusiveMaximum", 3, "3"), ("exclusiveMinimum", 3, "3"),
                                 ("multipleOf", 2, "3")]:
        violation, _ = first({"type": "array", "items": {keyword: bound}}, f"[{text}]", make_parser)
        assert violation.keyword == keyword


def test_pattern_and_format_when_string_completes(make_parser):
    violation, position = first({"pattern": "^[a-z]+$"}, '"abc1"', make_parser)
    assert violation.keyword == "pattern" and position == 6
    violation, _ = first({"format": "ipv4"}, '"1.2.3"', make_parser)
    assert violation.keyword == "format"
    assert Schema({"format": "path"}).is_valid("anything")  # an annotation


def test_combinators(make_parser):
    any_of = {"anyOf": [{"type": "string", "maxLength": 2}, {"type": "string", "enum": ["abcd"]}]}
    assert Schema(any_of).is_valid("ab") and Schema(any_of).is_valid("abcd")
    violation, position = first(any_of, '"abx"', make_parser)
    assert violation.keyword == "anyOf" and violation.offset == 3
    one_of = {"oneOf": [{"type": "integer"}, {"minimum": 0}]}
    assert Schema(one_of).is_valid(-1) and not Schema(one_of).is_valid(1)
    assert [v.keyword for v in Schema(one_of).validate(1)] == ["oneOf"]
    all_of = {"allOf": [{"type": "string"}, {"maxLength": 1}]}
    assert [v.keyword for v in Schema(all_of).validate("ab")] == ["maxLength"]


def _every_cut(schema: Schema, text: str, make_parser) -> set[tuple]:
    """The violations of ``text`` fed whole and cut in two or three at every place, each as one tuple."""
    def run(chunks: list[str]) -> tuple:
        parser, validator, found = make_parser(flat=True, spans=True), schema.validator(), []
        for chunk in chunks:
            found += validator.extend(parser.push(chunk), parser.spans, parser.keys)
        found += validator.extend(parser.finish(), parser.spans, parser.keys)
        return tuple(found)

    cuts = [[text]] + [[text[:i], text[i:]] for i in range(1, len(text))]
    cuts += [[text[:i], text[i:j], text[j:]] for i in range(1, len(text)) for j in range(i + 1, len(text))]
    return {run(chunks) for chunks in cuts}


@pytest.mark.parametrize("schema, text, expected", [
    # three branches die on one piece; the group cites the one proven latest in the input (the maxLength 1
    # branch, at "0"), as it does when the pieces are cut between its proof and the others'
    ({"anyOf": [{"type": "string", "maxLength": 0}, {"type": "string", "maxLength": 1}, {"type": "integer"}]},
     '"2024"', [("anyOf", 2, "no branch of anyOf fits (the last failed: string longer than maxLength 1)")]),
    ({"oneOf": [{"maxLength": 3}, {"enum": ["ab"]}]}, '"abcdef"',
     [("oneOf", 4, "no branch of oneOf fits (the last failed: string longer than maxLength 3)")]),
    # allOf members fail on one piece: reported in input order, not in member order
    ({"allOf": [{"maxLength": 1}, {"type": "integer"}]}, '"ab"',
     [("type", 1, "string is not of type integer"), ("maxLength", 2, "string longer than maxLength 1")]),
    # one schema's enum and maxLength: the earlier proving character wins, the enum on a tie
    ({"enum": ["abc"], "maxLength": 1}, '"abz"', [("maxLength", 2, "string longer than maxLength 1")]),
    ({"enum": ["abc"], "maxLength": 2}, '"abz"', [("enum", 3, "the string cannot become any value of enum ['abc']")]),
])
def test_which_violation_is_reported_does_not_depend_on_the_cut(make_parser, schema, text, expected):
    outcomes = _every_cut(Schema(schema), text, make_parser)
    assert len(outcomes) == 1, outcomes
    assert [(v.keyword, v.offset, v.message) for v in outcomes.pop()] == expected
    assert [(v.keyword, v.message) for v in Schema(schema).validate(json.loads(text))] == \
        [(keyword, message) for keyword, _, message in expected]


def test_input_order_is_exact_where_an_escape_makes_offsets_approximate(make_parser):
    """A piece that held an escape places its proofs at the latest unit that can end their character;
    the order of what one fragment proves is by the character itself, so it does not depend on the cut."""
    schema = Schema({"allOf": [{"enum": [""]}, {"type": "boolean"}]})
    outcomes = {tuple(v.keyword for v in found) for found in _every_cut(schema, '"1\\\\"', make_parser)}
    assert outcomes == {("type", "enum")}


def test_ref_and_recursion():
    tree = {"$defs": {"node": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/node"}},
                                                               "v": {"type": "integer"}}}},
            "$ref": "#/$defs/node"}
    schema = Schema(tree)
    assert schema.is_valid({"kids": [{"kids": [{"v": 1}]}]})
    (violation,) = schema.validate({"kids": [{"kids": [{"v": "x"}]}]})
    assert violation.path == ("kids", 0, "kids", 0, "v")


def test_nullable_as_the_sdks_write_it():
    schema = Schema({"type": "string", "nullable": True, "maxLength": 2})
    assert schema.is_valid(None) and schema.is_valid("ab") and not schema.is_valid("abc")
    wrapped = Schema({"anyOf": [{"type": "integer"}], "nullable": True})
    assert wrapped.is_valid(None) and wrapped.is_valid(3) and not wrapped.is_valid("x")


def test_container_enum_compared_once_complete():
    schema = Schema({"enum": [[1, 2], {"a": True}]})
    assert schema.is_valid([1, 2.0]) and schema.is_valid({"a": True})
    assert not schema.is_valid([1]) and not schema.is_valid({"a": 1}) and not schema.is_valid("x")


@pytest.mark.parametrize("schema, location", [
    ({"type": "object", "patternProperties": {}}, "/patternProperties"),
    ({"properties": {"a": {"uniqueItems": True}}}, "/properties/a/uniqueItems"),
    ({"if": {}}, "/if"),
    ({"type": "strng"}, "/type"),
    ({"maxLength": -1}, "/maxLength"),
    ({"maxLength": "5"}, "/maxLength"),
    ({"multipleOf": 0}, "/multipleOf"),
    ({"minimum": float("inf")}, "/minimum"),
    ({"exclusiveMinimum": True}, "/exclusiveMinimum"),
    ({"items": [{}]}, "/items"),
    ({"$ref": "#/$defs/missing"}, "#/$defs/missing"),
    ({"$ref": "http://example.com/s.json"}, "http://example.com/s.json"),
    ({"pattern": "("}, "/pattern"),
    ({"pattern": "(?i)x"}, "/pattern"),
    ({"anyOf": []}, "/anyOf"),
    ({"required": "a"}, "/required"),
    ({"enum": [float("nan")]}, "/enum"),
])
def test_unsupported_or_malformed_is_an_error_at_build(schema, location):
    with pytest.raises(SchemaError) as info:
        Schema(schema)
    assert info.value.location == location


@pytest.mark.parametrize("schema", [
    {"$ref": "#"},
    {"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"allOf": [{"$ref": "#/$defs/a"}]}}, "$ref": "#/$defs/a"},
    {"anyOf": [{"$ref": "#"}]},
])
def test_ref_cycles_that_never_descend_are_refused(schema):
    with pytest.raises(SchemaError, match="cycle"):
        Schema(schema)


def test_without_re2_every_pattern_is_refused_unless_bounded(monkeypatch):
    monkeypatch.setattr(regex, "re2", None)  # no linear-time engine
    for pattern in ["^(a+)+$", "(\\w*)*x", "^[a-z]+(-[a-z]+)*$", "^a"]:
        with pytest.raises(SchemaError, match="google-re2"):
            Schema({"pattern": pattern})
        Schema({"pattern": pattern}, pattern_timeout=0.5)


def test_an_accepted_pattern_stays_linear_on_a_long_crafted_string():
    if regex.re2 is None:
        pytest.skip("google-re2 not installed")
    for pattern, text in [("^[a-z]+(-[a-z]+)*$", "a-" * 100_000 + "!"), ("^(a+)+$", "a" * 100_000 + "!"),
                          ("^(a|a)*$", "a" * 100_000 + "!"), (".*.*.*=$", "x" * 100_000)]:
        assert not Schema({"pattern": pattern}).is_valid(text)  # linear on RE2: returns at once


def test_re2_and_the_bounded_engine_agree_on_the_ecmascript_translation(monkeypatch):
    if regex.re2 is None:
        pytest.skip("google-re2 not installed")
    cases = [("^a.b$", "a\nb"), ("^a.b$", "axb"), ("b$", "b\n"), ("\\d", "\u0663"), ("^[^\\u0000]+$", "x"),
             ("\\\\Z", "\\Z"), ("\\u00e9", "é"), ("[\\s]", "\u2028")]
    with_re2 = [regex.compile_search(p)(t) for p, t in cases]
    monkeypatch.setattr(regex, "re2", None)
    assert with_re2 == [regex.compile_search(p, timeout=1.0)(t) for p, t in cases]


@settings(max_examples=200)
@given(st.sampled_from(["^[A-Za-z0-9_./-]+(x)?$", "é", "^.$", "(a|b)+c$", "\\d{2}", "^$", "[\\s]x", "^a.b$"]),
       st.text(alphabet=st.sampled_from("ab c/é.\n1\u2028\ud800\U0001f600"), max_size=12))
def test_re2_direct_match_agrees_with_the_wrappers_search(pattern, text):
    """The schema check calls RE2's own ``Match`` (``regex._direct_match``); the public ``search`` is the
    reference, surrogates replaced as the check replaces them."""
    if regex.re2 is None:
        pytest.skip("google-re2 not installed")
    direct = regex.compile_search(pattern)
    assert direct.__name__ == "direct"  # the installed google-re2 has the layout the fast call reads
    options = regex.re2.Options()
    options.log_errors = False
    public = regex.re2.compile(regex._re2_syntax(regex.translate(pattern)), options)
    assert direct(text) == (public.search(regex._SURROGATE.sub("\ufffd", text)) is not None)


_CLASS_BODIES = st.lists(st.sampled_from(["a-z", "A-Z", "0-9", "_", ".", "/", ":", "@", "~", ",", "+", "=", " ", "x",
                                         "b-d", "7"]), min_size=1, max_size=5).map("".join)


@settings(max_examples=200)
@given(_CLASS_BODIES, st.booleans(), st.sampled_from(["+", "*"]),
       st.text(alphabet=st.sampled_from("az_./-:@ ~,+=Z09\n\u00e9\u0131\u212a\ud800\U0001f600\x00"), max_size=10))
def test_a_one_class_pattern_reads_as_the_engines_do(body, dash, repeat, text):
    """``^[...]+$`` over ASCII letters, digits, ranges and plain marks takes no engine (``_one_class``): its
    answer is RE2's and the ECMAScript engine's, for any text (a trailing newline, non-ASCII letters whose
    case folds to ASCII, a lone surrogate, an empty string)."""
    pattern = f"^[{body}{'-' if dash else ''}]{repeat}$"
    search = regex.compile_search(pattern)
    assert search.__name__ == "search" and regex._one_class(pattern) is not None
    bounded = regex._bounded_search(regex.compile_bounded(pattern, 1.0))
    assert search(text) == bounded(text)
    if regex.re2 is not None:
        options = regex.re2.Options()
        options.log_errors = False
        public = regex.re2.compile(regex._re2_syntax(regex.translate(pattern)), options)
        assert search(text) == (public.search(regex._SURROGATE.sub("\ufffd", text)) is not None)


@pytest.mark.parametrize("pattern", ["^[a-z]+", "[a-z]+$", "^[^a-z]+$", "^[a-z\\d]+$", "^[\\w]+$", "^[a-z]{2}$",
                                     "^[a-z]+$|x", "^[A-Z-a]+$", "^[a-zé]+$", "^[a-z]+$\n"])
def test_other_patterns_keep_their_engine(pattern):
    """Only the one shape skips the engines: anchors missing, a negated class, an escape class, a count,
    an alternation, a dash between ranges, a non-ASCII member, anything after the end."""
    assert regex._one_class(pattern) is None


def test_a_one_class_pattern_needs_no_re2(monkeypatch):
    monkeypatch.setattr(regex, "re2", None)
    assert Schema({"pattern": "^[A-Za-z0-9_./-]+$"}).is_valid("src/a.py")
    assert not Schema({"pattern": "^[A-Za-z0-9_./-]+$"}).is_valid("src/a b.py")


def test_lone_surrogates_do_not_crash_the_pattern_engine(make_parser):
    schema = Schema({"type": "array", "items": {"pattern": "^a"}})
    for text, valid in [('["a\\ud800"]', True), ('["\\udc00a"]', False)]:
        parser = make_parser(flat=True, surrogates="pass")
        validator = schema.validator()
        validator.extend(parser.push(text) + parser.finish())
        assert validator.valid is valid


def test_huge_numbers_in_schema_and_instance_do_not_crash():
    assert Schema({"multipleOf": 0.5, "maximum": 1e308}).is_valid(10 ** 200)
    assert not Schema({"multipleOf": 1e-300}).is_valid(10 ** 200)  # 1e-300 is not exactly 10**-300
    big = Schema({"maxLength": 10 ** 100, "multipleOf": 10 ** 50})
    assert big.is_valid("x") and big.is_valid(10 ** 60) and not big.is_valid(10 ** 49)
    assert not Schema({"multipleOf": 0.7}).is_valid(10 ** 400)
    validator = Schema({"multipleOf": 0.5, "type": "integer"}).validator()
    parser = argstream.IncrementalArgParser(flat=True)
    found = validator.extend(parser.push("1e400") + parser.finish())  # infinity: neither integer nor a multiple
    assert [v.keyword for v in found] == ["type"]
    for step in (3, 0.5):
        validator = Schema({"multipleOf": step}).validator()
        parser = argstream.IncrementalArgParser(flat=True)
        assert [v.keyword for v in validator.extend(parser.push("-1e400") + parser.finish())] == ["multipleOf"]


def test_hostile_text_is_quoted_short_in_messages():
    schema = Schema({"type": "object", "additionalProperties": False})
    (violation,) = schema.validate({"\x1b[2J" + "k" * 500: 1})
    assert len(violation.message) < 120


def test_offsets_in_bytes_for_utf8_input(make_parser):
    schema = Schema({"enum": ["ééa"]}).validator(units="bytes")
    parser = make_parser(flat=True)
    fragments = parser.push('"ééb"'.encode())
    spans = [(1, 6), (6, 7)]  # what spans=True gives: the piece's raw bytes, then the closing quote
    violations = schema.extend(fragments[:2], spans)
    assert violations[0].offset == 5  # the byte of 'b'


def test_a_proof_inside_an_escaped_piece_is_never_before_its_byte(make_parser):
    # '"\\"' (an escaped quote) can still become the enum's backslash until the quote after the backslash
    for units, text in (("chars", '"\\"'), ("bytes", '"\\"'.encode())):
        parser = make_parser(flat=True, spans=True)
        validator = Schema({"enum": ["\\"]}).validator(units=units)
        violations = validator.extend(parser.push(text), parser.spans)
        assert [v.keyword for v in violations] == ["enum"]
        assert violations[0].offset == 2, (units, violations)  # the escaped '"', not its backslash
    parser = make_parser(flat=True, spans=True)
    validator = Schema({"enum": ["ab\u00e9c"]}).validator(units="bytes")
    violations = validator.extend(parser.push('"ab\\u00e9é'.encode()), parser.spans)
    assert violations[0].offset == len('"ab\\u00e9é'.encode()) - 1  # the last byte of 'é'


def test_nested_and_flat_fragments_agree(make_parser):
    schema = Schema({"type": "object", "properties": {"a": {"type": "array", "items": {"maxLength": 1}}}})
    text = '{"a": ["x", "yy", "z"]}'
    results = []
    for flat in (False, True):
        validator = schema.validator()
        parser = make_parser(flat=flat)
        validator.extend(parser.push(text) + parser.finish())
        results.append(validator.violations)
    assert results[0] == results[1] and results[0][0].path == ("a", 1)


def test_valid_and_done():
    validator = Schema({"type": "object"}).validator()
    assert validator.valid is None
    parser = argstream.IncrementalArgParser(flat=True)
    validator.extend(parser.push("{}"))
    assert validator.done and validator.valid is True
    with pytest.raises(ValueError):
        validator.feed(((), argstream.DONE))


def test_completed_values_are_not_rechecked(make_parser):
    calls = []
    schema = Schema({"type": "array", "items": {"type": "string", "pattern": "a"}})
    node = schema.root.items
    search = node.pattern_search
    node.pattern_search = lambda text: calls.append(text) or search(text)
    parser = make_parser(flat=True)
    validator = schema.validator()
    for chunk in ['["a', 'a", "b', 'a"', ', "a"]']:
        validator.extend(parser.push(chunk))
    assert calls == ["aa", "ba", "a"]


def test_tool_schemas_reads_every_definition_shape():
    schema = {"type": "object", "properties": {"p": {"type": "string"}}}
    anthropic = [{"name": "a", "description": "d", "input_schema": schema}]
    openai = [{"type": "function", "function": {"name": "b", "parameters": schema}}]
    responses = [{"type": "function", "name": "c", "parameters": schema}]
    assert tool_schemas(anthropic) == {"a": schema}
    assert tool_schemas(openai) == {"b": schema}
    assert tool_schemas(responses) == {"c": schema}
    assert tool_schemas({"d": schema}) == {"d": schema}
    assert tool_schemas([{"name": "e"}]) == {"e": {"type": "object", "properties": {}}}
    with pytest.raises(ValueError):
        tool_schemas([{"description": "no name"}])
    with pytest.raises(ValueError):
        tool_schemas(anthropic + anthropic)


def test_tool_schemas_reads_pydantic_objects_and_model_classes():
    pydantic = pytest.importorskip("pydantic")

    class Args(pydantic.BaseModel):
        path: str

    class Tool(pydantic.BaseModel):
        name: str
        input_schema: dict

    assert tool_schemas([Tool(name="t", input_schema={"type": "object"})]) == {"t": {"type": "object"}}
    assert tool_schemas({"t": Args})["t"]["properties"]["path"] == {"title": "Path", "type": "string"}


def test_pydantic_round_trip(make_parser):
    pydantic = pytest.importorskip("pydantic")
    from typing import Literal, Optional

    class Inner(pydantic.BaseModel):
        a: int

    class Edit(pydantic.BaseModel):
        mode: Literal["read", "write"]
        path: str
        inner: Inner
        note: Optional[str] = None

    value = {"mode": "write", "path": "src/x.py", "inner": {"a": 2}, "note": None}
    text = json.dumps(value)
    validator = ModelValidator(Edit)
    parser = make_parser(flat=True)
    partials = []
    for i in range(0, len(text), 7):
        assert not validator.extend(parser.push(text[i:i + 7]))
        partials.append(validator.partial())
    validator.extend(parser.finish())
    assert partials[-1] == Edit.model_construct(**{**value, "inner": Inner.model_construct(a=2)})
    assert isinstance(partials[-1].inner, Inner)
    assert validator.result() == Edit.model_validate(value)
    assert any(p.model_fields_set == {"mode"} for p in partials)  # a typed partial before the end

    bad = ModelValidator(Edit)
    parser = make_parser(flat=True)
    found = bad.extend(parser.push('{"mode": "delete", "path": "p", "inner": {"a": 1}}'))
    assert [v.keyword for v in found] == ["enum"]
    assert "mode" not in bad.partial().model_fields_set and bad.partial().path == "p"
    with pytest.raises(pydantic.ValidationError):
        bad.result()


def test_readme_schema_example(make_parser):
    tools = [{"name": "edit", "input_schema": {"type": "object", "properties": {
        "mode": {"enum": ["read", "write"]}, "content": {"type": "string"}}}}]
    schemas = {name: Schema(s) for name, s in tool_schemas(tools).items()}
    validator, parser = schemas["edit"].validator(), make_parser(flat=True)
    seen = []
    for chunk in ['{"mode": "de', 'lete", "content": "...']:
        seen.append([(v.path, v.keyword) for v in validator.extend(parser.push(chunk))])
    assert seen == [[(("mode",), "enum")], []]


@pytest.mark.parametrize("fmt, text", [
    ("ipv4", "1.2.3.4"), ("ipv4", "1.2.3.04"), ("ipv4", "256.0.0.1"), ("ipv4", " 1.2.3.4"),
    ("ipv6", "::1"), ("ipv6", "fe80::1%eth0"), ("ipv6", "1::2::3"),
    ("date", "2024-02-29"), ("date", "2023-02-29"), ("date", "2024-2-29"), ("date", "２０２４-02-29"),
    ("uuid", "12345678-1234-1234-1234-123456789abc"), ("uuid", "12345678123412341234123456789abc"),
    ("email", "a@b"), ("email", "ab"),
])
def test_checked_formats_agree_with_jsonschema(fmt, text):
    jsonschema = pytest.importorskip("jsonschema")
    checker = jsonschema.FormatChecker(formats=[fmt])
    expected = jsonschema.Draft202012Validator({"format": fmt}, format_checker=checker).is_valid(text)
    assert Schema({"format": fmt}).is_valid(text) is expected


def test_branches_recursing_into_one_schema_share_its_state(make_parser):
    """Both anyOf branches recurse into the node schema: a crafted deep instance, children first so that
    neither branch dies early, would double the states at every level if each branch kept its own."""
    node = {"anyOf": [
        {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/n"}},
                                          "kind": {"const": "a"}}},
        {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/n"}},
                                          "kind": {"const": "b"}}},
    ]}
    schema = Schema({"$defs": {"n": node}, "$ref": "#/$defs/n"})
    depth = 300
    text = '{"kids": [' * depth + '{"kind": "c"}' + ']}' * depth
    parser = make_parser(flat=True, max_depth=2 * depth + 10)
    validator = schema.validator()
    found = validator.extend(parser.push(text) + parser.finish())
    assert [(v.path, v.keyword) for v in found] == [((), "anyOf")]  # the failure climbed every level
    assert found[0].offset is None
    valid = '{"kids": [' * depth + '{"kind": "b"}' + '], "kind": "a"}' * depth
    parser = make_parser(flat=True, max_depth=2 * depth + 10)
    validator = schema.validator()
    assert not validator.extend(parser.push(valid) + parser.finish()) and validator.valid


def test_a_validator_accepts_a_whole_value_only_while_fresh():
    """``accept_whole`` completes a fresh validator for a value that passes; a validator already fed, or
    a value that breaks a rule, is left as it was, for its fragments to tell the violations."""
    schema = Schema({"type": "object", "properties": {"path": {"type": "string", "pattern": "^src/"}},
                     "required": ["path"], "additionalProperties": False})
    validator = schema.validator()
    assert validator.accept_whole({"path": "src/a.py"})
    assert validator.done and validator.valid is True and validator.violations == []
    for bad in ({"path": "/etc/passwd"}, {"path": "src/a", "mode": "w"}, {}, {"path": 1}, ["src/a"]):
        fresh = schema.validator()
        assert not fresh.accept_whole(bad) and not fresh.done and fresh.valid is None
    fed = schema.validator()
    fed.feed((("path",), argstream.String("src/")))
    assert not fed.accept_whole({"path": "src/a.py"}) and not fed.done
