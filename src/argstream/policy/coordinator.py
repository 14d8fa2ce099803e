"""``TurnCoordinator``: one model response, from provider events to per-call decisions (RFD D26, Phase 3).

Provider events go through an ``EventBuilder``; each argument progress event
goes to the renderer hook and to the call's ``StreamingPolicyState`` (one per
call still streaming). When a call's policy decides:

- ``unattended``: the call is pre-approved;
- ``skip``: the call is answered "skipped" at once and its remaining chunks dropped;
- ``ask``: the ``prompt`` callback gets the call with its partial arguments
  while the rest keeps streaming; a declined call is marked skipped and its
  remaining chunks dropped;
- ``edit``: decided early, but the ``edit`` callback runs only once the
  arguments are complete (the edited arguments are not evaluated again).

When a call whose chunks are being dropped is the only call still streaming,
the provider stream is cancelled through the ``close`` callback (for an SDK
stream, its ``close()``, which closes the HTTP response). A call runs (the
``execute`` callback) only when it is approved and its arguments are
complete, with the complete arguments.

The coordinator knows no screen and no wire: ``handle(event)`` is sans-IO, and
``run`` / ``arun`` drive it over a sync / async event iterator.
"""

from __future__ import annotations

import asyncio
import enum
import inspect
import threading
from collections.abc import AsyncIterable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Union

from ..builder import EventBuilder
from ..events import (
    ArgumentChunk,
    ConversationEvent,
    Finished,
    FinishReason,
    Flush,
    Part,
    ToolCall,
    ToolCallArgumentProgress,
    ToolCallRequest,
    ToolCallStart,
)
from ..fragments import DONE, ObjectEntry
from .config import DEFAULTS, ToolPolicy
from .evaluation import evaluate
from .modes import ResultMode, RunMode
from .rules import RunPolicy
from .streaming import StreamingPolicyState

__all__ = ["CallStatus", "ToolCallState", "TurnCoordinator", "TurnResult", "SKIPPED", "SKIPPED_BY_USER"]

SKIPPED = "skipped"
SKIPPED_BY_USER = "skipped by user"

Policies = Union[Mapping[str, Any], Callable[[str], Any], None]
"""Tool name -> ``ToolPolicy``, ``RunPolicy``, a list of ``RunRule`` or a ``RunMode`` (a mapping or a callable)."""


class CallStatus(enum.Enum):
    """Where a tool call stands."""

    PENDING = "pending"  # no decision yet
    PROMPTING = "prompting"  # ask: waiting for the user's answer
    EDITING = "editing"  # edit: waiting for complete arguments, then the editor
    APPROVED = "approved"  # unattended, or approved by the user
    SKIPPED = "skipped"  # skip by policy, or declined by the user


@dataclass(eq=False)
class ToolCallState:
    """One tool call of the response: identity, decision, and what became of it."""

    index: int
    id: str = ""
    name: str = ""
    mode: RunMode | None = None
    status: CallStatus = CallStatus.PENDING
    response: str | None = None  # the answer for a skipped call ("skipped", "skipped by user")
    arguments: dict[str, Any] | None = None  # complete (after an edit: the edited ones)
    error: Exception | None = None  # the arguments were not a valid JSON object
    streaming: bool = True  # argument chunks may still arrive
    dropped: bool = False  # its remaining chunks are discarded
    chunks: int = 0  # argument chunks received and processed
    dropped_chunks: int = 0  # argument chunks discarded after a decline or skip
    decided_at: int | None = None  # the argument chunk (1-based; 0: before any) that brought the decision
    result_mode: ResultMode | None = None
    executed: bool = False
    result: Any = None
    policy: StreamingPolicyState | None = field(default=None, repr=False)
    completed_keys: list[str] = field(default_factory=list, repr=False)  # top-level parameters complete so far
    current_key: str | None = field(default=None, repr=False)  # top-level parameter still streaming
    _coordinator: TurnCoordinator | None = field(default=None, repr=False)
    _backlog: list[ToolCallArgumentProgress] = field(default_factory=list, repr=False)

    @property
    def complete(self) -> bool:
        """The complete arguments are known."""
        return self.arguments is not None

    @property
    def approved(self) -> bool:
        return self.status is CallStatus.APPROVED

    @property
    def skipped(self) -> bool:
        return self.status is CallStatus.SKIPPED

    def partial_arguments(self) -> dict[str, Any]:
        """The top-level parameters complete so far (all of them once the arguments are complete)."""
        if self.arguments is not None:
            return dict(self.arguments)
        snap = self._snapshot()
        return {k: snap[k] for k in self.completed_keys if k in snap}

    def arguments_so_far(self) -> dict[str, Any]:
        """The arguments parsed so far, the value still streaming included (read-only)."""
        if self.arguments is not None:
            return self.arguments
        return self._snapshot()

    @property
    def streaming_parameter(self) -> str | None:
        """The top-level parameter still streaming, if any (for a "streaming ..." placeholder)."""
        if not self.streaming or self.current_key in self.completed_keys:
            return None
        return self.current_key

    def approve(self) -> None:
        """Answer an ``ask`` prompt: run the call (safe from another thread while ``run`` streams)."""
        self._answer(True)

    def decline(self) -> None:
        """Answer an ``ask`` prompt: skip the call, drop its remaining chunks, maybe cancel the stream."""
        self._answer(False)

    def _answer(self, approved: bool) -> None:
        if self._coordinator is None:
            raise RuntimeError("this call does not belong to a coordinator")
        self._coordinator.answer(self, approved)

    def _snapshot(self) -> dict[str, Any]:
        coordinator = self._coordinator
        if coordinator is None or not self.streaming:
            return {}
        try:
            snap = coordinator.builder.snapshot(self.index)
        except KeyError:
            return {}
        return snap if isinstance(snap, dict) else {}


@dataclass
class TurnResult:
    """What one response came to."""

    calls: list[ToolCallState]
    events: list[ConversationEvent]
    finish_reason: FinishReason | None
    cancelled: bool


class TurnCoordinator:
    """Coordinates one model response (see the module doc).

    ``policies``: ``load_policies()``'s result, or any mapping of tool name to a
    ``ToolPolicy``, ``RunPolicy`` or list of ``RunRule`` (``"*"`` is the fallback), or a
    callable from tool name to one of those. Callbacks, all optional:

    - ``prompt(call) -> bool | None | Awaitable[bool]``: an ``ask`` decision, with
      ``call.partial_arguments()``; ``None`` means "answered later" through
      ``call.approve()`` / ``call.decline()``. Without it, ``ask`` declines.
    - ``edit(call) -> dict | None``: the complete arguments to run (``None`` declines);
      without it, ``edit`` prompts like ``ask`` once the arguments are complete.
    - ``render(progress)``: each argument fragment of a call not dropped.
    - ``on_decision(call)``: a call's mode is known (``call.decided_at`` says when).
    - ``execute(call)``: an approved call with complete arguments; its return value
      is kept in ``call.result`` (awaited under ``arun``).
    """

    def __init__(
        self,
        policies: Policies = None,
        *,
        prompt: Callable[[ToolCallState], Any] | None = None,
        edit: Callable[[ToolCallState], Any] | None = None,
        render: Callable[[ToolCallArgumentProgress], Any] | None = None,
        on_decision: Callable[[ToolCallState], Any] | None = None,
        execute: Callable[[ToolCallState], Any] | None = None,
        builder: EventBuilder | None = None,
    ) -> None:
        self.policies = policies if policies is not None else {}
        self.prompt = prompt
        self.edit = edit
        self.render = render
        self.on_decision = on_decision
        self.execute = execute
        self.builder = builder if builder is not None else EventBuilder()
        self.calls: dict[int, ToolCallState] = {}
        self.events: list[ConversationEvent] = []
        self.finish_reason: FinishReason | None = None
        self.cancel_requested = False
        self.cancelled = False
        self._lock = threading.Lock()
        self._running = False
        self._async = False
        self._answers: list[tuple[ToolCallState, bool]] = []
        self._awaitables: list[tuple[ToolCallState, str, Any]] = []  # (call, "prompt"|"edit"|"execute", awaitable)

    # -- policy lookup ---------------------------------------------------------

    def policy_for(self, name: str) -> ToolPolicy:
        """The policy for tool ``name`` (the ``"*"`` entry, else ``ask``, when it has none)."""
        source = self.policies
        found = source(name) if callable(source) and not isinstance(source, Mapping) else None
        if found is None and isinstance(source, Mapping):
            found = source.get(name, source.get(DEFAULTS))
        if found is None:
            return ToolPolicy(name)
        if isinstance(found, ToolPolicy):
            return found
        if isinstance(found, (RunMode, str)):
            return ToolPolicy(name, RunPolicy.always(RunMode(found)))
        return ToolPolicy(name, RunPolicy(tuple(found)))

    # -- sans-IO core ----------------------------------------------------------

    def handle(self, event: Any) -> None:
        """Process one provider event (``Part``, ``Flush`` or ``Finished``)."""
        cls = type(event)
        if cls is Part:
            part = event.part
            if type(part) is ToolCall:
                self._tool_part(event.index, part.part, event)
            else:
                self.builder.handle_part(event.index, part, event.metadata)
        elif cls is Flush:
            call = self.calls.get(event.index)
            if call is not None and call.dropped:
                self.builder.handle_flush(event.index)  # partial arguments of a skipped call: discarded
                call.streaming = False
                self._check_cancel()
                return
            flushed = self.builder.handle_flush(event.index, event.metadata)
            if flushed is None:
                return
            self.events.append(flushed)
            if call is not None and isinstance(flushed.kind, ToolCallRequest):
                self._complete(call, flushed.kind)
        elif cls is Finished:
            self.finish_reason = event.reason
            for leftover in self.builder.handle_finished(event):
                self.events.append(leftover)
            for call in self.calls.values():
                if call.streaming:
                    call.streaming = False
                    if call.arguments is None and call.error is None and not call.dropped:
                        call.error = RuntimeError("the response ended before the call's arguments were complete")
        else:
            raise TypeError(f"not an event: {event!r}")
        self._apply_answers()

    def _tool_part(self, index: int, part: Any, event: Part) -> None:
        call = self.calls.get(index)
        if call is None:
            call = self.calls[index] = ToolCallState(index, _coordinator=self)
        if call.dropped:
            if type(part) is ArgumentChunk:
                call.dropped_chunks += 1
            return
        progress = self.builder.handle_part(index, ToolCall(part), event.metadata)
        if type(part) is ToolCallStart:
            call.id = call.id or part.id
            call.name = call.name or part.name
            if call.name and call.policy is None and call.mode is None:
                self._start_policy(call)
            return
        call.chunks += 1
        if not call.name:
            ident = self.builder.tool_call(index)
            if ident is not None:
                call.id, call.name = call.id or ident[0], ident[1]
            if call.name and call.policy is None and call.mode is None:
                self._start_policy(call)
        for p in progress:
            self._progress(call, p)
            if call.dropped:
                break

    def _start_policy(self, call: ToolCallState) -> None:
        """Look up the call's run policy; decide at once when no rule depends on an argument."""
        rules = self.policy_for(call.name).run
        if not any(rule.condition is not None for rule in rules):
            mode = evaluate(rules, {}, complete=True)
            self._decide(call, RunMode(mode))
            return
        call.policy = StreamingPolicyState(rules)
        backlog, call._backlog = call._backlog, []
        for p in backlog:
            if call.mode is None:
                self._feed_policy(call, p)

    def _progress(self, call: ToolCallState, progress: ToolCallArgumentProgress) -> None:
        fragment = progress.fragment
        if type(fragment) is ObjectEntry:
            key = fragment.key
            call.current_key = key
            if fragment.value is DONE:
                call.completed_keys.append(key)
        if self.render is not None:
            self.render(progress)
        if call.mode is None:
            if call.policy is None:
                call._backlog.append(progress)
            else:
                self._feed_policy(call, progress)

    def _feed_policy(self, call: ToolCallState, progress: ToolCallArgumentProgress) -> None:
        assert call.policy is not None
        mode = call.policy.feed(progress)
        if mode is not None:
            self._decide(call, RunMode(mode))

    def _decide(self, call: ToolCallState, mode: RunMode) -> None:
        call.mode = mode
        call.decided_at = call.chunks
        if self.on_decision is not None:
            self.on_decision(call)
        if mode is RunMode.UNATTENDED:
            call.status = CallStatus.APPROVED
            self._maybe_execute(call)
        elif mode is RunMode.SKIP:
            self._skip(call, SKIPPED)
        elif mode is RunMode.EDIT:
            call.status = CallStatus.EDITING
            if call.complete:
                self._run_edit(call)
        else:
            self._ask(call)

    def _ask(self, call: ToolCallState) -> None:
        call.status = CallStatus.PROMPTING
        if self.prompt is None:
            self._skip(call, SKIPPED_BY_USER)
            return
        answer = self.prompt(call)
        if inspect.isawaitable(answer):
            self._defer(call, "prompt", answer)
        elif answer is not None:
            self._apply(call, bool(answer))

    def _run_edit(self, call: ToolCallState) -> None:
        if self.edit is None:
            self._ask(call)
            return
        edited = self.edit(call)
        if inspect.isawaitable(edited):
            self._defer(call, "edit", edited)
        else:
            self._edited(call, edited)

    def _edited(self, call: ToolCallState, edited: Any) -> None:
        if edited is None:
            self._skip(call, SKIPPED_BY_USER)
            return
        call.arguments = dict(edited)  # not evaluated again
        call.status = CallStatus.APPROVED
        self._maybe_execute(call)

    def _skip(self, call: ToolCallState, response: str) -> None:
        call.status = CallStatus.SKIPPED
        call.response = response
        if call.streaming:
            call.dropped = True
            call.policy = None
        self._check_cancel()

    def _check_cancel(self) -> None:
        """Cancel the stream when calls are being dropped and no other call is still streaming."""
        live = [c for c in self.calls.values() if c.streaming]
        if live and all(c.dropped for c in live):
            self.cancel_requested = True

    def _complete(self, call: ToolCallState, request: ToolCallRequest) -> None:
        """The call's arguments are complete: the flush-time evaluation, then edit / execute."""
        call.streaming = False
        call.id = call.id or request.id
        call.name = call.name or request.name
        call.error = request.error
        arguments = dict(request.arguments)
        call.arguments = arguments
        call.result_mode = ResultMode(evaluate(self.policy_for(call.name).result, arguments, complete=True))
        early = call.mode
        if early is None:
            if call.policy is None:
                self._start_policy(call)  # the name arrived only now; this may decide already
            if call.mode is None:
                assert call.policy is not None
                # Providers that send the arguments at once decide here: the same evaluator,
                # with every parameter known (absent ones are absent).
                self._decide(call, RunMode(call.policy.finish(arguments)))
        elif call.policy is not None and RunMode(call.policy.finish(arguments)) is not early and not call.skipped:
            # The complete arguments disagree with the early decision (only input the fragments
            # cannot show whole, such as a duplicate key, does that): skip, or ask on them.
            final = call.policy.resolved
            call.status = CallStatus.PENDING
            self._decide(call, RunMode.SKIP if final is RunMode.SKIP else RunMode.ASK)
        elif call.status is CallStatus.EDITING:
            self._run_edit(call)
        else:
            self._maybe_execute(call)
        self._check_cancel()

    def _maybe_execute(self, call: ToolCallState) -> None:
        if call.status is not CallStatus.APPROVED or not call.complete or call.executed or call.error is not None:
            return
        call.executed = True
        if self.execute is not None:
            result = self.execute(call)
            if inspect.isawaitable(result):
                self._defer(call, "execute", result)
            else:
                call.result = result

    def _defer(self, call: ToolCallState, kind: str, awaitable: Any) -> None:
        if not self._async:
            close = getattr(awaitable, "close", None)
            if close is not None:
                close()
            raise TypeError(f"the {kind} callback returned an awaitable: drive the coordinator with arun()")
        self._awaitables.append((call, kind, awaitable))

    # -- answers ---------------------------------------------------------------

    def answer(self, call: ToolCallState, approved: bool) -> None:
        """Answer ``call``'s prompt. While ``run`` streams this is queued (any thread) and applied between events."""
        with self._lock:
            if self._running:
                self._answers.append((call, approved))
                return
        self._apply(call, approved)

    def _apply_answers(self) -> None:
        if not self._answers:
            return
        with self._lock:
            answers, self._answers = self._answers, []
        for call, approved in answers:
            self._apply(call, approved)

    def _apply(self, call: ToolCallState, approved: bool) -> None:
        if call.status is not CallStatus.PROMPTING:
            return
        if approved:
            call.status = CallStatus.APPROVED
            self._maybe_execute(call)
        else:
            self._skip(call, SKIPPED_BY_USER)

    # -- drivers ---------------------------------------------------------------

    def result(self) -> TurnResult:
        """The calls (in index order), flushed events, finish reason and whether the stream was cancelled."""
        calls = [self.calls[i] for i in sorted(self.calls)]
        return TurnResult(calls, list(self.events), self.finish_reason, self.cancelled)

    def run(self, events: Iterable[Any], close: Callable[[], Any] | None = None) -> TurnResult:
        """Drive the coordinator over ``events`` (e.g. ``providers.anthropic.to_events(stream)``).

        ``close`` cancels the provider stream (``stream.close``); it is called, and
        ``events`` closed, as soon as the stream is no longer needed.
        """
        with self._lock:
            self._running = True
        iterator = iter(events)
        try:
            for event in iterator:
                self.handle(event)
                if self.cancel_requested:
                    break
            self._apply_answers()
        finally:
            with self._lock:
                self._running = False
            self._apply_answers()
            if self.cancel_requested:
                self._cancel(iterator, close)
        return self.result()

    def _cancel(self, iterator: Any, close: Callable[[], Any] | None) -> None:
        self.cancelled = True
        for call in self.calls.values():
            call.streaming = False
        if self.finish_reason is None:
            self.finish_reason = FinishReason.CANCELLED
        if close is not None:
            close()
        closer = getattr(iterator, "close", None)
        if closer is not None:
            closer()

    async def arun(self, events: AsyncIterable[Any] | Iterable[Any], close: Callable[[], Any] | None = None) -> TurnResult:
        """Async twin of :meth:`run`: awaitable callbacks run concurrently with the stream.

        A prompt is answered while the arguments keep streaming; prompts are shown one
        at a time. ``close`` may be a coroutine function (``AsyncStream.close``).
        """
        if hasattr(events, "__aiter__"):
            iterator: Any = events.__aiter__()
        else:
            iterator = _AsyncOver(iter(events))
        self._async = True
        prompt_lock = asyncio.Lock()
        tasks: set[asyncio.Task[Any]] = set()
        next_event: asyncio.Task[Any] | None = None

        def schedule() -> None:
            for call, kind, awaitable in self._awaitables:
                tasks.add(asyncio.ensure_future(self._await(call, kind, awaitable, prompt_lock)))
            self._awaitables.clear()

        try:
            while not self.cancel_requested:
                if next_event is None:
                    next_event = asyncio.ensure_future(iterator.__anext__())
                done, _ = await asyncio.wait({next_event, *tasks}, return_when=asyncio.FIRST_COMPLETED)
                for task in done - {next_event}:
                    tasks.discard(task)
                    task.result()
                if next_event in done:
                    finished, next_event = next_event, None
                    try:
                        event = finished.result()
                    except StopAsyncIteration:
                        break
                    self.handle(event)
                schedule()
            if self.cancel_requested:
                if next_event is not None:
                    next_event.cancel()
                    try:
                        await next_event
                    except (asyncio.CancelledError, StopAsyncIteration, Exception):
                        pass
                    next_event = None
                self.cancelled = True
                for call in self.calls.values():
                    call.streaming = False
                if self.finish_reason is None:
                    self.finish_reason = FinishReason.CANCELLED
                if close is not None:
                    closed = close()
                    if inspect.isawaitable(closed):
                        await closed
                aclose = getattr(iterator, "aclose", None)
                if aclose is not None:
                    await aclose()
            # The stream is over; prompts and runs still pending finish now.
            while tasks or self._awaitables:
                schedule()
                if tasks:
                    done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
                    for task in done:
                        tasks.discard(task)
                        task.result()
        finally:
            if next_event is not None and not next_event.done():
                next_event.cancel()
            for task in tasks:
                task.cancel()
        return self.result()

    async def _await(self, call: ToolCallState, kind: str, awaitable: Any, prompt_lock: asyncio.Lock) -> None:
        if kind == "execute":
            call.result = await awaitable
            return
        async with prompt_lock:  # one prompt or editor at a time
            answer = await awaitable
        if kind == "edit":
            self._edited(call, answer)
        elif answer is not None:
            self._apply(call, bool(answer))


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
