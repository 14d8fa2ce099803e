# cython: language_level=3
"""A third-party Cython consumer of argstream's C-level push API (built by tests/test_cython_api.py)."""

from argstream._sink cimport Sink
from argstream._tokenizer cimport tokenizer_end, tokenizer_feed, tokenizer_feed_str, tokenizer_new


cdef class RecordingSink(Sink):
    """Records events as (kind, payload) tuples, and counts string characters in C."""
    cdef public list events
    cdef public Py_ssize_t chars

    def __init__(self):
        self.events = []
        self.chars = 0

    cdef int on_begin_object(self) except -1:
        self.events.append(("begin_object", None))
        return 0

    cdef int on_end_object(self) except -1:
        self.events.append(("end_object", None))
        return 0

    cdef int on_begin_array(self) except -1:
        self.events.append(("begin_array", None))
        return 0

    cdef int on_end_array(self) except -1:
        self.events.append(("end_array", None))
        return 0

    cdef int on_key(self, str key) except -1:
        self.events.append(("key", key))
        return 0

    cdef int on_begin_string(self) except -1:
        self.events.append(("begin_string", None))
        return 0

    cdef int on_string_data(self, str text) except -1:
        self.chars += len(text)
        self.events.append(("string_data", text))
        return 0

    cdef int on_end_string(self) except -1:
        self.events.append(("end_string", None))
        return 0

    cdef int on_scalar(self, object value) except -1:
        self.events.append(("scalar", value))
        return 0


cdef class CountingSink(Sink):
    """Counts string characters without touching Python objects per event."""
    cdef public Py_ssize_t chars

    cdef int on_string_data(self, str text) except -1:
        self.chars += len(text)
        return 0


def run_bytes(list chunks, sink=None):
    """Feed UTF-8 ``bytes`` chunks through ``tokenizer_feed`` (pointer + length)."""
    cdef object tok = tokenizer_new(512, "replace", False)
    cdef Sink s = RecordingSink() if sink is None else sink
    cdef bytes chunk
    for chunk in chunks:
        tokenizer_feed(tok, <const unsigned char*><char*>chunk, len(chunk), s)
    tokenizer_end(tok, s)
    return s


def run_str(list chunks, sink=None):
    """Feed ``str`` chunks through ``tokenizer_feed_str``."""
    cdef object tok = tokenizer_new(512, "replace", False)
    cdef Sink s = RecordingSink() if sink is None else sink
    cdef str chunk
    for chunk in chunks:
        tokenizer_feed_str(tok, chunk, s)
    tokenizer_end(tok, s)
    return s
