# cython: language_level=3, embedsignature=True, binding=False, freethreading_compatible=True
"""The compiled ``PieceSkipper``: the hot path of a consumer of flat fragments, below the Python call.

A validator (``argstream.schema``) looks at most string pieces of a long value not at all: once it
knows that nothing checks more of the value at ``path``, every further piece there can be dropped.
The parser hands out one tuple object as the path of every piece of a value, so the test is an
identity check per fragment, done here in C; ``_piece_skip_py`` is the twin.
"""

cimport cython
from cpython.list cimport PyList_GET_ITEM, PyList_GET_SIZE
from cpython.object cimport PyObject
from cpython.tuple cimport PyTuple_GET_ITEM, PyTuple_GET_SIZE

from argstream._fragments cimport String

from argstream._fragments_py import String as _PyString

cdef object PY_STRING = _PyString


cdef class PieceSkipper:
    """Base of a consumer whose ``extend`` can drop the string pieces of the value at ``_skip``.

    ``extend(fragments, spans=None, keys=None)`` returns ``()`` at once when ``_skip`` is not
    ``None``, no key is given, ``fragments`` is a list, and each of its fragments is a flat
    ``(path, String)`` pair whose ``path`` is ``_skip`` itself; otherwise it returns
    ``self._extend(fragments, spans, keys)``.
    """
    cdef public object _skip

    def __cinit__(self):
        self._skip = None

    def extend(self, fragments, spans=None, keys=None):
        """Feed a ``push()`` result (and its spans and keys); return the violations it proves."""
        cdef Py_ssize_t k, n
        cdef PyObject* pair
        cdef PyObject* leaf
        cdef object skip = self._skip
        if skip is not None and not keys and type(fragments) is list:
            n = PyList_GET_SIZE(fragments)
            for k in range(n):
                pair = PyList_GET_ITEM(fragments, k)
                if type(<object>pair) is not tuple or PyTuple_GET_SIZE(<object>pair) != 2:
                    break
                if PyTuple_GET_ITEM(<object>pair, 0) is not <PyObject*>skip:
                    break
                leaf = PyTuple_GET_ITEM(<object>pair, 1)
                if type(<object>leaf) is not String and type(<object>leaf) is not PY_STRING:
                    break
            else:
                return ()
        return self._extend(fragments, spans, keys)
