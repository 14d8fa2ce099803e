"""A drop-in ``axio.tool_args.ToolArgStream`` on argstream's core tokenizer.

Change ``from axio.tool_args import ToolArgStream`` (and ``from axio.events
import ToolFieldStart, ...``) to ``from argstream.compat.axio import ...``: the
same constructor, ``feed(chunk)``, ``current_key`` and ``done``, and the same
``ToolFieldStart`` / ``ToolFieldDelta`` / ``ToolFieldEnd`` events, for every
valid argument object and every chunking. String values are decoded; every
other value streams as its raw JSON text.

How it works
------------
Each chunk goes once through the core ``Tokenizer``, which validates it,
decodes strings and keys, and reports tokens to a small sink. The sink only
counts depth: at depth 1 (a member of the root object) a key becomes
``current_key``, string data becomes deltas, and a number, literal or container
value is sliced out of the chunk with the tokenizer's ``offset`` (never
re-serialised). The layer never walks the JSON: where tokens start and end is
the tokenizer's word. Inside a long string value (the common case: a file's
content) a chunk costs one ``push``, one sink call and one event.

Differences from axio (see docs/compat.md): invalid JSON raises
:class:`~argstream.ArgumentStreamError` (a root that is not an object, junk
between fields, a missing value, data after the object, an invalid escape)
where axio silently skips or mislabels it; lone surrogate escapes become
U+FFFD; keys are decoded as JSON (surrogate pairs joined); the event classes
are this module's own (``to_axio()`` converts).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, List, Union

from .. import parser as _parser
from .._tokenizer_py import ERR_EXPECTING_COLON, MESSAGES, ST_END, ST_LITERAL, ST_NUMBER, ST_STRING, ST_VALUE
from ..errors import ArgumentStreamError
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


_NOT_OBJECT = "Expecting '{': tool arguments must be a JSON object"
_NO_COLON = MESSAGES[ERR_EXPECTING_COLON]
_WS = " \t\r\n"
_BEFORE_SCALAR = " \t\r\n:"  # what may sit between a key's closing quote and its scalar value


def _default_tokenizer() -> Callable[..., Any]:
    return _parser.TokenizerC or _parser.TokenizerPy


def _tokenizer_of(parser_factory: Callable[..., Any]) -> Callable[..., Any]:
    """The tokenizer class of the core that ``parser_factory`` (an ``IncrementalArgParser`` class) belongs to."""
    pairs = ((_parser.IncrementalArgParserC, _parser.TokenizerC), (_parser.IncrementalArgParserPy, _parser.TokenizerPy))
    for parser_cls, tokenizer_cls in pairs:
        if parser_cls is not None and tokenizer_cls is not None and parser_factory is parser_cls:
            return tokenizer_cls
    raise TypeError("parser_factory must be an IncrementalArgParser class of argstream's cores; "
                    "pass tokenizer_factory for any other tokenizer")


class _FieldSink:
    """The tokenizer's sink: turns the root object's members into ``ToolField*`` events.

    Depth counts open containers (inside the root object: 1). Offsets are absolute;
    ``chunk`` starts at ``base``.
    """

    __slots__ = (
        "tok", "idx", "tid", "events", "chunk", "base", "depth", "root", "key", "starting",
        "mark", "start", "end_at", "lines", "last_nl",
    )

    def __init__(self, tok: Any, idx: int, tid: str) -> None:
        self.tok = tok
        self.idx = idx
        self.tid = tid
        self.events: list[ToolFieldEvent] = []
        self.chunk = ""
        self.base = 0
        self.depth = 0
        self.root = False  # the root '{' arrived
        self.key = ""
        self.starting = False  # the current key's ToolFieldStart is still due
        self.mark = 0  # just past the current key's closing quote
        self.start = 0  # where the current container value starts
        self.end_at = -1  # a scalar's ToolFieldEnd is due once this offset is read (axio ends it there)
        self.lines = 1  # line and last newline before the root (only for the not-an-object error)
        self.last_nl = -1

    # -- events at depth 1 ----------------------------------------------------------

    def _start(self) -> None:
        self.starting = False
        self.events.append(ToolFieldStart(self.idx, self.tid, self.key))

    def _end(self) -> None:
        self.end_at = -1
        self.events.append(ToolFieldEnd(self.idx, self.tid, self.key))

    def _delta(self, text: str) -> None:
        self.events.append(ToolFieldDelta(self.idx, self.tid, self.key, text))

    def not_object(self) -> ArgumentStreamError:
        """The root value starts in this chunk (all before it is whitespace) and is not an object."""
        chunk = self.chunk
        k = len(chunk) - len(chunk.lstrip(_WS))
        nl = chunk.rfind("\n", 0, k)
        last_nl = self.base + nl if nl >= 0 else self.last_nl
        pos = self.base + k
        return ArgumentStreamError(_NOT_OBJECT, pos, self.lines + chunk.count("\n", 0, k), pos - last_nl)

    # -- the tokenizer's callbacks ------------------------------------------------------

    def on_begin_object(self) -> None:
        depth = self.depth
        self.depth = depth + 1
        if depth == 1:
            self._begin_container()
        elif depth == 0:
            self.root = True

    def on_begin_array(self) -> None:
        depth = self.depth
        self.depth = depth + 1
        if depth == 1:
            self._begin_container()
        elif depth == 0:
            raise self.not_object()

    def _begin_container(self) -> None:
        if self.starting:
            self._start()
        self.start = self.tok.offset - 1

    def on_end_object(self) -> None:
        depth = self.depth = self.depth - 1
        if depth == 1:
            self._end_container()
        elif depth == 0 and self.end_at >= 0:
            self._end()

    def on_end_array(self) -> None:
        depth = self.depth = self.depth - 1
        if depth == 1:
            self._end_container()

    def _end_container(self) -> None:
        base = self.base
        self._delta(self.chunk[max(self.start - base, 0) : self.tok.offset - base])
        self._end()

    def on_key(self, key: str) -> None:
        if self.depth == 1:
            if self.end_at >= 0:
                self._end()
            self.key = key
            self.starting = True
            self.mark = self.tok.offset

    def on_begin_string(self) -> None:
        if self.depth == 1:
            if self.starting:
                self._start()
        elif self.depth == 0:
            raise self.not_object()

    def on_string_data(self, text: str) -> None:
        if self.depth == 1:
            self.events.append(ToolFieldDelta(self.idx, self.tid, self.key, text))

    def on_end_string(self) -> None:
        if self.depth == 1:
            self.events.append(ToolFieldEnd(self.idx, self.tid, self.key))

    def on_scalar(self, value: Any) -> None:
        if self.depth == 1:
            if self.starting:
                self._start()
            base = self.base
            end = self.tok.offset
            raw = self.chunk[max(self.mark - base, 0) : end - base].lstrip(_BEFORE_SCALAR)
            if raw:
                self._delta(raw)
            self.end_at = end  # axio ends a scalar at the character after it
        elif self.depth == 0:
            raise self.not_object()

    # -- the end of a feed, and errors ----------------------------------------------------

    def end_feed(self) -> None:
        """After a push that did not end inside a string value: what axio emits at a feed's end."""
        depth = self.depth
        tok = self.tok
        chunk = self.chunk
        base = self.base
        if depth > 1:  # inside a container value: the chunk's part of it
            text = chunk[max(self.start - base, 0) :]
            if text:
                self._delta(text)
        elif depth == 1:
            if self.end_at >= 0 and tok.pos > self.end_at:
                self._end()
            state = tok.state
            if state == ST_VALUE or state == ST_NUMBER or state == ST_LITERAL:  # the ':' was read
                if self.starting:
                    self._start()
                if state != ST_VALUE:  # a number or literal continues in the next chunk
                    text = chunk[max(self.mark - base, 0) :].lstrip(_BEFORE_SCALAR)
                    if text:
                        self._delta(text)
        elif not self.root:
            if tok.state != ST_VALUE:  # a number or literal root started
                raise self.not_object()
            self.lines += chunk.count("\n")  # whitespace before the root
            nl = chunk.rfind("\n")
            if nl >= 0:
                self.last_nl = base + nl

    def before_error(self, exc: ArgumentStreamError) -> None:
        """The push failed: add the events that the text before the error completed."""
        if self.depth != 1:
            return
        if self.end_at >= 0 and exc.pos > self.end_at:
            self._end()
        if self.starting and exc.msg != _NO_COLON:  # any other error after a key comes after its ':'
            self._start()


class ToolArgStream:
    """Streams a tool call's argument JSON as ``ToolField*`` events, one top-level field at a time.

    ``feed(chunk)`` returns the events that chunk produced. ``tokenizer_factory``
    makes the core tokenizer (default: the compiled core's ``Tokenizer`` when it
    is available); ``parser_factory`` (an ``IncrementalArgParser`` class) picks
    the tokenizer of that parser's core instead.

    Raises:
        ArgumentStreamError: from ``feed`` (or ``finish``) at the first character
            that proves the input invalid, or that the root is not an object. The
            events the failing chunk produced before the error are on the
            exception's ``events`` attribute. Errors are sticky.
    """

    __slots__ = ("_id", "_idx", "_tok", "_sink", "_error")

    def __init__(
        self,
        tool_use_id: str,
        index: int = 0,
        *,
        max_depth: int = 512,
        tokenizer_factory: Callable[..., Any] | None = None,
        parser_factory: Callable[..., Any] | None = None,
    ) -> None:
        if tokenizer_factory is None:
            tokenizer_factory = _default_tokenizer() if parser_factory is None else _tokenizer_of(parser_factory)
        self._id = tool_use_id
        self._idx = index
        self._tok = tokenizer_factory(max_depth=max_depth)
        self._sink = _FieldSink(self._tok, index, tool_use_id)
        self._error: ArgumentStreamError | None = None

    @property
    def tool_use_id(self) -> str:
        return self._id

    @property
    def index(self) -> int:
        return self._idx

    @property
    def current_key(self) -> str:
        """The last top-level key read (kept after its value ends), or ``""`` before the first."""
        return self._sink.key

    @property
    def done(self) -> bool:
        """The top-level JSON object is complete."""
        return self._tok.state == ST_END

    @property
    def position(self) -> int:
        """Characters consumed so far."""
        return self._tok.pos

    def feed(self, chunk: str) -> List[ToolFieldEvent]:
        """Process one chunk of argument JSON; return the field events it produced.

        Raises:
            ArgumentStreamError: the input is not a valid JSON object (sticky).
            TypeError: ``chunk`` is not a ``str``.
        """
        if self._error is not None:
            raise self._error.with_traceback(None)
        if type(chunk) is not str and not isinstance(chunk, str):
            raise TypeError(f"chunks are str, not {type(chunk).__name__}")
        tok = self._tok
        sink = self._sink
        events: list[ToolFieldEvent] = []
        sink.events = events
        sink.chunk = chunk
        sink.base = tok.pos
        try:
            tok.push(chunk, sink)
            if sink.depth != 1 or tok.state != ST_STRING:
                sink.end_feed()
        except ArgumentStreamError as exc:
            raise self._fail(exc) from None
        return events

    def _fail(self, exc: ArgumentStreamError) -> ArgumentStreamError:
        sink = self._sink
        if not sink.root:  # whatever is wrong before the root '{' is that the root is not an object
            exc = sink.not_object()
        else:
            sink.before_error(exc)
        exc.events = sink.events  # type: ignore[attr-defined]
        self._error = exc
        return exc

    def finish(self) -> List[ToolFieldEvent]:
        """End of input (not in axio): returns ``[]``.

        Raises:
            IncompleteJSONError: the object is not complete.
        """
        if self._error is not None:
            raise self._error.with_traceback(None)
        self._sink.events = []
        try:
            self._tok.finish(self._sink)
        except ArgumentStreamError as exc:
            exc.events = []  # type: ignore[attr-defined]
            self._error = exc
            raise
        return []
