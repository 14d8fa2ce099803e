# cython: language_level=3
"""The compiled ``FragmentBuilder``'s layout, for the parser that drives it (not a public C API)."""

cimport cython
from libc.stdint cimport uint8_t

from argstream._sink cimport Sink


@cython.final
cdef class FragmentBuilder(Sink):
    cdef public list out
    cdef readonly bint flat
    cdef bint recording           # spans and keys are recorded (a tokenizer was given)
    cdef Py_ssize_t* span_buf     # the last call's spans, (start, end) pairs flat; made a list when read
    cdef Py_ssize_t span_n        # pairs in span_buf
    cdef Py_ssize_t span_cap
    cdef list span_list           # span_buf as the list ``spans`` gave, until the next call
    cdef list key_list            # with spans: (index, path, span) per key read (see IncrementalArgParser); None: none
    cdef object tok            # the Tokenizer, for spans (None: no spans)
    cdef Py_ssize_t piece_start   # where the next String piece's raw input begins
    cdef public bint at_end       # finish(): a number's Done is proved by the end of input
    cdef list path            # the open child's key (None before the first) or index, per level
    cdef uint8_t* kinds
    cdef Py_ssize_t* index    # current item index per array level
    cdef Py_ssize_t depth
    cdef Py_ssize_t cap
    cdef bint string_empty
    cdef object path_tuple
    cdef int setup(self, bint flat, object tokenizer) except -1
    cdef int emit(self, object leaf) except -1
    cdef int _start(self) except -1
    cdef int _open(self, uint8_t kind) except -1
    cdef int _span(self, Py_ssize_t start, Py_ssize_t end) except -1
    cdef int new_call(self) except -1
    cdef bint read_keys(self) noexcept
    cdef int _close_container(self) except -1
