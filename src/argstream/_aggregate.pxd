# cython: language_level=3
"""The compiled ``FragmentAggregator``, for the modules that push into it without a Python call."""


cdef class FragmentAggregator:
    cdef list _frames
    cdef object _root

    cpdef object push(self, object fragment)
    cdef int _enter(self, Py_ssize_t level, object step) except -1
    cdef int _attach(self, Py_ssize_t level, int kind, object container) except -1
    cdef int _place(self, Py_ssize_t level, object value) except -1
    cdef object _close(self, Py_ssize_t level, object path)
