"""``StreamingPolicyState`` and repeated keys at any depth (issue 18 items 1 and 18).

The arguments that run are the last value of each repeated key (``json.loads``); the coordinator's
parser refuses repeated keys, but ``StreamingPolicyState`` is public and may be fed by a lenient
parser or by hand. Its decision once the arguments are complete is always the decision on the
last-wins arguments; a decision that a repeated key took back is recorded in ``revised``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from argstream import DONE, FragmentAggregator, ObjectEntry, String
from argstream.policy import ParamCondition, RunMode, RunRule, StreamingPolicyState, evaluate, make_matcher

ASK, UNATTENDED, SKIP = RunMode.ASK, RunMode.UNATTENDED, RunMode.SKIP


def rule(mode: RunMode, arg: str | None = None, keyword: str = "const", value: object = None,
         match: str | None = None) -> RunRule:
    if arg is None:
        return RunRule(mode)
    return RunRule(mode, ParamCondition(arg, make_matcher(keyword, value), match))  # type: ignore[arg-type]


def run(make_parser: Any, rules: list[RunRule], chunks: list[str]) -> tuple[StreamingPolicyState, StreamingPolicyState,
                                                                            list[Any], Any]:
    """Both ways of feeding: ``feed(fragment)`` and ``feed_completed`` from the caller's aggregator.
    Returns both states, the decisions after each fragment, and the decision before the root ``Done``."""
    fed, completed = StreamingPolicyState(rules), StreamingPolicyState(rules)
    aggregator = FragmentAggregator()
    parser = make_parser()
    decisions: list[Any] = []
    before_root: Any = "never"
    for chunk in chunks:
        for fragment in parser.push(chunk):
            if fragment is DONE or type(fragment).__name__ == "Done":
                before_root = fed.resolved
            fed.feed(fragment)
            done = aggregator.push(fragment)
            if done is not None:
                completed.feed_completed(done)
            assert fed.resolved == completed.resolved
            decisions.append(fed.resolved)
    return fed, completed, decisions, before_root


NESTED = [rule(UNATTENDED, "/opts/path", "const", "ok"), rule(ASK)]


@pytest.mark.parametrize("size", [1, 4, 1000])
def test_a_nested_duplicate_replaces_the_value_a_rule_qualified_on(make_parser: Any, size: int) -> None:
    text = '{"opts": {"path": "ok", "path": "/etc/x"}, "content": "..."}'
    fed, completed, decisions, before_root = run(make_parser, NESTED, [text[i:i + size] for i in range(0, len(text), size)])
    assert before_root is ASK  # decided again when "opts" completed, before the object ended
    assert fed.resolved is completed.resolved is ASK
    assert fed.duplicate_keys == [("opts", "path")]
    assert evaluate(NESTED, json.loads(text), complete=True) is ASK


@pytest.mark.parametrize("match", [None, "any"])
def test_a_nested_duplicate_by_hand_made_fragments(match: str | None) -> None:
    state = StreamingPolicyState([rule(UNATTENDED, "/opts/path", "const", "ok", match), rule(ASK)])
    for fragment in [
        ObjectEntry("opts", ObjectEntry("path", String("ok"))),
        ObjectEntry("opts", ObjectEntry("path", DONE)),
        ObjectEntry("opts", ObjectEntry("path", String("/etc/x"))),
        ObjectEntry("opts", ObjectEntry("path", DONE)),
    ]:
        state.feed(fragment)
    if match == "any":  # granted on "ok"; that value is gone, and "opts" may still repeat "path"
        assert state.resolved is None and state.revised is UNATTENDED
    else:  # "all" (the default for a grant) waits for "opts" to close, so it never granted
        assert state.resolved is ASK and state.revised is None
    state.feed(ObjectEntry("opts", DONE))
    assert state.resolved is ASK


def test_a_repeated_top_level_array_is_decided_again(make_parser: Any) -> None:
    text = '{"paths":["docs/a"],"paths":["/etc/passwd"]}'
    for match in ("any", "all"):
        rules = [rule(UNATTENDED, "/paths", "prefix", "docs/", match), rule(ASK)]
        fed, completed, decisions, before_root = run(make_parser, rules, [text[:12], text[12:20], text[20:]])
        assert UNATTENDED in decisions
        assert before_root is ASK
        assert fed.resolved is completed.resolved is ASK
        assert fed.revised is UNATTENDED


def test_a_duplicate_that_drops_an_element_a_grant_needed(make_parser: Any) -> None:
    rules = [rule(UNATTENDED, "/a/paths", "prefix", "docs/"), rule(ASK)]
    text = '{"a": {"paths": ["docs/a", "/etc/x"], "paths": ["docs/b"]}}'
    fed, _, _, before_root = run(make_parser, rules, [text])
    assert before_root is fed.resolved is UNATTENDED  # the last value: every element under docs/
    text = '{"a": {"paths": ["docs/a"], "paths": ["docs/b", "/etc/x"]}}'
    fed, _, _, before_root = run(make_parser, rules, [text])
    assert before_root is fed.resolved is ASK


def test_a_duplicate_that_replaces_a_matching_skip(make_parser: Any) -> None:
    rules = [rule(SKIP, "/a/b/path", "const", "/"), rule(UNATTENDED)]
    text = '{"a": {"b": {"path": "/"}, "b": {"other": 1}}}'
    fed, _, decisions, before_root = run(make_parser, rules, [text])
    assert SKIP in decisions
    assert before_root is fed.resolved is UNATTENDED
    assert fed.revised is SKIP


def test_nested_element_fed_by_hand_replaces_what_was_fed_below_it() -> None:
    rules = [rule(SKIP, "/patterns/paths", "const", "/"), rule(ASK)]
    state = StreamingPolicyState(rules)
    assert state.feed_nested_element("patterns", (0, "paths"), "/") is SKIP
    assert state.feed_nested_element("patterns", (0,), {"paths": "x"}) is None
    assert state.revised is SKIP
    assert state.feed_parameter("patterns", [{"paths": "x"}]) is ASK


# -- hypothesis: random nesting, duplicates at random depths and positions ------------------------

KEYS = ["opts", "path", "paths", "x"]
LEAVES = st.sampled_from(["ok", "docs/a", "/etc/x", "x", 1, None])


def _objects(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.lists(st.tuples(st.sampled_from(KEYS), inner), max_size=4).map(lambda pairs: ("obj", pairs))


TREES = st.recursive(
    LEAVES,
    lambda inner: st.one_of(st.lists(inner, max_size=3).map(lambda items: ("arr", items)), _objects(inner)),
    max_leaves=14,
)
TOP = st.lists(st.tuples(st.sampled_from(KEYS), TREES), max_size=5).map(lambda pairs: ("obj", pairs))


def dump(tree: Any) -> str:
    """JSON text that keeps every repeated key (``json.dumps`` cannot)."""
    if isinstance(tree, tuple) and tree[0] == "obj":
        return "{" + ", ".join(f"{json.dumps(k)}: {dump(v)}" for k, v in tree[1]) + "}"
    if isinstance(tree, tuple) and tree[0] == "arr":
        return "[" + ", ".join(dump(v) for v in tree[1]) + "]"
    return json.dumps(tree)


POINTERS = ["/opts/path", "/opts", "/paths", "/opts/paths/path", "/x/opts/path", "/path"]


@st.composite
def rules_strategy(draw: st.DrawFn) -> list[RunRule]:
    out = []
    for _ in range(draw(st.integers(1, 4))):
        mode = draw(st.sampled_from(list(RunMode)))
        if draw(st.integers(0, 4)) == 0:
            out.append(RunRule(mode))
            continue
        keyword, value = draw(st.sampled_from([("const", "ok"), ("prefix", "docs/"), ("enum", ["ok", 1]),
                                               ("pattern", "^/")]))
        match = draw(st.sampled_from([None, "any", "all"]))
        out.append(RunRule(mode, ParamCondition(draw(st.sampled_from(POINTERS)), make_matcher(keyword, value), match)))
    return out


@pytest.mark.hypothesis
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rules=rules_strategy(), tree=TOP, data=st.data())
def test_streaming_verdict_is_the_last_wins_verdict(make_parser: Any, rules: list[RunRule], tree: Any,
                                                     data: Any) -> None:
    text = dump(tree)
    args = json.loads(text)  # last value wins, at every depth
    cuts = sorted(data.draw(st.sets(st.integers(1, max(1, len(text) - 1)), max_size=12)))
    bounds = [0, *[c for c in cuts if 0 < c < len(text)], len(text)]
    fed, completed, decisions, before_root = run(make_parser, rules, [text[a:b] for a, b in zip(bounds, bounds[1:])])
    final = evaluate(rules, args, complete=True)
    assert before_root == evaluate(rules, args)  # every parameter complete, the object not yet ended
    assert fed.resolved is completed.resolved is final
    if any(d is not None and d is not final for d in decisions):
        assert fed.revised is not None  # a decision a repeated key took back is on record
