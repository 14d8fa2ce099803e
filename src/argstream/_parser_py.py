"""The pure-Python ``IncrementalArgParser``: a tokenizer feeding a fragment builder (twin of ``_parser.pyx``)."""

from __future__ import annotations

from typing import Any

from ._fragment_builder_py import FragmentBuilder
from ._lenient_py import LenientTokenizer
from ._tokenizer_py import _PLAIN, ST_END, ST_STRING, Tokenizer
from .errors import ArgumentStreamError, concurrent_use

__all__ = ["IncrementalArgParser", "MAX_DEPTH", "NESTED_MAX_DEPTH"]

MAX_DEPTH = 512
"""The default ``max_depth`` of flat fragments: one path tuple per path, shared by its fragments."""
NESTED_MAX_DEPTH = 64
"""The default ``max_depth`` of nested fragments. A nested fragment wraps its leaf once per level, and
one input character can end a fragment (``0,`` or ``[]`` at full depth), so each character of hostile
input can cost up to ``max_depth`` new wrappers: 64 keeps that near a flat fragment's path tuple at 512."""


class IncrementalArgParser:
    """Incremental JSON parser: ``push(chunk)`` returns the fragments that chunk made decodable.

    Raises ``ArgumentStreamError`` (with ``pos``, ``line``, ``col``) at the
    first character that proves the input invalid; ``finish()`` raises
    ``IncompleteJSONError`` when the root value is not complete. Errors are
    sticky. The fragments decoded from a chunk before its error are on the
    exception's ``fragments`` attribute.

    ``catch_duplicate_keys=True`` raises ``DuplicateKeyError`` at the closing
    quote of a key that its object already has (keys compared unescaped);
    off, the last value wins downstream, as with ``json.loads``.

    ``spans=True`` sets ``spans`` after each ``push()``/``finish()`` (also when
    it raises) to a list parallel to the fragments of that call: the
    ``(start, end)`` input offsets, in ``position`` units, of the input the
    fragment's leaf was decoded from, ``end`` exclusive:

    - ``String``: the raw input of its text, escapes included, so for ``str``
      input ``end - start == len(text)`` exactly when the piece held no escape.
      An escape (or UTF-8 sequence) cut by a chunk's end belongs to the piece
      that decodes it, which then starts where it began.
    - ``Scalar``: its literal or number text.
    - ``Empty`` and ``Done``: the character that proves them: the closing
      quote, bracket or brace; a literal's last letter; a number's delimiter,
      or ``(position, position)`` when ``finish()`` ends the number.

    Spans are non-decreasing and within ``[0, position]``. Off, ``spans`` is
    ``None`` and nothing is recorded.

    A parser reads one stream: use it from one thread at a time. A ``push``
    or ``finish`` entered while another call on the same parser is running (a
    second thread, or a callback re-entering it) raises ``ConcurrentUseError``
    and reads nothing; the running call completes normally, and since a chunk
    is then missing, every later call raises ``ConcurrentUseError`` too. So
    misuse never corrupts memory or returns a wrong value, with or without the
    GIL. Reading ``spans`` or ``keys`` during another thread's call raises it
    too, without breaking the parser. Different parsers share nothing mutable.

    ``spans=True`` also sets ``keys``: the object keys that call read, each as
    ``(index, path, span)``: ``index`` is how many of the call's fragments came
    before the key, ``path`` the path of the key's value (the key last) and
    ``span`` the key's closing quote. A key is known complete there, before its
    value's first fragment, which may come in a later call: a consumer that
    must act on a key itself (a schema's ``additionalProperties: false``) acts
    at once. The fragments are the same with or without it. Off, ``keys`` is
    ``None``.

    ``max_depth`` bounds the nesting (deeper input raises ``ArgumentStreamError``); by default
    it is ``MAX_DEPTH`` (512) with ``flat=True`` and ``NESTED_MAX_DEPTH`` (64) without, since a
    nested fragment wraps its leaf once per level: ``n`` characters of input give at most
    ``n + 1`` fragments (strict), each of at most ``max_depth`` wrappers.

    ``lenient=True`` accepts what weak models get almost right (trailing commas, single
    quotes, unquoted keys, ``True``/``False``/``None``, comments, a code fence, JSON
    double-encoded as a string) and, at ``finish()``, closes what is still open; ``repairs``
    lists each repair as ``Repair(kind, pos)`` (see ``docs/lenient.md``). Off (the default),
    the parser is strict and ``repairs`` is always empty.
    """

    __slots__ = ("_tok", "_builder", "_turn", "_misused")

    def __init__(
        self,
        *,
        max_depth: int | None = None,
        flat: bool = False,
        surrogates: str = "replace",
        catch_duplicate_keys: bool = False,
        spans: bool = False,
        lenient: bool = False,
    ) -> None:
        tokenizer = LenientTokenizer if lenient else Tokenizer
        if max_depth is None:
            max_depth = MAX_DEPTH if flat else NESTED_MAX_DEPTH
        self._tok = tokenizer(max_depth, surrogates, catch_duplicate_keys)
        self._builder = FragmentBuilder(flat, self._tok if spans else None)
        # the turn: one item, taken during a call (list.pop and append are atomic, with or without the GIL,
        # and cost a third of a Lock's non-blocking acquire): a second caller finds none and is refused
        self._turn: list[bool] = [True]
        self._misused = False  # a call was refused: a chunk is missing, every later one is refused too

    def push(self, chunk: str | bytes | bytearray | memoryview) -> list[Any]:
        """Parse one chunk; return the fragments it completed or extended.

        Raises ``ConcurrentUseError`` when another call on this parser is running (see the class doc).
        """
        turn = self._turn
        try:
            turn.pop()
        except IndexError:
            self._misused = True
            raise concurrent_use("parser", False) from None
        try:  # the body inline: a method call per push would cost more than the lock
            if self._misused:
                raise concurrent_use("parser", True)
            tok = self._tok
            if tok.error is not None:
                tok.raise_sticky()
            builder = self._builder
            out: list[Any] = []
            builder.out = out
            if builder.spans is not None:
                builder.spans = []
                builder.keys = []
            if type(chunk) is str and tok.state == ST_STRING and tok.mode == 1 and not (tok.esc or tok.high):
                m = _PLAIN.match(chunk)
                # the common case: a chunk wholly inside a string (a surrogate stops _PLAIN: the tokenizer decodes it)
                if m is not None and m.end() == len(chunk):
                    tok.pos += len(chunk)
                    tok.offset = tok.pos
                    builder.on_string_data(chunk)
                    builder.out = []
                    return out
            try:
                tok._push(chunk, builder)
            except ArgumentStreamError as exc:
                exc.fragments = out
                raise
            finally:
                builder.out = []  # the caller owns the fragments; keeping them would pin their memory
            return out
        finally:
            turn.append(True)

    def finish(self) -> list[Any]:
        """Signal the end of input; return what only the end completes (a bare root number).

        Raises ``ConcurrentUseError`` when another call on this parser is running (see the class doc).
        """
        turn = self._turn
        try:
            turn.pop()
        except IndexError:
            self._misused = True
            raise concurrent_use("parser", False) from None
        try:
            if self._misused:
                raise concurrent_use("parser", True)
            return self._finish()
        finally:
            turn.append(True)

    def _finish(self) -> list[Any]:
        builder = self._builder
        out: list[Any] = []
        builder.out = out
        if builder.spans is not None:
            builder.spans = []
            builder.keys = []
        builder.at_end = True
        try:
            self._tok._finish(builder)
        finally:
            builder.out = []
        return out

    @property
    def done(self) -> bool:
        """The root value is complete."""
        return self._tok.state == ST_END

    @property
    def position(self) -> int:
        """Characters (str input) or bytes (bytes input) consumed so far."""
        return self._tok.pos

    @property
    def spans(self) -> list[tuple[int, int]] | None:
        """``(start, end)`` input offsets parallel to the last call's fragments; ``None`` unless ``spans=True``."""
        turn = self._turn
        try:
            turn.pop()
        except IndexError:  # a call is filling them: refused, as the compiled core must
            raise concurrent_use("parser", False) from None
        try:
            return self._builder.spans
        finally:
            turn.append(True)

    @property
    def keys(self) -> list[tuple[int, tuple, tuple[int, int]]] | None:
        """The keys the last call read, ``(index, path, span)`` (see the class doc); ``None`` unless ``spans=True``."""
        turn = self._turn
        try:
            turn.pop()
        except IndexError:
            raise concurrent_use("parser", False) from None
        try:
            return self._builder.keys
        finally:
            turn.append(True)

    @property
    def repairs(self) -> list[Any]:
        """The repairs made so far, in input order (``lenient=True``; always empty when strict).

        The parser's own list, which later repairs extend: read it, do not change it (its length
        before and after a ``push`` tells that push's repairs, at no copying cost)."""
        tok = self._tok
        return tok.repairs if type(tok) is LenientTokenizer else []

    @property
    def lenient(self) -> bool:
        return type(self._tok) is LenientTokenizer

    @property
    def flat(self) -> bool:
        return self._builder.flat

    @property
    def max_depth(self) -> int:
        return self._tok.max_depth


class StrictParsers:
    """A maker of strict parsers (flat fragments, duplicate keys caught), ``max_depth`` deep, with
    ``spans`` or not: what ``EventBuilder`` calls for each tool call. Calling it is
    ``IncrementalArgParser(max_depth=..., flat=True, catch_duplicate_keys=True, spans=...)``; the
    compiled one (``_parser.StrictParsers``) makes that parser without parsing keyword arguments."""

    __slots__ = ("max_depth", "spans")

    def __init__(self, max_depth: int, spans: bool = False) -> None:
        if type(max_depth) is not int or max_depth < 1:
            raise ValueError("max_depth must be an int of at least 1")
        self.max_depth = max_depth
        self.spans = bool(spans)

    def __call__(self) -> IncrementalArgParser:
        return IncrementalArgParser(max_depth=self.max_depth, flat=True, catch_duplicate_keys=True, spans=self.spans)

    def __repr__(self) -> str:
        return f"StrictParsers({self.max_depth!r}, spans={self.spans!r})"
