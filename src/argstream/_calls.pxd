# cython: language_level=3
"""The compiled progress item and the fused pipeline's base, for Cython code above the pipeline
(the coordinator's per-delta step) to read their fields without a Python attribute lookup."""

cimport cython

from argstream._fastpath cimport FastTest


@cython.final
cdef class ToolCallArgumentProgress:
    cdef readonly object tool_call_id
    cdef readonly object tool_name
    cdef readonly object path
    cdef readonly object leaf
    cdef readonly object completed
    cdef readonly object index
    cdef readonly tuple repairs
    cdef object _fragment
    cdef bint _twin


cdef class PipelineBase:
    cdef object chunk_method  # ``_chunk``: the adapter's fast test, or None
    cdef FastTest fast  # the compiled test behind ``chunk_method`` (``_fastpath.fast_test``), or None
    cdef object text_method  # ``_text_chunk``: the adapter's test for a message text delta, or None
    cdef FastTest text_fast  # the compiled test whose own ``text_method`` is: its ``text_slot`` runs instead, or None
    cdef public object _call_chunk  # the adapter's test for a wire item of tool calls sent whole, or None
    cdef public object state  # the stream state (``stream.ToolStreamState``) whose methods are below
    cdef public object _run
    cdef public object _feed
    cdef public object _argument
    cdef public object _text
    cdef public dict _calls
    cdef public object _report
    cdef public Py_ssize_t count
    cdef public bint over

    cdef object feed_item(self, object item)
    cdef object take_hit(self, tuple hit)
    cdef object take_slot(self, object slot, object text)
    cdef object take_text_slot(self, object slot, object text, int kind)
    cdef int set_text_test(self, object value) except -1
