"""Tool calls written as text by open-weight models, found in one pass while the text streams.

A local server without a tool parser for its model sends the model's own call markup as plain
``content``. :class:`TextToolCallScanner` reads that text chunk by chunk and splits it into
:class:`TextPiece` (what the reader sees), :class:`ReasoningPiece` (gpt-oss ``analysis`` channel)
and calls: :class:`CallBegin`, :class:`CallArguments` (the arguments as JSON text, as they
stream) and :class:`CallEnd`. :func:`text_tool_call_events` does the same at the level of
argstream's events, so the builder, the policies and the renderer see native-looking calls.

Theory of operation
-------------------
The scanner is a state machine whose states are methods; each takes the buffer and a position and
returns where it stopped, or ``~pos`` to hold ``buf[pos:]`` until more text arrives. Only a bounded
tail is ever held back (a marker cut by the chunk's end, a call's name, a harmony header), so a
chunk costs time in its own length and the memory does not grow with the text. Argument JSON is
skimmed, not parsed: the skimmer tracks strings, escapes and nesting depth with regular
expressions that jump to the next quote, backslash or bracket, so a marker inside an argument's
string is data, and the call ends where its JSON value ends. Text between code fences (```` ``` ````)
is text whatever it holds.

Only the configured format's markers are recognised (``"auto"`` takes the format of the first marker
it meets and keeps it). With ``tools=``, a call whose name is not a tool is still reported, with
``known=False``; :func:`text_tool_call_events` marks it in its metadata so that nothing runs it.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator, Mapping
from dataclasses import dataclass
from itertools import count
from typing import TYPE_CHECKING, Any, Callable, Union, cast

from . import _textcalls_py
from ._backend import PURE
from .events import (
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

# The hot paths (feed's fast paths, the skimmer) and the two items they make: compiled when available.
if TYPE_CHECKING:
    from ._textcalls_py import CallArguments, ScannerCore, TextPiece
    from ._textcalls_py import skim as _skim_json
else:
    _hot = _textcalls_py
    if not PURE:
        try:
            from . import _textcalls as _hot
        except ImportError:  # a pure build: the twin (the parser's own selection warns once)
            if os.environ.get("ARGSTREAM_REQUIRE_EXTENSION", "") not in ("", "0"):
                raise
    TextPiece, CallArguments, ScannerCore, _skim_json = _hot.TextPiece, _hot.CallArguments, _hot.ScannerCore, _hot.skim

__all__ = [
    "FORMATS", "TextPiece", "ReasoningPiece", "CallBegin", "CallArguments", "CallEnd", "ScanItem",
    "TextToolCallScanner", "TextToolCallEvents", "text_tool_call_events", "atext_tool_call_events",
    "METADATA_KEY",
]

FORMATS = ("hermes", "qwen3_coder", "mistral", "llama3_json", "deepseek_v3", "kimi_k2", "glm45", "harmony")

#: the metadata key that marks a tool call (and the parts of its message) found in text
METADATA_KEY = "text_tool_call"


# -- items ----------------------------------------------------------------------


@dataclass(slots=True)
class ReasoningPiece:
    """Reasoning text (harmony's ``analysis`` channel): not a reply."""

    text: str


@dataclass(slots=True)
class CallBegin:
    """A call starts. ``known`` is ``False`` when ``tools=`` was given and does not name it."""

    call: int
    id: str
    name: str
    known: bool = True


@dataclass(slots=True)
class CallEnd:
    """The call's markup ended; ``error`` says why it is broken (the text ended inside it, bad markup)."""

    call: int
    error: str | None = None


# Items are plain slotted dataclasses (not frozen): a frozen one's __init__ costs several times a chunk's scan.
ScanItem = Union[TextPiece, ReasoningPiece, CallBegin, CallArguments, CallEnd]


# -- markers ----------------------------------------------------------------------

FENCE = "```"
TOOL_CALL, TOOL_CALL_END = "<tool_call>", "</tool_call>"
FUNCTION_END, PARAMETER_END = "</function>", "</parameter>"
ARG_KEY, ARG_KEY_END, ARG_VALUE, ARG_VALUE_END = "<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>"
MISTRAL_CALLS, MISTRAL_ARGS, MISTRAL_CALL_ID = "[TOOL_CALLS]", "[ARGS]", "[CALL_ID]"
PYTHON_TAG = "<|python_tag|>"
DS_CALLS, DS_CALLS_END = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"
DS_CALL, DS_SEP, DS_CALL_END = "<｜tool▁call▁begin｜>", "<｜tool▁sep｜>", "<｜tool▁call▁end｜>"
KIMI_SECTION, KIMI_SECTION_END = "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"
KIMI_CALL, KIMI_ARGS, KIMI_CALL_END = "<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_call_end|>"
H_START, H_CHANNEL, H_MESSAGE = "<|start|>", "<|channel|>", "<|message|>"
H_END, H_CALL, H_RETURN = "<|end|>", "<|call|>", "<|return|>"

#: the markers that open a call (or, for harmony, a message) in each format
_OPENERS: dict[str, tuple[str, ...]] = {
    "hermes": (TOOL_CALL,),
    "qwen3_coder": (TOOL_CALL,),
    "glm45": (TOOL_CALL,),
    "mistral": (MISTRAL_CALLS,),
    "llama3_json": (PYTHON_TAG,),
    "deepseek_v3": (DS_CALLS, DS_CALL),
    "kimi_k2": (KIMI_SECTION, KIMI_CALL),
    "harmony": (H_START, H_CHANNEL),
}
_AUTO_OPENERS = (TOOL_CALL, MISTRAL_CALLS, PYTHON_TAG, DS_CALLS, DS_CALL, KIMI_SECTION, KIMI_CALL, H_START, H_CHANNEL)
_FORMAT_OF_OPENER = {
    MISTRAL_CALLS: "mistral", PYTHON_TAG: "llama3_json", DS_CALLS: "deepseek_v3", DS_CALL: "deepseek_v3",
    KIMI_SECTION: "kimi_k2", KIMI_CALL: "kimi_k2", H_START: "harmony", H_CHANNEL: "harmony",
}

MAX_NAME = 256  # a call's name, id, a parameter's key
MAX_HEADER = 1024  # a harmony header
MAX_HELD_ARGUMENTS = 1 << 20
MAX_DEPTH = 512  # the parser's own default  # arguments that came before the name, a typed parameter's raw text

_WS = " \t\r\n"
_STR_STOP = re.compile(r'["\\]')
_SCALAR_END = re.compile(r"[\s,}\]<]")
_NAME = re.compile(r"[\w.:\-]{1,256}")  # function names: letters, digits, '_', '.', ':', '-'
_GLM_NAME_END = re.compile(r"\n|<arg_key>|</tool_call>")
_MISTRAL_NAME_END = re.compile(r"\[ARGS\]|\[CALL_ID\]")
_ENVELOPE_KEYS = frozenset({"name", "arguments", "parameters", "type", "id"})




class _Malformed(Exception):
    """The markup does not follow the format: said once, where it happens."""


def _hold_ws(i: int, j: int) -> int:
    """Only whitespace is left: hold it (``~i``) so the next chunk decides, unless it is long (then consume it)."""
    return ~i if j - i <= MAX_NAME else j


def _hold_ws_and_marker(i: int, j: int) -> int:
    """The text ends inside a marker after whitespace: hold both (``~i``), so that if the marker turns out
    not to be one, the whitespace goes out as text with it, as when the text arrives whole; a run of
    whitespace longer than a template puts between calls is let go (``~j``), as ``_hold_ws`` lets it go."""
    return ~i if j - i <= MAX_NAME else ~j


def _discard(text: str) -> None:
    pass


def _skip_ws(buf: str, i: int) -> int:
    n = len(buf)
    while i < n and buf[i] in _WS:
        i += 1
    return i


def _tool_types(tools: Any) -> dict[str, dict[str, Any]] | None:
    """``{tool: {parameter: its schema}}`` from the tool definitions, for typing raw parameter text."""
    if tools is None:
        return None
    from .tools import tool_schemas

    out: dict[str, dict[str, Any]] = {}
    for name, schema in tool_schemas(tools).items():
        props = schema.get("properties") if isinstance(schema, Mapping) else None
        out[name] = dict(props) if isinstance(props, Mapping) else {}
    return out


def _allowed_types(schema: Any) -> set[str]:
    if not isinstance(schema, Mapping):
        return set()
    kind = schema.get("type")
    if isinstance(kind, str):
        return {kind}
    if isinstance(kind, list):
        return {k for k in kind if isinstance(k, str)}
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if isinstance(options, list):
            return set().union(*(_allowed_types(o) for o in options))
    if "enum" in schema and all(isinstance(v, str) for v in schema["enum"]):
        return {"string"}
    return set()


_PY_LITERALS = {"True": "true", "False": "false", "None": "null"}


def _typed_json(raw: str, types: set[str]) -> str:
    """The JSON text of a parameter's raw text, as its schema types it (a JSON string when nothing fits)."""
    text = raw.strip()
    text = _PY_LITERALS.get(text, text)
    try:
        value = json.loads(text)
    except ValueError:
        return json.dumps(raw, ensure_ascii=False)
    if isinstance(value, bool):
        kind = "boolean"
    elif value is None:
        kind = "null"
    elif isinstance(value, int):
        kind = "integer"
    elif isinstance(value, float):
        kind = "number"
    elif isinstance(value, str):
        kind = "string"
    elif isinstance(value, list):
        kind = "array"
    else:
        kind = "object"
    if kind in types or (kind == "integer" and "number" in types):
        return text
    return json.dumps(raw, ensure_ascii=False)


# -- the scanner ------------------------------------------------------------------


class TextToolCallScanner(ScannerCore):
    """Splits streaming text into text pieces and tool calls written in one model format.

    ``feed(text)`` returns the items that text completed or extended; ``finish()`` those that only
    the end decides (a held-back partial marker is text after all; a call still open ends with an
    error). ``format`` is one of :data:`FORMATS` or ``"auto"``; ``tools`` (the tool definitions
    sent to the model) marks calls of other names ``known=False`` and types the raw parameter text
    of Qwen3-Coder and GLM-4.5 calls. ``id_prefix`` starts the ids made for calls (Kimi K2 writes
    its own).

    Raises ``ValueError`` for an unknown format; never for the text, whatever it holds.
    """

    def __init__(self, format: str = "auto", tools: Any = None, *, id_prefix: str = "call_text_") -> None:
        if format != "auto" and format not in FORMATS:
            raise ValueError(f"unknown text tool call format {format!r}; expected 'auto' or one of {FORMATS}")
        self.format = format
        self._types = _tool_types(tools)
        self._ids = count()
        self._id_prefix = id_prefix
        self._calls = count()
        self._out: list[Any] = []
        self._tail = ""
        # the two states the fast paths test, bound once so that ``is`` can test them
        self._st_text: Callable[[str, int], int] = self._s_text
        self._st_skim: Callable[[str, int], int] = self._s_skim
        self._state: Callable[[str, int], int] = self._st_text
        self._set_openers(_AUTO_OPENERS if format == "auto" else _OPENERS[format])
        self._at_start = True  # llama3_json: nothing but whitespace yet, so '{' may open a call
        self._held_ws = ""  # whitespace after a call: dropped if a call or the end follows
        self._after_call = False  # holding that whitespace
        # the call being read
        self._call = -1  # its item index, -1 before CallBegin
        self._name = ""
        self._markup: list[str] = []  # the markup read before CallBegin: text again if it proves not a call
        self._markup_size = 0
        self._collect = False  # reading markup that is not yet a call
        self._pending_format = format
        self._call_close = ""  # the marker that closes the call (skipped to after a broken one)
        self._close_marker = ""
        self._skip_junk = False
        self._held_args: list[str] = []  # arguments that came before the name
        self._held_size = 0
        self._args_key = ""
        # the envelope ({"name": ..., "arguments": ...})
        self._env_key = ""
        self._env_seen = 0
        # the JSON skimmer
        self._depth = 0
        self._in_str = False
        self._esc = False
        self._scalar = False
        self._emit_skim: Callable[[str], None] = self._emit_args
        self._skim_ends_call = False
        self._after_skim: Callable[[str, int], int] = self._st_text
        # raw parameters (qwen3_coder, glm45)
        self._params = 0
        self._param_types: set[str] | None = None  # None: stream as a string
        self._param_raw: list[str] = []
        self._param_first = True
        self._param_nl = ""
        # harmony
        self._channel = ""

    # -- public ---------------------------------------------------------------

    def _feed_slow(self, text: str, out: list[Any]) -> list[Any]:
        tail = self._tail
        buf = tail + text if tail else text
        self._tail = ""
        self._run(buf)
        return out

    def finish(self) -> list[ScanItem]:
        """End of the text: flush what was held back, end a call left open (with an error)."""
        out: list[Any] = []
        self._out = out
        buf, self._tail = self._tail, ""
        if buf and self._state == self._s_text:
            self._text(buf)
            buf = ""
        if self._state == self._s_fence:
            self._text(buf)
        elif self._state == self._s_close:
            self._state = self._st_text
        elif self._state != self._s_text:
            if self._call >= 0:
                self._end_call("the text ended inside the call")
            else:
                markup, self._markup, self._markup_size = self._markup, [], 0
                self._collect = False
                self._channel = ""
                self._state = self._st_text
                self._text("".join(markup) + buf)
            self._state = self._st_text
        self._held_ws = ""
        self._after_call = False
        return out

    # -- the loop ---------------------------------------------------------------

    def _run(self, buf: str) -> None:
        i, n = 0, len(buf)
        while i < n:
            collecting = self._collect
            try:
                j = self._state(buf, i)
            except _Malformed as exc:
                j = self._malformed(buf, i, str(exc))
                collecting = False
            end = ~j if j < 0 else j
            if collecting and self._collect and end > i:
                self._markup.append(buf[i:end])
                self._markup_size += end - i
                if self._markup_size > MAX_HELD_ARGUMENTS:  # not a call after all: its text goes out
                    j = end = self._malformed(buf, end, "markup too long before the call's name")
            if j < 0:
                self._tail = buf[end:]
                return
            i = j

    def _malformed(self, buf: str, i: int, why: str) -> int:
        """The markup broke the format at ``i``: a call already begun ends with an error, else its markup is text."""
        if self._call >= 0:
            self._end_call(why)
            self._close_marker = self._call_close
            self._skip_junk = True  # drop the rest of the broken call up to its closing marker
            self._state = self._s_close if self._call_close else self._st_text
            return i
        self._collect = False
        markup, self._markup, self._markup_size = self._markup, [], 0
        self._held_args = []
        self._channel = ""
        self._state = self._st_text
        self._text("".join(markup))
        return i

    def _text(self, text: str) -> None:
        if not text:
            return
        if self._after_call:
            text = self._held_ws + text
            self._held_ws = ""
            self._after_call = False
        if self._channel == "analysis":
            self._out.append(ReasoningPiece(text))
        else:
            self._out.append(TextPiece(text))
        if self._at_start and not text.isspace():
            self._at_start = False

    def _set_openers(self, openers: tuple[str, ...]) -> None:
        markers = (*openers, FENCE)
        self._openers = openers
        self._opener_re = re.compile("|".join(re.escape(m) for m in sorted(markers, key=len, reverse=True)))
        self._first = tuple(sorted({m[0] for m in markers}))
        self._llama_start = self.format in ("auto", "llama3_json")

    def _partial(self, buf: str, i: int, markers: tuple[str, ...]) -> int:
        """Where a marker cut by the end of ``buf`` may start (``len(buf)`` when none can)."""
        n = len(buf)
        longest = max(len(m) for m in markers)
        for k in range(max(i, n - longest + 1), n):
            rest = buf[k:]
            for m in markers:
                if m.startswith(rest):
                    return k
        return n

    # -- text -------------------------------------------------------------------

    def _s_text(self, buf: str, i: int) -> int:
        if self._after_call:
            j = _skip_ws(buf, i)
            self._held_ws += buf[i:j]
            if j == len(buf) and len(self._held_ws) <= MAX_NAME:
                return j
            if len(self._held_ws) > MAX_NAME or (
                not buf.startswith(self._openers, j) and not self._maybe_opener(buf, j)
            ):  # text follows, or more whitespace than a template puts between calls: it is text
                held, self._held_ws = self._held_ws, ""
                self._after_call = False
                self._text(held)
            i = j
        if self._at_start and self._llama_start:
            j = _skip_ws(buf, i)
            if j == len(buf):
                self._text(buf[i:j])
                return j
            if buf[j] == "{":
                self._text(buf[i:j])
                self._at_start = False
                return self._open("llama3_json", buf, j, "")
            self._at_start = False
        m = self._opener_re.search(buf, i)
        if m is None:
            k = self._partial(buf, i, (*self._openers, FENCE))
            self._text(buf[i:k])
            return ~k if k < len(buf) else k
        start, marker = m.start(), m.group()
        self._text(buf[i:start])
        if marker == FENCE:
            self._text(FENCE)
            self._state = self._s_fence
            return m.end()
        fmt = self.format
        if fmt == "auto":
            fmt = _FORMAT_OF_OPENER.get(marker, "auto")
        return self._open(fmt, buf, m.end(), marker)

    def _maybe_opener(self, buf: str, j: int) -> bool:
        return self._partial(buf, j, self._openers) == j

    def _s_fence(self, buf: str, i: int) -> int:
        k = buf.find(FENCE, i)
        if k < 0:
            k = self._partial(buf, i, (FENCE,))
            self._text(buf[i:k])
            return ~k if k < len(buf) else k
        self._text(buf[i : k + 3])
        self._state = self._st_text
        return k + 3

    def _open(self, fmt: str, buf: str, i: int, marker: str) -> int:
        """An opening marker (or llama's leading ``{``) ended at ``i``: read the call's markup from there."""
        self._markup = [marker]
        self._markup_size = len(marker)
        self._collect = True
        self._held_ws = ""
        self._after_call = False
        self._pending_format = fmt
        if fmt in ("hermes", "qwen3_coder", "glm45") or (fmt == "auto" and marker == TOOL_CALL):
            self._call_close = TOOL_CALL_END
            self._state = self._s_tool_call
        elif fmt == "mistral":
            self._call_close = ""
            self._state = self._s_mistral
        elif fmt == "llama3_json":
            self._call_close = ""
            self._begin_envelope("parameters", self._s_llama_after)
        elif fmt == "deepseek_v3":
            self._call_close = DS_CALL_END
            self._state = self._s_ds_call if marker == DS_CALL else self._s_ds_section
        elif fmt == "kimi_k2":
            self._call_close = KIMI_CALL_END
            self._state = self._s_kimi_call if marker == KIMI_CALL else self._s_kimi_section
        else:
            self._call_close = H_CALL
            self._state = self._s_h_header
        return i

    def _pin(self, fmt: str) -> None:
        """``auto`` met its first marker: from now on only that format's markers count."""
        if self.format == "auto" and fmt != "auto":
            self.format = fmt
            self._set_openers(_OPENERS[fmt])

    def _expect(self, buf: str, i: int, literal: str) -> int:
        """Match ``literal`` at ``i`` (after whitespace): the index past it, ``~i`` to wait, or raise."""
        j = _skip_ws(buf, i)
        n = len(buf)
        if n - j >= len(literal):
            if buf.startswith(literal, j):
                return j + len(literal)
            raise _Malformed(f"expected {literal!r}")
        if literal.startswith(buf[j:]):
            return ~i
        raise _Malformed(f"expected {literal!r}")

    def _until(self, buf: str, i: int, marker: str, limit: int = MAX_NAME) -> tuple[str, int] | int:
        """The text up to ``marker`` and the index past it, or ``~i`` to wait for more."""
        k = buf.find(marker, i)
        if k < 0:
            if len(buf) - i > limit + len(marker):
                raise _Malformed(f"no {marker!r} within {limit} characters")
            return ~i
        if k - i > limit:
            raise _Malformed(f"no {marker!r} within {limit} characters")
        return buf[i:k], k + len(marker)

    # -- calls --------------------------------------------------------------------

    def _begin_call(self, name: str, call_id: str = "") -> None:
        name = name.strip()
        if not _NAME.fullmatch(name):
            raise _Malformed("not a function name")
        self._pin(self._pending_format)
        self._markup = []
        self._markup_size = 0
        self._collect = False
        self._call = next(self._calls)
        self._name = name
        known = self._types is None or name in self._types
        self._out.append(CallBegin(self._call, call_id or f"{self._id_prefix}{next(self._ids)}", name, known))
        if self._held_args:
            self._out.append(CallArguments(self._call, "".join(self._held_args)))
            self._held_args = []
            self._held_size = 0

    def _emit_args(self, text: str) -> None:
        if not text:
            return
        if self._call >= 0:
            self._out.append(CallArguments(self._call, text))
            return
        self._held_args.append(text)  # bounded with the markup that holds it (MAX_HELD_ARGUMENTS)

    def _end_call(self, error: str | None = None) -> None:
        if self._call >= 0:
            self._out.append(CallEnd(self._call, error))
        self._call = -1
        self._name = ""
        self._held_args = []
        self._held_size = 0

    def _after_call_text(self, buf: str, i: int) -> int:
        """Back to text; the whitespace right after a call is held, and dropped if a call or the end follows."""
        self._state = self._st_text
        self._collect = False
        self._markup, self._markup_size = [], 0
        j = _skip_ws(buf, i)
        self._held_ws = buf[i:j]
        self._after_call = True
        return j

    def _s_close(self, buf: str, i: int) -> int:
        """Expect the call's closing marker; after a broken call, drop everything up to it."""
        marker = self._close_marker
        if self._skip_junk:
            k = buf.find(marker, i)
            if k < 0:
                k = self._partial(buf, i, (marker,))
                return ~k if k < len(buf) else k
        else:
            k = _skip_ws(buf, i)
            if len(buf) - k < len(marker) and marker.startswith(buf[k:]):
                return ~i
            if not buf.startswith(marker, k):  # no closing marker: what follows is text
                return self._after_call_text(buf, i)
        self._skip_junk = False
        return self._after_call_text(buf, k + len(marker))

    # -- the JSON skimmer ----------------------------------------------------------

    def _skim(self, emit: Callable[[str], None], after: Callable[[str, int], int], end_call: bool = False) -> None:
        """Read one JSON value's text, handing it to ``emit`` as it arrives; then go to ``after``
        (ending the call first with ``end_call``: no closing marker follows)."""
        self._skim_ends_call = end_call
        self._depth = 0
        self._in_str = False
        self._esc = False
        self._scalar = False
        self._emit_skim = emit
        self._after_skim = after
        self._state = self._s_skim_start

    def _s_skim_start(self, buf: str, i: int) -> int:
        j = _skip_ws(buf, i)
        if j == len(buf):
            return _hold_ws(i, j)
        c = buf[j]
        if c in "{[":
            self._depth = 0
        elif c == '"':
            self._in_str = True
            self._depth = 0
            self._emit_skim(c)
            self._state = self._st_skim
            return j + 1
        elif c in "-0123456789tfnTFN":
            self._scalar = True
        else:
            raise _Malformed("expected a JSON value")
        self._state = self._st_skim
        return j

    def _s_skim(self, buf: str, i: int) -> int:
        n = len(buf)
        start = i
        if self._scalar:
            m = _SCALAR_END.search(buf, i)
            stop = m.start() if m else n
            self._emit_skim(buf[i:stop])
            if m is not None:
                self._scalar = False
                self._skim_done()
            return stop
        i, depth, self._in_str, self._esc, done = _skim_json(buf, i, self._depth, self._in_str, self._esc, MAX_DEPTH)
        self._depth = depth
        self._emit_skim(buf[start:i])
        if depth > MAX_DEPTH:
            raise _Malformed("arguments nested too deep")
        if done:
            self._skim_done()
        return i

    def _skim_done(self) -> None:
        self._state = self._after_skim
        if self._skim_ends_call:
            self._end_call()
            self._after_call = True

    # -- the envelope: {"name": ..., "arguments": ...} ---------------------------

    def _begin_envelope(self, args_key: str, after: Callable[[str, int], int]) -> None:
        self._args_key = args_key
        self._env_after = after
        self._env_seen = 0
        self._state = self._s_env_open

    def _s_env_open(self, buf: str, i: int) -> int:
        j = self._expect(buf, i, "{")
        if j < 0:
            return j
        self._state = self._s_env_key
        return j

    def _s_env_key(self, buf: str, i: int) -> int:
        j = _skip_ws(buf, i)
        if j == len(buf):
            return _hold_ws(i, j)
        c = buf[j]
        if c == "}":
            return self._env_done(j + 1)
        if c == ",":
            return j + 1
        if c != '"':
            raise _Malformed("expected a key")
        got = self._json_string(buf, j)
        if isinstance(got, int):
            return got
        key, end = got
        if self._call < 0 and key not in _ENVELOPE_KEYS:
            raise _Malformed(f"{key!r} is not a key of a call")
        self._env_key = key
        self._state = self._s_env_colon
        return end

    def _json_string(self, buf: str, j: int) -> tuple[str, int] | int:
        """The JSON string starting at ``j`` (bounded), decoded, and the index past it; ``~j`` to wait."""
        k = j + 1
        n = len(buf)
        while True:
            m = _STR_STOP.search(buf, k)
            if m is None:
                if n - j > MAX_NAME:
                    raise _Malformed("a name or key that never ends")
                return ~j
            if m.group() == "\\":
                k = m.end() + 1
                if k > n:
                    return ~j
                continue
            end = m.end()
            if end - j > MAX_NAME:
                raise _Malformed("a name or key too long")
            try:
                return json.loads(buf[j:end]), end
            except ValueError:
                raise _Malformed("an invalid string") from None

    def _s_env_colon(self, buf: str, i: int) -> int:
        j = self._expect(buf, i, ":")
        if j < 0:
            return j
        key = self._env_key
        if key == "name":
            self._state = self._s_env_name
        elif key == self._args_key or key in ("arguments", "parameters"):
            if self._env_seen:
                raise _Malformed("arguments given twice")
            self._env_seen = 1
            self._skim(self._emit_args, self._s_env_key)
        else:
            self._skim(_discard, self._s_env_key)
        return j

    def _s_env_name(self, buf: str, i: int) -> int:
        j = _skip_ws(buf, i)
        if j == len(buf):
            return _hold_ws(i, j)
        if buf[j] != '"':
            raise _Malformed("a call's name is a string")
        got = self._json_string(buf, j)
        if isinstance(got, int):
            return got
        name, end = got
        if self._call >= 0:
            raise _Malformed("a second name in one call")
        self._begin_call(name)
        self._state = self._s_env_key
        return end

    def _env_done(self, i: int) -> int:
        if self._call < 0:
            raise _Malformed("a call without a name")
        if not self._env_seen:
            self._out.append(CallArguments(self._call, "{}"))
        self._end_call()
        self._state = self._env_after
        return i

    # -- hermes, qwen3_coder, glm45: <tool_call> ... </tool_call> -------------------

    def _s_tool_call(self, buf: str, i: int) -> int:
        j = _skip_ws(buf, i)
        if j == len(buf):
            return _hold_ws(i, j)
        fmt = self._pending_format
        c = buf[j]
        if fmt == "auto":
            if c == "{":
                fmt = "hermes"
            elif c == "<":
                if len(buf) - j < len("<function=") and "<function=".startswith(buf[j:]):
                    return ~i
                fmt = "qwen3_coder" if buf.startswith("<function=", j) else "glm45"
            else:
                fmt = "glm45"
            self._pending_format = fmt
        if fmt == "hermes":
            self._begin_envelope("arguments", self._s_close)
            self._close_marker = TOOL_CALL_END
        elif fmt == "qwen3_coder":
            self._state = self._s_q_function
        else:
            self._state = self._s_g_name
        return j

    # qwen3_coder

    def _s_q_function(self, buf: str, i: int) -> int:
        j = self._expect(buf, i, "<function=")
        if j < 0:
            return j
        got = self._until(buf, j, ">")
        if isinstance(got, int):
            return ~i
        name, end = got
        self._begin_call(name)
        self._params = 0
        self._out.append(CallArguments(self._call, "{"))
        self._state = self._s_q_param
        return end

    def _s_q_param(self, buf: str, i: int) -> int:
        j = _skip_ws(buf, i)
        if j == len(buf):
            return _hold_ws(i, j)
        marker = _match_any(buf, j, ("<parameter=", FUNCTION_END, TOOL_CALL_END))
        if marker is None:
            raise _Malformed("expected '<parameter=' or '</function>'")
        if not marker:
            return ~j
        if marker != "<parameter=":
            self._out.append(CallArguments(self._call, "}"))
            self._end_call()
            if marker == TOOL_CALL_END:
                return self._after_call_text(buf, j + len(marker))
            self._close_marker = TOOL_CALL_END
            self._state = self._s_close
            return j + len(marker)
        got = self._until(buf, j + len(marker), ">")
        if isinstance(got, int):
            return ~j
        key, end = got
        self._start_param(key.strip(), PARAMETER_END)
        return end

    def _start_param(self, key: str, end_marker: str) -> None:
        if not key:
            raise _Malformed("a parameter without a name")
        prefix = ", " if self._params else ""
        self._params += 1
        types: set[str] | None = None
        if self._types is not None:
            allowed = _allowed_types(self._types.get(self._name, {}).get(key))
            if allowed and "string" not in allowed:
                types = allowed
        self._param_types = types
        self._param_raw = []
        self._param_nl = ""
        self._param_first = end_marker == PARAMETER_END
        self._held_size = 0
        self._value_end = end_marker
        self._state = self._s_value
        self._out.append(CallArguments(self._call, f"{prefix}{json.dumps(key, ensure_ascii=False)}: "
                                       + ('"' if types is None else "")))

    def _s_value(self, buf: str, i: int) -> int:
        """A raw parameter value up to its closing marker, streamed as a JSON string or held to be typed."""
        end_marker = self._value_end
        if self._param_first:  # the template's newline after the opening marker
            if buf[i] == "\n":
                i += 1
            self._param_first = False
            if i == len(buf):
                return i
        k = buf.find(end_marker, i)
        stop = k if k >= 0 else self._partial(buf, i, (end_marker,))
        self._value_data(buf[i:stop], final=k >= 0)
        if k < 0:
            return ~stop if stop < len(buf) else stop
        self._end_param()
        self._state = self._s_q_param if end_marker == PARAMETER_END else self._s_g_param
        return k + len(end_marker)

    def _value_data(self, data: str, final: bool) -> None:
        if self._value_end == PARAMETER_END:  # the template's newline before the closing marker
            if self._param_nl:
                data = self._param_nl + data
                self._param_nl = ""
            if data.endswith("\n"):
                data = data[:-1]
                if not final:
                    self._param_nl = "\n"
        if not data:
            return
        if self._param_types is not None:
            self._param_raw.append(data)
            self._held_size += len(data)
            if self._held_size > MAX_HELD_ARGUMENTS:
                raise _Malformed("a typed parameter too long")
            return
        self._out.append(CallArguments(self._call, json.dumps(data, ensure_ascii=False)[1:-1]))

    def _end_param(self) -> None:
        if self._param_types is None:
            self._out.append(CallArguments(self._call, '"'))
        else:
            self._out.append(CallArguments(self._call, _typed_json("".join(self._param_raw), self._param_types)))
            self._param_raw = []

    # glm45

    def _s_g_name(self, buf: str, i: int) -> int:
        m = _GLM_NAME_END.search(buf, i)
        if m is None:
            if len(buf) - i > MAX_NAME + len(TOOL_CALL_END):
                raise _Malformed("a call's name that never ends")
            return ~i
        self._begin_call(buf[i : m.start()])
        self._params = 0
        self._out.append(CallArguments(self._call, "{"))
        self._state = self._s_g_param
        return m.start()

    def _s_g_param(self, buf: str, i: int) -> int:
        j = _skip_ws(buf, i)
        if j == len(buf):
            return _hold_ws(i, j)
        marker = _match_any(buf, j, (ARG_KEY, TOOL_CALL_END))
        if marker is None:
            raise _Malformed("expected '<arg_key>' or '</tool_call>'")
        if not marker:
            return ~j
        if marker == TOOL_CALL_END:
            self._out.append(CallArguments(self._call, "}"))
            self._end_call()
            return self._after_call_text(buf, j + len(marker))
        got = self._until(buf, j + len(ARG_KEY), ARG_KEY_END)
        if isinstance(got, int):
            return ~j
        key, end = got
        k = _skip_ws(buf, end)
        value = _match_any(buf, k, (ARG_VALUE,))
        if value is None:
            raise _Malformed("expected '<arg_value>'")
        if not value:
            return ~j
        self._start_param(key.strip(), ARG_VALUE_END)
        return k + len(ARG_VALUE)

    # -- mistral ----------------------------------------------------------------------

    def _s_mistral(self, buf: str, i: int) -> int:
        j = _skip_ws(buf, i)
        if j == len(buf):
            return _hold_ws(i, j)
        c = buf[j]
        if c == "[":
            self._begin_envelope("arguments", self._s_mistral_next)
            return j + 1
        if c == "{":
            self._begin_envelope("arguments", self._after_call_text)
            return j
        m = _MISTRAL_NAME_END.search(buf, j)
        if m is None:
            if len(buf) - j > MAX_NAME + len(MISTRAL_CALL_ID):
                raise _Malformed("a call's name that never ends")
            return ~i
        if m.start() - j > MAX_NAME:
            raise _Malformed("a call's name too long")
        name = buf[j : m.start()]
        if m.group() == MISTRAL_CALL_ID:
            self._name_pending = name
            self._state = self._s_mistral_call_id
            return m.end()
        self._begin_call(name)
        self._skim(self._emit_args, self._after_call_text, end_call=True)
        return m.end()

    _name_pending = ""

    def _s_mistral_call_id(self, buf: str, i: int) -> int:
        got = self._until(buf, i, MISTRAL_ARGS)
        if isinstance(got, int):
            return got
        call_id, end = got
        self._begin_call(self._name_pending, call_id.strip())
        self._skim(self._emit_args, self._after_call_text, end_call=True)
        return end

    def _s_mistral_next(self, buf: str, i: int) -> int:
        j = _skip_ws(buf, i)
        if j == len(buf):
            return _hold_ws(i, j)
        if buf[j] == ",":
            self._markup, self._markup_size, self._collect = [], 0, False
            self._begin_envelope("arguments", self._s_mistral_next)
            return j + 1
        if buf[j] == "]":
            return self._after_call_text(buf, j + 1)
        return self._after_call_text(buf, j)  # a list cut short: what follows is text

    # -- llama3_json ------------------------------------------------------------------

    def _s_llama_after(self, buf: str, i: int) -> int:
        j = _skip_ws(buf, i)
        if j == len(buf):
            return _hold_ws(i, j)
        if buf[j] == ";":
            self._markup, self._markup_size, self._collect = [buf[i : j + 1]], j + 1 - i, True
            self._begin_envelope("parameters", self._s_llama_after)
            return j + 1
        return self._after_call_text(buf, i)

    # -- deepseek_v3 ------------------------------------------------------------------

    def _s_ds_section(self, buf: str, i: int) -> int:
        j = _skip_ws(buf, i)
        if j == len(buf):
            return _hold_ws(i, j)
        marker = _match_any(buf, j, (DS_CALL, DS_CALLS_END))
        if marker is None:
            raise _Malformed("expected a DeepSeek call")
        if not marker:
            return _hold_ws_and_marker(i, j)
        if marker == DS_CALLS_END:
            return self._after_call_text(buf, j + len(marker))
        self._state = self._s_ds_call
        return j + len(marker)

    def _s_ds_call(self, buf: str, i: int) -> int:
        got = self._until(buf, i, DS_SEP)
        if isinstance(got, int):
            return got
        word, end = got
        if word.strip() == "function":  # V3: function<sep>NAME\n```json\n{...}\n```
            self._state = self._s_ds_v3_name
            return end
        self._begin_call(word)
        self._skim(self._emit_args, self._s_ds_call_end)
        return end

    def _s_ds_v3_name(self, buf: str, i: int) -> int:
        got = self._until(buf, i, "\n")
        if isinstance(got, int):
            return got
        name, end = got
        self._begin_call(name)
        self._state = self._s_ds_v3_fence
        return end

    def _s_ds_v3_fence(self, buf: str, i: int) -> int:
        j = self._expect(buf, i, FENCE)
        if j < 0:
            return j
        got = self._until(buf, j, "\n", 32)
        if isinstance(got, int):
            return ~i
        self._skim(self._emit_args, self._s_ds_v3_fence_end)
        return got[1]

    def _s_ds_v3_fence_end(self, buf: str, i: int) -> int:
        j = self._expect(buf, i, FENCE)
        if j < 0:
            return j
        self._state = self._s_ds_call_end
        return j

    def _s_ds_call_end(self, buf: str, i: int) -> int:
        j = self._expect(buf, i, DS_CALL_END)
        if j < 0:
            return j
        self._end_call()
        self._state = self._s_ds_section
        return j

    # -- kimi_k2 ------------------------------------------------------------------------

    def _s_kimi_section(self, buf: str, i: int) -> int:
        j = _skip_ws(buf, i)
        if j == len(buf):
            return _hold_ws(i, j)
        marker = _match_any(buf, j, (KIMI_CALL, KIMI_SECTION_END))
        if marker is None:
            raise _Malformed("expected a Kimi K2 call")
        if not marker:
            return _hold_ws_and_marker(i, j)
        if marker == KIMI_SECTION_END:
            return self._after_call_text(buf, j + len(marker))
        self._state = self._s_kimi_call
        return j + len(marker)

    def _s_kimi_call(self, buf: str, i: int) -> int:
        got = self._until(buf, i, KIMI_ARGS)
        if isinstance(got, int):
            return got
        call_id, end = got
        call_id = call_id.strip()
        name = call_id.rsplit(":", 1)[0] if ":" in call_id else call_id
        if name.startswith("functions."):
            name = name[len("functions."):]
        self._begin_call(name, call_id)
        self._skim(self._emit_args, self._s_kimi_call_end)
        return end

    def _s_kimi_call_end(self, buf: str, i: int) -> int:
        j = self._expect(buf, i, KIMI_CALL_END)
        if j < 0:
            return j
        self._end_call()
        self._state = self._s_kimi_section
        return j

    # -- harmony ------------------------------------------------------------------------

    def _s_h_header(self, buf: str, i: int) -> int:
        got = self._until(buf, i, H_MESSAGE, MAX_HEADER)
        if isinstance(got, int):
            return got
        header, end = got
        for token in (H_CHANNEL, H_START, "<|constrain|>"):
            header = header.replace(token, " ")
        words = header.split()
        recipient = next((w[3:] for w in words if w.startswith("to=")), "")
        channel = next((w for w in words if w in ("analysis", "commentary", "final")), "")
        if recipient.startswith("functions."):
            self._channel = ""
            self._begin_call(recipient[len("functions."):])
            self._skim(self._emit_args, self._s_h_call_end)
            return end
        self._pin("harmony")
        self._markup, self._markup_size, self._collect = [], 0, False
        self._channel = channel
        self._state = self._s_h_body
        return end

    def _s_h_body(self, buf: str, i: int) -> int:
        k = buf.find("<|", i)
        if k < 0:
            k = self._partial(buf, i, ("<|",))
            self._text(buf[i:k])
            return ~k if k < len(buf) else k
        self._text(buf[i:k])
        marker = _match_any(buf, k, (H_END, H_RETURN, H_CALL, H_START, H_CHANNEL))
        if marker == "":
            return ~k
        if marker is None:
            self._text("<|")
            return k + 2
        self._channel = ""
        if marker in (H_START, H_CHANNEL):
            return self._open("harmony", buf, k + len(marker), marker)
        self._state = self._st_text
        return k + len(marker)

    def _s_h_call_end(self, buf: str, i: int) -> int:
        j = _skip_ws(buf, i)
        if j == len(buf):
            return _hold_ws(i, j)
        marker = _match_any(buf, j, (H_CALL, H_END))
        if marker is None:
            raise _Malformed("expected '<|call|>' after the arguments")
        if not marker:
            return ~j
        self._end_call()
        self._state = self._st_text
        return j + len(marker)


def _match_any(buf: str, j: int, markers: tuple[str, ...]) -> str | None:
    """The marker at ``j``; ``""`` when the text ends inside one (wait for more); ``None`` when none is there."""
    rest = len(buf) - j
    waiting = False
    for marker in markers:
        if buf.startswith(marker, j):
            return marker
        if rest < len(marker) and marker.startswith(buf[j:]):
            waiting = True
    return "" if waiting else None


# -- the event transformer ------------------------------------------------------------


class TextToolCallEvents:
    """Rewrites an argstream event stream so that calls written in message text become tool call events.

    ``feed(event)`` returns the events to pass on. A ``Part(i, Message(text))`` goes through one
    scanner per index; its text stays at ``i`` (markup removed), each call found becomes
    ``Part(j, ToolCall(ToolCallStart(id, name)))``, ``Part(j, ToolCall(ArgumentChunk(json)))`` and
    ``Flush(j)``, and harmony reasoning ``Part(k, Reasoning(text))`` ... ``Flush(k)``. The new
    indexes are negative (-1, -2, ...): every adapter numbers its own from 0 up, so they cannot
    collide. Each call's parts and flush carry ``metadata[METADATA_KEY]``: ``{"format": ...,
    "known": bool}``; ``known`` is ``False`` for a name that ``tools=`` does not define, and such a
    call must never run. ``Finished(COMPLETED)`` becomes ``Finished(TOOL_USE)`` when a call of a
    known tool was found. Other events pass through unchanged.
    """

    def __init__(self, format: str = "auto", tools: Any = None, *, id_prefix: str = "call_text_") -> None:
        TextToolCallScanner(format)  # validates the format now, not at the first message
        self.format = format
        self._tools = tools
        self._id_prefix = id_prefix
        self._scanners: dict[int, TextToolCallScanner] = {}
        self._next = -1
        self._calls: dict[tuple[int, int], int] = {}  # (message index, scanner call) -> event index
        self._call_meta: dict[int, dict[str, Any]] = {}
        self._reasoning: dict[int, int] = {}  # message index -> its open reasoning index
        self._found_known = False
        self._scans = 0

    def feed(self, event: Event) -> list[Event]:
        cls = type(event)
        if cls is Part:
            if type(event.part) is Message:  # type: ignore[union-attr]
                index = event.index  # type: ignore[union-attr]
                scanner = self._scanners.get(index)
                if scanner is None:
                    prefix = f"{self._id_prefix}{self._scans}_"
                    self._scans += 1
                    scanner = self._scanners[index] = TextToolCallScanner(self.format, self._tools, id_prefix=prefix)
                return self._convert(index, scanner.feed(event.part.text), event.metadata)  # type: ignore[union-attr]
            return [event]
        if cls is Flush:
            scanner = self._scanners.pop(event.index, None)  # type: ignore[union-attr]
            if scanner is None:
                return [event]
            out = self._convert(event.index, scanner.finish(), {})  # type: ignore[union-attr]
            out += self._close_reasoning(event.index)  # type: ignore[union-attr]
            out.append(event)
            return out
        if cls is Finished:
            out = []
            for index in list(self._scanners):
                scanner = self._scanners.pop(index)
                out += self._convert(index, scanner.finish(), {})
                out += self._close_reasoning(index)
            finished = cast(Finished, event)
            if self._found_known and finished.reason is FinishReason.COMPLETED:
                finished = Finished(FinishReason.TOOL_USE, {**finished.metadata, METADATA_KEY: True})
            out.append(finished)
            return out
        return [event]

    def _new_index(self) -> int:
        index = self._next
        self._next -= 1
        return index

    def _close_reasoning(self, index: int) -> list[Event]:
        k = self._reasoning.pop(index, None)
        return [] if k is None else [Flush(k)]

    def _convert(self, index: int, items: list[Any], metadata: Any) -> list[Event]:
        out: list[Event] = []
        for item in items:
            cls = type(item)
            if cls is TextPiece:
                out += self._close_reasoning(index)
                out.append(Part(index, Message(item.text), metadata))
            elif cls is CallArguments:
                j = self._calls[(index, item.call)]
                out.append(Part(j, ToolCall(ArgumentChunk(item.text)), self._call_meta[j]))
            elif cls is ReasoningPiece:
                k = self._reasoning.get(index)
                if k is None:
                    k = self._reasoning[index] = self._new_index()
                out.append(Part(k, Reasoning(item.text), {METADATA_KEY: {"format": "harmony"}}))
            elif cls is CallBegin:
                out += self._close_reasoning(index)
                j = self._new_index()
                self._calls[(index, item.call)] = j
                fmt = self._scanners[index].format if index in self._scanners else self.format
                meta = self._call_meta[j] = {METADATA_KEY: {"format": fmt, "known": item.known}}
                if item.known:
                    self._found_known = True
                out.append(Part(j, ToolCall(ToolCallStart(item.id, item.name)), meta))
            elif cls is CallEnd:
                j = self._calls.pop((index, item.call))
                meta = self._call_meta.pop(j)
                if item.error is not None:
                    meta = {METADATA_KEY: {**meta[METADATA_KEY], "error": item.error}}
                out.append(Flush(j, meta))
        return out


def text_tool_call_events(
    events: Iterable[Event], format: str = "auto", tools: Any = None, *, id_prefix: str = "call_text_"
) -> Iterator[Event]:
    """``events`` with the tool calls written in message text as tool call events (see :class:`TextToolCallEvents`)."""
    state = TextToolCallEvents(format, tools, id_prefix=id_prefix)
    feed = state.feed
    for event in events:
        yield from feed(event)


async def atext_tool_call_events(
    events: AsyncIterable[Event], format: str = "auto", tools: Any = None, *, id_prefix: str = "call_text_"
) -> AsyncIterator[Event]:
    """The async twin of :func:`text_tool_call_events`."""
    state = TextToolCallEvents(format, tools, id_prefix=id_prefix)
    feed = state.feed
    async for event in events:
        for out in feed(event):
            yield out
