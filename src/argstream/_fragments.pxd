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


# Constructors for the modules that build fragments: a direct call into this module's
# allocator (and its free list), which another module's ``T.__new__(T)`` cannot reach.
cdef Scalar new_scalar(object value)
cdef String new_string(str text)
cdef ArrayItem new_array_item(object index, object value)
cdef ObjectEntry new_object_entry(object key, object value)
