# cython: language_level=3
"""The compact JSON writer's measure of a string, for Cython code that needs a value's text offsets
without writing the text (``_calls``: a walk's spans)."""


cdef Py_ssize_t escaped_length(str text) noexcept
