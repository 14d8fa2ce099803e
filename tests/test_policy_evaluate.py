"""``evaluate``: first match wins, ``None`` while a higher rule's parameter is missing, implicit ``ask``."""

from __future__ import annotations

import pytest

from argstream.policy import ParamCondition, ResultMode, RunMode, RunPolicy, RunRule, evaluate, make_matcher

ASK, UNATTENDED, EDIT, SKIP = RunMode.ASK, RunMode.UNATTENDED, RunMode.EDIT, RunMode.SKIP


def rule(mode: RunMode, arg: str | None = None, keyword: str | None = None, value: object = None,
         param_type: str | None = None) -> RunRule:
    if arg is None:
        return RunRule(mode)
    return RunRule(mode, ParamCondition(arg, make_matcher(keyword, value, param_type)))  # type: ignore[arg-type]


CREATE = [
    rule(UNATTENDED, "/path", "prefix", "src/", "path"),
    rule(SKIP, "/path", "pattern", r"\.env$", "path"),
    rule(ASK),
]


def test_catch_all_decides_with_nothing_known() -> None:
    assert evaluate([rule(UNATTENDED)], {}) is UNATTENDED
    assert evaluate(RunPolicy.always(SKIP), {}) is SKIP


def test_first_match_wins() -> None:
    assert evaluate(CREATE, {"path": "src/.env"}) is UNATTENDED
    assert evaluate(CREATE, {"path": "lib/.env"}) is SKIP
    assert evaluate(CREATE, {"path": "lib/x"}) is ASK


def test_missing_parameter_blocks() -> None:
    assert evaluate(CREATE, {}) is None
    assert evaluate(CREATE, {"content": "x"}) is None


def test_a_later_rule_cannot_decide_past_a_missing_parameter() -> None:
    rules = [rule(ASK, "/path", "prefix", "secret/", "path"), rule(UNATTENDED, "/dry_run", "const", True)]
    assert evaluate(rules, {"dry_run": True}) is None  # rule 1 outranks it
    assert evaluate(rules, {"dry_run": True, "path": "a"}) is UNATTENDED
    assert evaluate(rules, {"dry_run": True, "path": "secret/a"}) is ASK


def test_eliminated_rule_lets_the_next_decide() -> None:
    rules = [rule(SKIP, "/path", "prefix", "/etc", "path"), rule(UNATTENDED, "/n", "maximum", 3), rule(EDIT)]
    assert evaluate(rules, {"path": "a"}) is None
    assert evaluate(rules, {"path": "a", "n": 2}) is UNATTENDED
    assert evaluate(rules, {"path": "a", "n": 4}) is EDIT


def test_implicit_ask_when_every_rule_is_eliminated() -> None:
    rules = [rule(UNATTENDED, "/path", "prefix", "src/", "path"), rule(SKIP, "/n", "minimum", 10)]
    assert evaluate(rules, {"path": "lib", "n": 1}) is ASK
    assert evaluate([], {}) is ASK


def test_implicit_ask_for_result_rules_is_a_result_mode() -> None:
    rules = [RunRule(ResultMode.SKIP, ParamCondition("/n", make_matcher("const", 1)))]
    assert evaluate(rules, {"n": 2}) is ResultMode.ASK


def test_absent_parameter_only_when_complete() -> None:
    rules = [rule(SKIP, "/force", "const", True), rule(UNATTENDED)]
    assert evaluate(rules, {"path": "a"}) is None
    assert evaluate(rules, {"path": "a"}, complete=True) is UNATTENDED  # absent optional: no match


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ([{"paths": ["a", "docs/b.md"]}], SKIP),
        ([{"paths": ["a"]}, {"paths": ["docs/x"]}], SKIP),
        ([{"paths": ["a"]}, {"old": "x"}], ASK),
        ([{"paths": []}], ASK),  # an empty array reaches no value
        ([], ASK),
        ({"paths": ["docs/x"]}, SKIP),  # an object where an array was declared: still walked
        ([{"paths": [["docs/x"]]}], SKIP),  # arrays inside arrays: every element
        ("docs/x", ASK),  # a string where objects were declared reaches nothing
    ],
)
def test_existential_pointer_through_arrays(value: object, expected: RunMode) -> None:
    rules = [rule(SKIP, "/patterns/paths", "prefix", "docs/", "path"), rule(ASK)]
    assert evaluate(rules, {"patterns": value}) is expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ([{"paths": ["docs/a", "docs/b.md"]}], UNATTENDED),
        ([{"paths": ["a", "docs/b.md"]}], ASK),  # one path outside docs/: no grant
        ([{"paths": ["docs/a"]}, {"paths": ["docs/x"]}], UNATTENDED),
        ([{"paths": ["docs/a"]}, {"old": "x"}], ASK),  # an element without paths: no grant
        ([{"paths": []}], ASK),
        ([], ASK),
        ({"paths": ["docs/x"]}, UNATTENDED),
        ([{"paths": [["docs/x"], "docs/y"]}], UNATTENDED),
        ("docs/x", ASK),
    ],
)
def test_a_grant_needs_every_value_the_pointer_reaches(value: object, expected: RunMode) -> None:
    rules = [rule(UNATTENDED, "/patterns/paths", "prefix", "docs/", "path"), rule(ASK)]
    assert evaluate(rules, {"patterns": value}) is expected


def test_top_level_array_is_every_element() -> None:
    rules = [rule(SKIP, "/tags", "const", "danger"), rule(UNATTENDED)]
    assert evaluate(rules, {"tags": ["a", "danger"]}) is SKIP
    assert evaluate(rules, {"tags": []}) is UNATTENDED


def test_pointer_escapes() -> None:
    cond = ParamCondition("/a~1b/c~0d", make_matcher("const", 1))
    assert cond.segments == ("a/b", "c~d")
    assert cond.holds_for({"a/b": {"c~d": 1}})
    with pytest.raises(ValueError):
        ParamCondition("a", make_matcher("const", 1))
    with pytest.raises(ValueError):
        ParamCondition("/a~2", make_matcher("const", 1))


def test_matched_indexes_decide() -> None:
    rules = [rule(UNATTENDED, "/patterns/paths", "prefix", "docs/", "path"), rule(ASK)]
    assert evaluate(rules, {}) is None
    assert evaluate(rules, {}, matched={0}) is UNATTENDED
    assert evaluate(rules, {}, failed={0}) is ASK  # an element failed the grant: the next rule decides

