"""Machinery shared by the provider adapters (no SDK imported here, or anywhere in argstream's core).

Field access
    :func:`get` and :func:`get_list` read a field from a decoded wire dict or from an SDK object
    alike (pydantic fields, then ``model_extra``, where servers' non-standard fields such as
    ``reasoning_content`` land; other objects by attribute). :func:`fields` gives all of an
    object's fields as one mapping, for hot paths that read several. :func:`plain` turns an SDK
    object into plain dicts and lists (for metadata), and :func:`json_text` serialises a
    whole-object argument value. :func:`call_start`, :func:`call_arguments` and :func:`flush` make a
    tool call's events without the dataclasses' ``__init__``, for adapters that send a call whole.

Adapters
    An adapter is one stream's state machine: subclass :class:`Adapter`, implement ``feed(item)``
    (one wire item in, a list of events out) and, when the end of input means something,
    ``end()``. It emits ``Finished`` itself when the provider's final event arrives, once per
    response (a recording may hold several responses back to back).

Drivers
    :func:`drive` / :func:`adrive` run an adapter over a sync / async stream and keep the stream
    contract of API.md §5: the last event is always a ``Finished``, and each response has exactly
    one. When the input ends and the last event is not a ``Finished`` (a stream cut before its
    final event, or an empty one), they add ``Finished(ERROR)``; when iterating the input raises
    (the SDK's exception for an error event or a dropped connection), they yield
    ``Finished(ERROR)`` unless the response had already finished, then re-raise the exception
    unchanged. Unflushed parts are never flushed for the adapter, so a tool call cut off
    mid-argument is never reported as complete.

    A ``Finished(ERROR)`` ends the stream: the drivers yield nothing after it and read no further
    item, so no call can turn up runnable after a response failed. A wire item that breaks its
    format (a field of the wrong type, an impossible sequence) is reported as
    :class:`ProviderProtocolError`, raised after ``Finished(ERROR, {"error": ...})``; every other
    exception an adapter might raise on hostile input is converted to it too.

:class:`Slots` hands out stable event indexes for provider keys, and :func:`finish_reason`
applies the uniform reason rules.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterable, AsyncIterator, Callable, Hashable, Iterable, Iterator, Mapping
from json.encoder import encode_basestring as _encode_string
from typing import Any, Union

from .. import _backend
from ..events import (
    ArgumentChunk, Event, Finished, FinishReason, Flush, Message, Part, Reasoning, Structured, ToolCall, ToolCallStart,
    WholeArguments,
)

__all__ = [
    "Adapter", "ProviderProtocolError", "Slots", "WholeCallAdapter", "WholeCalls", "adrive", "call_arguments",
    "call_start", "drive", "fields", "finish_reason", "finished", "flush", "get", "get_list", "json_text", "plain",
    "text_field", "text_part", "whole_part",
]

_MISSING = object()

#: An adapter's ``call_chunk(item)`` answer for a wire item that holds only tool calls sent whole:
#: ``(closed, calls, finish)``, the events ``feed`` would give without them: the index of the text run
#: the item closes (its ``Flush``, or ``None``), each call as ``(index, call_id, name, arguments,
#: flush_metadata)`` (its ``ToolCallStart``, ``WholeArguments`` and ``Flush``), then the response's
#: ``Finished`` (or ``None``).
WholeCalls = tuple[Union[int, None], list[tuple[int, str, str, Any, dict[str, Any]]], Union[Finished, None]]

# Events made without the dataclasses' ``__init__`` (``_records``; ``_check`` still reads every event an
# adapter returns): a whole-argument call (Gemini, Ollama) makes its three, and its response's text and
# finish, per call.
_part = _backend.record(Part)
_tool_call = _backend.record(ToolCall)
_start = _backend.record(ToolCallStart)
_chunk = _backend.record(ArgumentChunk)
_whole = _backend.record(WholeArguments)
_walkable = _backend.walkable
_flush = _backend.record(Flush)
_finished = _backend.record(Finished)
_text_kinds: dict[type, Any] = {Message: _backend.record(Message), Reasoning: _backend.record(Reasoning)}


def call_start(index: int, call_id: str, name: str, metadata: dict[str, Any] | None = None) -> Part:
    """``Part(index, ToolCall(ToolCallStart(call_id, name)), metadata or {})``."""
    return _part(index, _tool_call(_start(call_id, name)), {} if metadata is None else metadata)


def call_arguments(index: int, text: str) -> Part:
    """``Part(index, ToolCall(ArgumentChunk(text)))``."""
    return _part(index, _tool_call(_chunk(text)), {})


def whole_part(index: int, value: Any) -> Part:
    """``Part(index, ToolCall(WholeArguments(value)))``: arguments sent whole, as their decoded value."""
    return _part(index, _tool_call(_whole(value)), {})


def flush(index: int, metadata: dict[str, Any] | None = None) -> Flush:
    """``Flush(index, metadata or {})``."""
    return _flush(index, {} if metadata is None else metadata)


def text_part(index: int, kind: type, text: str, metadata: dict[str, Any] | None = None) -> Part:
    """``Part(index, kind(text), metadata or {})`` for ``kind`` ``Message`` or ``Reasoning``."""
    return _part(index, _text_kinds[kind](text), {} if metadata is None else metadata)


#: ``finished(reason, metadata)``: ``Finished(reason, metadata)``, the maker itself (no frame of its own at
#: every response's end)
finished: Callable[[FinishReason, dict[str, Any]], Finished] = _finished


class ProviderProtocolError(ValueError):
    """A wire item that breaks its provider's format: a field of the wrong type, or an impossible sequence.

    ``msg`` says what is wrong; ``event`` is the 0-based position of the offending item in the
    stream (``None`` when raised outside a driver). Raised by the drivers after
    ``Finished(ERROR)``; a ``ValueError``, like ``json.JSONDecodeError``.
    """

    def __init__(self, msg: str, event: int | None = None) -> None:
        self.msg = msg
        self.event = event
        super().__init__(msg if event is None else f"{msg} (wire item {event})")

    def at(self, event: int) -> ProviderProtocolError:
        """This error with its position set (kept when already known)."""
        return self if self.event is not None else ProviderProtocolError(self.msg, event)


_SCALARS = (str, bytes, bytearray, int, float, list, tuple)


def get(obj: Any, name: str, default: Any = None) -> Any:
    """Field ``name`` of a mapping or an object; ``default`` when it is absent or ``None`` (the wire's ``null``).

    Pydantic (SDK) objects are read from their fields and ``model_extra`` without attribute
    lookups (a missing attribute costs pydantic an exception); other objects by attribute.
    """
    if type(obj) is dict:
        value = obj.get(name)
    elif obj is None:
        return default
    elif isinstance(obj, _SCALARS):
        raise ProviderProtocolError(f"expected an object holding {name!r}, got {type(obj).__name__}")
    else:
        own = getattr(obj, "__dict__", None)
        value = _MISSING if own is None else own.get(name, _MISSING)
        if value is _MISSING:
            extra = getattr(obj, "__pydantic_extra__", None)
            if extra is not None:
                value = extra.get(name)
            elif hasattr(type(obj), "__pydantic_fields__"):
                value = None
            elif isinstance(obj, Mapping):
                value = obj.get(name)
            else:
                value = getattr(obj, name, None)
    return default if value is None else value


class _Attributes(Mapping):
    """A read-only mapping over an object's attributes."""

    __slots__ = ("_obj",)

    def __init__(self, obj: Any) -> None:
        self._obj = obj

    def __getitem__(self, name: str) -> Any:
        try:
            return getattr(self._obj, name)
        except AttributeError:
            raise KeyError(name) from None

    def __iter__(self) -> Iterator[str]:
        return (n for n in dir(self._obj) if not n.startswith("_"))

    def __len__(self) -> int:
        return sum(1 for _ in self)


_NO_FIELDS: Mapping[str, Any] = {}


def fields(obj: Any) -> Mapping[str, Any]:
    """All of ``obj``'s fields as one read-only mapping (values may be ``None``): a dict as it is,
    a pydantic object's fields and ``model_extra``, other objects' attributes."""
    if type(obj) is dict:
        return obj
    if obj is None:
        return _NO_FIELDS
    if isinstance(obj, _SCALARS):
        raise ProviderProtocolError(f"expected an object, got {type(obj).__name__}")
    own = getattr(obj, "__dict__", None)
    if own is not None and hasattr(type(obj), "__pydantic_fields__"):
        extra = getattr(obj, "__pydantic_extra__", None)
        return {**own, **extra, **own} if extra else own  # a field of its own wins, as ``get`` has it
    if isinstance(obj, Mapping):
        return obj
    return _Attributes(obj)


def get_list(obj: Any, name: str) -> list[Any] | tuple[()]:
    """Field ``name`` as a list; an empty tuple when it is absent or ``None``.

    Raises:
        ProviderProtocolError: the field holds something other than a list.
    """
    value = get(obj, name)
    if not value:
        return ()
    if type(value) is not list and not isinstance(value, (list, tuple)):
        raise ProviderProtocolError(f"{name!r} must be a list, got {type(value).__name__}")
    return value


def text_field(obj: Any, name: str) -> str:
    """Field ``name`` as text; ``""`` when it is absent or ``None``.

    Raises:
        ProviderProtocolError: the field holds something other than a string.
    """
    value = get(obj, name, "")
    if type(value) is not str and not isinstance(value, str):
        raise ProviderProtocolError(f"{name!r} must be a string, got {type(value).__name__}")
    return value


def plain(obj: Any) -> Any:
    """``obj`` as plain JSON-like data: SDK (pydantic) objects dumped, containers copied recursively."""
    kind = type(obj)
    if kind is str or kind is int or kind is float or kind is bool or obj is None:
        return obj
    if kind is dict:
        return {k: plain(v) for k, v in obj.items()}
    if isinstance(obj, Mapping):
        return {k: plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [plain(v) for v in obj]
    dump = getattr(obj, "model_dump", None)
    if dump is not None:
        return dump(mode="json", exclude_none=True)
    return obj


_compact = _backend.encode_c.compact if _backend.encode_c is not None else None


def json_text(value: Any) -> str:
    """Compact JSON text for an argument object a provider sent whole (non-ASCII kept as is).

    A value of plain types is written by the compiled ``_encode.compact`` (the same text, without
    ``json``'s character-at-a-time writer); anything else, and every value on the pure twin, by
    ``json.dumps`` of its ``plain`` copy.
    """
    if _compact is not None:
        text = _compact(value)
        if text is not None:
            return text
    return json.dumps(plain(value), ensure_ascii=False, separators=(",", ":"))


def json_string_body(text: str) -> str:
    """``text`` as the inside of a JSON string literal (quotes stripped), for streaming a string piecewise:
    what ``json.dumps(text, ensure_ascii=False)`` writes, from its string encoder, without the encoder
    object ``dumps`` builds on every call with that option."""
    return _encode_string(text)[1:-1]


#: the reasons every stream's finish reads, as names of this module: on Python 3.11 a member read from
#: its class (``FinishReason.ERROR``) goes through ``EnumType.__getattr__``'s hook, about 1K instructions
COMPLETED, TOOL_USE, ERROR = FinishReason.COMPLETED, FinishReason.TOOL_USE, FinishReason.ERROR


def finish_reason(reason: FinishReason | None, client_tool_calls: bool) -> FinishReason:
    """The uniform reason: ``TOOL_USE`` whenever a response that ended normally holds client tool calls.

    ``reason`` is the provider's mapped reason, ``None`` when it sent none (then the response
    counts as ``COMPLETED``). Cut-offs, refusals and errors keep their own reason.
    """
    if reason is None or reason is COMPLETED:
        return TOOL_USE if client_tool_calls else COMPLETED
    return reason


class Slots:
    """Stable event indexes for provider keys: the first key seen gets ``0``, the next ``1``, and so on."""

    __slots__ = ("_map",)

    def __init__(self) -> None:
        self._map: dict[Hashable, int] = {}

    def __call__(self, key: Hashable) -> int:
        """The index for ``key``, allocated on first sight."""
        index = self._map.get(key)
        if index is None:
            index = self._map[key] = len(self._map)
        return index

    def __contains__(self, key: Hashable) -> bool:
        return key in self._map

    def get(self, key: Hashable) -> int | None:
        """The index already given to ``key``, or ``None`` (nothing allocated)."""
        return self._map.get(key)

    def __len__(self) -> int:
        return len(self._map)

    def reset(self) -> None:
        """Forget every key (a new response starts)."""
        self._map.clear()


class Adapter:
    """One stream's state: wire items (SDK objects or decoded dicts) in, events out.

    An adapter with a ``chunk(item, text=None)`` fast test names where its dominant event holds the
    argument text (``TEXT_PATH``) and the top-level fields that test never reads (``FREE_FIELDS``),
    so that raw input can read those events by template (``providers.templates``); one with a
    ``text_chunk(item, text=None)`` test for a message or reasoning text delta names where that text
    is (``MESSAGE_PATH``; ``REASONING_PATHS``, the first that holds it), for the same.

    An adapter whose provider sends tool calls whole may have a ``call_chunk(item)`` test too: a wire
    item that holds only such calls (a text run closed before them, a finish after them), answered as
    :data:`WholeCalls`, whose items the fused pipeline makes without the events.
    """

    TEXT_PATH: tuple[str | int, ...] | None = None
    MESSAGE_PATH: tuple[str | int, ...] | None = None
    REASONING_PATHS: tuple[tuple[str | int, ...], ...] = ()
    FREE_FIELDS: tuple[str, ...] = ()
    #: set by the fused pipeline (``stream.pipeline_for``), the one reader of this adapter's events: an
    #: argument object sent whole may then be handed on as the value (:meth:`whole_arguments`)
    whole_values: bool = False

    def whole_arguments(self, index: int, value: Any) -> Part:
        """The part for arguments a provider sent whole, decoded: ``ArgumentChunk`` of their compact JSON
        text, or for the fused pipeline, when the value allows, ``WholeArguments(value)`` (the call reads
        the value's fragments from the value: no text written and parsed back)."""
        if self.whole_values and _walkable(value):
            return whole_part(index, value)
        return call_arguments(index, json_text(value))

    def feed(self, item: Any) -> list[Event]:
        """Translate one wire item into events (possibly none)."""
        raise NotImplementedError

    def end(self) -> list[Event]:
        """The input ended without an exception; return any last events. The default has none.

        The driver adds ``Finished(ERROR)`` when the stream still lacks its ``Finished``.
        """
        return []


class WholeCallAdapter(Adapter):
    """An adapter whose provider sends each tool call whole (Gemini, Ollama): its indexes, its open text
    run, and the calls it has numbered, shared by ``feed`` and the ``call_chunk`` test."""

    def __init__(self) -> None:
        self._next_index = 0
        self._text: tuple[int, type] | None = None  # (index, Message | Reasoning) of the open text run
        self._calls = 0  # calls in the stream (for generated ids)
        self._response_calls = False  # the current response made tool calls

    def _index(self) -> int:
        index = self._next_index
        self._next_index += 1
        return index

    def _close_text(self, out: list[Event]) -> None:
        if self._text is not None:
            out.append(flush(self._text[0]))
            self._text = None

    def _take_calls(self, found: list[tuple[str, Any, Any]], prefix: str) -> tuple[int | None, list[Any]]:
        """What ``feed`` does to this adapter for whole calls ``(name, arguments, id)`` that follow
        nothing else in a wire item: the text run closed (its index, or ``None``), and each call
        numbered, as ``WholeCalls`` has them (an id generated as ``<prefix>-call-<n>`` where none came)."""
        closed = self._text[0] if self._text is not None else None
        self._text = None
        calls = []
        for name, arguments, call_id in found:
            meta: dict[str, Any] = {}
            if not call_id:
                call_id = f"{prefix}-call-{self._calls}"
                meta["id_generated"] = True
            self._calls += 1
            calls.append((self._index(), call_id, name, arguments, meta))
        self._response_calls = True
        return closed, calls


class _Run:
    """What :func:`drive` and :func:`adrive` share: an adapter's events, checked, up to the first error."""

    __slots__ = ("adapter", "count", "finished", "over", "error", "_ids", "_open_ids")

    def __init__(self, adapter: Adapter) -> None:
        self.adapter = adapter
        self._ids: set[str] = set()  # tool call ids of this response
        self._open_ids: dict[int, str] = {}  # index -> id of the call open there
        self.count = 0  # wire items fed so far
        self.finished = False  # the last event passed on is a Finished
        self.over = False  # a Finished(ERROR) was passed on: the stream is over
        self.error: ProviderProtocolError | None = None

    def feed(self, item: Any, position: int | None = None) -> list[Event]:
        """The events for one wire item; a failure in the adapter raises :class:`ProviderProtocolError`.

        ``position`` is the item's place in the stream when the caller counts the items itself (a
        fused pipeline that hands some items to the adapter's fast path)."""
        if position is None:
            position = self.count
        self.count = position + 1
        try:
            events = self.adapter.feed(item)
            if type(events) is list and not events:
                return []  # (most wire items that are not argument deltas: nothing to check or pass on)
            for event in events:
                _check(event)
        except Exception as exc:
            raise self._error(exc, position)
        return self._passed(events, position)

    def calls(self, hit: WholeCalls, position: int) -> list[Event]:
        """What :meth:`feed` does with the events of an adapter's ``call_chunk`` answer at ``position``,
        without the events: the calls' ids checked (a repeated one raises here, as there) and
        tracked; the answer's ``Finished`` in a list when it goes on."""
        closed, calls, end = hit
        self.count = position + 1
        if closed is not None:
            self.finished = False
        for index, call_id, _, _, _ in calls:
            self._call_id(index, call_id, position)
            self.finished = False
            self._open_ids.pop(index, None)
        return self._passed((end,), position) if end is not None else []

    def end(self) -> list[Event]:
        """The adapter's last events, then ``Finished(ERROR)`` if the stream still lacks its ``Finished``."""
        try:
            events = self.adapter.end()
            for event in events:
                _check(event)
        except Exception as exc:
            raise self._error(exc, self.count)
        out = self._passed(events, self.count) if events else []
        if not self.finished and not self.over:
            out.append(Finished(FinishReason.ERROR))
            self.finished = True
        return out

    def _error(self, exc: Exception, position: int) -> ProviderProtocolError:
        """The documented error for what the adapter raised at ``position`` (kept as ``error``), to raise
        with its cause set as ``raise ... from`` would: the adapter's own ``ProviderProtocolError`` placed
        there (its cause kept), or any other exception (hostile input) wrapped in one (the cause)."""
        if isinstance(exc, ProviderProtocolError):
            error, cause = exc.at(position), exc.__cause__
        else:
            error, cause = ProviderProtocolError(f"malformed wire item: {type(exc).__name__}: {exc}", position), exc
        error.__cause__ = cause  # (also sets __suppress_context__)
        self.error = error
        return error

    def _passed(self, events: Any, position: int) -> list[Event]:
        """The checked ``events`` that go on (a second ``Finished`` of a response does not), tracking ids."""
        out: list[Event] = []
        for event in events:
            kind = type(event)
            if kind is Finished and self.finished:
                continue  # a response that has finished, finishing again: exactly one Finished each
            if kind is Part and type(event.part) is ToolCall and type(event.part.part) is ToolCallStart:
                self._call_id(event.index, event.part.part.id, position)
            elif kind is Flush:
                self._open_ids.pop(event.index, None)
            out.append(event)
            self.finished = kind is Finished
            if self.finished:
                self._ids.clear()
                self._open_ids.clear()
                if event.reason is ERROR:
                    self.over = True
                    break
        return out

    def _call_id(self, index: int, call_id: str, position: int) -> None:
        """Two calls of one response may not share an id: their results could not be told apart."""
        if not call_id or self._open_ids.get(index) == call_id:
            return
        if call_id in self._ids:
            self.error = ProviderProtocolError(f"two tool calls of one response have the id {call_id!r}", position)
            raise self.error
        self._ids.add(call_id)
        self._open_ids[index] = call_id

    def failed(self) -> list[Event]:
        """``Finished(ERROR)`` for an exception, unless the response already finished."""
        if self.finished:
            return []
        self.finished = True
        metadata: dict[str, Any] = {}
        if self.error is not None:
            metadata["error"] = {"type": "protocol_error", "message": str(self.error)}
        return [Finished(FinishReason.ERROR, metadata)]


def _check(event: Any) -> None:
    """Raise :class:`ProviderProtocolError` unless ``event`` carries text where text belongs."""
    kind = type(event)
    if kind is Finished:
        return
    if (kind is not Part and kind is not Flush) or type(event.index) is not int:
        raise ProviderProtocolError(f"not an event: {event!r}")
    if kind is Flush:
        return
    part = event.part
    if type(part) is ToolCall:
        inner = part.part
        if isinstance(inner, ToolCallStart):
            if type(inner.id) is not str or type(inner.name) is not str:
                raise ProviderProtocolError(f"a tool call's id and name must be strings: {inner!r}")
            return
        if type(inner) is WholeArguments:
            return  # made by ``Adapter.whole_arguments`` for a value it checked
        value = inner.text
    else:
        value = part.chunk if type(part) is Structured else part.text
    if type(value) is not str:
        raise ProviderProtocolError(f"text must be a string, got {type(value).__name__}")


def drive(adapter: Adapter, stream: Iterable[Any]) -> Iterator[Event]:
    """Run ``adapter`` over ``stream`` (see the module doc).

    Raises:
        ProviderProtocolError: a wire item breaks its format (after ``Finished(ERROR)``).
        whatever iterating ``stream`` raises, unchanged, after yielding ``Finished(ERROR)`` (unless
        the response had already finished).
    """
    run = _Run(adapter)
    try:
        for item in stream:
            yield from run.feed(item)
            if run.over:
                return
        yield from run.end()
    except Exception:
        yield from run.failed()
        raise


async def adrive(adapter: Adapter, stream: AsyncIterable[Any] | Iterable[Any]) -> AsyncIterator[Event]:
    """Async twin of :func:`drive`; ``stream`` may be an async iterable or a plain iterable."""
    run = _Run(adapter)
    items = stream if hasattr(stream, "__aiter__") else _as_async(stream)
    try:
        async for item in items:
            for event in run.feed(item):
                yield event
            if run.over:
                return
        for event in run.end():
            yield event
    except Exception:
        for event in run.failed():
            yield event
        raise


async def _as_async(stream: Iterable[Any]) -> AsyncIterator[Any]:
    for item in stream:
        yield item
