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

from ..events import Event, Finished, FinishReason, Message, Reasoning
from ._common import (
    WholeCallAdapter, WholeCalls, _walkable, adrive, call_arguments, call_start, drive, finish_reason, finished,
    flush, get, get_list, text_part,
)

__all__ = ["OllamaAdapter", "to_events", "ato_events"]

_REASONS = {"stop": None, "load": FinishReason.COMPLETED, "unload": FinishReason.COMPLETED,
            "length": FinishReason.MAX_TOKENS}
_USAGE = ("prompt_eval_count", "eval_count", "total_duration", "load_duration", "prompt_eval_duration", "eval_duration")


class OllamaAdapter(WholeCallAdapter):
    """State for one Ollama chat stream (see the module doc)."""

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

    def text_chunk(self, item: Any, text: str | None = None) -> tuple[int, str, bool] | None:
        """``(index, text, reasoning)`` of a line whose message holds only content or only thinking
        (``reasoning``) that continues the open text run or opens the first (no run open), with no
        error, no call and no ``done``; else ``None`` and nothing changed. A hit does what ``feed`` does
        with such a line: the first ``created_at`` kept, the run opened. Never raises: a malformed line
        is the general way's."""
        run = self._text
        message = item.get("message") if type(item) is dict else None
        try:
            if type(message) is dict:  # a wire line: what the reads below find, with dict lookups
                if item.get("error") is not None or item.get("done"):
                    return None
                thinking = message.get("thinking")
                content = message.get("content")
                thinking = "" if thinking is None else thinking
                content = "" if content is None else content
                if message.get("tool_calls"):
                    return None
                created = item.get("created_at") if self._created is None else None
            else:
                if get(item, "error") is not None or get(item, "done"):
                    return None
                message = get(item, "message")
                thinking = get(message, "thinking", "")
                content = get(message, "content", "")
                if get_list(message, "tool_calls"):
                    return None
                created = get(item, "created_at") if self._created is None else None
        except Exception:  # noqa: BLE001 - the general way raises what it finds
            return None
        if thinking and content:
            return None
        got, cls = (thinking, Reasoning) if thinking else (content, Message)
        if type(got) is not str or not got or (run is not None and run[1] is not cls):
            return None
        if self._created is None:
            self._created = created
        if run is None:
            run = self._text = (self._index(), cls)
        self._held = None
        self._empty = False
        return run[0], got if text is None else text, cls is Reasoning

    def call_chunk(self, item: Any) -> WholeCalls | None:
        """The whole calls of a line (a wire dict) whose message holds tool calls, each a name and an
        ``arguments`` object, and no text, with ``done`` or not, for the fused pipeline
        (``whole_values``); else ``None`` and nothing changed. A hit does to this adapter what ``feed``
        does with such a line and says what its events would be (``WholeCalls``). Never raises:
        anything else is the general way's."""
        if type(item) is not dict or not self.whole_values or item.get("error") is not None:
            return None
        message = item.get("message")
        if type(message) is not dict or message.get("thinking") or message.get("content"):
            return None
        entries = message.get("tool_calls")
        if entries is None:
            return self._done_line(item)
        if type(entries) is not list or not entries:
            return None
        found = []
        for entry in entries:
            function = entry.get("function") if type(entry) is dict else None
            if type(function) is not dict:
                return None
            name, args, call_id = function.get("name"), function.get("arguments"), entry.get("id")
            if ((name is not None and type(name) is not str) or (call_id is not None and type(call_id) is not str)
                    or type(args) is not dict or not _walkable(args)):
                return None
            found.append((name or "", args, call_id))
        done = item.get("done")
        done_reason = item.get("done_reason") if done else None
        if done_reason is not None and type(done_reason) is not str:
            return None
        self._held = None
        if self._created is None:
            self._created = item.get("created_at")
        closed, calls = self._take_calls(found, self._created or "ollama")
        end = None
        if done:
            end = self._finished(item, done_reason)
            self._empty = True
        else:
            self._empty = False
        return closed, calls, end

    def _done_line(self, item: dict[str, Any]) -> WholeCalls | None:
        """``call_chunk``'s answer for a line whose message holds nothing (no text, no calls): when it
        is the response's last (``done: true``, a ``done_reason`` that is no load response's), what
        ``feed`` does with it, as ``(closed text run, [], Finished)``; else ``None``, nothing changed."""
        done_reason = item.get("done_reason")
        if item.get("done") is not True or type(done_reason) is not str or done_reason in ("load", "unload"):
            return None
        self._held = None
        if self._created is None:
            self._created = item.get("created_at")
        closed = self._text[0] if self._text is not None else None
        self._text = None
        end = self._finished(item, done_reason)
        self._empty = True
        return closed, [], end

    def _finished(self, item: Any, done_reason: Any) -> Finished:
        """The ``Finished`` of a line with ``done`` (the response's calls forgotten)."""
        reason = _REASONS.get(done_reason, FinishReason.ERROR) if done_reason is not None else None
        meta: dict[str, Any] = {"stop_reason": done_reason}
        if type(item) is dict:
            usage = {k: value for k in _USAGE if (value := item.get(k)) is not None}
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
