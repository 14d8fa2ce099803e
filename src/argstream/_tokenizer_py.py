"""The pure-Python tokenizer: the specification that ``_tokenizer.pyx`` follows state by state.

Theory of operation
-------------------
``Tokenizer.push()`` takes one chunk and walks it once with an explicit
state machine; it never keeps the document, only the unfinished token tail:
a partial escape (at most ``\\uXXXX`` plus a pending high surrogate), an
incomplete UTF-8 sequence (bytes input, at most 3 bytes), a key or a number
still being read, and the stack of open containers. It reports what it finds
to a *sink* (``on_begin_object`` ... ``on_scalar``), and string data as soon
as a chunk ends, so a long string streams as one piece per chunk.

Bytes input is read as latin-1 (one character per byte, positions stay byte
offsets); only the text inside strings is UTF-8-decoded, with an incomplete
trailing sequence held back for the next chunk.

States, event kinds and error codes are small ints mirrored by the ``cdef
enum``s in ``_tokenizer.pxd`` (a test checks they agree). Errors are sticky:
after the first one, every call raises it again.
"""

from __future__ import annotations

import codecs
import re
from typing import Any

from ._sink_py import Sink
from .errors import ArgumentStreamError, DuplicateKeyError, IncompleteJSONError, concurrent_use

# Event kinds (the sink callbacks).
EV_BEGIN_OBJECT = 1
EV_END_OBJECT = 2
EV_BEGIN_ARRAY = 3
EV_END_ARRAY = 4
EV_KEY = 5
EV_BEGIN_STRING = 6
EV_STRING_DATA = 7
EV_END_STRING = 8
EV_SCALAR = 9

# Parser states.
ST_VALUE = 0  # a value must come (root start, after ':' or an array's ',')
ST_ARRAY_FIRST = 1  # after '[': a value or ']'
ST_OBJECT_FIRST = 2  # after '{': a key or '}'
ST_KEY = 3  # after an object's ',': a key
ST_COLON = 4  # after a key
ST_AFTER_VALUE = 5  # inside a container, after a value: ',' or the closer
ST_STRING = 6
ST_KEY_STRING = 7
ST_NUMBER = 8
ST_LITERAL = 9
ST_END = 10  # the root value is complete: only whitespace may follow
ST_ERROR = 11

# Number sub-states; the ones >= NUM_ZERO with a '*' below may end the number.
NUM_MINUS = 0
NUM_ZERO = 1  # *
NUM_INT = 2  # *
NUM_DOT = 3
NUM_FRAC = 4  # *
NUM_E = 5
NUM_E_SIGN = 6
NUM_EXP = 7  # *

# Container kinds on the stack.
CT_OBJECT = 1
CT_ARRAY = 2

# Error codes.
ERR_EXPECTING_VALUE = 1
ERR_EXPECTING_KEY = 2
ERR_EXPECTING_COLON = 3
ERR_EXPECTING_COMMA = 4
ERR_TRAILING_COMMA_OBJECT = 5
ERR_TRAILING_COMMA_ARRAY = 6
ERR_CONTROL_CHAR = 7
ERR_INVALID_ESCAPE = 8
ERR_INVALID_UNICODE_ESCAPE = 9
ERR_INVALID_NUMBER = 10
ERR_INVALID_LITERAL = 11
ERR_EXTRA_DATA = 12
ERR_DEPTH = 13
ERR_UTF8 = 14
ERR_NUMBER_TOO_LARGE = 15
ERR_EOF_VALUE = 16
ERR_EOF_STRING = 17
ERR_EOF_OBJECT = 18
ERR_EOF_ARRAY = 19
ERR_EOF_NUMBER = 20
ERR_EOF_LITERAL = 21
ERR_DUPLICATE_KEY = 22  # catch_duplicate_keys only

MESSAGES = {
    ERR_EXPECTING_VALUE: "Expecting value",
    ERR_EXPECTING_KEY: "Expecting property name enclosed in double quotes",
    ERR_EXPECTING_COLON: "Expecting ':' delimiter",
    ERR_EXPECTING_COMMA: "Expecting ',' delimiter",
    ERR_TRAILING_COMMA_OBJECT: "Illegal trailing comma before end of object",
    ERR_TRAILING_COMMA_ARRAY: "Illegal trailing comma before end of array",
    ERR_CONTROL_CHAR: "Invalid control character in string",
    ERR_INVALID_ESCAPE: "Invalid \\escape",
    ERR_INVALID_UNICODE_ESCAPE: "Invalid \\uXXXX escape",
    ERR_INVALID_NUMBER: "Invalid number",
    ERR_INVALID_LITERAL: "Invalid literal",
    ERR_EXTRA_DATA: "Extra data",
    ERR_DEPTH: "Maximum nesting depth exceeded",
    ERR_UTF8: "Invalid UTF-8",
    ERR_NUMBER_TOO_LARGE: "Number too large to convert",
    ERR_EOF_VALUE: "Expecting value",
    ERR_EOF_STRING: "Unterminated string",
    ERR_EOF_OBJECT: "Unterminated object",
    ERR_EOF_ARRAY: "Unterminated array",
    ERR_EOF_NUMBER: "Incomplete number",
    ERR_EOF_LITERAL: "Incomplete literal",
    ERR_DUPLICATE_KEY: "Duplicate key",
}

_SIMPLE_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_LITERALS = ("true", "false", "null")
_LITERAL_VALUES = (True, False, None)
_HEX = "0123456789abcdefABCDEF"
_WS = " \t\n\r"
# a run of plain string characters; a surrogate (in str input) ends it too, to be decoded as its escape is
_PLAIN = re.compile(r'[^"\\\x00-\x1f\ud800-\udfff]+')
_WS_RUN = re.compile(r"[ \t\r]*")
_utf8_decode = codecs.utf_8_decode
_NO_BYTES = memoryview(b"")


def _utf8_prefix_ok(tail: bytes) -> bool:
    """Whether the bytes after an incomplete sequence's lead may still continue it."""
    lead = tail[0]
    low, high = {0xE0: (0xA0, 0xBF), 0xED: (0x80, 0x9F), 0xF0: (0x90, 0xBF), 0xF4: (0x80, 0x8F)}.get(lead, (0x80, 0xBF))
    if not low <= tail[1] <= high:
        return False
    return all(0x80 <= b <= 0xBF for b in tail[2:])


class Tokenizer:
    """Incremental JSON tokenizer: ``push(chunk, sink)`` until ``finish(sink)``.

    During a callback, ``offset`` says how far the input had been read when the
    event fired (absolute, in the input's unit): just past the character that
    triggered it (``{``, ``[``, a closer, a quote, a literal's last letter), the end
    of the data for ``on_string_data``, a number's terminator for its ``on_scalar``.
    A sink can slice a value's raw text out of the chunk with it. ``start`` is
    where the current value began (its first character; for a string, the
    opening quote), and ``hold`` where an escape still being decoded began
    (the backslash of a pending high surrogate, if any): string data handed
    out while ``esc`` or ``high`` is set ends there, not at ``offset``.

    With ``catch_duplicate_keys``, a key repeated in one object raises
    ``DuplicateKeyError`` at its closing quote; each open object keeps the set of
    its keys until it closes. Off, keys are not kept at all.

    An exception raised by the sink stops the chunk at that event; the chunk
    still counts as read, and the tokenizer keeps that exception as its sticky
    error (its state past the event is not repairable), re-raised by every
    later ``push``/``finish``.

    One caller at a time: ``push``/``finish`` entered while another call is
    running (another thread, or a sink callback re-entering) raises
    ``ConcurrentUseError``, and so does every later call (a chunk is missing).
    """

    def __init__(self, max_depth: int = 512, surrogates: str = "replace", catch_duplicate_keys: bool = False) -> None:
        if surrogates not in ("replace", "pass"):
            raise ValueError("surrogates must be 'replace' or 'pass'")
        if max_depth < 1:
            raise ValueError("max_depth must be at least 1")
        self.max_depth = max_depth
        self.replace_surrogates = surrogates == "replace"
        self.state = ST_VALUE
        self.stack: list[int] = []
        self.pos = 0  # absolute offset of the next chunk's first unit
        self.offset = 0  # input read when the current event fired (see the class doc)
        self.start = 0  # where the current value began
        self.hold = 0  # where the pending escape began
        self.key_sets: list[set[str]] | None = [] if catch_duplicate_keys else None  # one per open object
        self.line = 1
        self.last_nl = -1  # absolute offset of the last newline between tokens
        self.mode = 0  # 0 unknown, 1 str, 2 bytes
        self.error: BaseException | None = None  # sticky: a parse error, or what a sink raised
        # string decoding
        self.esc = 0  # 0 none, 1 after '\', 2..5 after '\u' + (esc-2) hex digits
        self.code = 0  # \u code unit being read
        self.high = 0  # pending high surrogate, 0 if none
        self.tail = b""  # incomplete UTF-8 sequence (bytes input)
        self.raw = _NO_BYTES  # the bytes chunk being read (bytes input)
        self.tail_pos = 0  # its first byte's offset
        self.key_parts: list[str] = []
        # numbers and literals
        self.num = 0
        self.num_chars: list[str] = []
        self.lit = 0
        self.lit_idx = 0
        self._turn: list[bool] = [True]  # one item, taken during a call (see _parser_py): none left, refused
        self.misused = False  # a call was refused: a chunk is missing, every later one is refused too

    @property
    def done(self) -> bool:
        return self.state == ST_END

    # -- errors ---------------------------------------------------------------

    def _fail(self, code: int, pos: int) -> ArgumentStreamError:
        line = self.line
        col = pos - self.last_nl
        cls = IncompleteJSONError if ERR_EOF_VALUE <= code <= ERR_EOF_LITERAL else ArgumentStreamError
        self.error = cls(MESSAGES[code], pos, line, col)
        self.state = ST_ERROR
        return self.error

    def _fail_duplicate(self, key: str, pos: int) -> ArgumentStreamError:
        self.error = DuplicateKeyError(MESSAGES[ERR_DUPLICATE_KEY], pos, self.line, pos - self.last_nl, key)
        self.state = ST_ERROR
        return self.error

    def _broken(self, exc: BaseException) -> None:
        """A sink (or memory) failed mid-chunk: the state is past repair, so that exception is the sticky error."""
        if self.error is None:
            self.error = exc
        self.state = ST_ERROR

    def raise_sticky(self) -> None:
        err = self.error
        assert err is not None
        raise err.with_traceback(None)

    # -- input ----------------------------------------------------------------

    def push(self, chunk: Any, sink: Sink) -> None:
        """Tokenize one chunk (``str``, or bytes-like UTF-8), reporting to ``sink``."""
        turn = self._turn
        try:
            turn.pop()
        except IndexError:
            self.misused = True
            raise concurrent_use("tokenizer", False) from None
        try:
            if self.misused:
                raise concurrent_use("tokenizer", True)
            self._push(chunk, sink)
        finally:
            turn.append(True)

    def finish(self, sink: Sink) -> None:
        """No more input: complete a bare root number, or raise ``IncompleteJSONError``."""
        turn = self._turn
        try:
            turn.pop()
        except IndexError:
            self.misused = True
            raise concurrent_use("tokenizer", False) from None
        try:
            if self.misused:
                raise concurrent_use("tokenizer", True)
            self._finish(sink)
        finally:
            turn.append(True)

    def _push(self, chunk: Any, sink: Sink) -> None:
        """``push`` for a caller that holds the turn (or owns the tokenizer, as its parser does)."""
        if self.error is not None:
            self.raise_sticky()
        if type(chunk) is str or isinstance(chunk, str):
            utf8 = False
            text = chunk
        elif isinstance(chunk, (bytes, bytearray, memoryview)):
            utf8 = True
            raw = bytes(chunk)
            self.raw = memoryview(raw)  # string runs decode from here, not from a re-encoded slice
            text = raw.decode("latin-1")
        else:
            raise TypeError(f"chunks are str or bytes-like, not {type(chunk).__name__}")
        if not text:
            return
        mode = 2 if utf8 else 1
        if self.mode != mode:
            if self.mode:
                raise TypeError("a parser takes either str or bytes chunks, not both")
            self.mode = mode
        base = self.pos
        try:
            self._run(text, base, utf8, sink)
        except BaseException as exc:
            self._broken(exc)
            raise
        finally:
            self.pos = base + len(text)
            self.raw = _NO_BYTES

    def _finish(self, sink: Sink) -> None:
        """``finish`` for a caller that holds the turn (or owns the tokenizer)."""
        if self.error is not None:
            self.raise_sticky()
        state = self.state
        if state == ST_END:
            return
        if state == ST_NUMBER and not self.stack and self.num in (NUM_ZERO, NUM_INT, NUM_FRAC, NUM_EXP):
            try:
                self._emit_number(sink, self.pos)
            except BaseException as exc:
                self._broken(exc)
                raise
            self.state = ST_END
            return
        if state in (ST_STRING, ST_KEY_STRING):
            code = ERR_EOF_STRING
        elif state == ST_NUMBER:
            code = ERR_EOF_NUMBER
        elif state == ST_LITERAL:
            code = ERR_EOF_LITERAL
        elif not self.stack:
            code = ERR_EOF_VALUE
        elif self.stack[-1] == CT_OBJECT:
            code = ERR_EOF_OBJECT
        else:
            code = ERR_EOF_ARRAY
        raise self._fail(code, self.pos)

    # -- the state machine ------------------------------------------------------

    def _run(self, text: str, base: int, utf8: bool, sink: Sink) -> None:
        n = len(text)
        i = 0
        stack = self.stack
        while i < n:
            state = self.state
            if state == ST_STRING or state == ST_KEY_STRING:
                i = self._string(text, i, base, utf8, sink)
                continue
            if state == ST_NUMBER:
                i = self._number(text, i, base, sink)
                continue
            if state == ST_LITERAL:
                i = self._literal(text, i, base, sink)
                continue
            c = text[i]
            if c in _WS:
                if c == "\n":
                    self.line += 1
                    self.last_nl = base + i
                i = _WS_RUN.match(text, i + 1).end()  # type: ignore[union-attr]  # matches ''
                continue
            if state == ST_AFTER_VALUE:
                top = stack[-1]
                if c == ",":
                    self.state = ST_KEY if top == CT_OBJECT else ST_VALUE
                elif c == "}" and top == CT_OBJECT:
                    self._close(sink, base + i)
                elif c == "]" and top == CT_ARRAY:
                    self._close(sink, base + i)
                else:
                    raise self._fail(ERR_EXPECTING_COMMA, base + i)
                i += 1
            elif state == ST_COLON:
                if c != ":":
                    raise self._fail(ERR_EXPECTING_COLON, base + i)
                self.state = ST_VALUE
                i += 1
            elif state == ST_OBJECT_FIRST or state == ST_KEY:
                if c == '"':
                    self.state = ST_KEY_STRING
                    self.key_parts = []
                elif c == "}":
                    if state == ST_KEY:
                        raise self._fail(ERR_TRAILING_COMMA_OBJECT, base + i)
                    self._close(sink, base + i)
                else:
                    raise self._fail(ERR_EXPECTING_KEY, base + i)
                i += 1
            elif state == ST_END:
                raise self._fail(ERR_EXTRA_DATA, base + i)
            else:  # ST_VALUE or ST_ARRAY_FIRST
                self._value(c, state, base + i, sink)
                i += 1

    def _value(self, c: str, state: int, pos: int, sink: Sink) -> None:
        """Start the value that ``c`` opens."""
        self.offset = pos + 1
        self.start = pos
        if c == '"':
            self.state = ST_STRING
            sink.on_begin_string()
        elif c == "{" or c == "[":
            if len(self.stack) >= self.max_depth:
                raise self._fail(ERR_DEPTH, pos)
            if c == "{":
                self.stack.append(CT_OBJECT)
                if self.key_sets is not None:
                    self.key_sets.append(set())
                self.state = ST_OBJECT_FIRST
                sink.on_begin_object()
            else:
                self.stack.append(CT_ARRAY)
                self.state = ST_ARRAY_FIRST
                sink.on_begin_array()
        elif c == "-" or "0" <= c <= "9":
            self.state = ST_NUMBER
            self.num = NUM_MINUS if c == "-" else NUM_ZERO if c == "0" else NUM_INT
            self.num_chars = [c]
        elif c == "t" or c == "f" or c == "n":
            self.state = ST_LITERAL
            self.lit = "tfn".index(c)
            self.lit_idx = 1
        elif c == "]" and state == ST_ARRAY_FIRST:
            self._close(sink, pos)
        elif c == "]" and self.stack and self.stack[-1] == CT_ARRAY:
            raise self._fail(ERR_TRAILING_COMMA_ARRAY, pos)
        else:
            raise self._fail(ERR_EXPECTING_VALUE, pos)

    def _close(self, sink: Sink, pos: int) -> None:
        self.offset = pos + 1
        if self.stack.pop() == CT_OBJECT:
            if self.key_sets is not None:
                self.key_sets.pop()
            sink.on_end_object()
        else:
            sink.on_end_array()
        self._after_value()

    def _after_value(self) -> None:
        self.state = ST_AFTER_VALUE if self.stack else ST_END

    # -- strings ----------------------------------------------------------------

    def _string(self, text: str, i: int, base: int, utf8: bool, sink: Sink) -> int:
        """Decode string data from ``i``; return where the string (or the chunk) ends."""
        n = len(text)
        is_key = self.state == ST_KEY_STRING
        if not (utf8 or self.esc or self.high):
            m = _PLAIN.match(text, i)
            if m is not None and m.end() == n:  # the common case: plain text to the chunk's end
                data = text[i:] if i else text
                if is_key:
                    self.key_parts.append(data)
                else:
                    self.offset = base + n
                    sink.on_string_data(data)
                return n
        out: list[str] = []
        try:
            return self._string_loop(text, i, base, utf8, sink, is_key, out)
        except ArgumentStreamError as exc:
            data = "".join(out)
            if data and not is_key:  # hand out what this chunk decoded before the error
                self.offset = exc.pos
                sink.on_string_data(data)
            raise

    def _string_loop(self, text: str, i: int, base: int, utf8: bool, sink: Sink, is_key: bool, out: list[str]) -> int:
        n = len(text)
        while i < n:
            if self.esc:
                i = self._escape(text, i, base, out)
                continue
            m = _PLAIN.match(text, i)
            if m is not None:
                j = m.end()
                if self.high:
                    self._flush_high(out)
                if utf8:
                    self._utf8(i, j, base, out)
                else:
                    out.append(text[i:j])
                i = j
                if i >= n:
                    break
            c = text[i]
            if self.tail:  # an incomplete UTF-8 sequence cut off by ASCII
                raise self._fail(ERR_UTF8, self.tail_pos)
            if c == "\\":
                if not self.high:
                    self.hold = base + i
                self.esc = 1
                i += 1
                continue
            if self.high:
                self._flush_high(out)
            if c == '"':
                i += 1
                if is_key:
                    out_text = "".join(self.key_parts) + "".join(out)
                    self.key_parts = []
                    if self.key_sets is not None:
                        self._check_key(out_text, base + i - 1)
                    self.state = ST_COLON
                    self.offset = base + i
                    sink.on_key(out_text)
                else:
                    data = "".join(out)
                    if data:
                        self.offset = base + i - 1
                        sink.on_string_data(data)
                    self.offset = base + i
                    sink.on_end_string()
                    self._after_value()
                return i
            if "\ud800" <= c <= "\udfff":  # written raw (str input only): decoded as its escape would be
                out.append(self._raw_surrogate(c))
                i += 1
                continue
            raise self._fail(ERR_CONTROL_CHAR, base + i)
        data = "".join(out)
        if data:
            if is_key:
                self.key_parts.append(data)
            else:
                self.offset = base + i - len(self.tail)
                sink.on_string_data(data)
        return i

    def _raw_surrogate(self, c: str) -> str:
        """A surrogate code point written raw in ``str`` input: U+FFFD as for its escape, or kept with "pass"."""
        return "\ufffd" if self.replace_surrogates else c

    def _check_key(self, key: str, pos: int) -> None:
        seen = self.key_sets[-1]  # type: ignore[index]  # only called when catching duplicates
        if key in seen:
            raise self._fail_duplicate(key, pos)
        seen.add(key)

    def _escape(self, text: str, i: int, base: int, out: list[str]) -> int:
        """Advance an escape sequence by one character at ``i``."""
        c = text[i]
        esc = self.esc
        if esc == 1:
            if c == "u":
                self.esc = 2
                self.code = 0
                return i + 1
            decoded = _SIMPLE_ESCAPES.get(c)
            if decoded is None:
                raise self._fail(ERR_INVALID_ESCAPE, base + i)
            if self.high:
                self._flush_high(out)
            out.append(decoded)
            self.esc = 0
            return i + 1
        if c not in _HEX:
            raise self._fail(ERR_INVALID_UNICODE_ESCAPE, base + i)
        self.code = self.code * 16 + int(c, 16)
        if esc < 5:
            self.esc = esc + 1
            return i + 1
        self.esc = 0
        unit = self.code
        if self.high:
            if 0xDC00 <= unit <= 0xDFFF:
                out.append(chr(0x10000 + ((self.high - 0xD800) << 10) + (unit - 0xDC00)))
                self.high = 0
                return i + 1
            self._flush_high(out)
        if 0xD800 <= unit <= 0xDBFF:
            self.high = unit
        elif 0xDC00 <= unit <= 0xDFFF:
            out.append("\ufffd" if self.replace_surrogates else chr(unit))
        else:
            out.append(chr(unit))
        return i + 1

    def _flush_high(self, out: list[str]) -> None:
        """A high surrogate escape that no low one followed."""
        out.append("\ufffd" if self.replace_surrogates else chr(self.high))
        self.high = 0

    def _utf8(self, i: int, j: int, base: int, out: list[str]) -> None:
        """Decode the bytes ``i:j`` of the chunk as UTF-8, holding back an incomplete tail."""
        data: Any = self.raw[i:j]
        pos = base + i
        if self.tail:
            data = self.tail + data
            pos = self.tail_pos
        try:
            decoded, used = _utf8_decode(data, "strict", False)
        except UnicodeDecodeError as exc:
            out.append(bytes(data[: exc.start]).decode("utf-8"))  # the valid text before the bad sequence
            raise self._fail(ERR_UTF8, pos + exc.start) from None
        out.append(decoded)
        tail = bytes(data[used:])
        if len(tail) > 1 and not _utf8_prefix_ok(tail):
            # CPython holds back ED A0..BF (a surrogate) until the next byte; the prefix already proves it
            raise self._fail(ERR_UTF8, pos + used)
        self.tail = tail
        self.tail_pos = pos + used

    # -- numbers and literals ---------------------------------------------------

    def _number(self, text: str, i: int, base: int, sink: Sink) -> int:
        n = len(text)
        num = self.num
        start = i
        while i < n:
            c = text[i]
            if "0" <= c <= "9":
                if num == NUM_MINUS:
                    num = NUM_ZERO if c == "0" else NUM_INT
                elif num == NUM_ZERO:
                    break
                elif num == NUM_DOT:
                    num = NUM_FRAC
                elif num == NUM_E or num == NUM_E_SIGN:
                    num = NUM_EXP
            elif c == "." and (num == NUM_ZERO or num == NUM_INT):
                num = NUM_DOT
            elif (c == "e" or c == "E") and (num == NUM_ZERO or num == NUM_INT or num == NUM_FRAC):
                num = NUM_E
            elif (c == "+" or c == "-") and num == NUM_E:
                num = NUM_E_SIGN
            else:
                break
            i += 1
        self.num = num
        self.num_chars.append(text[start:i])
        if i < n:
            if num in (NUM_MINUS, NUM_DOT, NUM_E, NUM_E_SIGN):
                raise self._fail(ERR_INVALID_NUMBER, base + i)
            self._emit_number(sink, base + i)
            self._after_value()
        return i

    def _emit_number(self, sink: Sink, pos: int) -> None:
        s = "".join(self.num_chars)
        self.num_chars = []
        try:
            value = float(s) if self.num >= NUM_DOT else int(s)
        except ValueError:  # more digits than int() converts
            raise self._fail(ERR_NUMBER_TOO_LARGE, pos - len(s)) from None
        self.offset = pos
        sink.on_scalar(value)

    def _literal(self, text: str, i: int, base: int, sink: Sink) -> int:
        word = _LITERALS[self.lit]
        k = self.lit_idx
        n = len(text)
        while i < n and k < len(word):
            if text[i] != word[k]:
                raise self._fail(ERR_INVALID_LITERAL, base + i)
            i += 1
            k += 1
        self.lit_idx = k
        if k == len(word):
            self.offset = base + i
            sink.on_scalar(_LITERAL_VALUES[self.lit])
            self._after_value()
        return i
