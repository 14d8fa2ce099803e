# cython: language_level=3, embedsignature=True, freethreading_compatible=True
"""The compiled ``Sink`` (C callbacks, see ``_sink.pxd``) and ``PySink``, its bridge to Python objects."""

cimport cython


cdef class Sink:
    cdef int on_begin_object(self) except -1:
        return 0

    cdef int on_end_object(self) except -1:
        return 0

    cdef int on_begin_array(self) except -1:
        return 0

    cdef int on_end_array(self) except -1:
        return 0

    cdef int on_key(self, str key) except -1:
        return 0

    cdef int on_begin_string(self) except -1:
        return 0

    cdef int on_string_data(self, str text) except -1:
        return 0

    cdef int on_end_string(self) except -1:
        return 0

    cdef int on_scalar(self, object value) except -1:
        return 0


@cython.final
cdef class PySink(Sink):
    """Forwards events to a Python object with ``on_*`` methods (for ``Tokenizer.push`` from Python)."""
    def __init__(self, target):
        self.target = target

    cdef int on_begin_object(self) except -1:
        self.target.on_begin_object()
        return 0

    cdef int on_end_object(self) except -1:
        self.target.on_end_object()
        return 0

    cdef int on_begin_array(self) except -1:
        self.target.on_begin_array()
        return 0

    cdef int on_end_array(self) except -1:
        self.target.on_end_array()
        return 0

    cdef int on_key(self, str key) except -1:
        self.target.on_key(key)
        return 0

    cdef int on_begin_string(self) except -1:
        self.target.on_begin_string()
        return 0

    cdef int on_string_data(self, str text) except -1:
        self.target.on_string_data(text)
        return 0

    cdef int on_end_string(self) except -1:
        self.target.on_end_string()
        return 0

    cdef int on_scalar(self, object value) except -1:
        self.target.on_scalar(value)
        return 0
