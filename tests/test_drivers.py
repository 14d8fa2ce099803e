"""``TurnCoordinator.run``'s threaded driver: prompts on a worker thread, started only when a turn asks."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest

from argstream.events import ArgumentChunk, Finished, FinishReason, Flush, Part, ToolCall, ToolCallStart
from argstream.policy import CallStatus, TurnCoordinator, load_policies
from argstream.policy import drivers

POLICY = '''
[tools.fs.policy]
run = [{ arg = "/path", prefix = "src/", mode = "unattended" }, { mode = "ask" }]
'''


def turn(path: str) -> list[Any]:
    text = json.dumps({"path": path, "content": "x" * 200})
    return ([Part(0, ToolCall(ToolCallStart("c1", "fs")))]
            + [Part(0, ToolCall(ArgumentChunk(text[i:i + 9]))) for i in range(0, len(text), 9)]
            + [Flush(0), Finished(FinishReason.TOOL_USE)])


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    names: list[str] = []
    real = threading.Thread.start

    def start(self: threading.Thread) -> None:
        names.append(self.name)
        real(self)

    monkeypatch.setattr(threading.Thread, "start", start)
    return names


def test_a_turn_that_asks_nothing_starts_no_thread(started: list[str]) -> None:
    ran: list[Any] = []
    result = TurnCoordinator(load_policies(POLICY), prompt=lambda c: pytest.fail("nothing to ask"),
                             execute=lambda c: ran.append(c.arguments) or "ok").run(turn("src/a.py"))
    assert result.calls[0].status is CallStatus.APPROVED and ran and not started


def test_a_prompt_runs_on_the_worker_thread_and_its_answer_applies(started: list[str]) -> None:
    prompted: list[str] = []
    ran: list[Any] = []

    def prompt(call: Any) -> bool:
        prompted.append(threading.current_thread().name)
        return True

    for _ in range(2):  # one worker per turn, each stopped when its turn ends
        result = TurnCoordinator(load_policies(POLICY), prompt=prompt,
                                 execute=lambda c: ran.append(c.arguments) or "ok").run(turn("etc/a.py"))
        assert result.calls[0].approved
    assert started == ["argstream-prompt"] * 2 and set(prompted) == {"argstream-prompt"} and len(ran) == 2
    for thread in [t for t in threading.enumerate() if t.name == "argstream-prompt"]:
        thread.join(timeout=5)  # each worker was told to stop: it ends
        assert not thread.is_alive()


def test_a_prompt_that_raises_reaches_the_caller(started: list[str]) -> None:
    def prompt(call: Any) -> bool:
        raise KeyError("from the prompt")

    with pytest.raises(KeyError, match="from the prompt"):
        TurnCoordinator(load_policies(POLICY), prompt=prompt).run(turn("etc/a.py"))
    assert started == ["argstream-prompt"]


def test_the_worker_is_the_run_drivers_own() -> None:
    worker = drivers._Worker(TurnCoordinator(load_policies(POLICY)))
    assert worker.thread is None and worker.jobs is None and not worker.pending
    worker.collect(block=True)  # nothing pending: returns at once
    worker.stop()  # never started: nothing to stop
