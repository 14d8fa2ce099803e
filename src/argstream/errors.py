"""Exceptions raised by both cores (pure module, shared like simplejson's)."""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["ArgumentStreamError", "ConcurrentUseError", "DuplicateKeyError", "IncompleteJSONError", "Repair"]


class ArgumentStreamError(ValueError):
    """Invalid argument JSON, found at the first character (or byte) that proves it.

    ``pos`` is an absolute offset in the stream, in the unit of the input
    (characters for ``str`` chunks, bytes for bytes chunks); ``line`` and ``col``
    are 1-based, counted as :class:`json.JSONDecodeError` counts them.
    """

    msg: str
    pos: int
    line: int
    col: int
    #: the fragments that the failing chunk decoded before the error (still valid)
    fragments: list = []  # noqa: RUF012 - read-only default, replaced per instance

    def __init__(self, msg: str, pos: int, line: int = 1, col: int | None = None) -> None:
        if col is None:
            col = pos + 1
        super().__init__(f"{msg}: line {line} column {col} (char {pos})")
        self.msg = msg
        self.pos = pos
        self.line = line
        self.col = col

    def __reduce__(self):  # keep the fields through pickling (multiprocessing, caches)
        return type(self), (self.msg, self.pos, self.line, self.col)

    def __eq__(self, other: object) -> bool:  # equal by value, so items that hold one compare equal after a round trip
        if type(other) is not type(self):
            return NotImplemented
        return self.__reduce__() == other.__reduce__()

    def __hash__(self) -> int:
        return hash(self.__reduce__())


class ConcurrentUseError(RuntimeError):
    """A parser or tokenizer entered while a call on it was still running: from another thread, or
    re-entered from a callback of that call.

    A parser reads one stream in order, so it belongs to one thread at a time. The call that was
    running completes normally; the one that raises has read nothing. Since its chunk is missing
    from the stream, the object is then unusable: every later ``push``/``finish`` raises this
    error again, so a value missing a chunk is never returned.
    """


IN_USE = "{} entered while a call on it is running (from another thread, or re-entered from a callback)"
BROKEN = "{} missed a chunk when it was entered concurrently; it cannot be used any more"


def concurrent_use(what: str, broken: bool) -> ConcurrentUseError:
    """The error of a ``what`` ("parser", "tokenizer") entered while in use, or used after that happened."""
    return ConcurrentUseError((BROKEN if broken else IN_USE).format(what))


class IncompleteJSONError(ArgumentStreamError):
    """The input ended (``finish()``) before the root value was complete."""


class DuplicateKeyError(ArgumentStreamError):
    """An object repeats a key (``catch_duplicate_keys=True``), compared after unescaping.

    A policy that checked the first value would otherwise be bypassed by the
    second, which ``json.loads`` keeps. ``pos`` is the repeated key's closing
    quote, the first character that proves the repeat; ``key`` is the key.
    """

    key: str

    def __init__(self, msg: str, pos: int, line: int = 1, col: int | None = None, key: str = "") -> None:
        super().__init__(msg, pos, line, col)
        self.key = key

    def __reduce__(self):
        return type(self), (self.msg, self.pos, self.line, self.col, self.key)


class Repair(NamedTuple):
    """One repair a lenient parser made (``IncrementalArgParser(lenient=True)``): its ``kind`` and ``pos``.

    ``pos`` is the input offset (``position`` units) of the character that needed it: the
    comma dropped, the quote or key, the comment's or fence's first character, the literal's
    first letter, the opening quote of a double-encoded value, ``position`` at ``finish()``.
    """

    kind: str
    pos: int
