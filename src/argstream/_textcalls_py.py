"""The text-call scanner's hot paths, pure Python (twin of ``_textcalls.pyx``): the JSON skimmer and ``feed``.

``skim(buf, i, depth, in_str, esc, max_depth)`` reads one JSON value's text from ``buf[i:]``,
tracking only strings, escapes and bracket depth, and returns ``(end, depth, in_str, esc, done)``:
``done`` when the value closed at ``end`` (its last character is ``buf[end - 1]``), else ``end`` is
``len(buf)`` and the other fields carry over to the next chunk. It stops early, not done, when the
depth passes ``max_depth``. Escaped quotes are told apart by the run of backslashes before them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

__all__ = ["skim", "ScannerCore", "TextPiece", "CallArguments"]

_BRACKETS = re.compile(r"[{}\[\]]")


def skim(buf: str, i: int, depth: int, in_str: bool, esc: bool, max_depth: int) -> tuple[int, int, bool, bool, bool]:
    n = len(buf)
    find = buf.find
    while i < n:
        if in_str:
            if esc:
                esc = False
                i += 1
                continue
            k = find('"', i)
            if k < 0:  # the string runs past the chunk: is its last character an escape's backslash?
                b = n
                while b > i and buf[b - 1] == "\\":
                    b -= 1
                return n, depth, True, (n - b) % 2 == 1, False
            b = k
            while b > i and buf[b - 1] == "\\":
                b -= 1
            i = k + 1
            if (k - b) % 2:  # an escaped quote
                continue
            in_str = False
            if depth == 0:
                return i, 0, False, False, True
            continue
        k = find('"', i)
        end = n if k < 0 else k
        before = depth
        for c in _BRACKETS.findall(buf, i, end):
            if c == "{" or c == "[":
                depth += 1
            else:
                depth -= 1
                if depth <= 0:
                    break
        if depth <= 0:  # the value ends in this stretch: find where
            depth = before
            for m in _BRACKETS.finditer(buf, i, end):
                depth += 1 if m.group() in "{[" else -1
                if depth <= 0:
                    return m.end(), 0, False, False, True
        if depth > max_depth:
            return end, depth, False, False, False
        if k < 0:
            return n, depth, False, False, False
        i = k + 1
        in_str = True
    return n, depth, in_str, esc, False


# -- the per-chunk fast paths, and the items they make ------------------------------------------


@dataclass(slots=True)
class TextPiece:
    """Text for the reader, with any call markup removed."""

    text: str


@dataclass(slots=True)
class CallArguments:
    """A chunk of the call's arguments as JSON text."""

    call: int
    text: str


class ScannerCore:
    """The scanner's ``feed``: two fast paths, and ``_feed_slow`` (the state machine) for the rest.

    A chunk of plain text that holds no first character of a marker is one ``TextPiece``; a chunk
    inside a call's argument JSON that does not end it is one ``CallArguments``. Everything else
    goes through the subclass's ``_feed_slow``. The fields are the subclass's state.
    """

    _tail: str
    _state: Any
    _st_text: Any
    _st_skim: Any
    _after_call: bool
    _at_start: bool
    _llama_start: bool
    _scalar: bool
    _in_str: bool
    _esc: bool
    _depth: int
    _call: int
    _first: tuple[str, ...]
    _out: list[Any]

    def _feed_slow(self, text: str, out: list[Any]) -> list[Any]:  # pragma: no cover - the subclass's
        raise NotImplementedError

    def feed(self, text: str) -> list[Any]:
        """Scan one chunk of text; return the items it completed or extended."""
        out: list[Any] = []
        self._out = out
        if self._tail or not text:
            return self._feed_slow(text, out)
        state = self._state
        if state is self._st_text and not self._after_call:
            for c in self._first:
                if c in text:
                    return self._feed_slow(text, out)
            if self._at_start:
                if self._llama_start:
                    return self._feed_slow(text, out)
                if not text.isspace():
                    self._at_start = False
            out.append(TextPiece(text))
            return out
        if state is self._st_skim and not self._scalar and self._call >= 0:
            end, depth, in_str, esc, done = skim(text, 0, self._depth, self._in_str, self._esc, 512)
            if not done and depth <= 512:
                self._depth, self._in_str, self._esc = depth, in_str, esc
                out.append(CallArguments(self._call, text))
                return out
        return self._feed_slow(text, out)
