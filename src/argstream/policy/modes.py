"""The modes a policy resolves to: what happens to a tool call (``RunMode``) and to its result (``ResultMode``)."""

from __future__ import annotations

import enum

__all__ = ["RunMode", "ResultMode"]


class RunMode(str, enum.Enum):
    """What happens to a tool call before it runs."""

    ASK = "ask"  # prompt the user (early, with the partial arguments)
    UNATTENDED = "unattended"  # run without asking
    EDIT = "edit"  # let the user edit the complete arguments first
    SKIP = "skip"  # do not run; answer "skipped"

    def __str__(self) -> str:
        return self.value


class ResultMode(str, enum.Enum):
    """What happens to a tool's result before the model sees it (default ``unattended``)."""

    ASK = "ask"
    UNATTENDED = "unattended"
    EDIT = "edit"
    SKIP = "skip"

    def __str__(self) -> str:
        return self.value
