# cython: language_level=3, embedsignature=True, boundscheck=False, wraparound=False
"""The text-call scanner's JSON skimmer, compiled (twin of ``_textcalls_py.py``; see its docstring)."""


def skim(str buf, Py_ssize_t i, Py_ssize_t depth, bint in_str, bint esc, Py_ssize_t max_depth):
    cdef Py_ssize_t n = len(buf)
    cdef Py_UCS4 c
    while i < n:
        c = buf[i]
        i += 1
        if in_str:
            if esc:
                esc = False
            elif c == u'\\':
                esc = True
            elif c == u'"':
                in_str = False
                if depth == 0:
                    return i, 0, False, False, True
        elif c == u'"':
            in_str = True
        elif c == u'{' or c == u'[':
            depth += 1
            if depth > max_depth:
                return i, depth, False, False, False
        elif c == u'}' or c == u']':
            depth -= 1
            if depth <= 0:
                return i, 0, False, False, True
    return n, depth, in_str, esc, False


# -- the per-chunk fast paths, and the items they make ------------------------------------------

cimport cython


@cython.final
@cython.freelist(32)
cdef class TextPiece:
    """Text for the reader, with any call markup removed."""
    __match_args__ = ("text",)
    cdef readonly str text

    def __init__(self, str text):
        self.text = text

    def __eq__(self, other):
        if type(other) is TextPiece:
            return self.text == (<TextPiece>other).text
        return NotImplemented

    __hash__ = None  # as the twin's dataclass (and the other items): values, not keys

    def __repr__(self):
        return f"TextPiece(text={self.text!r})"

    def __reduce__(self):
        return TextPiece, (self.text,)


@cython.final
@cython.freelist(32)
cdef class CallArguments:
    """A chunk of the call's arguments as JSON text."""
    __match_args__ = ("call", "text")
    cdef readonly Py_ssize_t call
    cdef readonly str text

    def __init__(self, Py_ssize_t call, str text):
        self.call = call
        self.text = text

    def __eq__(self, other):
        if type(other) is CallArguments:
            return self.call == (<CallArguments>other).call and self.text == (<CallArguments>other).text
        return NotImplemented

    __hash__ = None

    def __repr__(self):
        return f"CallArguments(call={self.call!r}, text={self.text!r})"

    def __reduce__(self):
        return CallArguments, (self.call, self.text)


cdef inline TextPiece _text_piece(str text):
    cdef TextPiece piece = TextPiece.__new__(TextPiece)
    piece.text = text
    return piece


cdef class ScannerCore:
    """The scanner's ``feed``: two fast paths in C, and ``_feed_slow`` (the state machine) for the rest
    (see ``_textcalls_py.ScannerCore``)."""
    cdef public str _tail
    cdef public object _state, _st_text, _st_skim
    cdef public bint _after_call, _at_start, _llama_start, _scalar, _in_str, _esc
    cdef public Py_ssize_t _depth, _call
    cdef public tuple _first
    cdef public list _out

    def __cinit__(self, *args, **kwargs):
        self._tail = ""
        self._first = ()

    cdef list _slow(self, str text):
        cdef list out = []
        self._out = out
        return self._feed_slow(text, out)

    def feed(self, str text):
        """Scan one chunk of text; return the items it completed or extended."""
        cdef Py_ssize_t n = len(text), i, depth
        cdef Py_UCS4 c
        cdef bint in_str, esc
        cdef CallArguments args
        if self._tail or n == 0:
            return self._slow(text)
        state = self._state
        if state is self._st_text and not self._after_call:
            for first in self._first:
                if first in text:
                    return self._slow(text)
            if self._at_start:
                if self._llama_start:
                    return self._slow(text)
                if not text.isspace():
                    self._at_start = False
            return [_text_piece(text)]
        if state is self._st_skim and not self._scalar and self._call >= 0:
            depth = self._depth
            in_str = self._in_str
            esc = self._esc
            for i in range(n):
                c = text[i]
                if in_str:
                    if esc:
                        esc = False
                    elif c == u'\\':
                        esc = True
                    elif c == u'"':
                        in_str = False
                        if depth == 0:
                            return self._slow(text)
                elif c == u'"':
                    in_str = True
                elif c == u'{' or c == u'[':
                    depth += 1
                    if depth > 512:
                        return self._slow(text)
                elif c == u'}' or c == u']':
                    depth -= 1
                    if depth <= 0:
                        return self._slow(text)
            self._depth = depth
            self._in_str = in_str
            self._esc = esc
            args = CallArguments.__new__(CallArguments)
            args.call = self._call
            args.text = text
            return [args]
        return self._slow(text)
