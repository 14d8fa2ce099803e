"""Rules: a mode plus at most one condition; a policy is an ordered list of them (first match wins)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Union, overload

from .matchers import TypedMatcher
from .modes import ResultMode, RunMode
from .schema import parse_pointer

__all__ = ["ParamCondition", "RunRule", "RunPolicy", "Mode"]

Mode = Union[RunMode, ResultMode]


@dataclass(frozen=True)
class ParamCondition:
    """``arg`` (an RFC 6901 pointer into the tool's parameters, arrays without an index) and its matcher.

    Existential: the condition holds when any value the pointer reaches matches.
    A pointer that reaches no value does not match.
    """

    arg: str
    matcher: TypedMatcher
    segments: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
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

    def holds(self, value: Any) -> bool:
        """The condition holds for the complete value of :attr:`parameter`."""
        return self.holds_below(self.rest, value)

    def holds_below(self, rest: Sequence[str], value: Any) -> bool:
        """Any value reached from ``value`` by ``rest`` (arrays traversed) matches."""
        matches = self.matcher.matches
        stack: list[tuple[int, Any]] = [(0, value)]
        n = len(rest)
        while stack:
            depth, v = stack.pop()
            if isinstance(v, list):
                stack.extend((depth, item) for item in reversed(v))
            elif depth == n:
                if matches(v):
                    return True
            elif isinstance(v, dict) and rest[depth] in v:
                stack.append((depth + 1, v[rest[depth]]))
        return False

    def holds_for(self, arguments: dict[str, Any]) -> bool:
        """The condition holds for a complete argument object."""
        return self.parameter in arguments and self.holds(arguments[self.parameter])


@dataclass(frozen=True)
class RunRule:
    """A mode and an optional condition; a rule without a condition is a catch-all."""

    mode: Mode
    condition: ParamCondition | None = None

    @property
    def is_catch_all(self) -> bool:
        return self.condition is None


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
