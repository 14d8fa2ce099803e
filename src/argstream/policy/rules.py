"""Rules: a mode plus at most one condition; a policy is an ordered list of them (first match wins)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Union, overload

from .matchers import PatternTimeout, TypedMatcher
from .modes import ResultMode, RunMode
from .schema import parse_pointer

__all__ = ["ParamCondition", "RunRule", "RunPolicy", "Mode", "Quantifier", "QUANTIFIERS", "DEAD_END", "grants"]

Mode = Union[RunMode, ResultMode]


Quantifier = Literal["any", "all"]
QUANTIFIERS: tuple[Quantifier, ...] = ("any", "all")
DEAD_END = object()
"""What :meth:`ParamCondition.reached` yields where the pointer cannot go on: a value that is not an
object (or array) above the pointer's end, or an object that lacks the next key."""


def grants(mode: Mode) -> bool:
    """The mode lets a call (or a result) through without asking anyone: ``unattended``."""
    return mode.value == "unattended"


@dataclass(frozen=True)
class ParamCondition:
    """``arg`` (an RFC 6901 pointer into the tool's parameters, arrays without an index) and its matcher.

    The pointer reaches one value per array element on its way. ``match`` says how many of them must
    match: ``"any"`` (one is enough; a pointer that reaches no value does not match) or ``"all"`` (every
    element on the way leads to a value and every one matches; at least one is reached). ``None``
    leaves it to the rule: ``all`` for a rule that grants (``unattended``), ``any`` for the others.
    """

    arg: str
    matcher: TypedMatcher
    match: Quantifier | None = None
    segments: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.match not in (None, *QUANTIFIERS):
            raise ValueError(f"match is 'all' or 'any', not {self.match!r}")
        segments = parse_pointer(self.arg)
        object.__setattr__(self, "segments", segments)

    @property
    def parameter(self) -> str:
        """The top-level parameter the condition depends on."""
        return self.segments[0]

    @property
    def rest(self) -> tuple[str, ...]:
        """The pointer's segments below the top-level parameter."""
        return self.segments[1:]

    def reached(self, rest: Sequence[str], value: Any) -> Iterator[Any]:
        """The values ``rest`` reaches from ``value`` (arrays traversed, in order), and a
        :data:`DEAD_END` for each way that stops short of the pointer's end."""
        stack: list[tuple[int, Any]] = [(0, value)]
        n = len(rest)
        while stack:
            depth, v = stack.pop()
            if isinstance(v, list):
                stack.extend((depth, item) for item in reversed(v))
            elif depth == n:
                yield v
            elif isinstance(v, dict) and rest[depth] in v:
                stack.append((depth + 1, v[rest[depth]]))
            else:
                yield DEAD_END

    def test(self, value: Any, on_timeout: bool = False) -> bool:
        """The matcher accepts one reached ``value``; ``on_timeout`` when a bounded pattern ran out of time."""
        try:
            return self.matcher.matches(value)
        except PatternTimeout:
            return on_timeout

    def holds(self, value: Any, every: bool | None = None, on_timeout: bool = False) -> bool:
        """The condition holds for the complete value of :attr:`parameter`.

        ``every`` picks the quantifier (``None``: this condition's ``match``, else ``any``);
        ``on_timeout`` is what a bounded pattern search that runs out of time counts as.
        """
        return self.holds_below(self.rest, value, every, on_timeout)

    def holds_below(self, rest: Sequence[str], value: Any, every: bool | None = None,
                    on_timeout: bool = False) -> bool:
        """The values reached from ``value`` by ``rest`` match: any of them, or (``every``) all of them."""
        if every is None:
            every = self.match == "all"
        test = self.test
        if every:
            seen = False
            for v in self.reached(rest, value):
                if v is DEAD_END or not test(v, on_timeout):
                    return False
                seen = True
            return seen
        return any(v is not DEAD_END and test(v, on_timeout) for v in self.reached(rest, value))

    def holds_for(self, arguments: dict[str, Any], every: bool | None = None) -> bool:
        """The condition holds for a complete argument object."""
        return self.parameter in arguments and self.holds(arguments[self.parameter], every)


@dataclass(frozen=True)
class RunRule:
    """A mode and an optional condition; a rule without a condition is a catch-all."""

    mode: Mode
    condition: ParamCondition | None = None

    @property
    def is_catch_all(self) -> bool:
        return self.condition is None

    @property
    def every(self) -> bool:
        """The condition needs every value its pointer reaches to match (``match = "all"``, the default
        for a rule that grants), rather than one (``"any"``)."""
        if self.condition is not None and self.condition.match is not None:
            return self.condition.match == "all"
        return grants(self.mode)

    @property
    def on_timeout(self) -> bool:
        """What a bounded pattern search that runs out of time counts as: the answer that lets nothing
        through unasked (no match for a rule that grants, a match for one that skips or asks)."""
        return not grants(self.mode)

    def holds(self, value: Any) -> bool:
        """The condition holds for the complete value of its parameter (a catch-all always holds)."""
        return self.condition is None or self.condition.holds(value, self.every, self.on_timeout)


@dataclass(frozen=True)
class RunPolicy(Sequence[RunRule]):
    """An ordered list of rules; evaluation takes the first that matches, ``ask`` when none does."""

    rules: tuple[RunRule, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "rules", tuple(self.rules))

    @overload
    def __getitem__(self, index: int) -> RunRule: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[RunRule]: ...
    def __getitem__(self, index: Any) -> Any:
        return self.rules[index]

    def __len__(self) -> int:
        return len(self.rules)

    def __iter__(self) -> Iterator[RunRule]:
        return iter(self.rules)

    @property
    def conditional(self) -> bool:
        """Some rule depends on an argument (otherwise the policy decides before any argument arrives)."""
        return any(rule.condition is not None for rule in self.rules)

    @property
    def parameters(self) -> frozenset[str]:
        """The top-level parameters the rules depend on."""
        return frozenset(r.condition.parameter for r in self.rules if r.condition is not None)

    @classmethod
    def always(cls, mode: Mode) -> RunPolicy:
        """The policy of the shorthand ``run = "<mode>"``."""
        return cls((RunRule(mode),))
