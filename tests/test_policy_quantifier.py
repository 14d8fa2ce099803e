"""Rules over arrays (issue 18 item 17): a rule that grants (``unattended``) needs every element its
pointer reaches to match, decided as soon as one fails or when the array closes; ``skip``, ``ask``
and ``edit`` keep "any one"; ``match = "all" | "any"`` says it explicitly."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from argstream import FragmentAggregator
from argstream.policy import (
    ParamCondition,
    RunMode,
    RunRule,
    StreamingPolicyState,
    evaluate,
    load_policies,
    make_matcher,
)

ASK, UNATTENDED, EDIT, SKIP = RunMode.ASK, RunMode.UNATTENDED, RunMode.EDIT, RunMode.SKIP


def rule(mode: RunMode, arg: str | None = None, keyword: str = "prefix", value: object = None,
         match: str | None = None) -> RunRule:
    if arg is None:
        return RunRule(mode)
    return RunRule(mode, ParamCondition(arg, make_matcher(keyword, value, "path"), match))  # type: ignore[arg-type]


README = [rule(UNATTENDED, "/patterns/paths", "prefix", "docs/"), rule(ASK)]


def stream(make_parser: Any, rules: list[RunRule], chunks: list[str]) -> tuple[list[Any], StreamingPolicyState]:
    """Decisions after each chunk, fed as fragments and (like the coordinator) as completed values."""
    fed, completed = StreamingPolicyState(rules), StreamingPolicyState(rules)
    aggregator = FragmentAggregator()
    parser = make_parser()
    decisions = []
    for chunk in chunks:
        for fragment in parser.push(chunk):
            fed.feed(fragment)
            done = aggregator.push(fragment)
            if done is not None:
                completed.feed_completed(done)
            i = fed.rule_index
            if i is not None and rules[i].every and rules[i].condition is not None:
                # an "all" rule matches only on its complete parameter, never on a part of it
                assert rules[i].condition.parameter in fed.known_params or fed.complete
        assert fed.resolved == completed.resolved
        decisions.append(fed.resolved)
    return decisions, fed


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"patterns": [{"paths": "docs/a"}, {"paths": "/etc/passwd"}]}, ASK),  # the issue's call
        ({"patterns": [{"paths": ["docs/a", "docs/b"]}, {"paths": "docs/c"}]}, UNATTENDED),
        ({"patterns": [{"paths": ["docs/a", "/etc/passwd"]}]}, ASK),
        ({"patterns": []}, ASK),  # reaches nothing: no grant
        ({"patterns": [{"paths": []}]}, ASK),
        ({}, ASK),
        ({"patterns": [{"paths": ["docs/a"]}, {"old": "x"}]}, ASK),  # an element that leads to no path
        ({"patterns": [{"paths": ["docs/a"]}, "junk"]}, ASK),
        ({"patterns": [{"paths": ["docs/a"]}, {"paths": [["/etc/x"]]}]}, ASK),  # nested arrays are traversed
        ({"patterns": [{"paths": ["docs/a"]}, {"paths": {"a": "docs/b"}}]}, ASK),  # an object is no path
    ],
)
def test_a_grant_needs_every_element(args: dict, expected: RunMode) -> None:
    assert evaluate(README, args, complete=True) is expected
    assert StreamingPolicyState(README).finish(args) is expected


def test_rules_that_stop_a_call_keep_any() -> None:
    for mode in (SKIP, ASK, EDIT):
        rules = [rule(mode, "/patterns/paths", "pattern", r"\.env$"), rule(UNATTENDED)]
        assert evaluate(rules, {"patterns": [{"paths": ["a", "b/.env"]}]}, complete=True) is mode
        assert evaluate(rules, {"patterns": [{"paths": ["a", "b"]}]}, complete=True) is UNATTENDED


def test_match_overrides_the_default() -> None:
    args = {"patterns": [{"paths": ["docs/a", "/etc/passwd"]}]}
    assert evaluate([rule(UNATTENDED, "/patterns/paths", "prefix", "docs/", "any"), rule(ASK)], args) is UNATTENDED
    skip_all = [rule(SKIP, "/patterns/paths", "prefix", "docs/", "all"), rule(ASK)]
    assert evaluate(skip_all, args) is ASK
    assert evaluate(skip_all, {"patterns": [{"paths": ["docs/a", "docs/b"]}]}) is SKIP


def test_match_in_the_policy_file() -> None:
    tools = {"m": {"type": "object", "properties": {"paths": {"type": "array", "items": {"type": "string"}}}}}
    text = """
[tools.m.policy]
run = [
  { arg = "/paths", prefix = "docs/", mode = "unattended" },
  { arg = "/paths", prefix = "tmp/", mode = "unattended", match = "any" },
  { mode = "ask" },
]
"""
    run = load_policies(text, tools=tools)["m"].run
    assert run[0].every and not run[1].every
    assert evaluate(run, {"paths": ["docs/a", "x"]}) is ASK
    assert evaluate(run, {"paths": ["tmp/a", "x"]}) is UNATTENDED


def test_a_bad_quantifier_is_refused() -> None:
    with pytest.raises(ValueError, match="'all' or 'any'"):
        ParamCondition("/a", make_matcher("const", 1), "most")  # type: ignore[arg-type]


def test_streaming_all_fails_at_the_first_failing_element(make_parser: Any) -> None:
    chunks = ['{"patterns": [{"paths": ["docs/a"]}, ', '{"paths": ["/etc/passwd"', ', "docs/b"]}', "]", "}"]
    decisions, _ = stream(make_parser, README, chunks)
    assert decisions == [None, ASK, ASK, ASK, ASK]


def test_streaming_all_matches_when_the_array_closes(make_parser: Any) -> None:
    chunks = ['{"patterns": [{"paths": ["docs/a"]}, ', '{"paths": ["docs/b"]}', "]", ', "x": 1', "}"]
    decisions, state = stream(make_parser, README, chunks)
    assert decisions == [None, None, UNATTENDED, UNATTENDED, UNATTENDED]
    assert state.revised is None


def test_streaming_any_decides_at_the_first_match(make_parser: Any) -> None:
    rules = [rule(SKIP, "/patterns/paths", "pattern", r"\.env$"), rule(UNATTENDED)]
    decisions, _ = stream(make_parser, rules, ['{"patterns": [{"paths": ["a", ".env', '"', ', "b"]}]', "}"])
    assert decisions == [None, SKIP, SKIP, SKIP]


def test_the_issue_call_streamed(make_parser: Any) -> None:
    text = json.dumps({"patterns": [{"paths": "docs/a"}, {"paths": "/etc/passwd"}]})
    for size in (1, 3, 8, len(text)):
        decisions, state = stream(make_parser, README, [text[i:i + size] for i in range(0, len(text), size)])
        assert UNATTENDED not in decisions
        assert state.resolved is ASK


# -- streaming == evaluate on the complete arguments, every input ---------------------------------

LEAVES = st.sampled_from(["docs/a", "docs/b", "/etc/passwd", "a.env", "x", 1, None, True])
VALUES = st.recursive(
    LEAVES,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(["paths", "old", "p"]), inner, max_size=3),
    ),
    max_leaves=12,
)
POINTERS = ["/patterns/paths", "/patterns", "/paths", "/patterns/paths/p"]


@st.composite
def rules_strategy(draw: st.DrawFn) -> list[RunRule]:
    out = []
    for _ in range(draw(st.integers(1, 4))):
        mode = draw(st.sampled_from(list(RunMode)))
        if draw(st.integers(0, 4)) == 0:
            out.append(RunRule(mode))
            continue
        keyword, value = draw(st.sampled_from([("prefix", "docs/"), ("pattern", r"\.env$"), ("const", "x"),
                                               ("enum", ["x", 1])]))
        match = draw(st.sampled_from([None, "any", "all"]))
        out.append(RunRule(mode, ParamCondition(draw(st.sampled_from(POINTERS)), make_matcher(keyword, value), match)))
    return out


@st.composite
def chunked(draw: st.DrawFn, text: str) -> list[str]:
    cuts = sorted(draw(st.sets(st.integers(1, max(1, len(text) - 1)), max_size=min(len(text), 20))))
    bounds = [0, *[c for c in cuts if 0 < c < len(text)], len(text)]
    return [text[a:b] for a, b in zip(bounds, bounds[1:])]


@pytest.mark.hypothesis
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    rules=rules_strategy(),
    args=st.fixed_dictionaries({}, optional={"patterns": VALUES, "paths": VALUES, "n": LEAVES}),
    data=st.data(),
)
def test_streaming_decision_is_the_complete_arguments_decision(make_parser: Any, rules: list[RunRule],
                                                               args: dict, data: Any) -> None:
    text = json.dumps(args)
    decisions, state = stream(make_parser, rules, data.draw(chunked(text)))
    final = evaluate(rules, args, complete=True)
    assert state.resolved is final
    # No duplicate keys: the first decision is already the final one, and it is never revised.
    assert all(d is None or d is final for d in decisions), (decisions, final)
    assert state.revised is None
