"""Typed matchers: one class per keyword of POLICY.md's matcher table.

A matcher tests one JSON value (``matches``); a value of a type it does not
handle never matches. ``covers`` tells whether every value another matcher
accepts is accepted by this one too, which is how a load finds rules that can
never match. ``check`` tells whether the keyword suits a parameter type.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ._ecma_regex import BoundedPattern, LinearPattern, PatternTimeout, compile_guarded

__all__ = [
    "TypedMatcher", "ConstMatcher", "EnumMatcher", "PatternMatcher", "PrefixMatcher", "PathPrefixMatcher",
    "MinimumMatcher", "MaximumMatcher", "ExclusiveMinimumMatcher", "ExclusiveMaximumMatcher",
    "MATCHER_KEYWORDS", "make_matcher", "PatternTimeout", "json_equal", "json_type", "normalize_path", "path_components",
]

STRING_TYPES = frozenset({"string", "path"})
NUMBER_TYPES = frozenset({"number", "integer"})


def json_type(value: Any) -> str | None:
    """The JSON type name of a Python value (``None`` for something JSON cannot hold)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number" if math.isfinite(value) else None
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array" if all(json_type(v) for v in value) else None
    if isinstance(value, dict):
        return "object" if all(isinstance(k, str) and json_type(v) for k, v in value.items()) else None
    return None


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _finite(value: Any) -> bool:
    """A number a bound can hold for: not a bool, not an infinity or NaN (``-1e400`` parses to ``-inf``)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    return isinstance(value, float) and math.isfinite(value)


def json_equal(a: Any, b: Any) -> bool:
    """Equality of JSON values: ``1 == 1.0``, but ``true`` is not ``1``."""
    if _is_number(a) and _is_number(b):
        return a == b
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def path_components(value: str) -> tuple[bool, tuple[str, ...]] | None:
    """``(absolute, components)`` of a path from the model after normalising, or ``None`` when it may
    escape every prefix: it climbs above its start (``src/../../x``, ``../x``), holds a NUL (which
    truncates it for the OS), or a part Windows reads otherwise than it is written: a backslash (a
    separator there), a ``:`` (a drive, or an alternate data stream: ``a::$DATA``, ``a:s``), or a
    trailing dot or space (dropped there: ``src. /x`` is ``src/x``).
    """
    if "\x00" in value or "\\" in value or ":" in value:
        return None
    for part in value.split("/"):
        if part and part not in (".", "..") and part[-1] in ". ":
            return None
    absolute, parts = normalize_path(value)
    if parts and parts[0] == "..":
        return None
    return absolute, parts


def normalize_path(path: str) -> tuple[bool, tuple[str, ...]]:
    """``(absolute, components)`` with ``.``, ``..``, repeated and trailing separators resolved."""
    absolute = path.startswith("/")
    parts: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if parts and parts[-1] != "..":
                parts.pop()
            elif not absolute:
                parts.append("..")
            continue
        parts.append(part)
    return absolute, tuple(parts)


def _suits_type(value: Any, param_type: str | None) -> bool:
    """``value`` (from the configuration) is a value of ``param_type``."""
    kind = json_type(value)
    if kind is None:
        return False
    if param_type is None:
        return True
    if param_type == "path":
        return kind == "string"
    if param_type == "number":
        return kind in NUMBER_TYPES
    if param_type == "integer":
        return kind == "integer" or (kind == "number" and float(value).is_integer())
    return kind == param_type


def _type_name(value: Any) -> str:
    return json_type(value) or type(value).__name__


class TypedMatcher:
    """Base of the matchers: ``keyword`` in the configuration, the parameter ``types`` it suits."""

    keyword: ClassVar[str]
    types: ClassVar[frozenset[str] | None] = None  # None: any type

    def matches(self, value: Any) -> bool:
        """The condition holds for ``value``."""
        raise NotImplementedError

    def covers(self, other: TypedMatcher) -> bool:
        """Every value ``other`` matches, this matcher matches too (so a later ``other`` is dead)."""
        if isinstance(other, ConstMatcher):
            return self.matches(other.value)
        if isinstance(other, EnumMatcher):
            return all(self.matches(v) for v in other.values)
        return False

    def check(self, param_type: str | None) -> str | None:
        """Why this matcher does not suit a parameter of ``param_type`` (``None`` when it does)."""
        if self.types is not None and param_type not in self.types:
            suits = " or ".join(sorted(self.types))
            return f"'{self.keyword}' applies to {suits} parameters, not {param_type or 'untyped'} ones"
        return None

    @property
    def config_value(self) -> Any:
        """The value as written in the configuration."""
        raise NotImplementedError


@dataclass(frozen=True)
class ConstMatcher(TypedMatcher):
    """``const``: the value equals the given JSON value."""

    keyword: ClassVar[str] = "const"
    value: Any

    def matches(self, value: Any) -> bool:
        return json_equal(value, self.value)

    def check(self, param_type: str | None) -> str | None:
        if not _suits_type(self.value, param_type):
            return f"const = {self.value!r} is {_type_name(self.value)}, not {param_type}"
        return None

    @property
    def config_value(self) -> Any:
        return self.value


@dataclass(frozen=True)
class EnumMatcher(TypedMatcher):
    """``enum``: the value is one of the given list."""

    keyword: ClassVar[str] = "enum"
    values: tuple[Any, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.values, (list, tuple)) or not self.values:
            raise ValueError("'enum' takes a non-empty list of values")
        object.__setattr__(self, "values", tuple(self.values))

    def matches(self, value: Any) -> bool:
        return any(json_equal(value, v) for v in self.values)

    def check(self, param_type: str | None) -> str | None:
        for v in self.values:
            if not _suits_type(v, param_type):
                return f"enum member {v!r} is {_type_name(v)}, not {param_type}"
        return None

    @property
    def config_value(self) -> Any:
        return list(self.values)


@dataclass(frozen=True)
class PatternMatcher(TypedMatcher):
    """``pattern``: the ECMAScript regular expression finds a match in the string.

    It runs on the linear-time engine (RE2). A pattern that needs backtracking (a lookaround, a
    backreference) is refused unless ``timeout`` (the rule's ``pattern_timeout``, seconds per
    search) bounds it; such a search that runs out raises :class:`PatternTimeout`, which a rule
    reads as the answer that does not let the call through (see :meth:`RunRule.holds`).
    """

    keyword: ClassVar[str] = "pattern"
    types: ClassVar[frozenset[str] | None] = STRING_TYPES
    pattern: str
    timeout: float | None = None
    regex: LinearPattern | BoundedPattern = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.pattern, str):
            raise ValueError(f"'pattern' takes a string, not {_type_name(self.pattern)}")
        object.__setattr__(self, "regex", compile_guarded(self.pattern, self.timeout))

    def matches(self, value: Any) -> bool:
        return isinstance(value, str) and self.regex.search(value)

    def covers(self, other: TypedMatcher) -> bool:
        if isinstance(other, PatternMatcher):
            return other.pattern == self.pattern
        if isinstance(self.regex, BoundedPattern):
            return False  # a bounded search may not answer: never call a later rule dead on it
        return super().covers(other)

    @property
    def config_value(self) -> Any:
        return self.pattern


@dataclass(frozen=True)
class PrefixMatcher(TypedMatcher):
    """``prefix`` on a string: the string starts with the given text."""

    keyword: ClassVar[str] = "prefix"
    types: ClassVar[frozenset[str] | None] = STRING_TYPES
    prefix: str

    def __post_init__(self) -> None:
        if not isinstance(self.prefix, str):
            raise ValueError(f"'prefix' takes a string, not {_type_name(self.prefix)}")

    def matches(self, value: Any) -> bool:
        return isinstance(value, str) and value.startswith(self.prefix)

    def covers(self, other: TypedMatcher) -> bool:
        if type(other) is PrefixMatcher:
            return other.prefix.startswith(self.prefix)
        return super().covers(other)

    @property
    def config_value(self) -> Any:
        return self.prefix


@dataclass(frozen=True)
class PathPrefixMatcher(PrefixMatcher):
    """``prefix`` on a path: compared by components (see :func:`path_components`); a value that could
    escape the prefix (a ``..`` segment, a NUL, an absolute value against a relative prefix) or that
    Windows would read otherwise never matches. A prefix that ends in ``/`` holds only for paths
    strictly under it: ``src/`` holds for ``src/a``, not for ``src``, ``src/.`` or ``src/a/..``.

    Used for every parameter declared ``"format": "path"``, and for any prefix that contains ``/``.
    """

    types: ClassVar[frozenset[str] | None] = STRING_TYPES
    parts: tuple[bool, tuple[str, ...]] = field(init=False, repr=False, compare=False)
    strict: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "parts", normalize_path(self.prefix))
        object.__setattr__(self, "strict", self.prefix.endswith("/"))

    def _holds(self, absolute: bool, parts: tuple[str, ...], strict: bool = False) -> bool:
        """The prefix holds for ``parts`` (and, with ``strict``, for every path strictly under them)."""
        mine_abs, mine = self.parts
        if absolute != mine_abs or parts[: len(mine)] != mine:
            return False
        if not self.strict:
            return True
        return len(parts) > len(mine) or (strict and len(parts) == len(mine))

    def matches(self, value: Any) -> bool:
        if not isinstance(value, str):
            return False
        parts = path_components(value)
        return parts is not None and self._holds(*parts)

    def covers(self, other: TypedMatcher) -> bool:
        if isinstance(other, PathPrefixMatcher):
            return self._holds(*other.parts, strict=other.strict)
        return TypedMatcher.covers(self, other)


class _Bound(TypedMatcher):
    types: ClassVar[frozenset[str] | None] = NUMBER_TYPES
    bound: float

    def _check_bound(self) -> None:
        if not _is_number(self.bound) or (isinstance(self.bound, float) and not math.isfinite(self.bound)):
            raise ValueError(f"'{self.keyword}' takes a number, not {_type_name(self.bound)}")

    @property
    def config_value(self) -> Any:
        return self.bound


@dataclass(frozen=True)
class MinimumMatcher(_Bound):
    """``minimum``: value >= bound."""

    keyword: ClassVar[str] = "minimum"
    bound: float

    def __post_init__(self) -> None:
        self._check_bound()

    def matches(self, value: Any) -> bool:
        return _finite(value) and value >= self.bound

    def covers(self, other: TypedMatcher) -> bool:
        if isinstance(other, (MinimumMatcher, ExclusiveMinimumMatcher)):
            return other.bound >= self.bound
        return super().covers(other)


@dataclass(frozen=True)
class ExclusiveMinimumMatcher(_Bound):
    """``exclusive_minimum``: value > bound."""

    keyword: ClassVar[str] = "exclusive_minimum"
    bound: float

    def __post_init__(self) -> None:
        self._check_bound()

    def matches(self, value: Any) -> bool:
        return _finite(value) and value > self.bound

    def covers(self, other: TypedMatcher) -> bool:
        if isinstance(other, ExclusiveMinimumMatcher):
            return other.bound >= self.bound
        if isinstance(other, MinimumMatcher):
            return other.bound > self.bound
        return super().covers(other)


@dataclass(frozen=True)
class MaximumMatcher(_Bound):
    """``maximum``: value <= bound."""

    keyword: ClassVar[str] = "maximum"
    bound: float

    def __post_init__(self) -> None:
        self._check_bound()

    def matches(self, value: Any) -> bool:
        return _finite(value) and value <= self.bound

    def covers(self, other: TypedMatcher) -> bool:
        if isinstance(other, (MaximumMatcher, ExclusiveMaximumMatcher)):
            return other.bound <= self.bound
        return super().covers(other)


@dataclass(frozen=True)
class ExclusiveMaximumMatcher(_Bound):
    """``exclusive_maximum``: value < bound."""

    keyword: ClassVar[str] = "exclusive_maximum"
    bound: float

    def __post_init__(self) -> None:
        self._check_bound()

    def matches(self, value: Any) -> bool:
        return _finite(value) and value < self.bound

    def covers(self, other: TypedMatcher) -> bool:
        if isinstance(other, ExclusiveMaximumMatcher):
            return other.bound <= self.bound
        if isinstance(other, MaximumMatcher):
            return other.bound < self.bound
        return super().covers(other)


MATCHER_KEYWORDS: dict[str, type[TypedMatcher]] = {
    "const": ConstMatcher,
    "enum": EnumMatcher,
    "pattern": PatternMatcher,
    "prefix": PrefixMatcher,
    "minimum": MinimumMatcher,
    "maximum": MaximumMatcher,
    "exclusive_minimum": ExclusiveMinimumMatcher,
    "exclusive_maximum": ExclusiveMaximumMatcher,
}


def make_matcher(
    keyword: str, value: Any, param_type: str | None = None, *, pattern_timeout: float | None = None
) -> TypedMatcher:
    """The matcher for ``keyword = value`` on a parameter of ``param_type`` (``"path"`` picks path prefixes).

    ``pattern_timeout`` (seconds, ``pattern`` only) lets a pattern that needs a backtracking engine
    run on one, each search bounded by it. Raises ``ValueError`` for an unknown keyword or a
    malformed value (checking the value against ``param_type`` is :meth:`TypedMatcher.check`'s job).
    """
    if pattern_timeout is not None and keyword != "pattern":
        raise ValueError(f"pattern_timeout applies to a 'pattern' rule, not to '{keyword}'")
    if keyword == "pattern":
        return PatternMatcher(value, pattern_timeout)
    if keyword == "prefix" and (param_type == "path" or (isinstance(value, str) and "/" in value)):
        return PathPrefixMatcher(value)
    cls = MATCHER_KEYWORDS.get(keyword)
    if cls is None:
        raise ValueError(f"unknown matcher keyword {keyword!r}")
    if cls is ConstMatcher and json_type(value) is None:
        raise ValueError(f"const = {value!r} is not a JSON value")
    if cls is EnumMatcher:
        if not isinstance(value, (list, tuple)) or not value:
            raise ValueError("'enum' takes a non-empty list of values")
        for v in value:
            if json_type(v) is None:
                raise ValueError(f"enum member {v!r} is not a JSON value")
    return cls(value)  # type: ignore[call-arg]
