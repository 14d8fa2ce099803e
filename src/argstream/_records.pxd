# cython: language_level=3
"""Instances of frozen, slotted dataclasses made without their ``__init__``, for modules that make them from C."""


cdef object new_instance(object cls)
cdef int set_slot(object descr, object obj, object value) except -1


cdef class Maker:
    cdef object cls
    cdef tuple slots
    cdef Py_ssize_t n
