# cython: language_level=3, boundscheck=False, wraparound=False
"""A Cython consumer of argstream's C-level push API (built by ``bench_capi.py``).

Like fastrlock's ``lockbench``: the loop over chunks runs in C and the sink
only counts, so the time is the tokenizer's own, without fragment objects.
"""

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE

from argstream._sink cimport Sink
from argstream._tokenizer cimport tokenizer_end, tokenizer_feed, tokenizer_feed_str, tokenizer_new


cdef class CountingSink(Sink):
    """Counts events other than string data, string-data pieces, and decoded string characters."""
    cdef public Py_ssize_t events
    cdef public Py_ssize_t pieces
    cdef public Py_ssize_t chars

    cdef int on_begin_object(self) except -1:
        self.events += 1
        return 0

    cdef int on_end_object(self) except -1:
        self.events += 1
        return 0

    cdef int on_begin_array(self) except -1:
        self.events += 1
        return 0

    cdef int on_end_array(self) except -1:
        self.events += 1
        return 0

    cdef int on_key(self, str key) except -1:
        self.events += 1
        return 0

    cdef int on_begin_string(self) except -1:
        self.events += 1
        return 0

    cdef int on_string_data(self, str text) except -1:
        self.pieces += 1
        self.chars += len(text)
        return 0

    cdef int on_end_string(self) except -1:
        self.events += 1
        return 0

    cdef int on_scalar(self, object value) except -1:
        self.events += 1
        return 0


def stream_str(list chunks):
    """Feed every ``str`` chunk, then end; return ``(events, chars)``."""
    cdef object tok = tokenizer_new(512, "replace", False)
    cdef CountingSink sink = CountingSink()
    cdef str chunk
    for chunk in chunks:
        tokenizer_feed_str(tok, chunk, sink)
    tokenizer_end(tok, sink)
    return sink.events, sink.chars


def stream_bytes(list chunks):
    """Feed every ``bytes`` chunk (UTF-8), then end; return ``(events, chars)``."""
    cdef object tok = tokenizer_new(512, "replace", False)
    cdef CountingSink sink = CountingSink()
    cdef bytes chunk
    for chunk in chunks:
        tokenizer_feed(tok, <const unsigned char*>PyBytes_AS_STRING(chunk), PyBytes_GET_SIZE(chunk), sink)
    tokenizer_end(tok, sink)
    return sink.events, sink.chars
