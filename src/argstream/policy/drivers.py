"""Drivers for a :class:`~argstream.policy.coordinator.TurnCoordinator`: they read the provider
stream, feed the sans-IO coordinator, and carry out its requests (prompt, edit, execute).

- :func:`run_inline`: every callback on the calling thread, between events. Deterministic; a
  prompt that blocks stops the stream while it waits.
- :func:`run_threaded`: prompts and edits on one worker thread, one at a time, while the calling
  thread keeps reading (and rendering) the stream; answers apply between events. This is what
  ``TurnCoordinator.run`` uses, so ``input()`` in a prompt never stalls the stream.
- :func:`arun`: asyncio; awaitable callbacks run concurrently with the stream, prompts one at a time.

When the coordinator asks for cancellation (a declined or failed call was the last one
streaming), the driver stops reading, calls ``close`` (an SDK stream's ``close``) and closes the
event iterator.
"""

from __future__ import annotations

import asyncio
import inspect
import queue
import threading
from collections.abc import AsyncIterable, Awaitable, Callable, Iterable
from typing import Any

from .coordinator import END, PUMPED, Request, TurnCoordinator, TurnResult

__all__ = ["run_inline", "run_threaded", "arun"]


def _no_awaitable(kind: str, value: Any) -> Any:
    if inspect.isawaitable(value):
        close = getattr(value, "close", None)
        if close is not None:
            close()
        raise TypeError(f"the {kind} callback returned an awaitable: drive the coordinator with arun()")
    return value


def _perform(co: TurnCoordinator, request: Request) -> None:
    """Carry out one request with synchronous callbacks and hand the answer back."""
    call = request.call
    if request.kind == "execute":
        assert co.execute is not None
        call.result = _no_awaitable("execute", co.execute(call))
    elif request.kind == "prompt":
        assert co.prompt is not None
        answer = _no_awaitable("prompt", co.prompt(call))
        if answer is not None:
            co.answer(call, answer, request.generation)
    else:
        assert co.edit is not None
        co.edited(call, _no_awaitable("edit", co.edit(call)), request.generation)


def _cancel(co: TurnCoordinator, iterator: Any, close: Callable[[], Any] | None) -> None:
    co.mark_cancelled()
    if close is not None:
        close()
    closer = getattr(iterator, "close", None)
    if closer is not None:
        closer()


def serve_inline(co: TurnCoordinator) -> None:
    """Apply queued answers and carry out the requests they lead to, on this thread."""
    co.apply_answers()
    while co.requests:
        _perform(co, co.requests.popleft())
        co.apply_answers()


def _driving(co: TurnCoordinator, on: bool) -> None:
    with co._lock:
        if on and co.driving:
            raise RuntimeError("this coordinator is already being driven")
        co.driving = on


def run_inline(co: TurnCoordinator, events: Iterable[Any], close: Callable[[], Any] | None = None) -> TurnResult:
    """Drive ``co`` over ``events`` with every callback on this thread, between events."""
    _driving(co, True)
    iterator = iter(events)
    pump = co.pump
    try:
        try:
            while True:
                event = pump(iterator)  # handles items itself until one leaves something to do
                if event is END:
                    break
                if event is not PUMPED:
                    co.handle(event)
                serve_inline(co)
                if co.cancel_requested or co.stream_over:
                    break
        finally:
            if co.cancel_requested:
                _cancel(co, iterator, close)
        serve_inline(co)
    finally:
        _driving(co, False)
    return co.result()


class _Worker:
    """One thread that runs prompts and edits in order and reports each one done.

    The thread and its queues start with the first job: a turn that asks nothing (every call decided
    by policy) never starts a thread, which costs more than a short turn's whole stream."""

    __slots__ = ("co", "jobs", "done", "pending", "thread")

    def __init__(self, co: TurnCoordinator) -> None:
        self.co = co
        self.jobs: queue.Queue[Request | None] | None = None
        self.done: queue.Queue[BaseException | None] | None = None
        self.pending = 0
        self.thread: threading.Thread | None = None

    def _loop(self) -> None:
        assert self.jobs is not None and self.done is not None
        while True:
            request = self.jobs.get()
            if request is None:
                return
            try:
                _perform(self.co, request)
                self.done.put(None)
            except BaseException as exc:  # noqa: BLE001 - handed to the driver's thread and raised there
                self.done.put(exc)

    def submit(self, request: Request) -> None:
        if self.thread is None:
            self.jobs, self.done = queue.Queue(), queue.Queue()
            self.thread = threading.Thread(target=self._loop, name="argstream-prompt", daemon=True)
            self.thread.start()
        assert self.jobs is not None
        self.pending += 1
        self.jobs.put(request)

    def collect(self, block: bool) -> None:
        """Take finished jobs (waiting for one when ``block``); re-raise a callback's exception."""
        while self.pending:
            assert self.done is not None  # a job is pending: the thread and its queues exist
            try:
                error = self.done.get(block=block)
            except queue.Empty:
                return
            self.pending -= 1
            if error is not None:
                raise error
            block = False

    def stop(self) -> None:
        if self.jobs is not None:
            self.jobs.put(None)


def run_threaded(co: TurnCoordinator, events: Iterable[Any], close: Callable[[], Any] | None = None) -> TurnResult:
    """Drive ``co`` over ``events``; prompts and edits run on a worker thread while the stream is read."""
    _driving(co, True)
    worker = _Worker(co)

    def dispatch() -> None:
        while co.requests:
            request = co.requests.popleft()
            if request.kind == "execute":
                _perform(co, request)
            else:
                worker.submit(request)
            co.apply_answers()

    iterator = iter(events)
    requests = co.requests
    pump = co.pump
    try:
        try:
            while True:
                event = pump(iterator, worker)  # handles items itself while nothing waits for this loop
                if event is END:
                    break
                if event is not PUMPED:
                    if worker.pending:
                        worker.collect(block=False)
                    if co._answers:
                        co.apply_answers()
                    if requests:
                        dispatch()
                    if co.cancel_requested:
                        break
                    co.handle(event)
                if requests:
                    dispatch()
                if co.cancel_requested:
                    break
                pipeline = co._pipeline  # co.stream_over, without the property's call
                if pipeline is not None and pipeline.over:
                    break
        finally:
            if co.cancel_requested:
                _cancel(co, iterator, close)
        # The stream is over: prompts still open are answered now, and what they approve runs.
        while True:
            co.apply_answers()
            dispatch()
            if not worker.pending:
                break
            worker.collect(block=True)
    finally:
        worker.stop()
        _driving(co, False)
    return co.result()


async def _perform_async(co: TurnCoordinator, request: Request, prompt_lock: asyncio.Lock) -> None:
    call = request.call
    if request.kind == "execute":
        assert co.execute is not None
        result = co.execute(call)
        call.result = await result if inspect.isawaitable(result) else result
        return
    async with prompt_lock:  # one prompt or editor at a time
        if request.kind == "prompt":
            assert co.prompt is not None
            answer = co.prompt(call)
            if inspect.isawaitable(answer):
                answer = await answer
            if answer is not None:
                co.answer(call, answer, request.generation)
        else:
            assert co.edit is not None
            edited = co.edit(call)
            if inspect.isawaitable(edited):
                edited = await edited
            co.edited(call, edited, request.generation)


async def arun(
    co: TurnCoordinator, events: AsyncIterable[Any] | Iterable[Any], close: Callable[[], Any] | None = None
) -> TurnResult:
    """Drive ``co`` over an async (or plain) event iterable; ``close`` may be a coroutine function."""
    iterator: Any = events.__aiter__() if hasattr(events, "__aiter__") else _AsyncOver(iter(events))
    prompt_lock = asyncio.Lock()
    tasks: set[asyncio.Future[Any]] = set()
    next_event: asyncio.Future[Any] | None = None
    _driving(co, True)

    def dispatch() -> None:
        co.apply_answers()
        while co.requests:
            tasks.add(asyncio.ensure_future(_perform_async(co, co.requests.popleft(), prompt_lock)))

    async def settle(done: set[asyncio.Future[Any]]) -> None:
        for task in done:
            tasks.discard(task)
            task.result()
        dispatch()

    async def deliver(read: Awaitable[Any]) -> bool:
        """Hand the stream's next item (``read``: the read, or its finished future) to the coordinator;
        ``True`` when the stream is over."""
        try:
            event = await read
        except StopAsyncIteration:
            co.end_of_stream()
            dispatch()
            return True
        except Exception:
            co.stream_failed()
            raise
        co.handle(event)
        if co._answers or co.requests:
            dispatch()
        pipeline = co._pipeline  # co.stream_over, without the property's call
        return pipeline is not None and pipeline.over

    try:
        while not co.cancel_requested:
            if not tasks and next_event is None:  # nothing else to wait for: read the stream directly
                if await co.apump(iterator) is END:  # reads and handles items until the driver is needed
                    dispatch()
                    break
                if co._answers or co.requests:
                    dispatch()
                pipeline = co._pipeline
                if pipeline is not None and pipeline.over:
                    break
                continue
            if next_event is None:
                try:  # __anext__ may end the stream or fail before it gives an awaitable
                    next_event = asyncio.ensure_future(iterator.__anext__())
                except StopAsyncIteration:
                    co.end_of_stream()
                    dispatch()
                    break
                except Exception:
                    co.stream_failed()
                    raise
            done, _ = await asyncio.wait({next_event, *tasks}, return_when=asyncio.FIRST_COMPLETED)
            await settle(done - {next_event})
            if next_event in done:
                finished, next_event = next_event, None
                if await deliver(finished):
                    break
        if co.cancel_requested:
            if next_event is not None:
                next_event.cancel()
                try:
                    await next_event
                except (asyncio.CancelledError, StopAsyncIteration, Exception):
                    pass
                next_event = None
            co.mark_cancelled()
            if close is not None:
                closed = close()
                if inspect.isawaitable(closed):
                    await closed
            aclose = getattr(iterator, "aclose", None)
            if aclose is not None:
                await aclose()
        while tasks or co.requests:  # the stream is over; prompts and runs still pending finish now
            dispatch()
            if tasks:
                done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
                await settle(done)
    finally:
        if next_event is not None and not next_event.done():
            next_event.cancel()
        for task in tasks:
            task.cancel()
        _driving(co, False)
    return co.result()


class _AsyncOver:
    """A plain iterator seen as an async one (for ``arun`` over recorded events)."""

    def __init__(self, iterator: Any) -> None:
        self._iterator = iterator

    def __aiter__(self) -> _AsyncOver:
        return self

    async def __anext__(self) -> Any:
        try:
            return next(self._iterator)
        except StopIteration:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        closer = getattr(self._iterator, "close", None)
        if closer is not None:
            closer()
