"""A drop-in ``axio.tool_args.ToolArgStream`` on argstream's core parser.

Change ``from axio.tool_args import ToolArgStream`` (and ``from axio.events
import ToolFieldStart, ...``) to ``from argstream.compat.axio import ...``: the
same constructor, ``feed(chunk)``, ``current_key`` and ``done``, and the same
``ToolFieldStart`` / ``ToolFieldDelta`` / ``ToolFieldEnd`` events, for every
valid argument object and every chunking. String values are decoded; every
other value streams as its raw JSON text.

How it works
------------
Every character goes once through one ``IncrementalArgParser``, which
validates, decodes strings and decides where each top-level value ends. This
layer only cuts each chunk where a top-level value starts or may end, so that
what the core returns for each piece belongs to one field, and slices the raw
text of non-string values out of the chunk (never re-serialised). Inside a long
string value (the common case: a file's content) a chunk costs one regular
expression match, one ``push`` and one event.

Differences from axio (see docs/compat.md): invalid JSON raises
:class:`~argstream.ArgumentStreamError` (a root that is not an object, junk
between fields, a missing value, data after the object, an invalid escape)
where axio silently skips or mislabels it; lone surrogate escapes become
U+FFFD; keys are decoded as JSON (surrogate pairs joined); the event classes
are this module's own (``to_axio()`` converts).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, List, Union

from .._fragments_py import DONE, Empty
from ..errors import ArgumentStreamError
from ..parser import IncrementalArgParser
from . import _fast_init

__all__ = ["ToolArgStream", "ToolFieldStart", "ToolFieldDelta", "ToolFieldEnd", "ToolFieldEvent", "to_axio"]


@_fast_init
@dataclass(frozen=True, slots=True)
class ToolFieldStart:
    """A top-level field's key is known (its ``:`` arrived)."""

    index: int
    tool_use_id: str
    key: str


@_fast_init
@dataclass(frozen=True, slots=True)
class ToolFieldDelta:
    """A piece of a field's value: decoded text for a string, raw JSON text otherwise."""

    index: int
    tool_use_id: str
    key: str
    text: str


@_fast_init
@dataclass(frozen=True, slots=True)
class ToolFieldEnd:
    """The field's value is complete."""

    index: int
    tool_use_id: str
    key: str


ToolFieldEvent = Union[ToolFieldStart, ToolFieldDelta, ToolFieldEnd]


def to_axio(event: ToolFieldEvent) -> Any:
    """The same event as axio's own class (``axio.events``); needs axio installed."""
    from axio import events as axio_events  # absolute: the real axio package

    cls = getattr(axio_events, type(event).__name__)
    return cls(*(getattr(event, name) for name in event.__slots__))


# Phases of the top-level object (what the next character means).
_INIT = 0  # before the root '{'
_OBJ = 1  # after '{' or ',': a key or '}'
_KEY = 2  # inside a key
_COLON = 3  # after a key
_VALUE = 4  # after ':'
_STRING = 5  # inside a string value
_SCALAR = 6  # inside a number or literal
_CONTAINER = 7  # inside an object or array value
_AFTER = 8  # after a value: ',' or '}'
_END = 9  # the root object is complete

_WS = " \t\r\n"
_WS_RUN = re.compile(r"[ \t\r\n]*")
# A string body from a point outside an escape: stops at the closing quote, or at a lone
# trailing backslash (an escape cut by the chunk end), or at the end.
_STR_BODY = re.compile(r'[^"\\]*(?:\\.[^"\\]*)*', re.S)
# A number or literal runs until whitespace, ',' or '}' (axio's rule, exact for valid JSON).
_SCALAR_RUN = re.compile(r"[^ \t\r\n,}]*")
_CLOSER = re.compile(r"[\]}]")


class ToolArgStream:
    """Streams a tool call's argument JSON as ``ToolField*`` events, one top-level field at a time.

    ``feed(chunk)`` returns the events that chunk produced. ``parser_factory``
    makes the core parser (default: ``IncrementalArgParser``, the compiled core
    when it is available).

    Raises:
        ArgumentStreamError: from ``feed`` (or ``finish``) at the first character
            that proves the input invalid, or that the root is not an object. The
            events the failing chunk produced before the error are on the
            exception's ``events`` attribute. Errors are sticky.
    """

    __slots__ = (
        "_id", "_idx", "_core", "_phase", "_key", "_key_parts", "_esc", "_error",
        "_parser_factory", "_line", "_line_start",
    )

    def __init__(
        self,
        tool_use_id: str,
        index: int = 0,
        *,
        max_depth: int = 512,
        parser_factory: Callable[..., Any] = IncrementalArgParser,
    ) -> None:
        self._id = tool_use_id
        self._idx = index
        self._parser_factory = parser_factory
        self._core = parser_factory(max_depth=max_depth)
        self._phase = _INIT
        self._key = ""
        self._key_parts: list[str] = []
        self._esc = False  # the last piece ended with the backslash of an escape (key or string value)
        self._error: ArgumentStreamError | None = None
        self._line = 1  # lines before the root '{', for the one error this layer raises itself
        self._line_start = -1

    @property
    def tool_use_id(self) -> str:
        return self._id

    @property
    def index(self) -> int:
        return self._idx

    @property
    def current_key(self) -> str:
        """The last top-level key read (kept after its value ends), or ``""`` before the first."""
        return self._key

    @property
    def done(self) -> bool:
        """The top-level JSON object is complete."""
        return self._phase == _END

    @property
    def position(self) -> int:
        """Characters consumed so far."""
        return self._core.position

    def feed(self, chunk: str) -> List[ToolFieldEvent]:
        """Process one chunk of argument JSON; return the field events it produced.

        Raises:
            ArgumentStreamError: the input is not a valid JSON object (sticky).
            TypeError: ``chunk`` is not a ``str``.
        """
        if self._phase == _STRING and type(chunk) is str and chunk and self._error is None:
            # Inside a string value: unless a closing quote is in the chunk, all of it is string
            # data (or an invalid escape, which the core raises on). The hot path of file content.
            esc = False
            if '"' in chunk or chunk[-1] == "\\":
                last = len(chunk) - 1
                e = _STR_BODY.match(chunk, 1 if self._esc else 0).end()
                if e < last or (e == last and chunk[e] == '"'):
                    return self._feed(chunk)
                esc = e == last  # the chunk ends with the backslash of an escape
            try:
                frags = self._core.push(chunk)
            except ArgumentStreamError as exc:
                self._error = exc
                exc.events = []  # type: ignore[attr-defined]
                raise
            self._esc = esc
            if not frags:
                return []
            text = frags[0].value.text if len(frags) == 1 else "".join([f.value.text for f in frags])
            return [ToolFieldDelta(self._idx, self._id, self._key, text)]
        return self._feed(chunk)

    def _feed(self, chunk: str) -> List[ToolFieldEvent]:
        if self._error is not None:
            raise self._error.with_traceback(None)
        if not isinstance(chunk, str):
            raise TypeError(f"chunks are str, not {type(chunk).__name__}")
        events: list[ToolFieldEvent] = []
        if chunk:
            marks: list[int] = []  # the chunk index of the character behind each event
            base = self._core.position
            try:
                self._run(chunk, events, marks)
            except ArgumentStreamError as exc:
                self._error = exc
                # Only the events of text before the error: the walk may have run ahead of the core.
                exc.events = [ev for ev, m in zip(events, marks) if base + m < exc.pos]  # type: ignore[attr-defined]
                raise
        return events

    def finish(self) -> List[ToolFieldEvent]:
        """End of input (not in axio): returns ``[]``.

        Raises:
            IncompleteJSONError: the object is not complete.
        """
        if self._error is not None:
            raise self._error.with_traceback(None)
        try:
            self._core.finish()
        except ArgumentStreamError as exc:
            self._error = exc
            raise
        return []

    # -- the walk ---------------------------------------------------------------

    def _run(self, chunk: str, events: list[ToolFieldEvent], marks: list[int]) -> None:
        n = len(chunk)
        push = self._core.push
        base = self._core.position
        pushed = 0  # chunk[:pushed] went to the core
        buf: list[str] = []  # value text of the current field not yet in a delta
        idx = self._idx
        tid = self._id
        phase = self._phase
        i = 0
        try:
            while i < n:
                if phase == _STRING:
                    s = i + 1 if self._esc else i
                    e = _STR_BODY.match(chunk, s).end()
                    closer = e < n and chunk[e] == '"'
                    if closer:
                        cut = e + 1
                        self._esc = False
                    else:
                        cut = n
                        self._esc = e < n  # a lone trailing backslash
                    closed = False
                    try:
                        frags = push(chunk[pushed:cut])
                    except ArgumentStreamError as exc:  # keep the text decoded before the error
                        buf.extend(f.value.text for f in getattr(exc, "fragments", ()) if type(f.value) is not Empty)
                        if buf:
                            events.append(ToolFieldDelta(idx, tid, self._key, "".join(buf)))
                            marks.append(exc.pos - base - 1)
                        raise
                    for f in frags:
                        v = f.value
                        if v is DONE:
                            closed = True
                        elif type(v) is not Empty:
                            buf.append(v.text)
                    pushed = i = cut
                    if closed:
                        if not closer:  # pragma: no cover - the cut is exact for valid input
                            raise AssertionError("string value ended away from its closing quote")
                        if buf:
                            events.append(ToolFieldDelta(idx, tid, self._key, "".join(buf)))
                            marks.append(i - 1)
                            buf = []
                        events.append(ToolFieldEnd(idx, tid, self._key))
                        marks.append(i - 1)
                        phase = _AFTER
                elif phase == _CONTAINER:
                    raw_from = i
                    closed = False
                    while True:
                        m = _CLOSER.search(chunk, i)
                        cut = n if m is None else m.end()
                        frags = push(chunk[pushed:cut])
                        pushed = i = cut
                        if frags and frags[-1].value is DONE:
                            closed = True
                            break
                        if m is None:
                            break
                    buf.append(chunk[raw_from:i])
                    if closed:
                        events.append(ToolFieldDelta(idx, tid, self._key, "".join(buf)))
                        events.append(ToolFieldEnd(idx, tid, self._key))
                        marks.append(i - 1)
                        marks.append(i - 1)
                        buf = []
                        phase = _AFTER
                elif phase == _SCALAR:
                    e = _SCALAR_RUN.match(chunk, i).end()
                    if e > i:
                        buf.append(chunk[i:e])
                    i = e
                    if e < n:
                        if buf:
                            events.append(ToolFieldDelta(idx, tid, self._key, "".join(buf)))
                            marks.append(e)
                            buf = []
                        events.append(ToolFieldEnd(idx, tid, self._key))
                        marks.append(e)
                        phase = _AFTER
                elif phase == _KEY:
                    s = i + 1 if self._esc else i
                    e = _STR_BODY.match(chunk, s).end()
                    if e < n and chunk[e] == '"':
                        self._esc = False
                        self._key_parts.append(chunk[i:e])
                        push(chunk[pushed : e + 1])  # validate the key before decoding it
                        pushed = i = e + 1
                        raw = "".join(self._key_parts)
                        self._key_parts = []
                        self._key = raw if "\\" not in raw else self._decode_key(raw)
                        phase = _COLON
                    else:
                        self._esc = e < n
                        self._key_parts.append(chunk[i:])
                        i = n
                else:
                    c = chunk[i]
                    if c in _WS:
                        e = _WS_RUN.match(chunk, i).end()
                        if phase == _INIT:
                            self._count_lines(chunk, i, e, base)
                        i = e
                        continue
                    if phase == _AFTER:
                        if c == ",":
                            phase = _OBJ
                        elif c == "}":
                            phase = _END
                        else:
                            self._unexpected(chunk, pushed, i, base)
                        i += 1
                    elif phase == _OBJ:
                        if c == '"':
                            phase = _KEY
                        elif c == "}":
                            phase = _END
                        else:
                            self._unexpected(chunk, pushed, i, base)
                        i += 1
                    elif phase == _COLON:
                        if c != ":":
                            self._unexpected(chunk, pushed, i, base)
                        events.append(ToolFieldStart(idx, tid, self._key))
                        marks.append(i)
                        phase = _VALUE
                        i += 1
                    elif phase == _VALUE:
                        if c == '"':
                            push(chunk[pushed:i])  # what came before is no part of the string's pieces
                            pushed = i
                            phase = _STRING
                            i += 1
                        elif c == "{" or c == "[":
                            push(chunk[pushed:i])
                            pushed = i
                            phase = _CONTAINER
                        else:
                            phase = _SCALAR
                    elif phase == _INIT:
                        if c != "{":
                            line = self._line
                            raise ArgumentStreamError(
                                "Expecting '{': tool arguments must be a JSON object",
                                base + i, line, base + i - self._line_start,
                            )
                        phase = _OBJ
                        i += 1
                    else:  # _END: the core rejects anything but whitespace
                        self._unexpected(chunk, pushed, i, base)
            if pushed < n:
                push(chunk[pushed:])
        finally:
            self._phase = phase
        if buf:
            events.append(ToolFieldDelta(idx, tid, self._key, "".join(buf)))
            marks.append(n)

    def _count_lines(self, chunk: str, i: int, e: int, base: int) -> None:
        k = chunk.rfind("\n", i, e)
        if k >= 0:
            self._line += chunk.count("\n", i, e)
            self._line_start = base + k

    def _unexpected(self, chunk: str, pushed: int, i: int, base: int) -> None:
        """A character the grammar does not allow here: the core raises on it."""
        self._core.push(chunk[pushed : i + 1])
        raise ArgumentStreamError("Unexpected character", base + i)  # pragma: no cover - the core raised

    def _decode_key(self, raw: str) -> str:
        """Decode a (validated) key with escapes, exactly as the core decodes strings."""
        parser = self._parser_factory()
        return "".join(f.text for f in parser.push(f'"{raw}"') if type(f) is not Empty and f is not DONE)
