"""Streaming schema states: one per (schema, instance location), fed the events of that location's value.

Theory of operation. The validator keeps one state per open value (the path
from the root to the fragment being read). A state sees its value's events
once: ``text`` for each string piece, ``scalar``, ``empty``, ``child`` when a
key or item starts (it returns the child's state), and ``done``. Each keyword
is checked at the event that first makes its verdict certain, with per-value
counters (length, enum candidates still possible, item count, required keys
seen) instead of re-reading the value, so the total work is linear in the
input. A completed value's state is dropped and never consulted again.

``allOf`` members and ``$ref`` targets are states on the same events
(:class:`_All`); ``anyOf`` / ``oneOf`` run every branch side by side
(:class:`_Group`), each branch reporting into its own sink, and the group
reports once, when the last live branch fails (or, for ``oneOf``, when the
value completes with more than one branch valid).

A state reports a proof ``(path, keyword, message, schema_path, span, piece,
index)`` through :func:`deliver`: ``span`` is the fragment's input span and,
for a proof inside a string piece, ``index`` is the proving character in
``piece``. States of one schema at one location are merged (:func:`_combine`),
their reports fanned out, so the states per location never exceed the
schemas that apply there.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from .._pieces_py import PIECES_EVERY, compact_pieces
from ..fragments import Path
from .compile import Node

__all__ = ["NULL", "instantiate", "json_equal", "position"]

Report = Any  # the validator's collector (called with a proof), a ``_Branch`` or a ``_Fanout``
Proof = tuple[Path, str, str, str, Any, Any, int]  # path, keyword, message, schema path, span, piece, index
_STRING, _OBJECT, _ARRAY, _SCALAR, _MISMATCH = "string", "object", "array", "scalar", "mismatch"
_QUOTE = 40  # characters of model text quoted in a message


def _quote(text: str) -> str:
    return repr(text if len(text) <= _QUOTE else text[:_QUOTE] + "...")


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= _QUOTE else text[:_QUOTE] + "..."


def json_equal(one: Any, two: Any) -> bool:
    """Equality as JSON Schema means it: ``1 == 1.0``, but ``True != 1``; recursive."""
    if type(one) is bool or type(two) is bool:
        return one is two
    if isinstance(one, str) or isinstance(two, str):
        return one == two
    if isinstance(one, list) and isinstance(two, list):
        return len(one) == len(two) and all(json_equal(a, b) for a, b in zip(one, two))
    if isinstance(one, dict) and isinstance(two, dict):
        return one.keys() == two.keys() and all(json_equal(one[k], two[k]) for k in one)
    if isinstance(one, (list, dict)) or isinstance(two, (list, dict)):
        return False
    return bool(one == two)


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if type(value) is bool:
        return "boolean"
    return "integer" if type(value) is int else "number"


def _type_ok(types: frozenset[str], kind: str, value: Any = None) -> bool:
    if kind != _SCALAR:
        return kind in types
    name = _type_name(value)
    if name in types:
        return True
    if name == "integer":
        return "number" in types
    return name == "number" and "integer" in types and value.is_integer()


def _not_multiple(value: int | float, step: int | float) -> bool:
    """``jsonschema``'s ``multipleOf`` verdict, without its overflow on huge integers."""
    if isinstance(value, float) and not math.isfinite(value):
        return True  # 1e400 reads as infinity: a multiple of nothing
    if isinstance(step, float) or isinstance(value, float):
        try:
            quotient = value / step
            return int(quotient) != quotient
        except (OverflowError, ValueError):
            return (Fraction(value) / Fraction(step)).denominator != 1
    return value % step != 0


class _Null:
    """The state of a value nothing constrains."""

    __slots__ = ()
    quiet = True

    def text(self, piece: str, span: Any) -> None:
        pass

    def scalar(self, value: Any, span: Any) -> None:
        pass

    def empty(self, kind: str, span: Any) -> None:
        pass

    def child(self, step: str | int, span: Any, path: Path) -> Any:
        return self

    def done(self, span: Any, value: Any) -> None:
        pass


NULL = _Null()


class _Value:
    """A value under one schema's own keywords (everything but ``allOf``/``anyOf``/``oneOf``/``$ref``)."""

    __slots__ = ("node", "report", "path", "kind", "failed", "quiet", "length", "candidates", "pieces", "count",
                 "seen")

    def __init__(self, node: Node, report: Report, path: Path) -> None:
        self.node = node
        self.report = report
        self.path = path
        self.kind: str | None = None
        self.failed = False  # a keyword of this schema already failed: check no more of its own
        self.quiet = False  # string pieces need no look
        self.length = 0
        self.candidates: list[str] | None = None  # enum/const strings this string can still become
        self.pieces: list[str] | None = None  # kept only for pattern / format
        self.count = 0
        self.seen: set[str] | None = None  # required keys seen

    def _fail(self, keyword: str, message: str, span: Any, piece: str | None = None, index: int = 0,
              path: Path | None = None) -> None:
        self.failed = True
        self.quiet = True
        deliver(self.report, (self.path if path is None else path, keyword, message, self.node.location, span,
                              piece, index))

    def _start(self, kind: str, span: Any) -> None:
        """The value's first character is known: its type, and which enum values it can still be."""
        self.kind = kind
        node = self.node
        if kind == _SCALAR:
            return  # checked with the value, in ``scalar``
        if node.never:
            self._fail("false", "the schema false allows no value", span)
            self.kind = _MISMATCH
            return
        if node.types is not None and not _type_ok(node.types, kind):
            self._fail("type", f"{kind} is not of type {_types(node.types)}", span)
            self.kind = _MISMATCH  # the value's contents are not checked against this schema
            return
        if node.enum is not None:
            if kind == _STRING:
                self.candidates = [v for v in node.enum if type(v) is str]
                possible = bool(self.candidates)
            else:
                possible = any(isinstance(v, dict if kind == _OBJECT else list) for v in node.enum)
            if not possible:
                self._fail(node.enum_keyword, f"no {kind} is allowed by {node.enum_keyword} {_short(node.enum)}", span)
                return
        if kind == _STRING:
            if node.pattern_search is not None or node.format_check is not None:
                self.pieces = []
            self.quiet = not node.needs_text
        elif kind == _OBJECT and node.required:
            self.seen = set()

    def text(self, piece: str, span: Any) -> None:
        if self.kind is None:
            self._start(_STRING, span)
        if self.quiet:
            return
        node = self.node
        length = self.length
        # where maxLength breaks in this piece (its length: not here); of two proofs, the earlier is reported
        over = len(piece)
        if node.max_length is not None and length + over > node.max_length:
            over = node.max_length - length
        candidates = self.candidates
        if candidates is not None:
            alive = [c for c in candidates if c.startswith(piece, length)]
            if not alive:
                index = max(_common_prefix(c, piece, length) for c in candidates)
                if index <= over:
                    self._fail(node.enum_keyword, f"the string cannot become any value of {node.enum_keyword} "
                               f"{_short(node.enum)}", span, piece, index)
                    return
            self.candidates = alive
        if over < len(piece):
            self._fail("maxLength", f"string longer than maxLength {node.max_length}", span, piece, over)
            return
        self.length = length + len(piece)
        if self.pieces is not None:
            self.pieces.append(piece)
            if not len(self.pieces) & (PIECES_EVERY - 1):
                compact_pieces(self.pieces)

    def scalar(self, value: Any, span: Any) -> None:
        self.kind = _SCALAR
        node = self.node
        if node.never:
            self._fail("false", "the schema false allows no value", span)
            return
        if value is None and node.nullable:
            return
        if node.types is not None and not _type_ok(node.types, _SCALAR, value):
            late = type(value) is float and "integer" in node.types  # 1.0 is an integer: known at its end
            self._fail("type", f"{_show(value)} is not of type {_types(node.types)}",
                       (span[1], span[1]) if late and span is not None else span)
            return
        literal = value is None or type(value) is bool
        at_end = (span[1], span[1]) if span is not None else None  # a number is complete at its delimiter
        if node.enum is not None and not any(json_equal(value, v) for v in node.enum):
            self._fail(node.enum_keyword, f"{_show(value)} is not in {node.enum_keyword} {_short(node.enum)}",
                       span if literal else at_end)
            return
        if literal:
            return
        if node.minimum is not None and value < node.minimum:
            self._fail("minimum", f"{_show(value)} is less than the minimum {node.minimum}", at_end)
        elif node.maximum is not None and value > node.maximum:
            self._fail("maximum", f"{_show(value)} is greater than the maximum {node.maximum}", at_end)
        elif node.exclusive_minimum is not None and value <= node.exclusive_minimum:
            self._fail("exclusiveMinimum", f"{_show(value)} is not greater than {node.exclusive_minimum}", at_end)
        elif node.exclusive_maximum is not None and value >= node.exclusive_maximum:
            self._fail("exclusiveMaximum", f"{_show(value)} is not less than {node.exclusive_maximum}", at_end)
        elif node.multiple_of is not None and _not_multiple(value, node.multiple_of):
            self._fail("multipleOf", f"{_show(value)} is not a multiple of {node.multiple_of}", at_end)

    def empty(self, kind: str, span: Any) -> None:
        if self.kind is None:
            self._start(kind, span)

    def child(self, step: str | int, span: Any, path: Path) -> Any:
        if self.kind is None:
            self._start(_OBJECT if type(step) is str else _ARRAY, span)
        node = self.node
        sub: Node | bool | None
        if self.kind == _OBJECT and isinstance(step, str):
            if self.seen is not None and step in node.required:
                self.seen.add(step)
            sub = node.properties.get(step)
            if sub is None:
                sub = node.additional
                if sub is False:
                    if not self.failed:
                        self._fail("additionalProperties", f"unexpected key {_quote(step)}", span, path=path)
                    return NULL
        elif self.kind == _ARRAY and isinstance(step, int):
            self.count = step + 1
            if node.max_items is not None and self.count > node.max_items and not self.failed:
                self._fail("maxItems", f"more than maxItems {node.max_items} items", span, path=path)
                return NULL
            sub = node.prefix[step] if step < len(node.prefix) else node.items
            if sub is False:
                if not self.failed:
                    self._fail("items", f"no item allowed past the first {len(node.prefix)}", span, path=path)
                return NULL
        else:
            return NULL
        if sub is True:
            return NULL
        return instantiate(sub, self.report, path)

    def done(self, span: Any, value: Any) -> None:
        node = self.node
        kind = self.kind
        if kind is None or self.failed:
            return
        if kind == _STRING:
            if node.min_length is not None and self.length < node.min_length:
                self._fail("minLength", f"string shorter than minLength {node.min_length}", span)
            elif self.candidates is not None and not any(len(c) == self.length for c in self.candidates):
                self._fail(node.enum_keyword, f"the string ends before any value of {node.enum_keyword} {_short(node.enum)}", span)
            elif self.pieces is not None:
                text = "".join(self.pieces)
                self.pieces = None
                if node.pattern_search is not None and not node.pattern_search(text):
                    self._fail("pattern", f"{_quote(text)} does not match {node.pattern!r}", span)
                elif node.format_check is not None and not node.format_check(text):
                    self._fail("format", f"{_quote(text)} is not a valid {node.format}", span)
        elif kind == _OBJECT:
            if self.seen is not None and len(self.seen) < len(node.required):
                missing = next(k for k in node.required if k not in self.seen)
                self._fail("required", f"{missing!r} is a required property", span)
            elif node.needs_value and not any(json_equal(value, v) for v in node.enum):  # type: ignore[union-attr]
                self._fail(node.enum_keyword, f"the object is not in {node.enum_keyword} {_short(node.enum)}", span)
        elif kind == _ARRAY:
            if node.min_items is not None and self.count < node.min_items:
                self._fail("minItems", f"fewer than minItems {node.min_items} items", span)
            elif node.needs_value and not any(json_equal(value, v) for v in node.enum):  # type: ignore[union-attr]
                self._fail(node.enum_keyword, f"the array is not in {node.enum_keyword} {_short(node.enum)}", span)


def _common_prefix(candidate: str, piece: str, at: int) -> int:
    """How many characters of ``piece`` continue ``candidate`` from ``at``."""
    n = 0
    limit = min(len(piece), len(candidate) - at)
    while n < limit and candidate[at + n] == piece[n]:
        n += 1
    return n


def _types(types: frozenset[str]) -> str:
    return " or ".join(sorted(types))


def _short(values: Any) -> str:
    text = repr(list(values))
    return text if len(text) <= 80 else text[:77] + "..."


class _All:
    """Several states on one location (``allOf`` members, ``$ref`` targets, the node's own keywords)."""

    __slots__ = ("states",)

    def __init__(self, states: list[Any]) -> None:
        self.states = states

    @property
    def quiet(self) -> bool:
        return all(s.quiet for s in self.states)

    def text(self, piece: str, span: Any) -> None:
        for s in self.states:
            s.text(piece, span)

    def scalar(self, value: Any, span: Any) -> None:
        for s in self.states:
            s.scalar(value, span)

    def empty(self, kind: str, span: Any) -> None:
        for s in self.states:
            s.empty(kind, span)

    def child(self, step: str | int, span: Any, path: Path) -> Any:
        return _combine([s.child(step, span, path) for s in self.states])

    def done(self, span: Any, value: Any) -> None:
        for s in self.states:
            s.done(span, value)


class _Branch:
    """The sink of one ``anyOf``/``oneOf`` branch: its first proof kills the branch."""

    __slots__ = ("group", "dead")

    def __init__(self, group: _Group) -> None:
        self.group = group
        self.dead = False

    def fail(self, proof: Proof) -> tuple[Report, Proof] | None:
        """Kill the branch; the group's own proof and where it goes, when this was its last branch."""
        if self.dead:
            return None
        self.dead = True
        return self.group.branch_failed(proof)


class _Group:
    """``anyOf`` / ``oneOf``: every branch runs on the same events; the group fails when none can pass."""

    __slots__ = ("keyword", "node", "report", "path", "branches", "alive", "reported", "latest")

    def __init__(self, keyword: str, node: Node, members: tuple[Node, ...], report: Report, path: Path) -> None:
        self.keyword = keyword
        self.node = node
        self.report = report
        self.path = path
        self.reported = False
        self.latest: Proof | None = None  # the failure latest in the input so far, which the group's report cites
        self.branches: list[tuple[_Branch, Any]] = []
        self.alive = len(members)
        for member in members:
            sink = _Branch(self)
            self.branches.append((sink, instantiate(member, sink, path)))

    def branch_failed(self, proof: Proof) -> tuple[Report, Proof] | None:
        """Count a branch's death; the group's proof, once no branch is left.

        The group fails where its last branch is proven wrong in the input, so its proof is the
        branch proof latest in the input (ties: the later one found). Taking the last one found
        instead would make the report depend on the chunking: branches that fail on one piece
        fail in branch order, though the characters proving them differ."""
        latest = self.latest
        if latest is None or _not_before(proof, latest):
            latest = self.latest = proof
        self.alive -= 1
        if self.alive or self.reported:
            return None
        self.reported = True
        _, _, message, _, span, piece, index = latest
        return self.report, (self.path, self.keyword, f"no branch of {self.keyword} fits (the last failed: {message})",
                             f"{self.node.location}/{self.keyword}", span, piece, index)

    @property
    def quiet(self) -> bool:
        return all(sink.dead or state.quiet for sink, state in self.branches)

    def _live(self) -> list[Any]:
        return [state for sink, state in self.branches if not sink.dead]

    def text(self, piece: str, span: Any) -> None:
        for state in self._live():
            state.text(piece, span)

    def scalar(self, value: Any, span: Any) -> None:
        for state in self._live():
            state.scalar(value, span)

    def empty(self, kind: str, span: Any) -> None:
        for state in self._live():
            state.empty(kind, span)

    def child(self, step: str | int, span: Any, path: Path) -> Any:
        return _combine([state.child(step, span, path) for state in self._live()])

    def done(self, span: Any, value: Any) -> None:
        for state in self._live():
            state.done(span, value)
        if self.keyword == "oneOf" and self.alive > 1 and not self.reported:
            self.reported = True
            deliver(self.report, (self.path, "oneOf", f"the value fits {self.alive} branches of oneOf, not exactly one",
                                  f"{self.node.location}/oneOf", span, None, 0))


def _not_before(proof: Proof, other: Proof) -> bool:
    """Whether ``proof`` lies at or after ``other`` in the input (true when either has no span)."""
    at, then = position(proof[4], proof[5], proof[6]), position(other[4], other[5], other[6])
    return at is None or then is None or at >= then


def position(span: Any, piece: str | None, index: int) -> tuple[int, int] | None:
    """Where a proof lies in the input, as an order: the fragment's start, then the character in its
    piece (a proof without one comes first). Exact where an offset is not: a piece that held an escape
    places its characters' offsets at the latest unit that can end them. Proofs without spans have
    none: they keep the order found."""
    if span is None:
        return None
    return span[0], -1 if piece is None else index


class _Fanout:
    """One report going to several sinks: a state shared by branches that reach the same schema."""

    __slots__ = ("sinks",)

    def __init__(self, sinks: tuple[Report, ...]) -> None:
        self.sinks = sinks


def deliver(report: Report, proof: Proof) -> None:
    """Hand ``proof`` to ``report``, and each group failure it causes to that group's report, in a loop:
    a failure can climb through one ``anyOf`` per nesting level, deeper than Python's call stack."""
    work = [(report, proof)]
    while work:
        sink, proof = work.pop()
        cls = type(sink)
        if cls is _Branch:
            climb = sink.fail(proof)
            if climb is not None:
                work.append(climb)
        elif cls is _Fanout:
            work.extend((each, proof) for each in reversed(sink.sinks))
        else:
            sink(*proof)


def _sinks(report: Report) -> tuple[Report, ...]:
    return report.sinks if type(report) is _Fanout else (report,)


def _join(one: Report, two: Report) -> Report:
    sinks = _sinks(one)
    sinks += tuple(s for s in _sinks(two) if not any(s == t for t in sinks))
    return sinks[0] if len(sinks) == 1 else _Fanout(sinks)


def _combine(states: list[Any]) -> Any:
    """Fresh states for one location as one state. States of the same schema are merged into one whose
    reports go to each of their sinks: its verdict depends only on the schema and the value, and
    without the merge, branches that recurse into the same schema would multiply states per level."""
    flat: list[Any] = []
    for state in states:
        if type(state) is _All:
            flat.extend(state.states)
        elif state is not NULL:
            flat.append(state)
    if len(flat) < 2:
        return flat[0] if flat else NULL
    merged: dict[tuple[Any, int, str], Any] = {}
    for state in flat:
        key = (type(state), id(state.node), getattr(state, "keyword", ""))
        first = merged.get(key)
        if first is None:
            merged[key] = state
        else:
            first.report = _join(first.report, state.report)
    unique = list(merged.values())
    return unique[0] if len(unique) == 1 else _All(unique)


def instantiate(node: Node, report: Report, path: Path) -> Any:
    """The state of a value at ``path`` under ``node``: a single state where it can be, else a composite."""
    if not node.all_of and node.any_of is None and node.one_of is None:
        return _Value(node, report, path) if node.own or node.nullable else NULL
    states: list[Any] = []
    if node.own or node.nullable:
        states.append(_Value(node, report, path))
    for member in node.all_of:
        states.append(instantiate(member, report, path))
    if node.any_of is not None:
        states.append(_Group("anyOf", node, node.any_of, report, path))
    if node.one_of is not None:
        states.append(_Group("oneOf", node, node.one_of, report, path))
    return _combine(states)
