"""``evaluate``: first-match-wins over the parameters known so far (a pure function, no I/O)."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from .modes import ResultMode, RunMode
from .rules import Mode, RunRule

__all__ = ["evaluate", "first_match", "fallback_mode", "PENDING", "IMPLICIT"]

PENDING = -1  # first_match: a rule's parameter has not arrived
IMPLICIT = -2  # first_match: every rule was eliminated


def fallback_mode(rules: Iterable[RunRule]) -> Mode:
    """The implicit mode when every rule is eliminated: ``ask`` (of the rules' own mode kind)."""
    for rule in rules:
        return ResultMode.ASK if isinstance(rule.mode, ResultMode) else RunMode.ASK
    return RunMode.ASK


def first_match(
    rules: Sequence[RunRule],
    known_params: Mapping[str, Any],
    complete: bool = False,
    matched: Collection[int] = (),
    failed: Collection[int] = (),
) -> int:
    """The index of the deciding rule, ``PENDING`` or ``IMPLICIT`` (see :func:`evaluate`)."""
    for i, rule in enumerate(rules):
        condition = rule.condition
        if condition is None:
            return i
        name = condition.parameter
        if name in known_params:
            if rule.holds(known_params[name]):
                return i
        elif i in matched:
            return i
        elif i in failed:
            continue
        elif not complete:
            return PENDING
    return IMPLICIT


def evaluate(
    rules: Iterable[RunRule],
    known_params: Mapping[str, Any],
    *,
    complete: bool = False,
    matched: Collection[int] = (),
    failed: Collection[int] = (),
) -> Mode | None:
    """The mode of the first rule that matches, or ``None`` while it cannot be known yet.

    Top to bottom: a catch-all matches; a condition whose parameter is in
    ``known_params`` (complete values) matches or is eliminated; a condition
    whose parameter has not arrived blocks, returning ``None``, because it
    outranks every rule below it. With ``complete=True`` the argument object is
    whole, so a missing parameter is absent and its rule is eliminated.
    Over arrays a rule that grants (``unattended``) needs every value its
    pointer reaches to match, the others any one (unless the condition's
    ``match`` says otherwise). For a parameter not in ``known_params``,
    ``matched`` and ``failed`` hold indexes of rules already decided by the
    elements seen so far (one element matched an ``any`` rule, or failed an
    ``all`` rule). When every rule is eliminated the mode is ``ask``.
    """
    rules = tuple(rules)
    i = first_match(rules, known_params, complete, matched, failed)
    if i == PENDING:
        return None
    if i == IMPLICIT:
        return fallback_mode(rules)
    return rules[i].mode
