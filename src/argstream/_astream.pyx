# cython: language_level=3, embedsignature=True, binding=False
"""The compiled ``aiter_tool_stream`` object: the twin of ``_astream_py``, which it follows step by step.

``aiter_tool_stream``'s body is an async generator (the opener). It reads the stream's first item,
sets the stream up, and, where the stream goes on through one per-item ``step``, yields a
:class:`Handover` instead of looping itself. From then on :class:`AsyncItems` reads the stream and
calls ``step`` from C: an argument delta crosses one awaitable, not an async generator frame of
its own on top of the source's. When the stream ends, the opener is resumed where it handed over
(it then ends the stream as its own loop would); an exception the stream or ``step`` raised is
thrown into it there, so its handlers run as they did around its loop.
"""

from cpython.list cimport PyList_GET_ITEM, PyList_GET_SIZE
from cpython.object cimport PyObject, PyTypeObject
from cpython.ref cimport Py_DECREF, Py_XDECREF

from argstream._await cimport (
    PYGEN_ERROR,
    PYGEN_NEXT,
    PyIter_Send,
    PySendResult,
    argstream_await_iter,
    argstream_reraise,
)

cdef extern from "Python.h":
    PyObject* PyObject_CallOneArg(object callable, object arg)  # NULL on error: no try block per item
    PyObject* PyIter_Next(object iterator)  # NULL at the end (no error set) or on error
    PyObject* PyErr_Occurred()

cdef extern from *:
    """
    /* One read of an async iterator: ``await iterator.__anext__()``'s iterator (NULL on error). */
    static PyObject* argstream_read(PyObject* iterator) {
        PyObject* it;
        PyObject* aw = argstream_anext(iterator);
        if (aw == NULL) {
            return NULL;
        }
        it = argstream_await_iter(aw);
        Py_DECREF(aw);
        return it;
    }

    /* ``AsyncItems``'s ``__next__`` (its ``tp_iternext``): ``step`` runs, and an item it returns as the
    result of the ``await`` is raised in ``StopIteration`` here, in C. Raised from Cython code, each
    item would also get a traceback entry built for it: more than the rest of the step costs. */
    typedef PyObject* (*argstream_step_t)(PyObject* self, int* ready);
    static argstream_step_t argstream_astream_step = NULL;

    static PyObject* argstream_astream_next(PyObject* self) {
        int ready = 0;
        PyObject* exc;
        PyObject* got = argstream_astream_step(self, &ready);
        if (got == NULL || !ready) {
            return got;
        }
        exc = PyObject_CallOneArg(PyExc_StopIteration, got);
        Py_DECREF(got);
        if (exc != NULL) {
            PyErr_SetObject(PyExc_StopIteration, exc);
            Py_DECREF(exc);
        }
        return NULL;
    }

    /* Make ``step`` the ``__next__`` of the type (its ``tp_iternext`` slot, which ``await`` calls). */
    static int argstream_astream_install(PyObject* type, argstream_step_t step) {
        argstream_astream_step = step;
        ((PyTypeObject*)type)->tp_iternext = argstream_astream_next;
        PyType_Modified((PyTypeObject*)type);
        return 0;
    }
    """
    ctypedef object (*argstream_step_t)(object self, int* ready)
    PyObject* argstream_read(object iterator)
    int argstream_astream_install(object type, argstream_step_t step) except -1


cdef object END = object()


cdef object raised():
    """The exception a C call left set (taken, for the opener's handlers)."""
    try:
        argstream_reraise()
    except BaseException as e:
        return e


cdef class Handover:
    """What the opener yields to hand its loop over: each item of ``source`` (async when
    ``is_async``) goes to ``step``, which returns the stream items of it, or the one item itself
    when there is exactly one and the stream goes on; after a list, ``getattr(owner, flag)`` says
    whether the stream is over."""
    cdef readonly object step
    cdef readonly object owner
    cdef readonly str flag
    cdef readonly object source
    cdef readonly bint is_async

    def __init__(self, step, owner, str flag, source, bint is_async):
        self.step = step
        self.owner = owner
        self.flag = flag
        self.source = source
        self.is_async = is_async


cdef class AsyncItems:
    """The async iterator ``aiter_tool_stream`` returns; each ``__anext__()`` is this object itself,
    awaited: it drives the awaitable in progress as ``await`` drives it (what that yields goes up to
    the event loop, what is sent or thrown back goes down to it). Its ``tp_iternext`` is
    ``step_next`` (installed below, see ``argstream_astream_next``)."""
    cdef object opener  # the async generator of aiter_tool_stream's body
    cdef Handover handover  # while this object reads the stream, else None
    cdef object inner  # the awaitable in progress (a read of the stream or a step of the opener), or None
    cdef bint reading  # ``inner`` is a read of the stream
    cdef object thrown  # an exception to throw into the opener at its next step, or None
    cdef list out  # the items of the last step not delivered yet, from ``at``
    cdef Py_ssize_t at
    cdef bint running  # ``step`` runs (code it calls that steps this object again is refused)

    def __cinit__(self, opener):
        self.opener = opener
        self.out = []

    def __aiter__(self):
        return self

    def __anext__(self):
        if self.inner is not None or self.running:
            raise RuntimeError("anext(): asynchronous generator is already running")
        return self

    def __await__(self):
        return self

    def __iter__(self):
        return self

    def __next__(self):
        return self.result(None, None)

    def send(self, value):
        return self.result(value, None)

    def throw(self, typ, val=None, tb=None):
        """An exception thrown into the ``await`` (a task's cancellation): into the awaitable in
        progress, as ``await`` does."""
        if val is not None:
            typ = val.with_traceback(tb) if tb is not None else val
        elif isinstance(typ, type):
            typ = typ()
        if self.inner is None:
            raise typ
        return self.result(None, typ)

    def close(self):
        """The ``await`` is abandoned: the awaitable in progress is closed."""
        cdef object inner = self.inner
        if self.running:
            raise ValueError("aiter_tool_stream: its iterator is already executing")
        self.inner = None
        if inner is not None:
            close = getattr(inner, "close", None)
            if close is not None:
                close()

    def asend(self, value):
        """As an async generator's ``asend``: the value goes to a ``yield`` whose value the body never
        reads, so this is ``__anext__()``."""
        return self.__anext__()

    def athrow(self, typ, val=None, tb=None):
        """As an async generator's ``athrow`` (an awaitable): the exception is raised in the body where
        it stands (at its handover, while this object reads the stream), and items not yet delivered
        are dropped, as the body's own loop would have dropped them."""
        if self.inner is not None or self.running:
            raise RuntimeError("athrow(): asynchronous generator is already running")
        if val is not None:
            typ = val.with_traceback(tb) if tb is not None else val
        elif isinstance(typ, type):
            typ = typ()
        self.handover = None
        self.out = []
        self.at = 0
        self.thrown = typ
        return self

    def aclose(self):
        """Close the stream as closing ``aiter_tool_stream``'s generator does (an awaitable): the
        opener is closed where it is, and nothing more is read or delivered."""
        if self.inner is not None or self.running:
            raise RuntimeError("aclose(): asynchronous generator is already running")
        self.handover = None
        self.thrown = None
        self.out = []
        self.at = 0
        return self.opener.aclose()

    cdef object result(self, object value, object exc):
        """``step`` for Python callers: an item ready is raised in ``StopIteration``."""
        cdef int ready = 0
        cdef object got = self.step(value, exc, &ready)
        if ready:
            raise StopIteration(got)
        return got

    cdef object step(self, object value, object exc, int* ready):
        """``advance``, refused while it runs: the stream's code or ``step`` stepping this object
        again from inside would find its state half changed (as a generator refuses it)."""
        if self.running:
            raise ValueError("aiter_tool_stream: its iterator is already executing")
        self.running = True
        try:
            return self.advance(value, exc, ready)
        finally:
            self.running = False

    cdef int take(self, bint reading) except -1:
        """A C call returned NULL: the exception it set, taken. The stream's (``reading``) goes to the
        opener and ends this object's reading; the opener's own is raised."""
        if not reading:
            argstream_reraise()
        e = raised()
        self.handover = None
        if not isinstance(e, StopAsyncIteration):
            self.thrown = e
        return 0

    cdef object advance(self, object value, object exc, int* ready):
        """Resume the awaitable in progress with ``value`` (or throw ``exc`` into it), then go on
        until an item is ready (returned with ``ready`` set) or an awaitable waits (what it yields is
        returned)."""
        cdef PyObject* result = NULL
        cdef PySendResult sent
        cdef PyObject* raw
        cdef object got, thrower
        cdef Handover h
        while True:
            if self.inner is None:
                if self.at < PyList_GET_SIZE(self.out):
                    got = <object>PyList_GET_ITEM(self.out, self.at)
                    self.at += 1
                    ready[0] = 1
                    return got
                h = self.handover
                if h is not None:
                    if not h.is_async:
                        raw = PyIter_Next(h.source)
                        if raw == NULL:
                            if PyErr_Occurred() != NULL:
                                self.take(True)
                            else:
                                self.handover = None
                            continue
                        got = <object>raw
                        Py_DECREF(got)
                        got = self.deliver(h, got)
                        if got is not END:
                            ready[0] = 1
                            return got
                        continue
                    raw = argstream_read(h.source)
                    if raw == NULL:
                        self.take(True)
                        continue
                    self.inner = <object>raw
                    Py_DECREF(self.inner)
                    self.reading = True
                else:
                    got = self.thrown
                    if got is not None:
                        self.thrown = None
                        self.inner = argstream_await_iter(self.opener.athrow(got))
                    else:
                        raw = argstream_read(self.opener)
                        if raw == NULL:
                            argstream_reraise()
                        self.inner = <object>raw
                        Py_DECREF(self.inner)
                    self.reading = False
            if exc is not None:
                got = exc
                exc = None
                try:
                    thrower = getattr(self.inner, "throw", None)
                    if thrower is None:
                        raise got  # (an awaitable that cannot take it raises it where it is awaited)
                    return thrower(got)  # the awaitable waits again: up to the event loop
                except StopIteration as stop:
                    got = stop.value
                    self.inner = None
                except BaseException as e:
                    self.inner = None
                    if not self.reading:
                        raise
                    self.handover = None
                    if not isinstance(e, StopAsyncIteration):
                        self.thrown = e
                    continue
            else:
                sent = PyIter_Send(self.inner, value, &result)
                value = None
                if sent == PYGEN_NEXT:
                    got = <object>result
                    Py_XDECREF(result)
                    return got
                self.inner = None
                if sent == PYGEN_ERROR:
                    self.take(self.reading)  # (raises the opener's: StopAsyncIteration at its end)
                    continue
                got = <object>result
                Py_XDECREF(result)
            if self.reading:
                got = self.deliver(self.handover, got)
                if got is not END:
                    ready[0] = 1
                    return got
            elif type(got) is Handover:
                self.handover = <Handover>got
            else:
                ready[0] = 1
                return got

    cdef object deliver(self, Handover h, object item):
        """``step`` on one item of the stream: the one item to return, or ``END`` (the items are in
        ``out``, or there are none); an exception ``step`` raises goes to the opener."""
        cdef PyObject* raw = PyObject_CallOneArg(h.step, item)
        cdef object got
        if raw == NULL:
            self.take(True)
            return END
        got = <object>raw
        Py_DECREF(got)
        if type(got) is not list:
            return got
        self.out = <list>got
        self.at = 0
        if getattr(h.owner, h.flag):
            self.handover = None
        return END


cdef object step_next(object self, int* ready):
    """``AsyncItems``'s ``tp_iternext`` (through ``argstream_astream_next``)."""
    return (<AsyncItems>self).step(None, None, ready)


argstream_astream_install(AsyncItems, step_next)
