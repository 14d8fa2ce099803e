"""Policy decisions on hostile sizes: a ``pattern`` rule on a 1 MB argument, RE2 against Python ``re``.

``re2-catastrophic`` is ``(a+)+$`` against ``"a" * 1_000_000 + "!"``: RE2 answers in linear time.
Python ``re`` cannot run that case at all (exponential: 31 characters already took over 20 s), so
its row uses a benign pattern (``\\.env$``) on the same megabyte, the best case of the engine the
policies used before.

    PYTHONPATH=src python -m pytest benchmarks/bench_policy.py --benchmark-min-rounds=5
"""

from __future__ import annotations

import json

import pytest

from argstream.events import ArgumentChunk, Finished, FinishReason, Flush, Part, ToolCall, ToolCallStart
from argstream.policy import RunMode, TurnCoordinator, load_policies, run_inline
from argstream.policy._ecma_regex import compile_pattern
from argstream.policy.matchers import PatternMatcher

MEGABYTE = "a" * 1_000_000 + "!"


@pytest.mark.benchmark(group="pattern-1MB")
@pytest.mark.parametrize(("name", "pattern"), [("re2-catastrophic", "(a+)+$"), ("re2-benign", "\\.env$")])
def test_pattern_rule_on_a_megabyte(benchmark, name: str, pattern: str) -> None:
    matcher = PatternMatcher(pattern)
    assert benchmark(matcher.matches, MEGABYTE) is False


@pytest.mark.benchmark(group="pattern-1MB")
def test_python_re_benign_on_a_megabyte(benchmark) -> None:
    regex = compile_pattern("\\.env$")
    assert benchmark(regex.search, MEGABYTE) is None


@pytest.mark.benchmark(group="decision-1MB")
def test_streamed_decision_on_a_megabyte_argument(benchmark) -> None:
    """A 1 MB ``path`` in 32-character chunks, decided by a catastrophic pattern rule, end to end."""
    policies = load_policies('[tools.t.policy]\nrun = [{ arg = "/p", pattern = "(a+)+$", mode = "skip" },'
                             ' { mode = "unattended" }]\n')
    text = json.dumps({"p": MEGABYTE})
    events = [Part(0, ToolCall(ToolCallStart("c", "t")))]
    events += [Part(0, ToolCall(ArgumentChunk(text[i:i + 32]))) for i in range(0, len(text), 32)]
    events += [Flush(0), Finished(FinishReason.TOOL_USE)]

    def run() -> RunMode | None:
        return run_inline(TurnCoordinator(policies), events).calls[0].mode

    assert benchmark(run) is RunMode.UNATTENDED
