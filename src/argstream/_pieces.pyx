# cython: language_level=3, embedsignature=True, binding=False
"""``compact_pieces`` compiled: ``_pieces_py``'s, step for step (see its module doc)."""

from cpython.list cimport PyList_GET_ITEM, PyList_GET_SIZE, PyList_GetSlice, PyList_SetSlice
from cpython.object cimport PyObject
from cpython.unicode cimport PyUnicode_CheckExact, PyUnicode_GET_LENGTH

from argstream import _pieces_py

if (_pieces_py.PIECES_EVERY, _pieces_py.PIECES_RUN, _pieces_py.PIECES_LONG) != (PIECES_EVERY, PIECES_RUN, PIECES_LONG):
    raise ImportError("_pieces.pxd and _pieces_py disagree on the pieces' limits")


cdef int compact_pieces(object pieces) except -1:
    """Join the trailing run of short ``str`` entries of the list ``pieces`` (a subclass's overrides
    not asked) into one, in place, when it holds ``PIECES_RUN`` or more."""
    cdef Py_ssize_t end = PyList_GET_SIZE(pieces)
    cdef Py_ssize_t start = end
    cdef PyObject* piece
    while start:
        piece = PyList_GET_ITEM(pieces, start - 1)
        if not PyUnicode_CheckExact(<object>piece) or PyUnicode_GET_LENGTH(<object>piece) >= PIECES_LONG:
            break
        start -= 1
    if end - start >= PIECES_RUN:
        PyList_SetSlice(pieces, start, end, [u"".join(PyList_GetSlice(pieces, start, end))])
    return 0


def compact(list pieces):
    """``compact_pieces`` for tests: the compiled one on ``pieces``."""
    compact_pieces(pieces)
