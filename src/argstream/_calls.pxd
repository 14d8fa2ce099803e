# cython: language_level=3
"""The compiled progress item and the fused pipeline's base, for Cython code above the pipeline
(the coordinator's per-delta step) to read their fields without a Python attribute lookup."""

cimport cython


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
    cdef public object _chunk
    cdef public object _run
    cdef public object _feed
    cdef public object _argument
    cdef public dict _calls
    cdef public object _report
    cdef public Py_ssize_t count
    cdef public bint over

    cdef object feed_item(self, object item)
    cdef object take_hit(self, tuple hit)
