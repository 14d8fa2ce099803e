"""``TurnCoordinator.handle``, the coordinator's per-item step: the pure twin of ``_handle``.

Its hot case is a provider stream's dominant event (an argument delta the adapter's fast test
recognises) for a call whose policy has decided: the delta goes to the call's parser, each
progress item is rendered, and only what ``partial_arguments()`` shows is kept up to date. Every
other item and event takes the coordinator's general methods, which the subclass provides.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..events import ArgumentChunk, Finished, Flush, Part, ToolCall, ToolCallArgumentProgress

class _Marker:
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


END: Any = _Marker("END")
"""``pump``'s and ``apump``'s answer when the stream is exhausted (both bases use these two)."""
PUMPED: Any = _Marker("PUMPED")
"""``pump``'s answer when the item it handled left the driver something to do."""

#: the fields of ``CallBase``: what ``handle`` reads and writes of a call on every delta
CALL_FIELDS = ("name", "mode", "dropped", "chunks", "dropped_chunks", "current_key", "completed_keys")


class CallBase:
    """The base of ``ToolCallState``: the fields ``handle`` touches on every delta (in C, the
    compiled base's own fields, read without a Python attribute lookup)."""

    __slots__ = CALL_FIELDS

    name: str
    mode: Any
    dropped: bool
    chunks: int
    dropped_chunks: int
    current_key: str | None
    completed_keys: list[str]


class CoordinatorBase:
    """The base of ``TurnCoordinator``: its ``handle`` and the fields that method reads.

    ``_pipeline`` is the fused pipeline once ``handle`` has seen a provider stream's item, ``_live``
    the current response's open calls by index, ``render`` the render callback, ``_answers`` the
    answers queued since they were last applied, ``requests`` what the driver is to carry out and
    ``cancel_requested`` whether it is to cancel the stream.
    """

    __slots__ = ("_pipeline", "_live", "render", "_answers", "requests", "cancel_requested")

    _pipeline: Any
    _live: dict[int, Any]
    render: Any
    _answers: list[Any]
    requests: Any
    cancel_requested: bool

    if TYPE_CHECKING:
        def _start(self, first: Any) -> Any: ...
        def _general(self, pipeline: Any, item: Any) -> None: ...
        def _event(self, event: Any) -> None: ...
        def _progress(self, call: Any, progress: Any) -> None: ...
        def handle_item(self, item: Any) -> None: ...
        def apply_answers(self) -> None: ...
        def end_of_stream(self) -> None: ...
        def stream_failed(self) -> None: ...

    def handle(self, event: Any) -> None:
        """Process one provider event (``Part``, ``Flush`` or ``Finished``), or one item of a provider
        stream (an SDK object or a decoded wire dict: the provider is detected from the first one, or
        named by ``provider=``); requests queue on ``requests``."""
        cls = type(event)
        if cls is Part or cls is Flush or cls is Finished:
            self._event(event)
            return
        pipeline = self._pipeline
        if pipeline is None:
            pipeline = self._start(event)
        chunk = pipeline._chunk
        hit = chunk(event) if chunk is not None else None  # the adapter's fast test never raises
        if hit is None:
            text_chunk = pipeline._text_chunk
            hit = text_chunk(event) if text_chunk is not None else None
            if hit is not None:  # a message or reasoning text delta: its one item, without the adapter's events
                for item in pipeline.take_text(hit):
                    self.handle_item(item)
                self.apply_answers()
                return
            self._general(pipeline, event)
            return
        call = self._live.get(hit[0])
        if call is None:
            pipeline.count += 1
            self._event(Part(hit[0], ToolCall(ArgumentChunk(hit[1]))))
            return
        if call.dropped:
            pipeline.count += 1
            call.dropped_chunks += 1
            return
        call.chunks += 1
        render = self.render
        for item in pipeline.take(hit):  # the call's parser, progress items built in C
            if type(item) is ToolCallArgumentProgress:
                if call.dropped:
                    continue
                if render is not None:
                    render(item)
                if call.mode is None or not call.name:
                    self._progress(call, item)
                    continue
                key = item.parameter  # decided: only what partial_arguments() shows is kept up to date
                if key is not None:
                    call.current_key = key
                    completed = item.completed
                    if completed is not None and len(completed.path) == 1 and key not in call.completed_keys:
                        call.completed_keys.append(key)
            else:
                self.handle_item(item)
        if self._answers:
            self.apply_answers()

    def pump(self, iterator: Any, worker: Any = None) -> Any:
        """The synchronous drivers' reading loop: read ``iterator`` and handle its items for as long as
        nothing waits for the driver, which then takes over; returns ``PUMPED`` when the item just
        handled left the driver something to do (answers, requests, a cancellation, the stream's end
        by an error), the item read, unhandled, when something waited before it (answers, requests, a
        cancellation, or ``worker.pending``: prompts out on the driver's worker), or ``END`` once the
        iterator is exhausted. As the drivers' reads always are, the iterator's clean end is reported
        with ``end_of_stream()`` and an ``Exception`` it raises with ``stream_failed()``, then re-raised."""
        while True:
            try:
                item = next(iterator, END)
            except Exception:
                self.stream_failed()
                raise
            if item is END:
                self.end_of_stream()
                return END
            if self._answers or self.requests or self.cancel_requested or (worker is not None and worker.pending):
                return item
            self.handle(item)
            pipeline = self._pipeline
            if self._answers or self.requests or self.cancel_requested or (pipeline is not None and pipeline.over):
                return PUMPED

    async def apump(self, iterator: Any) -> Any:
        """The async driver's reading loop: reads ``iterator`` (an async iterator) and handles its items
        for as long as nothing waits for the driver; returns ``PUMPED`` when the item just handled left
        the driver something to do (answers, requests, a cancellation, the stream over), or ``END`` once
        the iterator is exhausted. Its clean end is reported with ``end_of_stream()`` and an ``Exception``
        it raises with ``stream_failed()``, then re-raised; a ``BaseException`` (a task's cancellation)
        passes through untold."""
        while True:
            try:
                item = await iterator.__anext__()
            except StopAsyncIteration:
                self.end_of_stream()
                return END
            except Exception:
                self.stream_failed()
                raise
            self.handle(item)
            pipeline = self._pipeline
            if self._answers or self.requests or self.cancel_requested or (pipeline is not None and pipeline.over):
                return PUMPED
