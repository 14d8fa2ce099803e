"""What both encoders keep per response: stable, unique ids, and each tool call's argument text."""

from __future__ import annotations

import secrets
from typing import Any

from ..events import FinishReason
from ._argtext import ArgumentText

__all__ = ["Call", "Ids", "new_id"]


def new_id(kind: str) -> str:
    """A fresh id (``msg-...``, ``run-...``): unguessable, since approval ids built on it act as capabilities."""
    return f"{kind}-{secrets.token_urlsafe(12)}"


class Call:
    """One tool call of the response, as an encoder sees it."""

    __slots__ = ("id", "name", "index", "text", "closed", "parameters", "path", "path_list", "frame_head",
                 "frame_path", "frame_mid")

    def __init__(self, call_id: str, name: str, index: int) -> None:
        self.id = call_id  # the id sent to the page (the provider's, unless missing or repeated)
        self.name = name
        self.index = index
        self.text = ArgumentText()
        self.closed = False  # its input was reported available, or in error
        self.parameters: dict[str, Any] = {}  # top-level parameters complete so far
        self.path: Any = None  # the last fragment's path, and it as a list (shared by a string's pieces)
        self.path_list: list[Any] = []
        self.frame_head = ""  # the SSE text before an argument delta's JSON (see the encoders' progress_frames)
        self.frame_path: Any = None  # the path frame_mid was written for, and the text between delta and piece
        self.frame_mid = ""


class Ids:
    """Ids for one message or run: ``base`` plus the step (response) and the item's index.

    A provider's tool call id is kept when it is non-empty and not used before in this message
    (a page keys tool parts by it); otherwise the call gets ``{base}-{step}-call-{index}``.
    """

    __slots__ = ("base", "step", "calls", "by_index", "_used")

    def __init__(self, base: str) -> None:
        self.base = base
        self.step = 0
        self.calls: dict[int, Call] = {}  # this step's calls by index (kept after the step ends, for decisions)
        self.by_index = self.calls
        self._used: set[str] = set()

    def next_step(self) -> None:
        self.step += 1
        self.calls = self.by_index = {}

    def part(self, kind: str, index: int) -> str:
        return f"{self.base}-{self.step}-{kind}-{index}"

    def call(self, provider_id: str, name: str, index: int) -> Call:
        call_id = provider_id
        if not call_id or call_id in self._used:
            call_id = f"{self.base}-{self.step}-call-{index}"
            n = 1
            while call_id in self._used:
                n += 1
                call_id = f"{self.base}-{self.step}-call-{index}-{n}"
        self._used.add(call_id)
        call = self.calls[index] = Call(call_id, name, index)
        return call


AI_SDK_FINISH = {
    FinishReason.COMPLETED: "stop",
    FinishReason.TOOL_USE: "tool-calls",
    FinishReason.MAX_TOKENS: "length",
    FinishReason.REFUSAL: "content-filter",
    FinishReason.ERROR: "error",
    FinishReason.CANCELLED: "other",
    FinishReason.PAUSED: "other",
}


def error_text(item: Any) -> str:
    """The text a page shows for a call that cannot run: its parse error, or its first violation."""
    error = getattr(item, "error", None)
    if error is not None:
        return f"invalid arguments: {error}"
    violations = getattr(item, "violations", ()) or (getattr(item, "violation", None),)
    violation = violations[0]
    if violation is None:
        return "invalid arguments"
    where = "/" + "/".join(str(step) for step in violation.path)
    return f"invalid arguments: {violation.message} (at {where})"


def stream_error_text(metadata: Any) -> str:
    """What a page shows for a response that ended in error: the provider's message, when it sent one."""
    error = metadata.get("error") if hasattr(metadata, "get") else None
    message = error.get("message") if isinstance(error, dict) else None
    return f"the model's response failed: {message}" if isinstance(message, str) else "the model's response failed"
