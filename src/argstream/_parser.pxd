# cython: language_level=3
"""The compiled ``IncrementalArgParser``'s layout, for compiled consumers in this package (not a public C API)."""

cimport cython

from argstream._fragment_builder cimport FragmentBuilder


@cython.final
cdef class IncrementalArgParser:
    cdef object _tok
    cdef bint _lenient  # lenient=True
    cdef list _history  # the chunks so far, while the compiled core reads a valid prefix
    cdef Py_ssize_t _history_size  # their characters (or bytes): at most HISTORY_LIMIT
    cdef object _twin  # the pure twin's lenient parser, once a repair was needed
    cdef bint _seen  # lenient: the root value's first character arrived
    cdef dict _options
    cdef FragmentBuilder _builder
    cdef bint _failed  # a push raised: check the tokenizer's sticky error before the next one
    cdef object taken  # the exception push_noraise took (None when it succeeded)
    cdef int _busy  # 0 idle, 1 in a call, 2 broken by concurrent use (see _guard.pxd)
    cdef list push_noraise(self, object chunk)
    cdef list _finish(self)
    cdef int _setup(self, object max_depth, bint flat, str surrogates, bint catch_duplicate_keys, bint spans,
                    bint lenient) except -1
    cdef int _ready(self) except -1
    cdef object _replay(self, bint last)
