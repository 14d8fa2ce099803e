# cython: language_level=3
"""The compiled ``PieceSkipper``, for the per-call state (``_calls.ArgumentCall``) to run its test
without a Python call."""


cdef class PieceSkipper:
    cdef public object _skip
    cdef public Py_ssize_t _budget
    cdef public Py_ssize_t _taken
    cdef public object _keep

    cdef bint skip(self, object fragments, object keys) except -1
    cpdef bint _skips(self, object path, object leaf) except -1
