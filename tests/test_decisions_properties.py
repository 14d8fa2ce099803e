"""Property: what runs is what was decided on, whatever the model sends (duplicate keys, odd paths)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from argstream import EventBuilder
from argstream.events import ArgumentChunk, Finished, FinishReason, Flush, Part, ToolCall, ToolCallStart
from argstream.policy import RunMode, TurnCoordinator, evaluate, load_policies, run_inline
from argstream.policy.matchers import json_equal

pytestmark = [pytest.mark.hypothesis, pytest.mark.filterwarnings("ignore::argstream.policy.PolicyWarning")]

TOOLS = {"t": {"type": "object", "properties": {
    "path": {"type": "string", "format": "path"}, "mode": {"type": "string"}, "content": {"type": "string"}}}}
SEGMENTS = ["src", "docs", "..", ".", "", "a", "\x00", "etc", "\\"]
paths = st.lists(st.sampled_from(SEGMENTS), min_size=1, max_size=5).map("/".join) | st.sampled_from(
    ["/etc/passwd", "src/", "src/../.env", "src/..", "./src/a"])
values = {"path": paths, "mode": st.sampled_from(["read", "write", "delete"]), "content": st.text(max_size=20)}
modes = st.sampled_from(["ask", "unattended", "skip"])
rule = st.one_of(
    st.builds(lambda p, m: f'{{ arg = "/path", prefix = {json.dumps(p)}, mode = "{m}" }}',
              st.sampled_from(["src/", "docs", "/etc", "./"]), modes),
    st.builds(lambda v, m: f'{{ arg = "/mode", const = "{v}", mode = "{m}" }}', st.sampled_from(["read", "write"]), modes),
    st.builds(lambda m: f'{{ arg = "/path", pattern = "\\\\.env$", mode = "{m}" }}', modes),
)


@st.composite
def scenario(draw: Any) -> tuple[str, list[str], dict[str, Any] | None, list[bool]]:
    rules = draw(st.lists(rule, max_size=3))
    if draw(st.booleans()):
        rules.append(f'{{ mode = "{draw(modes)}" }}')
    policy = f"[tools.t.policy]\nrun = [{', '.join(rules)}]\n" if rules else ""
    keys = draw(st.lists(st.sampled_from(["path", "mode", "content"]), min_size=1, max_size=5))  # repeats: duplicates
    pairs = [(k, draw(values[k])) for k in keys]
    text = "{" + ", ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in pairs) + "}"
    cuts = sorted(set(draw(st.lists(st.integers(1, max(1, len(text) - 1)), max_size=8))))
    chunks = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)])]
    answers = draw(st.lists(st.booleans(), min_size=3, max_size=3))
    return policy, chunks, dict(pairs), answers


def _run(policy: str, chunks: list[str], answers: list[bool], builder: EventBuilder | None):
    try:
        policies = load_policies(policy, tools=TOOLS) if policy else {}
    except Exception:  # a rule set the loader rejects (a rule that can never match): nothing to drive
        return None
    shown: list[dict[str, Any]] = []
    ran: list[tuple[dict[str, Any], int, RunMode]] = []

    def prompt(call: Any) -> bool:
        shown.append(call.partial_arguments())
        return answers[min(len(shown), len(answers)) - 1]

    co = TurnCoordinator(policies, prompt=prompt, builder=builder,
                         execute=lambda c: ran.append((dict(c.arguments), len(shown), c.mode)))
    events = [Part(0, ToolCall(ToolCallStart("c", "t")))]
    events += [Part(0, ToolCall(ArgumentChunk(c))) for c in chunks]
    run_inline(co, [*events, Flush(0), Finished(FinishReason.TOOL_USE)])
    return policies, shown, ran


def _check(policies: dict, shown: list[dict], ran: list[tuple[dict, int, RunMode]]) -> None:
    """Each run call was approved on what its last prompt showed, or an unattended rule matches it."""
    for arguments, prompts_before, mode in ran:
        final = evaluate(policies.get("t", policies.get("*")).run if policies else [], arguments, complete=True)
        assert final is mode, (arguments, mode, final)
        if mode is RunMode.ASK:
            last = shown[prompts_before - 1]
            assert all(k in arguments and json_equal(arguments[k], v) for k, v in last.items()), (last, arguments)
        else:
            assert mode is RunMode.UNATTENDED


@given(scenario())
def test_what_runs_was_shown_or_matched_an_unattended_rule(case: Any) -> None:
    policy, chunks, _, answers = case
    out = _run(policy, chunks, answers, EventBuilder())
    if out is not None:
        _check(*out)


@given(scenario())
def test_same_without_duplicate_detection_in_the_parser(case: Any) -> None:
    """Even when the parser lets a duplicate key through (last wins), nothing runs undecided."""
    from argstream import IncrementalArgParser

    policy, chunks, _, answers = case
    out = _run(policy, chunks, answers, EventBuilder(parser_factory=IncrementalArgParser))
    if out is not None:
        _check(*out)
