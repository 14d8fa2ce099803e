"""Fuzz bytes as a stream of choices, so that one target serves atheris, Hypothesis and a corpus file.

:class:`Draw` reads the bytes from the front the way atheris' ``FuzzedDataProvider`` does, but
never fails: once the bytes run out every draw returns its smallest value, so any input, however
short, is a valid run. The same bytes always make the same choices (a crash file replays).
"""

from __future__ import annotations

from typing import Any, Sequence, TypeVar

T = TypeVar("T")


class Draw:
    """Choices taken from the front of ``data``; ``rest()`` is what is left."""

    __slots__ = ("data", "pos")

    def __init__(self, data: bytes) -> None:
        self.data = bytes(data)
        self.pos = 0

    def byte(self) -> int:
        if self.pos >= len(self.data):
            return 0
        self.pos += 1
        return self.data[self.pos - 1]

    def below(self, n: int) -> int:
        """An integer in ``range(n)`` (one byte, two when ``n`` exceeds 256)."""
        if n <= 1:
            return 0
        value = self.byte()
        if n > 256:
            value = value << 8 | self.byte()
        return value % n

    def flag(self) -> bool:
        return bool(self.byte() & 1)

    def pick(self, options: Sequence[T]) -> T:
        return options[self.below(len(options))]

    def take(self, n: int) -> bytes:
        out = self.data[self.pos : self.pos + n]
        self.pos += len(out)
        return out

    def text(self, max_len: int) -> str:
        """Up to ``max_len`` bytes decoded as UTF-8 (undecodable bytes become U+FFFD)."""
        return self.take(self.below(max_len + 1)).decode("utf-8", "replace")

    def rest(self) -> bytes:
        out = self.data[self.pos :]
        self.pos = len(self.data)
        return out

    def exhausted(self) -> bool:
        return self.pos >= len(self.data)


def chunking(draw: Draw, doc: Any) -> list[Any]:
    """``doc`` cut by chunk sizes taken from the bytes: up to 8 sizes, cycled to the end of the document."""
    sizes = [draw.byte() % 64 + 1 for _ in range(draw.below(9))]
    if not sizes:
        return [doc] if doc else []
    out, i, k = [], 0, 0
    while i < len(doc):
        out.append(doc[i : i + sizes[k % len(sizes)]])
        i += sizes[k % len(sizes)]
        k += 1
    return out


__all__ = ["Draw", "chunking"]
