# cython: language_level=3, embedsignature=True, binding=False, freethreading_compatible=True
"""The compiled ``PieceSkipper``: the hot path of a consumer of flat fragments, below the Python call.

A validator (``argstream.schema``) looks at most string pieces of a long value not at all: once it
knows that nothing checks more of the value at ``path``, every further piece there can be dropped.
The parser hands out one tuple object as the path of every piece of a value, so the test is an
identity check per fragment, done here in C; ``_piece_skip_py`` is the twin.

A string whose only checks are its length (``maxLength``, ``minLength``) and its whole text at
the end (``pattern``, ``format``) is skipped the same way: the pieces' lengths are counted in
``_taken`` (the consumer adds them to its own count when it looks again), each piece is kept in
``_keep`` when that is a list, and a piece that would take the count past ``_budget`` (``-1``: no
limit) goes to the consumer, which reports it.
"""

cimport cython
from cpython.list cimport PyList_GET_ITEM, PyList_GET_SIZE
from cpython.object cimport PyObject
from cpython.tuple cimport PyTuple_GET_ITEM, PyTuple_GET_SIZE

from argstream._fragments cimport String
from argstream._pieces cimport PIECES_EVERY, compact_pieces

from argstream._fragments_py import String as _PyString

cdef object PY_STRING = _PyString


cdef class PieceSkipper:
    """Base of a consumer whose ``extend`` can drop the string pieces of the value at ``_skip``.

    ``extend(fragments, spans=None, keys=None)`` returns ``()`` at once when ``_skip`` is not
    ``None``, no key is given, ``fragments`` is a list, and each of its fragments is a flat
    ``(path, String)`` pair whose ``path`` is ``_skip`` itself (and, with a ``_budget``, whose
    lengths fit it); otherwise it returns ``self._extend(fragments, spans, keys)``.
    ``_budget``, ``_taken`` and ``_keep`` count and keep the skipped pieces (see the module doc).
    Its fields and ``skip`` (the twin's ``skip``) are declared in ``_piece_skip.pxd``, for the per-call
    state in C.
    """

    def __cinit__(self):
        self._skip = None
        self._budget = -1
        self._taken = 0
        self._keep = None

    def extend(self, fragments, spans=None, keys=None):
        """Feed a ``push()`` result (and its spans and keys); return the violations it proves."""
        if self.skip(fragments, keys):
            return ()
        return self._extend(fragments, spans, keys)

    cdef bint skip(self, object fragments, object keys) except -1:
        """``extend``'s test: drop ``fragments`` (counted and kept) when they are all pieces of the skipped
        string within the budget; ``False``, with nothing changed, when ``_extend`` must see them."""
        cdef Py_ssize_t k, n, total = 0
        cdef PyObject* pair
        cdef PyObject* leaf
        cdef object skip = self._skip
        cdef object text
        if skip is None or keys or type(fragments) is not list:
            return False
        n = PyList_GET_SIZE(fragments)
        for k in range(n):
            pair = PyList_GET_ITEM(fragments, k)
            if type(<object>pair) is not tuple or PyTuple_GET_SIZE(<object>pair) != 2:
                return False
            if PyTuple_GET_ITEM(<object>pair, 0) is not <PyObject*>skip:
                return False
            leaf = PyTuple_GET_ITEM(<object>pair, 1)
            if type(<object>leaf) is String:
                total += len((<String>leaf).text)
            elif type(<object>leaf) is PY_STRING:
                total += len((<object>leaf).text)
            else:
                return False
        if self._budget >= 0 and self._taken + total > self._budget:
            return False
        self._taken += total
        if self._keep is not None:
            for k in range(n):
                text = (<object>PyTuple_GET_ITEM(<object>PyList_GET_ITEM(fragments, k), 1)).text
                self._keep.append(text)
                if type(self._keep) is list and not PyList_GET_SIZE(self._keep) & (PIECES_EVERY - 1):
                    compact_pieces(self._keep)
        return True

    cpdef bint _skips(self, object path, object leaf) except -1:
        """One fragment: a piece of the skipped string within the budget (counted and kept), or not."""
        cdef Py_ssize_t size
        if path is not self._skip or (type(leaf) is not String and type(leaf) is not PY_STRING):
            return False
        size = len(leaf.text)
        if self._budget >= 0 and self._taken + size > self._budget:
            return False
        self._taken += size
        if self._keep is not None:
            self._keep.append(leaf.text)
            if type(self._keep) is list and not PyList_GET_SIZE(self._keep) & (PIECES_EVERY - 1):
                compact_pieces(self._keep)
        return True
