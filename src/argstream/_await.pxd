# cython: language_level=3
"""Driving an awaitable from C, as ``await`` and ``async for`` do: for the compiled loops that read an
async stream without an interpreted frame (``policy._handle.APump``)."""

from cpython.object cimport PyObject

cdef extern from *:
    """
    /* The iterator an ``await`` on ``aw`` drives (a coroutine itself, else what ``__await__`` gives). */
    static PyObject* argstream_await_iter(PyObject* aw) {
        PyTypeObject* t = Py_TYPE(aw);
        PyObject* it;
        if (PyCoro_CheckExact(aw)) {
            Py_INCREF(aw);
            return aw;
        }
        if (t->tp_as_async == NULL || t->tp_as_async->am_await == NULL) {
            PyErr_Format(PyExc_TypeError, "object %.100s can't be used in 'await' expression", t->tp_name);
            return NULL;
        }
        it = t->tp_as_async->am_await(aw);
        if (it != NULL && (!PyIter_Check(it) || PyCoro_CheckExact(it))) {
            PyErr_Format(PyExc_TypeError, "__await__() returned a non-iterator of type '%.100s'", Py_TYPE(it)->tp_name);
            Py_DECREF(it);
            return NULL;
        }
        return it;
    }

    /* ``async for``'s read: ``iterator.__anext__()``. */
    static PyObject* argstream_anext(PyObject* iterator) {
        PyTypeObject* t = Py_TYPE(iterator);
        if (t->tp_as_async != NULL && t->tp_as_async->am_anext != NULL) {
            return t->tp_as_async->am_anext(iterator);
        }
        PyErr_Format(PyExc_TypeError, "'async for' requires an iterator with __anext__ method, got %.100s", t->tp_name);
        return NULL;
    }

    /* Raise the exception ``PyIter_Send`` left set (a function ``except -1`` to hand it to ``try``). */
    static int argstream_reraise(void) { return -1; }

    /* Finish an awaitable's iteration with ``value`` as the result of its ``await``. */
    static CYTHON_UNUSED int argstream_return(PyObject* value) {
        PyObject* exc = PyObject_CallOneArg(PyExc_StopIteration, value);
        if (exc != NULL) {
            PyErr_SetObject(PyExc_StopIteration, exc);
            Py_DECREF(exc);
        }
        return -1;
    }
    """
    object argstream_await_iter(object aw)
    object argstream_anext(object iterator)
    int argstream_reraise() except -1
    int argstream_return(object value) except -1
    ctypedef enum PySendResult:
        PYGEN_RETURN
        PYGEN_ERROR
        PYGEN_NEXT
    PySendResult PyIter_Send(object iterator, object arg, PyObject** presult)
