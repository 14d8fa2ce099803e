"""The loops that run an encoder over the items: to chunk dicts, or straight to SSE frames.

:func:`~argstream.ui.ai_sdk_chunks` and :func:`~argstream.ui.ag_ui_events` return an
:class:`Encoded` (:class:`AsyncEncoded` for the async twins): iterating it iterates the chunk
dicts, and the SSE framers, given one not yet started, write the frames of the same chunks
without building the dicts of an argument delta (:meth:`frames`). Either way the bytes are the
same (``tests/test_ui_framing.py``).

An encoder here has ``start()``, ``encode(item)``, ``progress(item)`` (``encode`` of a
:class:`~argstream.events.ToolCallArgumentProgress`, its common case first), ``progress_frames(item)``
(the SSE bytes of those chunks), ``error(text)`` and ``finish()``.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator
from typing import Any

from ..events import ToolCallArgumentProgress
from ._jsontext import frame

__all__ = ["AsyncEncoded", "Encoded"]

log = logging.getLogger("argstream.ui")

Progress = ToolCallArgumentProgress


class Encoded:
    """The chunks of ``items``, in order (an iterator), that :mod:`argstream.ui.sse` frames directly."""

    __slots__ = ("encoder", "_items", "_on_error", "_chunks")

    def __init__(self, encoder: Any, items: Iterable[Any], on_error: Callable[[BaseException], str]) -> None:
        self.encoder = encoder
        self._items = items
        self._on_error = on_error
        self._chunks: Iterator[dict[str, Any]] | None = None

    def __iter__(self) -> Iterator[dict[str, Any]]:
        if self._chunks is None:
            self._chunks = _chunks(self.encoder, self._items, self._on_error)
        return self._chunks

    def __next__(self) -> dict[str, Any]:
        return next(self.__iter__())

    def close(self) -> None:
        if self._chunks is not None and hasattr(self._chunks, "close"):
            self._chunks.close()

    def frames(self, end: bytes | None) -> Iterator[bytes]:
        """The SSE frames of the chunks (then ``end``); the chunks left, if some were already read."""
        if self._chunks is not None:
            return _frame_each(self._chunks, end)
        self._chunks = iter(())  # the frames read the items: nothing is left to iterate
        return _frames(self.encoder, self._items, self._on_error, end)


class AsyncEncoded:
    """The async twin of :class:`Encoded`: ``items`` may be async or plain iterable."""

    __slots__ = ("encoder", "_items", "_on_error", "_chunks")

    def __init__(self, encoder: Any, items: Any, on_error: Callable[[BaseException], str]) -> None:
        self.encoder = encoder
        self._items = items
        self._on_error = on_error
        self._chunks: AsyncIterator[dict[str, Any]] | None = None

    def __aiter__(self) -> AsyncIterator[dict[str, Any]]:
        if self._chunks is None:
            if hasattr(self._items, "__aiter__"):
                self._chunks = _achunks(self.encoder, self._items, self._on_error)
            else:  # plain items: the sync loop, read without an await per item
                self._chunks = _aover(_chunks(self.encoder, self._items, self._on_error))
        return self._chunks

    async def __anext__(self) -> dict[str, Any]:
        return await self.__aiter__().__anext__()

    async def aclose(self) -> None:
        if self._chunks is not None and hasattr(self._chunks, "aclose"):
            await self._chunks.aclose()

    def frames(self, end: bytes | None) -> AsyncIterator[bytes]:
        """The SSE frames of the chunks (then ``end``); the chunks left, if some were already read."""
        if self._chunks is not None:
            return _aframe_each(self._chunks, end)
        self._chunks = _aover(iter(()))
        if hasattr(self._items, "__aiter__"):
            return _aframes(self.encoder, self._items, self._on_error, end)
        return _aover(_frames(self.encoder, self._items, self._on_error, end))


def _chunks(encoder: Any, items: Iterable[Any], on_error: Callable[[BaseException], str]) -> Iterator[dict[str, Any]]:
    yield from encoder.start()
    encode = encoder.encode
    progress = encoder.progress
    encoding = False  # an error while encoding is the caller's bug: it is raised, not reported
    try:
        for item in items:
            encoding = True
            for chunk in progress(item) if type(item) is Progress else encode(item):
                yield chunk
            encoding = False
    except Exception as exc:
        if encoding:
            raise
        log.exception("the item stream raised")
        yield from encoder.error(on_error(exc))
    yield from encoder.finish()


def _frames(encoder: Any, items: Iterable[Any], on_error: Callable[[BaseException], str],
            end: bytes | None) -> Iterator[bytes]:
    for chunk in encoder.start():
        yield frame(chunk)
    encode = encoder.encode
    progress_frames = encoder.progress_frames
    encoding = False
    try:
        for item in items:
            encoding = True
            if type(item) is Progress:
                data = progress_frames(item)
                if data:
                    yield data
            else:
                for chunk in encode(item):
                    yield frame(chunk)
            encoding = False
    except Exception as exc:
        if encoding:
            raise
        log.exception("the item stream raised")
        for chunk in encoder.error(on_error(exc)):
            yield frame(chunk)
    for chunk in encoder.finish():
        yield frame(chunk)
    if end is not None:
        yield end


def _frame_each(chunks: Iterable[dict[str, Any]], end: bytes | None) -> Iterator[bytes]:
    for chunk in chunks:
        yield frame(chunk)
    if end is not None:
        yield end


async def _achunks(encoder: Any, items: AsyncIterable[Any],
                   on_error: Callable[[BaseException], str]) -> AsyncIterator[dict[str, Any]]:
    for chunk in encoder.start():
        yield chunk
    encode = encoder.encode
    progress = encoder.progress
    encoding = False
    try:
        async for item in items:
            encoding = True
            for chunk in progress(item) if type(item) is Progress else encode(item):
                yield chunk
            encoding = False
    except Exception as exc:
        if encoding:
            raise
        log.exception("the item stream raised")
        for chunk in encoder.error(on_error(exc)):
            yield chunk
    for chunk in encoder.finish():
        yield chunk


async def _aframes(encoder: Any, items: AsyncIterable[Any], on_error: Callable[[BaseException], str],
                   end: bytes | None) -> AsyncIterator[bytes]:
    for chunk in encoder.start():
        yield frame(chunk)
    encode = encoder.encode
    progress_frames = encoder.progress_frames
    encoding = False
    try:
        async for item in items:
            encoding = True
            if type(item) is Progress:
                data = progress_frames(item)
                if data:
                    yield data
            else:
                for chunk in encode(item):
                    yield frame(chunk)
            encoding = False
    except Exception as exc:
        if encoding:
            raise
        log.exception("the item stream raised")
        for chunk in encoder.error(on_error(exc)):
            yield frame(chunk)
    for chunk in encoder.finish():
        yield frame(chunk)
    if end is not None:
        yield end


async def _aframe_each(chunks: AsyncIterator[dict[str, Any]], end: bytes | None) -> AsyncIterator[bytes]:
    async for chunk in chunks:
        yield frame(chunk)
    if end is not None:
        yield end


async def _aover(iterator: Iterator[Any]) -> AsyncIterator[Any]:
    for value in iterator:
        yield value
