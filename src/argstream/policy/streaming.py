"""``StreamingPolicyState``: one tool call's policy, evaluated as its arguments stream (RFD D26).

Fed complete parameter values (``feed_parameter``), array elements below a
parameter (``feed_nested_element``), or fragments / ``ToolCallArgumentProgress``
(``feed``, which aggregates them and calls the other two). It re-evaluates only
when something a rule depends on has arrived, and decides as soon as the
first-match-wins outcome can no longer change:

- a rule whose parameter has not completed blocks every rule below it;
- an array element reached by a rule's pointer that matches decides that rule
  at once (existential matching is monotonic); if the parameter completes
  without a match, the rule is eliminated;
- a parameter that never arrives is known to be absent only when the whole
  argument object has ended (the root ``Done``, or :meth:`finish` at flush),
  which is the same evaluation with every parameter known.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..aggregate import Completed, FragmentAggregator
from ..events import ToolCallArgumentProgress
from .evaluation import IMPLICIT, PENDING, fallback_mode, first_match
from .matchers import json_equal
from .rules import Mode, RunRule

__all__ = ["StreamingPolicyState"]


class StreamingPolicyState:
    """Per-tool-call policy state: the parameters known so far and the decision, once there is one.

    ``resolved`` is ``None`` while waiting. A policy with no conditional rule
    resolves at construction. Once resolved, further input is ignored, except a
    top-level parameter that arrives again with another value (a duplicate key):
    then the decision is made again, and ``revised`` holds the mode it replaced.
    :meth:`finish` checks the decision against the complete arguments.
    """

    def __init__(self, rules: Iterable[RunRule]) -> None:
        self.rules: tuple[RunRule, ...] = tuple(rules)
        self.known_params: dict[str, Any] = {}
        self.resolved: Mode | None = None
        self.rule_index: int | None = None  # the deciding rule; None for the implicit ask
        self.complete = False
        self.revised: Mode | None = None
        self._matched: set[int] = set()
        self._aggregator = FragmentAggregator()
        self._by_param: dict[str, list[int]] = {}
        for i, rule in enumerate(self.rules):
            if rule.condition is not None:
                self._by_param.setdefault(rule.condition.parameter, []).append(i)
        self._evaluate()

    # -- decision --------------------------------------------------------------

    def _evaluate(self) -> Mode | None:
        i = first_match(self.rules, self.known_params, self.complete, self._matched)
        if i == PENDING:
            return None
        if i == IMPLICIT:
            self.resolved, self.rule_index = fallback_mode(self.rules), None
        else:
            self.resolved, self.rule_index = self.rules[i].mode, i
        return self.resolved

    @property
    def waiting_for(self) -> str | None:
        """The parameter that blocks the decision (``None`` once resolved)."""
        if self.resolved is not None:
            return None
        for i, rule in enumerate(self.rules):
            cond = rule.condition
            if cond is not None and i not in self._matched and cond.parameter not in self.known_params:
                return cond.parameter
        return None

    @property
    def parameters(self) -> frozenset[str]:
        """The top-level parameters some rule depends on."""
        return frozenset(self._by_param)

    # -- input -----------------------------------------------------------------

    def feed_parameter(self, key: str, value: Any) -> Mode | None:
        """Top-level parameter ``key`` is complete with ``value``; return the decision so far.

        A key that arrives again with another value (a duplicate key in the argument text)
        replaces the first: a decision that rested on the replaced value is made again.
        """
        if key in self.known_params and not json_equal(self.known_params[key], value):
            return self._replace(key, value)
        if self.resolved is not None:
            return self.resolved
        self.known_params[key] = value
        if key in self._by_param:
            return self._evaluate()
        return None

    def _replace(self, key: str, value: Any) -> Mode | None:
        self.known_params[key] = value
        for i in self._by_param.get(key, ()):
            self._matched.discard(i)
        early = self.resolved
        self.resolved = self.rule_index = None
        decided = self._evaluate()
        if early is not None and decided != early:
            self.revised = early
        return decided

    def feed_nested_element(self, top_level_key: str, path: Sequence[str | int], value: Any) -> Mode | None:
        """A value below ``top_level_key`` is complete: ``path`` leads to it (keys and array indexes).

        Each undecided rule whose pointer passes through ``path`` checks the
        values it reaches inside ``value``; a match decides that rule for good.
        """
        if self.resolved is not None:
            return self.resolved
        keys = tuple(step for step in path if isinstance(step, str))
        hit = False
        for i in self._by_param.get(top_level_key, ()):
            if i in self._matched:
                continue
            cond = self.rules[i].condition
            assert cond is not None
            rest = cond.rest
            if rest[: len(keys)] == keys and cond.holds_below(rest[len(keys):], value):
                self._matched.add(i)
                hit = True
        return self._evaluate() if hit else None

    def feed_completed(self, completed: Completed) -> Mode | None:
        """A value completed by a :class:`FragmentAggregator` (the caller's own aggregator)."""
        path, value = completed.path, completed.value
        depth = len(path)
        if depth == 1:
            return self.feed_parameter(path[0], value)  # type: ignore[arg-type]
        if self.resolved is not None:
            return self.resolved
        if depth == 0:
            return self.finish(value if isinstance(value, dict) else {})
        if type(value) is list:
            return None  # its elements were fed one by one
        rule_ids = self._by_param.get(path[0])  # type: ignore[arg-type]
        if not rule_ids:
            return None
        # A leaf the pointer reaches exactly; containers above it were walked element by element.
        keys = tuple(step for step in path[1:] if type(step) is str)
        hit = False
        for i in rule_ids:
            cond = self.rules[i].condition
            assert cond is not None
            if i not in self._matched and cond.rest == keys and cond.matcher.matches(value):
                self._matched.add(i)
                hit = True
        return self._evaluate() if hit else None

    def feed(self, progress: Any) -> Mode | None:
        """Feed a ``ToolCallArgumentProgress``, a fragment (nested or a ``(path, leaf)`` pair), or a list of them.

        The fragments are aggregated here; a consumer that already has the completed values
        (the ``completed`` field of the stream's progress items) calls :meth:`feed_completed`.
        """
        if isinstance(progress, list):
            for item in progress:
                self.feed(item)
            return self.resolved
        fragment = progress.fragment if isinstance(progress, ToolCallArgumentProgress) else progress
        completed = self._aggregator.push(fragment)
        if completed is not None:
            return self.feed_completed(completed)
        return None

    def finish(self, arguments: Mapping[str, Any] | None = None) -> Mode:
        """The argument object is complete (the root ``Done``, or the flush fallback); decide now.

        ``arguments``, when given, is the complete object and its values win.
        Every parameter not seen is absent, so the same evaluation always decides.
        """
        early = self.resolved
        matched: set[int] = self._matched
        if arguments is not None:
            self.known_params = dict(arguments)
            matched = set()
        self.complete = True
        i = first_match(self.rules, self.known_params, True, matched)
        final = fallback_mode(self.rules) if i == IMPLICIT else self.rules[i].mode
        self.rule_index = None if i == IMPLICIT else i
        if early is not None and early != final:
            self.revised = early
        self.resolved = final
        return final

    def __repr__(self) -> str:
        return f"StreamingPolicyState(resolved={self.resolved!r}, known={sorted(self.known_params)!r})"
