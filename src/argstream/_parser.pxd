# cython: language_level=3
"""The compiled ``IncrementalArgParser``'s layout, for compiled consumers in this package (not a public C API)."""

cimport cython

from argstream._fragment_builder cimport FragmentBuilder


@cython.final
cdef class IncrementalArgParser:
    cdef object _tok
    cdef FragmentBuilder _builder
    cdef bint _failed  # a push raised: check the tokenizer's sticky error before the next one
    cdef object taken  # the exception push_noraise took (None when it succeeded)
    cdef list push_noraise(self, object chunk)
    cdef int _ready(self) except -1
