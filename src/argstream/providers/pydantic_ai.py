"""pydantic-ai agent stream events to argstream events.

Input: the events of ``agent.run_stream_events()``, of an ``event_stream_handler``, or of
``node.stream(ctx)`` for a model request node in ``agent.iter()``: ``PartStartEvent``,
``PartDeltaEvent``, ``PartEndEvent`` and the events around them. Nothing of pydantic-ai is
imported; events are read by their ``event_kind`` and parts by their ``part_kind``.

Per model response (pydantic-ai numbers its parts from 0 in each response):

- ``PartStartEvent(ToolCallPart)`` → ``ToolCallStart(tool_call_id, tool_name)``, then its
  ``args`` (text as is; a dict as compact JSON) as an ``ArgumentChunk``;
  ``PartDeltaEvent(ToolCallPartDelta)``: ``args_delta`` → ``ArgumentChunk`` (a dict delta as
  compact JSON), and a ``ToolCallStart`` again when it brings the id or name first;
- ``TextPart`` / ``TextPartDelta`` → ``Part(i, Message)``; ``ThinkingPart`` /
  ``ThinkingPartDelta`` → ``Part(i, Reasoning)``, a ``signature`` in the part metadata;
- ``PartEndEvent`` is not an end: pydantic-ai ends a part when the next one starts, even while a
  parallel call's arguments are still streaming (Chat Completions interleaves them), and later
  deltas still arrive for it. Every part flushes when its response ends, in order of first sight.

Built-in (provider-run) tool calls and returns, files and other parts produce nothing: their
``PartDeltaEvent`` are skipped too.

pydantic-ai streams no finish event: a response ends at the first event that is not about its
parts (``FunctionToolCallEvent``, ``OutputToolCallEvent``, ``DeferredToolRequestsEvent``,
``AgentRunResultEvent``, ...; ``FinalResultEvent`` comes mid-response and is not an end) or when
the stream ends without an exception. It then flushes the response's parts and gives
``Finished(TOOL_USE)`` when it held a tool call (output tools included), else
``Finished(COMPLETED)``: pydantic-ai raises on errors and dropped connections, so an ending that
did not raise is a complete response (the provider's ``finish_reason`` is on pydantic-ai's
``ModelResponse``, not in the events). When the stream raises, the driver gives
``Finished(ERROR)`` first and nothing open is flushed. A stream with no part at all (an event
stream handler's call for a tool-calling node) ends with one ``Finished(COMPLETED)``.

The events after a response (tool calls being run, their results, the run's result) are ignored:
argstream reports the calls the model streamed, the framework runs them. The next
``PartStartEvent`` starts the next response, with its own ``Finished``.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
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
from .._backend import PydanticAIFast
from ._common import Adapter, ProviderProtocolError, Slots, adrive, drive, get, json_text

__all__ = ["PydanticAIAdapter", "adapter", "ato_events", "to_events"]

_TEXT, _THINKING, _TOOL, _OTHER = range(4)
_PART_KINDS = {"text": _TEXT, "thinking": _THINKING, "tool-call": _TOOL}
_DELTA_KINDS = {"text": _TEXT, "thinking": _THINKING, "tool_call": _TOOL}


class _Part:
    __slots__ = ("kind", "id", "name")

    def __init__(self, kind: int) -> None:
        self.kind = kind
        self.id = ""
        self.name = ""


class PydanticAIAdapter(PydanticAIFast, Adapter):
    """pydantic-ai agent stream events in, argstream events out (see the module doc)."""

    def __init__(self) -> None:
        self._slots = Slots()
        self._parts: dict[int, _Part] = {}  # open parts by pydantic-ai's index
        self._open = False  # a response has parts and no Finished yet
        self._finished = False  # a Finished was given for the last response
        self._tool_calls = False

    # ``chunk(item)``, the test for the dominant event, comes from ``PydanticAIFast`` (``_fastpath``,
    # compiled with the core): ``(index, args_delta)`` of a ``PartDeltaEvent`` whose
    # ``ToolCallPartDelta`` only continues a started call's arguments.

    def feed(self, item: Any) -> list[Event]:
        kind = get(item, "event_kind")
        if kind == "part_delta":
            return self._delta(_position(item), get(item, "delta"))
        if kind == "part_start":
            return self._start(_position(item), get(item, "part"))
        if kind == "part_end" or kind == "final_result" or not self._open:
            return []
        return self._finish()

    def end(self) -> list[Event]:
        if self._open or not self._finished:
            return self._finish()
        return []

    def _start(self, position: int, part: Any) -> list[Event]:
        if not self._open:
            self._slots.reset()
            self._parts.clear()
            self._tool_calls = False
            self._open = True
        if position in self._parts:
            raise ProviderProtocolError(f"a second PartStartEvent for part {position}, still open")
        state = self._parts[position] = _Part(_PART_KINDS.get(get(part, "part_kind"), _OTHER))
        index = self._slots(position)
        if state.kind == _TEXT:
            text = _text(get(part, "content", ""), "TextPart.content")
            return [Part(index, Message(text))] if text else []
        if state.kind == _THINKING:
            return self._thinking(index, get(part, "content", ""), get(part, "signature"))
        if state.kind == _TOOL:
            self._tool_calls = True
            out: list[Event] = []
            self._identify(index, state, get(part, "tool_call_id", ""), get(part, "tool_name", ""), out)
            self._args(index, get(part, "args"), out)
            return out
        return []

    def _delta(self, position: int, delta: Any) -> list[Event]:
        state = self._parts.get(position)
        if state is None:
            return []  # no start: no id or name to run, nothing to attach text to
        kind = _DELTA_KINDS.get(get(delta, "part_delta_kind"), _OTHER)
        if state.kind == _OTHER or kind == _OTHER:
            return []
        if kind != state.kind:
            raise ProviderProtocolError(f"a {get(delta, 'part_delta_kind')} delta for part {position} of another kind")
        index = self._slots(position)
        if kind == _TEXT:
            text = _text(get(delta, "content_delta", ""), "TextPartDelta.content_delta")
            return [Part(index, Message(text))] if text else []
        if kind == _THINKING:
            return self._thinking(index, get(delta, "content_delta", ""), get(delta, "signature_delta"))
        out: list[Event] = []
        name = get(delta, "tool_name_delta", "")
        self._identify(index, state, get(delta, "tool_call_id", ""), name, out)
        self._args(index, get(delta, "args_delta"), out)
        return out

    def _thinking(self, index: int, text: Any, signature: Any) -> list[Event]:
        text = _text(text, "ThinkingPart.content")
        out: list[Event] = [Part(index, Reasoning(text))] if text else []
        if signature:
            out.append(Part(index, Reasoning(""), {"signature": _text(signature, "signature")}))
        return out

    def _identify(self, index: int, state: _Part, call_id: Any, name: Any, out: list[Event]) -> None:
        call_id = _text(call_id, "tool_call_id")
        name = _text(name, "tool_name")
        if (call_id and not state.id) or (name and not state.name):
            state.id = state.id or call_id
            state.name = state.name or name
            out.append(Part(index, ToolCall(ToolCallStart(state.id, state.name))))

    def _args(self, index: int, args: Any, out: list[Event]) -> None:
        if not args:
            return
        if isinstance(args, dict):
            args = json_text(args)
        elif type(args) is not str:
            raise ProviderProtocolError(f"tool call args must be text or an object, got {type(args).__name__}")
        out.append(Part(index, ToolCall(ArgumentChunk(args))))

    def _finish(self) -> list[Event]:
        out: list[Event] = [Flush(self._slots(p)) for p, s in self._parts.items() if s.kind != _OTHER]
        self._parts.clear()
        out.append(Finished(FinishReason.TOOL_USE if self._tool_calls else FinishReason.COMPLETED))
        self._open = False
        self._finished = True
        return out


def _position(item: Any) -> int:
    index = get(item, "index")
    if type(index) is not int:
        raise ProviderProtocolError(f"a part event needs an integer index, got {type(index).__name__}")
    return index


def _text(value: Any, name: str) -> str:
    if type(value) is not str and not isinstance(value, str):
        raise ProviderProtocolError(f"{name} must be a string, got {type(value).__name__}")
    return value


def adapter() -> PydanticAIAdapter:
    """A new adapter for one stream (what :func:`to_events` drives), for a fused consumer."""
    return PydanticAIAdapter()


def to_events(stream: Iterable[Any]) -> Iterator[Event]:
    """Events from a pydantic-ai event stream (see the module doc).

    Raises whatever the stream raises (after ``Finished(ERROR)``): the model provider's error,
    ``UnexpectedModelBehavior``, a dropped connection.
    """
    return drive(PydanticAIAdapter(), stream)


def ato_events(stream: AsyncIterable[Any] | Iterable[Any]) -> AsyncIterator[Event]:
    """Async twin of :func:`to_events` (pydantic-ai's streams are async)."""
    return adrive(PydanticAIAdapter(), stream)
