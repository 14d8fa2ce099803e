"""Stream items as the AI SDK UI message stream (Vercel's ``ai``: ``useChat``, ``readUIMessageStream``).

One message per stream: ``start``; each model response is a step (``start-step`` ...
``finish-step``); ``finish`` with the last response's reason. Inside a step:

- text and reasoning: ``text-start`` / ``text-delta`` / ``text-end`` and ``reasoning-*``, one
  part per index (structured output streams as text);
- a tool call: ``tool-input-start``; ``tool-input-delta`` per argument fragment (the deltas
  join to the arguments' JSON); ``tool-input-available`` with the final arguments, or
  ``tool-input-error`` for arguments that are invalid, cut off or break the tool's schema;
- argstream's own view, so a page never parses partial JSON: ``data-argstream-fragment``
  (transient: ``{toolCallId, path, text | value | done}`` per fragment) and
  ``data-argstream-parameter`` (``{toolCallId, name, value}``, once per completed top-level
  parameter, id ``"{toolCallId}:{name}"``), ``data-argstream-violation``;
- with a decision driver (:mod:`argstream.ui.decisions`): ``data-argstream-decision``, a prompt as
  ``tool-approval-request`` plus ``data-argstream-approval`` (id: the approval id, with the
  parameters the decision rests on; ``state`` becomes ``"approved"`` / ``"declined"`` when
  answered), ``tool-output-denied`` for a call that will not run, ``tool-output-available`` /
  ``tool-output-error`` for one that ran.

A response that ends in error adds an ``error`` chunk; one cancelled (every streaming call
declined) adds ``abort``. Every chunk is a dict ready for ``json.dumps``; :mod:`argstream.ui.sse`
frames them.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator
from json.encoder import encode_basestring
from typing import Any

from .._backend import STRING_TYPES
from .._fragments_py import Done, Empty
from ..events import FinishReason, ToolCallArgumentProgress
from ..jsonform import to_dict
from ..stream import (
    ReasoningDelta, StreamFinished, StructuredDelta, TextDelta, ToolCallFailed, ToolCallFinished, ToolCallStarted,
    ToolCallViolation,
)
from ._argtext import json_safe
from ._common import AI_SDK_FINISH, Call, Ids, error_text, new_id, stream_error_text
from ._drive import AsyncEncoded, Encoded
from ._jsontext import frame, json_text, quote
from .items import ApprovalAnswered, ApprovalRequested, ToolCallDecided, ToolCallDenied, ToolCallOutput

__all__ = ["AiSdkEncoder", "aai_sdk_chunks", "ai_sdk_chunks"]

_EMPTY_VALUE = {"object": {}, "array": [], "string": ""}


class AiSdkEncoder:
    """The sans-IO encoder: :meth:`start`, then :meth:`encode` per item, then :meth:`finish`; each
    returns the chunks to send.

    ``message_id``: the message's id (default: a fresh unguessable one); part ids derive from it.
    ``fragments=False`` leaves out the transient ``data-argstream-fragment`` parts,
    ``parameters=False`` the ``data-argstream-parameter`` parts.
    """

    def __init__(self, *, message_id: str | None = None, fragments: bool = True, parameters: bool = True) -> None:
        self.message_id = message_id or new_id("msg")
        self.fragments = fragments
        self.parameters = parameters
        self.ids = Ids(self.message_id)
        self.reason: FinishReason | None = None
        self._open: dict[str, str] = {}  # part id -> "text" or "reasoning", in opening order
        self._in_step = False
        self._handlers: dict[type, Callable[[Any], list[dict[str, Any]]]] = {
            ToolCallArgumentProgress: self.progress,
            TextDelta: self._text,
            ReasoningDelta: self._reasoning,
            StructuredDelta: self._structured,
            ToolCallStarted: self._started,
            ToolCallFinished: self._finished,
            ToolCallFailed: self._failed,
            ToolCallViolation: self._violation,
            StreamFinished: self._stream_finished,
            ToolCallDecided: self._decided,
            ApprovalRequested: self._approval,
            ApprovalAnswered: self._answered,
            ToolCallDenied: self._denied,
            ToolCallOutput: self._output,
        }

    def start(self) -> list[dict[str, Any]]:
        return [{"type": "start", "messageId": self.message_id}]

    def encode(self, item: Any) -> list[dict[str, Any]]:
        """The chunks for one item (a stream item or a decision item).

        Raises:
            TypeError: ``item`` is neither.
        """
        handler = self._handlers.get(type(item))
        if handler is None:
            raise TypeError(f"not a stream item: {type(item).__name__}")
        return handler(item)

    def error(self, text: str) -> list[dict[str, Any]]:
        """An ``error`` chunk (the stream raised): the page shows ``text``."""
        return [{"type": "error", "errorText": text}]

    def finish(self) -> list[dict[str, Any]]:
        """Close what is open, end the step, and ``finish`` the message."""
        out = self._end_step()
        chunk: dict[str, Any] = {"type": "finish"}
        if self.reason is not None:
            chunk["finishReason"] = AI_SDK_FINISH[self.reason]
        out.append(chunk)
        return out

    # -- steps and text ------------------------------------------------------------------------

    def _step(self, out: list[dict[str, Any]]) -> None:
        if not self._in_step:
            self._in_step = True
            self.ids.next_step()
            out.append({"type": "start-step"})

    def _end_step(self) -> list[dict[str, Any]]:
        out = [{"type": f"{kind}-end", "id": part} for part, kind in self._open.items()]
        self._open.clear()
        if self._in_step:
            self._in_step = False
            out.append({"type": "finish-step"})
        return out

    def _delta(self, kind: str, part_kind: str, index: int, text: str) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        self._step(out)
        part = self.ids.part(part_kind, index)
        if part not in self._open:
            self._open[part] = kind
            out.append({"type": f"{kind}-start", "id": part})
        out.append({"type": f"{kind}-delta", "id": part, "delta": text})
        return out

    def _text(self, item: TextDelta) -> list[dict[str, Any]]:
        return self._delta("text", "text", item.index, item.text)

    def _reasoning(self, item: ReasoningDelta) -> list[dict[str, Any]]:
        return self._delta("reasoning", "reasoning", item.index, item.text)

    def _structured(self, item: StructuredDelta) -> list[dict[str, Any]]:
        return self._delta("text", "structured", item.index, item.chunk)

    # -- tool calls ----------------------------------------------------------------------------

    def _call(self, index: int, provider_id: str, name: str, out: list[dict[str, Any]]) -> Call:
        call = self.ids.calls.get(index)
        if call is None:  # an item before its call's start: start it here
            self._step(out)
            call = self.ids.call(provider_id, name, index)
            out.append({"type": "tool-input-start", "toolCallId": call.id, "toolName": name})
        return call

    def _started(self, item: ToolCallStarted) -> list[dict[str, Any]]:
        self.ids.calls.pop(item.index, None)
        if not item.name:  # the name comes later (Gemini): start the call at its next item, which has it
            return []
        out: list[dict[str, Any]] = []
        self._call(item.index, item.id, item.name, out)
        return out

    def progress(self, item: ToolCallArgumentProgress) -> list[dict[str, Any]]:
        """``encode(item)``, the common case first: one more piece of the string being written."""
        call = self.ids.calls.get(item.index)
        leaf = item.leaf
        if (call is None or call.closed or type(leaf) not in STRING_TYPES or len(item.path) != call.text.string_depth
                or not leaf.text or item.completed is not None):
            return self._progress(item)
        piece = leaf.text
        call_id = call.id
        delta = {"type": "tool-input-delta", "toolCallId": call_id, "inputTextDelta": encode_basestring(piece)[1:-1]}
        if not self.fragments:
            return [delta]
        path = item.path
        if path is not call.path and path != call.path:  # a string's pieces: one list for them all
            call.path, call.path_list = path, list(path)
        return [delta, {"type": "data-argstream-fragment",
                        "data": {"toolCallId": call_id, "path": call.path_list, "text": piece}, "transient": True}]

    def progress_frames(self, item: ToolCallArgumentProgress) -> bytes:
        """The SSE frames of ``progress(item)``; the common case written from text kept per call and path,
        byte for byte what framing its chunks writes."""
        call = self.ids.calls.get(item.index)
        leaf = item.leaf
        if (call is None or call.closed or type(leaf) not in STRING_TYPES or len(item.path) != call.text.string_depth
                or not leaf.text or item.completed is not None):
            return b"".join([frame(chunk) for chunk in self._progress(item)])
        piece = leaf.text
        head = call.frame_head
        if not head:
            head = call.frame_head = ('data: {"type":"tool-input-delta","toolCallId":' + quote(call.id)
                                      + ',"inputTextDelta":')
        delta = quote(encode_basestring(piece)[1:-1])
        if not self.fragments:
            return (head + delta + "}\n\n").encode("ascii")
        path = item.path
        if path is not call.frame_path and path != call.frame_path:
            call.frame_path = path
            call.frame_mid = ('}\n\ndata: {"type":"data-argstream-fragment","data":{"toolCallId":' + quote(call.id)
                              + ',"path":' + json_text(list(path)) + ',"text":')
        return (head + delta + call.frame_mid + quote(piece) + '},"transient":true}\n\n').encode("ascii")

    def _progress(self, item: Any) -> list[dict[str, Any]]:
        call = self.ids.calls.get(item.index)
        if call is None or call.closed:
            out: list[dict[str, Any]] = []
            if call is not None:  # progress after the call's end (not from iter_tool_stream): nothing to add
                return out
            call = self._call(item.index, item.tool_call_id, item.tool_name, out)
        else:
            out = []
        path, leaf = item.path, item.leaf
        cls = type(leaf)
        text = call.text
        if cls in STRING_TYPES and len(path) == text.string_depth:
            delta = encode_basestring(leaf.text)[1:-1]  # one more piece of the string being written
        else:
            delta = text.delta(path, leaf)
        call_id = call.id
        if delta:
            out.append({"type": "tool-input-delta", "toolCallId": call_id, "inputTextDelta": delta})
        if self.fragments:
            if path is not call.path:  # the pieces of one string share their path: one list for them all
                call.path, call.path_list = path, list(path)
            if cls in STRING_TYPES:
                data = {"toolCallId": call_id, "path": call.path_list, "text": leaf.text}
            elif cls is Done:
                data = {"toolCallId": call_id, "path": call.path_list, "done": True}
            elif cls is Empty:
                data = {"toolCallId": call_id, "path": call.path_list, "value": _EMPTY_VALUE[leaf.kind]}
            else:
                data = {"toolCallId": call_id, "path": call.path_list, "value": json_safe(leaf.value)}
            out.append({"type": "data-argstream-fragment", "data": data, "transient": True})
        completed = item.completed
        if completed is not None and self.parameters and len(completed.path) == 1 and type(completed.path[0]) is str:
            name = completed.path[0]
            value = call.parameters[name] = json_safe(completed.value)
            out.append({"type": "data-argstream-parameter", "id": f"{call_id}:{name}",
                        "data": {"toolCallId": call_id, "name": name, "value": value}})
        return out

    def _input_error(self, call: Call, item: Any, arguments: Any) -> list[dict[str, Any]]:
        if call.closed:
            return []
        call.closed = True
        return [{"type": "tool-input-error", "toolCallId": call.id, "toolName": call.name,
                 "input": json_safe(arguments), "errorText": error_text(item)}]

    def _finished(self, item: ToolCallFinished) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        call = self._call(item.index, item.id, item.name, out)
        if not item.ok:
            out += self._input_error(call, item, item.arguments)
            return out
        if not call.closed:
            call.closed = True
            whole = call.text.whole(item.arguments)
            if whole:
                out.append({"type": "tool-input-delta", "toolCallId": call.id, "inputTextDelta": whole})
            out.append({"type": "tool-input-available", "toolCallId": call.id, "toolName": call.name,
                        "input": json_safe(item.arguments)})
        return out

    def _failed(self, item: ToolCallFailed) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        call = self._call(item.index, item.id, item.name, out)
        out += self._input_error(call, item, call.parameters)
        return out

    def _violation(self, item: ToolCallViolation) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        call = self._call(item.index, item.id, item.name, out)
        violation = item.violation
        data = to_dict(violation) if hasattr(violation, "keyword") else {"message": str(violation)}
        out.append({"type": "data-argstream-violation", "id": call.id,
                    "data": {"toolCallId": call.id, "violation": json_safe(data)}})
        out += self._input_error(call, item, call.parameters)
        return out

    def _stream_finished(self, item: StreamFinished) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        self._step(out)  # a response with no other item is still a step
        self.reason = item.reason
        if item.reason is FinishReason.ERROR:
            out.append({"type": "error", "errorText": stream_error_text(item.metadata)})
        out += self._end_step()
        if item.reason is FinishReason.CANCELLED:
            out.append({"type": "abort", "reason": "cancelled: no tool call left to stream"})
        return out

    # -- decisions -----------------------------------------------------------------------------

    def _known(self, index: int) -> Call | None:
        """The call a decision item is about: the one at ``index`` in the current (or last) response."""
        return self.ids.by_index.get(index)

    def _decided(self, item: ToolCallDecided) -> list[dict[str, Any]]:
        call = self._known(item.index)
        if call is None:
            return []
        return [{"type": "data-argstream-decision", "id": call.id,
                 "data": {"toolCallId": call.id, "toolName": call.name, "mode": item.mode, "at": item.at}}]

    def _approval_part(self, item: Any, call: Call, state: str) -> dict[str, Any]:
        data = {"approvalId": item.approval_id, "toolCallId": call.id, "toolName": call.name, "state": state}
        if type(item) is ApprovalRequested:
            data.update(arguments=json_safe(item.arguments), streaming=item.streaming, reprompt=item.reprompt)
        return {"type": "data-argstream-approval", "id": item.approval_id, "data": data}

    def _approval(self, item: ApprovalRequested) -> list[dict[str, Any]]:
        call = self._known(item.index)
        if call is None:
            return []
        return [self._approval_part(item, call, "requested"),
                {"type": "tool-approval-request", "approvalId": item.approval_id, "toolCallId": call.id}]

    def _answered(self, item: ApprovalAnswered) -> list[dict[str, Any]]:
        call = self._known(item.index)
        if call is None:
            return []
        return [self._approval_part(item, call, "approved" if item.approved else "declined")]

    def _denied(self, item: ToolCallDenied) -> list[dict[str, Any]]:
        call = self._known(item.index)
        return [] if call is None else [{"type": "tool-output-denied", "toolCallId": call.id}]

    def _output(self, item: ToolCallOutput) -> list[dict[str, Any]]:
        call = self._known(item.index)
        if call is None:
            return []
        if item.error is not None:
            return [{"type": "tool-output-error", "toolCallId": call.id, "errorText": item.error}]
        return [{"type": "tool-output-available", "toolCallId": call.id, "output": json_safe(item.output)}]


def _describe(exc: BaseException) -> str:
    return f"the stream failed ({type(exc).__name__})"


def ai_sdk_chunks(
    items: Iterable[Any], *, message_id: str | None = None, fragments: bool = True, parameters: bool = True,
    on_error: Callable[[BaseException], str] = _describe,
) -> Iterator[dict[str, Any]]:
    """The AI SDK UI chunks of ``items`` (from ``iter_tool_stream``, or a decision driver), in order.

    When ``items`` raises, the error is logged (logger ``argstream.ui``) and the stream ends with an
    ``error`` chunk (``on_error(exc)``: by default only the exception's type, never its text,
    which may hold request details) and ``finish``, so the page sees a clean end.
    :func:`~argstream.ui.ai_sdk_sse` of the result writes its frames without building the dicts.
    """
    return Encoded(AiSdkEncoder(message_id=message_id, fragments=fragments, parameters=parameters), items, on_error)


def aai_sdk_chunks(
    items: AsyncIterable[Any] | Iterable[Any], *, message_id: str | None = None, fragments: bool = True,
    parameters: bool = True, on_error: Callable[[BaseException], str] = _describe,
) -> AsyncIterator[dict[str, Any]]:
    """Async twin of :func:`ai_sdk_chunks` (``items`` may be async or plain iterable)."""
    return AsyncEncoded(AiSdkEncoder(message_id=message_id, fragments=fragments, parameters=parameters), items,
                        on_error)
