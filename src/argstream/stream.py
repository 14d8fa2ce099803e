"""One loop for the common case: a provider stream in, text, tool calls and argument progress out.

    for item in iter_tool_stream(client.messages.create(..., stream=True)):
        match item:
            case TextDelta(text):
                print(text, end="")
            case ToolCallStarted(call_id, name):
                print(f"\\ncalling {name}")
            case ToolCallArgumentProgress(fragment=ObjectEntry("path", String(text))):
                print(text, end="")
            case ToolCallFinished(call_id, name, arguments) if item.ok:
                results[call_id] = run(name, arguments)
            case StreamFinished(reason, events):
                conversation.extend(events)

The stream is an SDK's stream, decoded wire dicts, or the raw HTTP body itself: ``str`` or UTF-8
``bytes`` chunks of SSE or NDJSON, cut anywhere (``response.iter_bytes()`` of httpx,
``response.content.iter_any()`` of aiohttp), decoded as they arrive. The provider is detected
from the first item (SDK objects by their module, wire dicts by their shape) or named:
``provider="openai_chat"``, a providers module, or any ``to_events``-style function. Items, in
stream order:

- :class:`TextDelta`, :class:`ReasoningDelta`, :class:`StructuredDelta`: text as it arrives;
- :class:`ToolCallStarted`: once per call, at its first part;
- ``ToolCallArgumentProgress``: every argument fragment, as the builder produces it, with its
  ``path``, ``leaf`` and the ``completed`` value it closed (the one source every consumer reads);
- :class:`ToolCallFailed`: a call that can no longer run (invalid or cut-off arguments), as soon
  as that is certain;
- :class:`ToolCallViolation`: with ``tools=``, a call's first schema violation, as soon as it is proven;
- :class:`ToolCallFinished`: the provider closed the call; ``arguments`` are final, or ``error``
  holds the ``ArgumentStreamError`` when the text was not a valid JSON object;
- :class:`StreamFinished`: once per response, with the reason, every persisted event flushed
  in order (``events``) and the ones cut off (``incomplete``, their tool calls never reported as
  finished).

When the provider stream raises (a dropped connection, an error event via the SDK), the
``StreamFinished(ERROR)`` comes first and the exception follows. When the loop stops early, the
provider stream is closed (``close()`` / ``aclose()``) unless ``close_stream=False``.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import AsyncGenerator, AsyncIterable, AsyncIterator, Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Union

from ._backend import AsyncItems, Handover, PipelineBase, record
from ._fastpath_py import MESSAGE_TEXT, REASONING_TEXT, STRUCTURED_TEXT
from .builder import _NO_METADATA, EventBuilder
from .errors import ArgumentStreamError, Repair
from .events import (
    ArgumentChunk,
    ChatMessage,
    ConversationEvent,
    Event,
    Finished,
    FinishReason,
    Flush,
    Message,
    Part,
    Reasoning,
    Structured,
    ToolCall,
    ToolCallArgumentProgress,
    ToolCallRequest,
)
from .jsonform import JsonForm
from .providers._common import Adapter, WholeCalls, _Run, call_start, flush, whole_part
from .providers.detect import detect_provider
from .providers.wire import WireDecoder
from .raw import RawReader, raw_items

__all__ = [
    "ReasoningDelta", "StreamFinished", "StreamItem", "StructuredDelta", "TextDelta", "ToolCallFinished",
    "ToolCallStarted", "ToolCallFailed", "ToolCallViolation", "aiter_tool_stream", "detect_provider", "iter_tool_stream",
    "ToolStreamState", "StreamPipeline", "pipeline_for",
]


def _empty() -> dict[str, Any]:
    return {}


@dataclass(frozen=True, slots=True)
class TextDelta(JsonForm):
    """A chunk of assistant message text for ``index``."""

    text: str
    index: int = 0


@dataclass(frozen=True, slots=True)
class ReasoningDelta(JsonForm):
    """A chunk of reasoning text for ``index``."""

    text: str
    index: int = 0


@dataclass(frozen=True, slots=True)
class StructuredDelta(JsonForm):
    """A chunk of structured-output JSON text for ``index``."""

    chunk: str
    index: int = 0


@dataclass(frozen=True, slots=True)
class ToolCallStarted(JsonForm):
    """A tool call began streaming (its id and name as known at its first part)."""

    id: str
    name: str
    index: int = 0


@dataclass(frozen=True, slots=True)
class ToolCallFinished(JsonForm):
    """The provider closed a tool call. Check :attr:`ok` (or ``error``) before running it."""

    id: str
    name: str
    arguments: dict[str, Any]
    error: ArgumentStreamError | None = None
    index: int = 0
    event: ConversationEvent | None = field(default=None, repr=False, compare=False)
    violations: tuple[Any, ...] = ()
    repairs: tuple[Repair, ...] = ()

    @property
    def ok(self) -> bool:
        """The arguments are a complete, valid JSON object (that breaks no rule of the tool's schema)."""
        return self.error is None and not self.violations


@dataclass(frozen=True, slots=True)
class ToolCallFailed(JsonForm):
    """A tool call that will never run, reported the moment that is certain: its arguments
    stopped being valid JSON (``error`` is the parser's ``ArgumentStreamError``, a
    ``DuplicateKeyError`` for a repeated key), or the response ended before they were complete
    (an ``IncompleteJSONError``). The same error is on the call's ``ToolCallFinished`` if the
    provider still closes it."""

    id: str
    name: str
    error: ArgumentStreamError
    index: int = 0


@dataclass(frozen=True, slots=True)
class ToolCallViolation(JsonForm):
    """A tool call's first schema violation, the moment it is proven (with ``tools=``): ``violation``
    says where (``path``, input ``offset``), which keyword, and why. The finished call carries all
    of them, and is not :attr:`ToolCallFinished.ok`."""

    id: str
    name: str
    violation: Any
    index: int = 0


@dataclass(frozen=True, slots=True)
class StreamFinished(JsonForm):
    """One response ended. ``events`` are its flushed ``ConversationEvent``s, in order, to persist;
    ``incomplete`` the ones cut off before their flush (``metadata["incomplete"]`` is set)."""

    reason: FinishReason
    events: tuple[ConversationEvent, ...] = ()
    incomplete: tuple[ConversationEvent, ...] = ()
    metadata: Mapping[str, Any] = field(default_factory=_empty)

    @property
    def text(self) -> str:
        """The response's message text, joined."""
        return "".join(e.kind.text for e in self.events if type(e.kind) is ChatMessage)

    @property
    def tool_calls(self) -> list[ToolCallRequest]:
        """The response's finished tool calls (check each one's ``error``)."""
        return [e.kind for e in self.events if type(e.kind) is ToolCallRequest]


# The items each stream makes a few of, made without the dataclass ``__init__`` (``_records``): about
# 0.1 us each against 0.4-1.2 us, a fixed cost of every stream (a whole-argument call pays it per call).
_started = record(ToolCallStarted)
_text_delta = record(TextDelta)
_reasoning_delta = record(ReasoningDelta)
_structured_delta = record(StructuredDelta)
_call_finished = record(ToolCallFinished)
_stream_finished = record(StreamFinished)


StreamItem = Union[
    TextDelta, ReasoningDelta, StructuredDelta, ToolCallStarted, ToolCallArgumentProgress, ToolCallFailed,
    ToolCallViolation, ToolCallFinished, StreamFinished,
]

ToEvents = Callable[[Any], Iterator[Event]]
Provider = Union[str, ModuleType, ToEvents, None]


class ToolStreamState:
    """The sans-IO core of :func:`iter_tool_stream`: feed it events, get stream items back.

    Each tool call's state lives in one object, the builder's ``ArgumentCall`` (parser, aggregator,
    validator, and whether its failure and first violation were reported); this class keeps no
    copy of it. :meth:`argument` is the fast path of the dominant event, an argument chunk for a
    call already started: the same items as ``feed(Part(index, ToolCall(ArgumentChunk(text))))``,
    without building the event.
    """

    __slots__ = ("builder", "_events", "_calls", "_text")

    def __init__(self, builder_factory: Callable[[], EventBuilder] = EventBuilder, *,
                 text_tool_calls: str | None = None, tools: Any = None) -> None:
        self.builder = builder_factory()
        self._events: list[ConversationEvent] = []
        self._calls: Mapping[int, Any] = self.builder.calls
        self._text: Any = None
        if text_tool_calls is not None:
            from .textcalls import TextToolCallEvents

            self._text = TextToolCallEvents(text_tool_calls, tools)

    @property
    def events(self) -> list[ConversationEvent]:
        """The persisted events flushed so far in this response."""
        return list(self._events)

    def discard(self, index: int) -> None:
        """Close ``index`` without an item or a persisted event (a call whose chunks were dropped)."""
        self.builder.handle_flush(index)

    def text(self, index: int, text: str, kind: int = MESSAGE_TEXT) -> list[Any]:
        """The items of one text delta at ``index`` (``text`` not empty) of a message (``kind``
        ``MESSAGE_TEXT``), reasoning (``REASONING_TEXT``) or structured output (``STRUCTURED_TEXT``): the
        same as ``feed(Part(index, Message(text)))`` (``Reasoning(text)``, ``Structured(text)``), without
        building the event when it is open."""
        if kind == STRUCTURED_TEXT:
            if self._text is None and self.builder.structured_piece(index, text):
                return [_structured_delta(text, index)]
            return self.feed(Part(index, Structured(text)))
        reasoning = kind == REASONING_TEXT
        cls = Reasoning if reasoning else Message
        if self._text is None and self.builder.text_piece(index, text, cls):
            return [_reasoning_delta(text, index) if reasoning else _text_delta(text, index)]
        return self.feed(Part(index, cls(text)))

    def whole_call(self, index: int, call_id: str, name: str, value: Any, metadata: dict[str, Any]) -> list[Any]:
        """The items of a tool call sent whole at ``index`` (a new one), its arguments the decoded,
        walkable ``value``: the same as feeding ``Part(index, ToolCall(ToolCallStart(call_id, name)))``,
        ``Part(index, ToolCall(WholeArguments(value)))`` and ``Flush(index, metadata)``, without them."""
        call = None
        if self._text is None:
            made = self.builder.sent_whole(index, call_id, name, value, metadata)
            if made is not None:  # (no buffer, parser or check: it opens and closes here)
                items, arguments, flushed = made
                self._events.append(flushed)
                return [_started(call_id, name, index), *items,
                        _call_finished(call_id, name, arguments, None, index, flushed, (), ())]
            call = self.builder.open_call(index, call_id, name, value)
        if call is None:
            out = self.feed(call_start(index, call_id, name))
            out += self.feed(whole_part(index, value))
            out += self.feed(flush(index, metadata))
            return out
        out = [_started(call.id, call.name, index)]
        out += call.push_value(value)
        if call.error is not None or call.validator is not None:
            _report(call, out)
        return out + self._flushed(index, metadata)

    def argument(self, index: int, text: str) -> list[Any]:
        """The items of one argument chunk for the call at ``index`` (see the class doc)."""
        call = self._calls.get(index)
        if call is None:
            return self.feed(Part(index, ToolCall(ArgumentChunk(text))))
        out = call.push(text)
        if call.error is not None or call.validator is not None:
            _report(call, out)
        return out

    def feed(self, event: Event) -> list[Any]:
        """The items that one event produces (with ``text_tool_calls``: the events it becomes, once the
        calls written in its text are taken out)."""
        if self._text is None:
            return self._feed_one(event)
        out: list[Any] = []
        for one in self._text.feed(event):
            out += self._feed_one(one)
        return out

    def _feed_one(self, event: Event) -> list[Any]:
        if type(event) is Part:
            part: Any  # dispatched on ``pcls`` below (one type() call), which mypy does not narrow through
            part, index = event.part, event.index
            pcls = type(part)
            if pcls is ToolCall:
                call = self._calls.get(index)
                progress = self.builder.handle_part(index, part, event.metadata)
                if call is None:
                    call = self._calls[index]
                    out: list[Any] = [_started(call.id, call.name, index)]
                    out += progress
                else:
                    out = progress
                if call.error is not None or call.validator is not None:
                    _report(call, out)
                return out
            self.builder.handle_part(index, part, event.metadata)
            if pcls is Message:
                return [_text_delta(part.text, index)] if part.text else []
            if pcls is Reasoning:
                return [_reasoning_delta(part.text, index)] if part.text else []
            if pcls is Structured:
                return [_structured_delta(part.chunk, index)] if part.chunk else []
            return []
        if type(event) is Flush:
            return self._flushed(event.index, event.metadata)
        if type(event) is Finished:
            items = []
            incomplete = []
            calls = dict(self._calls) if self._calls else {}  # (a failed call among the leftovers is in it)
            for index, leftover in self.builder.finish_indexed():
                kind = leftover.kind
                if type(kind) is ToolCallRequest and kind.error is not None and not calls[index].failed:
                    items.append(ToolCallFailed(kind.id, kind.name, kind.error, index))
                incomplete.append(leftover)
            items.append(_stream_finished(event.reason, tuple(self._events), tuple(incomplete), event.metadata))
            self._events = []
            return items
        raise TypeError(f"not an event: {event!r}")

    def _flushed(self, index: int, metadata: Mapping[str, Any]) -> list[Any]:
        """The items of ``Flush(index, metadata)``."""
        closing: Any = self._calls.get(index)
        flushed = self.builder.handle_flush(index, metadata)
        if flushed is None:
            return []
        self._events.append(flushed)
        kind = flushed.kind
        if type(kind) is not ToolCallRequest:
            return []
        items: list[Any] = []
        if kind.violations and not closing.violated:
            items.append(ToolCallViolation(kind.id, kind.name, kind.violations[0], index))
        if kind.error is not None and not closing.failed:
            items.append(ToolCallFailed(kind.id, kind.name, kind.error, index))
        repairs = closing.parser.repairs if closing is not None and closing.lenient else ()
        items.append(_call_finished(kind.id, kind.name, kind.arguments, kind.error, index, flushed,
                                    kind.violations, tuple(repairs)))
        return items


def _report(call: Any, out: list[Any]) -> None:
    """Append the call's first violation and its failure to ``out``, each once."""
    if not call.violated and call.validator is not None:
        violations = call.validator.violations
        if violations:
            call.violated = True
            out.append(ToolCallViolation(call.id, call.name, violations[0], call.index))
    if not call.failed and call.error is not None:
        call.failed = True
        out.append(ToolCallFailed(call.id, call.name, call.error, call.index))


class StreamPipeline(PipelineBase):
    """One provider stream, fused: wire items in, stream items out (sans-IO).

    ``feed(item)``: the adapter's ``chunk(item)`` recognises its provider's dominant event (an
    argument delta of a call already started) and the text goes straight into that call's parser
    (``ArgumentCall.push``; compiled with the compiled core); its ``text_chunk(item)``, where it has
    one, a text delta of a message (or of reasoning) already open, whose one ``TextDelta`` (or
    ``ReasoningDelta``) is made without the adapter's events (``ToolStreamState.text``); its
    ``call_chunk(item)``, where it has one, a wire item of tool calls sent whole (Gemini, Ollama),
    whose calls' items are made without the events too (:meth:`take_calls`); every other item takes
    the generic way: the adapter's events, checked by the driver machinery (``providers._common``),
    into :class:`ToolStreamState`. The items are the same either way. ``iter_tool_stream``,
    ``aiter_tool_stream`` and the coordinator all feed one of these.

    Raises (from ``feed``):
        ProviderProtocolError: the item breaks its format (feed :meth:`failed`'s items first).
    """

    __slots__ = ()

    # what the base's ``__init__(adapter, state)`` (compiled with the core) builds a stream's pipeline from:
    # the driver machinery, the report of a call's failure and first violation, and the builder method a
    # builder must not override for the text and whole-call tests to run (else every part goes the general way)
    _links = (_Run, _report, EventBuilder.handle_part)

    def hit(self, item: Any) -> tuple[int, str] | None:
        """``(index, text)`` when ``item`` is the dominant event (counted as read), else ``None``:
        then :meth:`events` gives its events. For a consumer that handles argument chunks itself."""
        chunk = self._chunk
        hit = chunk(item) if chunk is not None else None
        if hit is not None:
            self.count += 1
        return hit

    def take_calls(self, hit: WholeCalls) -> list[Any]:
        """The stream items of a wire item the adapter's ``call_chunk`` recognised (counted as one wire
        item): those of the events it stands for (``WholeCalls``), each call's made without its events.

        Raises:
            ProviderProtocolError: two calls of the response share an id (as the general way raises)."""
        self.count += 1
        closed, calls, _ = hit
        passed = self._run.calls(hit, self.count - 1)
        feed = self._feed
        out: list[Any] = []
        if closed is not None:  # the text run before the calls, flushed
            out = self.state._flushed(closed, _NO_METADATA) if self.state._text is None else feed(flush(closed))
        whole_call = self.state.whole_call
        for index, call_id, name, value, metadata in calls:
            out += whole_call(index, call_id, name, value, metadata)
        for event in passed:
            out += feed(event)
        self.over = self._run.over
        return out

    def events(self, item: Any) -> list[Event]:
        """The adapter's events for one wire item, checked (``ProviderProtocolError`` when it breaks its format)."""
        self.count += 1
        events = self._run.feed(item, self.count - 1)
        self.over = self._run.over
        return events

    def end_events(self) -> list[Event]:
        """The adapter's last events at a clean end of input (a ``Finished(ERROR)`` when none came)."""
        self._run.count = self.count
        return self._run.end()

    def failed_events(self) -> list[Event]:
        """The ``Finished(ERROR)`` for an input that raised, unless the response had finished."""
        return self._run.failed()

    def end(self) -> list[Any]:
        """The input ended cleanly: the items of the adapter's last events."""
        out: list[Any] = []
        self._run.count = self.count
        for event in self._run.end():
            out += self._feed(event)
        return out

    def failed(self) -> list[Any]:
        """The input raised: the ``StreamFinished(ERROR)`` that comes before the exception (unless the
        response had finished)."""
        out: list[Any] = []
        for event in self._run.failed():
            out += self._feed(event)
        return out


def _provider_module(name: str) -> ModuleType:
    """``argstream.providers.<name>``, from ``sys.modules`` once imported (``import_module`` costs
    several microseconds a stream, which a whole-argument stream of one call notices)."""
    module = sys.modules.get(f"argstream.providers.{name}")
    return module if module is not None else importlib.import_module(f"argstream.providers.{name}")


def _resolve(provider: Provider, first: Any, attr: str) -> Callable[[Any], Any]:
    if provider is None:
        provider = detect_provider(first)
    if isinstance(provider, str):
        provider = _provider_module(provider)
    if isinstance(provider, ModuleType):
        return getattr(provider, attr)
    return provider


def pipeline_for(provider: Provider, first: Any, state: ToolStreamState,
                 options: Mapping[str, Any] | None = None) -> StreamPipeline | None:
    """The fused pipeline for a provider module (detected from ``first`` when ``None``); ``None`` for a
    user's own ``to_events``-style function, which runs the generic way."""
    if provider is None:
        provider = detect_provider(first)
    if isinstance(provider, str):
        provider = _provider_module(provider)
    make = getattr(provider, "adapter", None) if isinstance(provider, ModuleType) else None
    if make is None:
        return None
    # ``adapter_for`` read from the module's namespace: a name a module lacks costs ``getattr`` an
    # ``AttributeError`` with its message formatted, some 6K instructions on every stream (a module's
    # own ``__getattr__`` is still asked)
    namespace = provider.__dict__
    if options:
        made = None
    elif "__getattr__" in namespace:
        made = getattr(provider, "adapter_for", None)
    else:
        made = namespace.get("adapter_for")
    if made is not None:  # a module whose adapter picks another from the first item, made at once
        adapter = made(first)
    else:
        adapter = make(**options) if options else make()
        pick = getattr(adapter, "for_item", None)  # an adapter that picks another from the first item: that one
        if pick is not None:
            adapter = pick(first)
    if isinstance(adapter, Adapter):
        adapter.whole_values = True  # its events reach only this pipeline's builder
    return StreamPipeline(adapter, state)


def iter_tool_stream(
    stream: Iterable[Any],
    provider: Provider = None,
    *,
    builder_factory: Callable[[], EventBuilder] = EventBuilder,
    close_stream: bool = True,
    provider_options: Mapping[str, Any] | None = None,
    tools: Any = None,
    text_tool_calls: str | None = None,
    lenient: bool = False,
) -> Iterator[StreamItem]:
    """Iterate a provider stream as :data:`StreamItem`s (see the module doc).

    ``provider_options`` go to the provider's ``to_events`` (e.g. ``{"structured": True}``).
    ``tools`` (the tool definitions sent to the provider) checks each call's arguments against its
    schema while they stream: :class:`ToolCallViolation` items, and ``violations`` on the finished call.
    ``text_tool_calls`` (a format of :mod:`argstream.textcalls`, or ``"auto"``) turns tool calls that
    a model wrote in its message text into the same items as native calls, their markup removed from
    the text; a call that names no tool of ``tools=`` fails and never runs. ``lenient=True`` parses
    arguments with the lenient parser (``docs/lenient.md``): each call's repairs are on its parser.

    Raises:
        whatever the stream raises, after the ``StreamFinished(ERROR)``; ``ValueError`` when the
        provider cannot be detected.
    """
    iterator = iter(stream)
    if tools is None and not lenient and text_tool_calls is None:  # (``_state``'s first case, without its frame)
        state = ToolStreamState(builder_factory)
    else:
        state = _state(builder_factory, tools, lenient, text_tool_calls)
    try:
        try:
            first = next(iterator)
            raw = isinstance(first, _RAW)  # the HTTP body itself: decode SSE / NDJSON as it arrives
            if raw and not _fusable(provider):
                iterator, raw = _decoded(first, iterator), False
                first = next(iterator)
        except StopIteration:
            yield from state.feed(Finished(FinishReason.ERROR))
            return
        except Exception:
            yield from state.feed(Finished(FinishReason.ERROR))
            raise
        if raw:  # (the loop of raw input, here rather than in a generator of its own: one frame per item)
            reader = _raw_reader(provider, state, provider_options)
            items = raw_items(reader, first, iterator)
            try:
                yield from items  # compiled: one iterator object, no Python frame per chunk
                out = [] if reader.over else items.close()
                if out:
                    yield from out
                out = _raw_end(reader, state)
            except Exception:
                yield from _raw_failed(reader, state)
                raise
            yield from out
            return
        pipeline = pipeline_for(provider, first, state, provider_options)
        if pipeline is None:
            feed = state.feed
            for event in _resolve(provider, first, "to_events")(_chain(first, iterator), **(provider_options or {})):
                yield from feed(event)
            return
        push = pipeline.feed
        try:
            out = push(first)
            if out:
                yield from out
            if pipeline.over:
                return
            yield from pipeline.items(iterator)  # compiled: one iterator object, no Python frame per item
            if pipeline.over:
                return
            out = pipeline.end()
        except Exception:
            yield from pipeline.failed()
            raise
        yield from out
    except GeneratorExit:
        if close_stream:
            close = getattr(stream, "close", None)
            if close is not None:
                close()
        raise


def aiter_tool_stream(
    stream: AsyncIterable[Any] | Iterable[Any],
    provider: Provider = None,
    *,
    builder_factory: Callable[[], EventBuilder] = EventBuilder,
    close_stream: bool = True,
    provider_options: Mapping[str, Any] | None = None,
    tools: Any = None,
    text_tool_calls: str | None = None,
    lenient: bool = False,
) -> AsyncIterator[StreamItem]:
    """Async twin of :func:`iter_tool_stream` (``stream`` may be async or plain iterable).

    An async iterator with ``aclose()``, as an async generator is: closing it early closes ``stream``
    (with ``close_stream``). Its body is the async generator below; once the stream is set up, the
    per-item loop runs in :class:`AsyncItems` (compiled with the core), with no generator frame of its
    own per item."""
    return AsyncItems(_aiter_tool_stream(stream, provider, builder_factory, close_stream, provider_options, tools,
                                         text_tool_calls, lenient))


async def _aiter_tool_stream(
    stream: AsyncIterable[Any] | Iterable[Any],
    provider: Provider,
    builder_factory: Callable[[], EventBuilder],
    close_stream: bool,
    provider_options: Mapping[str, Any] | None,
    tools: Any,
    text_tool_calls: str | None,
    lenient: bool,
) -> AsyncGenerator[Any, None]:
    """``aiter_tool_stream``'s body: its items, and a :class:`Handover` where the items of a per-item
    loop would be (the stream's exception, if any, is thrown back in there)."""
    state = _state(builder_factory, tools, lenient, text_tool_calls)
    is_async = hasattr(stream, "__aiter__")
    iterator: Any = stream.__aiter__() if is_async else iter(stream)  # type: ignore[union-attr,arg-type]
    try:
        try:
            first = await iterator.__anext__() if is_async else next(iterator)
            raw = isinstance(first, _RAW)  # the HTTP body itself: decode SSE / NDJSON as it arrives
            if raw and not _fusable(provider):
                iterator, is_async, raw = _adecoded(first, iterator, is_async), True, False
                first = await iterator.__anext__()
        except (StopIteration, StopAsyncIteration):
            for item in state.feed(Finished(FinishReason.ERROR)):
                yield item
            return
        except Exception:
            for item in state.feed(Finished(FinishReason.ERROR)):
                yield item
            raise
        if raw:  # (the loop of raw input, here rather than in a generator of its own: one frame per item)
            reader = _raw_reader(provider, state, provider_options)
            items = raw_items(reader, first, None if is_async else iterator)
            try:
                if is_async:
                    step = items.step  # a delta's one item comes as itself, not in a list
                    out = step(first)
                    for out_item in [out] if type(out) is not list else out:
                        yield out_item
                    if not items.stopped:
                        yield Handover(step, items, "stopped", iterator, True)
                else:
                    for out_item in items:  # compiled: one iterator object, no Python frame per chunk
                        yield out_item
                for out_item in [] if reader.over else items.close():
                    yield out_item
                out = _raw_end(reader, state)
            except Exception:
                for out_item in _raw_failed(reader, state):
                    yield out_item
                raise
            for out_item in out:
                yield out_item
            return
        pipeline = pipeline_for(provider, first, state, provider_options)
        if pipeline is None:
            feed = state.feed
            to_events = _resolve(provider, first, "ato_events")
            async for event in to_events(_achain(first, iterator), **(provider_options or {})):
                for item in feed(event):
                    yield item
            return
        push = pipeline.feed
        try:
            for out_item in push(first):
                yield out_item
            if pipeline.over:
                return
            yield Handover(pipeline.step, pipeline, "over", iterator, is_async)
            if pipeline.over:
                return
            out = pipeline.end()
        except Exception:
            for out_item in pipeline.failed():
                yield out_item
            raise
        for out_item in out:
            yield out_item
    except GeneratorExit:
        if close_stream:
            close = getattr(stream, "aclose", None) or getattr(stream, "close", None)
            if close is not None:
                result = close()
                if hasattr(result, "__await__"):
                    await result
        raise


def _state(builder_factory: Callable[[], EventBuilder], tools: Any, lenient: bool,
           text_tool_calls: str | None) -> ToolStreamState:
    """The stream state of ``iter_tool_stream``'s options (made with no keyword when there are none: every stream makes one)."""
    if tools is None and not lenient and text_tool_calls is None:
        return ToolStreamState(builder_factory)
    return ToolStreamState(_with_tools(builder_factory, tools, lenient), text_tool_calls=text_tool_calls, tools=tools)


def _with_tools(builder_factory: Callable[[], EventBuilder], tools: Any, lenient: bool = False) -> Callable[[], EventBuilder]:
    if tools is None and not lenient:
        return builder_factory
    if builder_factory is not EventBuilder:
        raise TypeError("pass tools= and lenient= to your own builder_factory's EventBuilder instead")
    return lambda: EventBuilder(tools=tools, lenient=lenient)


_RAW = (str, bytes, bytearray, memoryview)


def _fusable(provider: Provider) -> bool:
    """Raw input for this provider can go through a :class:`RawReader` (a providers module, named or detected)."""
    if provider is None or isinstance(provider, str):
        return True
    return isinstance(provider, ModuleType) and hasattr(provider, "adapter")


def _raw_reader(provider: Provider, state: ToolStreamState, options: Mapping[str, Any] | None) -> RawReader:
    def make(first: Any) -> StreamPipeline:
        pipeline = pipeline_for(provider, first, state, options)
        if pipeline is None:
            raise TypeError(f"{provider!r} has no adapter for raw input")
        return pipeline

    return RawReader(make)


def _raw_end(reader: RawReader, state: ToolStreamState) -> list[Any]:
    """The stream's end once the input ended and its last events were read: the exception the reader
    kept is raised; no items when the stream is over; else the pipeline's end (the state's, when no
    event came)."""
    if reader.error is not None:
        raise reader.error
    if reader.over:
        return []
    return reader.pipeline.end() if reader.pipeline is not None else state.feed(Finished(FinishReason.ERROR))


def _raw_failed(reader: RawReader, state: ToolStreamState) -> list[Any]:
    """The items before the exception that ends a raw stream: the pipeline's ``Finished(ERROR)``,
    or the state's when no event came (none when no provider reads the first one, as for wire items)."""
    if reader.pipeline is not None:
        return reader.pipeline.failed()
    return [] if reader.undetected else state.feed(Finished(FinishReason.ERROR))


def _decoded(first: Any, chunks: Iterator[Any]) -> Iterator[Any]:
    """Wire items from raw SSE / NDJSON chunks (text or UTF-8 bytes, cut anywhere)."""
    decoder = WireDecoder()
    yield from decoder.feed(first)
    for chunk in chunks:
        yield from decoder.feed(chunk)
    yield from decoder.close()


async def _adecoded(first: Any, chunks: Any, is_async: bool) -> AsyncIterator[Any]:
    decoder = WireDecoder()
    for item in decoder.feed(first):
        yield item
    if is_async:
        async for chunk in chunks:
            for item in decoder.feed(chunk):
                yield item
    else:
        for chunk in chunks:
            for item in decoder.feed(chunk):
                yield item
    for item in decoder.close():
        yield item


def _chain(first: Any, rest: Iterator[Any]) -> Iterator[Any]:
    yield first
    yield from rest


async def _achain(first: Any, rest: Any) -> AsyncIterator[Any]:
    yield first
    if hasattr(rest, "__anext__"):
        async for item in rest:
            yield item
    else:
        for item in rest:
            yield item
