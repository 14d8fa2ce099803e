"""Server-Sent Events framing for the encoders' dicts, and the headers each protocol's client expects.

Each dict becomes one ``data: <json>\\n\\n`` event. The JSON is ASCII-only (``ensure_ascii``): a
lone surrogate in model text, which UTF-8 cannot encode, travels as its ``\\udXXX`` escape, and
U+2028 / U+2029 never reach a parser raw. The AI SDK stream ends with ``data: [DONE]``. Given the
encoders' own output, the framers let the encoder write the frames (an argument string's piece: its
two events as one write); the bytes are those of framing each dict.

With Starlette or FastAPI::

    return StreamingResponse(ai_sdk_sse(aai_sdk_chunks(items)), headers=AI_SDK_HEADERS)
    return StreamingResponse(ag_ui_sse(aag_ui_events(items)), headers=AG_UI_HEADERS)

(``StreamingResponse`` takes the media type from the ``content-type`` header.)
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from typing import Any

from ._drive import AsyncEncoded, Encoded
from ._jsontext import frame

__all__ = ["AG_UI_HEADERS", "AI_SDK_HEADERS", "DONE", "ag_ui_sse", "ai_sdk_sse", "sse_event"]

AI_SDK_HEADERS = {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    "connection": "keep-alive",
    "x-vercel-ai-ui-message-stream": "v1",
    "x-accel-buffering": "no",  # nginx and other proxies: send each event as it is written
}
AG_UI_HEADERS = {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    "connection": "keep-alive",
    "x-accel-buffering": "no",
}
DONE = b"data: [DONE]\n\n"


def sse_event(data: Any) -> bytes:
    """One SSE event holding ``data`` (a tree of JSON values: no cycles) as JSON.

    Raises:
        ValueError: ``data`` holds a non-finite float (the encoders never put one in).
        RecursionError: ``data`` holds itself (the cycle check is left out: the encoders' chunks are trees).
    """
    return frame(data)


def ai_sdk_sse(chunks: Iterable[dict[str, Any]] | AsyncIterable[dict[str, Any]]) -> Any:
    """SSE bytes of AI SDK UI chunks, ended by ``data: [DONE]``; async when ``chunks`` is.

    The chunks of :func:`~argstream.ui.ai_sdk_chunks` (not yet read) are framed by their encoder,
    which writes an argument delta's frames from precomputed text: the same bytes, at a fraction of the cost.
    """
    return _framed(chunks, DONE)


def ag_ui_sse(events: Iterable[dict[str, Any]] | AsyncIterable[dict[str, Any]]) -> Any:
    """SSE bytes of AG-UI events (``ag_ui.encoder.EventEncoder``'s framing); async when ``events`` is."""
    return _framed(events, None)


def _framed(items: Any, end: bytes | None) -> Any:
    if type(items) is Encoded or type(items) is AsyncEncoded:
        return items.frames(end)
    if isinstance(items, AsyncIterable):
        return _aframe(items, end)
    return _frame_sync(items, end)


def _frame_sync(items: Iterable[dict[str, Any]], end: bytes | None) -> Iterator[bytes]:
    for item in items:
        yield frame(item)
    if end is not None:
        yield end


async def _aframe(items: AsyncIterable[dict[str, Any]], end: bytes | None) -> AsyncIterator[bytes]:
    async for item in items:
        yield frame(item)
    if end is not None:
        yield end
