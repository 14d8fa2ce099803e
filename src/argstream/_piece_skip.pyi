"""Types of the compiled ``PieceSkipper`` (``_piece_skip.pyx``); the twin is ``_piece_skip_py``."""

from typing import Any

class PieceSkipper:
    _skip: Any
    def extend(self, fragments: Any, spans: Any = None, keys: Any = None) -> Any: ...
