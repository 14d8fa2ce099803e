"""Running a provider stream end to end for the recording and mutation tests: what came out, and what may run."""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from argstream.builder import EventBuilder
from argstream.events import Event, Finished, FinishReason, Flush, ToolCallRequest
from argstream.providers import ProviderProtocolError
from argstream.providers.wire import read_wire

from conftest import SHARED

FOLDERS = (SHARED / "recordings", SHARED / "recordings-more")


def expected_of(folder: Path) -> dict[str, Any]:
    path = folder / "expected.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def read_recording(folder: Path, key: str, expected: dict[str, Any]) -> list[Any]:
    """A recording's wire items, decoded as SSE or NDJSON; the lines its README says are not JSON skipped."""
    lines = (folder / key).read_text(encoding="utf-8").split("\n")
    skip = set(expected.get("lines_not_json") or ())
    return read_wire("\n".join(line for n, line in enumerate(lines, 1) if n not in skip))


@dataclass
class Outcome:
    """What one stream produced, through the adapter and an ``EventBuilder``."""

    events: list[Event] = field(default_factory=list)
    flushed: list[tuple[ToolCallRequest, dict[str, Any]]] = field(default_factory=list)  # (call, flush metadata)
    runnable: list[ToolCallRequest] = field(default_factory=list)  # ok, flushed before a non-error Finished
    finished: list[Finished] = field(default_factory=list)
    error: ProviderProtocolError | None = None


def run(fmt: str, items: list[Any]) -> Outcome:
    """Feed ``items`` to the ``fmt`` adapter; a :class:`ProviderProtocolError` is kept, anything else raises."""
    module = importlib.import_module(f"argstream.providers.{fmt}")
    events: list[Event] = []
    try:
        for event in module.to_events(items):
            events.append(event)
    except ProviderProtocolError as exc:
        return collect(events, exc)
    return collect(events)


def collect(events: list[Event], error: ProviderProtocolError | None = None) -> Outcome:
    """Feed adapter events to an ``EventBuilder``: the flushed calls, and which of them may run."""
    outcome = Outcome(events=events, error=error)
    builder = EventBuilder()
    pending: list[ToolCallRequest] = []
    for event in events:
        out = builder.handle(event)
        if type(event) is Flush and out is not None and isinstance(out.kind, ToolCallRequest):
            outcome.flushed.append((out.kind, dict(out.metadata)))
            if out.kind.error is None:
                pending.append(out.kind)
        elif type(event) is Finished:
            outcome.finished.append(event)
            if event.reason is not FinishReason.ERROR:
                outcome.runnable += pending
            pending = []
    return outcome


def finish_count_ok(events: list[Event]) -> bool:
    """The stream contract: it ends with a ``Finished``, and an error ``Finished`` is the last event."""
    if not events or type(events[-1]) is not Finished:
        return False
    return all(e.reason is not FinishReason.ERROR for e in events[:-1] if type(e) is Finished)


__all__ = ["FOLDERS", "Outcome", "collect", "expected_of", "finish_count_ok", "read_recording", "run"]
