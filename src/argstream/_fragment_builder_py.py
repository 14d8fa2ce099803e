"""The pure-Python ``FragmentBuilder``: tokenizer events to nested or flat fragments (twin of ``_fragment_builder.pyx``).

It builds the pure fragment types of ``_fragments_py`` whichever backend is
loaded, so the pure parser exercises the pure types.
"""

from __future__ import annotations

from typing import Any, Callable, Literal

from ._fragments_py import DONE, ArrayItem, Empty, ObjectEntry, Scalar, String
from ._sink_py import Sink
from ._tokenizer_py import CT_ARRAY, CT_OBJECT, Tokenizer

__all__ = ["FragmentBuilder"]


def _maker(cls: Any, *fields: str) -> Any:
    """A fast constructor for a frozen slotted dataclass, or ``cls`` itself (compiled types are fast already).

    Setting the slots directly skips the frozen ``__setattr__`` guard that makes a frozen
    dataclass's ``__init__`` cost about a microsecond; the object is the same as ``cls(...)``'s.
    """
    descriptors = [cls.__dict__.get(f) for f in fields]
    if not all(type(d).__name__ == "member_descriptor" for d in descriptors):
        return cls
    setters: list[Callable[[Any, Any], None]] = [d.__set__ for d in descriptors]
    new = object.__new__
    if len(setters) == 1:
        (set0,) = setters

        def make1(a: Any) -> Any:
            obj = new(cls)
            set0(obj, a)
            return obj

        return make1
    set0, set1 = setters

    def make2(a: Any, b: Any) -> Any:
        obj = new(cls)
        set0(obj, a)
        set1(obj, b)
        return obj

    return make2


class FragmentBuilder(Sink):
    """A sink that turns events into nested fragments (or ``(path, leaf)`` pairs when flat).

    Given the ``tokenizer`` that feeds it, it also records each fragment's
    input span on ``spans`` and each object key it reads on ``keys`` (see
    ``IncrementalArgParser``); without one, both stay ``None`` and nothing is
    recorded.
    """

    def __init__(self, flat: bool = False, tokenizer: Tokenizer | None = None) -> None:
        self.flat = flat
        self.tok = tokenizer
        self.spans: list[tuple[int, int]] | None = None if tokenizer is None else []
        self.keys: list[tuple[int, tuple, tuple[int, int]]] | None = None if tokenizer is None else []
        self.piece_start = 0  # where the next String piece's raw input begins
        self.at_end = False  # finish(): a number's Done is proved by the end of input
        self.out: list[Any] = []
        self.path: list[Any] = []  # the open child's key (None before the first) or index
        self.kinds: list[int] = []
        self.string_empty = False
        self.path_tuple: tuple | None = ()
        self._Scalar = _maker(Scalar, "value")
        self._String = _maker(String, "text")
        self._ObjectEntry = _maker(ObjectEntry, "key", "value")
        self._ArrayItem = _maker(ArrayItem, "index", "value")

    def emit(self, leaf: Any) -> None:
        if self.flat:
            t = self.path_tuple
            if t is None:
                t = self.path_tuple = tuple(self.path)
            self.out.append((t, leaf))
            return
        path = self.path
        kinds = self.kinds
        k = len(path)
        while k:
            k -= 1
            if kinds[k] == CT_OBJECT:
                leaf = self._ObjectEntry(path[k], leaf)
            else:
                leaf = self._ArrayItem(path[k], leaf)
        self.out.append(leaf)

    def _start(self) -> None:
        """A value starts: inside an array it is the next item."""
        kinds = self.kinds
        if kinds and kinds[-1] == CT_ARRAY:
            self.path[-1] += 1
            self.path_tuple = None

    def on_begin_object(self) -> None:
        self._start()
        self.kinds.append(CT_OBJECT)
        self.path.append(None)
        self.path_tuple = None

    def on_begin_array(self) -> None:
        self._start()
        self.kinds.append(CT_ARRAY)
        self.path.append(-1)
        self.path_tuple = None

    def _span(self, start: int, end: int) -> None:
        self.spans.append((start, end))  # type: ignore[union-attr]  # only called when recording

    def _end_container(self, empty_marker: Any, kind: Literal["object", "array"]) -> None:
        self.kinds.pop()
        last = self.path.pop()
        self.path_tuple = None
        if self.spans is not None:
            end = self.tok.offset  # type: ignore[union-attr]
            if last == empty_marker:
                self._span(end - 1, end)
            self._span(end - 1, end)
        if last == empty_marker:
            self.emit(Empty(kind))
        self.emit(DONE)

    def on_end_object(self) -> None:
        self._end_container(None, "object")

    def on_end_array(self) -> None:
        self._end_container(-1, "array")

    def on_key(self, key: str) -> None:
        self.path[-1] = key
        self.path_tuple = None
        if self.keys is not None:
            end = self.tok.offset  # type: ignore[union-attr]
            self.path_tuple = path = tuple(self.path)
            self.keys.append((len(self.out), path, (end - 1, end)))

    def on_begin_string(self) -> None:
        self._start()
        self.string_empty = True
        if self.spans is not None:
            self.piece_start = self.tok.start + 1  # type: ignore[union-attr]

    def on_string_data(self, text: str) -> None:
        self.string_empty = False
        if self.spans is not None:
            tok = self.tok
            end = tok.hold if tok.esc or tok.high else tok.offset  # type: ignore[union-attr]
            self._span(self.piece_start, end)
            self.piece_start = end
        path = self.path
        if len(path) == 1 and not self.flat and self.kinds[0] == CT_OBJECT:  # a top-level argument
            self.out.append(self._ObjectEntry(path[0], self._String(text)))
        else:
            self.emit(self._String(text))

    def on_end_string(self) -> None:
        if self.spans is not None:
            end = self.tok.offset  # type: ignore[union-attr]
            if self.string_empty:
                self._span(end - 1, end)
            self._span(end - 1, end)
        if self.string_empty:
            self.emit(Empty("string"))
        self.emit(DONE)

    def on_scalar(self, value: Any) -> None:
        if self.spans is not None:
            tok = self.tok
            end = tok.offset  # type: ignore[union-attr]
            self._span(tok.start, end)  # type: ignore[union-attr]
            if value is None or value is True or value is False:  # a literal: its last letter proves it
                self._span(end - 1, end)
            else:  # a number: its delimiter, or the end of input
                self._span(end, end if self.at_end else end + 1)
        self._start()
        self.emit(self._Scalar(value))
        self.emit(DONE)
