"""Tool calls as segment events (the autobyteus API tool-call handler), on argstream's core parser.

A ``write_file`` / ``patch_file`` tool call becomes one segment whose id is the
tool call id: ``SEGMENT_START`` (type ``write_file`` / ``patch_file``),
``SEGMENT_CONTENT`` events carrying the decoded ``content`` / ``patch`` text as
it streams, and ``SEGMENT_END`` whose metadata holds ``path``. Any other tool
becomes a ``tool_call`` segment as in today's handler: ``tool_name`` in the
start metadata, the raw argument text as content, and ``tool_name`` plus the
parsed ``arguments`` at the end. Each completed call yields exactly one
:class:`ToolInvocation` (id = segment id).

Feed it either directly (:meth:`SegmentHandler.start` / :meth:`~SegmentHandler.feed` /
:meth:`~SegmentHandler.end` / :meth:`~SegmentHandler.finalize`) or with the events of
:mod:`argstream.providers` (:meth:`SegmentHandler.handle`).

Every argument chunk is parsed once by one ``IncrementalArgParser`` per call;
only *top-level* ``path`` and ``content`` / ``patch`` members count (a ``path``
inside a nested object is just part of that value), and every JSON escape is
decoded, split across chunks or not. A file segment starts when its ``path`` is
complete (then the start metadata holds it), or when its content begins, or at
its end, whichever comes first. A call that never completes (the stream ended,
was cut, or its JSON is incomplete) ends with ``interrupted: True`` in the end
metadata and yields no invocation; invalid argument JSON ends with ``error`` (the
:class:`~argstream.ArgumentStreamError`'s message; the exception itself is in
:attr:`SegmentHandler.errors`) and no invocation. See
docs/compat.md for the differences from the peer.
"""

from __future__ import annotations

import enum
import uuid
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Optional

from .. import _fragments_py as _py
from .. import fragments as _fr
from .._fragments_py import DONE, Empty
from .._pieces_py import PIECES_EVERY, compact_pieces
from ..aggregate import FragmentAggregator
from ..errors import ArgumentStreamError, IncompleteJSONError
from ..events import ArgumentChunk, Finished, Flush, Message, Part, ToolCall, ToolCallStart
from ..parser import IncrementalArgParser
from . import _fast_init

__all__ = [
    "SegmentEventType", "SegmentType", "SegmentEvent", "ToolInvocation", "SegmentHandler",
    "SEGMENT_START", "SEGMENT_CONTENT", "SEGMENT_END",
    "TEXT", "TOOL_CALL", "WRITE_FILE", "PATCH_FILE", "DEFAULT_FILE_TOOLS", "CONTENT_KEYS",
]


class SegmentEventType(str, enum.Enum):
    """The lifecycle stage of a segment event (the values are the wire names)."""

    START = "SEGMENT_START"
    CONTENT = "SEGMENT_CONTENT"
    END = "SEGMENT_END"


class SegmentType(str, enum.Enum):
    """What a segment holds."""

    TEXT = "text"
    TOOL_CALL = "tool_call"
    WRITE_FILE = "write_file"
    PATCH_FILE = "patch_file"


SEGMENT_START = SegmentEventType.START
SEGMENT_CONTENT = SegmentEventType.CONTENT
SEGMENT_END = SegmentEventType.END
TEXT = SegmentType.TEXT
TOOL_CALL = SegmentType.TOOL_CALL
WRITE_FILE = SegmentType.WRITE_FILE
PATCH_FILE = SegmentType.PATCH_FILE

#: Tool name -> segment type, for the tools whose content streams as a file segment.
DEFAULT_FILE_TOOLS: Mapping[str, SegmentType] = {"write_file": WRITE_FILE, "patch_file": PATCH_FILE}
#: The argument that streams as a file segment's content.
CONTENT_KEYS: Mapping[SegmentType, str] = {WRITE_FILE: "content", PATCH_FILE: "patch"}
PATH_KEY = "path"


def _empty() -> dict[str, Any]:
    return {}


@_fast_init
@dataclass(frozen=True, slots=True)
class SegmentEvent:
    """One segment event. ``payload`` holds ``{"metadata": {...}}`` (start, end) or ``{"delta": text}`` (content)."""

    event_type: SegmentEventType
    segment_id: str
    segment_type: Optional[SegmentType] = None
    payload: Mapping[str, Any] = field(default_factory=_empty)

    @property
    def metadata(self) -> Mapping[str, Any]:
        return self.payload.get("metadata", {})

    @property
    def delta(self) -> str:
        return self.payload.get("delta", "")

    def to_dict(self) -> dict[str, Any]:
        """The wire form: ``type``, ``segment_id``, ``payload`` and ``segment_type``."""
        out: dict[str, Any] = {"type": self.event_type.value, "segment_id": self.segment_id, "payload": self.payload}
        if self.segment_type is not None:
            out["segment_type"] = self.segment_type.value
        return out


@_fast_init
@dataclass(frozen=True, slots=True)
class ToolInvocation:
    """A completed tool call: its id is the segment id."""

    id: str
    name: str
    arguments: dict[str, Any]


_ENTRY = frozenset({_fr.ObjectEntry, _py.ObjectEntry})
_STRING = frozenset({_fr.String, _py.String})
_SCALAR = frozenset({_fr.Scalar, _py.Scalar})
_UNSET = object()


class _Call:
    """One tool call: identity, its parser, and the top-level object assembled so far."""

    __slots__ = (
        "id", "name", "seg_id", "seg_type", "content_key", "parser", "started", "pending", "seen",
        "error", "args", "open_key", "pieces", "scalar", "sub", "path", "ignored", "hot",
    )

    def __init__(self, call_id: str, name: str, parser: Any) -> None:
        self.id = call_id
        self.name = name
        self.seg_id = ""
        self.seg_type: SegmentType | None = None  # decided once the name is known
        self.content_key = ""
        self.parser = parser
        self.started = False
        self.pending: list[str] = []  # argument text that arrived before the name
        self.seen = False  # a non-whitespace argument character arrived
        self.error: ArgumentStreamError | None = None
        self.args: dict[str, Any] = {}
        self.open_key: str | None = None  # the top-level member whose value is streaming
        self.pieces: list[str] = []
        self.scalar: Any = _UNSET
        self.sub: FragmentAggregator | None = None  # an object or array member's value
        self.path: str | None = None
        self.ignored = False  # a second call with an id already used: never a second invocation
        self.hot = False  # the content string is streaming (the segment started, no error)


class SegmentHandler:
    """Turns tool calls (and, through :meth:`handle`, message text) into :class:`SegmentEvent` s.

    ``file_tools`` maps tool names to ``WRITE_FILE`` / ``PATCH_FILE`` (default
    :data:`DEFAULT_FILE_TOOLS`); the content argument is ``content`` for
    ``write_file`` segments and ``patch`` for ``patch_file`` ones unless
    ``content_keys`` says otherwise. ``on_segment_event`` and
    ``on_tool_invocation`` are called for each event and invocation as they
    happen (the methods also return the events). Tool calls are keyed by
    ``key`` (the call id by default, the event index in :meth:`handle`).
    """

    def __init__(
        self,
        *,
        file_tools: Mapping[str, SegmentType | str] | None = None,
        content_keys: Mapping[SegmentType | str, str] | None = None,
        on_segment_event: Callable[[SegmentEvent], Any] | None = None,
        on_tool_invocation: Callable[[ToolInvocation], Any] | None = None,
        segment_id_prefix: str = "",
        parser_factory: Callable[[], Any] = IncrementalArgParser,
    ) -> None:
        tools = DEFAULT_FILE_TOOLS if file_tools is None else file_tools
        self._file_tools = {name: SegmentType(kind) for name, kind in tools.items()}
        for kind in self._file_tools.values():
            if kind not in CONTENT_KEYS:
                raise ValueError(f"file tools stream as write_file or patch_file segments, not {kind.value}")
        keys = dict(CONTENT_KEYS)
        if content_keys:
            keys.update({SegmentType(k): v for k, v in content_keys.items()})
        self._content_keys = keys
        self._on_event = on_segment_event
        self._on_invocation = on_tool_invocation
        self._prefix = segment_id_prefix
        self._parser_factory = parser_factory
        self._calls: dict[Hashable, _Call] = {}
        self._used_ids: set[str] = set()  # segment ids of every call so far
        self._texts: dict[Hashable, str] = {}  # event index -> open text segment id
        self._invocations: list[ToolInvocation] = []
        self._errors: dict[str, ArgumentStreamError] = {}

    @property
    def invocations(self) -> list[ToolInvocation]:
        """The invocations of the calls completed so far (one per call id)."""
        return list(self._invocations)

    def get_all_invocations(self) -> list[ToolInvocation]:
        return list(self._invocations)

    @property
    def errors(self) -> dict[str, ArgumentStreamError]:
        """Segment id -> the error of each call whose arguments were invalid or incomplete."""
        return dict(self._errors)

    def reset(self) -> None:
        """Forget everything: open segments (without ending them), invocations, errors and used ids."""
        self._calls.clear()
        self._texts.clear()
        self._used_ids.clear()
        self._invocations.clear()
        self._errors.clear()

    # -- the direct API ---------------------------------------------------------

    def start(self, call_id: str, name: str, *, key: Hashable = None) -> list[SegmentEvent]:
        """A tool call starts (or more of its identity arrives: the first non-empty id and name win)."""
        out: list[SegmentEvent] = []
        key = call_id if key is None else key
        call = self._calls.get(key)
        if call is None:
            call = self._calls[key] = _Call(call_id, name, self._parser_factory())
        else:
            if not call.id and call_id:
                call.id = call_id
            if not call.name and name:
                call.name = name
        if call.seg_type is None and call.name and not call.ignored:
            self._decide(call, out)
        return out

    def feed(self, key: Hashable, text: str) -> list[SegmentEvent]:
        """A chunk of the call's argument JSON."""
        call = self._calls.get(key)
        if call is not None and call.hot and text:
            # Inside the content string: usually one String fragment, one SEGMENT_CONTENT.
            try:
                frags = call.parser.push(text)
            except ArgumentStreamError as exc:
                call.error = exc
                call.hot = False
                frags = getattr(exc, "fragments", None) or []
            if len(frags) == 1 and type(frags[0].value) in _STRING:
                piece = frags[0].value.text
                call.pieces.append(piece)
                if not len(call.pieces) & (PIECES_EVERY - 1):
                    compact_pieces(call.pieces)
                event = SegmentEvent(SEGMENT_CONTENT, call.seg_id, call.seg_type, {"delta": piece})
                if self._on_event is not None:
                    self._on_event(event)
                return [event]
            out: list[SegmentEvent] = []
            if frags:
                self._fragments(call, frags, out)
            return out
        out = []
        if call is None:
            call = self._calls[key] = _Call("", "", self._parser_factory())
        if call.ignored or not text:
            return out
        if call.seg_type is None:
            call.pending.append(text)
            return out
        self._arguments(call, text, out)
        return out

    def end(self, key: Hashable) -> list[SegmentEvent]:
        """The call is complete: close its segment and create its invocation (unless its JSON is invalid or cut)."""
        out: list[SegmentEvent] = []
        call = self._calls.pop(key, None)
        if call is None or call.ignored:
            return out
        if call.seg_type is None:
            self._decide(call, out)
            if call.ignored:
                return out
        if call.error is None and call.seen:
            try:
                call.parser.finish()
            except ArgumentStreamError as exc:
                call.error = exc
        self._close(call, out, interrupted=isinstance(call.error, IncompleteJSONError))
        return out

    def finalize(self) -> list[SegmentEvent]:
        """The stream is over: every call and text segment still open ends, marked ``interrupted``."""
        out: list[SegmentEvent] = []
        for seg_id in self._texts.values():
            self._emit(out, SegmentEvent(SEGMENT_END, seg_id, TEXT, {"metadata": {"interrupted": True}}))
        self._texts.clear()
        calls = list(self._calls.values())
        self._calls.clear()
        for call in calls:
            if call.ignored:
                continue
            if call.seg_type is None:
                self._decide(call, out)
                if call.ignored:
                    continue
            self._close(call, out, interrupted=True)
        return out

    # -- argstream events ---------------------------------------------------------

    def handle(self, event: Any) -> list[SegmentEvent]:
        """One event of :mod:`argstream.events` (as :mod:`argstream.providers` yield them)."""
        cls = type(event)
        if cls is Part:
            part = event.part
            if type(part) is ToolCall:
                inner = part.part
                if type(inner) is ArgumentChunk:
                    return self.feed(event.index, inner.text)
                if type(inner) is ToolCallStart:
                    return self.start(inner.id, inner.name, key=event.index)
                raise TypeError(f"not a tool call part: {inner!r}")
            if type(part) is Message:
                return self._text(event.index, part.text)
            return []
        if cls is Flush:
            if event.index in self._texts:
                seg_id = self._texts.pop(event.index)
                out: list[SegmentEvent] = []
                self._emit(out, SegmentEvent(SEGMENT_END, seg_id, TEXT, {"metadata": {}}))
                return out
            return self.end(event.index)
        if cls is Finished:
            return self.finalize()
        raise TypeError(f"not an argstream event: {event!r}")

    def handle_all(self, events: Iterable[Any]) -> list[SegmentEvent]:
        """:meth:`handle` each event; return all the segment events."""
        out: list[SegmentEvent] = []
        for event in events:
            out.extend(self.handle(event))
        return out

    # -- internals ----------------------------------------------------------------

    def _emit(self, out: list[SegmentEvent], event: SegmentEvent) -> None:
        out.append(event)
        if self._on_event is not None:
            self._on_event(event)

    def _text(self, index: Hashable, text: str) -> list[SegmentEvent]:
        out: list[SegmentEvent] = []
        seg_id = self._texts.get(index)
        if seg_id is None:
            seg_id = self._texts[index] = self._new_id()
            self._emit(out, SegmentEvent(SEGMENT_START, seg_id, TEXT, {"metadata": {}}))
        if text:
            self._emit(out, SegmentEvent(SEGMENT_CONTENT, seg_id, TEXT, {"delta": text}))
        return out

    def _new_id(self) -> str:
        return f"{self._prefix}{uuid.uuid4().hex}"

    def _decide(self, call: _Call, out: list[SegmentEvent]) -> None:
        """The name is known (or never will be): fix the segment type and id, replay pending text."""
        seg_id = call.id or self._new_id()
        if seg_id in self._used_ids:
            call.ignored = True  # one invocation per call id, never two
            return
        self._used_ids.add(seg_id)
        call.seg_id = seg_id
        kind = self._file_tools.get(call.name)
        if kind is None:
            call.seg_type = TOOL_CALL
            self._start(call, out)
        else:
            call.seg_type = kind
            call.content_key = self._content_keys[kind]
        pending, call.pending = call.pending, []
        for text in pending:
            self._arguments(call, text, out)

    def _start(self, call: _Call, out: list[SegmentEvent]) -> None:
        call.started = True
        metadata: dict[str, Any] = {"tool_name": call.name}
        if call.path is not None:
            metadata[PATH_KEY] = call.path
        self._emit(out, SegmentEvent(SEGMENT_START, call.seg_id, call.seg_type, {"metadata": metadata}))

    def _arguments(self, call: _Call, text: str, out: list[SegmentEvent]) -> None:
        """Parse one argument chunk; emit what it made known."""
        if call.seg_type is TOOL_CALL:
            self._emit(out, SegmentEvent(SEGMENT_CONTENT, call.seg_id, TOOL_CALL, {"delta": text}))
        if call.error is not None:
            return
        if not call.seen:
            stripped = text.lstrip(" \t\r\n")
            if not stripped:
                call.parser.push(text)
                return
            call.seen = True
            if stripped[0] != "{":
                pos = call.parser.position + len(text) - len(stripped)
                call.error = ArgumentStreamError("Expecting '{': tool arguments must be a JSON object", pos)
                return
        try:
            frags = call.parser.push(text)
        except ArgumentStreamError as exc:
            call.error = exc
            frags = getattr(exc, "fragments", None) or []
        if frags:
            self._fragments(call, frags, out)
        if call.error is not None:
            call.hot = False

    def _fragments(self, call: _Call, frags: list[Any], out: list[SegmentEvent]) -> None:
        content_key = call.content_key
        streaming = call.seg_type is not TOOL_CALL
        delta: list[str] = []
        for f in frags:
            if type(f) not in _ENTRY:
                continue  # the root's Empty("object") or DONE (the root is an object: checked on its '{')
            key = f.key
            v = f.value
            tv = type(v)
            if call.open_key is None:
                call.open_key = key
                call.pieces = []
                call.scalar = _UNSET
                call.sub = None
            if tv in _STRING:
                call.pieces.append(v.text)
                if not len(call.pieces) & (PIECES_EVERY - 1):
                    compact_pieces(call.pieces)
                if streaming and key == content_key:
                    if not call.started:
                        self._start(call, out)
                    delta.append(v.text)
                    call.hot = call.error is None
            elif v is DONE:
                if call.sub is not None:
                    call.sub.push(DONE)
                    value = call.sub.value
                elif call.scalar is not _UNSET:
                    value = call.scalar
                else:
                    value = "".join(call.pieces)
                call.args[key] = value
                call.open_key = None
                call.hot = False
                call.pieces = []
                call.sub = None
                if delta:
                    text = "".join(delta)
                    self._emit(out, SegmentEvent(SEGMENT_CONTENT, call.seg_id, call.seg_type, {"delta": text}))
                    delta = []
                if streaming and key == PATH_KEY and type(value) is str:
                    call.path = value
                    if not call.started:
                        self._start(call, out)
            elif tv in _SCALAR:
                call.scalar = v.value
            elif tv is Empty and v.kind == "string":
                pass
            else:  # a nested value (or an empty object / array): aggregate it
                if call.sub is None:
                    call.sub = FragmentAggregator()
                call.sub.push(v)
        if delta:
            self._emit(out, SegmentEvent(SEGMENT_CONTENT, call.seg_id, call.seg_type, {"delta": "".join(delta)}))

    def _close(self, call: _Call, out: list[SegmentEvent], *, interrupted: bool) -> None:
        if not call.started:
            self._start(call, out)
        metadata: dict[str, Any] = {"tool_name": call.name}
        if call.path is not None:
            metadata[PATH_KEY] = call.path
        ok = not interrupted and call.error is None
        if ok:
            metadata["arguments"] = call.args
        if interrupted:
            metadata["interrupted"] = True
        if call.error is not None:
            metadata["error"] = str(call.error)  # JSON-friendly; the exception is in .errors
            self._errors[call.seg_id] = call.error
        self._emit(out, SegmentEvent(SEGMENT_END, call.seg_id, call.seg_type, {"metadata": metadata}))
        if ok and call.name:
            invocation = ToolInvocation(call.seg_id, call.name, call.args)
            self._invocations.append(invocation)
            if self._on_invocation is not None:
                self._on_invocation(invocation)
