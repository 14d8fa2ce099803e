"""A long string's pieces kept compact while it streams: the pure-Python twin of ``_pieces.pyx``.

A value streamed in token-sized pieces is held as a list of them until it ends and is joined once.
Each piece of a few characters costs about 60 bytes as a ``str`` of its own and 8 as a list slot, so
a 200 KB ``content`` in 30,000 pieces held 1.8 MB, and one-character pieces 64 bytes a character.
Every holder appends a piece and then, each time the list's length reaches a multiple of
``PIECES_EVERY``, calls :func:`compact_pieces`, which joins the trailing run of short pieces into one.
The list always joins to the same text; it just holds fewer objects (about 1.1x the text's size).

The cost stays linear: a run is joined only when it holds ``PIECES_RUN`` entries or more, and an
entry of ``PIECES_LONG`` characters or more is never joined again, so a character is copied a
bounded number of times besides the final join: once for token-sized pieces (256 of them make an
entry that long), at most ``PIECES_LONG / PIECES_RUN`` (32) times for one-character pieces. The test
is one length check per piece. The most a stream can make a list hold is a run too short to join
before each long piece: 31 one-character pieces before each 1,024-character one, 2.7x the text.
"""

from __future__ import annotations

from typing import Any

__all__ = ["PIECES_EVERY", "PIECES_LONG", "PIECES_RUN", "compact_pieces"]

#: the list is looked at when its length is a multiple of this (a power of two: ``len & (EVERY - 1)``)
PIECES_EVERY = 256
#: the fewest trailing short entries worth joining
PIECES_RUN = 32
#: an entry this long (in characters) is left as it is
PIECES_LONG = 1024


def compact_pieces(pieces: list[Any]) -> None:
    """Join the trailing run of short ``str`` entries of ``pieces`` into one, in place, when it holds
    ``PIECES_RUN`` or more; an entry that is long or not an exact ``str`` ends the run."""
    end = start = len(pieces)
    while start:
        piece = pieces[start - 1]
        if type(piece) is not str or len(piece) >= PIECES_LONG:
            break
        start -= 1
    if end - start >= PIECES_RUN:
        pieces[start:] = ["".join(pieces[start:])]
