"""The lenient tokenizer: the strict one, plus a repair at each place where the strict one would fail.

Theory of operation
-------------------
``LenientTokenizer`` subclasses the strict ``Tokenizer`` and leaves its code alone: strict
parsers never run a line of this module, so strict mode cannot change. Valid JSON walks the
inherited paths; only a character that the strict machine rejects reaches a repair, which is
recorded as a :class:`~argstream.errors.Repair` (kind, input offset) in ``repairs`` and then
handled in the same single pass:

- a comma before ``}`` or ``]`` is dropped (``trailing_comma``);
- ``'...'`` strings and keys (``single_quotes``), ``key:`` without quotes (``unquoted_key``),
  ``True``/``False``/``None`` (``python_literal``);
- ``//`` and ``/* */`` comments between tokens (``comment``);
- a ```` ```json ```` fence around the root value (``code_fence``);
- a root string whose text starts with ``{`` or ``[`` is parsed as the JSON it holds
  (``double_encoded``): its decoded text feeds an inner lenient tokenizer with the same sink;
- at ``finish()``, what is still open is closed (``closed_string``, ``incomplete_number``,
  ``incomplete_literal``, ``incomplete_key``, ``missing_value``, ``closed_container``).

Single-quoted and root strings use their own state numbers, so the parser's fast path for a chunk
inside a ``"`` string never takes them.
"""

from __future__ import annotations

import re
from typing import Any

from ._sink_py import Sink
from ._tokenizer_py import (
    _WS,
    _WS_RUN,
    CT_ARRAY,
    CT_OBJECT,
    ERR_CONTROL_CHAR,
    ERR_EOF_VALUE,
    ERR_EXPECTING_COLON,
    ERR_EXPECTING_COMMA,
    ERR_EXPECTING_KEY,
    ERR_EXPECTING_VALUE,
    ERR_EXTRA_DATA,
    ERR_INVALID_LITERAL,
    ERR_UTF8,
    NUM_DOT,
    NUM_EXP,
    NUM_FRAC,
    NUM_INT,
    NUM_MINUS,
    NUM_ZERO,
    ST_AFTER_VALUE,
    ST_COLON,
    ST_END,
    ST_KEY,
    ST_KEY_STRING,
    ST_LITERAL,
    ST_NUMBER,
    ST_OBJECT_FIRST,
    ST_STRING,
    ST_VALUE,
    Tokenizer,
)
from .errors import ArgumentStreamError, Repair

__all__ = ["LenientTokenizer", "REPAIR_KINDS"]

# Lenient-only states (beyond the strict machine's).
ST_SQ_STRING = 20
ST_SQ_KEY_STRING = 21
ST_BARE_KEY = 22
ST_COMMENT = 23
ST_FENCE = 24
ST_ROOT_STRING = 25  # a root "..." string: plain text, or double-encoded JSON

REPAIR_KINDS = (
    "trailing_comma", "single_quotes", "unquoted_key", "python_literal", "comment", "code_fence",
    "double_encoded", "closed_string", "incomplete_number", "incomplete_literal", "incomplete_key",
    "missing_value", "closed_container",
)

_WORDS = ("true", "false", "null", "True", "False", "None")
_WORD_VALUES = (True, False, None, True, False, None)
_SQ_PLAIN = re.compile(r"[^'\\\x00-\x1f\ud800-\udfff]+")  # as the strict _PLAIN, with ' for "
_BARE = re.compile(r"[A-Za-z0-9_$\-]*")
_BARE_START = re.compile(r"[A-Za-z_$]")
_FENCE_TAG = re.compile(r"[A-Za-z0-9_+\-]*")
MAX_FENCE_TAG = 32
MAX_BARE_KEY = 1 << 16


class _RootString:
    """The sink of a root string until its text shows whether it is JSON written as a string."""

    def __init__(self, tok: LenientTokenizer) -> None:
        self.tok = tok
        self.sink: Any = None
        self.held: list[str] = []
        self.plain = False
        self.inner: LenientTokenizer | None = None

    def on_string_data(self, data: str) -> None:
        if self.inner is not None:
            self.inner.push(data, self.sink)
            return
        if self.plain:
            self.sink.on_string_data(data)
            return
        self.held.append(data)
        stripped = data.lstrip(_WS)
        if not stripped:  # only whitespace so far: undecided (each piece is looked at once)
            return
        text = "".join(self.held)
        self.held = []
        if stripped[0] in "{[":
            tok = self.tok
            tok.repaired("double_encoded", tok.start)
            self.inner = LenientTokenizer(tok.max_depth, "replace" if tok.replace_surrogates else "pass",
                                          tok.key_sets is not None)
            self.inner.push(text, self.sink)
        else:
            self.plain = True
            self.sink.on_begin_string()
            self.sink.on_string_data(text)

    def on_end_string(self) -> None:
        inner = self.inner
        if inner is not None:
            inner.finish(self.sink)
            self.tok.repairs.extend(Repair(r.kind, self.tok.start) for r in inner.repairs)
            return
        if not self.plain:
            self.sink.on_begin_string()
            if self.held:
                self.sink.on_string_data("".join(self.held))
        self.sink.on_end_string()


class LenientTokenizer(Tokenizer):
    """``Tokenizer`` that repairs what weak models get wrong, recording each repair in ``repairs``."""

    def __init__(self, max_depth: int = 512, surrogates: str = "replace", catch_duplicate_keys: bool = False) -> None:
        super().__init__(max_depth, surrogates, catch_duplicate_keys)
        self.repairs: list[Repair] = []
        self.ret = ST_VALUE  # the state a comment or fence returns to
        self.cmt = 0  # 1 after '/', 2 in a line comment, 3 in a block comment, 4 after its '*'
        self.slash = 0  # where the comment's '/' is
        self.ticks = 0
        self.fence = 0  # 1 opening ticks, 2 the language tag, 3 closing ticks
        self.fenced = False  # an opening fence was read: a closing one may follow the value
        self.tag = 0
        self.bare: list[str] = []
        self.bare_len = 0
        self.root = _RootString(self)

    def repaired(self, kind: str, pos: int) -> None:
        self.repairs.append(Repair(kind, pos))

    # -- the state machine ----------------------------------------------------------

    def _run(self, text: str, base: int, utf8: bool, sink: Sink) -> None:
        n = len(text)
        i = 0
        stack = self.stack
        self.root.sink = sink
        while i < n:
            state = self.state
            if state == ST_STRING or state == ST_KEY_STRING:
                i = self._string(text, i, base, utf8, sink)
                continue
            if state == ST_ROOT_STRING:
                i = self._string(text, i, base, utf8, self.root)  # type: ignore[arg-type]
                continue
            if state == ST_SQ_STRING or state == ST_SQ_KEY_STRING:
                i = self._sq_string(text, i, base, utf8, sink)
                continue
            if state == ST_NUMBER:
                i = self._number(text, i, base, sink)
                continue
            if state == ST_LITERAL:
                i = self._literal(text, i, base, sink)
                continue
            if state == ST_BARE_KEY:
                i = self._bare_key(text, i, base, sink)
                continue
            if state == ST_COMMENT:
                i = self._comment(text, i, base)
                continue
            if state == ST_FENCE:
                i = self._fence(text, i, base)
                continue
            c = text[i]
            if c in _WS:
                if c == "\n":
                    self.line += 1
                    self.last_nl = base + i
                i = _WS_RUN.match(text, i + 1).end()  # type: ignore[union-attr]
                continue
            if c == "/":
                self.repaired("comment", base + i)
                self.ret = state
                self.state = ST_COMMENT
                self.cmt = 1
                self.slash = base + i
                i += 1
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
                i = self._key_start(c, state, text, i, base, sink)
            elif state == ST_END:
                if c == "`" and self.fenced:
                    self.fenced = False
                    self.fence = 3
                    self.ticks = 0
                    self.ret = ST_END
                    self.state = ST_FENCE
                    continue
                raise self._fail(ERR_EXTRA_DATA, base + i)
            else:  # ST_VALUE or ST_ARRAY_FIRST
                self._value(c, state, base + i, sink)
                i += 1

    def _key_start(self, c: str, state: int, text: str, i: int, base: int, sink: Sink) -> int:
        if c == '"':
            self.state = ST_KEY_STRING
            self.key_parts = []
        elif c == "}":
            if state == ST_KEY:
                self.repaired("trailing_comma", base + i)
            self._close(sink, base + i)
        elif c == "'":
            self.repaired("single_quotes", base + i)
            self.state = ST_SQ_KEY_STRING
            self.key_parts = []
        elif _BARE_START.match(c):
            self.repaired("unquoted_key", base + i)
            self.state = ST_BARE_KEY
            self.bare = []
            self.bare_len = 0
            return i
        else:
            raise self._fail(ERR_EXPECTING_KEY, base + i)
        return i + 1

    def _value(self, c: str, state: int, pos: int, sink: Sink) -> None:
        if c == '"' and not self.stack:
            self.offset = pos + 1
            self.start = pos
            self.state = ST_ROOT_STRING
            return
        if c == "'":
            self.repaired("single_quotes", pos)
            self.offset = pos + 1
            self.start = pos
            self.state = ST_SQ_STRING
            sink.on_begin_string()
            return
        if c == "T" or c == "F" or c == "N":
            self.repaired("python_literal", pos)
            self.offset = pos + 1
            self.start = pos
            self.state = ST_LITERAL
            self.lit = 3 + "TFN".index(c)
            self.lit_idx = 1
            return
        if c == "]" and state == ST_VALUE and self.stack and self.stack[-1] == CT_ARRAY:
            self.repaired("trailing_comma", pos)
            self._close(sink, pos)
            return
        if c == "`" and state == ST_VALUE and not self.stack and not self.fenced:
            self.repaired("code_fence", pos)
            self.fence = 1
            self.ticks = 1
            self.tag = 0
            self.ret = ST_VALUE
            self.state = ST_FENCE
            return
        super()._value(c, state, pos, sink)

    # -- the additions ----------------------------------------------------------------

    def _literal(self, text: str, i: int, base: int, sink: Sink) -> int:
        word = _WORDS[self.lit]
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
            sink.on_scalar(_WORD_VALUES[self.lit])
            self._after_value()
        return i

    def _bare_key(self, text: str, i: int, base: int, sink: Sink) -> int:
        j = _BARE.match(text, i).end()  # type: ignore[union-attr]  # matches ''
        if j > i:
            self.bare.append(text[i:j])
            self.bare_len += j - i
            if self.bare_len > MAX_BARE_KEY:
                raise self._fail(ERR_EXPECTING_KEY, base + j)
        if j == len(text):
            return j
        key = "".join(self.bare)
        self.bare = []
        if self.key_sets is not None:
            self._check_key(key, base + j - 1)
        self.state = ST_COLON
        self.offset = base + j
        sink.on_key(key)
        return j

    def _comment(self, text: str, i: int, base: int) -> int:
        n = len(text)
        cmt = self.cmt
        if cmt == 1:
            c = text[i]
            if c == "/":
                self.cmt = 2
            elif c == "*":
                self.cmt = 3
            else:  # a '/' that starts no comment: the error is at the '/', wherever the chunk ended
                raise self._fail(ERR_EXPECTING_VALUE, self.slash)
            return i + 1
        if cmt == 2:
            k = text.find("\n", i)
            if k < 0:
                return n
            self.line += 1
            self.last_nl = base + k
            self.state = self.ret
            return k + 1
        while i < n:
            c = text[i]
            if c == "\n":
                self.line += 1
                self.last_nl = base + i
            if self.cmt == 4 and c == "/":
                self.state = self.ret
                return i + 1
            self.cmt = 4 if c == "*" else 3
            i += 1
        return n

    def _fence(self, text: str, i: int, base: int) -> int:
        n = len(text)
        while i < n:
            c = text[i]
            if self.fence == 2:  # the language tag, up to its newline
                j = _FENCE_TAG.match(text, i).end()  # type: ignore[union-attr]
                self.tag += j - i
                if self.tag > MAX_FENCE_TAG:  # at the first character past the bound, wherever the chunk ended
                    raise self._fail(ERR_EXPECTING_VALUE, base + j - (self.tag - MAX_FENCE_TAG))
                if j == n:
                    return n
                c = text[j]
                self.state = ST_VALUE
                self.fenced = True
                if c == "\n":
                    self.line += 1
                    self.last_nl = base + j
                    return j + 1
                return j
            if c != "`":
                raise self._fail(ERR_EXPECTING_VALUE if self.fence == 1 else ERR_EXTRA_DATA, base + i)
            self.ticks += 1
            i += 1
            if self.ticks == 3:
                if self.fence == 1:
                    self.fence = 2
                else:
                    self.state = ST_END
                    self.fence = 0
                    return i
        return n

    def _sq_string(self, text: str, i: int, base: int, utf8: bool, sink: Sink) -> int:
        """A single-quoted string or key: ``"`` is a character, ``'`` ends it, ``\\'`` escapes it."""
        n = len(text)
        is_key = self.state == ST_SQ_KEY_STRING
        out: list[str] = []
        try:
            while i < n:
                if self.esc:
                    if self.esc == 1 and text[i] == "'":
                        if self.high:
                            self._flush_high(out)
                        out.append("'")
                        self.esc = 0
                        i += 1
                        continue
                    i = self._escape(text, i, base, out)
                    continue
                m = _SQ_PLAIN.match(text, i)
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
                if self.tail:
                    raise self._fail(ERR_UTF8, self.tail_pos)
                if c == "\\":
                    if not self.high:
                        self.hold = base + i
                    self.esc = 1
                    i += 1
                    continue
                if self.high:
                    self._flush_high(out)
                if c == "'":
                    i += 1
                    data = "".join(out)
                    if is_key:
                        key = "".join(self.key_parts) + data
                        self.key_parts = []
                        if self.key_sets is not None:
                            self._check_key(key, base + i - 1)
                        self.state = ST_COLON
                        self.offset = base + i
                        sink.on_key(key)
                    else:
                        if data:
                            self.offset = base + i - 1
                            sink.on_string_data(data)
                        self.offset = base + i
                        sink.on_end_string()
                        self._after_value()
                    return i
                if "\ud800" <= c <= "\udfff":
                    out.append(self._raw_surrogate(c))
                    i += 1
                    continue
                raise self._fail(ERR_CONTROL_CHAR, base + i)
        except ArgumentStreamError as exc:
            data = "".join(out)
            if data and not is_key:
                self.offset = exc.pos
                sink.on_string_data(data)
            raise
        data = "".join(out)
        if data:
            if is_key:
                self.key_parts.append(data)
            else:
                self.offset = base + i - len(self.tail)
                sink.on_string_data(data)
        return i

    # -- the end --------------------------------------------------------------------

    def _finish(self, sink: Sink) -> None:
        """No more input: close what is open, recording each closing; raise only when nothing came at all."""
        if self.error is not None:
            self.raise_sticky()
        self.root.sink = sink
        try:
            self._close_open(sink)
        except BaseException as exc:
            self._broken(exc)
            raise

    def _close_open(self, sink: Sink) -> None:
        pos = self.pos
        state = self.state
        if state == ST_COMMENT:
            if self.cmt >= 3:
                self.repaired("comment", pos)
            state = self.state = self.ret
        if state == ST_FENCE:
            state = self.state = ST_VALUE if self.fence < 3 else ST_END
        if state == ST_END:
            return
        if state == ST_VALUE and not self.stack:
            raise self._fail(ERR_EOF_VALUE, pos)
        self.offset = pos
        if state in (ST_STRING, ST_SQ_STRING, ST_ROOT_STRING):
            self.repaired("closed_string", pos)
            self.esc = 0
            self.tail = b""
            if self.high:
                out: list[str] = []
                self._flush_high(out)
                (self.root if state == ST_ROOT_STRING else sink).on_string_data(out[0])
            (self.root if state == ST_ROOT_STRING else sink).on_end_string()
            self._after_value()
        elif state in (ST_KEY_STRING, ST_SQ_KEY_STRING, ST_BARE_KEY):
            self.repaired("incomplete_key", pos)  # a key without a value is dropped
            self.esc = self.high = 0
            self.key_parts = []
            self.bare = []
            self.state = ST_AFTER_VALUE
        elif state == ST_NUMBER:
            self._close_number(sink, pos)
        elif state == ST_LITERAL:
            self.repaired("incomplete_literal", pos)  # kept as the string it began, as json_repair does
            sink.on_begin_string()
            sink.on_string_data(_WORDS[self.lit][: self.lit_idx])
            sink.on_end_string()
            self._after_value()
        elif state == ST_COLON or (state == ST_VALUE and self.stack[-1] == CT_OBJECT):
            self.repaired("missing_value", pos)  # json_repair's "" for a key without a value
            sink.on_begin_string()
            sink.on_end_string()
            self._after_value()
        while self.stack:
            self.repaired("closed_container", pos)
            self._close(sink, pos)
        self.state = ST_END

    def _close_number(self, sink: Sink, pos: int) -> None:
        num = self.num
        if num in (NUM_ZERO, NUM_INT, NUM_FRAC, NUM_EXP):
            self._emit_number(sink, pos)
            self._after_value()
            return
        self.repaired("incomplete_number", pos)
        text = "".join(self.num_chars)
        if num == NUM_MINUS:  # nothing but '-': no value
            self.num_chars = []
            if self.stack and self.stack[-1] == CT_OBJECT:
                sink.on_begin_string()
                sink.on_end_string()
            self._after_value() if self.stack else self._fail_empty(pos)
            return
        if num == NUM_DOT:
            self.num_chars = [text[:-1]]
            self.num = NUM_FRAC  # "1." is 1.0, as json_repair reads it
        else:  # NUM_E, NUM_E_SIGN: the exponent is dropped
            mantissa = text[: max(text.find("e"), text.find("E"))]
            self.num_chars = [mantissa]
            self.num = NUM_FRAC if "." in mantissa else NUM_INT
        self._emit_number(sink, pos)
        self._after_value()

    def _fail_empty(self, pos: int) -> None:
        raise self._fail(ERR_EOF_VALUE, pos)

