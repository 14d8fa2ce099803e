"""DecisionStream: the coordinator's decisions as items while the call streams, answered by the server."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from argstream.events import FinishReason
from argstream.policy import RunMode, load_policies
from argstream.providers import anthropic
from argstream.stream import StreamFinished, ToolCallFinished
from argstream.ui import DecisionStream, aag_ui_events, aai_sdk_chunks
from argstream.ui.items import ApprovalAnswered, ApprovalRequested, ToolCallDecided, ToolCallDenied, ToolCallOutput

from test_ui_encoders import anthropic_wire, validate_ag_ui, validate_ai_sdk

POLICY = """
[tools.fs_create_file.policy]
run = [
  { arg = "/path", prefix = "src/", mode = "ask" },
  { arg = "/path", prefix = "tmp/", mode = "unattended" },
  { arg = "/path", prefix = "etc/", mode = "skip" },
  { mode = "ask" },
]
"""
PIECES = ['{"path": "src/a.py", ', '"content": "', *(["line\\n"] * 40), '"}']


class Wire:
    """The provider's stream: counts what was read, and whether it was closed."""

    def __init__(self, pieces: list[str] = PIECES, path: str = "src/a.py") -> None:
        self.events = anthropic_wire([p.replace("src/a.py", path) for p in pieces])
        self.read = 0
        self.closed = False

    async def __aiter__(self) -> Any:
        for event in self.events:
            self.read += 1
            await asyncio.sleep(0)
            yield event

    async def close(self) -> None:
        self.closed = True


def stream(policy: str = POLICY, execute: Any = None) -> DecisionStream:
    return DecisionStream(load_policies(policy), execute=execute)


async def collect(decisions: DecisionStream, wire: Wire, answer: bool | None) -> list[Any]:
    """Every item; the first prompt is answered ``answer`` as soon as it shows (``None``: never)."""
    items = []
    async for item in decisions.aitems(anthropic.ato_events(wire.__aiter__()), close=wire.close):
        items.append(item)
        if type(item) is ApprovalRequested and answer is not None:
            assert decisions.answer(item.approval_id, answer)
    return items


async def test_prompt_as_soon_as_the_path_is_complete_and_decline_cancels() -> None:
    ran: list[Any] = []
    decisions, wire = stream(execute=ran.append), Wire()
    items = await collect(decisions, wire, False)
    request = next(i for i in items if type(i) is ApprovalRequested)
    assert request.arguments == {"path": "src/a.py"}
    kinds = [type(i) for i in items]
    assert kinds.index(ApprovalRequested) < kinds.index(ApprovalAnswered) < kinds.index(ToolCallDenied)
    assert ToolCallFinished not in kinds and ran == []
    assert items[-1] == StreamFinished(FinishReason.CANCELLED, items[-1].events)
    assert wire.closed and wire.read < len(wire.events) - 10, "the rest of the response is never read"
    assert decisions.approvals == {}
    chunks = [c async for c in aai_sdk_chunks(items)]
    for chunk in chunks:
        validate_ai_sdk(chunk)
    types = [c["type"] for c in chunks]
    assert "tool-approval-request" in types and "tool-output-denied" in types and "abort" in types
    assert types[-1] == "finish" and "tool-input-available" not in types
    events = [e async for e in aag_ui_events(items)]
    for event in events:
        validate_ag_ui(event)
    assert events[-1]["outcome"] == {"type": "cancelled"}


async def test_approve_lets_it_finish_and_run() -> None:
    async def execute(call: Any) -> dict[str, Any]:
        return {"wrote": call.arguments["path"]}

    decisions, wire = stream(execute=execute), Wire()
    items = await collect(decisions, wire, True)
    assert wire.read == len(wire.events) and not wire.closed
    output = next(i for i in items if type(i) is ToolCallOutput)
    assert output.output == {"wrote": "src/a.py"} and output.error is None
    chunks = [c async for c in aai_sdk_chunks(items)]
    for chunk in chunks:
        validate_ai_sdk(chunk)
    types = [c["type"] for c in chunks]
    assert types.index("tool-approval-request") < types.index("tool-input-available") < types.index(
        "tool-output-available")
    approval = [c["data"]["state"] for c in chunks if c["type"] == "data-argstream-approval"]
    # the early prompt showed the path only: the whole call is asked again before it runs
    assert approval == ["requested", "approved", "requested", "approved"]


async def test_unattended_runs_and_an_execute_error_is_the_output_error() -> None:
    def execute(call: Any) -> None:
        raise PermissionError("read-only")

    decisions = stream(execute=execute)
    items = await collect(decisions, Wire(path="tmp/x"), None)
    decided = next(i for i in items if type(i) is ToolCallDecided)
    assert decided.mode == RunMode.UNATTENDED.value
    output = next(i for i in items if type(i) is ToolCallOutput)
    assert output.error == "PermissionError: read-only"
    chunks = [c async for c in aai_sdk_chunks(items)]
    assert any(c["type"] == "tool-output-error" for c in chunks)


async def test_skip_by_policy_is_denied_at_once() -> None:
    ran: list[Any] = []
    wire = Wire(path="etc/passwd")
    items = await collect(stream(execute=ran.append), wire, None)
    denied = next(i for i in items if type(i) is ToolCallDenied)
    assert denied.reason == "skipped by policy" and ran == [] and wire.closed


async def test_unknown_or_repeated_answers_are_refused() -> None:
    decisions, wire = stream(), Wire()
    answered: list[bool] = []
    async for item in decisions.aitems(anthropic.ato_events(wire.__aiter__()), close=wire.close):
        if type(item) is ApprovalRequested:
            assert not decisions.answer("approval-guess", True)
            assert not decisions.answer(item.approval_id + "x", True)
            answered.append(decisions.answer(item.approval_id, False))
    assert answered == [True]
    assert not decisions.answer("approval-anything", True)


async def test_the_page_going_away_stops_the_driver() -> None:
    decisions, wire = stream(), Wire()
    iterator = decisions.aitems(anthropic.ato_events(wire.__aiter__()), close=wire.close)
    async for item in iterator:
        if type(item) is ApprovalRequested:
            break  # never answered: the page closed the stream
    await iterator.aclose()
    await asyncio.sleep(0.01)
    assert decisions.approvals == {}
    read = wire.read
    await asyncio.sleep(0.01)
    assert wire.read == read < len(wire.events)


def test_answer_from_another_thread() -> None:
    import threading

    async def main() -> list[Any]:
        decisions, wire = stream(execute=lambda call: "ok"), Wire()
        items = []
        async for item in decisions.aitems(anthropic.ato_events(wire.__aiter__()), close=wire.close):
            items.append(item)
            if type(item) is ApprovalRequested:
                threading.Thread(target=decisions.answer, args=(item.approval_id, True)).start()
        return items

    items = asyncio.run(main())
    assert any(type(i) is ToolCallOutput and i.output == "ok" for i in items)


@pytest.mark.parametrize("approved", [1, "yes", None])
def test_only_true_approves(approved: Any) -> None:
    async def main() -> list[Any]:
        decisions, wire = stream(execute=lambda call: "ran"), Wire()
        items = []
        async for item in decisions.aitems(anthropic.ato_events(wire.__aiter__()), close=wire.close):
            items.append(item)
            if type(item) is ApprovalRequested:
                decisions.answer(item.approval_id, approved)
        return items

    items = asyncio.run(main())
    assert not any(type(i) is ToolCallOutput for i in items)


async def test_a_provider_error_ends_the_items_and_the_encoder_reports_it() -> None:
    class Broken(Wire):
        async def __aiter__(self) -> Any:
            for n, event in enumerate(self.events):
                if n == 8:
                    raise ConnectionError("reset by peer")
                yield event

    decisions, wire = stream(), Broken()
    items: list[Any] = []
    with pytest.raises(ConnectionError):
        async for item in decisions.aitems(anthropic.ato_events(wire.__aiter__()), close=wire.close):
            items.append(item)
    assert type(items[-1]) is StreamFinished and items[-1].reason is FinishReason.ERROR

    async def again() -> Any:
        async for item in stream().aitems(anthropic.ato_events(Broken().__aiter__())):
            yield item

    chunks = [c async for c in aai_sdk_chunks(again())]
    for chunk in chunks:
        validate_ai_sdk(chunk)
    assert [c["errorText"] for c in chunks if c["type"] == "error"][-1] == "the stream failed (ConnectionError)"
    assert chunks[-1]["type"] == "finish"
