"""``TurnCoordinator``: one model response, from stream items to per-call decisions (RFD D26, Phase 3).

The coordinator is sans-IO (as h11 is): :meth:`TurnCoordinator.handle` takes provider events,
turns them into the stream items of :func:`argstream.stream.iter_tool_stream` (the one event
source every consumer reads), decides, and queues what needs a person or the outside world as
:class:`Request`\\ s (``prompt``, ``edit``, ``execute``) that a driver
(:mod:`argstream.policy.drivers`) carries out and answers. When a call's policy decides:

- ``unattended``: the call is pre-approved and runs once its arguments are complete;
- ``skip``: the call is answered "skipped" at once and its remaining chunks dropped;
- ``ask`` from a conditional policy: a prompt as soon as the deciding parameters are complete,
  showing the parameters complete so far (the rest still streams meanwhile); a catch-all ``ask``
  (a policy no argument decides) prompts when the arguments are complete, with all of them;
- ``edit``: decided early, the editor runs once the arguments are complete.

What runs is what was decided on: when the complete arguments differ from the values a prompt
showed or an early decision rested on, or the policy decides otherwise on them, the call is
decided again on the complete arguments (an ``ask`` prompts again, ``call.reprompt`` set).

A call whose arguments stop being valid JSON (a duplicate key among them), or that the response
cuts off, never runs: it is handled like a declined call (status ``FAILED``). When a call whose
chunks are dropped is the only one still streaming, ``cancel_requested`` is set and the driver
cancels the provider stream.
"""

from __future__ import annotations

import enum
import os
import threading
import warnings
from collections import deque
from collections.abc import AsyncIterable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Union

from .._backend import BACKEND
from ..builder import EventBuilder
from ..events import (
    ArgumentChunk, ConversationEvent, Finished, FinishReason, Flush, Part, ToolCall, ToolCallArgumentProgress,
    WholeArguments,
)
from ..stream import (
    StreamFinished, ToolCallFailed, ToolCallFinished, ToolCallStarted, ToolCallViolation, ToolStreamState,
    pipeline_for,
)
from .config import DEFAULTS, ToolPolicy
from .evaluation import evaluate
from .matchers import json_equal
from .modes import ResultMode, RunMode
from .rules import RunPolicy
from .streaming import StreamingPolicyState

if TYPE_CHECKING or BACKEND == "python":
    from ._handle_py import CALL_FIELDS, END, PUMPED, CallBase, CoordinatorBase
else:
    try:
        from ._handle import CALL_FIELDS, END, PUMPED, CallBase, CoordinatorBase
    except ImportError as exc:  # a build whose core is compiled but not this module (an older in-place build)
        if os.environ.get("ARGSTREAM_REQUIRE_EXTENSION", "") not in ("", "0"):
            raise
        warnings.warn(f"argstream: the coordinator's compiled step does not load ({exc}); using its pure twin",
                      RuntimeWarning, stacklevel=2)
        from ._handle_py import CALL_FIELDS, END, PUMPED, CallBase, CoordinatorBase

__all__ = [
    "CallStatus", "Request", "ToolCallState", "TurnCoordinator", "TurnResult", "SKIPPED", "SKIPPED_BY_USER",
    "EDIT",
]

SKIPPED = "skipped"
SKIPPED_BY_USER = "skipped by user"
EDIT = "edit"
"""A prompt answer: let the user edit the complete arguments before the call runs."""

Policies = Union[Mapping[str, Any], Callable[[str], Any], None]
"""Tool name -> ``ToolPolicy``, ``RunPolicy``, a list of ``RunRule`` or a ``RunMode`` (a mapping or a callable)."""


class CallStatus(enum.Enum):
    """Where a tool call stands."""

    PENDING = "pending"  # no decision yet, or a catch-all ask waiting for complete arguments
    PROMPTING = "prompting"  # ask: waiting for the user's answer
    EDITING = "editing"  # edit: waiting for complete arguments, then the editor
    APPROVED = "approved"  # unattended, or approved by the user
    SKIPPED = "skipped"  # skip by policy, or declined by the user
    FAILED = "failed"  # invalid or cut-off arguments: never runs


#: statuses of a call that may still run
_OPEN = frozenset((CallStatus.PENDING, CallStatus.PROMPTING, CallStatus.EDITING, CallStatus.APPROVED))
NOT_RUN = "not run: the response ended in an error"

#: run modes from the least strict to the most
_STRICTNESS = (RunMode.UNATTENDED, RunMode.ASK, RunMode.EDIT, RunMode.SKIP)


@dataclass(eq=False)
class ToolCallState(CallBase):
    """One tool call of the response: identity, decision, and what became of it."""

    index: int
    id: str = ""
    name: str = ""
    mode: RunMode | None = None
    status: CallStatus = CallStatus.PENDING
    response: str | None = None  # the answer for a call that did not run ("skipped", "skipped by user", ...)
    response_index: int = 0  # which response of the stream the call belongs to (0 for the first)
    arguments: dict[str, Any] | None = None  # complete (after an edit: the edited ones)
    error: Exception | None = None  # the arguments were not a valid JSON object, or were cut off
    streaming: bool = True  # argument chunks may still arrive
    dropped: bool = False  # its remaining chunks are discarded
    chunks: int = 0  # argument chunks received and processed
    dropped_chunks: int = 0  # argument chunks discarded after a decline or skip
    decided_at: int | None = None  # the argument chunk (1-based; 0: before any) that brought the decision
    result_mode: ResultMode | None = None
    executed: bool = False
    result: Any = None
    violations: list[Any] = field(default_factory=list)  # schema violations proven (with tools=)
    repairs: tuple[Any, ...] = ()  # what the lenient parser repaired in the arguments (``lenient=True``)
    reprompt: bool = False  # the current prompt asks again: the complete arguments differ from those shown
    prompts: int = 0  # prompts shown so far
    early_prompt: bool = False  # the current prompt was made before the arguments were complete
    basis: dict[str, Any] = field(default_factory=dict, repr=False)  # the values the decision rested on
    policy: StreamingPolicyState | None = field(default=None, repr=False)
    completed_keys: list[str] = field(default_factory=list, repr=False)  # top-level parameters complete so far
    current_key: str | None = field(default=None, repr=False)  # top-level parameter still streaming
    _coordinator: TurnCoordinator | None = field(default=None, repr=False)
    _backlog: list[ToolCallArgumentProgress] = field(default_factory=list, repr=False)
    _shown_streaming: str | None = field(default=None, repr=False)

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

    @property
    def failed(self) -> bool:
        return self.status is CallStatus.FAILED

    def partial_arguments(self) -> dict[str, Any]:
        """The top-level parameters complete so far; while prompting, exactly what the prompt shows."""
        if self.status is CallStatus.PROMPTING:
            return dict(self.basis)
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
        """The top-level parameter still streaming, if any (for a ``streaming "content"...`` placeholder);
        while prompting, the one the prompt shows as streaming."""
        if self.status is CallStatus.PROMPTING:
            return self._shown_streaming
        return self._streaming_now()

    def _streaming_now(self) -> str | None:
        if not self.streaming or self.current_key in self.completed_keys:
            return None
        return self.current_key

    def approve(self) -> None:
        """Answer the current prompt: run the call (safe from another thread while a driver streams)."""
        self._answer(True)

    def decline(self) -> None:
        """Answer the current prompt: skip the call, drop its remaining chunks, maybe cancel the stream."""
        self._answer(False)

    def _answer(self, answer: Any) -> None:
        if self._coordinator is None:
            raise RuntimeError("this call does not belong to a coordinator")
        self._coordinator.answer(self, answer)

    def _snapshot(self) -> dict[str, Any]:
        coordinator = self._coordinator
        if coordinator is None or not self.streaming:
            return {}
        try:
            snap = coordinator.builder.snapshot(self.index)
        except KeyError:
            return {}
        return snap if isinstance(snap, dict) else {}


# The fields ``CallBase`` holds are its own (C fields in the compiled base): the dataclass's class-level
# defaults would hide them (its ``__init__`` keeps the defaults).
for _name in CALL_FIELDS:
    if _name in ToolCallState.__dict__:
        delattr(ToolCallState, _name)


@dataclass(frozen=True)
class Request:
    """Something the coordinator needs from outside: ``prompt``, ``edit`` or ``execute`` ``call``.

    ``generation`` is ``call.prompts`` when the request was made: an answer to an older prompt is ignored.
    """

    kind: str
    call: ToolCallState
    generation: int = 0


@dataclass
class TurnResult:
    """What one response came to."""

    calls: list[ToolCallState]
    events: list[ConversationEvent]
    finish_reason: FinishReason | None
    cancelled: bool


class TurnCoordinator(CoordinatorBase):
    """Coordinates one model response (see the module doc).

    ``policies``: ``load_policies()``'s result, or any mapping of tool name to a
    ``ToolPolicy``, ``RunPolicy`` or list of ``RunRule`` (``"*"`` is the fallback), or a
    callable from tool name to one of those. Callbacks, all optional, run by the driver:

    - ``prompt(call) -> bool | "edit" | None | Awaitable``: an ``ask`` decision; the call shows
      ``call.partial_arguments()`` and ``call.streaming_parameter``. ``None`` means "answered
      later" through ``call.approve()`` / ``call.decline()``; ``"edit"`` hands the complete
      arguments to ``edit``. Without it, ``ask`` declines.
    - ``edit(call) -> dict | None``: the complete arguments to run (``None`` declines);
      without it, ``edit`` prompts like ``ask`` once the arguments are complete.
    - ``render(item)``: every stream item of the response (text, tool call starts, argument
      progress, failures, finished calls, the end), except those of calls being dropped.
    - ``on_decision(call)``: a call's mode is known (``call.decided_at`` says when).
    - ``execute(call)``: an approved call with complete arguments; its return value
      is kept in ``call.result``.

    ``tools`` (the definitions sent to the provider) checks each call's arguments against its
    schema as they stream; with ``on_violation="decline"`` (the default) the first violation
    declines the call like a "no" (status ``FAILED``, its chunks dropped, the stream cancelled when
    it was the last one streaming), so no tokens are spent on the rest of an invalid call;
    ``"report"`` only records them on ``call.violations``.

    ``run_at``: ``"finish"`` (the default) runs an approved call once its response has ended
    without an error, so a call flushed in a response that then fails (an ``error`` event, a
    dropped connection, a stream cut before its end) never runs; ``"flush"`` runs it as soon as
    its arguments are complete and approved, before the response's outcome is known.

    ``early_answer``: what a "yes" to a prompt made before the arguments were complete covers.
    ``"shown"`` (the default): the parameters the prompt showed, and the one it showed as still
    streaming; when the complete arguments hold any other, the call is shown again, whole, and
    asked again before it runs. ``"call"``: the early answer covers the whole call, whatever
    parameters follow.

    ``run`` / ``arun`` drive it over provider events (``to_events(stream)``) or over the provider
    stream itself (SDK objects or wire dicts; the fused path, with ``provider=`` and
    ``provider_options=`` as for :func:`~argstream.stream.iter_tool_stream`). Feeding :meth:`handle`
    yourself, carry out ``requests`` after each event (``argstream.policy.drivers.serve_inline(co)``
    does it on the calling thread).

    ``text_tool_calls`` and ``lenient``: as for :func:`~argstream.stream.iter_tool_stream` (calls
    written in message text decided like native ones; a name ``tools=`` does not define never runs).

    Calls are keyed by response and index: a stream of several responses (each numbering its calls
    from 0) reports every call under its own name, id and arguments (``call.response_index``).
    """

    def __init__(
        self,
        policies: Policies = None,
        *,
        prompt: Callable[[ToolCallState], Any] | None = None,
        edit: Callable[[ToolCallState], Any] | None = None,
        render: Callable[[Any], Any] | None = None,
        on_decision: Callable[[ToolCallState], Any] | None = None,
        execute: Callable[[ToolCallState], Any] | None = None,
        builder: EventBuilder | None = None,
        tools: Any = None,
        on_violation: str = "decline",
        run_at: str = "finish",
        early_answer: str = "shown",
        provider: Any = None,
        provider_options: Mapping[str, Any] | None = None,
        text_tool_calls: str | None = None,
        lenient: bool = False,
    ) -> None:
        self.policies = policies if policies is not None else {}
        self.prompt = prompt
        self.edit = edit
        self.render = render
        self.on_decision = on_decision
        self.execute = execute
        if on_violation not in ("decline", "report"):
            raise ValueError("on_violation is 'decline' or 'report'")
        if run_at not in ("finish", "flush"):
            raise ValueError("run_at is 'finish' or 'flush'")
        if early_answer not in ("shown", "call"):
            raise ValueError("early_answer is 'shown' or 'call'")
        self.run_at = run_at
        self.early_answer = early_answer
        self.provider = provider
        self.provider_options = provider_options
        if builder is not None and tools is not None:
            raise TypeError("pass tools= to your EventBuilder instead")
        self.on_violation = on_violation
        if builder is not None and lenient:
            raise TypeError("pass lenient= to your EventBuilder instead")
        self.stream = ToolStreamState(
            lambda: builder if builder is not None else EventBuilder(tools=tools, lenient=lenient),
            text_tool_calls=text_tool_calls, tools=tools)
        self.calls: dict[int, ToolCallState] = {}  # every call of the stream, in order of first sight
        self._live: dict[int, ToolCallState] = {}  # the current response's open calls, by event index
        self._response = 0  # responses ended so far
        self._held: list[ToolCallState] = []  # approved, complete, waiting for their response to end
        self._pipeline: Any = None  # the fused pipeline, when handle() is fed a provider stream's items
        self.finish_reason: FinishReason | None = None
        self.cancel_requested = False
        self.cancelled = False
        self.requests: deque[Request] = deque()
        self._finished_events: list[ConversationEvent] | None = None
        self._lock = threading.Lock()
        self.driving = False  # a driver is reading the stream and will apply answers between events
        self._answers: list[tuple[ToolCallState, int | None, Any]] = []

    @property
    def builder(self) -> EventBuilder:
        """The builder behind the stream items (its snapshots give the arguments so far)."""
        return self.stream.builder

    @property
    def events(self) -> list[ConversationEvent]:
        """The persisted events flushed so far (after the end: with the cut-off leftovers)."""
        if self._finished_events is not None:
            return self._finished_events
        return self.stream.events

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

    def _start(self, first: Any) -> Any:
        """The fused pipeline for the provider stream whose first item ``handle`` was given."""
        pipeline = self._pipeline = pipeline_for(self.provider, first, self.stream, self.provider_options)
        if pipeline is None:
            raise TypeError("a to_events-style provider: pass its events to handle(), not the stream items")
        return pipeline

    def _general(self, pipeline: Any, item: Any) -> None:
        """A provider stream's item that the adapter's fast test declined: its events, the general way."""
        try:
            events = pipeline.events(item)
        except Exception:
            for finished in pipeline.failed_events():
                self._event(finished)
            raise
        for one in events:
            self._event(one)

    @property
    def stream_over(self) -> bool:
        """A provider stream fed item by item ended in ``Finished(ERROR)``: read no further item."""
        return self._pipeline is not None and self._pipeline.over

    def end_of_stream(self) -> None:
        """A provider stream fed to :meth:`handle` item by item ended cleanly (the drivers call this)."""
        if self._pipeline is not None:
            for event in self._pipeline.end_events():
                self._event(event)

    def stream_failed(self) -> None:
        """Iterating a provider stream fed to :meth:`handle` raised (the drivers call this, then re-raise)."""
        if self._pipeline is not None:
            for event in self._pipeline.failed_events():
                self._event(event)

    def _new_call(self, index: int) -> ToolCallState:
        """A call that starts at ``index`` of the current response."""
        call = self._live[index] = ToolCallState(index, response_index=self._response, _coordinator=self)
        self.calls[len(self.calls)] = call
        return call

    def _event(self, event: Any) -> None:
        if type(event) is Part and type(event.part) is ToolCall:
            call = self._live.get(event.index)
            if call is None:
                call = self._new_call(event.index)
            if type(event.part.part) is ArgumentChunk or type(event.part.part) is WholeArguments:
                if call.dropped:
                    call.dropped_chunks += 1
                    return
                call.chunks += 1
        elif type(event) is Flush:
            call = self._live.get(event.index)
            if call is not None:
                call.streaming = False  # whatever the flush brings, no more chunks come for it
                if call.dropped:
                    del self._live[event.index]
                    self.stream.discard(event.index)  # the partial arguments of a call that will not run
                    self._check_cancel()
                    self.apply_answers()
                    return
        elif type(event) is Finished:
            for call in self._live.values():
                call.streaming = False
        for item in self.stream.feed(event):
            self.handle_item(item)
        if type(event) is Flush:
            self._live.pop(event.index, None)
        self.apply_answers()

    def handle_item(self, item: Any) -> None:
        """Process one stream item (what :meth:`handle` does with each item its event produced)."""
        cls = type(item)
        if cls is ToolCallArgumentProgress:
            call = self._live.get(item.index) or self._new_call(item.index)
            if call.dropped:
                return
            self._render(item)
            self._progress(call, item)
            return
        if cls is ToolCallStarted:
            call = self._live.get(item.index) or self._new_call(item.index)
            self._render(item)
            call.id = call.id or item.id
            call.name = call.name or item.name
            if call.name:
                self._start_policy(call)
            return
        if cls is ToolCallFailed:
            call = self._live.get(item.index) or self._new_call(item.index)
            if not call.dropped:
                self._render(item)
            self._fail(call, item.error)
            return
        if cls is ToolCallViolation:
            call = self._live.get(item.index) or self._new_call(item.index)
            if call.dropped:
                return
            self._render(item)
            call.violations.append(item.violation)
            if self.on_violation == "decline":
                violation = item.violation
                where = "/" + "/".join(str(step) for step in violation.path)
                self._reject(call, f"invalid arguments: {violation.message} (at {where})")
            return
        if cls is ToolCallFinished:
            call = self._live.get(item.index) or self._new_call(item.index)
            self._render(item)
            self._complete(call, item)
            return
        if cls is StreamFinished:
            self._render(item)
            self.finish_reason = item.reason
            self._finished_events = list(item.events) + list(item.incomplete)
            for call in self._live.values():
                call.streaming = False
            self._live.clear()
            self._end_response(item.reason is not FinishReason.ERROR)
            return
        self._render(item)

    def _render(self, item: Any) -> None:
        if self.render is not None:
            self.render(item)

    def _start_policy(self, call: ToolCallState) -> None:
        """Look up the call's run policy; decide at once when no rule depends on an argument."""
        if call.policy is not None or call.mode is not None or call.status is not CallStatus.PENDING:
            return
        rules = self.policy_for(call.name).run
        if not any(rule.condition is not None for rule in rules):
            self._decide(call, RunMode(evaluate(rules, {}, complete=True)), {})
            return
        call.policy = StreamingPolicyState(rules)
        backlog, call._backlog = call._backlog, []
        for progress in backlog:
            if call.mode is not None:
                break
            self._feed_policy(call, progress)

    def _progress(self, call: ToolCallState, progress: ToolCallArgumentProgress) -> None:
        key = progress.parameter
        if key is not None:
            call.current_key = key
            completed = progress.completed
            if completed is not None and len(completed.path) == 1 and key not in call.completed_keys:
                call.completed_keys.append(key)
        if not call.name and progress.tool_name:
            call.name = progress.tool_name
            call.id = call.id or progress.tool_call_id
            self._start_policy(call)
        if call.mode is None:
            if call.policy is None:
                call._backlog.append(progress)
            else:
                self._feed_policy(call, progress)

    def _feed_policy(self, call: ToolCallState, progress: ToolCallArgumentProgress) -> None:
        assert call.policy is not None
        completed = progress.completed
        if completed is None:
            return
        mode = call.policy.feed_completed(completed)
        if mode is not None and call.mode is None:
            policy = call.policy
            basis = {k: v for k, v in policy.known_params.items() if k in policy.parameters}
            self._decide(call, RunMode(mode), basis)

    def _decide(self, call: ToolCallState, mode: RunMode, basis: dict[str, Any]) -> None:
        call.mode = mode
        call.decided_at = call.chunks
        call.basis = basis
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
                self._request_edit(call)
        elif call.complete or call.policy is not None:
            self._ask(call)
        # else: a catch-all ask prompts once the arguments are complete (status stays PENDING)

    def _ask(self, call: ToolCallState) -> None:
        if self.prompt is None:
            call.status = CallStatus.PROMPTING
            self._skip(call, SKIPPED_BY_USER)
            return
        call.status = CallStatus.PENDING
        shown = call.partial_arguments()  # what the prompt shows is what the decision rests on
        call.basis = shown
        call._shown_streaming = call._streaming_now()
        call.early_prompt = not call.complete
        call.status = CallStatus.PROMPTING
        call.prompts += 1
        self.requests.append(Request("prompt", call, call.prompts))

    def _request_edit(self, call: ToolCallState) -> None:
        if self.edit is None:
            self._ask(call)
            return
        call.status = CallStatus.EDITING
        call.prompts += 1
        self.requests.append(Request("edit", call, call.prompts))

    def _skip(self, call: ToolCallState, response: str) -> None:
        call.status = CallStatus.SKIPPED
        call.response = response
        self._drop(call)

    def _fail(self, call: ToolCallState, error: Exception) -> None:
        """Invalid or cut-off arguments: the call never runs, handled like a declined call."""
        call.error = error
        self._reject(call, f"invalid arguments: {error}")

    def _reject(self, call: ToolCallState, response: str) -> None:
        if call.status in (CallStatus.SKIPPED, CallStatus.FAILED):
            return
        call.status = CallStatus.FAILED
        call.response = response
        self._drop(call)

    def _drop(self, call: ToolCallState) -> None:
        if call.streaming:
            call.dropped = True
            call.policy = None
            call._backlog = []
        self._check_cancel()

    def _end_response(self, ok: bool) -> None:
        """The response ended: its approved calls run now, unless it ended in an error (then none does).

        With ``run_at="finish"``, a call of a failed response whose prompt or editor is still open fails
        too: an answer that comes after the error (a prompt on the threaded driver's worker, answered
        once the stream has raised) must not run a call its response never completed."""
        held, self._held = self._held, []
        ended = self._response
        self._response += 1
        for call in held:
            if ok:
                self._run_now(call)
            else:
                call.status = CallStatus.FAILED
                call.response = NOT_RUN
        if not ok and self.run_at == "finish":
            for call in self.calls.values():
                if call.response_index == ended and not call.executed and call.status in _OPEN:
                    call.status = CallStatus.FAILED
                    call.response = NOT_RUN

    def _check_cancel(self) -> None:
        """Cancel the stream when calls are being dropped and no other call is still streaming."""
        dropping = False
        for call in self._live.values():  # the response's calls not flushed yet: stops at the first live one
            if call.streaming:
                if not call.dropped:
                    return
                dropping = True
        if dropping:
            self.cancel_requested = True

    def _complete(self, call: ToolCallState, finished: ToolCallFinished) -> None:
        """The provider closed the call: decide (again, if the arguments changed), then edit / prompt / run."""
        call.streaming = False
        call.id = call.id or finished.id
        call.name = call.name or finished.name
        if finished.error is not None or call.status in (CallStatus.SKIPPED, CallStatus.FAILED):
            if finished.error is not None:
                self._fail(call, finished.error)
            return
        for violation in finished.violations[len(call.violations):]:
            call.violations.append(violation)
        arguments = dict(finished.arguments)
        call.arguments = arguments
        policy = self.policy_for(call.name)
        call.result_mode = ResultMode(evaluate(policy.result, arguments, complete=True))
        final = RunMode(evaluate(policy.run, arguments, complete=True))
        if finished.repairs:  # repaired arguments get at most the policy's ``repaired`` mode
            call.repairs = finished.repairs
            final = max(final, policy.repaired, key=_STRICTNESS.index)
        if call.policy is not None:
            call.policy.finish(arguments)
        if call.mode is None:
            self._decide(call, final, arguments)
        elif (final is not call.mode or not _agrees(call.basis, arguments)
              or (call.status is CallStatus.APPROVED and self._unseen(call, arguments))):
            # What was decided on is not what would run: decide again on the complete arguments.
            call.reprompt = call.prompts > 0
            call.status = CallStatus.PENDING
            self._decide(call, final, arguments)
        elif call.status is CallStatus.EDITING:
            self._request_edit(call)
        elif call.status is CallStatus.PENDING:
            self._ask(call)  # a catch-all ask: now with every argument
        else:
            self._maybe_execute(call)
        self._check_cancel()

    def _unseen(self, call: ToolCallState, arguments: Mapping[str, Any]) -> bool:
        """A person approved this call early, and the complete arguments hold a parameter that the
        prompt neither showed nor announced as still streaming (unless ``early_answer="call"``)."""
        if call.prompts == 0 or self.early_answer == "call":
            return False
        shown = call.basis.keys()
        return any(key not in shown and key != call._shown_streaming for key in arguments)

    def _maybe_execute(self, call: ToolCallState) -> None:
        if call.status is not CallStatus.APPROVED or not call.complete or call.executed or call.error is not None:
            return
        if self.run_at == "finish" and call.response_index == self._response:
            if call not in self._held:
                self._held.append(call)  # runs once its response has ended without an error
            return
        self._run_now(call)

    def _run_now(self, call: ToolCallState) -> None:
        if call.executed or call.status is not CallStatus.APPROVED:
            return
        call.executed = True
        if self.execute is not None:
            self.requests.append(Request("execute", call, call.prompts))

    # -- answers ---------------------------------------------------------------

    def answer(self, call: ToolCallState, answer: Any, generation: int | None = None) -> None:
        """Answer ``call``'s prompt (``True``, ``False`` or ``"edit"``); safe from any thread.

        Answers queue and apply between events (:meth:`apply_answers`); one for an older prompt
        (``generation`` below ``call.prompts``) is ignored.
        """
        with self._lock:
            self._answers.append((call, generation, answer))
            driven = self.driving
        if not driven:
            self._serve()

    def edited(self, call: ToolCallState, arguments: Any, generation: int | None = None) -> None:
        """The editor's result for ``call`` (``None`` declines); safe from any thread."""
        with self._lock:
            self._answers.append((call, generation, _Edited(arguments)))
            driven = self.driving
        if not driven:
            self._serve()

    def _serve(self) -> None:
        """No driver runs (the answer came after the stream): apply it and carry out what follows here."""
        from .drivers import serve_inline

        serve_inline(self)

    def apply_answers(self) -> None:
        """Apply the answers queued since the last call (drivers call this between events)."""
        if not self._answers:
            return
        with self._lock:
            answers, self._answers = self._answers, []
        for call, generation, answer in answers:
            if generation is not None and generation != call.prompts:
                continue
            if type(answer) is _Edited:
                self._apply_edit(call, answer.arguments)
            else:
                self._apply(call, answer)

    def _apply(self, call: ToolCallState, answer: Any) -> None:
        if call.status is not CallStatus.PROMPTING:
            return
        if isinstance(answer, str):
            if answer == EDIT and self.edit is not None:
                call.status = CallStatus.EDITING  # the mode stays ask: the editor runs on complete arguments
                if call.complete:
                    self._request_edit(call)
            else:
                self._skip(call, SKIPPED_BY_USER)
        elif answer:
            if call.arguments is not None and self._unseen(call, call.arguments):
                call.reprompt = True  # the call completed while the prompt was open, with more than it showed
                self._ask(call)
                return
            call.status = CallStatus.APPROVED
            self._maybe_execute(call)
        else:
            self._skip(call, SKIPPED_BY_USER)

    def _apply_edit(self, call: ToolCallState, edited: Any) -> None:
        if call.status is not CallStatus.EDITING:
            return
        if edited is None:
            self._skip(call, SKIPPED_BY_USER)
            return
        call.arguments = dict(edited)  # not evaluated again
        call.status = CallStatus.APPROVED
        self._maybe_execute(call)

    # -- drivers ---------------------------------------------------------------

    def result(self) -> TurnResult:
        """The calls (in index order), flushed events, finish reason and whether the stream was cancelled."""
        calls = list(self.calls.values())
        return TurnResult(calls, list(self.events), self.finish_reason, self.cancelled)

    def mark_cancelled(self) -> None:
        """The driver cancelled the provider stream: no call streams any more. Calls already approved and
        complete run (the cancellation was this coordinator's own, for a declined call)."""
        self.cancelled = True
        for call in self._live.values():
            call.streaming = False
        self._live.clear()
        if self.finish_reason is None:
            self.finish_reason = FinishReason.CANCELLED
        self._end_response(True)

    def run(self, events: Iterable[Any], close: Callable[[], Any] | None = None) -> TurnResult:
        """Drive the coordinator over ``events``; prompts and edits run on a worker thread while the
        stream keeps being read (:func:`argstream.policy.drivers.run_threaded`)."""
        from .drivers import run_threaded

        return run_threaded(self, events, close)

    async def arun(self, events: AsyncIterable[Any] | Iterable[Any], close: Callable[[], Any] | None = None) -> TurnResult:
        """Async twin of :meth:`run` (:func:`argstream.policy.drivers.arun`)."""
        from .drivers import arun

        return await arun(self, events, close)


@dataclass(frozen=True)
class _Edited:
    arguments: Any


def _agrees(basis: Mapping[str, Any], arguments: Mapping[str, Any]) -> bool:
    """Every value a decision rested on (or a prompt showed) is what the complete arguments hold."""
    return all(key in arguments and json_equal(arguments[key], value) for key, value in basis.items())
