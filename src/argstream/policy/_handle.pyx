# cython: language_level=3, embedsignature=True, binding=False
"""The compiled ``TurnCoordinator.handle``: the twin of ``_handle_py``, which it follows line by line.

A decided call's argument delta is the coordinator's per-item cost on a provider stream; here it
runs without an interpreted frame: the pipeline's fields and the progress items' are read from C.
"""

from cpython.object cimport PyObject
from cpython.ref cimport Py_XDECREF

from argstream._await cimport (
    PYGEN_ERROR,
    PYGEN_NEXT,
    PyIter_Send,
    PySendResult,
    argstream_anext,
    argstream_await_iter,
    argstream_reraise,
    argstream_return,
)
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
        cdef object chunk, hit, slot, text, item, render, path, key, completed
        cdef CallBase call
        cdef ToolCallArgumentProgress progress
        if cls is PART or cls is FLUSH or cls is FINISHED:
            self._event(event)
            return 0
        if self._pipeline is None:
            self._start(event)
        pipeline = <PipelineBase?>self._pipeline
        if pipeline.fast is not None:  # the adapter's fast test (it never raises), compiled, without its tuple
            slot = pipeline.fast.hit_slot(event)
            if slot is None:
                if not self._text_hit(pipeline, event):
                    self._general(pipeline, event)
                return 0
            text = pipeline.fast.found
        else:
            chunk = pipeline.chunk_method
            hit = chunk(event) if chunk is not None else None
            if hit is None:
                if not self._text_hit(pipeline, event):
                    self._general(pipeline, event)
                return 0
            slot, text = hit[0], hit[1]  # (read as the twin reads it)
        found = self._live.get(slot)
        if found is None:
            pipeline.count += 1
            self._event(PART(slot, TOOL_CALL(ARGUMENT_CHUNK(text))))
            return 0
        call = <CallBase?>found
        if call.dropped:
            pipeline.count += 1
            call.dropped_chunks += 1
            return 0
        call.chunks += 1
        render = self.render
        for item in pipeline.take_slot(slot, text):  # the call's parser, progress items built in C
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

    cdef bint _text_hit(self, PipelineBase pipeline, object event) except -1:
        """Whether ``event`` is a message or reasoning text delta the adapter's text test takes: then its
        one item is handled, without the adapter's events."""
        cdef object slot, hit, items
        if pipeline.text_fast is not None:
            slot = pipeline.text_fast.text_slot(event, None)
            if slot is None:
                return False
            items = pipeline.take_text_slot(slot, pipeline.text_fast.found, pipeline.text_fast.found_kind)
        elif pipeline.text_method is not None:
            hit = pipeline.text_method(event)
            if hit is None:
                return False
            items = pipeline.take_text_slot((<tuple>hit)[0], (<tuple>hit)[1], (<tuple>hit)[2])
        else:
            return False
        for item in items:
            self.handle_item(item)
        if self._answers:
            self.apply_answers()
        return True

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


    def apump(self, iterator):
        """The async driver's reading loop: ``await``-ed, it reads ``iterator`` (an async iterator)
        and handles its items for as long as nothing waits for the driver (see the twin)."""
        cdef APump pump = APump.__new__(APump)
        pump.co = self
        pump.iterator = iterator
        pump.own = type(self).handle is BASE_HANDLE
        return pump


cdef object BASE_HANDLE = CoordinatorBase.handle


cdef class APump:
    """``CoordinatorBase.apump``'s awaitable. Each read of the stream is the awaitable
    ``iterator.__anext__()`` gives, driven here as ``await`` drives it: what it yields (the future of
    a read that waits) is passed up to the event loop, what is sent or thrown back goes down to it, and
    the item it returns is handled in C before the next read starts, with no interpreted frame."""
    cdef CoordinatorBase co
    cdef object iterator
    cdef object inner  # the read in progress (its awaitable's iterator), or None
    cdef bint own

    def __await__(self):
        return self

    def __iter__(self):
        return self

    def __next__(self):
        return self._step(None, None)

    def send(self, value):
        return self._step(value, None)

    def throw(self, typ, val=None, tb=None):
        """An exception thrown into the ``await`` (a task's cancellation): thrown into the read in
        progress, as ``await`` does; a read that then returns an item has it handled."""
        if val is not None:
            typ = val.with_traceback(tb) if tb is not None else val
        elif isinstance(typ, type):
            typ = typ()
        if self.inner is None or not hasattr(self.inner, "throw"):
            self.inner = None
            raise typ
        return self._step(None, typ)

    def close(self):
        cdef object inner = self.inner
        self.inner = None
        if inner is not None:
            close = getattr(inner, "close", None)
            if close is not None:
                close()

    cdef bint _deliver(self, object item) except -1:
        """Handle ``item``; whether the driver now has something to do."""
        cdef CoordinatorBase co = self.co
        if self.own:
            co._handle(item)
        else:
            co.handle(item)
        return bool(co._answers or co.requests or co.cancel_requested or (
            co._pipeline is not None and (<PipelineBase?>co._pipeline).over))

    cdef object _step(self, object value, object exc):
        """Resume the read in progress with ``value`` (or throw ``exc`` into it), then read and handle
        items until one leaves the driver something to do."""
        cdef PyObject* result = NULL
        cdef PySendResult sent
        cdef object item
        while True:
            try:
                if self.inner is None:  # a new read (``__anext__`` may end the stream or fail at once)
                    self.inner = argstream_await_iter(argstream_anext(self.iterator))
                if exc is not None:
                    try:
                        return self.inner.throw(exc)  # the read waits again: up to the event loop
                    except StopIteration as stop:
                        item = stop.value
                    except BaseException:
                        self.inner = None
                        raise
                    finally:
                        exc = None
                    self.inner = None
                else:
                    sent = PyIter_Send(self.inner, value, &result)
                    value = None
                    if sent == PYGEN_NEXT:  # the read waits: what it yields goes up to the event loop
                        item = <object>result
                        Py_XDECREF(result)
                        return item
                    self.inner = None
                    if sent == PYGEN_ERROR:
                        argstream_reraise()
                    item = <object>result
                    Py_XDECREF(result)
            except StopAsyncIteration:
                self.inner = None
                self.co.end_of_stream()
                argstream_return(END_)
            except Exception:
                self.inner = None
                self.co.stream_failed()
                raise
            if self._deliver(item):
                argstream_return(PUMPED_)
