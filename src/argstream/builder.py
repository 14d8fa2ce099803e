"""``EventBuilder``: streaming parts in, persisted ``ConversationEvent``s out (RFD 012, RFD 043).

Per index it keeps one buffer, chosen by the first part that arrives:

- ``Message`` / ``Reasoning``: text appended; flushed as ``ChatMessage`` / ``ChatReasoning``.
- ``Structured``: parsed and aggregated as it arrives; flushed as ``ChatStructured(data)``.
- ``ToolCall(ToolCallStart)``: the call's id and name; the first non-empty value of each wins.
- ``ToolCall(ArgumentChunk)``: parsed and aggregated as it arrives, its fragments returned at
  once as ``ToolCallArgumentProgress``; flushed as ``ToolCallRequest(id, name, arguments)``.

Argument text is parsed once, chunk by chunk, by one ``IncrementalArgParser`` per call; a
``FragmentAggregator`` builds the value as it goes, so the flush only closes the parser: the
text is never kept nor parsed again. Part and flush metadata merge (later keys win) into the
flushed event's metadata.

Arguments that never arrive (no chunk, or only whitespace) flush as ``{}``. Invalid argument
JSON (a repeated key included: ``DuplicateKeyError``), or a value that is not an object, flushes
with ``arguments={}`` and ``error`` holding the ``ArgumentStreamError`` (message and position); text that ends before its value does flushes
with an ``IncompleteJSONError``. Buffers still open when the response finishes are never
reported as complete: :meth:`EventBuilder.handle_finished` returns them marked incomplete.
"""

from __future__ import annotations

import json
import threading
from operator import attrgetter
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Union, final

from .aggregate import FragmentAggregator
from .errors import ArgumentStreamError, IncompleteJSONError
from .events import (
    ArgumentChunk,
    ChatMessage,
    ChatReasoning,
    ChatStructured,
    ConversationEvent,
    Event,
    Finished,
    Flush,
    Message,
    Part,
    Reasoning,
    Structured,
    ToolCall,
    ToolCallArgumentProgress,
    ToolCallRequest,
    ToolCallStart,
    WholeArguments,
)
from ._backend import ArgumentCall, StrictParsers, encode_c, record, utc_now, whole_items
from ._pieces_py import PIECES_EVERY, compact_pieces
from .parser import IncrementalArgParser
from .tools import tool_schemas

__all__ = ["EventBuilder", "INCOMPLETE", "TOOL_MAX_DEPTH"]

INCOMPLETE = "incomplete"
"""Metadata key set to ``True`` on events that :meth:`EventBuilder.handle_finished` returns."""

_NO_METADATA: Mapping[str, Any] = {}
_NO_VALUE: Any = object()  # ``open_call`` without whole arguments


@final  # lets mypy narrow the ``type(buffer) is _Text`` dispatch both ways
class _Text:
    __slots__ = ("cls", "pieces", "metadata")

    def __init__(self, cls: type) -> None:
        self.cls = cls  # Message or Reasoning
        self.pieces: list[str] = []
        self.metadata: dict[str, Any] = {}


@final
class _Json:
    """A JSON value streaming as chunks: tool call arguments or structured output.

    ``call`` is the :class:`~argstream._calls_py.ArgumentCall` that owns the parser, the aggregator,
    the validator and the call's flags: the stream items read them there, with no second copy.
    """

    __slots__ = ("tool", "call", "metadata", "schema")

    def __init__(self, tool: bool, parser: Any, index: int) -> None:
        self.tool = tool
        # structured output makes no progress items: its deltas are the items (``StructuredDelta``)
        self.call = ArgumentCall(parser, FragmentAggregator(), ToolCallArgumentProgress if tool else None, index)
        self.metadata: dict[str, Any] = {}
        self.schema: Any = None  # the tool's compiled Schema, once the name is known

    @property
    def error(self) -> ArgumentStreamError | None:
        return self.call.error

    @property
    def violations(self) -> Sequence[Any]:
        validator = self.call.validator
        return validator.violations if validator is not None else ()

    def close(self) -> Any:
        """End of input: the value, or ``{}`` / ``None`` when nothing arrived or ``error`` is set."""
        call = self.call
        empty: dict[str, Any] | None = {} if self.tool else None
        if call.error is None and not call.seen:
            return empty
        aggregator = call.aggregator
        if call.error is None and not aggregator.done:
            try:
                for fragment in call.parser.finish():
                    aggregator.push(fragment)
            except ArgumentStreamError as exc:
                call.error = exc
        if call.error is not None:
            return empty
        value = aggregator.value
        if self.tool and type(value) is not dict:
            call.error = ArgumentStreamError(f"tool arguments must be a JSON object, not {_json_type(value)}", 0)
            return empty
        return value

    def event_kind(self) -> ToolCallRequest | ChatStructured:
        value = self.close()
        call = self.call
        if self.tool:
            violations: Sequence[Any] = self.violations
            if self.schema is not None and call.validator is None and call.error is None:
                violations = self.schema.validate(value)  # the name came after the arguments
            return _request(call.id, call.name, value, call.error, tuple(violations))
        return _structured(value, call.error)


_Buffer = Union[_Text, _Json]

# What each flush makes, without the dataclass ``__init__`` (``_records``): a fixed cost of every call.
_request = record(ToolCallRequest)
_structured = record(ChatStructured)
_message = record(ChatMessage)
_reasoning = record(ChatReasoning)
_conversation_event = record(ConversationEvent)


TOOL_MAX_DEPTH = 64
"""Nesting bound of tool arguments on the decision path (the parser's own default is 512).

Each fragment names its whole path, so the work per fragment grows with its depth: a 30 KB event of
500-deep objects costs seconds at 512. Real tool arguments nest a handful of levels; deeper input
is an error (``ArgumentStreamError``), like any invalid arguments."""


#: a tool call's parser: ``IncrementalArgParser(catch_duplicate_keys=True, max_depth=TOOL_MAX_DEPTH, flat=True)``,
#: made without its keywords parsed (every call of every stream makes one); with the spans a schema check reads
_strict_parser = StrictParsers(TOOL_MAX_DEPTH)
_strict_parser_with_spans = StrictParsers(TOOL_MAX_DEPTH, spans=True)


def _compile_tools(tools: Any) -> dict[str, Any]:
    """``{name: Schema}`` from the tool definitions; a schema that cannot be checked fails here, naming the tool.

    An application sends the same tools with every turn, and compiling them costs more than checking
    a short call: tools that are plain JSON are compiled once and kept (:func:`_cached_schemas`). The
    entry the last stream used is tried first, by a walk of the two values (``_encode.same_json``, with the
    compiled core), without writing their text as the cache's key: a stream's fixed cost with ``tools=``.
    """
    global _LAST_SCHEMAS
    schemas = tool_schemas(tools)
    last = _LAST_SCHEMAS
    if last is not None and _same_json is not None and _same_json(schemas, last[0]):
        return dict(last[1])
    entry = _cached_schemas(schemas)
    if entry is None:
        return _compile_schemas(schemas)
    _LAST_SCHEMAS = entry
    return dict(entry[1])


def _compile_schemas(schemas: Mapping[str, Any]) -> dict[str, Any]:
    from .schema import Schema, SchemaError

    compiled = {}
    for name, schema in schemas.items():
        try:
            compiled[name] = Schema(schema)
        except SchemaError as exc:
            raise SchemaError(exc.location, f"tool {name!r}: {exc.reason}") from None
    return compiled


_SCHEMA_CACHE: dict[str, tuple[Any, dict[str, Any]]] = {}
_SCHEMA_CACHE_SIZE = 64  # entries
_SCHEMA_CACHE_TEXT = 1 << 20  # characters of schema text kept in all (tools may come from an MCP server)
_SCHEMA_CACHE_LOCK = threading.Lock()  # streams on several threads: one evicts while another inserts
_LAST_SCHEMAS: tuple[Any, dict[str, Any]] | None = None  # the cache's entry the last builder took


def _cached_schemas(schemas: Mapping[str, Any]) -> tuple[Any, dict[str, Any]] | None:
    """The cache's entry for ``schemas``, ``(their plain copy, compiled)``, compiling and keeping them on a
    miss; ``None`` when they are not plain JSON (the caller compiles them as they are, every time).

    The key is the schemas' JSON text (keys in their order), and what is compiled is that text decoded
    again: a copy that the cache owns, so a caller that changes its dicts afterwards cannot change
    what a later stream checks. Schemas count as plain JSON when that copy equals them (so a tuple,
    an int key or a NaN, which the text alone would not tell apart from a list, a str key or itself,
    are never taken from the cache). An invalid schema is not kept: it fails as it always did. The
    cache holds at most 64 entries and 1M characters of schema text, and no one schema of more than
    an eighth of that: tool definitions may come from a server the application does not control.
    """
    key = _schema_text(schemas)
    if key is None or len(key) > _SCHEMA_CACHE_TEXT // 8:
        return None
    try:
        hit = _SCHEMA_CACHE.get(key)
        if hit is not None:
            return hit if hit[0] == schemas else None
        plain = json.loads(key)
        if plain != schemas:
            return None
    except (TypeError, ValueError, RecursionError):
        return None
    try:
        compiled = _compile_schemas(plain)
    except Exception:  # noqa: BLE001 - the caller compiles the tools as given, which raises their own error
        return None
    with _SCHEMA_CACHE_LOCK:  # a miss: counting the kept text (64 keys at most) costs nothing beside compiling
        while _SCHEMA_CACHE and (len(_SCHEMA_CACHE) >= _SCHEMA_CACHE_SIZE
                                 or sum(map(len, _SCHEMA_CACHE)) + len(key) > _SCHEMA_CACHE_TEXT):
            del _SCHEMA_CACHE[next(iter(_SCHEMA_CACHE))]
        entry = _SCHEMA_CACHE[key] = (plain, compiled)
    return entry


def _schema_text(schemas: Mapping[str, Any]) -> str | None:
    """The JSON text of ``schemas``, or ``None`` when they are not JSON: the compiled writer when the core
    is compiled (1 us for a small tool, ``None`` for anything but exact plain types), else ``json.dumps``."""
    if encode_c is not None:
        return encode_c.compact(schemas)
    try:
        return json.dumps(schemas, separators=(",", ":"), ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return None


#: ``_encode.same_json`` with the compiled core; the twin has no walk cheaper than the cache's key
_same_json: Callable[[Any, Any], bool] | None = encode_c.same_json if encode_c is not None else None


def _json_type(value: Any) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if value is None:
        return "null"
    return "a boolean" if isinstance(value, bool) else "a number"


class EventBuilder:
    """Accumulates parts per index and flushes them into ``ConversationEvent``s (see the module doc).

    ``parser_factory`` makes the parser for each tool call and structured value (default:
    ``IncrementalArgParser(catch_duplicate_keys=True, max_depth=TOOL_MAX_DEPTH)``, the compiled core
    when available). A
    repeated key is an error by default: ``{"path": "a", "path": "/etc/passwd"}`` means one thing
    to a check that reads the first value and another to ``json.loads``, which keeps the last.

    ``lenient=True`` (without ``parser_factory``) parses with the lenient parser, whose repairs
    (``docs/lenient.md``) each call's parser records.

    ``tools`` (the definitions sent to the provider: ``{name: schema}``, Anthropic's or OpenAI's
    list) checks each call's arguments against its tool's JSON Schema while they stream
    (:mod:`argstream.schema`): :meth:`violations` tells what is proven so far, and the flushed
    ``ToolCallRequest`` carries them all.
    """

    __slots__ = ("_buffers", "_calls", "_parser_factory", "_schemas", "_text")

    def __init__(self, *, parser_factory: Callable[[], Any] | None = None, tools: Any = None,
                 lenient: bool = False, text_tool_calls: str | None = None) -> None:
        self._text: Any = None
        if text_tool_calls is not None:
            from .textcalls import TextToolCallEvents

            self._text = TextToolCallEvents(text_tool_calls, tools)
        self._buffers: dict[int, _Buffer] = {}
        self._calls: dict[int, Any] = {}  # the tool calls among the buffers: index -> ArgumentCall
        self._schemas = _compile_tools(tools) if tools is not None else None
        if parser_factory is None and lenient:
            spans = self._schemas is not None
            parser_factory = lambda: IncrementalArgParser(  # noqa: E731 - one line, no name needed
                catch_duplicate_keys=True, max_depth=TOOL_MAX_DEPTH, flat=True, spans=spans, lenient=True)
        if parser_factory is None:
            parser_factory = _strict_parser if self._schemas is None else _strict_parser_with_spans
        self._parser_factory = parser_factory

    def handle_part(
        self, index: int, part: Any, metadata: Mapping[str, Any] = _NO_METADATA
    ) -> list[ToolCallArgumentProgress]:
        """Buffer one part; return the argument progress it produced (empty unless it is an ``ArgumentChunk``).

        Raises:
            TypeError: ``part`` is not an event part, or its kind differs from the index's buffer.
        """
        buffer = self._buffers.get(index)
        cls = type(part)
        if cls is ToolCall:
            if buffer is None:
                buffer = self._buffers[index] = _Json(True, self._parser_factory(), index)
                self._calls[index] = buffer.call
            elif type(buffer) is not _Json or not buffer.tool:
                raise _mismatch(index, buffer, part)
            if metadata:
                buffer.metadata.update(metadata)
            inner = part.part
            if type(inner) is ArgumentChunk:
                progress = buffer.call.push(inner.text)
            elif type(inner) is WholeArguments:
                progress = buffer.call.push_value(inner.value)
            elif type(inner) is ToolCallStart:
                self._start(buffer, inner.id, inner.name)
                progress = []
            else:
                raise TypeError(f"not a tool call part: {inner!r}")
            if metadata and buffer.call.error is None:
                _refuse_unrunnable(buffer.call, metadata)  # a call written in text that must never run
            return progress
        if cls is Message or cls is Reasoning:
            if buffer is None:
                buffer = self._buffers[index] = _Text(cls)
            elif type(buffer) is not _Text or buffer.cls is not cls:
                raise _mismatch(index, buffer, part)
            if part.text:
                buffer.pieces.append(part.text)
                if not len(buffer.pieces) & (PIECES_EVERY - 1):
                    compact_pieces(buffer.pieces)
        elif cls is Structured:
            if buffer is None:
                buffer = self._buffers[index] = _Json(False, self._parser_factory(), index)
            elif type(buffer) is not _Json or buffer.tool:
                raise _mismatch(index, buffer, part)
            buffer.call.push(part.chunk)
        else:
            raise TypeError(f"not an event part: {part!r}")
        if metadata:
            buffer.metadata.update(metadata)
        return []

    def text_piece(self, index: int, text: str, cls: type = Message) -> bool:
        """What ``handle_part(index, cls(text))`` does (``cls``: ``Message`` or ``Reasoning``) when ``index``
        holds an open text of that kind, or nothing yet (a text of that kind opened there), and ``text`` is
        not empty (the piece kept), without the part; ``False``, with nothing done, otherwise."""
        buffer = self._buffers.get(index)
        if buffer is None:
            buffer = self._buffers[index] = _Text(cls)
        elif type(buffer) is not _Text or buffer.cls is not cls:
            return False
        buffer.pieces.append(text)
        if not len(buffer.pieces) & (PIECES_EVERY - 1):
            compact_pieces(buffer.pieces)
        return True

    def open_text(self, index: int, text: str, cls: type = Message) -> bool:
        """What ``handle_part(index, cls(text))`` does for an index that holds nothing yet (``text`` not
        empty), without the part: a text of that kind opened there, the piece kept; ``False``, with
        nothing done, when ``index`` holds a buffer already."""
        return index not in self._buffers and self.text_piece(index, text, cls)

    def structured_piece(self, index: int, text: str) -> bool:
        """What ``handle_part(index, Structured(text))`` does when ``index`` holds open structured output
        (the text parsed), without the part; ``False``, with nothing done, otherwise."""
        buffer = self._buffers.get(index)
        if type(buffer) is _Json and not buffer.tool:
            buffer.call.push(text)
            return True
        return False

    def open_call(self, index: int, call_id: str, name: str, whole: Any = _NO_VALUE) -> Any:
        """What ``handle_part(index, ToolCall(ToolCallStart(call_id, name)))`` does for an index that holds
        nothing yet, without the part: the call's ``ArgumentCall``. ``None``, with nothing done, when
        ``index`` holds a buffer already. ``whole``: the decoded, walkable arguments the call's
        ``push_value`` is given next (a provider that sends them whole); with ``tools=``, a value that
        certainly satisfies its schema is not checked again (:meth:`_check_named`)."""
        if index in self._buffers:
            return None
        buffer = self._buffers[index] = _Json(True, self._parser_factory(), index)
        call = self._calls[index] = buffer.call
        if call_id:  # (``_start`` on a call with no id, name or value yet)
            call.id = call_id
        if name:
            call.name = name
            if self._schemas is not None:
                self._check_named(buffer, name, whole)
        return call

    def sent_whole(self, index: int, call_id: str, name: str, value: Any,
                   metadata: Mapping[str, Any]) -> tuple[list[Any], dict[str, Any], ConversationEvent] | None:
        """What ``open_call(index, call_id, name, value)``, the call's ``push_value(value)`` and
        ``handle_flush(index, metadata)`` do one after the other, for a tool call a provider sent whole
        (``value`` its decoded, walkable arguments): its progress items, its arguments and its flushed
        event, made without the call's buffer, parser and frames. ``None``, with nothing done, where those three
        could do anything else: ``index`` holds a buffer, the value is no object the walk takes, the
        builder is a subclass, parses with a parser of its own or leniently, or the call's schema
        (``tools=``) does not certainly accept the value; then the caller takes the three steps."""
        if type(self) is not EventBuilder or index in self._buffers or type(call_id) is not str or type(name) is not str:
            return None
        schemas = self._schemas
        if self._parser_factory is not (_strict_parser if schemas is None else _strict_parser_with_spans):
            return None
        aggregator = FragmentAggregator()
        items = whole_items(call_id, name, index, value, TOOL_MAX_DEPTH, aggregator)
        if items is None or (schemas is not None and name and (schema := schemas.get(name)) is not None
                             and not schema.accepts_whole(value)):
            return None  # (the schema asked of a value the walk took: the one kind it reads)
        arguments = aggregator.value
        return items, arguments, _conversation_event(_request(call_id, name, arguments, None, ()), utc_now(),
                                                     dict(metadata))

    def _start(self, buffer: _Json, call_id: str, name: str) -> None:
        """A call's identity: the first non-empty id and name win; the schema check starts with the name."""
        call = buffer.call
        if not call.id and call_id:
            call.id = call_id
        if not call.name and name:
            call.name = name
            if self._schemas is not None:
                self._check_named(buffer, name)

    def _check_named(self, buffer: _Json, name: str, whole: Any = _NO_VALUE) -> None:
        """With ``tools=``: the call's schema, once named; its check starts unless arguments came first.
        The ``whole`` arguments to come (``open_call``'s), when they certainly satisfy the schema
        (``Schema.accepts_whole``), need neither the check of their fragments nor one at the flush:
        the call then has no validator and no schema, and its fragments reach no check."""
        call = buffer.call
        schema = self._schemas.get(name) if self._schemas is not None else None
        if schema is not None and not call.seen and call.error is None:
            if whole is not _NO_VALUE and schema.accepts_whole(whole):
                buffer.schema = None
                return
            call.validator = schema.validator()
            call.spans = getattr(call.parser, "spans", None) is not None
        buffer.schema = schema

    def call(self, index: int) -> Any:
        """The ``ArgumentCall`` of the tool call streaming at ``index`` (``None`` if there is none):
        its ``push(text)`` is what an ``ArgumentChunk`` part does, without the part."""
        return self._calls.get(index)

    # (read through ``attrgetter``, a getter in C: every stream's pipeline and state read it once, and a
    # Python getter is a frame each time)
    calls = property(attrgetter("_calls"), doc="""The tool calls still open: index -> ``ArgumentCall`` (the
        builder's own dict: read it, never change it).""")

    def handle_flush(self, index: int, metadata: Mapping[str, Any] = _NO_METADATA) -> ConversationEvent | None:
        """Close ``index`` and return its event; ``None`` when no part arrived for it."""
        buffer = self._buffers.pop(index, None)
        if buffer is None:
            return None
        self._calls.pop(index, None)
        if metadata:
            buffer.metadata.update(metadata)
        return _event(buffer)

    def handle_finished(self, finished: Finished | None = None) -> list[ConversationEvent]:
        """The response ended: return the buffers never flushed, marked ``metadata["incomplete"]``, and reset.

        ``finished`` (the ``Finished`` event) is optional: the result does not depend on its reason.

        Tool calls among them carry an ``IncompleteJSONError`` even when their text happened to
        be a whole value: a call whose stream was cut off is never reported as complete.
        """
        return [event for _, event in self.finish_indexed()]

    def finish_indexed(self) -> list[tuple[int, ConversationEvent]]:
        """:meth:`handle_finished` with each leftover's index: ``[(index, event), ...]``."""
        out = []
        for index, buffer in self._buffers.items():
            if type(buffer) is _Json and buffer.call.error is None:
                buffer.close()
                if buffer.call.error is None:
                    buffer.call.error = IncompleteJSONError("the stream ended before this value was flushed",
                                                            buffer.call.parser.position)
            buffer.metadata[INCOMPLETE] = True
            out.append((index, _event(buffer)))
        self._buffers.clear()
        self._calls.clear()
        return out

    def handle(
        self, event: Event
    ) -> list[ToolCallArgumentProgress] | ConversationEvent | list[ConversationEvent] | None:
        """Dispatch one event: a ``Part`` returns progress, a ``Flush`` its event (or ``None``),
        a ``Finished`` the unflushed leftovers (see :meth:`handle_finished`). With
        ``text_tool_calls``, an event that the calls written in its text turn into several returns
        the list of what each gives, in order (progress items and ``ConversationEvent``s)."""
        if self._text is not None:
            events = self._text.feed(event)
            if len(events) != 1 or events[0] is not event:
                out: list[Any] = []
                for one in events:
                    got = self._handle(one)
                    if type(got) is list:
                        out += got
                    elif got is not None:
                        out.append(got)
                return out
        return self._handle(event)

    def _handle(
        self, event: Event
    ) -> list[ToolCallArgumentProgress] | ConversationEvent | list[ConversationEvent] | None:
        if type(event) is Part:
            return self.handle_part(event.index, event.part, event.metadata)
        if type(event) is Flush:
            return self.handle_flush(event.index, event.metadata)
        if type(event) is Finished:
            return self.handle_finished(event)
        raise TypeError(f"not an event: {event!r}")

    def pending(self) -> list[int]:
        """Indexes with buffered parts not flushed yet."""
        return list(self._buffers)

    def error(self, index: int) -> ArgumentStreamError | None:
        """The error that stopped the JSON value streaming at ``index`` (``None`` while it is valid)."""
        buffer = self._buffers.get(index)
        return buffer.error if type(buffer) is _Json else None

    def violations(self, index: int) -> Sequence[Any]:
        """The schema violations proven so far in the tool call streaming at ``index`` (with ``tools=``)."""
        buffer = self._buffers.get(index)
        return buffer.violations if type(buffer) is _Json else ()

    def tool_call(self, index: int) -> tuple[str, str] | None:
        """``(id, name)`` of the tool call streaming at ``index``, or ``None``."""
        buffer = self._buffers.get(index)
        if type(buffer) is _Json and buffer.tool:
            return buffer.call.id, buffer.call.name
        return None

    def snapshot(self, index: int) -> Any:
        """The value so far at ``index``: text joined, or the arguments / structured value parsed so far."""
        buffer = self._buffers.get(index)
        if buffer is None:
            raise KeyError(index)
        if type(buffer) is _Text:
            return "".join(buffer.pieces)
        return buffer.call.aggregator.snapshot()


def _event(buffer: _Buffer) -> ConversationEvent:
    if type(buffer) is _Text:
        text = "".join(buffer.pieces)
        kind: Any = _message(text) if buffer.cls is Message else _reasoning(text)
    else:
        kind = buffer.event_kind()
    return _conversation_event(kind, utc_now(), buffer.metadata)


def _mismatch(index: int, buffer: _Buffer, part: Any) -> TypeError:
    held = buffer.cls.__name__ if type(buffer) is _Text else ("ToolCall" if buffer.tool else "Structured")
    return TypeError(f"index {index} holds {held} parts; got {part!r}")


#: ``textcalls.METADATA_KEY``, named here so that reading a call's metadata does not import ``textcalls``
#: (loaded only for a stream with ``text_tool_calls``); a test holds the two equal
_TEXT_CALL_KEY = "text_tool_call"


def _refuse_unrunnable(call: Any, metadata: Mapping[str, Any]) -> None:
    """A call written in text that names no tool of ``tools=``, or whose markup broke: it fails, so it never runs."""
    found = metadata.get(_TEXT_CALL_KEY)
    if type(found) is not dict:
        return
    if found.get("known") is False:
        call.error = ArgumentStreamError(f"{call.name!r} (a call written in text) is not one of the tools given", 0)
    elif found.get("error"):
        call.error = ArgumentStreamError(f"a call written in text is malformed: {found['error']}", 0)
