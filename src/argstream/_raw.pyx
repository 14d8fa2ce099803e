# cython: language_level=3, embedsignature=True, binding=False
"""Raw SSE in C: the compiled ``EventTemplate`` (twin: ``providers.templates.EventTemplate``) and the
``SSELane`` that reads the run of argument-delta events a live stream is made of.

The lane is an optimisation of ``RawReader`` and nothing more: from a position where the decoder
holds no unfinished line and no event, it reads whole events of the form ``[event: ...\\n]data:
TEXT\\n\\n`` whose ``TEXT`` fits a learned template and that the adapter takes as a delta, feeds
each to the pipeline, and stops at the first event it cannot read so, where the decoder (the pure
path, identical by construction) goes on. It never raises for the input: anything unusual stops
it.
"""

cimport cython
from cpython.unicode cimport PyUnicode_Tailmatch

from json.decoder import scanstring as _scanstring

cdef object SCANSTRING = _scanstring

cdef enum:
    TEXT = 0
    STR = 1
    INT = 2


@cython.final
cdef class EventTemplate:
    """One learned event shape: see ``providers.templates.EventTemplate``, which this follows."""
    cdef readonly object item
    cdef readonly str head
    cdef readonly tuple rest

    def __init__(self, item, str head, tuple rest):
        self.item = item
        self.head = head
        self.rest = rest

    def match(self, str data):
        """The argument text of ``data`` when it fits this template, else ``None``."""
        return self.read(data, 0, len(data))

    cdef object read(self, str data, Py_ssize_t start, Py_ssize_t end):
        """The argument text of ``data[start:end]`` when it fits, else ``None`` (nothing copied)."""
        cdef Py_ssize_t pos, n
        cdef str after
        cdef object text = None
        cdef int kind
        cdef tuple part
        cdef Py_UCS4 c
        n = len(self.head)
        if end - start < n or PyUnicode_Tailmatch(data, self.head, start, start + n, -1) != 1:
            return None
        pos = start + n
        for part in self.rest:
            kind = part[0]
            after = <str>part[1]
            if kind == TEXT:
                try:  # strict: no control character, no invalid escape; it stops at the first unescaped quote
                    text, pos = SCANSTRING(data, pos)
                except ValueError:
                    return None
                if pos > end:
                    return None
            elif kind == INT:
                if pos < end and data[pos] == u"-":
                    pos += 1
                if pos >= end or not (u"0" <= data[pos] <= u"9"):
                    return None
                if data[pos] == u"0":
                    pos += 1
                else:
                    while pos < end and u"0" <= data[pos] <= u"9":
                        pos += 1
            else:
                while True:
                    if pos >= end:
                        return None
                    c = data[pos]
                    pos += 1
                    if c == u'"':
                        break
                    if c == u"\\" or c < 0x20:
                        return None
            n = len(after)
            if end - pos < n or (n and PyUnicode_Tailmatch(data, after, pos, pos + n, -1) != 1):
                return None
            pos += n
        return text if pos == end else None


@cython.final
cdef class SSELane:
    """The compiled run of delta events (see the module doc). ``templates`` is the reader's list
    (learned in Python), ``chunk`` the adapter's fast test, ``take`` the pipeline's."""
    cdef public list templates
    cdef object chunk
    cdef object take
    cdef Py_ssize_t max_event

    def __init__(self, list templates, chunk, take, Py_ssize_t max_event):
        self.templates = templates
        self.chunk = chunk
        self.take = take
        self.max_event = max_event

    def feed(self, str text, Py_ssize_t pos, list out):
        """Read the events of ``text`` from ``pos`` (the start of a line, outside any event) while it
        can; return ``(position, lines)``: where it stopped (the start of a line) and the lines read."""
        cdef Py_ssize_t n = len(text)
        cdef Py_ssize_t lines = 0
        cdef Py_ssize_t nl, start, skipped
        cdef object fit, hit, template
        while pos < n:
            skipped = 0
            if PyUnicode_Tailmatch(text, u"event:", pos, pos + 6, -1) == 1:
                nl = text.find(u"\n", pos)
                if nl < 0 or nl - pos > self.max_event:
                    break
                skipped = nl + 1 - pos
            start = pos + skipped
            if PyUnicode_Tailmatch(text, u"data: ", start, start + 6, -1) != 1:
                break
            nl = text.find(u"\n", start)
            if nl < 0 or nl + 1 >= n or text[nl + 1] != u"\n" or nl - start > self.max_event:
                break  # (a line longer than max_event: the pure path raises)
            fit = None
            for template in self.templates:
                fit = (<EventTemplate>template).read(text, start + 6, nl)
                if fit is not None:
                    break
            if fit is None:
                break
            hit = self.chunk((<EventTemplate>template).item, text=fit)
            if hit is None:
                break
            out += self.take(hit)
            lines += 3 if skipped else 2
            pos = nl + 2
        return pos, lines
