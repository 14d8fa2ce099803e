"""Stream items as AG-UI events (``@ag-ui/client``; Python ``ag-ui-protocol``).

One run per stream: ``RUN_STARTED`` and a ``STATE_SNAPSHOT`` (``{"toolCalls": {}}``); each model
response is a step (``STEP_STARTED`` ... ``STEP_FINISHED``); ``RUN_FINISHED`` with
``result: {"finishReason": ...}`` (``outcome: cancelled`` when every streaming call was declined),
or ``RUN_ERROR`` for a response that ended in error. Inside a step:

- text: ``TEXT_MESSAGE_START`` / ``_CONTENT`` / ``_END``; reasoning: ``REASONING_START``,
  ``REASONING_MESSAGE_*``, ``REASONING_END``; one message open at a time;
- a tool call: ``TOOL_CALL_START``, ``TOOL_CALL_ARGS`` per argument fragment (joining to the
  arguments' JSON), ``TOOL_CALL_END``;
- argstream's own view, as state and custom events, so a page never parses partial JSON: the
  state holds ``toolCalls[id] = {name, arguments, status}``, and ``STATE_DELTA`` (RFC 6902)
  adds each top-level parameter the moment it is complete and updates ``status``
  (``streaming``, ``complete``, ``invalid``, ``approval-requested``, ``approved``, ``declined``,
  ``denied``, ``done``); ``CUSTOM`` events ``argstream.fragment`` (per fragment:
  ``{toolCallId, path, text | value | done}``), ``argstream.tool_input_error``,
  ``argstream.violation``;
- with a decision driver (:mod:`argstream.ui.decisions`): ``CUSTOM`` ``argstream.decision``,
  ``argstream.approval_request`` (``{approvalId, toolCallId, toolName, arguments, streaming,
  reprompt}``), ``argstream.approval_answer``, ``argstream.denied``; a call that ran gives
  ``TOOL_CALL_RESULT`` (its output as JSON text) or ``argstream.tool_output_error``.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator
from json.encoder import encode_basestring
from typing import Any

from .._backend import SCALAR_TYPES, STRING_TYPES
from .._fragments_py import Done, Empty
from ..events import FinishReason, ToolCallArgumentProgress
from ..jsonform import to_dict
from ..stream import (
    ReasoningDelta, StreamFinished, StructuredDelta, TextDelta, ToolCallFailed, ToolCallFinished, ToolCallStarted,
    ToolCallViolation,
)
from ._argtext import json_safe
from ._common import Call, Ids, error_text, new_id, stream_error_text
from ._drive import AsyncEncoded, Encoded
from ._jsontext import frame, json_text, quote
from .items import ApprovalAnswered, ApprovalRequested, ToolCallDecided, ToolCallDenied, ToolCallOutput

__all__ = ["AgUiEncoder", "aag_ui_events", "ag_ui_events", "json_pointer"]

_EMPTY_VALUE = {"object": {}, "array": [], "string": ""}


def json_pointer(*steps: str | int) -> str:
    """An RFC 6901 pointer to ``steps`` (``~`` and ``/`` in a key escaped)."""
    return "".join("/" + str(step).replace("~", "~0").replace("/", "~1") for step in steps)


class AgUiEncoder:
    """The sans-IO encoder: :meth:`start`, :meth:`encode` per item, :meth:`finish`; each returns events.

    ``thread_id`` / ``run_id``: the run's ids (default: fresh unguessable ones). ``fragments=False``
    leaves out the ``argstream.fragment`` custom events.
    """

    def __init__(self, *, thread_id: str | None = None, run_id: str | None = None, fragments: bool = True) -> None:
        self.thread_id = thread_id or new_id("thread")
        self.run_id = run_id or new_id("run")
        self.fragments = fragments
        self.ids = Ids(self.run_id)
        self.reason: FinishReason | None = None
        self.ended = False  # RUN_ERROR was sent: nothing follows it
        self._message: tuple[str, str] | None = None  # (kind, id) of the open text or reasoning message
        self._messages = 0
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
        return [{"type": "RUN_STARTED", "threadId": self.thread_id, "runId": self.run_id},
                {"type": "STATE_SNAPSHOT", "snapshot": {"toolCalls": {}}}]

    def encode(self, item: Any) -> list[dict[str, Any]]:
        """The events for one item (a stream item or a decision item).

        Raises:
            TypeError: ``item`` is neither.
        """
        handler = self._handlers.get(type(item))
        if handler is None:
            raise TypeError(f"not a stream item: {type(item).__name__}")
        if self.ended:
            return []
        return handler(item)

    def error(self, text: str) -> list[dict[str, Any]]:
        """End the run with ``RUN_ERROR`` (the stream raised): the page shows ``text``."""
        if self.ended:
            return []
        self.ended = True
        return [{"type": "RUN_ERROR", "message": text}]

    def finish(self) -> list[dict[str, Any]]:
        """Close what is open, end the step and the run."""
        if self.ended:
            return []
        self.ended = True
        out = self._end_step()
        event: dict[str, Any] = {"type": "RUN_FINISHED", "threadId": self.thread_id, "runId": self.run_id}
        if self.reason is not None:
            event["result"] = {"finishReason": self.reason.value}
            if self.reason is FinishReason.CANCELLED:
                event["outcome"] = {"type": "cancelled"}
        out.append(event)
        return out

    # -- steps and messages --------------------------------------------------------------------

    def _step(self, out: list[dict[str, Any]]) -> None:
        if not self._in_step:
            self._in_step = True
            self.ids.next_step()
            out.append({"type": "STEP_STARTED", "stepName": f"response-{self.ids.step}"})

    def _close_message(self, out: list[dict[str, Any]]) -> None:
        if self._message is None:
            return
        kind, message_id = self._message
        self._message = None
        if kind == "text":
            out.append({"type": "TEXT_MESSAGE_END", "messageId": message_id})
        else:
            out.append({"type": "REASONING_MESSAGE_END", "messageId": message_id})
            out.append({"type": "REASONING_END", "messageId": message_id})

    def _end_step(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        self._close_message(out)
        if self._in_step:
            self._in_step = False
            out.append({"type": "STEP_FINISHED", "stepName": f"response-{self.ids.step}"})
        return out

    def _delta(self, kind: str, part: str, index: int, text: str) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        self._step(out)
        message = self._message
        if message is None or message[0] != kind or not message[1].startswith(self.ids.part(part, index) + "."):
            self._close_message(out)
            self._messages += 1
            message_id = f"{self.ids.part(part, index)}.{self._messages}"
            self._message = (kind, message_id)
            if kind == "text":
                out.append({"type": "TEXT_MESSAGE_START", "messageId": message_id, "role": "assistant"})
            else:
                out.append({"type": "REASONING_START", "messageId": message_id})
                out.append({"type": "REASONING_MESSAGE_START", "messageId": message_id, "role": "reasoning"})
        else:
            message_id = message[1]
        kind_event = "TEXT_MESSAGE_CONTENT" if kind == "text" else "REASONING_MESSAGE_CONTENT"
        out.append({"type": kind_event, "messageId": message_id, "delta": text})
        return out

    def _text(self, item: TextDelta) -> list[dict[str, Any]]:
        return self._delta("text", "text", item.index, item.text)

    def _reasoning(self, item: ReasoningDelta) -> list[dict[str, Any]]:
        return self._delta("reasoning", "reasoning", item.index, item.text)

    def _structured(self, item: StructuredDelta) -> list[dict[str, Any]]:
        return self._delta("text", "structured", item.index, item.chunk)

    # -- tool calls ----------------------------------------------------------------------------

    def _status(self, call: Call, status: str) -> dict[str, Any]:
        return {"type": "STATE_DELTA", "delta": [
            {"op": "replace", "path": json_pointer("toolCalls", call.id, "status"), "value": status}]}

    def _call(self, index: int, provider_id: str, name: str, out: list[dict[str, Any]]) -> Call:
        call = self.ids.calls.get(index)
        if call is None:
            self._step(out)
            self._close_message(out)
            call = self.ids.call(provider_id, name, index)
            out.append({"type": "TOOL_CALL_START", "toolCallId": call.id, "toolCallName": name})
            out.append({"type": "STATE_DELTA", "delta": [
                {"op": "add", "path": json_pointer("toolCalls", call.id),
                 "value": {"name": name, "arguments": {}, "status": "streaming"}}]})
        return call

    def _started(self, item: ToolCallStarted) -> list[dict[str, Any]]:
        self.ids.calls.pop(item.index, None)  # a start always opens a new call
        if not item.name:  # the name comes later (Gemini): start the call at its next item, which has it
            return []
        out: list[dict[str, Any]] = []
        self._call(item.index, item.id, item.name, out)
        return out

    def progress(self, item: ToolCallArgumentProgress) -> list[dict[str, Any]]:
        """``encode(item)``, the common case first: one more piece of the string being written."""
        call = self.ids.calls.get(item.index)
        leaf = item.leaf
        if (call is None or call.closed or self.ended or type(leaf) not in STRING_TYPES
                or len(item.path) != call.text.string_depth or not leaf.text or item.completed is not None):
            return [] if self.ended else self._progress(item)
        piece = leaf.text
        call_id = call.id
        delta = {"type": "TOOL_CALL_ARGS", "toolCallId": call_id, "delta": encode_basestring(piece)[1:-1]}
        if not self.fragments:
            return [delta]
        path = item.path
        if path is not call.path and path != call.path:  # a string's pieces: one list for them all
            call.path, call.path_list = path, list(path)
        return [delta, {"type": "CUSTOM", "name": "argstream.fragment",
                        "value": {"toolCallId": call_id, "path": call.path_list, "text": piece}}]

    def progress_frames(self, item: ToolCallArgumentProgress) -> bytes:
        """The SSE frames of ``progress(item)``; the common case written from text kept per call and path,
        byte for byte what framing its events writes."""
        call = self.ids.calls.get(item.index)
        leaf = item.leaf
        if (call is None or call.closed or self.ended or type(leaf) not in STRING_TYPES
                or len(item.path) != call.text.string_depth or not leaf.text or item.completed is not None):
            return b"" if self.ended else b"".join([frame(event) for event in self._progress(item)])
        piece = leaf.text
        head = call.frame_head
        if not head:
            head = call.frame_head = 'data: {"type":"TOOL_CALL_ARGS","toolCallId":' + quote(call.id) + ',"delta":'
        delta = quote(encode_basestring(piece)[1:-1])
        if not self.fragments:
            return (head + delta + "}\n\n").encode("ascii")
        path = item.path
        if path is not call.frame_path and path != call.frame_path:
            call.frame_path = path
            call.frame_mid = ('}\n\ndata: {"type":"CUSTOM","name":"argstream.fragment","value":{"toolCallId":'
                              + quote(call.id) + ',"path":' + json_text(list(path)) + ',"text":')
        return (head + delta + call.frame_mid + quote(piece) + '}}\n\n').encode("ascii")

    def _progress(self, item: Any) -> list[dict[str, Any]]:
        call = self.ids.calls.get(item.index)
        out: list[dict[str, Any]] = []
        if call is None:
            call = self._call(item.index, item.tool_call_id, item.tool_name, out)
        elif call.closed:  # progress after the call's end (not from iter_tool_stream): nothing to add
            return out
        path, leaf = item.path, item.leaf
        text = call.text
        if type(leaf) in STRING_TYPES and len(path) == text.string_depth:
            delta = encode_basestring(leaf.text)[1:-1]  # one more piece of the string being written
        else:
            delta = text.delta(path, leaf)
        if delta:
            out.append({"type": "TOOL_CALL_ARGS", "toolCallId": call.id, "delta": delta})
        if self.fragments:
            data: dict[str, Any] = {"toolCallId": call.id, "path": list(path)}
            cls = type(leaf)
            if cls in STRING_TYPES:
                data["text"] = leaf.text
            elif cls is Done:
                data["done"] = True
            elif cls in SCALAR_TYPES:
                data["value"] = json_safe(leaf.value)
            elif cls is Empty:
                data["value"] = _EMPTY_VALUE[leaf.kind]
            out.append({"type": "CUSTOM", "name": "argstream.fragment", "value": data})
        completed = item.completed
        if completed is not None and len(completed.path) == 1 and type(completed.path[0]) is str:
            name = completed.path[0]
            value = call.parameters[name] = json_safe(completed.value)
            out.append({"type": "STATE_DELTA", "delta": [
                {"op": "add", "path": json_pointer("toolCalls", call.id, "arguments", name), "value": value}]})
        return out

    def _end_call(self, call: Call, item: Any, ok: bool) -> list[dict[str, Any]]:
        if call.closed:
            return []
        call.closed = True
        out: list[dict[str, Any]] = [{"type": "TOOL_CALL_END", "toolCallId": call.id}]
        if not ok:
            out.append({"type": "CUSTOM", "name": "argstream.tool_input_error",
                        "value": {"toolCallId": call.id, "toolName": call.name, "errorText": error_text(item)}})
        out.append(self._status(call, "complete" if ok else "invalid"))
        return out

    def _finished(self, item: ToolCallFinished) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        call = self._call(item.index, item.id, item.name, out)
        whole = call.text.whole(item.arguments) if item.ok and not call.closed else ""
        if whole:
            out.append({"type": "TOOL_CALL_ARGS", "toolCallId": call.id, "delta": whole})
        out += self._end_call(call, item, item.ok)
        return out

    def _failed(self, item: ToolCallFailed) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        call = self._call(item.index, item.id, item.name, out)
        out += self._end_call(call, item, False)
        return out

    def _violation(self, item: ToolCallViolation) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        call = self._call(item.index, item.id, item.name, out)
        violation = item.violation
        data = to_dict(violation) if hasattr(violation, "keyword") else {"message": str(violation)}
        out.append({"type": "CUSTOM", "name": "argstream.violation",
                    "value": {"toolCallId": call.id, "violation": json_safe(data)}})
        out += self._end_call(call, item, False)
        return out

    def _stream_finished(self, item: StreamFinished) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        self._step(out)
        self.reason = item.reason
        out += self._end_step()
        if item.reason is FinishReason.ERROR:
            out += self.error(stream_error_text(item.metadata))
        return out

    # -- decisions -----------------------------------------------------------------------------

    def _custom(self, name: str, value: dict[str, Any], call: Call, status: str | None = None) -> list[dict[str, Any]]:
        out = [{"type": "CUSTOM", "name": name, "value": value}]
        if status is not None:
            out.append(self._status(call, status))
        return out

    def _decided(self, item: ToolCallDecided) -> list[dict[str, Any]]:
        call = self.ids.by_index.get(item.index)
        if call is None:
            return []
        return self._custom("argstream.decision", {"toolCallId": call.id, "toolName": call.name, "mode": item.mode,
                                                   "at": item.at}, call)

    def _approval(self, item: ApprovalRequested) -> list[dict[str, Any]]:
        call = self.ids.by_index.get(item.index)
        if call is None:
            return []
        value = {"approvalId": item.approval_id, "toolCallId": call.id, "toolName": call.name,
                 "arguments": json_safe(item.arguments), "streaming": item.streaming, "reprompt": item.reprompt}
        return self._custom("argstream.approval_request", value, call, "approval-requested")

    def _answered(self, item: ApprovalAnswered) -> list[dict[str, Any]]:
        call = self.ids.by_index.get(item.index)
        if call is None:
            return []
        value = {"approvalId": item.approval_id, "toolCallId": call.id, "approved": item.approved}
        return self._custom("argstream.approval_answer", value, call, "approved" if item.approved else "declined")

    def _denied(self, item: ToolCallDenied) -> list[dict[str, Any]]:
        call = self.ids.by_index.get(item.index)
        if call is None:
            return []
        return self._custom("argstream.denied", {"toolCallId": call.id, "reason": item.reason}, call, "denied")

    def _output(self, item: ToolCallOutput) -> list[dict[str, Any]]:
        call = self.ids.by_index.get(item.index)
        if call is None:
            return []
        if item.error is not None:
            return self._custom("argstream.tool_output_error", {"toolCallId": call.id, "errorText": item.error},
                                call, "done")
        content = json.dumps(json_safe(item.output), default=str)
        return [{"type": "TOOL_CALL_RESULT", "messageId": f"{call.id}.result", "toolCallId": call.id,
                 "content": content, "role": "tool"}, self._status(call, "done")]


def _describe(exc: BaseException) -> str:
    return f"the stream failed ({type(exc).__name__})"


def ag_ui_events(
    items: Iterable[Any], *, thread_id: str | None = None, run_id: str | None = None, fragments: bool = True,
    on_error: Callable[[BaseException], str] = _describe,
) -> Iterator[dict[str, Any]]:
    """The AG-UI events of ``items`` (from ``iter_tool_stream``, or a decision driver), in order.

    When ``items`` raises, the error is logged (logger ``argstream.ui``) and the run ends with
    ``RUN_ERROR`` (``on_error(exc)``: by default only the exception's type).
    :func:`~argstream.ui.ag_ui_sse` of the result writes its frames without building the dicts.
    """
    return Encoded(AgUiEncoder(thread_id=thread_id, run_id=run_id, fragments=fragments), items, on_error)


def aag_ui_events(
    items: AsyncIterable[Any] | Iterable[Any], *, thread_id: str | None = None, run_id: str | None = None,
    fragments: bool = True, on_error: Callable[[BaseException], str] = _describe,
) -> AsyncIterator[dict[str, Any]]:
    """Async twin of :func:`ag_ui_events` (``items`` may be async or plain iterable)."""
    return AsyncEncoded(AgUiEncoder(thread_id=thread_id, run_id=run_id, fragments=fragments), items, on_error)
