# cython: language_level=3
"""The sink of the tokenizer's C API: subclass it in Cython and override the callbacks you need.

Every callback returns 0, or -1 with a Python exception set. An exception from a
callback stops the chunk at that event and breaks the tokenizer: the chunk still
counts as read, and that exception becomes the sticky error every later
``tokenizer_feed``/``tokenizer_end`` raises again, as a parse error would.
"""

cimport cython


cdef class Sink:
    """Receives the tokenizer's events; override the callbacks you need (the defaults do nothing)."""
    cdef int on_begin_object(self) except -1
    cdef int on_end_object(self) except -1
    cdef int on_begin_array(self) except -1
    cdef int on_end_array(self) except -1
    cdef int on_key(self, str key) except -1
    cdef int on_begin_string(self) except -1
    cdef int on_string_data(self, str text) except -1
    cdef int on_end_string(self) except -1
    cdef int on_scalar(self, object value) except -1


@cython.final
cdef class PySink(Sink):
    """Forwards events to a Python object with ``on_*`` methods."""
    cdef object target
