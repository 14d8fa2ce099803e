"""LangChain chat model streams (``model.stream()`` / ``astream()``) to argstream events.

Input, from any chat model (``ChatOpenAI``, with or without ``use_responses_api``,
``ChatAnthropic``, ``ChatOllama``, ...), in any of the shapes LangChain streams them:

- ``AIMessageChunk`` objects, as ``model.stream()`` yields them;
- ``(AIMessageChunk, metadata)`` pairs (LangGraph ``stream_mode="messages"``); pairs holding
  other messages (tool results) produce nothing;
- ``astream_events()`` dicts: ``on_chat_model_stream`` gives its ``data["chunk"]``; other events
  produce nothing;
- ``ChatGenerationChunk`` (what a callback's ``on_llm_new_token(chunk=...)`` receives): its ``message``.

Nothing of LangChain is imported. Per chunk:

- ``tool_call_chunks[]`` → ``ToolCallStart(id, name)`` whenever an entry brings an id or name
  not seen yet for its call, then ``ArgumentChunk(args)``. Calls are keyed by the entry's
  ``index``; an entry bringing a new non-empty id on a known index starts a new call there (the
  previous one is flushed at once); an entry without ``index`` continues the previous call unless
  it brings a new id. This is the argument text as the provider streamed it: LangChain's own
  partial-JSON parse (``tool_calls``) is not read.
- ``content`` text (a string, or ``text`` blocks) → ``Part(i, Message)``, one index per text
  block; ``thinking`` blocks (Anthropic), ``reasoning`` blocks (their ``reasoning`` text or
  ``summary[].text``) and ``additional_kwargs["reasoning_content"]`` (Ollama, DeepSeek, Groq)
  → ``Part(j, Reasoning)``. Tool blocks in ``content`` (``tool_use``, ``input_json_delta``,
  ``function_call``) are skipped: ``tool_call_chunks`` carries the same calls.

LangChain surfaces no block ends, so every index flushes when its response ends (a call whose
index is reused by another id flushes then). The end of a response is the chunk whose
``response_metadata`` holds the provider's finish: ``finish_reason`` (Chat Completions, Gemini,
Mistral, Groq), ``stop_reason`` (Anthropic), ``done_reason`` (Ollama) or ``status`` (Responses).
It gives ``Finished(reason, {"stop_reason", "usage"})`` with the uniform reasons
(``TOOL_USE`` when the response holds tool calls, ``MAX_TOKENS`` for any length cut-off,
``REFUSAL`` for content filters, ``ERROR`` for a failed response).

``chunk_position="last"`` is not an end: langchain-core appends that chunk whenever the model's
generator returns, whether or not the provider sent its end. A stream that ends without a finish
reason is therefore cut off: ``Finished(ERROR)`` from the driver, its calls never flushed (they
are ``StreamFinished.incomplete``). Models that never send a finish reason (test fakes, some
community integrations) can pass ``finish_on_last=True`` to end on that chunk instead, as
``COMPLETED`` (``TOOL_USE`` with calls).

After ``Finished``, a chunk with content or tool call chunks starts a new response (an agent's
next model call); chunks without either (usage, the ``last`` marker) produce nothing.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator, Mapping
from typing import Any

from ..events import (
    ArgumentChunk,
    Event,
    Finished,
    FinishReason,
    Flush,
    Message,
    Part,
    Reasoning,
    ToolCall,
    ToolCallStart,
)
from .._backend import LangChainFast
from ._common import Adapter, ProviderProtocolError, Slots, adrive, drive, fields, finish_reason, get, plain

__all__ = ["FINISH_REASONS", "LangChainAdapter", "adapter", "ato_events", "message_chunk", "to_events"]

FINISH_REASONS: dict[str, FinishReason] = {
    "stop": FinishReason.COMPLETED,
    "end_turn": FinishReason.COMPLETED,
    "stop_sequence": FinishReason.COMPLETED,
    "eos": FinishReason.COMPLETED,
    "completed": FinishReason.COMPLETED,
    "tool_calls": FinishReason.TOOL_USE,
    "tool_use": FinishReason.TOOL_USE,
    "function_call": FinishReason.TOOL_USE,
    "length": FinishReason.MAX_TOKENS,
    "max_tokens": FinishReason.MAX_TOKENS,
    "model_context_window_exceeded": FinishReason.MAX_TOKENS,
    "incomplete": FinishReason.MAX_TOKENS,
    "content_filter": FinishReason.REFUSAL,
    "refusal": FinishReason.REFUSAL,
    "safety": FinishReason.REFUSAL,
    "recitation": FinishReason.REFUSAL,
    "prohibited_content": FinishReason.REFUSAL,
    "blocklist": FinishReason.REFUSAL,
    "error": FinishReason.ERROR,
    "failed": FinishReason.ERROR,
    "cancelled": FinishReason.CANCELLED,
    "pause_turn": FinishReason.PAUSED,
}
"""Provider finish values (lower-cased) to the uniform reasons; anything else counts as ``COMPLETED``."""

_FINISH_KEYS = ("finish_reason", "stop_reason", "done_reason")
_TOOL_BLOCKS = frozenset(("tool_use", "server_tool_use", "input_json_delta", "function_call", "tool_call_chunk",
                          "tool_call", "invalid_tool_call"))


def message_chunk(item: Any) -> Any:
    """The ``AIMessageChunk`` an item carries (see the module doc), or ``None`` when it carries none."""
    if type(item) is tuple or type(item) is list:
        if len(item) != 2:
            raise ProviderProtocolError(f"expected a (message, metadata) pair, got {len(item)} items")
        item = item[0]
    elif type(item) is dict:
        if item.get("event") != "on_chat_model_stream":
            return None
        item = get(get(item, "data"), "chunk")
        if item is None:
            raise ProviderProtocolError("an on_chat_model_stream event without data.chunk")
    kind = get(item, "type")
    if kind == "ChatGenerationChunk":
        item = get(item, "message")
        kind = get(item, "type")
    if kind not in ("AIMessageChunk", "ai"):
        return None  # a tool message, a human message: nothing the model streamed
    return item


class _Call:
    __slots__ = ("id", "name")

    def __init__(self) -> None:
        self.id = ""
        self.name = ""


class LangChainAdapter(LangChainFast, Adapter):
    """LangChain message chunks in, argstream events out (see the module doc)."""

    def __init__(self, *, finish_on_last: bool = False) -> None:
        self._finish_on_last = finish_on_last
        self._slots = Slots()
        self._open: list[int] = []  # indexes to flush at the response's end, in order of first sight
        self._calls: dict[Any, _Call] = {}
        self._current: dict[int, Any] = {}  # tool_call_chunks[].index -> key of the call streaming there
        self._last_call: Any = None
        self._auto = 0
        self._tool_calls = False
        self._finished = False

    # ``chunk(item)``, the test for the dominant item, comes from ``LangChainFast`` (``_fastpath``,
    # compiled with the core): ``(index, args)`` of an ``AIMessageChunk`` whose only payload is one
    # ``tool_call_chunks`` entry continuing a known call, with no finish in its metadata.

    def _finishes(self, metadata: Any) -> bool:
        """A non-empty ``response_metadata`` ends the response (``chunk`` declines the item)."""
        return _finish_of(metadata) is not None

    def _reasons(self, extra: Any) -> bool:
        """A non-empty ``additional_kwargs`` carries reasoning (``chunk`` declines the item)."""
        return bool(get(extra, "reasoning_content"))

    def feed(self, item: Any) -> list[Event]:
        chunk = message_chunk(item)
        if chunk is None:
            return []
        f = fields(chunk)
        content = f.get("content")
        entries = f.get("tool_call_chunks")
        extra = f.get("additional_kwargs")
        reasoning = get(extra, "reasoning_content") if extra else None
        if self._finished:
            if not (content or entries or reasoning):
                return []
            self._reset()
        out: list[Event] = []
        if reasoning:
            out.append(Part(self._slot(("reasoning",)), Reasoning(_text(reasoning, "reasoning_content"))))
        if content:
            self._content(content, out)
        if entries:
            if not isinstance(entries, list):
                raise ProviderProtocolError(f"tool_call_chunks must be a list, got {type(entries).__name__}")
            for entry in entries:
                self._entry(entry, out)
        metadata = f.get("response_metadata")
        raw = _finish_of(metadata) if metadata else None
        if raw is not None:
            self._finish(out, raw, FINISH_REASONS.get(raw.lower()), f.get("usage_metadata"))
        elif self._finish_on_last and f.get("chunk_position") == "last":
            self._finish(out, None, None, f.get("usage_metadata"))
        return out

    def _slot(self, key: Any) -> int:
        if key not in self._slots:
            self._open.append(self._slots(key))
        return self._slots(key)

    def _content(self, content: Any, out: list[Event]) -> None:
        if type(content) is str:
            out.append(Part(self._slot(("text", None)), Message(content)))
            return
        if not isinstance(content, list):
            raise ProviderProtocolError(f"content must be a string or a list, got {type(content).__name__}")
        for block in content:
            if type(block) is str:
                if block:
                    out.append(Part(self._slot(("text", None)), Message(block)))
                continue
            kind = get(block, "type")
            if kind in _TOOL_BLOCKS:
                continue
            position = get(block, "index")
            if kind == "text":
                text = _text(get(block, "text", ""), "text")
                if text:
                    out.append(Part(self._slot(("text", position)), Message(text)))
            elif kind == "thinking":
                text = _text(get(block, "thinking", ""), "thinking")
                if text:
                    out.append(Part(self._slot(("reasoning", position)), Reasoning(text)))
            elif kind == "reasoning":
                text = get(block, "reasoning")
                if text is None:
                    text = "".join(_text(get(s, "text", ""), "summary[].text") for s in get(block, "summary", ()))
                text = _text(text, "reasoning")
                if text:
                    out.append(Part(self._slot(("reasoning", position)), Reasoning(text)))

    def _entry(self, entry: Any, out: list[Event]) -> None:
        if not isinstance(entry, Mapping):
            raise ProviderProtocolError(f"a tool call chunk must be a mapping, got {type(entry).__name__}")
        call_id = _text(entry.get("id") or "", "tool_call_chunks[].id")
        position = entry.get("index")
        if position is not None:
            if type(position) is not int:
                raise ProviderProtocolError(f"tool_call_chunks[].index must be an integer, got {type(position).__name__}")
            key = self._current.get(position)
            if key is None:
                key = self._current[position] = ("tool", position, 0)
            elif call_id and self._calls[key].id and call_id != self._calls[key].id:
                index = self._slots(key)
                out.append(Flush(index))  # a new call on a reused index: the previous one is over
                self._open.remove(index)
                key = self._current[position] = ("tool", position, key[2] + 1)
        else:
            key = self._last_call
            if key is None or (call_id and call_id != self._calls[key].id):
                key = ("auto", self._auto)
                self._auto += 1
        self._last_call = key
        index = self._slot(key)
        call = self._calls.get(key)
        if call is None:
            call = self._calls[key] = _Call()
            self._tool_calls = True
        name = _text(entry.get("name") or "", "tool_call_chunks[].name")
        if (call_id and not call.id) or (name and not call.name):
            call.id = call.id or call_id
            call.name = call.name or name
            out.append(Part(index, ToolCall(ToolCallStart(call.id, call.name))))
        args = entry.get("args")
        if args:
            out.append(Part(index, ToolCall(ArgumentChunk(_text(args, "tool_call_chunks[].args")))))

    def _finish(self, out: list[Event], raw: str | None, mapped: FinishReason | None, usage: Any) -> None:
        out.extend(Flush(index) for index in self._open)
        self._open.clear()
        metadata: dict[str, Any] = {}
        if raw is not None:
            metadata["stop_reason"] = raw
        if usage:
            metadata["usage"] = plain(usage)
        out.append(Finished(finish_reason(mapped, self._tool_calls), metadata))
        self._finished = True

    def _reset(self) -> None:
        self._slots.reset()
        self._open.clear()
        self._calls.clear()
        self._current.clear()
        self._last_call = None
        self._auto = 0
        self._tool_calls = False
        self._finished = False


def _finish_of(metadata: Any) -> str | None:
    """The provider's finish value in ``response_metadata``, if this chunk ends the response."""
    for key in _FINISH_KEYS:
        value = get(metadata, key)
        if value is not None:
            return _text(value, key)
    if get(metadata, "object") == "response":  # Responses: the terminal event's status
        status = get(metadata, "status")
        if status in ("completed", "failed", "cancelled"):
            return status
        if status == "incomplete":
            reason = get(get(metadata, "incomplete_details"), "reason")
            return "content_filter" if reason == "content_filter" else "incomplete"
    return None


def _text(value: Any, name: str) -> str:
    if type(value) is not str and not isinstance(value, str):
        raise ProviderProtocolError(f"{name} must be a string, got {type(value).__name__}")
    return value


def adapter(*, finish_on_last: bool = False) -> LangChainAdapter:
    """A new adapter for one stream (what :func:`to_events` drives), for a fused consumer."""
    return LangChainAdapter(finish_on_last=finish_on_last)


def to_events(stream: Iterable[Any], *, finish_on_last: bool = False) -> Iterator[Event]:
    """Events from a LangChain chat model stream (see the module doc).

    Raises whatever the stream raises (after ``Finished(ERROR)``): the provider SDK's error for a
    dropped connection or an error event.
    """
    return drive(LangChainAdapter(finish_on_last=finish_on_last), stream)


def ato_events(stream: AsyncIterable[Any] | Iterable[Any], *, finish_on_last: bool = False) -> AsyncIterator[Event]:
    """Async twin of :func:`to_events`."""
    return adrive(LangChainAdapter(finish_on_last=finish_on_last), stream)
