# cython: language_level=3, embedsignature=True, binding=False
"""The compiled ``FragmentAggregator``: ``_aggregate_py``'s, which this follows line by line.

The same fragments in (either backend's types, nested or flat), the same values, ``Completed`` and
errors out. Each ``Completed`` is the twin's dataclass, its fields set without its ``__init__``
(``_records``); for a
flat fragment whose path names exactly the open values, that path is the ``Completed``'s own.
"""

cimport cython
from cpython.list cimport PyList_GET_ITEM, PyList_GET_SIZE
from cpython.tuple cimport PyTuple_GET_ITEM, PyTuple_GET_SIZE

from argstream._fragments cimport ArrayItem, ObjectEntry, Scalar, String
from argstream._pieces cimport PIECES_EVERY, compact_pieces
from argstream._records cimport new_instance, set_slot

from argstream import _fragments_py
from argstream._aggregate_py import _NO_VALUE, Completed as _Completed, _checked_state, _pair, _restore

cdef object COMPLETED = _Completed
cdef object PAIR = _pair
cdef object CHECKED_STATE = _checked_state
cdef object RESTORE = _restore
cdef object PY_STRING = _fragments_py.String
cdef object PY_SCALAR = _fragments_py.Scalar
cdef object PY_ENTRY = _fragments_py.ObjectEntry
cdef object PY_ITEM = _fragments_py.ArrayItem
cdef object DONE_TYPE = _fragments_py.Done
cdef object EMPTY_TYPE = _fragments_py.Empty
cdef str PATH = u"path"
cdef str VALUE = u"value"
cdef tuple ROOT = ()
cdef object NO_VALUE = _NO_VALUE  # the twin's marker, which copies and pickles keep

cdef enum:
    UNKNOWN = 0
    OBJECT = 1
    ARRAY = 2
    STRING = 3
    SCALAR = 4


if _Completed.__new__ is not object.__new__:  # what new_instance relies on
    raise ImportError("Completed must be made by object.__new__")
cdef object PATH_SLOT = _Completed.__dict__[PATH]
cdef object VALUE_SLOT = _Completed.__dict__[VALUE]


cdef inline object new_completed(object path, object value):
    """``Completed(path, value)``: the frozen dataclass's two slots set as its ``__init__`` sets them."""
    cdef object done = new_instance(COMPLETED)
    set_slot(PATH_SLOT, done, path)
    set_slot(VALUE_SLOT, done, value)
    return done


@cython.final
@cython.freelist(16)
cdef class _Frame:
    cdef object step  # key or index in the parent; None for the root
    cdef int kind
    cdef object value  # dict, list or scalar
    cdef list pieces  # string data so far (a list once the frame is a string)
    cdef bint placed  # the value (or a string so far) sits in the parent


cdef inline _Frame new_frame(object step):
    cdef _Frame frame = _Frame.__new__(_Frame)
    frame.step = step
    frame.kind = UNKNOWN
    frame.value = NO_VALUE
    frame.pieces = None
    frame.placed = False
    return frame


cdef class FragmentAggregator:
    """Collects fragments (nested, or ``(path, leaf)`` pairs) into values.

    ``push`` returns a :class:`Completed` for every value that a ``Done``
    closes, at any depth, and ``None`` otherwise. Fragments that do not follow
    the protocol (an entry after its value ended, ``Done`` with no value) raise
    ``ValueError``; this never happens with fragments from one parser.
    """

    def __cinit__(self, *args, **kwargs):
        # here, not in __init__: an instance made by __new__ alone is a valid empty aggregator (the C
        # code reads _frames without checking it)
        self._frames = [new_frame(None)]
        self._root = NO_VALUE

    def __reduce__(self):
        """Copies and pickles, as the twin's: the open values' frames as plain tuples."""
        cdef _Frame f
        frames = tuple([(f.step, f.kind, f.value, f.pieces if f.pieces is not None else [], f.placed)
                        for f in self._frames])
        return RESTORE, (type(self), frames, self._root)

    def _set_state(self, frames, root):
        """``_aggregate_py._restore``'s second half: ``frames`` checked (as the twin checks them), then taken."""
        cdef list made = []
        cdef _Frame frame
        for step, kind, value, pieces, placed in CHECKED_STATE(frames, root):
            frame = new_frame(step)
            frame.kind = kind
            frame.value = value
            frame.pieces = pieces
            frame.placed = placed
            made.append(frame)
        self._frames = made
        self._root = root

    @property
    def done(self):
        """The root value is complete."""
        return self._root is not NO_VALUE

    @property
    def value(self):
        """The complete root value. Raises ``LookupError`` before the root's ``Done``."""
        if self._root is NO_VALUE:
            raise LookupError("the root value is not complete yet")
        return self._root

    def extend(self, fragments):
        """Push several fragments; return the values they completed, in order."""
        out = []
        for fragment in fragments:
            done = self.push(fragment)
            if done is not None:
                out.append(done)
        return out

    cpdef object push(self, object fragment):
        """Add one fragment; return the value it completed, if any."""
        cdef Py_ssize_t level = 0
        cdef object path = None, leaf, cls, kind
        cdef _Frame frame
        if self._root is not NO_VALUE:
            raise ValueError("the root value is already complete")
        if type(fragment) is tuple:
            if PyTuple_GET_SIZE(fragment) == 2:
                path = <object>PyTuple_GET_ITEM(fragment, 0)
                leaf = <object>PyTuple_GET_ITEM(fragment, 1)
            else:
                path, leaf = PAIR(fragment)  # raises the interpreter's own unpacking error
            for step in path:
                self._enter(level, step)
                level += 1
        else:
            leaf = fragment
            while True:
                cls = type(leaf)
                if cls is ObjectEntry:
                    self._enter(level, (<ObjectEntry>leaf).key)
                elif cls is PY_ENTRY:
                    self._enter(level, leaf.key)
                elif cls is ArrayItem:
                    self._enter(level, (<ArrayItem>leaf).index)
                elif cls is PY_ITEM:
                    self._enter(level, leaf.index)
                else:
                    break
                leaf = leaf.value
                level += 1
        if PyList_GET_SIZE(self._frames) != level + 1:
            raise ValueError(f"fragment {fragment!r} arrives while a deeper value is still open")
        frame = <_Frame>PyList_GET_ITEM(self._frames, level)
        cls = type(leaf)
        if cls is String or cls is PY_STRING:
            if frame.kind == UNKNOWN:
                frame.kind = STRING
                frame.pieces = []
            elif frame.kind != STRING:
                raise ValueError(f"string data {leaf!r} inside a non-string value")
            frame.pieces.append((<String>leaf).text if cls is String else leaf.text)
            if not PyList_GET_SIZE(frame.pieces) & (PIECES_EVERY - 1):
                compact_pieces(frame.pieces)
            return None
        if frame.kind != UNKNOWN:
            if cls is DONE_TYPE or isinstance(leaf, DONE_TYPE):
                return self._close(level, path)
            raise ValueError(f"{leaf!r} for a value that already has data")
        if cls is Scalar:
            frame.kind = SCALAR
            frame.value = (<Scalar>leaf).value
        elif cls is PY_SCALAR:
            frame.kind = SCALAR
            frame.value = leaf.value
        elif cls is EMPTY_TYPE:
            kind = leaf.kind
            if kind == "string":
                frame.kind = STRING
                frame.pieces = []
            elif kind == "object":
                self._attach(level, OBJECT, {})
            elif kind == "array":
                self._attach(level, ARRAY, [])
            else:
                raise ValueError(f"unknown Empty kind {kind!r}")
        elif isinstance(leaf, DONE_TYPE):
            raise ValueError("Done for a value that never started")
        else:
            raise TypeError(f"not a fragment: {leaf!r}")
        return None

    cdef int _enter(self, Py_ssize_t level, object step) except -1:
        """Make frame ``level`` a container and make sure its open child is ``step``."""
        cdef list frames = self._frames
        cdef _Frame frame = <_Frame>PyList_GET_ITEM(frames, level)
        if type(step) is str:
            if frame.kind != OBJECT:
                if frame.kind != UNKNOWN:
                    raise ValueError(f"object entry {step!r} inside a non-object value")
                self._attach(level, OBJECT, {})
        elif type(step) is not int:
            raise ValueError(f"a step is a key (str) or an index (int), not {step!r}")
        elif frame.kind != ARRAY:
            if frame.kind != UNKNOWN:
                raise ValueError(f"array item {step!r} inside a non-array value")
            self._attach(level, ARRAY, [])
        if level + 1 < PyList_GET_SIZE(frames):
            child = (<_Frame>PyList_GET_ITEM(frames, level + 1)).step
            if child != step:
                raise ValueError(f"{step!r} starts before the value of {child!r} is done")
        else:
            if type(step) is int and step != len(frame.value):
                raise ValueError(f"array item {step} out of order (expected {len(frame.value)})")
            frames.append(new_frame(step))
        return 0

    cdef int _attach(self, Py_ssize_t level, int kind, object container) except -1:
        cdef _Frame frame = <_Frame>PyList_GET_ITEM(self._frames, level)
        frame.kind = kind
        frame.value = container
        return self._place(level, container)

    cdef int _place(self, Py_ssize_t level, object value) except -1:
        """Put ``value`` at frame ``level``'s slot in its parent (replacing a partial string)."""
        cdef _Frame frame = <_Frame>PyList_GET_ITEM(self._frames, level)
        cdef object parent
        if level:
            parent = (<_Frame>PyList_GET_ITEM(self._frames, level - 1)).value
            if type(parent) is dict:
                (<dict>parent)[frame.step] = value
            elif frame.placed:
                parent[frame.step] = value
            else:
                parent.append(value)
        frame.placed = True
        return 0

    cdef object _close(self, Py_ssize_t level, object path):
        """Close frame ``level``; ``path`` is the flat fragment's path (``None`` for a nested one)."""
        cdef list frames = self._frames
        cdef _Frame frame = <_Frame>PyList_GET_ITEM(frames, level)
        cdef Py_ssize_t i
        cdef object value
        if frame.kind == STRING:
            value = "".join(frame.pieces)
            self._place(level, value)
        elif frame.kind == SCALAR:
            value = frame.value
            self._place(level, value)
        else:
            value = frame.value
        if level == 0:
            frames.pop()
            self._root = value
            return new_completed(ROOT, value)
        if type(path) is not tuple or PyTuple_GET_SIZE(path) != level:
            path = None
        else:
            for i in range(level):  # the very steps the frames hold: then the path is theirs
                if <object>PyTuple_GET_ITEM(path, i) is not (<_Frame>PyList_GET_ITEM(frames, i + 1)).step:
                    path = None
                    break
        if path is None:
            path = tuple([(<_Frame>PyList_GET_ITEM(frames, i + 1)).step for i in range(level)])
        frames.pop()
        return new_completed(path, value)

    def open_pieces(self):
        """The pieces of the string still streaming, or ``None``: a consumer that knows the next
        ``String`` continues that string (same path) may append its text here instead of pushing it.
        Runs of short entries are joined in place as it grows (``_pieces``): it always joins to the
        string so far."""
        cdef _Frame last
        if self._root is not NO_VALUE:
            return None  # the value is complete (and no frame is left)
        last = <_Frame>self._frames[-1]
        return last.pieces if last.kind == STRING else None

    def snapshot(self):
        """The value so far, the string in progress included. Treat it as read-only.

        Returns ``None`` before any data. Cost: the length of the one string
        still streaming (its pieces are joined once and kept joined).
        """
        cdef list frames = self._frames
        cdef _Frame last, root
        cdef Py_ssize_t n
        if self._root is not NO_VALUE:
            return self._root
        n = PyList_GET_SIZE(frames)
        last = <_Frame>PyList_GET_ITEM(frames, n - 1)
        if last.kind == STRING:
            joined = "".join(last.pieces)
            last.pieces[:] = [joined] if joined else []  # in place: open_pieces() handed out this list
            if n == 1:
                return joined
            self._place(n - 1, joined)
        elif last.kind == SCALAR and n > 1:
            self._place(n - 1, last.value)
        root = <_Frame>PyList_GET_ITEM(frames, 0)
        if root.kind == UNKNOWN:
            return None
        return root.value
