"""OpenAI Chat Completions streaming (``chat.completions.create(stream=True)``) to argstream events.

Also OpenRouter, llama.cpp, vLLM, DeepSeek, Mistral, Groq, xAI, Alibaba and other compatible
servers. Input: the SDK's ``ChatCompletionChunk`` objects (or the ``chunk`` events of
``chat.completions.stream()``; its derived events are skipped) or the decoded wire dicts.

The wire has no block boundaries, so event indexes are handed out in order of first sight per
response: one for the choice's text, one for its reasoning, one for its refusal, one per tool
call. Per choice delta:

- ``content`` → ``Part(i, Message)`` (``Structured`` with ``structured=True``); ``refusal`` →
  ``Part(j, Message)`` flushed with ``{"refusal": True}``;
- ``reasoning_content`` (llama.cpp, vLLM, DeepSeek, xAI) or ``reasoning`` (OpenRouter,
  Cerebras) → ``Part(k, Reasoning)``; ``reasoning_details[]`` (OpenRouter) supply the text when
  neither is there, and their ``signature`` / encrypted ``data`` / ``format`` go to metadata;
- ``tool_calls[]`` → ``ToolCallStart(id, name)`` whenever an entry brings an id or name not
  seen yet for its call (ids repeated on every delta are not concatenated; later non-empty
  values do not replace the first), then ``ArgumentChunk(function.arguments)``. Calls are keyed
  by ``(choice, tool_calls[].index)``; an entry that brings a new non-empty id on a known key
  starts a new call there (Groq and vLLM send every parallel call on index 0), and the call it
  replaces is flushed at once; an entry without ``index`` (Mistral) continues the previous call
  of its choice unless it brings a new id. The legacy ``function_call`` delta is one more call.

``finish_reason`` flushes the choice's indexes; once every choice seen has finished, the
response ends with ``Finished`` (``stop`` → ``COMPLETED``, or ``TOOL_USE`` when the response
holds tool calls; ``tool_calls`` / ``function_call`` → ``TOOL_USE``; ``length`` →
``MAX_TOKENS``; ``content_filter`` → ``REFUSAL``; ``error`` → ``ERROR``). The trailing
usage-only chunk is skipped (usage sent with the finish is kept in ``Finished.metadata``). A
chunk with an ``error`` key ends the response with ``Finished(ERROR, {"error": ...})``. After
``Finished``, a chunk with choice data starts a new response (recordings hold several back to
back). A chunk with another completion ``id`` while a response is unfinished is a spliced
stream: :class:`~argstream.providers.ProviderProtocolError`, after ``Finished(ERROR)``, as for
any field of the wrong type.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator, Mapping
from typing import Any

from .._backend import ChatFast
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
    Slots,
    adrive,
    call_arguments,
    call_start,
    drive,
    fields,
    finish_reason,
    finished,
    flush,
    get,
    get_list,
    json_text,
    plain,
)

__all__ = ["FINISH_REASONS", "OpenAIChatAdapter", "adapter", "ato_events", "to_events"]

FINISH_REASONS: dict[str, FinishReason] = {
    "stop": FinishReason.COMPLETED,
    "eos": FinishReason.COMPLETED,
    "tool_calls": FinishReason.TOOL_USE,
    "function_call": FinishReason.TOOL_USE,
    "length": FinishReason.MAX_TOKENS,
    "max_tokens": FinishReason.MAX_TOKENS,
    "content_filter": FinishReason.REFUSAL,
    "error": FinishReason.ERROR,
}


class _Call:
    __slots__ = ("id", "name")

    def __init__(self) -> None:
        self.id = ""
        self.name = ""


class _Choice:
    __slots__ = ("keys", "calls", "current", "last_call", "auto", "finish", "refusal")

    def __init__(self) -> None:
        self.keys: list[Any] = []  # slot keys of this choice, in order of first sight
        self.calls: dict[Any, _Call] = {}
        self.current: dict[int, Any] = {}  # tool_calls[].index -> key of the call streaming there
        self.last_call: Any = None  # key of the call an index-less entry continues
        self.auto = 0  # index-less calls started so far
        self.finish: str | None = None
        self.refusal = False


class OpenAIChatAdapter(ChatFast, Adapter):
    """Chat Completions chunks in, argstream events out (see the module doc).

    ``chunk(item, text=None)``, the test for the dominant chunk, comes from ``ChatFast``
    (``_fastpath``, compiled with the core): ``(index, arguments)`` of a chunk whose only payload is
    one ``tool_calls`` entry continuing a known call (no new id or name), else ``None`` and nothing
    changed. SDK objects are read with the extra fields a proxy put in pydantic's extras.
    """

    TEXT_PATH = ("choices", 0, "delta", "tool_calls", 0, "function", "arguments")
    MESSAGE_PATH = ("choices", 0, "delta", "content")
    REASONING_PATHS = (("choices", 0, "delta", "reasoning_content"), ("choices", 0, "delta", "reasoning"))
    FREE_FIELDS = ("obfuscation",)

    def __init__(self, *, structured: bool = False) -> None:
        self._text = Structured if structured else Message
        self._plain_text = not structured  # text deltas may take the fast test (``text_chunk``)
        self._slots = Slots()
        self._choices: dict[int, _Choice] = {}
        self._response_id = ""
        self._finished = False
        self._hit = None
        self._tool_calls = False
        self._usage: Any = None
        self._clean_end = False  # the last item was a usage-only chunk or [DONE]

    def end(self) -> list[Event]:
        """The input ended. A response with no ``finish_reason`` that ended the way servers end a
        stream (a usage-only chunk last, or ``[DONE]``; OpenRouter-routed models do this) is over:
        its calls are flushed (a call whose arguments are cut off then fails with an
        ``IncompleteJSONError``) and it finishes as if ``stop`` had come: ``TOOL_USE`` when it holds
        tool calls, else ``COMPLETED``, with ``stop_reason`` ``None`` in the metadata. Any other end
        before a ``finish_reason`` is a cut-off stream (the driver's ``Finished(ERROR)``)."""
        self._hit = None
        if self._finished or not self._choices or not self._clean_end:
            return []
        out: list[Event] = []
        for number, state in self._choices.items():
            for key in state.keys:
                out.append(flush(self._slots(key), {"refusal": True} if key == (number, "refusal") else {}))
            state.keys.clear()
        metadata: dict[str, Any] = {"stop_reason": None}
        if self._usage is not None:
            metadata["usage"] = plain(self._usage)
        out.append(finished(finish_reason(None, self._tool_calls), metadata))
        self._finished = True
        return out

    def feed(self, item: Any) -> list[Event]:
        self._hit = None  # the general way may change what the last hit resolved
        if isinstance(item, str):  # a raw "[DONE]" sentinel: the server ended the stream
            self._clean_end = item.strip() == "[DONE]"
            return []
        f = item if type(item) is dict else fields(item)  # (exact types tested inline: a Python call less each)
        if f.get("type") is not None:  # an event of the SDK's ChatCompletionStream
            if f.get("type") != "chunk":
                return []
            f = fields(f.get("chunk"))
        out: list[Event] = []
        error = f.get("error")
        if error is not None:
            return self._end_response(FinishReason.ERROR, {"error": plain(error)})
        choices = f.get("choices") or ()
        response_id = f.get("id") or ""
        self._clean_end = not choices and f.get("usage") is not None  # servers end with a usage-only chunk
        if self._finished and (response_id == self._response_id if response_id else not _has_content(choices)):
            return []  # the finished response's own chunk, repeated or late (a second finish_reason)
        if response_id and self._response_id and response_id != self._response_id:
            if not self._finished and self._choices:
                raise ProviderProtocolError(
                    f"chunk of response {response_id!r} while response {self._response_id!r} is unfinished")
            self._reset()
        if self._finished and _has_payload(choices):
            self._reset()
        if response_id:
            self._response_id = response_id
        usage = f.get("usage")
        if usage is not None:
            self._usage = usage
        for choice in choices if type(choices) is list and type(f) is dict else get_list(f, "choices"):
            c = choice if type(choice) is dict else fields(choice)
            number = c.get("index")
            if type(number) is not int:
                number = _number(number, "choices[].index")
            state = self._choices.get(number)
            if state is None:
                state = self._choices[number] = _Choice()
            delta = c.get("delta")
            if delta is not None:
                self._delta(number, state, delta if type(delta) is dict else fields(delta), out)
            reason = c.get("finish_reason")
            if reason is not None and state.finish is None:
                state.finish = reason
                for key in state.keys:
                    metadata: dict[str, Any] = {"refusal": True} if key == (number, "refusal") else {}
                    out.append(flush(self._slots(key), metadata))
                state.keys.clear()
        if not self._finished and self._choices and not [c for c in self._choices.values() if c.finish is None]:
            first = next(iter(self._choices.values())).finish or ""
            metadata = {"stop_reason": first}
            if self._usage is not None:
                metadata["usage"] = plain(self._usage)
            out.append(finished(finish_reason(FINISH_REASONS.get(first), self._tool_calls), metadata))
            self._finished = True
        return out

    def _slot(self, state: _Choice, key: Any) -> int:
        index = self._slots._map.get(key)  # Slots.get, without its Python frame
        if index is None:
            state.keys.append(key)
            index = self._slots(key)
        return index

    def _delta(self, number: int, state: _Choice, delta: Mapping[str, Any], out: list[Event]) -> None:
        reasoning = delta.get("reasoning_content") or delta.get("reasoning")
        details = delta.get("reasoning_details")
        if reasoning or details:
            metadata: dict[str, Any] = {}
            if details:
                texts = _details(details, metadata)
                if not reasoning:
                    reasoning = texts
            if reasoning or metadata:
                out.append(Part(self._slot(state, (number, "reasoning")), Reasoning(reasoning or ""), metadata))
        content = delta.get("content")
        if content:
            out.append(Part(self._slot(state, (number, "content")), self._text(content)))
        refusal = delta.get("refusal")
        if refusal:
            out.append(Part(self._slot(state, (number, "refusal")), Message(refusal)))
        if type(delta) is dict:
            entries = delta.get("tool_calls")
            if entries is not None and type(entries) is not list:
                entries = get_list(delta, "tool_calls")
        else:
            entries = get_list(delta, "tool_calls")
        for entry in entries or ():
            self._tool_call(number, state, entry if type(entry) is dict else fields(entry), out)
        function_call = delta.get("function_call")
        if function_call is not None:
            self._call(number, state, (number, "function_call"), "", function_call, out)

    def _tool_call(self, number: int, state: _Choice, entry: Mapping[str, Any], out: list[Event]) -> None:
        call_id = entry.get("id") or ""
        index = entry.get("index")
        if index is not None:
            if type(index) is not int:
                index = _number(index, "tool_calls[].index")
            key: Any = state.current.get(index)
            if key is None:
                key = state.current[index] = (number, "tool", index, 0)
            elif call_id and state.calls[key].id and call_id != state.calls[key].id:
                out.append(flush(self._slots(key)))  # a new call on a reused index: the previous one is over
                state.keys.remove(key)
                key = state.current[index] = (number, "tool", index, key[3] + 1)
        else:  # no index: continue the previous call unless this entry starts a new one
            key = state.last_call
            if key is None or (call_id and call_id != state.calls[key].id):
                key = (number, "auto", state.auto)
                state.auto += 1
        state.last_call = key
        self._call(number, state, key, call_id, entry.get("function"), out)

    def _call(self, number: int, state: _Choice, key: Any, call_id: str, function: Any, out: list[Event]) -> None:
        index = self._slot(state, key)
        call = state.calls.get(key)
        if call is None:
            call = state.calls[key] = _Call()
            self._tool_calls = True
        f = function if type(function) is dict else fields(function)
        name = f.get("name") or ""
        if (call_id and not call.id) or (name and not call.name):
            call.id = call.id or call_id
            call.name = call.name or name
            out.append(call_start(index, call.id, call.name))
        arguments = f.get("arguments")
        if arguments:
            if isinstance(arguments, dict):  # a server that sends the object itself
                arguments = json_text(arguments)
            elif not isinstance(arguments, str):
                raise ProviderProtocolError(f"function.arguments must be a string, got {type(arguments).__name__}")
            out.append(call_arguments(index, arguments))

    def _end_response(self, reason: FinishReason, metadata: dict[str, Any]) -> list[Event]:
        self._finished = True
        return [finished(reason, metadata)]

    def _reset(self) -> None:
        self._slots.reset()
        self._choices.clear()
        self._response_id = ""
        self._finished = False
        self._tool_calls = False
        self._usage = None


def _number(value: Any, name: str) -> int:
    """An index field: ``0`` when absent, else it must be an integer."""
    if value is None:
        return 0
    if type(value) is not int:
        raise ProviderProtocolError(f"{name} must be an integer, got {type(value).__name__}")
    return value


_PAYLOAD = ("content", "refusal", "tool_calls", "function_call", "reasoning_content", "reasoning", "reasoning_details")


def _has_content(choices: Any) -> bool:
    """Whether any choice carries data (a finish alone does not count)."""
    for choice in choices:
        delta = get(choice, "delta")
        if delta is not None and any(get(delta, name) for name in _PAYLOAD):
            return True
    return False


def _has_payload(choices: Any) -> bool:
    """Whether any choice carries data or a finish (a bare role or an empty delta does not count)."""
    for choice in choices:
        if get(choice, "finish_reason") is not None:
            return True
        delta = get(choice, "delta")
        if delta is not None and any(get(delta, name) for name in _PAYLOAD):
            return True
    return False


def _details(details: Any, metadata: dict[str, Any]) -> str:
    """Text of OpenRouter ``reasoning_details`` entries; their signature, data and format go to ``metadata``."""
    texts = []
    for detail in details:
        text = get(detail, "text") or get(detail, "summary")
        if text:
            texts.append(text)
        signature = get(detail, "signature")
        if signature:
            metadata["signature"] = signature
        data = get(detail, "data")
        if data:
            metadata["encrypted_reasoning"] = data
        fmt = get(detail, "format")
        if fmt:
            metadata["reasoning_format"] = fmt
    return "".join(texts)


def adapter(*, structured: bool = False) -> OpenAIChatAdapter:
    """A new adapter for one stream (what :func:`to_events` drives), for a fused consumer."""
    return OpenAIChatAdapter(structured=structured)


def to_events(stream: Iterable[Any], *, structured: bool = False) -> Iterator[Event]:
    """Events from a Chat Completions stream (SDK stream or decoded wire dicts).

    ``structured=True``: ``content`` is structured output (``response_format`` JSON): it streams
    as ``Structured`` parts, parsed as it arrives, and flushes as ``ChatStructured``.

    Raises whatever the stream raises (after ``Finished(ERROR)``): ``APIError`` for an error
    chunk, ``APIConnectionError`` for a dropped connection.
    """
    return drive(OpenAIChatAdapter(structured=structured), stream)


def ato_events(stream: AsyncIterable[Any] | Iterable[Any], *, structured: bool = False) -> AsyncIterator[Event]:
    """Async twin of :func:`to_events`."""
    return adrive(OpenAIChatAdapter(structured=structured), stream)
