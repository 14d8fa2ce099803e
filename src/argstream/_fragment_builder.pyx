# cython: language_level=3, embedsignature=True, freethreading_compatible=True
"""The compiled ``FragmentBuilder``: a sink that turns the tokenizer's events into fragments.

It reads the tokenizer only through its C API (``_tokenizer.pxd``), for spans.
"""

cimport cython
from cpython.mem cimport PyMem_Free, PyMem_Realloc
from libc.stdint cimport uint8_t

from argstream._fragments cimport Scalar, String, new_array_item, new_object_entry, new_scalar, new_string
from argstream._sink cimport Sink
from argstream._tokenizer cimport CT_ARRAY, CT_OBJECT, tokenizer_data_end, tokenizer_offset, tokenizer_start

from argstream._fragments_py import DONE as _DONE_PY, Empty as _Empty

cdef object DONE = _DONE_PY
cdef object EMPTY_OBJECT = _Empty("object")
cdef object EMPTY_ARRAY = _Empty("array")
cdef object EMPTY_STRING = _Empty("string")

cdef enum:
    SPAN_KEEP = 4096  # spans a call may leave allocated for the next; a larger buffer is freed


@cython.final
cdef class FragmentBuilder(Sink):
    """A sink that turns events into nested fragments (or ``(path, leaf)`` pairs when flat).

    Given the ``tokenizer`` that feeds it, it also records each fragment's
    input span on ``spans`` and each object key it reads on ``keys`` (see
    ``IncrementalArgParser``); without one, both stay ``None`` and nothing is
    recorded. The spans are kept as C integers and made a list of ``(start,
    end)`` tuples only when ``spans`` is read: a consumer that drops a call's
    fragments unseen (``PieceSkipper``) never pays for them.
    """

    def __cinit__(self):
        self.kinds = NULL
        self.index = NULL
        self.span_buf = NULL
        self.out = []  # usable even when __init__ is skipped
        self.path = []
        self.path_tuple = ()

    def __init__(self, bint flat=False, tokenizer=None):
        self.setup(flat, tokenizer)

    cdef int setup(self, bint flat, object tokenizer) except -1:
        """``__init__``, for the parser that makes one per call (no arguments to parse)."""
        self.flat = flat
        if self.out is None or len(self.out):  # (``__cinit__``'s fresh lists, kept unless a use filled them)
            self.out = []
        if self.path is None or len(self.path):
            self.path = []
        self.path_tuple = ()
        self.tok = tokenizer
        self.recording = tokenizer is not None
        self.span_n = 0
        self.span_list = None
        self.key_list = None
        return 0

    def __dealloc__(self):
        PyMem_Free(self.kinds)
        PyMem_Free(self.index)
        PyMem_Free(self.span_buf)

    @property
    def spans(self):
        """``(start, end)`` input offsets parallel to the last call's fragments; ``None`` without a tokenizer."""
        cdef Py_ssize_t k
        if not self.recording:
            return None
        if self.span_list is None:
            self.span_list = [(self.span_buf[2 * k], self.span_buf[2 * k + 1]) for k in range(self.span_n)]
        return self.span_list

    @property
    def keys(self):
        """The keys the last call read, ``(index, path, span)``; ``None`` without a tokenizer."""
        if not self.recording:
            return None
        if self.key_list is None:
            self.key_list = []
        return self.key_list

    cdef int new_call(self) except -1:
        """A push or finish starts: forget the last call's spans and keys (a large span buffer is let go)."""
        self.span_n = 0
        self.span_list = None
        self.key_list = None
        if self.span_cap > SPAN_KEEP:
            PyMem_Free(self.span_buf)
            self.span_buf = NULL
            self.span_cap = 0
        return 0

    cdef bint read_keys(self) noexcept:
        """Whether the last call read an object key (without making ``keys``)."""
        return self.key_list is not None and len(self.key_list) > 0

    cdef int emit(self, object leaf) except -1:
        cdef Py_ssize_t k
        if self.flat:
            if self.path_tuple is None:
                self.path_tuple = tuple(self.path)
            self.out.append((self.path_tuple, leaf))
            return 0
        k = self.depth
        while k > 0:
            k -= 1
            if self.kinds[k] == CT_OBJECT:
                leaf = new_object_entry(self.path[k], leaf)
            else:
                leaf = new_array_item(self.path[k], leaf)
        self.out.append(leaf)
        return 0

    cdef int _start(self) except -1:
        """A value starts: inside an array it is the next item."""
        cdef Py_ssize_t d = self.depth
        if d and self.kinds[d - 1] == CT_ARRAY:
            self.index[d - 1] += 1
            self.path[d - 1] = self.index[d - 1]
            self.path_tuple = None
        return 0

    cdef int _open(self, uint8_t kind) except -1:
        cdef Py_ssize_t cap
        cdef void* p
        self._start()
        if self.depth >= self.cap:
            cap = self.cap * 2 if self.cap else 32
            p = PyMem_Realloc(self.kinds, cap * sizeof(uint8_t))
            if p is NULL:
                raise MemoryError()
            self.kinds = <uint8_t*>p
            p = PyMem_Realloc(self.index, cap * sizeof(Py_ssize_t))
            if p is NULL:
                raise MemoryError()
            self.index = <Py_ssize_t*>p
            self.cap = cap
        self.kinds[self.depth] = kind
        self.index[self.depth] = -1
        self.depth += 1
        self.path.append(None if kind == CT_OBJECT else -1)
        self.path_tuple = None
        return 0

    cdef int _span(self, Py_ssize_t start, Py_ssize_t end) except -1:
        cdef Py_ssize_t cap
        cdef void* p
        if self.span_n >= self.span_cap:
            cap = self.span_cap * 2 if self.span_cap else 64
            p = PyMem_Realloc(self.span_buf, 2 * cap * sizeof(Py_ssize_t))
            if p is NULL:
                raise MemoryError()
            self.span_buf = <Py_ssize_t*>p
            self.span_cap = cap
        self.span_buf[2 * self.span_n] = start
        self.span_buf[2 * self.span_n + 1] = end
        self.span_n += 1
        return 0

    cdef int _close_container(self) except -1:
        cdef bint empty
        cdef Py_ssize_t end
        self.depth -= 1
        if self.kinds[self.depth] == CT_OBJECT:
            empty = self.path[self.depth] is None
        else:
            empty = self.index[self.depth] == -1
        self.path.pop()
        self.path_tuple = None
        if self.recording:
            end = tokenizer_offset(self.tok)
            if empty:
                self._span(end - 1, end)
            self._span(end - 1, end)
        if empty:
            self.emit(EMPTY_OBJECT if self.kinds[self.depth] == CT_OBJECT else EMPTY_ARRAY)
        self.emit(DONE)
        return 0

    cdef int on_begin_object(self) except -1:
        return self._open(CT_OBJECT)

    cdef int on_begin_array(self) except -1:
        return self._open(CT_ARRAY)

    cdef int on_end_object(self) except -1:
        return self._close_container()

    cdef int on_end_array(self) except -1:
        return self._close_container()

    cdef int on_key(self, str key) except -1:
        cdef Py_ssize_t end
        self.path[self.depth - 1] = key
        self.path_tuple = None
        if self.recording:
            end = tokenizer_offset(self.tok)
            self.path_tuple = tuple(self.path)
            if self.key_list is None:
                self.key_list = []
            self.key_list.append((len(self.out), self.path_tuple, (end - 1, end)))
        return 0

    cdef int on_begin_string(self) except -1:
        self._start()
        self.string_empty = True
        if self.recording:
            self.piece_start = tokenizer_start(self.tok) + 1
        return 0

    cdef int on_string_data(self, str text) except -1:
        cdef String s = new_string(text)
        cdef Py_ssize_t end
        self.string_empty = False
        if self.recording:
            end = tokenizer_data_end(self.tok)
            self._span(self.piece_start, end)
            self.piece_start = end
        return self.emit(s)

    cdef int on_end_string(self) except -1:
        cdef Py_ssize_t end
        if self.recording:
            end = tokenizer_offset(self.tok)
            if self.string_empty:
                self._span(end - 1, end)
            self._span(end - 1, end)
        if self.string_empty:
            self.emit(EMPTY_STRING)
        return self.emit(DONE)

    cdef int on_scalar(self, object value) except -1:
        cdef Scalar s = new_scalar(value)
        cdef Py_ssize_t end
        if self.recording:
            end = tokenizer_offset(self.tok)
            self._span(tokenizer_start(self.tok), end)
            if value is None or value is True or value is False:  # a literal: its last letter proves it
                self._span(end - 1, end)
            else:  # a number: its delimiter, or the end of input
                self._span(end, end if self.at_end else end + 1)
        self._start()
        self.emit(s)
        return self.emit(DONE)
