"""``FragmentAggregator``, the pure-Python twin: fragments in, complete values out (RFD 043's aggregator
layer). The reference for ``_aggregate.pyx``; :mod:`argstream.aggregate` exports the one in use.

Containers are created and attached to their parent as soon as their first
fragment (or ``Empty``) arrives, so the root object always holds every value
completed so far. A snapshot only has to place the one string still in
progress: its cost is that string's length, never the whole value.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from ._fragments_py import Done, Empty
from ._pieces_py import PIECES_EVERY, compact_pieces
from ._backend import ARRAY_ITEM_TYPES, OBJECT_ENTRY_TYPES, SCALAR_TYPES, STRING_TYPES
from .fragments import Path

__all__ = ["Completed", "FragmentAggregator"]

_UNKNOWN, _OBJECT, _ARRAY, _STRING, _SCALAR = range(5)


class _NoValue:
    """The marker of a value not complete yet: one object, which copying and pickling keep (an
    aggregator copied before its root completed must still know it has not)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<no value yet>"

    def __reduce__(self) -> str:
        return "_NO_VALUE"  # pickled by name: this module's one instance

    def __copy__(self) -> _NoValue:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> _NoValue:
        return self


_NO_VALUE = _NoValue()


def _restore(cls: Any, frames: Any, root: Any) -> Any:
    """An aggregator of ``cls`` in the state that ``__reduce__`` gave (either implementation's; a state
    that no aggregator could be in raises ``ValueError``)."""
    aggregator = cls.__new__(cls)
    aggregator._set_state(frames, root)
    return aggregator


def _checked_state(frames: Any, root: Any) -> list[tuple[Any, int, Any, list[str], bool]]:
    """``frames`` as ``(step, kind, value, pieces, placed)`` tuples, each field of the type the aggregator
    holds there; ``ValueError`` for anything else (an aggregator whose root is not complete has its
    root frame, whose step is ``None``)."""
    if type(frames) is not tuple or (root is _NO_VALUE and not frames):
        raise ValueError("not the state of a FragmentAggregator")
    out = []
    for at, frame in enumerate(frames):
        if type(frame) is not tuple or len(frame) != 5:
            raise ValueError("not the state of a FragmentAggregator")
        step, kind, value, pieces, placed = frame
        if (type(kind) is not int or not _UNKNOWN <= kind <= _SCALAR or type(pieces) is not list
                or type(placed) is not bool or (at == 0) != (step is None)
                or (at and type(step) is not str and type(step) is not int)
                or (kind == _OBJECT and type(value) is not dict) or (kind == _ARRAY and type(value) is not list)):
            raise ValueError("not the state of a FragmentAggregator")
        out.append((step, kind, value, pieces, placed))
    return out


def _pair(fragment: tuple[Any, ...]) -> tuple[Any, Any]:
    """``path, leaf`` of a flat fragment: the interpreter's own error for a tuple of another length
    (the compiled twin calls this for such a tuple, so both raise alike)."""
    path, leaf = fragment
    return path, leaf


@dataclass(frozen=True, slots=True)
class Completed:
    """The value that one fragment completed; ``path`` is ``()`` for the root."""

    path: Path
    value: Any


class _Frame:
    __slots__ = ("step", "kind", "value", "pieces", "placed")

    def __init__(self, step: str | int | None) -> None:
        self.step = step  # key or index in the parent; None for the root
        self.kind = _UNKNOWN
        self.value: Any = _NO_VALUE  # dict, list or scalar
        self.pieces: list[str] = []  # string data so far
        self.placed = False  # the value (or a string so far) sits in the parent


class FragmentAggregator:
    """Collects fragments (nested, or ``(path, leaf)`` pairs) into values.

    ``push`` returns a :class:`Completed` for every value that a ``Done``
    closes, at any depth, and ``None`` otherwise. Fragments that do not follow
    the protocol (an entry after its value ended, ``Done`` with no value) raise
    ``ValueError``; this never happens with fragments from one parser.
    """

    __slots__ = ("_frames", "_root")

    def __init__(self) -> None:
        self._frames: list[_Frame] = [_Frame(None)]
        self._root: Any = _NO_VALUE

    def __reduce__(self) -> tuple[Any, ...]:
        """Copies and pickles: the open values' frames as plain tuples (see :func:`_restore`)."""
        frames = tuple((f.step, f.kind, f.value, f.pieces, f.placed) for f in self._frames)
        return _restore, (type(self), frames, self._root)

    def _set_state(self, frames: tuple[Any, ...], root: Any) -> None:
        """:func:`_restore`'s second half: ``frames`` checked, then taken."""
        made = []
        for step, kind, value, pieces, placed in _checked_state(frames, root):
            frame = _Frame(step)
            frame.kind, frame.value, frame.pieces, frame.placed = kind, value, pieces, placed
            made.append(frame)
        self._frames = made
        self._root = root

    @property
    def done(self) -> bool:
        """The root value is complete."""
        return self._root is not _NO_VALUE

    @property
    def value(self) -> Any:
        """The complete root value. Raises ``LookupError`` before the root's ``Done``."""
        if self._root is _NO_VALUE:
            raise LookupError("the root value is not complete yet")
        return self._root

    def extend(self, fragments: Iterable[Any]) -> list[Completed]:
        """Push several fragments; return the values they completed, in order."""
        out = []
        push = self.push
        for fragment in fragments:
            done = push(fragment)
            if done is not None:
                out.append(done)
        return out

    def push(self, fragment: Any) -> Completed | None:
        """Add one fragment; return the value it completed, if any."""
        if self._root is not _NO_VALUE:
            raise ValueError("the root value is already complete")
        frames = self._frames
        level = 0
        if type(fragment) is tuple:
            path, leaf = fragment
            for step in path:
                self._enter(level, step)
                level += 1
        else:
            leaf = fragment
            while True:
                cls = type(leaf)
                if cls in OBJECT_ENTRY_TYPES:
                    self._enter(level, leaf.key)
                elif cls in ARRAY_ITEM_TYPES:
                    self._enter(level, leaf.index)
                else:
                    break
                leaf = leaf.value
                level += 1
        if len(frames) != level + 1:
            raise ValueError(f"fragment {fragment!r} arrives while a deeper value is still open")
        frame = frames[level]
        cls = type(leaf)
        if cls in STRING_TYPES:
            if frame.kind == _UNKNOWN:
                frame.kind = _STRING
            elif frame.kind != _STRING:
                raise ValueError(f"string data {leaf!r} inside a non-string value")
            frame.pieces.append(leaf.text)
            if not len(frame.pieces) & (PIECES_EVERY - 1):
                compact_pieces(frame.pieces)
            return None
        if frame.kind != _UNKNOWN:
            if cls is Done or isinstance(leaf, Done):
                return self._close(level)
            raise ValueError(f"{leaf!r} for a value that already has data")
        if cls in SCALAR_TYPES:
            frame.kind = _SCALAR
            frame.value = leaf.value
        elif cls is Empty:
            kind = leaf.kind
            if kind == "string":
                frame.kind = _STRING
            elif kind == "object":
                self._attach(level, _OBJECT, {})
            elif kind == "array":
                self._attach(level, _ARRAY, [])
            else:
                raise ValueError(f"unknown Empty kind {kind!r}")
        elif isinstance(leaf, Done):
            raise ValueError("Done for a value that never started")
        else:
            raise TypeError(f"not a fragment: {leaf!r}")
        return None

    def _enter(self, level: int, step: str | int) -> None:
        """Make frame ``level`` a container and make sure its open child is ``step``."""
        frames = self._frames
        frame = frames[level]
        if type(step) is str:
            if frame.kind != _OBJECT:
                if frame.kind != _UNKNOWN:
                    raise ValueError(f"object entry {step!r} inside a non-object value")
                self._attach(level, _OBJECT, {})
        elif type(step) is not int:
            raise ValueError(f"a step is a key (str) or an index (int), not {step!r}")
        elif frame.kind != _ARRAY:
            if frame.kind != _UNKNOWN:
                raise ValueError(f"array item {step!r} inside a non-array value")
            self._attach(level, _ARRAY, [])
        if level + 1 < len(frames):
            if frames[level + 1].step != step:
                raise ValueError(f"{step!r} starts before the value of {frames[level + 1].step!r} is done")
        else:
            if type(step) is int and step != len(frame.value):  # (a str step is a key)
                raise ValueError(f"array item {step} out of order (expected {len(frame.value)})")
            frames.append(_Frame(step))

    def _attach(self, level: int, kind: int, container: Any) -> None:
        frame = self._frames[level]
        frame.kind = kind
        frame.value = container
        self._place(level, container)

    def _place(self, level: int, value: Any) -> None:
        """Put ``value`` at frame ``level``'s slot in its parent (replacing a partial string)."""
        frame = self._frames[level]
        if level:
            parent = self._frames[level - 1].value
            if type(parent) is dict:
                parent[frame.step] = value
            elif frame.placed:
                parent[frame.step] = value
            else:
                parent.append(value)
        frame.placed = True

    def _close(self, level: int) -> Completed:
        frames = self._frames
        frame = frames[level]
        kind = frame.kind
        if kind == _STRING:
            value: Any = "".join(frame.pieces)
            self._place(level, value)
        elif kind == _SCALAR:
            value = frame.value
            self._place(level, value)
        else:
            value = frame.value
        frames.pop()
        if level == 0:
            self._root = value
            return Completed((), value)
        return Completed(tuple(f.step for f in frames[1:]) + (frame.step,), value)  # type: ignore[arg-type]  # steps below the root are set

    def open_pieces(self) -> list[str] | None:
        """The pieces of the string still streaming, or ``None``: a consumer that knows the next
        ``String`` continues that string (same path) may append its text here instead of pushing it.
        Runs of short entries are joined in place as it grows (``_pieces``): it always joins to the
        string so far."""
        if self._root is not _NO_VALUE:
            return None  # the value is complete (and no frame is left)
        last = self._frames[-1]
        return last.pieces if last.kind == _STRING else None

    def snapshot(self) -> Any:
        """The value so far, the string in progress included. Treat it as read-only.

        Returns ``None`` before any data. Cost: the length of the one string
        still streaming (its pieces are joined once and kept joined).
        """
        if self._root is not _NO_VALUE:
            return self._root
        frames = self._frames
        last = frames[-1]
        if last.kind == _STRING:
            joined = "".join(last.pieces)
            last.pieces[:] = [joined] if joined else []  # in place: open_pieces() handed out this list
            if len(frames) == 1:
                return joined
            self._place(len(frames) - 1, joined)
        elif last.kind == _SCALAR and len(frames) > 1:
            self._place(len(frames) - 1, last.value)
        root = frames[0]
        if root.kind == _UNKNOWN:
            return None
        return root.value
