# cython: language_level=3, embedsignature=True, binding=False
"""The compiled ``TurnCoordinator.handle``: the twin of ``_handle_py``, which it follows line by line.

A decided call's argument delta is the coordinator's per-item cost on a provider stream; here it
runs without an interpreted frame: the pipeline's fields and the progress items' are read from C.
"""

from argstream._calls cimport PipelineBase, ToolCallArgumentProgress

from argstream.events import ArgumentChunk, Finished, Flush, Part, ToolCall
from argstream.policy._handle_py import END, PUMPED

cdef object END_ = END
cdef object PUMPED_ = PUMPED

#: the fields of ``CallBase`` (see the twin)
CALL_FIELDS = ("name", "mode", "dropped", "chunks", "dropped_chunks", "current_key", "completed_keys")

cdef object PART = Part
cdef object FLUSH = Flush
cdef object FINISHED = Finished
cdef object TOOL_CALL = ToolCall
cdef object ARGUMENT_CHUNK = ArgumentChunk


cdef class CallBase:
    """The base of ``ToolCallState``: the fields ``handle`` touches on every delta (see the twin)."""
    cdef public object name
    cdef public object mode
    cdef public bint dropped
    cdef public Py_ssize_t chunks
    cdef public Py_ssize_t dropped_chunks
    cdef public object current_key
    cdef public list completed_keys


cdef class CoordinatorBase:
    """The base of ``TurnCoordinator``: its ``handle`` and the fields that method reads (see the twin)."""
    cdef public object _pipeline
    cdef public dict _live
    cdef public object render
    cdef public list _answers
    cdef public object requests
    cdef public bint cancel_requested

    def handle(self, event):
        """Process one provider event (``Part``, ``Flush`` or ``Finished``), or one item of a provider
        stream (an SDK object or a decoded wire dict: the provider is detected from the first one, or
        named by ``provider=``); requests queue on ``requests``."""
        self._handle(event)

    cdef int _handle(self, object event) except -1:
        """``handle`` for ``pump``: a cdef method, without the per-call lookup of a Python override
        that a cpdef one makes on a Python subclass (``pump`` looks for an override once instead)."""
        cdef object cls = type(event)
        cdef PipelineBase pipeline
        cdef object chunk, hit, item, render, path, key, completed
        cdef CallBase call
        cdef ToolCallArgumentProgress progress
        if cls is PART or cls is FLUSH or cls is FINISHED:
            self._event(event)
            return 0
        if self._pipeline is None:
            self._start(event)
        pipeline = <PipelineBase?>self._pipeline
        chunk = pipeline._chunk
        hit = chunk(event) if chunk is not None else None  # the adapter's fast test never raises
        if hit is None:
            self._general(pipeline, event)
            return 0
        found = self._live.get(hit[0])
        if found is None:
            pipeline.count += 1
            self._event(PART(hit[0], TOOL_CALL(ARGUMENT_CHUNK(hit[1]))))
            return 0
        call = <CallBase?>found
        if call.dropped:
            pipeline.count += 1
            call.dropped_chunks += 1
            return 0
        call.chunks += 1
        render = self.render
        for item in pipeline.take_hit(<tuple?>hit):  # the call's parser, progress items built in C
            if type(item) is ToolCallArgumentProgress:
                if call.dropped:
                    continue
                if render is not None:
                    render(item)
                if call.mode is None or not call.name:
                    self._progress(call, item)
                    continue
                progress = <ToolCallArgumentProgress>item
                path = progress.path  # decided: only what partial_arguments() shows is kept up to date
                key = path[0] if path else None
                if type(key) is str:
                    call.current_key = key
                    completed = progress.completed
                    if completed is not None and len(completed.path) == 1 and key not in call.completed_keys:
                        call.completed_keys.append(key)
            else:
                self.handle_item(item)
        if self._answers:
            self.apply_answers()
        return 0

    def pump(self, iterator, worker=None):
        """The synchronous drivers' reading loop (see the twin)."""
        cdef object item
        cdef bint own = type(self).handle is BASE_HANDLE  # else a subclass's handle is called, as the twin does
        while True:
            try:
                item = next(iterator, END_)
            except Exception:
                self.stream_failed()
                raise
            if item is END_:
                self.end_of_stream()
                return END_
            if self._answers or self.requests or self.cancel_requested or (worker is not None and worker.pending):
                return item
            if own:
                self._handle(item)
            else:
                self.handle(item)
            if self._answers or self.requests or self.cancel_requested or (
                    self._pipeline is not None and (<PipelineBase?>self._pipeline).over):
                return PUMPED_


cdef object BASE_HANDLE = CoordinatorBase.handle
