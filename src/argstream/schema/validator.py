"""``Schema`` (compiled once per tool) and ``SchemaValidator`` (one per call): fragments in, violations out."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from typing import Any, Iterable, Sequence

from ..aggregate import FragmentAggregator
from .._backend import SCALAR_TYPES, STRING_TYPES, PieceSkipper
from ..fragments import Empty, Path, flatten
from ..parser import IncrementalArgParser
from .compile import Node, compile_schema, reachable
from .state import _STRING, NULL, _Value, instantiate, position
from .violation import Violation
from .whole import accepts

__all__ = ["Schema", "SchemaValidator"]

_NOTHING: tuple[Violation, ...] = ()
_AFTER_ROOT: Path = (-1,)  # no parser gives a negative index: after the root, every fragment misses


class Schema:
    """A tool's JSON Schema, compiled once; :meth:`validator` starts the check of one call's arguments.

    Raises :class:`SchemaError` (a ``ValueError``) at construction for a keyword
    outside the supported subset, a malformed keyword value, a ``$ref`` that
    names nothing or loops without descending, or a ``pattern`` that the linear-time engine
    (google-re2) cannot run: a lookaround or backreference, or any pattern without google-re2.
    ``pattern_timeout`` (seconds per search) admits those on the backtracking ``regex`` module;
    a search that runs out of time counts as a mismatch.
    """

    __slots__ = ("source", "root", "needs_values")

    def __init__(self, schema: Any, *, pattern_timeout: float | None = None) -> None:
        self.source = schema
        self.root: Node = compile_schema(schema, pattern_timeout=pattern_timeout)
        self.needs_values = any(node.needs_value for node in reachable(self.root))

    def validator(self, *, units: str = "chars") -> SchemaValidator:
        """A fresh validator for one value. ``units`` is how the parser's spans count: ``"chars"`` for
        ``str`` input, ``"bytes"`` for UTF-8 input."""
        return SchemaValidator(self, units=units)

    def accepts_whole(self, value: Any) -> bool:
        """Whether ``value``, decoded and walkable as a provider sends arguments whole, certainly satisfies
        the schema (:func:`.whole.accepts`): no check of its fragments could prove a violation. ``False``
        when it may not (its fragments' check tells which) or when it nests too deep to read here."""
        try:
            return accepts(self.root, value) is True
        except RecursionError:
            return False

    def validate(self, instance: Any) -> list[Violation]:
        """The violations of a complete JSON value (their offsets are ``None``: no input to point into).

        The value is checked as its compact JSON text, with spans, so that what is reported is what a
        stream of that text reports, however it is cut; the offsets into that text are then dropped."""
        text = json.dumps(instance, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        parser = IncrementalArgParser(flat=True, spans=True)
        validator = self.validator()
        validator.extend(parser.push(text), parser.spans)
        validator.extend(parser.finish(), parser.spans)
        return [replace(v, offset=None) for v in validator.violations]

    def is_valid(self, instance: Any) -> bool:
        """Whether a complete value satisfies the schema."""
        return not self.validate(instance)


class SchemaValidator(PieceSkipper):
    """Checks one value's fragments against a :class:`Schema` as they arrive.

    ``feed(fragment, span)`` takes nested fragments or flat ``(path, leaf)``
    pairs (flat is cheaper: no path to rebuild), and the fragment's input span
    ``(start, end)`` from ``IncrementalArgParser(spans=True)`` when there is one,
    and returns the violations that fragment proves. Every value's fragments
    are looked at once; nothing is re-read. ``violations`` holds them all;
    ``valid`` is ``None`` until the root value completes.

    ``extend(fragments, spans=None, keys=None)`` feeds a whole ``push()`` result (with
    ``parser.spans`` and ``parser.keys``) and returns the violations it proves: the cheaper
    way, since a push that only continued a string nothing looks at returns without reaching
    Python code on the compiled core. With ``keys``, each key is checked at its closing quote,
    in document order between the fragments: a key that its object does not allow
    (``additionalProperties: false``) is reported by the push that read it, even when its
    value starts in a later one.
    """

    __slots__ = ("schema", "units", "violations", "_stack", "_path", "_top", "_agg", "_done", "_counted", "_ranks")

    def __init__(self, schema: Schema, *, units: str = "chars") -> None:
        if units not in ("chars", "bytes"):
            raise ValueError("units must be 'chars' or 'bytes'")
        self.schema = schema
        self.units = units
        self.violations: list[Violation] = []
        self._top: Any = instantiate(schema.root, self._collect, ())
        self._stack: list[Any] = [self._top]
        self._path: Path = ()
        self._agg = FragmentAggregator() if schema.needs_values else None
        self._done = False
        self._skip: Any = None  # the path (the parser's own tuple) whose string pieces need no look
        self._budget, self._taken, self._keep = -1, 0, None  # PieceSkipper's, set here for either base
        self._counted: Any = None  # the string state whose skipped pieces ``_taken`` counts
        self._ranks: list[Any] = []  # where each violation of the fragment being checked lies (``position``)

    @property
    def done(self) -> bool:
        """The root value is complete."""
        return self._done

    @property
    def valid(self) -> bool | None:
        """``False`` as soon as a violation is proven; ``True`` once the root completes without one."""
        if self.violations:
            return False
        return True if self._done else None

    def _collect(self, path: Path, keyword: str, message: str, schema_path: str, span: Any,
                 piece: str | None, index: int) -> None:
        self.violations.append(Violation(path, keyword, message, self._offset(span, piece, index), schema_path))
        self._ranks.append(position(span, piece, index))

    def _offset(self, span: Any, piece: str | None, index: int) -> int | None:
        """The input offset of character ``index`` of ``piece``, which the parser decoded from ``span``."""
        if span is None:
            return None
        start, end = span
        if piece is None:
            return start
        if self.units == "chars":
            if end - start == len(piece):
                return start + index
            # the piece held an escape: each character after ``index`` took at least one input unit, so
            # this is the latest unit that can end character ``index``; it is never before the proof
            return end - (len(piece) - index)
        encoded = piece.encode("utf-8", "surrogatepass")
        if end - start == len(encoded):
            return start + len(piece[:index].encode("utf-8", "surrogatepass"))
        # an escape takes at least as many bytes as the UTF-8 of what it decodes to
        return end - len(piece[index + 1:].encode("utf-8", "surrogatepass")) - 1

    def accept_whole(self, value: Any) -> bool:
        """Whether ``value``, the whole value this fresh validator is to check (decoded and walkable, as a
        provider sends arguments whole), certainly satisfies the schema (:func:`.whole.accepts`): the
        validator is then complete and valid, as if fed its fragments. ``False``, with nothing changed,
        when it may not, or the validator has been fed: feed the fragments, which tell the violations."""
        if self._done or self._path != () or len(self._stack) != 1 or self.violations or self._taken:
            return False
        if accepts(self.schema.root, value) is not True:
            return False
        self._stack.clear()
        self._done = True
        self._top = NULL
        self._path = _AFTER_ROOT
        self._skip = None
        return True

    def feed(self, fragment: Any, span: tuple[int, int] | None = None) -> Sequence[Violation]:
        """Check one fragment; return the violations it proves (usually none).

        Raises ``ValueError`` for fragments that break the protocol (never the
        case for one parser's output) or arrive after the root completed.
        """
        if type(fragment) is tuple:
            path, leaf = fragment
        else:
            path, leaf = flatten(fragment)
        if self._skips(path, leaf):
            return _NOTHING  # the hot path: more of a string nothing here looks at but its length
        self._sync()
        violations = self.violations
        before = len(violations)
        top = self._top if path == self._path else self._enter(path, span)
        cls = type(leaf)
        if cls in STRING_TYPES:
            top.text(leaf.text, span)
            if self._agg is not None:
                self._agg.push(fragment)
        else:
            completed = self._agg.push(fragment) if self._agg is not None else None
            if cls in SCALAR_TYPES:
                top.scalar(leaf.value, span)
            elif cls is Empty:
                top.empty(leaf.kind, span)
            else:
                top.done(span, completed.value if completed is not None else None)
                self._pop()
        self._skip_after(path)
        if len(violations) == before:
            return _NOTHING
        self._in_input_order(before)
        return violations[before:]

    def _in_input_order(self, before: int) -> None:
        """Put what one fragment proved in input order (ties: the order found), as separate pushes would
        have reported it: states check a piece one after another, not character by character."""
        ranks = self._ranks
        found = len(self.violations) - before
        if found > 1 and None not in ranks[-found:]:
            order = sorted(range(found), key=ranks[-found:].__getitem__)
            tail = self.violations[before:]
            self.violations[before:] = [tail[i] for i in order]
        ranks.clear()

    def _sync(self) -> None:
        """Add the lengths of the pieces skipped since the last look to the string state that counts them."""
        if self._taken:
            if self._counted is not None:
                self._counted.length += self._taken
            self._taken = 0

    def _skip_after(self, path: Path) -> None:
        """Which string pieces the next pushes may skip: those of the open string, when nothing looks
        at its characters (``quiet``), or when only its length and its whole text at the end are
        checked (counted and kept below the Python call, up to ``maxLength``)."""
        top = self._top
        self._counted, self._budget, self._keep = None, -1, None
        if path is not self._path or self._agg is not None:
            self._skip = None
        elif top.quiet:
            self._skip = path
        elif type(top) is _Value and top.kind == _STRING and not top.failed and top.candidates is None:
            self._skip, self._counted, self._keep = path, top, top.pieces
            limit = top.node.max_length
            budget = -1 if limit is None else limit - top.length
            self._budget = budget if budget <= sys.maxsize else -1  # longer than any string can be
        else:
            self._skip = None

    def key(self, path: Path, span: tuple[int, int] | None = None) -> Sequence[Violation]:
        """Check a key whose closing quote was read (one of ``IncrementalArgParser.keys``) before its
        value's first fragment; return the violations it proves (an unexpected key, or what the key
        proves of the values it opens: an object, an array item). ``span`` is the closing quote's.

        Raises ``ValueError`` for a key that breaks the protocol (never the case for one parser's
        keys fed in order with its fragments).
        """
        self._sync()
        violations = self.violations
        before = len(violations)
        if path != self._path:
            self._enter(path, span)
        self._skip, self._counted, self._budget, self._keep = None, None, -1, None
        if len(violations) == before:
            return _NOTHING
        self._in_input_order(before)
        return violations[before:]

    # ``extend(fragments, spans=None, keys=None)`` (from ``PieceSkipper``) feeds a whole ``push()`` result
    # and returns the violations it proves. A push that only continued a string nothing looks at returns
    # at once, below the Python call on the compiled core; the rest comes here, where the loop skips such
    # pieces without a call.
    def _extend(self, fragments: Iterable[Any], spans: Iterable[tuple[int, int]] | None,
                keys: Sequence[tuple[int, Path, tuple[int, int]]] | None = None) -> Sequence[Violation]:
        if keys:
            return self._extend_keys(list(fragments), None if spans is None else list(spans), keys)
        out: list[Violation] | None = None
        skips = self._skips
        if spans is None:
            for fragment in fragments:
                if type(fragment) is tuple and skips(fragment[0], fragment[1]):
                    continue
                new = self.feed(fragment)
                if new:
                    out = self._gather(out, new)
        else:
            for fragment, span in zip(fragments, spans, strict=True):
                if type(fragment) is tuple and skips(fragment[0], fragment[1]):
                    continue
                new = self.feed(fragment, span)
                if new:
                    out = self._gather(out, new)
        return _NOTHING if out is None else out

    def _extend_keys(self, fragments: list[Any], spans: list[tuple[int, int]] | None,
                     keys: Sequence[tuple[int, Path, tuple[int, int]]]) -> Sequence[Violation]:
        """``_extend`` with the push's keys, each fed before the fragment it preceded."""
        if spans is not None and len(spans) != len(fragments):
            raise ValueError("spans and fragments differ in length")
        out: list[Violation] | None = None
        pending = iter(keys)
        upcoming = next(pending, None)
        for i, fragment in enumerate(fragments):
            while upcoming is not None and upcoming[0] <= i:
                new = self.key(upcoming[1], upcoming[2] if spans is not None else None)
                if new:
                    out = self._gather(out, new)
                upcoming = next(pending, None)
            new = self.feed(fragment, None if spans is None else spans[i])
            if new:
                out = self._gather(out, new)
        while upcoming is not None:
            new = self.key(upcoming[1], upcoming[2] if spans is not None else None)
            if new:
                out = self._gather(out, new)
            upcoming = next(pending, None)
        return _NOTHING if out is None else out

    @staticmethod
    def _gather(out: list[Violation] | None, new: Sequence[Violation]) -> list[Violation]:
        if out is None:
            return list(new)
        out.extend(new)
        return out

    def _enter(self, path: Path, span: Any) -> Any:
        """Open the states from the deepest open value down to ``path``."""
        if self._done:
            raise ValueError("the root value is already complete")
        stack = self._stack
        depth = len(stack) - 1
        if len(path) < depth or path[:depth] != self._path:
            raise ValueError(f"fragment at {path!r} while the value at {self._path!r} is open")
        top = stack[-1]
        last = len(path) - 1
        for level in range(depth, last + 1):
            if top is not NULL:
                top = top.child(path[level], span, path if level == last else path[: level + 1])
            stack.append(top)
        self._path = path
        self._top = top
        return top

    def _pop(self) -> None:
        stack = self._stack
        stack.pop()
        if stack:
            self._top = stack[-1]
            self._path = self._path[:-1]
        else:
            self._done = True
            self._top = NULL
            self._path = _AFTER_ROOT
