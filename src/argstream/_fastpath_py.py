"""The adapters' fast tests: the reference for ``_fastpath.pyx``, which compiles them.

Each class is the base of one provider adapter and holds the state its ``chunk`` reads; ``chunk``
recognises the provider's dominant event (an argument delta of a call already started) with the
fewest lookups and returns ``(index, text)``, or ``None`` with nothing changed (the item then
takes the adapter's general way, ``feed``). ``text``, when given, stands for the event's own
argument text (an event read by a template, see ``providers.templates``).
"""

from __future__ import annotations

from json.encoder import encode_basestring as _encode_string
from typing import Any

from ._pieces_py import PIECES_EVERY, compact_pieces

__all__ = ["AgentsFast", "AnthropicBlock", "AnthropicFast", "ChatFast", "GeminiFast", "LangChainFast", "PydanticAIFast",
           "ResponsesFast", "ResponsesItem", "fields"]

#: what a text test's answer holds (its third member): message text, reasoning, structured output text
MESSAGE_TEXT, REASONING_TEXT, STRUCTURED_TEXT = 0, 1, 2

_TEXT = 0  # providers.anthropic._TEXT
_THINKING = 1  # providers.anthropic._THINKING
_TOOL = 2  # providers.anthropic._TOOL
_MESSAGE = "message"  # providers.openai_responses._MESSAGE
_REASONING = "reasoning"  # providers.openai_responses._REASONING
_FUNCTION = "function_call"  # providers.openai_responses._FUNCTION
_PART_TOOL = 2  # providers.pydantic_ai._TOOL
_PLACEHOLDER = "__fake_id__"  # providers.openai_agents.PLACEHOLDER_ID


class AnthropicBlock:
    """An open content block of an Anthropic message (``AnthropicFast._blocks``' values)."""

    __slots__ = ("kind", "whole_input", "streamed", "citations")

    def __init__(self, kind: int) -> None:
        self.kind = kind
        self.whole_input: Any = None  # a tool input given whole in the block start
        self.streamed = False  # a non-empty input_json_delta arrived
        self.citations: list[Any] = []


class ResponsesItem:
    """An open output item of a Responses stream (``ResponsesFast._by_id`` / ``_by_output``'s values)."""

    __slots__ = ("index", "kind", "item_id", "sent", "summary", "streamed", "wrapper")

    def __init__(self, index: int, kind: str, item_id: str | None) -> None:
        self.index = index
        self.kind = kind
        self.item_id = item_id
        self.sent: list[str] = []  # raw argument / input text sent so far (tool items)
        self.summary = -1  # last reasoning summary_index seen
        self.streamed = False  # any text part sent (message / reasoning items)
        self.wrapper: str | None = None  # call_id of a held-back ``parallel`` wrapper call


def _as_dict(item: Any) -> dict[str, Any] | None:
    """A wire dict as it is, an SDK object's fields (``__dict__``), else ``None``."""
    if type(item) is dict:
        return item
    d = getattr(item, "__dict__", None)
    return d if type(d) is dict else None


class AnthropicFast:
    """The state ``chunk`` reads: the message's blocks by index, and whether the message stopped."""

    __slots__ = ()
    _blocks: dict[Any, Any]
    _done: bool
    _plain_text: Any = False  # text blocks stream as ``Message`` parts (else as ``Structured`` ones)

    def chunk(self, item: Any, text: str | None = None) -> tuple[int, str] | None:
        """``(index, partial_json)`` of a non-empty ``input_json_delta`` for an open tool block (marked
        streamed), else ``None``."""
        d = _as_dict(item)
        if d is None or self._done or d.get("type") != "content_block_delta":
            return None
        delta = _as_dict(d.get("delta"))
        if delta is None or delta.get("type") != "input_json_delta":
            return None
        if text is None:
            text = delta.get("partial_json")
        index = d.get("index")
        if type(index) is not int or type(text) is not str or not text or self._blocks is None:
            return None
        block = self._blocks.get(index)
        if block is None or block.kind != _TOOL:
            return None
        block.streamed = True
        return index, text

    def text_chunk(self, item: Any, text: str | None = None) -> tuple[int, str, int] | None:
        """``(index, text, kind)`` of a non-empty ``text_delta`` for an open text block (``MESSAGE_TEXT``,
        or ``STRUCTURED_TEXT`` where the text is structured output: not ``_plain_text``), or of a
        ``thinking_delta`` for an open thinking block (``REASONING_TEXT``), else ``None``: the one
        ``Message`` / ``Structured`` / ``Reasoning`` part ``feed`` would make, with nothing to change in
        the adapter's state either way."""
        d = _as_dict(item)
        if d is None or self._done or d.get("type") != "content_block_delta":
            return None
        delta = _as_dict(d.get("delta"))
        if delta is None:
            return None
        kind = delta.get("type")
        if kind == "text_delta":
            want, field, answer = _TEXT, "text", MESSAGE_TEXT if self._plain_text else STRUCTURED_TEXT
        elif kind == "thinking_delta":
            want, field, answer = _THINKING, "thinking", REASONING_TEXT
        else:
            return None
        if text is None:
            text = delta.get(field)
        index = d.get("index")
        if type(index) is not int or type(text) is not str or not text or self._blocks is None:
            return None
        block = self._blocks.get(index)
        if block is None or block.kind != want:
            return None
        return index, text, answer


class ResponsesFast:
    """The state ``chunk`` reads: the response's open items by ``item_id`` and by ``output_index``."""

    __slots__ = ()
    _by_id: dict[str, Any]
    _by_output: dict[int, Any]

    def chunk(self, item: Any, anonymous: bool = False, text: str | None = None) -> tuple[int, str] | None:
        """``(index, delta)`` of a non-empty ``function_call_arguments.delta`` for a function call item
        known by its ``item_id`` (or, for an item without one, or ``anonymous``, by its
        ``output_index``), else ``None``."""
        d = _as_dict(item)
        if d is None or d.get("type") != "response.function_call_arguments.delta":
            return None
        if text is None:
            text = d.get("delta")
        if type(text) is not str or not text:
            return None
        item_id = None if anonymous else d.get("item_id")
        if type(item_id) is str:
            call = self._by_id.get(item_id) if self._by_id is not None else None
        elif item_id is None:
            position = d.get("output_index")
            call = self._by_output.get(position) if type(position) is int and self._by_output is not None else None
            if call is not None and call.item_id is not None:
                call = None
        else:
            call = None
        if call is None or call.kind != _FUNCTION or call.wrapper is not None:
            return None
        call.sent.append(text)
        if not len(call.sent) & (PIECES_EVERY - 1):
            compact_pieces(call.sent)
        return call.index, text

    def text_chunk(self, item: Any, text: str | None = None) -> tuple[int, str, int] | None:
        """``(index, delta, kind)`` of a non-empty ``output_text.delta`` for a message item
        (``MESSAGE_TEXT``), or of a ``reasoning_text.delta`` or a ``reasoning_summary_text.delta`` of the
        summary part streaming for a reasoning item (``REASONING_TEXT``), known by its ``item_id``
        (marked streamed, as ``feed`` does), else ``None`` and nothing changed."""
        d = _as_dict(item)
        if d is None:
            return None
        kind = d.get("type")
        if kind == "response.output_text.delta":
            want = _MESSAGE
        elif kind == "response.reasoning_text.delta" or kind == "response.reasoning_summary_text.delta":
            want = _REASONING
        else:
            return None
        if text is None:
            text = d.get("delta")
        item_id = d.get("item_id")
        if type(text) is not str or not text or type(item_id) is not str or self._by_id is None:
            return None
        found = self._by_id.get(item_id)
        if found is None or found.kind != want:
            return None
        if kind == "response.reasoning_summary_text.delta":
            summary = d.get("summary_index")
            if type(summary) is not int or summary != found.summary:
                return None  # (a new summary part: the general way puts a blank line before it)
        found.streamed = True
        return found.index, text, REASONING_TEXT if want == _REASONING else MESSAGE_TEXT


#: providers.openai_chat._PAYLOAD: the delta fields that carry content (a chunk with another besides
#: its tool call is not the dominant chunk)
_PAYLOAD = ("content", "refusal", "tool_calls", "function_call", "reasoning_content", "reasoning", "reasoning_details")


def fields(obj: Any) -> Any:
    """A wire dict as it is; an SDK (pydantic) object's fields with the extra ones a server or a proxy
    added (LiteLLM keeps every field of its choices and deltas there); else ``None``."""
    if type(obj) is dict:
        return obj
    own = getattr(obj, "__dict__", None)
    extra = getattr(obj, "__pydantic_extra__", None) if own is not None else None
    if extra and type(extra) is dict:
        return {**own, **extra, **own} if own else extra  # a field of its own wins, as attribute access has it
    return own


class ChatFast:
    """The state ``chunk`` reads: the response id, whether it finished, its choices and call slots,
    and ``_hit``: what the last hit resolved (its choice state, choice number, entry index, call key,
    call id, whether the call is named, slot), valid until the adapter's general way runs (``feed``
    and ``end`` set it to ``None``), so that a run of argument deltas of one call skips the lookups
    of its state."""

    __slots__ = ()
    _choices: dict[int, Any]
    _slots: Any
    _response_id: Any
    _finished: bool
    _hit: Any = None
    _plain_text: Any = False  # content streams as ``Message`` parts (else as ``Structured`` ones)
    _clean_end: Any = False  # the last item ended a stream as servers do; a hit clears it, as ``feed`` would (a bool,
    # typed ``Any`` as ``_hit`` is: the subclass holds it, which mypy cannot see past ``__slots__ = ()``)

    def _choice_delta(self, item: Any) -> tuple[int, dict[str, Any]] | None:
        """The choice number (0 when none) and the delta of a chunk of this unfinished response with one
        choice (no usage, error or type) that does not finish it, else ``None``."""
        d = fields(item)
        if type(d) is not dict or self._finished:
            return None
        choices = d.get("choices")
        if (type(choices) is not list or len(choices) != 1 or d.get("usage") is not None
                or d.get("error") is not None or d.get("type") is not None):
            return None
        response_id = d.get("id")
        if response_id and response_id != self._response_id:
            return None
        choice = fields(choices[0])
        if type(choice) is not dict or choice.get("finish_reason") is not None:
            return None
        number = choice.get("index")
        if number is None:
            number = 0
        elif type(number) is not int:
            return None
        delta = fields(choice.get("delta"))
        if type(delta) is not dict:
            return None
        return number, delta

    def chunk(self, item: Any, text: str | None = None) -> tuple[int, str] | None:
        """``(index, arguments)`` of a chunk whose only payload is one ``tool_calls`` entry continuing a
        known call (no new id or name), else ``None``."""
        found = self._choice_delta(item)
        if found is None:
            return None
        number, delta = found
        entries = delta.get("tool_calls")
        if type(entries) is not list or len(entries) != 1:
            return None
        if len(delta) != 1:
            for name, value in delta.items():
                if value and name in _PAYLOAD and name != "tool_calls":
                    return None
        entry = fields(entries[0])
        if type(entry) is not dict:
            return None
        index = entry.get("index")
        if type(index) is not int:
            return None
        call_id = entry.get("id")
        function = fields(entry.get("function"))
        if type(function) is not dict:
            return None
        arguments = function.get("arguments") if text is None else text
        if type(arguments) is not str or not arguments:
            return None
        hit = self._hit
        if hit is not None and hit[1] == number and hit[2] == index:
            if (call_id and call_id != hit[4]) or (function.get("name") and not hit[5]):
                return None
            return hit[6], arguments
        state = self._choices.get(number) if self._choices is not None else None
        if state is None:
            return None
        key = state.current.get(index)
        if key is None:
            return None
        call = state.calls.get(key)
        slot = self._slots._map.get(key)  # Slots.get, without its Python frame
        if call is None or slot is None or (call_id and call_id != call.id) or (
                function.get("name") and not call.name):
            return None
        self._hit = (state, number, index, key, call.id, bool(call.name), slot)
        self._clean_end = False  # (a later hit of ``_hit``: no ``feed``, which sets it, ran since)
        state.last_call = key
        return slot, arguments

    def text_chunk(self, item: Any, text: str | None = None) -> tuple[int, str, int] | None:
        """``(index, content, kind)`` of a chunk of this response whose only payload is a non-empty
        ``content`` (``MESSAGE_TEXT``; ``STRUCTURED_TEXT`` where it is structured output: not
        ``_plain_text``) or reasoning text (``REASONING_TEXT``: ``reasoning_content`` or ``reasoning``,
        one of them, without ``reasoning_details``) of a choice whose content or reasoning has its index
        already, else ``None`` and nothing changed; a hit does to ``_clean_end`` and ``_hit`` what
        ``feed`` would."""
        found = self._choice_delta(item)
        if found is None:
            return None
        number, delta = found
        field = "content"
        content = delta.get(field)
        if content is None:
            field = "reasoning_content"
            content = delta.get(field)
            if content is None:
                field = "reasoning"
                content = delta.get(field)
        if type(content) is not str or not content:
            return None
        if text is not None:
            content = text
            if type(content) is not str or not content:
                return None
        for name, value in delta.items():
            if value is not None and name in _PAYLOAD and name != field:
                return None
        state = self._choices.get(number) if self._choices is not None else None
        key = (number, "content" if field == "content" else "reasoning")
        slot = self._slots._map.get(key) if state is not None else None  # Slots.get, without its Python frame
        if slot is None:
            return None
        self._hit = None
        self._clean_end = False
        if field != "content":
            return slot, content, REASONING_TEXT
        return slot, content, MESSAGE_TEXT if self._plain_text else STRUCTURED_TEXT


#: providers.langchain._FINISH_KEYS: the ``response_metadata`` keys that hold a provider's finish value
_FINISH_KEYS = ("finish_reason", "stop_reason", "done_reason")


def _may_finish(metadata: dict[Any, Any]) -> bool:
    """Whether a ``response_metadata`` dict may end the response: a finish key set, or an ``object``
    that may be a Responses terminal event (the adapter's general way decides; the usual metadata,
    the model's name and provider, holds neither)."""
    for key in _FINISH_KEYS:
        if metadata.get(key) is not None:
            return True
    kind = metadata.get("object")
    return kind is not None and (type(kind) is not str or kind == "response")


class LangChainFast:
    """The state ``chunk`` reads: whether the response finished, the calls by key, the call streaming
    at each ``tool_call_chunks[].index``, the slots; the adapter's ``_finishes(metadata)`` and
    ``_reasons(extra)`` read a non-empty ``response_metadata`` that is not a dict (``_may_finish``
    reads a dict) and a non-empty ``additional_kwargs``."""

    __slots__ = ()
    _finished: bool
    _finish_on_last: bool
    _calls: dict[Any, Any]
    _current: dict[int, Any]
    _slots: Any
    _last_call: Any

    def _finishes(self, metadata: Any) -> bool:
        raise NotImplementedError

    def _reasons(self, extra: Any) -> bool:
        raise NotImplementedError

    def chunk(self, item: Any) -> tuple[int, str] | None:
        """``(index, args)`` of an ``AIMessageChunk`` (as ``stream()`` yields it) whose only payload is
        one ``tool_call_chunks`` entry continuing a known call, with no finish in its metadata; else
        ``None`` and nothing changed."""
        d = getattr(item, "__dict__", None) if type(item) is not dict else None
        if type(d) is not dict or self._finished or d.get("type") != "AIMessageChunk" or d.get("content"):
            return None
        entries = d.get("tool_call_chunks")
        if type(entries) is not list or len(entries) != 1:
            return None
        metadata = d.get("response_metadata")
        extra = d.get("additional_kwargs")
        if metadata and (_may_finish(metadata) if type(metadata) is dict else self._finishes(metadata)):
            return None
        if (extra and self._reasons(extra)) or (self._finish_on_last and d.get("chunk_position") == "last"):
            return None
        entry = entries[0]
        if type(entry) is not dict or entry.get("id") or entry.get("name"):
            return None
        position, args = entry.get("index"), entry.get("args")
        key = self._current.get(position) if type(position) is int and self._current is not None else None
        index = self._slots._map.get(key) if key is not None and self._calls is not None and key in self._calls else None
        if index is None or type(args) is not str or not args:
            return None
        self._last_call = key
        return index, args


def _own_fields(item: Any) -> dict[str, Any] | None:
    """An object's ``__dict__`` (not a wire dict's: these frameworks stream objects), else ``None``."""
    d = getattr(item, "__dict__", None) if type(item) is not dict else None
    return d if type(d) is dict else None


class PydanticAIFast:
    """The state ``chunk`` reads: the response's open parts by pydantic-ai's index, and the slots."""

    __slots__ = ()
    _parts: dict[int, Any]
    _slots: Any

    def chunk(self, item: Any) -> tuple[int, str] | None:
        """``(index, args_delta)`` of a ``PartDeltaEvent`` whose ``ToolCallPartDelta`` only continues a
        started call's arguments (no name, no other id); else ``None`` and nothing changed."""
        d = _own_fields(item)
        if d is None or d.get("event_kind") != "part_delta":
            return None
        position = d.get("index")
        state = self._parts.get(position) if type(position) is int and self._parts is not None else None
        delta = _own_fields(d.get("delta"))
        if state is None or state.kind != _PART_TOOL or delta is None:
            return None
        call_id = delta.get("tool_call_id")
        if (delta.get("part_delta_kind") != "tool_call" or delta.get("tool_name_delta")
                or (call_id and call_id != state.id)):
            return None
        args = delta.get("args_delta")
        index = self._slots._map.get(position)  # Slots.get, without its Python frame
        if type(args) is not str or not args or index is None:
            return None
        return index, args


class AgentsFast:
    """The state ``chunk`` reads: the Responses adapter the Agents SDK's raw events go to."""

    __slots__ = ()
    _responses: Any

    def chunk(self, item: Any) -> tuple[int, str] | None:
        """The Responses adapter's fast test on the event a ``RawResponsesStreamEvent`` wraps, by
        ``output_index`` for an item converted from Chat Completions (its placeholder id, which the
        adapter's general way drops)."""
        d = _own_fields(item)
        if d is None or d.get("type") != "raw_response_event":
            return None
        data = d.get("data")
        inner = _as_dict(data)
        return self._responses.chunk(data, inner is not None and inner.get("item_id") == _PLACEHOLDER)


class WholeCallFast:
    """What the tests of calls sent whole (Gemini, Ollama) share: ``WholeCallAdapter``'s text run (after
    the subclass in the adapter's MRO), opened by ``_text_run``."""

    __slots__ = ()
    # the rest of the adapter's state, and what ``WholeCallAdapter`` gives it (after this class in its MRO)
    _text: Any
    whole_values: Any
    _response_calls: Any
    _index: Any
    _take_calls: Any

    def _text_run(self, reasoning: bool) -> tuple[int, type] | None:
        """The open text run of this kind (``reasoning``: ``Reasoning``, else ``Message``), ``(index, kind)``,
        opened at the next index when none is; ``None``, with nothing changed, when one of the other
        kind is open (the general way flushes it)."""
        cls = _text_classes()[1 if reasoning else 0]
        run = self._text
        if run is not None:
            return run if run[1] is cls else None
        run = self._text = (self._index(), cls)
        return run


class GeminiFast(WholeCallFast):
    """The state ``chunk`` reads: the streamed call still open (``(index, writer)``), the response id,
    whether the response finished, and ``_sink``: the string a run of Vertex ``partialArgs`` pieces
    continues, as ``(jsonPath, index, pieces)`` (``pieces`` the writer's own list of the string's
    values), valid until the adapter's general way runs (``feed`` sets it to ``None``); the adapter's
    ``_open_string(path)`` finds it."""

    __slots__ = ()
    _call: Any
    _response_id: Any
    _finished: Any = False  # a bool, typed ``Any`` as ``ChatFast._clean_end`` is (the subclass holds it)
    _sink: Any = None

    def _open_string(self, path: str) -> tuple[str, int, list[str]] | None:
        raise NotImplementedError

    def chunk(self, item: Any, text: str | None = None) -> tuple[int, str] | None:
        """``(index, argument text)`` of a chunk (a wire dict) that only continues the string the open
        streamed call is writing: one candidate, no finish, one part, a ``functionCall`` of
        ``partialArgs`` and ``willContinue: true`` alone, its one piece a non-empty ``stringValue`` at the
        open string's ``jsonPath`` with ``willContinue: true``; else ``None`` and nothing changed. A hit
        does what ``feed`` does with such a chunk: the value joins the string's pieces, and the response
        is no longer finished. ``text`` stands for the piece's value (raw input read by template)."""
        if self._call is None or type(item) is not dict:
            return None
        candidates = item.get("candidates")
        candidate = candidates[0] if type(candidates) is list and len(candidates) == 1 else None
        if type(candidate) is not dict or "finishReason" in candidate or "finish_reason" in candidate:
            return None
        content = candidate.get("content")
        parts = content.get("parts") if type(content) is dict else None
        part = parts[0] if type(parts) is list and len(parts) == 1 else None
        call = part.get("functionCall") if type(part) is dict and len(part) == 1 else None
        if type(call) is not dict or len(call) != 2 or call.get("willContinue") is not True:
            return None
        pieces = call.get("partialArgs")
        piece = pieces[0] if type(pieces) is list and len(pieces) == 1 else None
        if type(piece) is not dict or len(piece) != 3 or piece.get("willContinue") is not True:
            return None
        value = piece.get("stringValue")
        path = piece.get("jsonPath")
        if text is not None:
            value = text if type(value) is str else None
        if type(value) is not str or not value or type(path) is not str:
            return None
        if self._response_id is None and ("responseId" in item or "response_id" in item):
            return None  # the general way reads it
        sink = self._sink
        if sink is None or sink[0] != path:
            sink = self._open_string(path)
            if sink is None:
                return None
            self._sink = sink
        pieces = sink[2]
        if not isinstance(pieces, list):
            raise TypeError(f"_open_string() gave {type(pieces).__name__} pieces, not a list")
        self._finished = False
        list.append(pieces, value)  # the writer's list is a subclass: its own ``append``, were there one, is not asked
        if not list.__len__(pieces) & (PIECES_EVERY - 1):
            compact_pieces(pieces)
        return sink[1], _encode_string(value)[1:-1]

    def text_chunk(self, item: Any, text: str | None = None) -> tuple[int, str, int] | None:
        """``(index, text, kind)`` of a chunk whose one candidate holds one text part (a thought:
        ``REASONING_TEXT``, else ``MESSAGE_TEXT``) that continues the open text run or opens the first
        (no run open), with no finish, no signature and no call open; else ``None`` and nothing
        changed. A hit does what ``feed`` does with such a chunk: the response id read when none was,
        the run opened, the response no longer finished. A wire dict is read here; anything else by the
        adapter's ``_text_read``. Never raises: a malformed chunk is the general way's."""
        if self._call is not None:
            return None
        if type(item) is not dict:
            read = self._text_read(item)
            return None if read is None else self._text_hit(read[0], read[1], read[2] if text is None else text)
        candidates = item.get("candidates")
        candidate = candidates[0] if type(candidates) is list and len(candidates) == 1 else None
        if type(candidate) is not dict or candidate.get("finishReason") is not None:
            return None
        content = candidate.get("content")
        parts = content.get("parts") if type(content) is dict else None
        part = parts[0] if type(parts) is list and len(parts) == 1 else None
        if type(part) is not dict or candidate.get("finish_reason") is not None:
            return None
        got = part.get("text")
        if (type(got) is not str or not got or part.get("functionCall") is not None
                or part.get("function_call") is not None):
            return None
        try:
            signature = part.get("thoughtSignature")
            if signature or (signature is None and part.get("thought_signature")):
                return None
            reasoning = bool(part.get("thought"))
            response_id = item.get("responseId")
            if response_id is None:
                response_id = item.get("response_id")
            response_id = response_id or None  # (its truth asked, as ``feed`` asks it)
        except Exception:  # noqa: BLE001 - the general way raises what it finds
            return None
        return self._text_hit(reasoning, response_id, got if text is None else text)

    def _text_read(self, item: Any) -> tuple[bool, Any, str] | None:
        raise NotImplementedError

    def _text_hit(self, reasoning: bool, response_id: Any, text: str) -> tuple[int, str, int] | None:
        """``text_chunk``'s answer for a lone text part (a thought: ``reasoning``) in a chunk of
        ``response_id`` (``None``: none): what ``feed`` does to the adapter with it done."""
        run = self._text_run(reasoning)
        if run is None:
            return None  # another kind of text: the run before it is flushed the general way
        if response_id is not None and self._response_id is None:
            self._response_id = response_id
        self._finished = False
        return run[0], text, REASONING_TEXT if reasoning else MESSAGE_TEXT

    def call_chunk(self, item: Any) -> Any:
        """The whole calls of a chunk (a wire dict) whose one candidate holds only ``functionCall`` parts,
        each a name and an ``args`` object (an ``id`` too, or not) and nothing else, with a finish or
        not, no streamed call open, for the fused pipeline (``whole_values``): ``(closed, calls, end)``
        as ``providers._common.WholeCalls`` has it; else ``None`` and nothing changed. A hit does to
        the adapter what ``feed`` does with such a chunk. Never raises: anything else is the general
        way's."""
        if type(item) is not dict or self._call is not None or not self.whole_values:
            return None
        candidates = item.get("candidates")
        candidate = candidates[0] if type(candidates) is list and len(candidates) == 1 else None
        if type(candidate) is not dict or "finish_reason" in candidate:
            return None
        content = candidate.get("content")
        parts = content.get("parts") if type(content) is dict else None
        if type(parts) is not list or not parts:
            return None
        walkable = _walkable()
        found = []
        for part in parts:
            call = part.get("functionCall") if type(part) is dict and len(part) == 1 else None
            if type(call) is not dict:
                return None
            name, args, call_id = call.get("name"), call.get("args"), call.get("id")
            if (type(name) is not str or not name or type(args) is not dict
                    or len(call) != 2 + ("id" in call) or (call_id is not None and type(call_id) is not str)
                    or not walkable(args)):
                return None
            found.append((name, args, call_id))
        if "usage_metadata" in item or "response_id" in item:
            return None  # the SDK's names in a dict: the general way reads either spelling
        reason = candidate.get("finishReason")
        usage = item.get("usageMetadata")
        response_id = item.get("responseId")
        if (reason is not None and type(reason) is not str) or (
                response_id is not None and type(response_id) is not str):
            return None
        if reason and usage is not None:
            usage = _json_copy(usage, 0)
            if usage is _NOT_JSON:
                return None  # (not JSON values of their exact types: the general way copies it)
        if response_id and self._response_id is None:
            self._response_id = response_id
        closed, calls = self._take_calls(found, self._response_id or "gemini")
        self._finished = False
        end = None
        if reason:
            self._finished = True
            meta: dict[str, Any] = {"stop_reason": reason}
            if usage is not None:
                meta["usage"] = usage
            end = self._finish(reason, meta)
            self._response_calls = False
        return closed, calls, end

    def _finish(self, reason: str, meta: dict[str, Any]) -> Any:
        raise NotImplementedError


class OllamaFast(WholeCallFast):
    """The state Ollama's tests read (``providers.ollama``): the first ``created_at`` (for generated ids),
    whether the current response has made no part yet (``_empty``), and the ``Finished`` of an empty
    load response held back until more arrives (``_held``)."""

    __slots__ = ()
    _created: Any = None
    _empty: Any = True  # a bool, typed ``Any`` as ``GeminiFast._finished`` is
    _held: Any = None

    def _text_read(self, item: Any) -> tuple[Any, Any, Any] | None:
        """``(thinking, content, created_at)`` of a line that is no wire dict (a ``ChatResponse``) when it
        has no error, no ``done`` and no tool calls (``created_at`` read only while none is kept), else
        ``None``: the adapter's."""
        raise NotImplementedError

    def _finished(self, item: Any, done_reason: Any) -> Any:
        """The ``Finished`` of a line with ``done``: the adapter's."""
        raise NotImplementedError

    def text_chunk(self, item: Any, text: str | None = None) -> tuple[int, str, int] | None:
        """``(index, text, kind)`` of a line whose message holds only content (``MESSAGE_TEXT``) or only
        thinking (``REASONING_TEXT``) that continues the open text run or opens the first (no run
        open), with no error, no call and no ``done``; else ``None`` and nothing changed. A hit does what
        ``feed`` does with such a line: the first ``created_at`` kept, the run opened. A wire dict is
        read here; anything else by the adapter's ``_text_read``. ``text`` stands for the text (raw
        input read by template). Never raises: a malformed line is the general way's."""
        message = item.get("message") if type(item) is dict else None
        try:
            if type(message) is dict:  # a wire line: what the reads below find, with dict lookups
                if item.get("error") is not None or item.get("done"):
                    return None
                thinking = message.get("thinking")
                content = message.get("content")
                thinking = "" if thinking is None else thinking
                content = "" if content is None else content
                if message.get("tool_calls"):
                    return None
                created = item.get("created_at") if self._created is None else None
            else:
                read = self._text_read(item)
                if read is None:
                    return None
                thinking, content, created = read
            if thinking and content:
                return None
            reasoning = bool(thinking)
        except Exception:  # noqa: BLE001 - the general way raises what it finds
            return None
        got = thinking if reasoning else content
        if type(got) is not str or not got:
            return None
        run = self._text_run(reasoning)
        if run is None:
            return None
        if self._created is None:
            self._created = created
        self._held = None
        self._empty = False
        return run[0], got if text is None else text, REASONING_TEXT if reasoning else MESSAGE_TEXT

    def call_chunk(self, item: Any) -> Any:
        """The whole calls of a line (a wire dict) whose message holds tool calls, each a name and an
        ``arguments`` object, and no text, with ``done`` or not, for the fused pipeline
        (``whole_values``): ``(closed, calls, end)`` as ``providers._common.WholeCalls`` has it (a line
        with no calls and no text that ends the response: ``_done_line``); else ``None`` and nothing
        changed. A hit does to the adapter what ``feed`` does with such a line. Never raises: anything
        else is the general way's."""
        if type(item) is not dict or not self.whole_values:
            return None
        try:  # (a value whose truth cannot be asked: the general way raises what it finds)
            message = item.get("message")
            if (item.get("error") is not None or type(message) is not dict or message.get("thinking")
                    or message.get("content")):
                return None
            entries = message.get("tool_calls")
            if entries is not None:
                if type(entries) is not list or not entries:
                    return None
                walkable = _walkable()
                found = []
                for entry in entries:
                    function = entry.get("function") if type(entry) is dict else None
                    if type(function) is not dict:
                        return None
                    name, args, call_id = function.get("name"), function.get("arguments"), entry.get("id")
                    if ((name is not None and type(name) is not str)
                            or (call_id is not None and type(call_id) is not str)
                            or type(args) is not dict or not walkable(args)):
                        return None
                    found.append((name or "", args, call_id))
                done = bool(item.get("done"))
        except Exception:  # noqa: BLE001
            return None
        if entries is None:
            return self._done_line(item)
        done_reason = item.get("done_reason") if done else None
        if done_reason is not None and type(done_reason) is not str:
            return None
        self._held = None
        if self._created is None:
            self._created = item.get("created_at")
        closed, calls = self._take_calls(found, self._created or "ollama")
        end = None
        if done:
            end = self._finished(item, done_reason)
            self._empty = True
        else:
            self._empty = False
        return closed, calls, end

    def _done_line(self, item: dict[str, Any]) -> Any:
        """``call_chunk``'s answer for a line whose message holds nothing (no text, no calls): when it is
        the response's last (``done: true``, a ``done_reason`` that is no load response's), what ``feed``
        does with it, as ``(closed text run, [], Finished)``; else ``None``, nothing changed."""
        done_reason = item.get("done_reason")
        if item.get("done") is not True or type(done_reason) is not str or done_reason in ("load", "unload"):
            return None
        self._held = None
        if self._created is None:
            self._created = item.get("created_at")
        closed = self._text[0] if self._text is not None else None
        self._text = None
        end = self._finished(item, done_reason)
        self._empty = True
        return closed, [], end


_TEXT_CLASSES: tuple[type, type] | None = None
_WALKABLE: Any = None
_NOT_JSON = object()
#: how deep ``_json_copy`` goes before it declines (the general way copies deeper values)
JSON_COPY_DEPTH = 32


def _text_classes() -> tuple[type, type]:
    """``(Message, Reasoning)``, the kinds of a text run (imported when first asked: ``events``
    imports this module's backend)."""
    global _TEXT_CLASSES
    if _TEXT_CLASSES is None:
        from .events import Message, Reasoning

        _TEXT_CLASSES = (Message, Reasoning)
    return _TEXT_CLASSES


def _walkable() -> Any:
    """``providers._common._walkable`` (imported when first asked, as ``_text_classes``)."""
    global _WALKABLE
    if _WALKABLE is None:
        from .providers._common import _walkable as walkable

        _WALKABLE = walkable
    return _WALKABLE


def present(item: dict[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    """Each of ``names`` that ``item`` holds with a value other than ``None``, in the order of ``names``."""
    out = {}
    for name in names:
        value = item.get(name)
        if value is not None:
            out[name] = value
    return out


def _json_copy(value: Any, depth: int) -> Any:
    """A copy of ``value``, JSON values of their exact types (``dict`` with ``str`` keys, ``list``,
    ``str``, ``int``, ``float``, ``bool``, ``None``) at most ``JSON_COPY_DEPTH`` deep, as
    ``providers._common.plain`` copies them; ``_NOT_JSON`` for anything else."""
    kind = type(value)
    if kind is str or kind is int or kind is float or kind is bool or value is None:
        return value
    if depth >= JSON_COPY_DEPTH:
        return _NOT_JSON
    if kind is dict:
        out = {}
        for key, item in value.items():  # (exact types: no code of the value's runs while it is read)
            if type(key) is not str:
                return _NOT_JSON
            item = _json_copy(item, depth + 1)
            if item is _NOT_JSON:
                return _NOT_JSON
            out[key] = item
        return out
    if kind is list:
        copied = []
        for item in value:
            item = _json_copy(item, depth + 1)
            if item is _NOT_JSON:
                return _NOT_JSON
            copied.append(item)
        return copied
    return _NOT_JSON
