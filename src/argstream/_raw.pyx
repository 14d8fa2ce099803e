# cython: language_level=3, embedsignature=True, binding=False
"""Raw SSE in C: the compiled ``EventTemplate`` (twin: ``providers.templates.EventTemplate``), the
``SSELane`` that reads the run of argument-delta events a live stream is made of, and ``RawItems``,
the loop that gives a raw stream's items (``iter_tool_stream`` / ``aiter_tool_stream``).

The lane is an optimisation of ``RawReader`` and nothing more: from a position where the decoder
holds no unfinished line and no event, it reads whole events of the form ``[event: ...\\n]data:
TEXT\\n\\n`` (or with CRLF line ends, ``data: TEXT\\r\\n\\r\\n``, as Gemini sends them) whose
``TEXT`` fits a learned template and that the adapter takes as a delta, feeds each to the pipeline,
and stops at the first event it cannot read so, where the decoder (the pure path, identical by
construction) goes on. It never raises for the input: anything unusual stops it. ``RawItems`` hands
an event of that form that the lane stopped at (a stream's start and end, any other kind of event)
to the reader's ``event``, which decodes it as reading its lines would, and lets the lane read on
after it; from anything else, the reader reads the rest of the chunk.
"""

cimport cython
from cpython.list cimport PyList_GET_ITEM, PyList_GET_SIZE
from cpython.unicode cimport (
    PyUnicode_DATA,
    PyUnicode_DecodeUTF8Stateful,
    PyUnicode_GET_LENGTH,
    PyUnicode_KIND,
    PyUnicode_READ,
    PyUnicode_Substring,
    PyUnicode_WRITE,
)
from libc.string cimport memcmp

cdef extern from "Python.h":
    Py_ssize_t PyUnicode_FindChar(object text, Py_UCS4 ch, Py_ssize_t start, Py_ssize_t end, int direction) except -2

from argstream._calls cimport PipelineBase
from argstream._fastpath cimport FastTest

cdef extern from "Python.h":
    object PyUnicode_New(Py_ssize_t size, Py_UCS4 maxchar)


cdef inline bint same_at(str text, Py_ssize_t pos, Py_ssize_t end, str literal):
    """Whether ``text[pos:end]`` starts with ``literal`` (``str.startswith`` from ``pos``, bounded)."""
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(literal)
    cdef Py_ssize_t i
    cdef int kind = PyUnicode_KIND(text)
    cdef int lkind = PyUnicode_KIND(literal)
    cdef void* data
    cdef void* ldata
    if pos < 0 or end - pos < n:
        return False
    data = PyUnicode_DATA(text)
    ldata = PyUnicode_DATA(literal)
    if kind == lkind:
        return memcmp(<char*>data + pos * kind, ldata, <size_t>(n * kind)) == 0
    for i in range(n):
        if PyUnicode_READ(kind, data, pos + i) != PyUnicode_READ(lkind, ldata, i):
            return False
    return True


cdef inline int hex4(int kind, void* data, Py_ssize_t at) noexcept:
    """The value of the four hex digits at ``at`` (case-insensitive), or -1."""
    cdef int value = 0
    cdef unsigned int c
    cdef Py_ssize_t i
    for i in range(at, at + 4):
        c = PyUnicode_READ(kind, data, i)
        if 48 <= c <= 57:  # 0-9
            value = value * 16 + <int>(c - 48)
        elif 97 <= c <= 102:  # a-f
            value = value * 16 + <int>(c - 87)
        elif 65 <= c <= 70:  # A-F
            value = value * 16 + <int>(c - 55)
        else:
            return -1
    return value


cdef Py_ssize_t escape_at(int kind, void* data, Py_ssize_t i, Py_ssize_t end, Py_UCS4* out) noexcept:
    """The escape whose backslash is at ``i``: its character in ``out`` and the length it takes in
    ``data``, or -1 where ``json``'s strict ``scanstring`` raises. Read as ``scanstring`` reads it: a
    high surrogate escape followed by a low one is the pair's character; one followed by ``\\u``
    and no four hex digits is an error; any other surrogate stays as it is."""
    cdef Py_UCS4 c
    cdef int value, low
    if i + 1 >= end:
        return -1
    c = PyUnicode_READ(kind, data, i + 1)
    if c == u'"' or c == u"\\" or c == u"/":
        out[0] = c
    elif c == u"b":
        out[0] = 8
    elif c == u"f":
        out[0] = 12
    elif c == u"n":
        out[0] = 10
    elif c == u"r":
        out[0] = 13
    elif c == u"t":
        out[0] = 9
    elif c == u"u":
        if i + 6 > end:
            return -1
        value = hex4(kind, data, i + 2)
        if value < 0:
            return -1
        out[0] = value
        if 0xD800 <= value <= 0xDBFF and i + 12 < end and PyUnicode_READ(kind, data, i + 6) == u"\\" \
                and PyUnicode_READ(kind, data, i + 7) == u"u":
            low = hex4(kind, data, i + 8)
            if low < 0:
                return -1
            if 0xDC00 <= low <= 0xDFFF:
                out[0] = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
                return 12
        return 6
    else:
        return -1
    return 2


cdef object json_string(str data, Py_ssize_t pos, Py_ssize_t end, Py_ssize_t* after):
    """The JSON string whose text starts at ``pos`` (after its opening quote) and closes before
    ``end``, decoded as ``json.decoder.scanstring(data, pos)`` decodes it, with ``after`` set past
    its closing quote; ``None`` where that raises or the string runs on to ``end``."""
    cdef int kind = PyUnicode_KIND(data)
    cdef void* src = PyUnicode_DATA(data)
    cdef Py_ssize_t i = pos
    cdef Py_ssize_t size = 0
    cdef Py_ssize_t step, close, j
    cdef Py_UCS4 c, top = 0
    cdef bint escaped = False
    cdef object text
    cdef int okind
    cdef void* dst
    while True:
        if i >= end:
            return None
        c = PyUnicode_READ(kind, src, i)
        if c == u'"':
            break
        if c == u"\\":
            step = escape_at(kind, src, i, end, &c)
            if step < 0:
                return None
            escaped = True
            i += step
        elif c < 0x20:
            return None
        else:
            i += 1
        if c > top:
            top = c
        size += 1
    close = i
    after[0] = close + 1
    if not escaped:
        return PyUnicode_Substring(data, pos, close)
    text = PyUnicode_New(size, top)
    okind = PyUnicode_KIND(text)
    dst = PyUnicode_DATA(text)
    i = pos
    j = 0
    while i < close:
        c = PyUnicode_READ(kind, src, i)
        if c == u"\\":
            i += escape_at(kind, src, i, end, &c)
        else:
            i += 1
        PyUnicode_WRITE(okind, dst, j, c)
        j += 1
    return text

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
    cdef readonly bint message
    cdef object form  # what ``form_of`` (the lane's fast test) reads of ``item`` (``FastTest.form``)
    cdef object form_of

    def __init__(self, item, str head, tuple rest, bint message=False):
        self.item = item
        self.head = head
        self.rest = rest
        self.message = message

    def match(self, str data):
        """The argument text of ``data`` when it fits this template, else ``None``."""
        return self.read(data, 0, len(data))

    cdef object read(self, str data, Py_ssize_t start, Py_ssize_t end):
        """The argument text of ``data[start:end]`` when it fits, else ``None`` (nothing copied)."""
        cdef Py_ssize_t pos
        cdef str after
        cdef object text = None
        cdef int kind
        cdef tuple part
        cdef unsigned int c
        cdef int ukind = PyUnicode_KIND(data)
        cdef void* src = PyUnicode_DATA(data)
        if not same_at(data, start, end, self.head):
            return None
        pos = start + len(self.head)
        for part in self.rest:
            kind = part[0]
            after = <str>part[1]
            if kind == TEXT:  # strict: no control character, no invalid escape; it stops at the first unescaped quote
                text = json_string(data, pos, end, &pos)
                if text is None:
                    return None
            elif kind == INT:
                if pos < end and PyUnicode_READ(ukind, src, pos) == 45:  # -
                    pos += 1
                if pos >= end or not (48 <= PyUnicode_READ(ukind, src, pos) <= 57):
                    return None
                if PyUnicode_READ(ukind, src, pos) == 48:  # a leading 0 is the whole number
                    pos += 1
                else:
                    while pos < end and 48 <= PyUnicode_READ(ukind, src, pos) <= 57:
                        pos += 1
            else:
                while True:
                    if pos >= end:
                        return None
                    c = PyUnicode_READ(ukind, src, pos)
                    pos += 1
                    if c == 34:  # "
                        break
                    if c == 92 or c < 0x20:  # a backslash, a control character
                        return None
            if not same_at(data, pos, end, after):
                return None
            pos += len(after)
        return text if pos == end else None


@cython.final
cdef class SSELane:
    """The compiled run of delta events (see the module doc). ``templates`` is the reader's list
    (learned in Python); ``pipeline`` the stream's, whose fast test (``PipelineBase.fast``, else its
    ``_chunk``) decides on each event and whose ``take_hit`` gives its items."""
    cdef public list templates
    cdef PipelineBase pipeline
    cdef Py_ssize_t max_event
    cdef Py_ssize_t lines  # the lines the last ``run`` read
    cdef list kept  # the items ``run`` had when it raised
    # where ``run`` stopped at a whole one-line event it read the lines of but could not take
    # (``framed``): its data line's value and the end of the event, and its lines
    cdef bint framed
    cdef Py_ssize_t data_start, data_end, after, event_lines

    def __init__(self, list templates, PipelineBase pipeline, Py_ssize_t max_event):
        self.templates = templates
        self.pipeline = pipeline
        self.max_event = max_event

    def feed(self, str text, Py_ssize_t pos, list out):
        """Read the events of ``text`` from ``pos`` (the start of a line, outside any event) while it
        can; return ``(position, lines)``: where it stopped (the start of a line) and the lines read."""
        try:
            out += self.run(text, &pos)
        except BaseException:
            if self.kept is not None:
                out += self.kept
            raise
        return pos, self.lines

    cdef list run(self, str text, Py_ssize_t* at):
        """``feed`` for C callers: the items, from ``at[0]`` to where it stopped, left in ``at[0]``;
        the lines read are in ``lines``. (The list is the first event's own, most chunks' only one.)"""
        cdef Py_ssize_t n = len(text)
        cdef Py_ssize_t pos = at[0]
        cdef Py_ssize_t nl, start, skipped, end, after
        cdef object fit, hit, slot, template, items
        cdef list out = None
        cdef FastTest fast, text_fast
        cdef EventTemplate learned
        cdef int kind = PyUnicode_KIND(text)
        cdef void* src = PyUnicode_DATA(text)
        self.lines = 0
        self.kept = None
        while pos < n:
            self.framed = False
            skipped = 0
            if same_at(text, pos, n, u"event:"):
                nl = text.find(u"\n", pos)
                if nl < 0 or nl - pos > self.max_event:
                    break
                skipped = nl + 1 - pos
            start = pos + skipped
            if not same_at(text, start, n, u"data: "):
                break
            nl = text.find(u"\n", start)
            if nl < 0 or nl - start > self.max_event:
                break  # (a line longer than max_event: the pure path raises)
            # CRLF line ends (Gemini's SSE): the blank line's too; 13 is CR, 10 LF
            if nl > start and PyUnicode_READ(kind, src, nl - 1) == 13:
                if nl + 2 >= n or PyUnicode_READ(kind, src, nl + 1) != 13 or PyUnicode_READ(kind, src, nl + 2) != 10:
                    break
                end, after = nl - 1, nl + 3
            elif nl + 1 >= n or PyUnicode_READ(kind, src, nl + 1) != 10:
                break
            else:
                end, after = nl, nl + 2
            if PyUnicode_FindChar(text, 13, pos, end, 1) != -1:
                break  # a CR inside the event's lines ends a line too (SSE): the pure path splits them
            self.framed = True
            self.data_start, self.data_end, self.after = start + 6, end, after
            self.event_lines = 3 if skipped else 2
            fit = None
            for template in self.templates:  # (no template reads a CR or an LF: a stray one is no fit)
                fit = (<EventTemplate>template).read(text, start + 6, end)
                if fit is not None:
                    break
            if fit is None:
                break
            fast = self.pipeline.fast
            if (<EventTemplate>template).message:  # a message text delta
                if self.pipeline.text_fast is not None:
                    text_fast = self.pipeline.text_fast
                    slot = text_fast.text_slot((<EventTemplate>template).item, fit)
                    if slot is None:
                        break
                    items = self.pipeline.take_text_slot(slot, text_fast.found, text_fast.found_kind)
                elif self.pipeline.text_method is not None:  # a subclass's own ``text_chunk``
                    hit = self.pipeline.text_method((<EventTemplate>template).item, text=fit)
                    if hit is None:
                        break
                    if type(hit) is not tuple:
                        raise TypeError(f"text_chunk() returned {type(hit).__name__}, not a tuple")
                    items = self.pipeline.take_text_slot((<tuple>hit)[0], (<tuple>hit)[1], (<tuple>hit)[2])
                else:
                    break
            elif fast is not None:
                learned = <EventTemplate>template
                if learned.form_of is not fast:  # read once per template what the event is for
                    learned.form = fast.form(learned.item)
                    learned.form_of = fast
                if learned.form is not None:
                    slot = fast.hit_form(learned.form, fit)
                else:
                    slot = fast.hit_text(learned.item, fit)
                if slot is None:
                    break
                items = self.pipeline.take_slot(slot, fast.found)
            elif self.pipeline.chunk_method is not None:  # a subclass's own ``chunk``
                hit = self.pipeline.chunk_method((<EventTemplate>template).item, text=fit)
                if hit is None:
                    break
                if type(hit) is not tuple:
                    raise TypeError(f"chunk() returned {type(hit).__name__}, not a tuple")
                items = self.pipeline.take_hit(<tuple>hit)
            else:
                break
            if out is None and type(items) is list:
                out = self.kept = <list>items
            elif out is None:
                out = self.kept = list(items)
            else:
                out += items
            self.lines += 3 if skipped else 2
            pos = after
            at[0] = pos
        self.kept = None
        return [] if out is None else out


cdef object _END = object()


@cython.final
cdef class RawItems:
    """The stream items of raw SSE / NDJSON chunks through a ``RawReader``, one ``__next__`` at a time
    (the raw loop of ``iter_tool_stream``, in C; ``step`` is ``aiter_tool_stream``'s): a chunk
    that starts where the reader holds nothing (no unfinished line or event, no partial character, no
    pending CR) goes to its compiled lane first;
    the rest of it, and every other chunk, to ``reader.feed``. Iteration stops when the chunks end,
    an exception is kept in ``reader.error``, or the stream is over; ``close()`` ends the input.
    The lines the lane reads are added to the reader's count before it reads anything itself."""
    cdef object reader
    cdef object chunks
    cdef object pending
    cdef list out
    cdef Py_ssize_t at
    cdef SSELane lane  # the reader's lane while it may read the next chunk, else None
    cdef Py_ssize_t lines  # lines the lane read that the reader has not counted yet
    cdef readonly bint stopped

    def __cinit__(self, reader, first, chunks):
        self.reader = reader
        self.pending = first
        self.chunks = chunks
        self.out = []
        self.at = 0
        self.lane = None
        self.lines = 0
        self.stopped = False

    def __iter__(self):
        return self

    def __next__(self):
        cdef object chunk
        cdef list out = self.out
        while self.at >= PyList_GET_SIZE(out):
            if self.stopped:
                raise StopIteration
            chunk = self.pending
            if chunk is not _END:
                self.pending = _END
            else:
                try:
                    chunk = next(self.chunks, _END)
                except BaseException:
                    self.sync()
                    raise
                if chunk is _END:
                    self.sync()
                    self.stopped = True
                    raise StopIteration
            out = self.out = self.take(chunk)
            self.at = 0
        chunk = <object>PyList_GET_ITEM(out, self.at)
        self.at += 1
        return chunk

    def step(self, chunk):
        """``aiter_tool_stream``'s loop: the stream items of one chunk, or the one item itself when there is
        exactly one and the stream goes on (see the twin)."""
        cdef list out = self.take(chunk)
        if PyList_GET_SIZE(out) == 1 and not self.stopped:
            return <object>PyList_GET_ITEM(out, 0)
        return out

    cdef list take(self, chunk):
        """The stream items of one chunk (``RawReader.feed``); sets ``stopped`` when the reader is over.
        An event the lane reads the lines of but cannot take (a stream's start and end, another kind of
        event) goes to ``reader.event`` (decoded there), and the lane reads on after it; anything else,
        from where the lane stopped, to ``reader.feed``."""
        cdef list out = None
        cdef list more
        cdef str text = None
        cdef Py_ssize_t pos, n
        cdef SSELane lane = self.lane
        if lane is not None:
            if type(chunk) is str:
                text = <str>chunk
            elif type(chunk) is bytes:
                text = utf8_whole(<bytes>chunk)
            if text is not None:
                pos = 0
                n = len(text)
                while True:
                    try:
                        more = lane.run(text, &pos)
                    except Exception as exc:  # kept, as ``RawReader.feed`` keeps it, after the items before it
                        self.reader.error = exc
                        self.stopped = True
                        more = [] if lane.kept is None else lane.kept
                        return more if out is None else out + more
                    self.lines += lane.lines
                    if out is None:
                        out = more
                    elif PyList_GET_SIZE(more):
                        out += more
                    if pos == n:
                        if lane.pipeline.over:
                            self.stopped = True
                        return out
                    if not lane.framed or lane.pipeline.over:
                        break
                    self.sync()
                    out += self.reader.event(PyUnicode_Substring(text, lane.data_start, lane.data_end),
                                             lane.event_lines)
                    pos = lane.after
                    if self.reader.error is not None or lane.pipeline.over:
                        self.stopped = True
                        return out
                    if pos == n:
                        return out
                self.sync()
                out += self.reader.feed(text[pos:])
                self.after_reader()
                return out
        self.sync()
        out = self.reader.feed(chunk)
        self.after_reader()
        return out

    def close(self):
        """The input ended: ``RawReader.close``."""
        self.sync()
        self.stopped = True
        return self.reader.close()

    cdef int sync(self) except -1:
        if self.lines:
            self.reader._line += self.lines
            self.lines = 0
        return 0

    cdef int after_reader(self) except -1:
        reader = self.reader
        self.lane = reader._lane if reader._lane_ready() else None
        if reader.over:
            self.stopped = True
        return 0


cdef str utf8_whole(bytes data):
    """``data`` decoded when it is whole UTF-8 text (no character cut at its end), else ``None``:
    the reader's incremental decoder, which holds nothing here, reads it and reports what is wrong."""
    cdef Py_ssize_t consumed = 0
    cdef Py_ssize_t n = len(data)
    cdef str text
    try:
        text = PyUnicode_DecodeUTF8Stateful(data, n, NULL, &consumed)
    except UnicodeDecodeError:
        return None
    return text if consumed == n else None
