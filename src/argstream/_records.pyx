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
from cpython.tuple cimport PyTuple_GET_ITEM, PyTuple_GET_SIZE

from argstream._records_py import checked_fields

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
