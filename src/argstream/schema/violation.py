"""``Violation``: one schema keyword that the arguments are proven to break, and where."""

from __future__ import annotations

from dataclasses import dataclass

from ..fragments import Path

__all__ = ["Violation"]


@dataclass(frozen=True, slots=True)
class Violation:
    """A keyword broken at ``path`` (keys and indexes from the root, as in flat fragments).

    ``offset`` is the input offset of the proving character (same units as
    ``IncrementalArgParser.position``), or ``None`` when the fragment came
    without a span. ``schema_path`` is the JSON Pointer of the schema that
    holds ``keyword``. ``message`` quotes at most a short prefix of the
    model's text.
    """

    path: Path
    keyword: str
    message: str
    offset: int | None = None
    schema_path: str = ""
