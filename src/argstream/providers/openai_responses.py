"""OpenAI Responses streams (``POST /responses``, ``stream: true``) as typed events.

Input: the ``openai`` SDK's stream events (``client.responses.create(stream=True)``) or the
decoded SSE ``data`` dicts. Each output item gets its own event index, allocated in stream order
and never reused within one stream (a recording may hold several responses back to back):

- ``message`` items: ``output_text`` deltas become ``Message`` parts; ``refusal`` deltas become
  ``Message`` parts with ``{"refusal": True}`` part metadata.
- ``reasoning`` items: ``reasoning_summary_text`` and ``reasoning_text`` deltas become
  ``Reasoning`` parts; a summary part after the first is preceded by ``"\\n\\n"``. The item's
  ``id`` (``item_id``) and ``encrypted_content`` go in the ``Flush`` metadata; an item that
  streamed no text still produces one empty ``Reasoning`` part, so that metadata is kept.
- ``function_call`` items: ``ToolCallStart(call_id, name)`` then the argument text as
  ``ArgumentChunk`` parts. Arguments that arrive only whole (in ``output_item.added``, as xAI
  does, or only in ``function_call_arguments.done`` / ``output_item.done``, as LM Studio does)
  are sent exactly once; a whole copy that extends the streamed text sends only the missing
  tail. A final copy that contradicts the streamed text (another JSON value) is the provider
  disagreeing with itself: :class:`~argstream.providers.ProviderProtocolError` after
  ``Finished(ERROR)``, the call never flushed. ``Flush`` metadata: ``item_id``.
- A ``function_call`` named ``parallel`` (or ``multi_tool_use.parallel``) whose arguments are
  ``{"tool_uses": [{"recipient_name": "functions.<name>", "parameters": {...}}, ...]}`` is a
  wrapper some models emit around parallel calls: its text is held back and, at the item's end,
  each entry becomes its own call (name without ``functions.``, arguments ``parameters``, id
  ``"<call_id>-<n>"`` with ``{"id_generated": True, "wrapper": "parallel"}`` in the ``Flush``
  metadata). Arguments of any other shape make the ordinary call named ``parallel``.
- ``custom_tool_call`` items (free-text tools): the input text is not JSON, so it is streamed as
  the one string entry of ``{"input": "<text>"}`` (``ToolCallRequest.arguments == {"input": text}``,
  with ``ObjectEntry("input", String(...))`` progress as the text streams). ``Flush`` metadata:
  ``item_id`` and ``"kind": "custom_tool_call"``, so a caller knows to answer with a
  ``custom_tool_call_output``.
- Other items (hosted tools such as ``web_search_call``, ``tool_search_call``, ``mcp_call``,
  ``program``) are run by the provider or are not function tools: they are skipped.

Each response ends with one ``Finished``: ``response.completed`` → ``TOOL_USE`` when its output
holds function or custom tool calls, else ``REFUSAL`` when it streamed a refusal, else
``COMPLETED``; ``response.incomplete`` → ``MAX_TOKENS`` (``max_output_tokens``), ``REFUSAL``
(``content_filter``) or ``ERROR``; ``response.failed`` and ``error`` events → ``ERROR``; a
cancelled response → ``CANCELLED``. ``Finished.metadata`` holds ``stop_reason`` (the status,
or the incomplete reason), ``usage`` when the response has it and, for failures, ``error``. A stream that ends before its terminal
event gets ``Finished(ERROR)`` from the driver, and its open items are not flushed; a
``response.created`` before the previous response's terminal event is a spliced stream
(:class:`~argstream.providers.ProviderProtocolError`).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from typing import Any

from .._backend import ResponsesFast, ResponsesItem
from .._pieces_py import PIECES_EVERY, compact_pieces
from ..events import (
    Event,
    FinishReason,
    Message,
    Part,
    Reasoning,
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
    json_string_body,
    plain,
    text_field,
)

__all__ = ["ResponsesAdapter", "to_events", "ato_events"]

_MESSAGE, _REASONING, _FUNCTION, _CUSTOM = "message", "reasoning", "function_call", "custom_tool_call"
_TOOL_KINDS = (_FUNCTION, _CUSTOM)


_WRAPPERS = ("parallel", "multi_tool_use.parallel")


class ResponsesAdapter(ResponsesFast, Adapter):
    """State for one Responses stream (see the module doc).

    ``chunk(item, anonymous=False, text=None)``, the test for the dominant event, comes from
    ``ResponsesFast`` (``_fastpath``, compiled with the core): ``(index, delta)`` of a non-empty
    ``function_call_arguments.delta`` for a function call item known by its ``item_id`` (or, for an
    item without one, or ``anonymous``, by its ``output_index``), else ``None`` and nothing changed.
    """

    TEXT_PATH = ("delta",)
    MESSAGE_PATH = ("delta",)
    REASONING_PATHS = (("delta",),)
    FREE_FIELDS = ("sequence_number", "obfuscation")

    def __init__(self) -> None:
        self._next_index = 0
        self._by_output: dict[int, ResponsesItem] = {}
        self._by_id: dict[str, ResponsesItem] = {}
        self._tool_calls = False  # this response streamed a function / custom tool call
        self._refused = False
        self._active = False  # a response is in progress (no terminal event yet)
        self._ended = False  # a terminal event ended the last response and no other has started

    # -- routing ------------------------------------------------------------------

    def _item(self, event: Any) -> ResponsesItem | None:
        """The open item an event is for: by ``item_id``, else by ``output_index``."""
        item_id = get(event, "item_id")
        if item_id is not None and item_id in self._by_id:
            return self._by_id[item_id]
        item = self._by_output.get(get(event, "output_index"))
        if item is not None and item_id is not None and item.item_id not in (None, item_id):
            return None  # an item we do not track (a hosted tool) at a reused output_index
        return item

    def _new_response(self) -> None:
        self._ended = False
        self._by_output = {}
        self._by_id = {}
        self._tool_calls = False
        self._refused = False
        self._active = True

    # -- events -------------------------------------------------------------------

    def feed(self, item: Any) -> list[Event]:
        """Translate one Responses stream event."""
        kind = text_field(item, "type")
        handler = _HANDLERS.get(kind)
        if handler is None:
            return []
        return handler(self, item)

    def _created(self, event: Any) -> list[Event]:
        if self._active:
            raise ProviderProtocolError(
                "a response was created while the previous one is unfinished (a spliced stream)")
        self._new_response()
        return []

    def _in_progress(self, event: Any) -> list[Event]:
        if not self._active:  # a stream that starts without response.created
            self._new_response()
        return []

    def _item_added(self, event: Any) -> list[Event]:
        if not self._active:
            self._new_response()
        data = get(event, "item")
        kind = get(data, "type")
        if kind not in (_MESSAGE, _REASONING, _FUNCTION, _CUSTOM):
            return []
        item = ResponsesItem(self._take_index(), kind, get(data, "id"))
        output_index = get(event, "output_index")
        if output_index is not None:
            self._by_output[output_index] = item
        if item.item_id is not None:
            self._by_id[item.item_id] = item
        if kind not in _TOOL_KINDS:
            return []
        self._tool_calls = True
        call_id, name = get(data, "call_id", ""), get(data, "name", "")
        if kind == _FUNCTION and name in _WRAPPERS:
            item.wrapper = call_id
            return self._whole(item, get(data, "arguments", ""))
        out: list[Event] = [call_start(item.index, call_id, name)]
        if kind == _FUNCTION:
            out += self._whole(item, get(data, "arguments", ""))
        else:
            out.append(call_arguments(item.index, '{"input":"'))
            out += self._whole(item, get(data, "input", ""))
        return out

    def _send(self, item: ResponsesItem, text: str) -> list[Event]:
        if not text:
            return []
        item.sent.append(text)
        if not len(item.sent) & (PIECES_EVERY - 1):
            compact_pieces(item.sent)
        if item.wrapper is not None:
            return []  # held back until the item ends
        chunk = text if item.kind == _FUNCTION else json_string_body(text)
        return [call_arguments(item.index, chunk)]

    def _whole(self, item: ResponsesItem, text: str) -> list[Event]:
        """A whole copy of the arguments (or input): send what the deltas have not sent, once."""
        if not text:
            return []
        if not item.sent:
            return self._send(item, text)
        sent = "".join(item.sent)
        item.sent = [sent]
        if len(text) > len(sent) and text.startswith(sent):
            return self._send(item, text[len(sent):])
        if text != sent and (item.kind != _FUNCTION or not _same_value(text, sent)):
            raise ProviderProtocolError(
                f"the final copy of item {item.item_id!r} contradicts its streamed text: "
                f"{text[:80]!r} vs {sent[:80]!r}")
        return []  # already sent

    def _tool_delta(self, event: Any) -> list[Event]:
        item = self._item(event)
        if item is None or item.kind not in _TOOL_KINDS:
            return []
        return self._send(item, get(event, "delta", ""))

    def _arguments_done(self, event: Any) -> list[Event]:
        item = self._item(event)
        if item is None or item.kind != _FUNCTION:
            return []
        return self._whole(item, get(event, "arguments", ""))

    def _input_done(self, event: Any) -> list[Event]:
        item = self._item(event)
        if item is None or item.kind != _CUSTOM:
            return []
        return self._whole(item, get(event, "input", ""))

    def _text_delta(self, event: Any) -> list[Event]:
        item = self._item(event)
        delta = get(event, "delta", "")
        if item is None or item.kind != _MESSAGE or not delta:
            return []
        item.streamed = True
        return [Part(item.index, Message(delta))]

    def _refusal_delta(self, event: Any) -> list[Event]:
        item = self._item(event)
        delta = get(event, "delta", "")
        if item is None or item.kind != _MESSAGE or not delta:
            return []
        item.streamed = True
        self._refused = True
        return [Part(item.index, Message(delta), {"refusal": True})]

    def _summary_delta(self, event: Any) -> list[Event]:
        item = self._item(event)
        delta = get(event, "delta", "")
        if item is None or item.kind != _REASONING or not delta:
            return []
        out: list[Event] = []
        summary = get(event, "summary_index", 0)
        if summary != item.summary:
            if item.summary >= 0 and item.streamed:
                out.append(Part(item.index, Reasoning("\n\n")))
            item.summary = summary
        item.streamed = True
        out.append(Part(item.index, Reasoning(delta)))
        return out

    def _reasoning_delta(self, event: Any) -> list[Event]:
        item = self._item(event)
        delta = get(event, "delta", "")
        if item is None or item.kind != _REASONING or not delta:
            return []
        item.streamed = True
        return [Part(item.index, Reasoning(delta))]

    def _item_done(self, event: Any) -> list[Event]:
        data = get(event, "item")
        item = self._item({"item_id": get(data, "id"), "output_index": get(event, "output_index")})
        if item is None:
            return []
        return self._close(item, data)

    def _close(self, item: ResponsesItem, data: Any) -> list[Event]:
        """The item's last events: what only the whole item carries, then its ``Flush``."""
        self._by_output = {k: v for k, v in self._by_output.items() if v is not item}
        if item.item_id is not None:
            self._by_id.pop(item.item_id, None)
        out: list[Event] = []
        meta: dict[str, Any] = {}
        if item.item_id is not None:
            meta["item_id"] = item.item_id
        if item.kind == _FUNCTION:
            out += self._whole(item, get(data, "arguments", ""))
            if item.wrapper is not None:
                return out + self._unwrap(item, meta)
        elif item.kind == _CUSTOM:
            out += self._whole(item, get(data, "input", ""))
            out.append(call_arguments(item.index, '"}'))
            meta["kind"] = _CUSTOM
        elif item.kind == _REASONING:
            encrypted = get(data, "encrypted_content")
            if encrypted is not None:
                meta["encrypted_content"] = encrypted
            if not item.streamed:
                text = "\n\n".join(get(s, "text", "") for s in get_list(data, "summary"))
                text = text or "".join(get(c, "text", "") for c in get_list(data, "content"))
                out.append(Part(item.index, Reasoning(text)))
        elif not item.streamed:  # a message whose text never streamed
            for content in get_list(data, "content"):
                ctype = get(content, "type")
                if ctype == "output_text" and get(content, "text"):
                    out.append(Part(item.index, Message(get(content, "text"))))
                elif ctype == "refusal" and get(content, "refusal"):
                    self._refused = True
                    out.append(Part(item.index, Message(get(content, "refusal")), {"refusal": True}))
        out.append(flush(item.index, meta))
        return out

    def _unwrap(self, item: ResponsesItem, meta: dict[str, Any]) -> list[Event]:
        """The calls inside a ``parallel`` wrapper, or the wrapper itself when its arguments have another shape."""
        text = "".join(item.sent)
        call_id = item.wrapper or ""
        uses = _tool_uses(text)
        if uses is None:
            out: list[Event] = [call_start(item.index, call_id, "parallel")]
            if text:
                out.append(call_arguments(item.index, text))
            return out + [flush(item.index, meta)]
        out = []
        for n, (name, parameters) in enumerate(uses):
            index = item.index if n == 0 else self._take_index()
            out.append(call_start(index, f"{call_id}-{n}", name))
            out.append(self.whole_arguments(index, parameters))
            out.append(flush(index, {**meta, "id_generated": True, "wrapper": "parallel"}))
        return out

    def _take_index(self) -> int:
        index = self._next_index
        self._next_index += 1
        return index

    def _terminal(self, event: Any) -> list[Event]:
        if self._ended:
            return []  # the response has ended already: a repeated terminal event is ignored
        response = get(event, "response")
        status = get(response, "status") or get(event, "type", "").rpartition(".")[2]
        out: list[Event] = []
        # items the stream never closed: the terminal response holds them whole
        open_items = {id(i): i for i in list(self._by_output.values()) + list(self._by_id.values())}
        by_id = {get(o, "id"): o for o in get_list(response, "output")}
        for item in sorted(open_items.values(), key=lambda i: i.index):
            data = by_id.get(item.item_id)
            if data is not None or status == "completed":
                out += self._close(item, data)
        tool_calls = self._tool_calls or any(get(o, "type") in _TOOL_KINDS for o in get_list(response, "output"))
        meta: dict[str, Any] = {"stop_reason": status}
        usage = get(response, "usage")
        if usage is not None:
            meta["usage"] = plain(usage)
        if status == "completed":
            reason = FinishReason.REFUSAL if self._refused and not tool_calls else None
            reason = finish_reason(reason, tool_calls)
        elif status == "incomplete":
            why = get(get(response, "incomplete_details"), "reason")
            meta["stop_reason"] = why or status
            reason = {"max_output_tokens": FinishReason.MAX_TOKENS, "content_filter": FinishReason.REFUSAL}.get(
                why, FinishReason.ERROR
            )
        elif status == "cancelled":
            reason = FinishReason.CANCELLED
        else:  # failed
            reason = FinishReason.ERROR
            error = get(response, "error")
            if error is not None:
                meta["error"] = plain(error)
        self._active = False
        self._ended = True
        self._by_output, self._by_id = {}, {}
        out.append(finished(reason, meta))
        return out

    def _error(self, event: Any) -> list[Event]:
        self._active = False
        self._ended = True
        self._by_output, self._by_id = {}, {}
        error = {k: get(event, k) for k in ("code", "message", "param") if get(event, k) is not None}
        nested = get(event, "error")  # some servers nest it
        if nested is not None:
            error = plain(nested)
        return [finished(FinishReason.ERROR, {"stop_reason": "error", "error": error})]


def _same_value(a: str, b: str) -> bool:
    """Whether two argument texts are the same JSON value (a copy may be spaced differently).

    Compared as JSON, not as Python values: ``1`` is not ``true``, and a copy with a repeated key
    (``{"path": "/etc/passwd", "path": "src/a"}``) is never the same value, whatever the last one
    says: the decision path treats a repeated key as an error, so the copy does too."""
    try:
        return _json_same(json.loads(a, object_pairs_hook=_unique), json.loads(b, object_pairs_hook=_unique))
    except (ValueError, RecursionError):
        return False


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    value = dict(pairs)
    if len(value) != len(pairs):
        raise ValueError("a repeated key")
    return value


def _json_same(a: Any, b: Any) -> bool:
    """JSON equality: numbers by value (``1 == 1.0``), every other type only with its own type."""
    if type(a) is bool or type(b) is bool:
        return type(a) is type(b) and a == b
    if type(a) in (int, float) and type(b) in (int, float):
        return bool(a == b)
    if type(a) is not type(b):
        return False
    if type(a) is list:
        return len(a) == len(b) and all(_json_same(x, y) for x, y in zip(a, b))
    if type(a) is dict:
        return a.keys() == b.keys() and all(_json_same(a[k], b[k]) for k in a)
    return bool(a == b)


def _tool_uses(text: str) -> list[tuple[str, dict[str, Any]]] | None:
    """``(name, parameters)`` of each entry of a ``parallel`` wrapper's arguments; ``None`` for another shape."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    uses = value.get("tool_uses") if type(value) is dict and len(value) == 1 else None
    if type(uses) is not list or not uses:
        return None
    out = []
    for use in uses:
        if type(use) is not dict or type(use.get("recipient_name")) is not str:
            return None
        if type(use.get("parameters")) is not dict:
            return None
        out.append((use["recipient_name"].removeprefix("functions."), use["parameters"]))
    return out


_HANDLERS = {
    "response.created": ResponsesAdapter._created,
    "response.in_progress": ResponsesAdapter._in_progress,
    "response.queued": ResponsesAdapter._in_progress,
    "response.output_item.added": ResponsesAdapter._item_added,
    "response.output_item.done": ResponsesAdapter._item_done,
    "response.function_call_arguments.delta": ResponsesAdapter._tool_delta,
    "response.function_call_arguments.done": ResponsesAdapter._arguments_done,
    "response.custom_tool_call_input.delta": ResponsesAdapter._tool_delta,
    "response.custom_tool_call_input.done": ResponsesAdapter._input_done,
    "response.output_text.delta": ResponsesAdapter._text_delta,
    "response.refusal.delta": ResponsesAdapter._refusal_delta,
    "response.reasoning_summary_text.delta": ResponsesAdapter._summary_delta,
    "response.reasoning_text.delta": ResponsesAdapter._reasoning_delta,
    "response.completed": ResponsesAdapter._terminal,
    "response.incomplete": ResponsesAdapter._terminal,
    "response.failed": ResponsesAdapter._terminal,
    "response.cancelled": ResponsesAdapter._terminal,
    "error": ResponsesAdapter._error,
}


def adapter() -> ResponsesAdapter:
    """A new adapter for one stream (what :func:`to_events` drives), for a fused consumer."""
    return ResponsesAdapter()


def to_events(stream: Iterable[Any]) -> Iterator[Event]:
    """Events from a Responses stream: SDK stream events or decoded SSE ``data`` dicts.

    Raises:
        whatever iterating ``stream`` raises (the SDK's ``APIError`` / ``APIConnectionError``),
        after yielding ``Finished(ERROR)``.
    """
    return drive(ResponsesAdapter(), stream)


def ato_events(stream: AsyncIterable[Any]) -> AsyncIterator[Event]:
    """Async twin of :func:`to_events` (``AsyncOpenAI`` streams or any async iterable of dicts)."""
    return adrive(ResponsesAdapter(), stream)
