"""Policy decisions while a call streams, answered from a page: a :class:`TurnCoordinator` driven for a UI.

:class:`DecisionStream` runs a coordinator over a provider's events (with its ``arun`` driver)
and yields what the encoders take: the stream items, as the coordinator renders them, and the
decision items of :mod:`argstream.ui.items`. A prompt (an ``ask`` decision, made as soon as the
deciding parameters are complete) becomes an :class:`ApprovalRequested` item with an
unguessable ``approval_id``; the server answers it when the page does::

    decisions = DecisionStream(policies, tools=TOOLS)

    @app.post("/answer")
    async def answer(request):
        body = await request.json()
        ok = decisions.answer(body["approvalId"], body["approved"])   # False: no such open prompt
        return JSONResponse({"ok": ok})

    @app.post("/chat")
    async def chat(request):
        events = anthropic.ato_events(await client.messages.create(..., stream=True))
        chunks = aai_sdk_chunks(decisions.aitems(events))
        return StreamingResponse(ai_sdk_sse(chunks), headers=AI_SDK_HEADERS)

Declining the only call still streaming cancels the provider stream (``close``), as the
coordinator's drivers do: the items end with ``StreamFinished(CANCELLED)``. The stream stays
open until every prompt is answered, so the page sees what became of each call. When the page
goes away (the item iterator is closed), the driver stops and open prompts are dropped.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable
from typing import Any

from ..events import FinishReason
from ..policy import RunMode, TurnCoordinator
from ..policy.coordinator import Policies, ToolCallState
from ..stream import StreamFinished
from ._argtext import json_safe
from ._common import new_id
from .items import ApprovalAnswered, ApprovalRequested, ToolCallDecided, ToolCallDenied, ToolCallOutput

__all__ = ["Approval", "DecisionStream"]


class Approval:
    """One open prompt: ``call`` shows what is asked; :meth:`approve` / :meth:`decline` answer it
    (from any thread; a second answer is ignored)."""

    __slots__ = ("approval_id", "call", "_future", "_loop")

    def __init__(self, approval_id: str, call: ToolCallState, future: asyncio.Future[bool],
                 loop: asyncio.AbstractEventLoop) -> None:
        self.approval_id = approval_id
        self.call = call
        self._future = future
        self._loop = loop

    def approve(self) -> None:
        self._answer(True)

    def decline(self) -> None:
        self._answer(False)

    def _answer(self, approved: bool) -> None:
        def settle() -> None:
            if not self._future.done():
                self._future.set_result(approved)

        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self._loop:
            settle()
        elif not self._loop.is_closed():
            try:
                self._loop.call_soon_threadsafe(settle)
            except RuntimeError:  # the loop closed meanwhile: the response is over, nothing to answer
                pass


class DecisionStream:
    """Drives a :class:`~argstream.policy.TurnCoordinator` per response and yields items for the encoders.

    ``policies``, ``tools`` and ``on_violation`` go to the coordinator. ``execute(call)`` (optional,
    may be async) runs an approved call with complete arguments; its return value becomes the
    call's output item (its exception, the output error). Without ``execute`` nothing runs.
    """

    def __init__(self, policies: Policies = None, *, tools: Any = None,
                 execute: Callable[[ToolCallState], Any] | None = None, on_violation: str = "decline") -> None:
        self.policies = policies
        self.tools = tools
        self.execute = execute
        self.on_violation = on_violation
        self.approvals: dict[str, Approval] = {}  # open prompts, by approval id
        self.coordinator: TurnCoordinator | None = None  # the last response's

    def answer(self, approval_id: str, approved: bool) -> bool:
        """Answer an open prompt; ``False`` when no prompt has that id (answered, or never asked)."""
        approval = self.approvals.get(approval_id) if isinstance(approval_id, str) else None
        if approval is None:
            return False
        if approved is True:
            approval.approve()
        else:
            approval.decline()
        return True

    async def aitems(self, events: AsyncIterable[Any] | Iterable[Any],
                     close: Callable[[], Any] | None = None) -> AsyncIterator[Any]:
        """The items of one response, decisions included (see the module doc).

        ``events``: the provider adapter's events (``ato_events(stream)``); ``close``: closes the
        provider stream on cancellation (an SDK stream's ``close``; may be a coroutine function).

        Raises:
            whatever the event stream or a callback raises, after the items before it.
        """
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[Any] = asyncio.Queue()
        put = queue.put_nowait
        approvals = self.approvals
        execute = self.execute
        prefix = new_id("approval")
        asked = 0

        async def prompt(call: ToolCallState) -> bool:
            nonlocal asked
            asked += 1
            approval_id = f"{prefix}-{asked}"
            future: asyncio.Future[bool] = loop.create_future()
            approvals[approval_id] = Approval(approval_id, call, future, loop)
            put(ApprovalRequested(approval_id, call.id, call.name, call.index, json_safe(call.partial_arguments()),
                                  call.streaming_parameter, call.reprompt))
            try:
                approved = await future
            finally:
                approvals.pop(approval_id, None)
            put(ApprovalAnswered(approval_id, call.id, call.index, approved))
            if not approved:
                put(ToolCallDenied(call.id, call.index, "declined"))
            return approved

        def decided(call: ToolCallState) -> None:
            mode = call.mode.value if call.mode is not None else ""
            put(ToolCallDecided(call.id, call.name, call.index, mode, call.decided_at or 0))
            if call.mode is RunMode.SKIP:
                put(ToolCallDenied(call.id, call.index, "skipped by policy"))

        async def run(call: ToolCallState) -> Any:
            assert execute is not None
            try:
                result = execute(call)
                if inspect.isawaitable(result):
                    result = await result
            except Exception as exc:  # noqa: BLE001 - the call's output error, shown on the page
                put(ToolCallOutput(call.id, call.index, error=f"{type(exc).__name__}: {exc}"))
                return None
            put(ToolCallOutput(call.id, call.index, output=result))
            return result

        co = TurnCoordinator(self.policies, prompt=prompt, render=put, on_decision=decided,
                             execute=run if execute is not None else None, tools=self.tools,
                             on_violation=self.on_violation)
        self.coordinator = co
        done = object()
        task = asyncio.ensure_future(co.arun(events, close))
        task.add_done_callback(lambda _: put(done))
        try:
            while True:
                item = await queue.get()
                if item is done:
                    break
                yield item
            result = task.result()
            if result.cancelled:
                yield StreamFinished(FinishReason.CANCELLED, tuple(co.events))
        finally:
            if not task.done():  # the page went away: stop reading the provider
                task.cancel()
            for approval_id in [a for a in approvals if a.startswith(prefix)]:
                approvals.pop(approval_id, None)
