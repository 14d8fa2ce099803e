# cython: language_level=3
"""The compiled fragment types, for the modules that build them (fields set directly after ``__new__``)."""

cimport cython


@cython.final
cdef class Scalar:
    cdef readonly object value


@cython.final
cdef class String:
    cdef readonly str text


@cython.final
cdef class ArrayItem:
    cdef readonly object index
    cdef readonly object value


@cython.final
cdef class ObjectEntry:
    cdef readonly object key
    cdef readonly object value
