"""Anthropic Messages streaming (``messages.create(stream=True)``) to argstream events.

Input: the SDK's raw stream events (``RawMessageStartEvent`` ...; the derived events that
``messages.stream()`` adds, such as ``text`` and ``input_json``, are skipped) or the decoded
wire dicts. Event indexes are the content block indexes.

- ``text`` block, ``text_delta`` → ``Part(i, Message)`` (``Structured`` with ``structured=True``);
  its citations go to the flush metadata (``"citations"``);
- ``thinking`` block, ``thinking_delta`` → ``Part(i, Reasoning)``; ``signature_delta`` →
  ``Part(i, Reasoning(""), {"signature": ...})``; a ``redacted_thinking`` block →
  ``Part(i, Reasoning(""), {"redacted_thinking": data})``;
- ``tool_use`` / ``server_tool_use`` / ``mcp_tool_use`` block →
  ``Part(i, ToolCall(ToolCallStart(id, name)), {"block_type": ..., "caller": ...})``;
  ``input_json_delta`` → ``Part(i, ToolCall(ArgumentChunk(partial_json)))`` (the empty first
  one is skipped); an input given whole, with no deltas → one ``ArgumentChunk`` of its compact
  JSON at the block's stop;
- ``content_block_stop`` → ``Flush(i)``; content blocks inside ``message_start`` (later
  responses of programmatic tool calling) → each as if streamed: start, whole input, stop;
- ``message_stop`` → ``Finished(reason, {"stop_reason", "usage"})``, after flushing any block
  the server left open; ``error`` → ``Finished(ERROR, {"error": ...})``, nothing flushed.

Tool result blocks (``web_search_tool_result`` ...) and ``ping`` produce nothing. Reasons:
``end_turn`` and ``stop_sequence`` are ``COMPLETED`` (``TOOL_USE`` when the message holds client
``tool_use`` blocks), ``tool_use`` is ``TOOL_USE``, ``max_tokens`` and
``model_context_window_exceeded`` are ``MAX_TOKENS``, ``refusal`` is ``REFUSAL``, ``pause_turn``
is ``PAUSED``. A stream may hold several messages back to back: each ends with its own
``Finished``.

Broken sequences (docs/providers.md): a second ``message_start`` with the open message's id is
the same message, repeated (ignored); one with another id while a message is open is a spliced
stream, and so is a second ``content_block_start`` on a block still open: both raise
:class:`~argstream.providers.ProviderProtocolError` after ``Finished(ERROR)``, nothing of the
open blocks flushed. A delta of another kind than its block is malformed likewise; a delta for a
block that never started is dropped (it has no id or name to run). Items between a
``message_stop`` and the next ``message_start`` are dropped: the message is over.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from typing import Any

from .._backend import AnthropicBlock, AnthropicFast
from ..events import (
    Event,
    FinishReason,
    Message,
    Part,
    Reasoning,
    Structured,
)
from ._common import (
    Adapter,
    ProviderProtocolError,
    adrive,
    call_arguments,
    call_start,
    drive,
    finish_reason,
    finished,
    flush,
    get,
    get_list,
    plain,
    text_field,
)

__all__ = ["AnthropicAdapter", "STOP_REASONS", "adapter", "ato_events", "to_events"]

STOP_REASONS: dict[str, FinishReason] = {
    "end_turn": FinishReason.COMPLETED,
    "stop_sequence": FinishReason.COMPLETED,
    "tool_use": FinishReason.TOOL_USE,
    "max_tokens": FinishReason.MAX_TOKENS,
    "model_context_window_exceeded": FinishReason.MAX_TOKENS,
    "refusal": FinishReason.REFUSAL,
    "pause_turn": FinishReason.PAUSED,
}

_TEXT, _THINKING, _TOOL, _OTHER = range(4)
_DELTA_KINDS = {"text_delta": _TEXT, "citations_delta": _TEXT, "thinking_delta": _THINKING,
                "signature_delta": _THINKING, "input_json_delta": _TOOL}


class AnthropicAdapter(AnthropicFast, Adapter):
    """Messages stream events in, argstream events out (see the module doc).

    ``chunk(item, text=None)``, the test for the dominant event, comes from ``AnthropicFast``
    (``_fastpath``, compiled with the core): ``(index, partial_json)`` of a non-empty
    ``input_json_delta`` for an open tool block, marked streamed, else ``None`` and nothing changed.
    """

    TEXT_PATH = ("delta", "partial_json")
    MESSAGE_PATH = ("delta", "text")
    REASONING_PATHS = (("delta", "thinking"),)

    def __init__(self, *, structured: bool = False) -> None:
        self._text = Structured if structured else Message
        self._plain_text = not structured  # text deltas may take the fast test (``text_chunk``)
        self._blocks: dict[Any, AnthropicBlock] = {}
        self._open = False  # a message started and has not finished
        self._done = False  # a message stopped and no other has started
        self._message_id: str | None = None
        self._client_tools = False
        self._stop_reason: str | None = None
        self._usage: Any = None

    def feed(self, item: Any) -> list[Event]:
        kind = text_field(item, "type")
        if kind == "message_start":
            return self._message_start(get(item, "message"))
        if self._done:
            return []  # the message is over: nothing but a new message_start counts
        if kind == "content_block_delta":
            return self._delta(item)
        if kind == "content_block_start":
            self._open = True
            return self._start(_index(item), get(item, "content_block"))
        if kind == "content_block_stop":
            return self._stop(_index(item))
        if kind == "message_delta":
            delta = get(item, "delta")
            self._stop_reason = get(delta, "stop_reason", self._stop_reason)
            self._usage = get(item, "usage", self._usage)
            return []
        if kind == "message_stop":
            return self._message_stop()
        if kind == "error":
            return self._finish([], FinishReason.ERROR, {"error": plain(get(item, "error", {}))})
        return []  # ping, and the derived events of the SDK's MessageStream

    def _message_start(self, message: Any) -> list[Event]:
        message_id = get(message, "id")
        if self._open:
            if message_id and message_id == self._message_id:
                return []  # the open message, announced again
            raise ProviderProtocolError(
                f"message {message_id!r} started while message {self._message_id!r} is open (a spliced stream)")
        out: list[Event] = []
        self._open = True
        self._done = False
        self._message_id = message_id
        self._stop_reason = get(message, "stop_reason")
        self._usage = get(message, "usage")
        for index, block in enumerate(get_list(message, "content")):
            out += self._start(index, block)
            out += self._stop(index)
        return out

    def _start(self, index: int, block: Any) -> list[Event]:
        if index in self._blocks:
            raise ProviderProtocolError(f"a second content_block_start for block {index}, still open")
        btype = text_field(block, "type")
        if btype == "text":
            self._blocks[index] = AnthropicBlock(_TEXT)
            text = get(block, "text")
            citations = get_list(block, "citations")
            if citations:
                self._blocks[index].citations.extend(plain(citations))
            return [Part(index, self._text(text))] if text else []
        if btype == "thinking":
            self._blocks[index] = AnthropicBlock(_THINKING)
            out: list[Event] = []
            thinking = get(block, "thinking")
            if thinking:
                out.append(Part(index, Reasoning(thinking)))
            signature = get(block, "signature")
            if signature:
                out.append(Part(index, Reasoning(""), {"signature": signature}))
            return out
        if btype == "redacted_thinking":
            self._blocks[index] = AnthropicBlock(_THINKING)
            return [Part(index, Reasoning(""), {"redacted_thinking": get(block, "data", "")})]
        if btype.endswith("tool_use") and get(block, "name") is not None:
            state = self._blocks[index] = AnthropicBlock(_TOOL)
            if btype == "tool_use":
                self._client_tools = True
            metadata: dict[str, Any] = {"block_type": btype}
            caller = get(block, "caller")
            if caller is not None:
                metadata["caller"] = plain(caller)
            server_name = get(block, "server_name")
            if server_name is not None:
                metadata["server_name"] = server_name
            state.whole_input = get(block, "input")
            return [call_start(index, get(block, "id", ""), get(block, "name", ""), metadata)]
        self._blocks[index] = AnthropicBlock(_OTHER)
        return []  # tool results and other blocks without streamed content

    def _delta(self, item: Any) -> list[Event]:
        index = _index(item)
        delta = get(item, "delta")
        dtype = text_field(delta, "type")
        kind = _DELTA_KINDS.get(dtype)
        if kind is None:
            return []  # a delta type added after this adapter
        block = self._blocks.get(index)
        if block is None:
            if kind == _TOOL:
                return []  # no block start: no id or name to run
            block = self._blocks[index] = AnthropicBlock(kind)  # text from a server that skipped the start
        elif block.kind == _OTHER:
            return []  # a tool result's placeholder deltas are not content
        elif block.kind != kind:
            raise ProviderProtocolError(f"a {dtype} for block {index}, which is not a {dtype[:-6]} block")
        if dtype == "input_json_delta":
            text = text_field(delta, "partial_json")
            if not text:
                return []
            block.streamed = True
            return [call_arguments(index, text)]
        if dtype == "text_delta":
            text = text_field(delta, "text")
            return [Part(index, self._text(text))] if text else []
        if dtype == "thinking_delta":
            text = text_field(delta, "thinking")
            return [Part(index, Reasoning(text))] if text else []
        if dtype == "signature_delta":
            return [Part(index, Reasoning(""), {"signature": text_field(delta, "signature")})]
        block.citations.append(plain(get(delta, "citation")))
        return []

    def _stop(self, index: int) -> list[Event]:
        block = self._blocks.pop(index, None)
        if block is None or block.kind == _OTHER:
            return []
        out: list[Event] = []
        if block.kind == _TOOL and not block.streamed and block.whole_input:
            out.append(self.whole_arguments(index, block.whole_input))
        out.append(flush(index, {"citations": block.citations} if block.citations else {}))
        return out

    def _message_stop(self) -> list[Event]:
        out: list[Event] = []
        for index in list(self._blocks):  # blocks the server never stopped: the message says it is over
            out += self._stop(index)
        mapped = STOP_REASONS.get(self._stop_reason) if self._stop_reason else None
        metadata: dict[str, Any] = {}
        if self._stop_reason:
            metadata["stop_reason"] = self._stop_reason
        if self._usage is not None:
            metadata["usage"] = plain(self._usage)
        return self._finish(out, finish_reason(mapped, self._client_tools), metadata)

    def _finish(self, out: list[Event], reason: FinishReason, metadata: dict[str, Any]) -> list[Event]:
        out.append(finished(reason, metadata))
        self._blocks.clear()
        self._open = False
        self._done = True
        self._client_tools = False
        self._stop_reason = None
        self._usage = None
        return out


def _index(item: Any) -> int:
    """A content block event's ``index``, which must be an integer."""
    index = get(item, "index")
    if type(index) is not int:
        raise ProviderProtocolError(f"a content block event needs an integer index, got {type(index).__name__}")
    return index


def adapter(*, structured: bool = False) -> AnthropicAdapter:
    """A new adapter for one stream (what :func:`to_events` drives), for a fused consumer."""
    return AnthropicAdapter(structured=structured)


def to_events(stream: Iterable[Any], *, structured: bool = False) -> Iterator[Event]:
    """Events from a Messages stream (SDK stream or decoded wire dicts).

    ``structured=True``: the text is structured output (JSON, as with ``output_format``): it
    streams as ``Structured`` parts, parsed as it arrives, and flushes as ``ChatStructured``.

    Raises whatever the stream raises (after ``Finished(ERROR)``): ``APIStatusError`` for an
    error event, ``httpx.RemoteProtocolError`` for a dropped connection.
    """
    return drive(AnthropicAdapter(structured=structured), stream)


def ato_events(stream: AsyncIterable[Any] | Iterable[Any], *, structured: bool = False) -> AsyncIterator[Event]:
    """Async twin of :func:`to_events`."""
    return adrive(AnthropicAdapter(structured=structured), stream)
