"""Raw SSE / NDJSON text straight into a provider pipeline, in one pass (sans-IO).

:class:`RawReader` is the :class:`~argstream.providers.wire.WireDecoder` of an HTTP body whose
events go, in order, into the :class:`~argstream.stream.StreamPipeline` made from the first one;
``feed(chunk)`` and ``close()`` return the stream items. A provider's dominant event (an argument
delta) is read by an :class:`~argstream.providers.templates.EventTemplate` once one is learned
from an earlier delta of the same shape: its JSON is never decoded, and the adapter decides on the
learned event with the new argument text. Every other event is decoded and fed as a wire item.
With the compiled core, runs of such events in SSE are read in C (``argstream._raw.SSELane``)
from the start of a chunk or the end of the event before; the pure path reads them the same way.

An exception raised on the way (text that is not the wire format, an event that breaks the
provider's protocol) is kept in ``error``, sticky, and the items of the events before it are
returned first: the caller passes them on, then raises it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import _backend
from ._fastpath_py import REASONING_TEXT
from .providers.templates import EventTemplate, learn
from .providers.wire import _DONE, WireDecoder

__all__ = ["RawReader", "raw_items"]

#: templates kept per stream (parallel calls of one response each have their own event text)
_KEPT = 4


class RawReader(WireDecoder):
    """Raw stream text in, stream items out (see the module doc).

    ``make(first_event)`` gives the pipeline (``argstream.stream.pipeline_for``); a ``ValueError``
    it raises (no provider reads the event) is kept with ``undetected`` set.
    """

    __slots__ = ("pipeline", "error", "undetected", "_make", "_chunk", "_text_chunk", "_path", "_message_path",
                 "_reasoning_paths", "_free", "_templates", "_learned", "_fits", "_lane")

    #: the compiled lane's class (``None``: the pure path reads every event)
    lane: Any = _backend.raw_c.SSELane if _backend.raw_c is not None else None

    def __init__(self, make: Callable[[Any], Any], *, max_event: int = 1 << 24) -> None:
        super().__init__(max_event=max_event)
        self.pipeline: Any = None
        self.error: BaseException | None = None
        self.undetected = False
        self._make = make
        self._chunk: Any = None
        self._text_chunk: Any = None
        self._path: Any = None
        self._message_path: Any = None
        self._reasoning_paths: tuple[Any, ...] = ()
        self._free: tuple[str, ...] = ()
        self._templates: list[EventTemplate] = []
        self._learned = 0
        self._fits = 0
        self._lane: Any = None

    @property
    def over(self) -> bool:
        """Read no further input: an exception was kept, or the stream ended in error."""
        return self.error is not None or (self.pipeline is not None and self.pipeline.over)

    def feed(self, chunk: str | bytes | bytearray | memoryview) -> list[Any]:
        """The stream items of the events that ``chunk`` completes."""
        out: list[Any] = []
        if self.error is None:
            try:
                self._feed_text(chunk if type(chunk) is str else self._text(chunk), out)
            except Exception as exc:  # kept: the items before it are passed on first
                self.error = exc
        return out

    def close(self) -> list[Any]:
        """The input ended: the items of the last events (the pipeline's own end is the caller's)."""
        out: list[Any] = []
        if self.error is None:
            try:
                self._close_into(out)
            except Exception as exc:
                self.error = exc
        return out

    def event(self, data: str, lines: int) -> list[Any]:
        """The stream items of one event that the compiled lane read the lines of but could not take
        (``_raw.RawItems``): ``data``, the value of its one data line, and ``lines``, its lines with
        the blank one that ends it; what reading those lines gives, an exception kept as ``feed`` keeps it."""
        out: list[Any] = []
        if self.error is None:
            try:
                self._line += lines
                self._event_line = self._line - 1
                if not self.pipeline.over and (len(data) >= 16 or data.strip() != _DONE):
                    self._decode_event(data, [data], out)
            except Exception as exc:  # kept: the items before it are passed on first
                self.error = exc
        return out

    def _feed_text(self, text: str, out: list[Any]) -> list[Any]:
        if self.lane is None or self._cr or self._sse is False or "\n" not in text:
            return super()._feed_text(text, out)  # (a piece of a long line: no event end to look for)
        blank = "\r\n\r\n" if "\r" in text else "\n\n"  # (the end of an event: CRLF line ends are Gemini's)
        pos, size = 0, len(text)
        while pos < size and not self.over:
            lane = self._lane
            if lane is not None and self._sse and not (self._tail or self._data):
                pos, lines = lane.feed(text, pos, out)
                self._line += lines
                if pos >= size:
                    break
            # the pure path reads through the end of the event the lane did not (or could not yet) read
            end = text.find(blank, pos)
            end = size if end < 0 else end + len(blank)
            super()._feed_text(text[pos:end], out)
            pos = end
        return out

    def _shortcut(self, data: str, out: list[Any]) -> bool:
        pipeline = self.pipeline
        if pipeline is None:
            return False
        if pipeline.over:
            return True  # the stream is over: what follows is not read
        for template in self._templates:
            text = template.match(data)
            if text is not None:
                if template.message:
                    hit = self._text_chunk(template.item, text=text)
                else:
                    hit = self._chunk(template.item, text=text)
                if hit is None:
                    return False  # the adapter's state says otherwise: decode it, the generic way
                self._fits += 1
                out += pipeline.take_text(hit) if template.message else pipeline.take(hit)
                return True
        return False

    def _deliver(self, value: Any, data: str | None, out: list[Any]) -> None:
        pipeline = self.pipeline
        if pipeline is None:
            pipeline = self._start(value)
        elif pipeline.over:
            return
        chunk = self._chunk
        hit = chunk(value) if chunk is not None else None
        message = hit is None
        if not message:
            out += pipeline.take(hit)
            paths: tuple[Any, ...] = (self._path,)
        else:
            text_chunk = self._text_chunk
            hit = text_chunk(value) if text_chunk is not None else None
            if hit is None:
                out += pipeline.feed(value)  # (whose tests decline again, changing nothing)
                return
            out += pipeline.take_text(hit)
            paths = self._reasoning_paths if hit[2] == REASONING_TEXT else (self._message_path,)
        if data is not None and self._learned < _KEPT + self._fits // 16:
            self._learned += 1
            for path in paths:  # (the one that holds the text: the others hold none)
                template = learn(data, value, path, self._free, message) if path is not None else None
                if template is not None:
                    self._templates[:] = [template, *self._templates[:_KEPT - 1]]
                    break

    def _start(self, first: Any) -> Any:
        self.undetected = True
        pipeline = self.pipeline = self._make(first)
        self.undetected = False
        adapter = pipeline._run.adapter
        self._chunk = pipeline._chunk
        if self._chunk is not None:
            self._path = getattr(adapter, "TEXT_PATH", None)
            self._free = tuple(getattr(adapter, "FREE_FIELDS", ()))
            self._text_chunk = pipeline._text_chunk
            if self._text_chunk is not None:
                self._message_path = getattr(adapter, "MESSAGE_PATH", None)
                self._reasoning_paths = tuple(getattr(adapter, "REASONING_PATHS", ()))
            if self._path is not None and self.lane is not None:
                self._lane = self.lane(self._templates, pipeline, self.max_event)
        return pipeline

    def _lane_ready(self) -> bool:
        """The compiled lane may read the next chunk from its start: the reader holds no unfinished
        line, event, character or CR, and reads on (``_raw.RawItems``)."""
        return (self._lane is not None and self._sse is True and not (self._cr or self._tail or self._data)
                and self.error is None and not self._utf8.getstate()[0])


_END = object()


class RawItems:
    """The stream items of raw chunks through a :class:`RawReader` (the twin of ``_raw.RawItems``, the
    raw loop of ``iter_tool_stream`` and ``aiter_tool_stream``): iteration feeds ``first``, then each
    chunk of ``chunks``, and stops when they end, an exception is kept in ``reader.error`` or the stream is
    over; ``step(chunk)`` feeds one chunk (the async loop's), ``close()`` ends the input."""

    __slots__ = ("reader", "stopped", "_pending", "_chunks")

    def __init__(self, reader: RawReader, first: Any, chunks: Any) -> None:
        self.reader = reader
        self.stopped = False
        self._pending = first
        self._chunks = chunks

    def __iter__(self) -> Any:
        chunk, self._pending = self._pending, _END
        while not self.stopped:
            if chunk is _END:
                chunk = next(self._chunks, _END)
                if chunk is _END:
                    self.stopped = True
                    return
            out = self._take(chunk)
            chunk = _END
            yield from out

    def step(self, chunk: Any) -> Any:
        """The stream items of one chunk, or the one item itself (not a list) when there is exactly one
        and the stream goes on: what the async loop yields from, without a list to walk for each delta.
        A list (possibly empty) means: yield each, then stop if ``stopped``."""
        out = self._take(chunk)
        if len(out) == 1 and not self.stopped:
            return out[0]
        return out

    def _take(self, chunk: Any) -> list[Any]:
        out = self.reader.feed(chunk)
        if self.reader.over:
            self.stopped = True
        return out

    def close(self) -> list[Any]:
        self.stopped = True
        return self.reader.close()


def raw_items(reader: RawReader, first: Any, chunks: Any) -> Any:
    """A :class:`RawItems` over ``reader``: the compiled one when the core is, else the twin."""
    if _backend.raw_c is not None and reader.lane is _backend.raw_c.SSELane:
        return _backend.raw_c.RawItems(reader, first, chunks)
    return RawItems(reader, first, chunks)

