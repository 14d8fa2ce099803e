"""Ollama ``/api/chat`` streams (NDJSON) as typed events.

Input: the ``ollama`` SDK's ``ChatResponse`` objects (``Client.chat(stream=True)``) or the
decoded NDJSON lines. ``message.thinking`` becomes ``Reasoning`` parts and ``message.content``
``Message`` parts; a run of one kind shares an index, flushed when the other kind or a tool call
starts, or the response ends. Each entry of ``message.tool_calls`` arrives whole: it gets its own
index, ``ToolCallStart``, its ``arguments`` object serialised once (compact ``json.dumps``) as one
``ArgumentChunk`` (a string holding JSON text, as some servers send, is passed on as it is), and
``Flush``. The fused pipeline takes the decoded object itself (``Adapter.whole_arguments``).

Tool call ids: the server's ``id`` when the line has one (the SDK drops it), else a deterministic
``"<created_at>-call-<n>"`` from the stream's first ``created_at`` (``n`` counts the stream's calls
from 0; ``"ollama-call-<n>"`` without a timestamp), with ``{"id_generated": True}`` in the
``Flush`` metadata; Ollama matches tool results by name and order.

The line with ``done: true`` ends the response: ``done_reason`` ``stop`` → ``TOOL_USE`` when it
made tool calls, else ``COMPLETED``; ``length`` → ``MAX_TOKENS``; ``load`` / ``unload`` (a
request that only (un)loaded the model) → ``COMPLETED``; anything else → ``ERROR``. An empty
``load`` / ``unload`` response followed by more lines is not a response of its own: its
``Finished`` is held back and dropped when the answer follows (as LangChain skips it), so a
stream of a load and then the answer has one ``Finished``; it is kept when nothing follows.
``Finished.metadata`` holds ``stop_reason`` (``done_reason``) and ``usage`` (the line's token
counts and durations). An ``{"error": ...}`` line gives
``Finished(ERROR)`` with the message in ``metadata["error"]``; the SDK raises ``ResponseError``
for that line instead, which the driver re-raises after ``Finished(ERROR)``.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from typing import Any

from .._backend import OllamaFast, present
from ..events import Event, Finished, FinishReason, Message, Reasoning
from ._common import (
    ERROR, WholeCallAdapter, adrive, call_arguments, call_start, drive, finish_reason, finished, flush, get, get_list,
    text_part,
)

__all__ = ["OllamaAdapter", "to_events", "ato_events"]

_REASONS = {"stop": None, "load": FinishReason.COMPLETED, "unload": FinishReason.COMPLETED,
            "length": FinishReason.MAX_TOKENS}
_USAGE = ("prompt_eval_count", "eval_count", "total_duration", "load_duration", "prompt_eval_duration", "eval_duration")


class OllamaAdapter(OllamaFast, WholeCallAdapter):
    """State for one Ollama chat stream (see the module doc).

    The fused pipeline's tests for a text line (``text_chunk``, which reads a ``ChatResponse`` with
    ``_text_read``) and for a line of whole calls or the last line (``call_chunk``, which ends a
    response with ``_finished``) come from ``OllamaFast`` (``_fastpath``, compiled with the core).
    """

    def __init__(self) -> None:
        super().__init__()
        self._created: str | None = None  # the first created_at (for generated ids)
        self._empty = True  # the current response has produced no part yet
        self._held: Finished | None = None  # the Finished of an empty load response, until more arrives

    def _run(self, cls: type, text: str, out: list[Event]) -> None:
        if not text:
            return
        if self._text is None or self._text[1] is not cls:
            self._close_text(out)
            self._text = (self._index(), cls)
        out.append(text_part(self._text[0], cls, text))

    def feed(self, item: Any) -> list[Event]:
        """Translate one NDJSON line (or ``ChatResponse``)."""
        out: list[Event] = []
        self._held = None  # more arrived: an empty load response before it was no response
        error = get(item, "error")
        if error is not None:
            self._response_calls = False
            self._text = None  # cut off: never flushed
            return [Finished(FinishReason.ERROR, {"stop_reason": "error", "error": error})]
        if self._created is None:
            self._created = get(item, "created_at")
        message = get(item, "message")
        self._run(Reasoning, get(message, "thinking", ""), out)
        self._run(Message, get(message, "content", ""), out)
        for call in get_list(message, "tool_calls"):
            self._close_text(out)
            self._tool_call(call, out)
        if get(item, "done"):
            self._close_text(out)
            done_reason = get(item, "done_reason")
            end = self._finished(item, done_reason)
            if done_reason in ("load", "unload") and self._empty and not out:
                self._held = end
            else:
                out.append(end)
            self._empty = True
        elif out:
            self._empty = False
        return out

    def _text_read(self, item: Any) -> tuple[Any, Any, Any] | None:
        """``OllamaFast.text_chunk``'s read of a line that is no wire dict (a ``ChatResponse``): its
        thinking, content and (while none is kept) ``created_at``, or ``None`` for a line with an error,
        ``done`` or tool calls."""
        if get(item, "error") is not None or get(item, "done"):
            return None
        message = get(item, "message")
        if get_list(message, "tool_calls"):
            return None
        created = get(item, "created_at") if self._created is None else None
        return get(message, "thinking", ""), get(message, "content", ""), created

    def _finished(self, item: Any, done_reason: Any) -> Finished:
        """The ``Finished`` of a line with ``done`` (the response's calls forgotten)."""
        reason = _REASONS.get(done_reason, ERROR) if done_reason is not None else None
        meta: dict[str, Any] = {"stop_reason": done_reason}
        if type(item) is dict:
            usage = present(item, _USAGE)
        else:
            usage = {k: value for k in _USAGE if (value := get(item, k)) is not None}
        if usage:
            meta["usage"] = usage
        end = finished(finish_reason(reason, self._response_calls), meta)
        self._response_calls = False
        return end

    def end(self) -> list[Event]:
        """A load response that nothing followed is the whole stream: its ``Finished``."""
        return [self._held] if self._held is not None else []

    def _tool_call(self, call: Any, out: list[Event]) -> None:
        function = get(call, "function")
        index = self._index()
        call_id = get(call, "id")
        meta: dict[str, Any] = {}
        if not call_id:
            call_id = f"{self._created or 'ollama'}-call-{self._calls}"
            meta["id_generated"] = True
        self._calls += 1
        self._response_calls = True
        out.append(call_start(index, call_id, get(function, "name", "")))
        arguments = get(function, "arguments")
        if isinstance(arguments, str):
            if arguments:
                out.append(call_arguments(index, arguments))
        elif arguments is not None:
            out.append(self.whole_arguments(index, arguments))
        out.append(flush(index, meta))


def adapter() -> OllamaAdapter:
    """A new adapter for one stream (what :func:`to_events` drives), for a fused consumer."""
    return OllamaAdapter()


def to_events(stream: Iterable[Any]) -> Iterator[Event]:
    """Events from an Ollama chat stream: SDK ``ChatResponse`` objects or decoded NDJSON dicts.

    Raises:
        whatever iterating ``stream`` raises (``ollama.ResponseError``, ``httpx`` errors), after
        yielding ``Finished(ERROR)``.
    """
    return drive(OllamaAdapter(), stream)


def ato_events(stream: AsyncIterable[Any]) -> AsyncIterator[Event]:
    """Async twin of :func:`to_events` (``ollama.AsyncClient().chat(stream=True)``)."""
    return adrive(OllamaAdapter(), stream)
