"""``StreamingPolicyState``: one tool call's policy, evaluated as its arguments stream (RFD D26).

Fed complete parameter values (``feed_parameter``), values below a parameter
(``feed_nested_element``), or fragments / ``ToolCallArgumentProgress``
(``feed``, which aggregates them and calls ``feed_completed``). It decides as
soon as the first-match-wins outcome of the arguments received so far is known:

- a rule whose parameter has not completed blocks every rule below it, unless
  the values its pointer reached so far already decide it: one match decides
  an ``any`` rule (the default for ``skip``, ``ask`` and ``edit``), one value
  that fails decides an ``all`` rule (the default for ``unattended``); an
  ``all`` rule matches only once its parameter is complete;
- a parameter that never arrives is known to be absent only when the whole
  argument object has ended (the root ``Done``, or :meth:`finish` at flush),
  which is the same evaluation with every parameter known.

Duplicate keys: the complete arguments keep the last value of a repeated key,
as ``json.loads`` does, and the state follows them at every depth: a value a
repeated key replaces no longer counts, and a decision that rested on it is
made again (``revised``). So once the arguments are complete the decision is
always :func:`~argstream.policy.evaluate` of those arguments.
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

Path = tuple[Any, ...]
Outcome = tuple[tuple[int, bool], ...]  # (rule index, the value counts as a match) per rule it concerns


class _Node:
    """A place in one parameter's value: the outcome of the value there, and the places below it."""

    __slots__ = ("outcome", "children")

    def __init__(self) -> None:
        self.outcome: Outcome = ()
        self.children: dict[Any, _Node] | None = None


class _Tally:
    """The values the rules on one top-level parameter reached so far, while that parameter streams.

    Each reached value (and each way that stops short of a pointer's end) has an
    outcome per rule, kept at its path, so that a value a repeated key replaces
    can be taken back: ``hits`` and ``misses`` count the outcomes in force.
    """

    __slots__ = ("rules", "ids", "root", "hits", "misses", "open_keys", "duplicates", "changed", "_roles", "_shared")

    def __init__(self, rules: Sequence[RunRule], ids: list[int]) -> None:
        self.rules = rules
        self.ids = ids
        self.root = _Node()
        self.hits = dict.fromkeys(ids, 0)
        self.misses = dict.fromkeys(ids, 0)
        self.open_keys: dict[Path, set[str]] = {}
        self.duplicates: list[Path] = []
        self.changed = False  # some count went from zero to non-zero or back: a rule's status may differ
        self._roles: dict[tuple[str, ...], Any] = {}
        self._shared: dict[Outcome, Outcome] = {}  # one object per distinct outcome (there are few)

    # -- outcomes ------------------------------------------------------------------

    def _role(self, keys: tuple[str, ...]) -> Any:
        """For a value at object keys ``keys``: the rules whose pointer ends there (``reach``) and the
        ``all`` rules that go on through it (``ways``, with their next key); ``None`` when no pointer
        passes there. Kept per ``keys`` (few: the prefixes of the rules' pointers)."""
        role = self._roles.get(keys, self)
        if role is not self:
            return role
        n = len(keys)
        reach, ways, relevant = [], [], False
        for i in self.ids:
            rule = self.rules[i]
            cond = rule.condition
            assert cond is not None
            rest = cond.rest
            if rest[:n] != keys:
                continue
            relevant = True
            if len(rest) == n:
                reach.append((i, cond.test, rule.on_timeout))
            elif rule.every:
                ways.append((i, rest[n]))
        role = (tuple(reach), tuple(ways)) if relevant else None
        if relevant or len(self._roles) < 256:
            self._roles[keys] = role
        return role

    def _outcome(self, role: Any, value: Any) -> Outcome:
        """What the value at a place with ``role`` means to each rule (an array's elements count one
        by one, so an array means nothing by itself)."""
        if type(value) is list:
            return ()
        reach, ways = role
        out = [(i, test(value, on_timeout)) for i, test, on_timeout in reach]
        if ways:
            has = value.__contains__ if type(value) is dict else None
            # a dead end: no value for an "all" rule's pointer on this way
            out += [(i, False) for i, key in ways if has is None or not has(key)]
        outcome = tuple(out)
        return self._shared.setdefault(outcome, outcome)

    def _count(self, outcome: Outcome, sign: int) -> None:
        for i, hit in outcome:
            counts = self.hits if hit else self.misses
            before = counts[i]
            counts[i] = before + sign
            if not before or not counts[i]:
                self.changed = True

    def _node(self, path: Path, create: bool) -> _Node | None:
        node = self.root
        for step in path[1:]:
            children = node.children
            if children is None:
                if not create:
                    return None
                children = node.children = {}
            child = children.get(step)
            if child is None:
                if not create:
                    return None
                child = children[step] = _Node()
            node = child
        return node

    def _set(self, path: Path, outcome: Outcome) -> None:
        node = self._node(path, create=bool(outcome))
        if node is None:
            return
        self._count(node.outcome, -1)
        node.outcome = outcome
        self._count(outcome, 1)

    def _remove(self, path: Path) -> None:
        """Take back every outcome at ``path`` and below it."""
        node = self._node(path, create=False)
        if node is None:
            return
        stack = [node]
        while stack:
            n = stack.pop()
            self._count(n.outcome, -1)
            n.outcome = ()
            if n.children:
                stack.extend(n.children.values())
            n.children = None

    def _rebuild(self, path: Path, value: Any) -> None:
        """Record every outcome inside ``value``, the complete value at ``path``."""
        base = tuple(step for step in path[1:] if type(step) is str)
        stack: list[tuple[Path, tuple[str, ...], Any]] = [(path, base, value)]
        while stack:
            where, keys, v = stack.pop()
            role = self._role(keys)
            if role is None:
                continue
            self._set(where, self._outcome(role, v))
            if type(v) is list:
                stack.extend((where + (k,), keys, item) for k, item in enumerate(v))
            elif type(v) is dict:
                stack.extend((where + (key,), keys + (key,), item) for key, item in v.items())

    # -- input ---------------------------------------------------------------------

    def completed(self, path: Path, value: Any) -> None:
        """The value at ``path`` (below the parameter) is complete; the values inside it came first."""
        keys = tuple(step for step in path[1:] if type(step) is str)
        if self.open_keys:
            self.open_keys.pop(path, None)
        role = self._role(keys)
        if role is None:
            return
        last = path[-1]
        if type(last) is str:
            seen = self.open_keys.setdefault(path[:-1], set())
            if last in seen:  # a repeated key: the last value wins, whatever the first one left behind
                self.duplicates.append(path)
                self.replace(path, value)
                return
            seen.add(last)
        self._set(path, self._outcome(role, value))

    def replace(self, path: Path, value: Any) -> None:
        """``value`` is the whole, complete value at ``path``: it replaces anything recorded there."""
        self._remove(path)
        self._rebuild(path, value)

    def status(self, i: int) -> bool | None:
        """Rule ``i`` decided by the values so far: ``True`` (an ``any`` rule matched), ``False`` (an
        ``all`` rule failed), or ``None`` (it needs the complete parameter)."""
        if self.rules[i].every:
            return False if self.misses[i] else None
        return True if self.hits[i] else None


class StreamingPolicyState:
    """Per-tool-call policy state: the parameters known so far and the decision, once there is one.

    ``resolved`` is ``None`` while waiting. A policy with no conditional rule
    resolves at construction. After a decision, input is still followed: when
    a repeated key (at any depth) replaces a value the decision rested on, the
    decision is made again (``resolved`` may go back to ``None`` until the new
    value is complete) and ``revised`` holds the first mode that was replaced.
    ``duplicate_keys`` lists the paths where a key the rules look at was
    repeated (the coordinator's parser refuses such arguments). :meth:`finish`
    checks the decision against the complete arguments.
    """

    def __init__(self, rules: Iterable[RunRule]) -> None:
        self.rules: tuple[RunRule, ...] = tuple(rules)
        self.known_params: dict[str, Any] = {}
        self.resolved: Mode | None = None
        self.rule_index: int | None = None  # the deciding rule; None for the implicit ask
        self.complete = False
        self.revised: Mode | None = None
        self.duplicate_keys: list[Path] = []
        self._aggregator = FragmentAggregator()
        self._by_param: dict[str, list[int]] = {}
        for i, rule in enumerate(self.rules):
            if rule.condition is not None:
                self._by_param.setdefault(rule.condition.parameter, []).append(i)
        self._tallies: dict[str, _Tally] = {}
        self._held: dict[int, bool] = {}  # rule index -> it holds for its complete parameter
        self._evaluate()

    # -- decision --------------------------------------------------------------

    def _statuses(self) -> tuple[set[int], set[int]]:
        """The rules decided so far: those that match and those that are eliminated (``first_match``
        then has only the undecided rules to wait for). A complete parameter's outcome is kept, so a
        large value is walked once, not at every evaluation."""
        matched: set[int] = set()
        failed: set[int] = set()
        for name, ids in self._by_param.items():
            if name in self.known_params:
                for i in ids:
                    held = self._held.get(i)
                    if held is None:
                        held = self._held[i] = self.rules[i].holds(self.known_params[name])
                    (matched if held else failed).add(i)
                continue
            tally = self._tallies.get(name)
            if tally is None:
                continue
            for i in ids:
                status = tally.status(i)
                if status is True:
                    matched.add(i)
                elif status is False:
                    failed.add(i)
        return matched, failed

    def _evaluate(self) -> Mode | None:
        matched, failed = self._statuses()
        i = first_match(self.rules, {}, self.complete, matched, failed)
        before = self.resolved
        if i == PENDING:
            self.resolved = self.rule_index = None
        elif i == IMPLICIT:
            self.resolved, self.rule_index = fallback_mode(self.rules), None
        else:
            self.resolved, self.rule_index = self.rules[i].mode, i
        if before is not None and self.resolved != before and self.revised is None:
            self.revised = before
        return self.resolved

    @property
    def waiting_for(self) -> str | None:
        """The parameter that blocks the decision (``None`` once resolved)."""
        if self.resolved is not None:
            return None
        matched, failed = self._statuses()
        for i, rule in enumerate(self.rules):
            cond = rule.condition
            if cond is None or i in matched:
                return None
            if cond.parameter not in self.known_params and i not in failed:
                return cond.parameter
        return None

    @property
    def parameters(self) -> frozenset[str]:
        """The top-level parameters some rule depends on."""
        return frozenset(self._by_param)

    def _tally(self, name: str) -> _Tally | None:
        tally = self._tallies.get(name)
        if tally is None:
            ids = self._by_param.get(name)
            if not ids:
                return None
            tally = self._tallies[name] = _Tally(self.rules, ids)
        return tally

    # -- input -----------------------------------------------------------------

    def feed_parameter(self, key: str, value: Any) -> Mode | None:
        """Top-level parameter ``key`` is complete with ``value``; return the decision so far.

        A key that arrives again with another value (a duplicate key in the argument text)
        replaces the first: a decision that rested on the replaced value is made again.
        """
        again = key in self.known_params
        if again and json_equal(self.known_params[key], value):
            return self.resolved
        if again and key in self._by_param:
            self.duplicate_keys.append((key,))
        self.known_params[key] = value
        for i in self._by_param.get(key, ()):
            self._held.pop(i, None)
        tally = self._tallies.pop(key, None)
        if tally is not None:
            self.duplicate_keys.extend(tally.duplicates)
        if key in self._by_param:
            return self._evaluate()
        return self.resolved

    def feed_nested_element(self, top_level_key: str, path: Sequence[str | int], value: Any) -> Mode | None:
        """The value below ``top_level_key`` at ``path`` (keys and array indexes) is complete.

        ``value`` is taken whole: it replaces anything fed at ``path`` or below it before.
        """
        tally = self._tally(top_level_key)
        if tally is None or top_level_key in self.known_params:
            return self.resolved
        tally.replace((top_level_key, *path), value)
        return self._evaluate()

    def feed_completed(self, completed: Completed) -> Mode | None:
        """A value completed by a :class:`FragmentAggregator` (the caller's own aggregator), in its order:
        the values inside a container complete before the container."""
        path, value = completed.path, completed.value
        depth = len(path)
        if depth == 1:
            return self.feed_parameter(path[0], value)  # type: ignore[arg-type]
        if depth == 0:
            return self.finish(value if isinstance(value, dict) else {})
        name = path[0]
        if name in self.known_params and name in self._by_param:
            # A repeated top-level key is streaming again: its complete value will replace the first.
            return self.resolved
        tally = self._tally(name)  # type: ignore[arg-type]
        if tally is None:
            return self.resolved
        tally.changed = False
        tally.completed(path, value)
        return self._evaluate() if tally.changed else self.resolved

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
        return self.resolved

    def finish(self, arguments: Mapping[str, Any] | None = None) -> Mode:
        """The argument object is complete (the root ``Done``, or the flush fallback); decide now.

        ``arguments``, when given, is the complete object and its values win.
        Every parameter not seen is absent, so the same evaluation always decides.
        """
        if arguments is not None:
            for name, ids in self._by_param.items():
                if name not in arguments or arguments[name] is not self.known_params.get(name):
                    for i in ids:
                        self._held.pop(i, None)
            self.known_params = dict(arguments)
            self._tallies.clear()
        self.complete = True
        mode = self._evaluate()
        assert mode is not None
        return mode

    def __repr__(self) -> str:
        return f"StreamingPolicyState(resolved={self.resolved!r}, known={sorted(self.known_params)!r})"

