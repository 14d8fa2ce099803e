"""Patterns that need a backtracking engine (issue 18 item 11): refused when the schema or policy is
built, unless the user gives a time bound; then a search that runs out counts as the safe answer."""

from __future__ import annotations

import json
from typing import Any

import pytest

from argstream.policy import (
    ParamCondition,
    PatternMatcher,
    PolicyError,
    RunMode,
    RunRule,
    StreamingPolicyState,
    evaluate,
    load_policies,
    make_matcher,
)
from argstream.policy._ecma_regex import PatternTimeout, linear_engine_available
from argstream.schema import Schema, SchemaError

pytest.importorskip("regex")
if not linear_engine_available():  # pragma: no cover - google-re2 is a test dependency
    pytest.skip("google-re2 not installed", allow_module_level=True)

# The patterns: backtracking blows up on a crafted string of a few dozen characters.
BACKTRACKING = ["(?=a)(a|a)*$", "^(?!x).*.*.*=$", "(a)\\1", "(?<name>a)\\k<name>", "(?<!x)\\.env$"]
EXPONENTIAL = "(?=a)(a|a)*$"
CRAFTED = "a" * 40 + "b"  # 2**40 ways to fail: no bound of a second or less lets it finish


@pytest.mark.parametrize("pattern", BACKTRACKING)
def test_schema_refuses_a_backtracking_pattern_by_default(pattern: str) -> None:
    with pytest.raises(SchemaError, match="time bound") as info:
        Schema({"type": "string", "pattern": pattern})
    assert "/pattern" in str(info.value)


@pytest.mark.parametrize("pattern", BACKTRACKING)
def test_policy_refuses_a_backtracking_pattern_by_default(pattern: str) -> None:
    with pytest.raises(ValueError, match="time bound"):
        PatternMatcher(pattern)


@pytest.mark.parametrize("pattern", ["(a|a)*$", ".*.*.*=$", "^(a+)+$", "(\\w*)*x"])
def test_shapes_the_old_check_missed_run_on_the_linear_engine(pattern: str) -> None:
    assert not Schema({"pattern": pattern + "!"}).is_valid("a" * 50_000)
    assert not PatternMatcher(pattern + "!").matches("a" * 50_000)


def test_schema_with_a_time_bound() -> None:
    schema = Schema({"type": "string", "pattern": EXPONENTIAL}, pattern_timeout=0.05)
    assert schema.is_valid("aaa")
    assert not schema.is_valid("b")
    violations = schema.validate(CRAFTED)  # runs out of time: a mismatch, never a hang
    assert [v.keyword for v in violations] == ["pattern"]
    lookbehind = Schema({"pattern": "(?<!x)\\.env$"}, pattern_timeout=0.05)
    assert lookbehind.is_valid("a.env") and not lookbehind.is_valid("x.env")


@pytest.mark.parametrize("bound", [0, -1, float("inf"), float("nan"), "1", True])
def test_a_bad_time_bound_is_refused(bound: Any) -> None:
    with pytest.raises(SchemaError):
        Schema({"pattern": EXPONENTIAL}, pattern_timeout=bound)
    with pytest.raises(ValueError):
        PatternMatcher(EXPONENTIAL, bound)


def test_policy_pattern_with_a_time_bound() -> None:
    matcher = make_matcher("pattern", "(?<!x)\\.env$", "path", pattern_timeout=0.05)
    assert matcher.matches("a/.env") and not matcher.matches("x.env")
    with pytest.raises(PatternTimeout):
        make_matcher("pattern", EXPONENTIAL, pattern_timeout=0.01).matches(CRAFTED)
    with pytest.raises(ValueError, match="pattern_timeout applies to a 'pattern' rule"):
        make_matcher("prefix", "src/", pattern_timeout=0.01)


def rules(mode: RunMode, match: str | None = None) -> list[RunRule]:
    cond = ParamCondition("/paths", make_matcher("pattern", EXPONENTIAL, pattern_timeout=0.01), match)
    return [RunRule(mode, cond), RunRule(RunMode.ASK if mode is not RunMode.ASK else RunMode.UNATTENDED)]


@pytest.mark.parametrize(
    ("mode", "match", "expected"),
    [
        (RunMode.UNATTENDED, None, RunMode.ASK),  # a grant that cannot be checked does not grant
        (RunMode.UNATTENDED, "any", RunMode.ASK),
        (RunMode.SKIP, None, RunMode.SKIP),  # a rule that stops the call stops it
        (RunMode.SKIP, "all", RunMode.SKIP),
        (RunMode.EDIT, None, RunMode.EDIT),
        (RunMode.ASK, None, RunMode.ASK),
    ],
)
def test_a_search_that_runs_out_of_time_counts_as_the_safe_answer(make_parser: Any, mode: RunMode,
                                                                   match: str | None, expected: RunMode) -> None:
    policy = rules(mode, match)
    args = {"paths": ["aaa", CRAFTED]} if match != "any" else {"paths": [CRAFTED]}
    assert evaluate(policy, args, complete=True) is expected
    state = StreamingPolicyState(policy)
    parser = make_parser()
    for fragment in parser.push(json.dumps(args)):
        state.feed(fragment)
    assert state.resolved is expected


def test_policy_file_takes_pattern_timeout() -> None:
    tools = {"t": {"type": "object", "properties": {"path": {"type": "string", "format": "path"}}}}
    text = '[tools.t.policy]\nrun = [{ arg = "/path", pattern = "(?<!x)\\\\.env$", pattern_timeout = 0.05, mode = "skip" }, { mode = "ask" }]\n'
    run = load_policies(text, tools=tools)["t"].run
    assert evaluate(run, {"path": "a.env"}) is RunMode.SKIP
    assert evaluate(run, {"path": "x.env"}) is RunMode.ASK

    refused = '[tools.t.policy]\nrun = [{ arg = "/path", pattern = "(?<!x)\\\\.env$", mode = "skip" }, { mode = "ask" }]\n'
    with pytest.raises(PolicyError, match="time bound"):
        load_policies(refused, tools=tools)
    for bad in ('prefix = "src/", pattern_timeout = 0.05', 'pattern = "a", pattern_timeout = -1',
                'pattern = "a", pattern_timeout = "1s"'):
        with pytest.raises(PolicyError):
            load_policies(f'[tools.t.policy]\nrun = [{{ arg = "/path", {bad}, mode = "skip" }}]\n', tools=tools)
