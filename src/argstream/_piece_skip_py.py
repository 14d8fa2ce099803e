"""The pure-Python twin of ``_piece_skip``: the same ``PieceSkipper``, in Python."""

from __future__ import annotations

from typing import Any

from ._backend import STRING_TYPES
from ._pieces_py import PIECES_EVERY, compact_pieces


class PieceSkipper:
    """Base of a consumer whose ``extend`` can drop the string pieces of the value at ``_skip``.

    ``extend(fragments, spans=None, keys=None)`` returns ``()`` at once when ``_skip`` is not
    ``None``, no key is given, ``fragments`` is a list, and each of its fragments is a flat
    ``(path, String)`` pair whose ``path`` is ``_skip`` itself; otherwise it returns
    ``self._extend(fragments, spans, keys)``. ``_budget``, ``_taken`` and ``_keep`` count and keep
    the skipped pieces (see ``_piece_skip``): the pieces are skipped only while their lengths keep
    ``_taken`` within ``_budget`` (``-1``: no limit).
    """

    __slots__ = ("_skip", "_budget", "_taken", "_keep")

    def __init__(self) -> None:
        self._skip: Any = None
        self._budget = -1
        self._taken = 0
        self._keep: list[str] | None = None

    def extend(self, fragments: Any, spans: Any = None, keys: Any = None) -> Any:
        """Feed a ``push()`` result (and its spans and keys); return the violations it proves."""
        if self.skip(fragments, keys):
            return ()
        return self._extend(fragments, spans, keys)

    def skip(self, fragments: Any, keys: Any) -> bool:
        """``extend``'s test: drop ``fragments`` (counted and kept) when they are all pieces of the skipped
        string within the budget; ``False``, with nothing changed, when ``_extend`` must see them."""
        skip = self._skip
        if skip is None or keys or type(fragments) is not list:
            return False
        total = 0
        for fragment in fragments:
            if type(fragment) is not tuple or len(fragment) != 2 or fragment[0] is not skip:
                return False
            if type(fragment[1]) not in STRING_TYPES:
                return False
            total += len(fragment[1].text)
        if self._budget >= 0 and self._taken + total > self._budget:
            return False
        self._taken += total
        keep = self._keep
        if keep is not None:
            for fragment in fragments:  # one at a time, compacted where the compiled loop compacts
                keep.append(fragment[1].text)
                if type(keep) is list and not len(keep) & (PIECES_EVERY - 1):
                    compact_pieces(keep)
        return True

    def _skips(self, path: Any, leaf: Any) -> bool:
        """One fragment: a piece of the skipped string within the budget (counted and kept), or not."""
        if path is not self._skip or type(leaf) not in STRING_TYPES:
            return False
        size = len(leaf.text)
        if self._budget >= 0 and self._taken + size > self._budget:
            return False
        self._taken += size
        if self._keep is not None:
            self._keep.append(leaf.text)
            if type(self._keep) is list and not len(self._keep) & (PIECES_EVERY - 1):
                compact_pieces(self._keep)
        return True

    def _extend(self, fragments: Any, spans: Any, keys: Any) -> Any:
        raise NotImplementedError
