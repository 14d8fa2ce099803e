"""The pure-Python twin of ``_piece_skip``: the same ``PieceSkipper``, in Python."""

from __future__ import annotations

from typing import Any

from ._backend import STRING_TYPES


class PieceSkipper:
    """Base of a consumer whose ``extend`` can drop the string pieces of the value at ``_skip``.

    ``extend(fragments, spans=None, keys=None)`` returns ``()`` at once when ``_skip`` is not
    ``None``, no key is given, ``fragments`` is a list, and each of its fragments is a flat
    ``(path, String)`` pair whose ``path`` is ``_skip`` itself; otherwise it returns
    ``self._extend(fragments, spans, keys)``.
    """

    __slots__ = ("_skip",)

    def __init__(self) -> None:
        self._skip: Any = None

    def extend(self, fragments: Any, spans: Any = None, keys: Any = None) -> Any:
        """Feed a ``push()`` result (and its spans and keys); return the violations it proves."""
        skip = self._skip
        if skip is not None and not keys and type(fragments) is list:
            for fragment in fragments:
                if type(fragment) is not tuple or len(fragment) != 2 or fragment[0] is not skip:
                    break
                if type(fragment[1]) not in STRING_TYPES:
                    break
            else:
                return ()
        return self._extend(fragments, spans, keys)

    def _extend(self, fragments: Any, spans: Any, keys: Any) -> Any:
        raise NotImplementedError
