"""The items a decision driver (:mod:`argstream.ui.decisions`) adds to the stream items, for the encoders.

They say what became of a tool call while it streams: its policy decided, a person is asked (and
answered), it will not run, or it ran. The encoders turn them into each protocol's parts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["ApprovalAnswered", "ApprovalRequested", "ToolCallDecided", "ToolCallDenied", "ToolCallOutput"]


@dataclass(frozen=True, slots=True)
class ToolCallDecided:
    """The call's policy decided ``mode`` (``"ask"``, ``"unattended"``, ``"skip"``, ``"edit"``) at
    argument chunk ``at`` (0: before any)."""

    id: str
    name: str
    index: int
    mode: str
    at: int = 0


@dataclass(frozen=True, slots=True)
class ApprovalRequested:
    """A person must approve the call: ``arguments`` are the parameters complete so far (what the
    decision rests on), ``streaming`` the one still streaming. Answer with the
    :class:`~argstream.ui.decisions.Approval` the driver keeps under ``approval_id``."""

    approval_id: str
    id: str
    name: str
    index: int
    arguments: dict[str, Any] = field(default_factory=dict)
    streaming: str | None = None
    reprompt: bool = False


@dataclass(frozen=True, slots=True)
class ApprovalAnswered:
    """The person answered ``approval_id``."""

    approval_id: str
    id: str
    index: int
    approved: bool


@dataclass(frozen=True, slots=True)
class ToolCallDenied:
    """The call will not run (declined, skipped by policy, or its arguments failed); ``reason`` says why."""

    id: str
    index: int
    reason: str


@dataclass(frozen=True, slots=True)
class ToolCallOutput:
    """The call ran: ``output`` is what the ``execute`` callback returned, or ``error`` what it raised."""

    id: str
    index: int
    output: Any = None
    error: str | None = None
