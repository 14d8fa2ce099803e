"""Gemini streams as typed events: ``generateContent`` streams (Gemini API and Vertex AI) and the
Interactions API.

Input: the ``google-genai`` SDK's ``GenerateContentResponse`` chunks
(``client.models.generate_content_stream``) or the decoded SSE ``data`` dicts (camelCase wire
names and snake_case SDK names are both read). A stream whose items carry ``event_type`` is an
Interactions API stream (see :class:`InteractionsAdapter`).

``generateContent`` streams (:class:`GeminiAdapter`), first candidate only (``candidateCount > 1``
gives alternative answers, not parallel output; the others are ignored):

- ``text`` parts become ``Message`` parts, ``thought: true`` text ``Reasoning`` parts; a run of
  parts of one kind shares an index, flushed when another kind starts or the response ends. An
  empty text part is skipped unless it carries a ``thoughtSignature``.
- A ``functionCall`` with whole ``args`` (the Gemini API) gets its own index: ``ToolCallStart``,
  then the object serialised once (compact ``json.dumps``) as one ``ArgumentChunk``, then
  ``Flush``. A call with neither ``args`` nor ``partialArgs`` streams no argument text (``{}``).
  (The fused pipeline of ``iter_tool_stream`` and the coordinator takes the decoded object itself
  instead, ``Adapter.whole_arguments``: the same items, without writing the text and parsing it.)
- Vertex AI argument streaming (``functionCall{name, willContinue}``, then
  ``partialArgs[{jsonPath, stringValue|numberValue|boolValue|nullValue, willContinue}]``, then a
  functionCall without ``willContinue``) is turned into JSON text as the pieces arrive, so the
  fragments stream: each piece opens or closes the containers between the previous path and its
  own (paths arrive in document order), string pieces for one path continue one JSON string, and
  a piece with ``willContinue`` unset closes it. The call ends with the first ``functionCall``
  without ``willContinue`` (the empty terminator, or the last piece itself when a server omits
  the terminator). A new call, another kind of part or the response's ``finishReason`` while it
  still said more would follow cut it off: it is never flushed (the builder reports it
  incomplete), since closing its brackets would make up a value the model never finished. Should
  a path ever go back to a container already closed, the pieces from then on are collected and
  each affected top-level entry is sent again, whole, when the call ends (a repeated key: the
  last one wins, as in ``json.loads``). Paths are read as RFC 9535 normalized paths (names and
  indexes). Any other path, a path deeper than ``MAX_PATH_STEPS`` (the nesting limit of tool
  arguments, ``argstream.builder.TOOL_MAX_DEPTH``), an array index that skips ahead of the next free position, or a
  value of the wrong type for its kind is a protocol error:
  :class:`~argstream.providers.ProviderProtocolError`, after ``Finished(ERROR)``. So the work
  and memory of each piece are bounded by its own size (a 150-byte ``$.a[10000000]`` is refused
  at once instead of writing ten million ``null``). A chunk whose one piece only continues the
  string still open (a long ``content`` streams as hundreds of them) is read by the fused pipeline's
  fast test (:meth:`GeminiAdapter.chunk`), straight into the call's parser: the same items.
- Calls without an ``id`` get a deterministic one: ``"<responseId>-call-<n>"`` (``n`` counts the
  stream's calls from 0; ``"gemini-call-<n>"`` without a ``responseId``), with
  ``{"id_generated": True}`` in the ``Flush`` metadata: the Gemini API matches function
  responses by name, so such an id is for local bookkeeping only.
- ``thoughtSignature`` (base64, re-encoded from the SDK's bytes) goes in the part's metadata as
  ``thought_signature``. Provider-run parts (``executableCode``, ``codeExecutionResult``) and
  media are skipped.

Finish reasons: ``STOP`` → ``TOOL_USE`` when the response made function calls, else
``COMPLETED``; ``MAX_TOKENS`` → ``MAX_TOKENS``; content-policy stops (``SAFETY``, ``RECITATION``,
``BLOCKLIST``, ``PROHIBITED_CONTENT``, ``SPII``, ``IMAGE_SAFETY``, ``IMAGE_PROHIBITED_CONTENT``,
``IMAGE_RECITATION``, ``MODEL_ARMOR``) and a blocked prompt (``promptFeedback.blockReason``) →
``REFUSAL``; everything else (``MALFORMED_FUNCTION_CALL``, ``UNEXPECTED_TOOL_CALL``,
``TOO_MANY_TOOL_CALLS``, ``OTHER``, ``LANGUAGE``, …) → ``ERROR``. ``Finished.metadata`` holds
``stop_reason`` (Gemini's name) and ``usage`` (the finishing chunk's ``usageMetadata``). A
repeated ``finishReason`` adds no second ``Finished``. A stream that ends without a
``finishReason`` ends with ``Finished(ERROR)`` and its open call is not flushed.
"""

from __future__ import annotations

import base64
import json
import math
import re
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator, Mapping
from typing import Any

from .._backend import GeminiFast
from .._pieces_py import PIECES_EVERY, compact_pieces
from ..builder import TOOL_MAX_DEPTH
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
from ._common import (
    Adapter,
    ProviderProtocolError,
    WholeCallAdapter,
    adrive,
    call_start,
    drive,
    finish_reason,
    finished,
    flush,
    get,
    get_list,
    json_string_body,
    plain,
    text_part,
)

__all__ = [
    "GeminiAdapter", "InteractionsAdapter", "MAX_PATH_STEPS", "PartialArgsWriter", "parse_json_path", "to_events",
    "ato_events",
]

_REFUSALS = frozenset({
    "SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY",
    "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION", "MODEL_ARMOR",
})


def _field(obj: Any, snake: str, camel: str) -> Any:
    """A field by its SDK (snake_case) or wire (camelCase) name."""
    if type(obj) is dict or isinstance(obj, Mapping):
        value = obj.get(camel)
        return obj.get(snake) if value is None else value
    return get(obj, snake)


def _enum_name(value: Any) -> str | None:
    if value is None:
        return None
    return str(getattr(value, "value", value))


def _signature(part: Any) -> str | None:
    sig = _field(part, "thought_signature", "thoughtSignature")
    if isinstance(sig, (bytes, bytearray)):
        return base64.b64encode(sig).decode("ascii")
    return sig or None


# -- JSONPath and partialArgs -----------------------------------------------------

MAX_PATH_STEPS = TOOL_MAX_DEPTH
"""The deepest ``jsonPath`` read: the nesting limit of tool arguments (``EventBuilder``), so no valid call needs more."""

_STEP = re.compile(r"""\.([^.\[]+)|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]|\["((?:[^"\\]|\\.)*)"\]""")


def parse_json_path(path: str) -> tuple[str | int, ...]:
    """Steps of an RFC 9535 path of names and indexes: ``"$.a[0]['b c']"`` → ``("a", 0, "b c")``.

    A dotted name runs up to the next ``.`` or ``[`` (more lenient than RFC 9535's shorthand).

    Raises:
        ProviderProtocolError: ``path`` is not a string starting with ``$``, holds a step this
            parser does not read, or more than :data:`MAX_PATH_STEPS` steps.
    """
    if type(path) is not str or not path.startswith("$"):
        raise ProviderProtocolError(f"JSONPath must be a string starting with '$': {path!r}")
    steps: list[str | int] = []
    pos = 1
    while pos < len(path):
        if len(steps) == MAX_PATH_STEPS:
            raise ProviderProtocolError(f"JSONPath deeper than {MAX_PATH_STEPS} steps")
        m = _STEP.match(path, pos)
        if m is None:
            raise ProviderProtocolError(f"unsupported JSONPath step at {pos} in {path[:200]!r}")
        name, index, single, double = m.groups()
        if index is not None:
            steps.append(int(index))
        elif name is not None:
            steps.append(name)
        else:
            steps.append(_unescape(single if single is not None else double))
        pos = m.end()
    return tuple(steps)


_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|.)")
_SIMPLE = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "/": "/", "\\": "\\", "'": "'", '"': '"'}


def _unescape(quoted: str) -> str:
    """The name inside a quoted JSONPath step (RFC 9535 escapes, surrogate pairs joined)."""
    def one(m: re.Match[str]) -> str:
        esc = m.group(1)
        if esc[0] == "u":
            return chr(int(esc[1:], 16))
        if esc not in _SIMPLE:
            raise ProviderProtocolError(f"invalid escape \\{esc} in JSONPath name {quoted!r}")
        return _SIMPLE[esc]

    text = _ESCAPE.sub(one, quoted)
    if any("\ud800" <= c <= "\udfff" for c in text):
        text = text.encode("utf-16", "surrogatepass").decode("utf-16", "surrogatepass")
    return text


_NON_FINITE = ("NaN", "Infinity", "-Infinity")


def _number(value: Any) -> str:
    if isinstance(value, str):  # proto3 JSON spells non-finite doubles as strings
        if value not in _NON_FINITE:
            raise ProviderProtocolError(f"numberValue must be a number, got {value[:40]!r}")
        return json.dumps(value)
    if type(value) is not int and type(value) is not float:
        raise ProviderProtocolError(f"numberValue must be a number, got {type(value).__name__}")
    if isinstance(value, float):
        if not math.isfinite(value):
            return json.dumps("NaN" if value != value else ("Infinity" if value > 0 else "-Infinity"))
        if value.is_integer() and abs(value) < 2**53:
            return str(int(value))
    return json.dumps(value)


class _Pieces(list):
    """A string value being collected piece by piece (the fallback's merged tree)."""


class _Frame:
    __slots__ = ("array", "last", "count", "keys")

    def __init__(self, array: bool) -> None:
        self.array = array
        self.last: str | int | None = None  # step of the latest child
        self.count = 0
        self.keys: set[str] = set()


class PartialArgsWriter:
    """JSON text from Vertex ``partialArgs`` pieces, written as they arrive.

    ``feed(path, value, kind, will_continue)`` returns the text that piece adds; ``close()`` the
    text that ends the document. ``kind`` is ``"string"``, ``"number"``, ``"bool"`` or ``"null"``.
    Every leaf is also kept in a merged tree, used only if the paths stop arriving in document
    order (see the module doc).
    """

    def __init__(self) -> None:
        self._frames: list[_Frame] = []
        self._string: tuple | None = None  # path of the string still open in the text
        self._started = False
        self._merged: Any = None
        self._merged_string: tuple | None = None  # path of the merged string still growing
        self._late: dict[Any, None] | None = None  # top-level steps to send again (fallback)

    # merged tree -------------------------------------------------------------------

    def _merge(self, path: tuple, kind: str, value: Any, will_continue: bool) -> None:
        if kind != "string":
            self._assign(path, value)
        elif self._merged_string == path:
            pieces = self._lookup(path)
            pieces.append(value)
            if not len(pieces) & (PIECES_EVERY - 1):
                compact_pieces(pieces)
        else:
            self._assign(path, _Pieces([value]))
        self._merged_string = path if kind == "string" and will_continue else None

    def _lookup(self, path: tuple) -> Any:
        node = self._merged
        for step in path:
            node = node[step]
        return node

    def _assign(self, path: tuple, leaf: Any) -> None:
        if not path:
            self._merged = leaf
            return
        if not isinstance(self._merged, (dict, list)) or isinstance(self._merged, _Pieces):
            self._merged = [] if isinstance(path[0], int) else {}
        node = self._merged
        for step, nxt in zip(path, path[1:] + (None,)):
            if type(node) is list and step > len(node):
                raise ProviderProtocolError(f"array index {step} skips ahead of the next free position, {len(node)}")
            if nxt is None:
                _put(node, step, leaf)
            else:
                child = _slot(node, step)
                want_list = isinstance(nxt, int)
                if not isinstance(child, list if want_list else dict) or isinstance(child, _Pieces):
                    child = [] if want_list else {}
                    _put(node, step, child)
                node = child

    # text ----------------------------------------------------------------------------

    def continuation(self, path: tuple) -> list[str] | None:
        """The values of the string still open at ``path`` (in the text and in the merged tree) when a
        string piece there with more to follow only continues it: ``feed`` then appends its value to
        this list and adds its escaped text, nothing else. Else ``None``."""
        if self._late is None and self._string == path and self._merged_string == path:
            return self._lookup(path)
        return None

    def feed(self, path: tuple, value: Any, kind: str, will_continue: bool = False) -> str:
        """The JSON text that one piece adds (possibly empty)."""
        self._merge(path, kind, value, will_continue)
        if self._late is not None:
            if path:
                self._late[path[0]] = None
            return ""
        out: list[str] = []
        if self._string is not None:
            if path == self._string and kind == "string":
                out.append(json_string_body(value))
                if not will_continue:
                    out.append('"')
                    self._string = None
                return "".join(out)
            out.append('"')
            self._string = None
        if not self._fits(path):
            out.append(self._break(path))
            return "".join(out)
        self._open(path, out)
        if kind == "string":
            out.append('"' + json_string_body(value))
            if will_continue:
                self._string = path
            else:
                out.append('"')
        elif kind == "number":
            out.append(_number(value))
        elif kind == "bool":
            out.append("true" if value else "false")
        else:
            out.append("null")
        return "".join(out)

    def _common(self, path: tuple) -> int:
        """How many open containers (from the root) lie on ``path``."""
        frames = self._frames
        if not frames or not path or frames[0].array != isinstance(path[0], int):
            return 0
        k = 1
        while (k < len(frames) and k < len(path) and frames[k - 1].last == path[k - 1]
               and frames[k].array == isinstance(path[k], int)):
            k += 1
        return k

    def _fits(self, path: tuple) -> bool:
        """Whether ``path`` can be written next without revisiting a closed value."""
        if not self._frames:
            return not self._started
        k = self._common(path)
        if k == 0:
            return False  # another root
        top = self._frames[k - 1]
        step = path[k - 1]
        if top.count == 0:
            return True
        if top.array:
            return isinstance(step, int) and step > top.last  # type: ignore[operator]
        return step not in top.keys

    def _open(self, path: tuple, out: list[str]) -> None:
        """Close the containers ``path`` leaves, open the ones it enters, and write its key."""
        frames = self._frames
        k = self._common(path)
        while len(frames) > k:
            out.append("]" if frames.pop().array else "}")
        if not frames:
            self._started = True
            if not path:
                return
            frames.append(_Frame(isinstance(path[0], int)))
            out.append("[" if frames[0].array else "{")
            k = 1
        for i in range(k - 1, len(path)):
            frame = frames[i]
            step = path[i]
            if frame.count:
                out.append(",")
            if frame.array:
                start = frame.last + 1 if frame.count else 0  # type: ignore[operator]
                if step != start:
                    raise ProviderProtocolError(f"array index {step} is not the next position, {start}")
            else:
                out.append(json.dumps(step, ensure_ascii=False) + ":")
                frame.keys.add(step)
            frame.last = step
            frame.count += 1
            if i + 1 < len(path):
                child = _Frame(isinstance(path[i + 1], int))
                out.append("[" if child.array else "{")
                frames.append(child)

    def _break(self, path: tuple) -> str:
        """Paths went back: close everything below the root and collect from now on."""
        frames = self._frames
        out = []
        while len(frames) > 1:
            out.append("]" if frames.pop().array else "}")
        self._late = {path[0]: None} if path else {}
        return "".join(out)

    def close(self) -> str:
        """The text that ends the document (closing quotes, brackets, braces)."""
        out = []
        if self._string is not None:
            out.append('"')
            self._string = None
        frames = self._frames
        while len(frames) > 1:
            out.append("]" if frames.pop().array else "}")
        if self._late and frames and not frames[0].array and isinstance(self._merged, dict):
            for key in self._late:
                if isinstance(key, str) and key in self._merged:
                    out.append("," + json.dumps(key, ensure_ascii=False) + ":")
                    out.append(json.dumps(_unpieces(self._merged[key]), ensure_ascii=False, separators=(",", ":")))
        if frames:
            out.append("]" if frames.pop().array else "}")
        self._late = None
        return "".join(out)


def _slot(node: Any, step: Any) -> Any:
    if isinstance(node, dict):
        return node.get(step)
    return node[step] if step < len(node) else None


def _put(node: Any, step: Any, value: Any) -> None:
    if isinstance(node, dict):
        node[step] = value
        return
    while len(node) <= step:
        node.append(None)
    node[step] = value


def _unpieces(value: Any) -> Any:
    if isinstance(value, _Pieces):
        return "".join(value)
    if isinstance(value, dict):
        return {k: _unpieces(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_unpieces(v) for v in value]
    return value


def _piece(arg: Any) -> tuple[Any, str] | None:
    """``(value, kind)`` of one partialArg, or ``None`` when it carries no value."""
    string = _field(arg, "string_value", "stringValue")
    if string is not None:
        if type(string) is not str:
            raise ProviderProtocolError(f"stringValue must be a string, got {type(string).__name__}")
        return string, "string"
    number = _field(arg, "number_value", "numberValue")
    if number is not None:
        _number(number)  # checked before it reaches the merged tree
        return number, "number"
    boolean = _field(arg, "bool_value", "boolValue")
    if boolean is not None:
        if type(boolean) is not bool:
            raise ProviderProtocolError(f"boolValue must be a boolean, got {type(boolean).__name__}")
        return boolean, "bool"
    if _field(arg, "null_value", "nullValue") is not None or (
            isinstance(arg, Mapping) and ("nullValue" in arg or "null_value" in arg)):
        return None, "null"  # proto3 JSON spells NullValue as null itself
    return None


# -- generateContent ----------------------------------------------------------------------


class GeminiAdapter(GeminiFast, WholeCallAdapter):
    """State for one ``generateContent`` stream (see the module doc).

    ``chunk(item, text=None)``, the test for a Vertex piece that continues the open string, comes from
    ``GeminiFast`` (``_fastpath``, compiled with the core): ``(index, argument text)`` of a chunk (a
    wire dict) whose one piece only continues the string the open streamed call is writing, else
    ``None`` and nothing changed; ``_open_string`` and ``_sink`` are its state. So do the fused
    pipeline's tests for a lone text part (``text_chunk``, which reads an SDK object with
    ``_text_read``) and for whole calls (``call_chunk``, which ends a response with ``_finish``).
    """

    #: where a piece that continues the open string holds its text (``chunk``), for raw input's templates
    TEXT_PATH = ("candidates", 0, "content", "parts", 0, "functionCall", "partialArgs", 0, "stringValue")

    def __init__(self) -> None:
        super().__init__()
        self._call: tuple[int, PartialArgsWriter] | None = None  # the streamed call still open
        self._sink = None  # the open string ``chunk`` appends to (``GeminiFast``); the general way drops it
        self._response_id: str | None = None
        self._call_meta: dict[int, dict[str, Any]] = {}  # Flush metadata of the streamed call
        self._finished = False  # the last events ended with Finished (a repeated finishReason adds none)

    def _close_call(self, out: list[Event], ended: bool = False) -> None:
        """Close the streamed call: flushed when ``ended`` (its last piece said no more follows),
        else cut off (a finish, text or another call arrived while it said more would): left
        unflushed, so the builder reports it incomplete instead of a value with its end made up."""
        if self._call is not None:
            index, writer = self._call
            self._call = None
            if not ended:
                self._call_meta.pop(index, None)
                return
            tail = writer.close()
            if tail:
                out.append(Part(index, ToolCall(ArgumentChunk(tail))))
            out.append(Flush(index, self._call_meta.pop(index, {})))

    def feed(self, item: Any) -> list[Event]:
        """Translate one ``GenerateContentResponse`` chunk."""
        self._sink = None  # the writer may change below: ``chunk`` looks again
        out: list[Event] = []
        response_id = _field(item, "response_id", "responseId")
        if response_id and self._response_id is None:
            self._response_id = response_id
        candidates = get_list(item, "candidates")
        if not candidates:
            feedback = _field(item, "prompt_feedback", "promptFeedback")
            block = _enum_name(_field(feedback, "block_reason", "blockReason"))
            if block and not self._finished:
                self._close_text(out)
                self._close_call(out)
                out.append(Finished(FinishReason.REFUSAL, {"stop_reason": block}))
                self._finished = True
            return out
        candidate = candidates[0]
        for part in get_list(get(candidate, "content"), "parts"):
            self._part(part, out)
        reason = _enum_name(_field(candidate, "finish_reason", "finishReason"))
        if out:
            self._finished = False
        if reason and not self._finished:
            self._finished = True
            self._close_text(out)
            self._close_call(out)
            meta: dict[str, Any] = {"stop_reason": reason}
            usage = _field(item, "usage_metadata", "usageMetadata")
            if usage is not None:
                meta["usage"] = plain(usage)
            out.append(finished(self._reason(reason), meta))
            self._response_calls = False
        return out

    def _open_string(self, path: str) -> tuple[str, int, list[str]] | None:
        """``(path, index, pieces)`` when a string piece at jsonPath ``path`` with more to follow only
        continues the string the open call is writing (``chunk``'s ``_sink``: writing such a piece is
        appending its value to ``pieces``, the writer's own, and its escaped text to the document); else
        ``None``. Never raises: a path that does not parse is the general way's."""
        if self._call is None:
            return None
        try:
            steps = parse_json_path(path)
        except ProviderProtocolError:
            return None
        index, writer = self._call
        pieces = writer.continuation(steps)
        return None if pieces is None else (path, index, pieces)

    def _text_read(self, item: Any) -> tuple[bool, Any, str] | None:
        """``text_chunk``'s reading of a chunk that is not a wire dict (an SDK object): ``(reasoning,
        response id or None, text)`` of its one candidate's one text part, with no finish, no signature
        and no call; else ``None``. Never raises: a malformed chunk is the general way's."""
        try:
            response_id = _field(item, "response_id", "responseId") or None
            candidates = get_list(item, "candidates")
            if len(candidates) != 1:
                return None
            candidate = candidates[0]
            if _field(candidate, "finish_reason", "finishReason") is not None:
                return None
            parts = get_list(get(candidate, "content"), "parts")
            if len(parts) != 1:
                return None
            part = parts[0]
            got = get(part, "text")
            if (type(got) is not str or not got or _signature(part) is not None
                    or _field(part, "function_call", "functionCall") is not None):
                return None
            return bool(get(part, "thought")), response_id, got
        except Exception:  # noqa: BLE001 - the general way raises what it finds
            return None

    def _finish(self, reason: str, meta: dict[str, Any]) -> Finished:
        """The ``Finished`` of a ``call_chunk`` hit that ends the response (``finishReason`` ``reason``)."""
        return finished(self._reason(reason), meta)

    def _reason(self, name: str) -> FinishReason:
        if name == "STOP":
            return finish_reason(None, self._response_calls)
        if name == "MAX_TOKENS":
            return FinishReason.MAX_TOKENS
        if name in _REFUSALS:
            return FinishReason.REFUSAL
        return FinishReason.ERROR

    def _part(self, part: Any, out: list[Event]) -> None:
        signature = _signature(part)
        meta = {"thought_signature": signature} if signature else {}
        call = _field(part, "function_call", "functionCall")
        if call is not None:
            self._close_text(out)
            self._function_call(call, meta, out)
            return
        text = get(part, "text")
        if not text and not meta:
            return  # provider-run code, media, empty text: skipped
        self._close_call(out)
        cls = Reasoning if get(part, "thought") else Message
        if self._text is None or self._text[1] is not cls:
            self._close_text(out)
            self._text = (self._index(), cls)
        out.append(text_part(self._text[0], cls, text or "", meta))

    def _function_call(self, call: Any, meta: dict[str, Any], out: list[Event]) -> None:
        name = get(call, "name")
        will_continue = bool(_field(call, "will_continue", "willContinue"))
        partial = _field(call, "partial_args", "partialArgs") or ()
        if self._call is not None and name:
            self._close_call(out)  # a new call starts: the previous one is over
        if self._call is not None:
            index, writer = self._call
            text = self._pieces(writer, partial)
            if text or meta:
                out.append(Part(index, ToolCall(ArgumentChunk(text)), meta))
            if not will_continue:
                self._close_call(out, ended=True)
            return
        args = get(call, "args")
        if not name:
            if args is None and not partial:
                return  # a terminator with no call open
            raise ProviderProtocolError("a functionCall without a name carries arguments, and no call is open")
        index = self._index()
        call_id = get(call, "id")
        flush_meta: dict[str, Any] = {}
        if not call_id:
            call_id = f"{self._response_id or 'gemini'}-call-{self._calls}"
            flush_meta["id_generated"] = True
        self._calls += 1
        self._response_calls = True
        out.append(call_start(index, call_id, name or "", meta))
        if args is not None:
            out.append(self.whole_arguments(index, args))
            out.append(flush(index, flush_meta))
            return
        writer = PartialArgsWriter()
        self._call = (index, writer)
        self._call_meta[index] = flush_meta
        if partial:
            text = self._pieces(writer, partial)
            if text:
                out.append(Part(index, ToolCall(ArgumentChunk(text))))
        if not will_continue:
            if partial:
                self._close_call(out, ended=True)
            else:  # a call without arguments
                self._call = None
                out.append(Flush(index, self._call_meta.pop(index)))

    @staticmethod
    def _pieces(writer: PartialArgsWriter, partial: Iterable[Any]) -> str:
        out = []
        for arg in partial:
            piece = _piece(arg)
            path = _field(arg, "json_path", "jsonPath")
            if piece is None or path is None:
                continue
            value, kind = piece
            will_continue = bool(_field(arg, "will_continue", "willContinue"))
            out.append(writer.feed(parse_json_path(path), value, kind, will_continue))
        return "".join(out)


# -- Interactions API --------------------------------------------------------------------

_INTERACTION_REASONS = {
    "requires_action": None,  # the model wants tool results: TOOL_USE when it made calls
    "completed": None,
    "incomplete": FinishReason.MAX_TOKENS,
    "budget_exceeded": FinishReason.MAX_TOKENS,
    "cancelled": FinishReason.CANCELLED,
    "failed": FinishReason.ERROR,
}


class InteractionsAdapter(Adapter):
    """State for one Interactions API stream (``event_type`` events).

    ``step.start`` opens an index per step (``content.start`` / ``.delta`` / ``.stop`` and
    ``interaction.complete``, the schema Google has since replaced, are read alike; there a
    ``function_call`` delta carries the call whole): ``thought`` steps stream ``Reasoning``
    (``thought_summary`` deltas), ``model_output`` steps ``Message`` (``text`` deltas),
    ``function_call`` steps a tool call (``arguments_delta`` strings as ``ArgumentChunk``; an
    ``arguments`` object given whole in ``step.start`` is sent once at ``step.stop`` if no delta
    came). ``thought_signature`` deltas go in the step's ``Flush`` metadata; ``step.stop``
    flushes. ``interaction.completed`` ends the response: status ``requires_action`` or
    ``completed`` → ``TOOL_USE`` with function calls, else ``COMPLETED``; ``incomplete`` /
    ``budget_exceeded`` → ``MAX_TOKENS``; ``cancelled`` → ``CANCELLED``; ``failed`` and ``error``
    events → ``ERROR``. Other step types (provider-run tools) are skipped.
    """

    def __init__(self) -> None:
        self._next_index = 0
        self._steps: dict[int, tuple[int, str, dict[str, Any], list[Any]]] = {}
        self._calls = False
        self._done = False  # interaction.completed arrived and no other interaction started

    def feed(self, item: Any) -> list[Event]:
        kind = get(item, "event_type")
        if kind in ("interaction.created", "interaction.start"):
            self._done = False
            return []
        if self._done:
            return []  # the interaction is over: only a new one counts
        if kind == "step.start" or kind == "content.start":
            return self._start(item)
        if kind == "step.delta" or kind == "content.delta":
            return self._delta(item)
        if kind == "step.stop" or kind == "content.stop":
            return self._stop(item)
        if kind == "interaction.completed" or kind == "interaction.complete":
            self._done = True
            return self._completed(item)
        if kind == "error":
            error = get(item, "error")
            return [Finished(FinishReason.ERROR, {"stop_reason": "error", "error": plain(error) if error else {}})]
        return []

    def _start(self, event: Any) -> list[Event]:
        step = get(event, "step") or get(event, "content")  # ``content`` in the retired schema
        kind = get(step, "type")
        if kind not in ("thought", "model_output", "function_call"):
            return []
        index = self._next_index
        self._next_index += 1
        meta: dict[str, Any] = {}
        signature = get(step, "signature")
        if signature:
            meta["thought_signature"] = signature
        # state: event index, step type, flush metadata, [whole arguments, any delta sent]
        self._steps[get(event, "index")] = (index, kind, meta, [get(step, "arguments"), False])
        out: list[Event] = []
        if kind == "function_call":
            self._calls = True
            out.append(Part(index, ToolCall(ToolCallStart(get(step, "id", ""), get(step, "name", "")))))
        elif kind == "model_output":
            for content in get_list(step, "content"):
                if get(content, "type") == "text" and get(content, "text"):
                    out.append(Part(index, Message(get(content, "text"))))
        else:
            summary = "".join(get(c, "text", "") for c in get_list(step, "summary"))
            if summary:
                out.append(Part(index, Reasoning(summary)))
        return out

    def _delta(self, event: Any) -> list[Event]:
        state = self._steps.get(get(event, "index"))
        if state is None:
            return []
        index, kind, meta, args = state
        delta = get(event, "delta")
        dtype = get(delta, "type")
        if dtype == "thought_signature":
            if get(delta, "signature"):
                meta["thought_signature"] = get(delta, "signature")
            return []
        if dtype == "function_call" and kind == "function_call":  # the retired schema: the call whole
            args[0] = get(delta, "arguments")
            return [Part(index, ToolCall(ToolCallStart(get(delta, "id", ""), get(delta, "name", ""))))]
        if dtype == "arguments_delta" and kind == "function_call":
            text = get(delta, "arguments", "")
            if not text:
                return []
            args[1] = True
            return [Part(index, ToolCall(ArgumentChunk(text)))]
        if dtype == "text":
            text = get(delta, "text", "")
            cls = Reasoning if kind == "thought" else Message
            return [Part(index, cls(text))] if text and kind != "function_call" else []
        if dtype == "thought_summary" and kind == "thought":
            text = get(get(delta, "content"), "text", "")
            return [Part(index, Reasoning(text))] if text else []
        return []

    def _stop(self, event: Any) -> list[Event]:
        state = self._steps.pop(get(event, "index"), None)
        if state is None:
            return []
        index, kind, meta, (whole, sent) = state
        out: list[Event] = []
        if kind == "function_call" and not sent and whole:
            out.append(self.whole_arguments(index, whole))
        elif kind == "thought" and meta:
            out.append(Part(index, Reasoning(""), meta))  # keep a bare signature
        out.append(Flush(index, meta))
        return out

    def _completed(self, event: Any) -> list[Event]:
        interaction = get(event, "interaction")
        status = _enum_name(get(interaction, "status")) or "completed"
        reason = _INTERACTION_REASONS.get(status, FinishReason.ERROR)
        meta: dict[str, Any] = {"stop_reason": status}
        if reason is FinishReason.ERROR and get(interaction, "error") is not None:
            meta["error"] = plain(get(interaction, "error"))
        calls, self._calls = self._calls, False
        self._steps.clear()
        return [Finished(finish_reason(reason, calls), meta)]


class _AutoAdapter(Adapter):
    """Picks :class:`InteractionsAdapter` or :class:`GeminiAdapter` from the first item."""

    def __init__(self) -> None:
        self._inner: Adapter | None = None

    def feed(self, item: Any) -> list[Event]:
        if self._inner is None:
            self._inner = InteractionsAdapter() if get(item, "event_type") is not None else GeminiAdapter()
            self._inner.whole_values = self.whole_values
        return self._inner.feed(item)

    def for_item(self, first: Any) -> Adapter:
        """The adapter ``feed`` would pick for a stream whose first item is ``first``, to be fed without
        this one in between (a fused pipeline has the first item before it feeds it); itself when
        ``first`` cannot be read (its ``feed`` then raises what it finds)."""
        if self._inner is None:
            try:
                interactions = get(first, "event_type") is not None
            except Exception:  # noqa: BLE001 - feed raises it, in its place
                return self
            self._inner = InteractionsAdapter() if interactions else GeminiAdapter()
        return self._inner

    def end(self) -> list[Event]:
        return self._inner.end() if self._inner is not None else []


def adapter() -> Adapter:
    """A new adapter for one stream (what :func:`to_events` drives), for a fused consumer."""
    return _AutoAdapter()


def adapter_for(first: Any) -> Adapter:
    """``adapter().for_item(first)``: the adapter for a stream whose first item is ``first``, made
    without the picker in between (a fused pipeline makes one a stream)."""
    if type(first) is dict:
        return InteractionsAdapter() if first.get("event_type") is not None else GeminiAdapter()
    return _AutoAdapter().for_item(first)


def to_events(stream: Iterable[Any]) -> Iterator[Event]:
    """Events from a Gemini stream: SDK ``GenerateContentResponse`` chunks, decoded wire dicts, or
    Interactions API events.

    Raises:
        whatever iterating ``stream`` raises (``google.genai.errors.APIError``, ``httpx`` errors),
        after yielding ``Finished(ERROR)``.
    """
    return drive(_AutoAdapter(), stream)


def ato_events(stream: AsyncIterable[Any]) -> AsyncIterator[Event]:
    """Async twin of :func:`to_events` (``client.aio.models.generate_content_stream``)."""
    return adrive(_AutoAdapter(), stream)
