# cython: language_level=3, embedsignature=True, binding=False, freethreading_compatible=True
"""Instances of the library's frozen, slotted dataclasses made without their ``__init__``.

A frozen dataclass's ``__init__`` sets each field through ``object.__setattr__`` and then runs
``__post_init__``: 0.4-1.2 us for the items and events a stream makes a few of per call (its start,
its end, the finish). ``Maker(cls)(*values)`` makes the same instance in about 0.1 us: ``object``'s
``__new__``, then each field's member descriptor set in field order, which is what
``object.__setattr__`` does once it has found the descriptor. ``__post_init__`` does not run: the
library calls a maker only with values of the types its fields hold. ``_records_py.maker`` is the
twin (the class itself) and the reference.
"""

cimport cython
from cpython.datetime cimport datetime_new, import_datetime
from cpython.tuple cimport PyTuple_GET_ITEM, PyTuple_GET_SIZE

from datetime import timezone
from time import time_ns

from argstream._records_py import checked_fields

import_datetime()

cdef extern from *:
    """
    /* A slot of a __slots__ class set through its member descriptor, as object.__setattr__ does once
       it has found the descriptor (the class's own __setattr__, a frozen dataclass's, is not run). */
    static int argstream_set_slot(PyObject *descr, PyObject *obj, PyObject *value) {
        descrsetfunc set = Py_TYPE(descr)->tp_descr_set;
        if (set == NULL) {
            PyErr_SetString(PyExc_TypeError, "not a settable descriptor");
            return -1;
        }
        return set(descr, obj, value);
    }

    /* A new instance of a class whose __new__ is object's, as object.__new__(cls) makes it. */
    static PyObject *argstream_new_instance(PyObject *cls, PyObject *no_args) {
        PyTypeObject *type = (PyTypeObject *)cls;
        return type->tp_new(type, no_args, NULL);
    }
    """
    int argstream_set_slot(object descr, object obj, object value) except -1
    object argstream_new_instance(object cls, object no_args)

cdef tuple NO_ARGS = ()


cdef object new_instance(object cls):
    """``object.__new__(cls)`` for a class whose ``__new__`` is ``object``'s (``Maker`` checks it)."""
    return argstream_new_instance(cls, NO_ARGS)


cdef int set_slot(object descr, object obj, object value) except -1:
    """Set the slot of ``descr`` (a member descriptor) on ``obj``, as ``object.__setattr__`` would."""
    return argstream_set_slot(descr, obj, value)


@cython.final
cdef class Maker:
    """``Maker(cls)(*values)``: ``cls(*values)`` for a frozen, slotted dataclass, every field given in
    field order, without its ``__init__`` (see the module doc). Raises ``TypeError`` at construction
    for any other class, and for a call with another number of values."""

    def __init__(self, cls):
        self.cls = cls
        self.slots = tuple(checked_fields(cls))
        self.n = len(self.slots)

    def __call__(self, *values):
        cdef Py_ssize_t i
        cdef object obj
        if self.slots is None:  # made by __new__ alone: no class to make
            raise TypeError("Maker has no class: make it with Maker(cls)")
        if PyTuple_GET_SIZE(values) != self.n:
            raise TypeError(f"{self.cls.__name__} takes {self.n} values, got {PyTuple_GET_SIZE(values)}")
        obj = argstream_new_instance(self.cls, NO_ARGS)
        for i in range(self.n):
            argstream_set_slot(<object>PyTuple_GET_ITEM(self.slots, i), obj, <object>PyTuple_GET_ITEM(values, i))
        return obj

    def __repr__(self):
        return f"Maker({self.cls.__qualname__})"


cdef object UTC = timezone.utc
cdef object TIME_NS = time_ns


def utc_now():
    """``datetime.now(timezone.utc)`` (``_records_py.utc_now``), the timestamp of every flushed event:
    the clock read as ``time.time_ns()``, its date worked out here and the instance made by the datetime
    C API, without the two instances and the ``fromutc`` call ``datetime.now(tz)`` makes."""
    return utc_from_microseconds(TIME_NS() // 1000)


@cython.cdivision(True)
cpdef object utc_from_microseconds(long long us):
    """The aware UTC ``datetime`` ``us`` microseconds after 1970-01-01 (years 1 to 9999), its civil date
    from the day count by the usual era arithmetic (400-year cycles of 146,097 days, years from March)."""
    cdef long long secs = us // 1000000 if us >= 0 else -((-us + 999999) // 1000000)
    cdef long long micro = us - secs * 1000000
    cdef long long days = secs // 86400 if secs >= 0 else -((-secs + 86399) // 86400)
    cdef long long rem = secs - days * 86400
    cdef long long z = days + 719468
    cdef long long era = (z if z >= 0 else z - 146096) // 146097
    cdef long long doe = z - era * 146097
    cdef long long yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    cdef long long doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    cdef long long mp = (5 * doy + 2) // 153
    cdef int day = <int>(doy - (153 * mp + 2) // 5 + 1)
    cdef int month = <int>(mp + 3 if mp < 10 else mp - 9)
    cdef long long year = yoe + era * 400 + (1 if month <= 2 else 0)
    return datetime_new(<int>year, month, day, <int>(rem // 3600), <int>(rem % 3600 // 60), <int>(rem % 60),
                        <int>micro, UTC)
