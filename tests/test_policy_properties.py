"""Property tests: streaming decisions are sound and on time.

For random rule lists and random argument objects streamed in random chunks:

- soundness: the streaming decision equals ``evaluate()`` on the complete arguments;
- timeliness: it arrives no later than the chunk that completes the last parameter the
  deciding rule (and every rule above it) needed; a parameter that is absent is known so only
  when the object ends;
- order: it never decides while a rule above the deciding one still waits for its parameter.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from argstream import DONE, IncrementalArgParser, ObjectEntry
from argstream.policy import ParamCondition, RunMode, RunRule, StreamingPolicyState, evaluate, make_matcher
from argstream.policy.evaluation import IMPLICIT, first_match

pytestmark = pytest.mark.hypothesis

PATHS = ["src/a.rs", "src", "src-old/x", "docs/g.md", "./src/../docs/x", ".env", "a/.env", "/etc/passwd", "src/../.env"]
PATH_PREFIXES = ["src/", "src", "docs", "/etc", ".", "a"]
STRINGS = ["main", "git status", "rm -rf /", "x", "", "mainline", "Git"]
STRING_PREFIXES = ["git", "rm ", "main", "x", ""]
PATTERNS = [r"\.env$", "^src/", "rm", r"\d", "^$", "a|b", r"^[a-z]+$"]

# parameter -> (type, pointer, value strategy)
PARAMS: dict[str, tuple[str, st.SearchStrategy[Any]]] = {
    "path": ("path", st.sampled_from(PATHS)),
    "name": ("string", st.sampled_from(STRINGS)),
    "n": ("integer", st.integers(-3, 12)),
    "x": ("number", st.one_of(st.integers(-3, 3), st.floats(-3, 3, allow_nan=False))),
    "flag": ("boolean", st.booleans()),
    "tags": ("string", st.lists(st.sampled_from(STRINGS), max_size=3)),
    "patterns": (
        "path",
        st.lists(
            st.fixed_dictionaries(
                {}, optional={"paths": st.lists(st.sampled_from(PATHS), max_size=3), "old": st.sampled_from(STRINGS)}
            ),
            max_size=3,
        ),
    ),
    "content": ("string", st.text(max_size=40)),
}
POINTERS = {"path": "/path", "name": "/name", "n": "/n", "x": "/x", "flag": "/flag", "tags": "/tags",
            "patterns": "/patterns/paths", "content": "/content"}
MODES = st.sampled_from(list(RunMode))


def matcher_for(param_type: str) -> st.SearchStrategy[tuple[str, Any]]:
    if param_type == "path":
        return st.one_of(
            st.tuples(st.just("prefix"), st.sampled_from(PATH_PREFIXES)),
            st.tuples(st.just("pattern"), st.sampled_from(PATTERNS)),
            st.tuples(st.just("const"), st.sampled_from(PATHS)),
            st.tuples(st.just("enum"), st.lists(st.sampled_from(PATHS), min_size=1, max_size=3)),
        )
    if param_type == "string":
        return st.one_of(
            st.tuples(st.just("prefix"), st.sampled_from(STRING_PREFIXES)),
            st.tuples(st.just("pattern"), st.sampled_from(PATTERNS)),
            st.tuples(st.just("const"), st.sampled_from(STRINGS)),
            st.tuples(st.just("enum"), st.lists(st.sampled_from(STRINGS), min_size=1, max_size=3)),
        )
    if param_type in ("integer", "number"):
        return st.one_of(
            st.tuples(st.sampled_from(["minimum", "maximum", "exclusive_minimum", "exclusive_maximum"]),
                      st.integers(-3, 12)),
            st.tuples(st.just("const"), st.integers(-3, 12)),
            st.tuples(st.just("enum"), st.lists(st.integers(-3, 12), min_size=1, max_size=3)),
        )
    return st.one_of(st.tuples(st.just("const"), st.booleans()),
                     st.tuples(st.just("enum"), st.lists(st.booleans(), min_size=1, max_size=2)))


@st.composite
def rules_strategy(draw: st.DrawFn) -> list[RunRule]:
    out = []
    for _ in range(draw(st.integers(0, 5))):
        mode = draw(MODES)
        if draw(st.integers(0, 5)) == 0:
            out.append(RunRule(mode))
            continue
        name = draw(st.sampled_from(sorted(PARAMS)))
        param_type = PARAMS[name][0]
        keyword, value = draw(matcher_for(param_type))
        match = draw(st.sampled_from([None, None, "any", "all"]))
        out.append(RunRule(mode, ParamCondition(POINTERS[name], make_matcher(keyword, value, param_type), match)))
    return out


@st.composite
def arguments_strategy(draw: st.DrawFn) -> dict[str, Any]:
    names = draw(st.permutations(sorted(PARAMS)))
    keep = draw(st.lists(st.booleans(), min_size=len(names), max_size=len(names)))
    return {name: draw(PARAMS[name][1]) for name, k in zip(names, keep) if k}


@st.composite
def chunked(draw: st.DrawFn, text: str) -> list[str]:
    if not text:
        return [text]
    cuts = sorted(draw(st.sets(st.integers(1, max(1, len(text) - 1)), max_size=min(len(text), 30))))
    bounds = [0, *[c for c in cuts if 0 < c < len(text)], len(text)]
    return [text[a:b] for a, b in zip(bounds, bounds[1:])]


def stream(rules: list[RunRule], chunks: list[str]) -> tuple[StreamingPolicyState, int | None, dict[str, int], int]:
    """Feed the chunks; return the state, the chunk of the decision (-1: before any), when each
    top-level parameter completed, and the chunk of the root ``Done``."""
    state = StreamingPolicyState(rules)
    decided_at = -1 if state.resolved is not None else None
    parser = IncrementalArgParser()
    completed: dict[str, int] = {}
    root_done = -1
    for k, chunk in enumerate(chunks):
        for fragment in parser.push(chunk):
            if type(fragment) is ObjectEntry and fragment.value is DONE:
                completed[fragment.key] = k
            elif fragment is DONE:
                root_done = k
            state.feed(fragment)
        if decided_at is None and state.resolved is not None:
            decided_at = k
            waiting_above = [
                r.condition.parameter
                for r in rules[: state.rule_index if state.rule_index is not None else len(rules)]
                # an "all" rule (a grant) is eliminated by the first value that fails, before its parameter ends
                if r.condition is not None and r.condition.parameter not in completed and root_done < 0 and not r.every
            ]
            assert not waiting_above, f"decided past rules still waiting for {waiting_above}"
    return state, decided_at, completed, root_done


FORMATS = st.sampled_from([{}, {"indent": 1}, {"separators": (",", ":")}, {"ensure_ascii": False}])


@given(rules=rules_strategy(), args=arguments_strategy(), fmt=FORMATS, data=st.data())
def test_streaming_decision_is_sound_and_on_time(rules: list[RunRule], args: dict, fmt: dict, data: Any) -> None:
    text = json.dumps(args, **fmt)
    chunks = data.draw(chunked(text))
    state, decided_at, completed, root_done = stream(rules, chunks)

    expected = evaluate(rules, args, complete=True)
    assert state.resolved == expected  # soundness
    assert decided_at is not None

    # Timeliness: no later than the chunk that completed the last parameter a rule needed.
    deciding = first_match(rules, args, complete=True)
    needed_rules = rules if deciding == IMPLICIT else rules[: deciding + 1]
    bound = -1
    for r in needed_rules:
        if r.condition is None:
            continue
        name = r.condition.parameter
        bound = max(bound, completed[name] if name in args else root_done)
    assert decided_at <= bound, (decided_at, bound, chunks)


@given(rules=rules_strategy(), args=arguments_strategy())
def test_flush_fallback_matches_evaluate(rules: list[RunRule], args: dict) -> None:
    state = StreamingPolicyState(rules)
    assert state.finish(args) == evaluate(rules, args, complete=True)


@given(rules=rules_strategy(), args=arguments_strategy())
def test_evaluate_with_parameters_in_any_subset_is_consistent(rules: list[RunRule], args: dict) -> None:
    """A decision on part of the arguments is the decision on all of them (monotonicity)."""
    final = evaluate(rules, args, complete=True)
    known: dict[str, Any] = {}
    for name, value in args.items():
        known[name] = value
        partial = evaluate(rules, known)
        assert partial is None or partial == final
