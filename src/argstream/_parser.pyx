# cython: language_level=3, embedsignature=True, binding=False, freethreading_compatible=True
"""The compiled ``IncrementalArgParser``: the tokenizer, through its C API, feeding a ``FragmentBuilder``.

It is the first user of ``_tokenizer.pxd``'s functions.
"""

cimport cython

from argstream._fragment_builder cimport FragmentBuilder
from argstream._guard cimport argstream_guard_enter, argstream_guard_enter_read, argstream_guard_leave, guard_refused
from argstream._sink cimport Sink
from argstream._tokenizer cimport (
    tokenizer_check,
    tokenizer_done,
    tokenizer_end,
    tokenizer_new,
    tokenizer_position,
    tokenizer_push,
)

from argstream.errors import ArgumentStreamError

cdef extern from *:
    """
    /* Take the exception in flight (a new reference; the error indicator is cleared). */
    static PyObject* argstream_take_error(void) {
    #if PY_VERSION_HEX >= 0x030C0000
        return PyErr_GetRaisedException();
    #else
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        PyErr_NormalizeException(&type, &value, &tb);
        if (tb != NULL) PyException_SetTraceback(value, tb);
        Py_XDECREF(type);
        Py_XDECREF(tb);
        return value;
    #endif
    }
    """
    object argstream_take_error()

# ``tokenizer_push`` without Cython's automatic propagation, so ``push`` needs no try/except on its hot
# path (entering one saves and restores the thread's exception state on every call).
ctypedef int (*push_t)(object, object, Sink) noexcept

# The default depths, as in the twin (``_parser_py.MAX_DEPTH`` / ``NESTED_MAX_DEPTH``; a test checks they agree).
MAX_DEPTH = 512
NESTED_MAX_DEPTH = 64
#: lenient: the input the compiled core reads before the first repair is kept for the twin, up to this
#: many characters (or bytes); past it the twin takes over, so a parser's memory stays bounded
HISTORY_LIMIT = 1 << 20


@cython.final
cdef class StrictParsers:
    """A maker of strict parsers (flat fragments, duplicate keys caught), ``max_depth`` deep, with
    ``spans`` or not: what ``EventBuilder`` calls for each tool call. The same parser as
    ``IncrementalArgParser(max_depth=..., flat=True, catch_duplicate_keys=True, spans=...)``, made
    without its keyword arguments parsed each time (``_parser_py.StrictParsers``)."""
    cdef object max_depth
    cdef bint spans

    def __init__(self, max_depth, bint spans=False):
        if type(max_depth) is not int or max_depth < 1:
            raise ValueError("max_depth must be an int of at least 1")
        self.max_depth = max_depth
        self.spans = spans

    def __call__(self):
        cdef IncrementalArgParser parser = IncrementalArgParser.__new__(IncrementalArgParser)
        parser._setup(self.max_depth, True, u"replace", True, self.spans, False)
        return parser

    def __repr__(self):
        return f"StrictParsers({self.max_depth!r}, spans={bool(self.spans)!r})"


cdef object argstream_sticky(IncrementalArgParser parser):
    """The exception a push on a failed (or uninitialised) parser raises, taken instead of raised."""
    try:
        parser._ready()
        tokenizer_check(parser._tok)
    except BaseException as exc:
        return exc
    return None


cdef class IncrementalArgParser:
    """Incremental JSON parser: ``push(chunk)`` returns the fragments that chunk made decodable.

    Raises ``ArgumentStreamError`` (with ``pos``, ``line``, ``col``) at the
    first character that proves the input invalid; ``finish()`` raises
    ``IncompleteJSONError`` when the root value is not complete. Errors are
    sticky. The fragments decoded from a chunk before its error are on the
    exception's ``fragments`` attribute.

    ``catch_duplicate_keys=True`` raises ``DuplicateKeyError`` at the closing
    quote of a key that its object already has (keys compared unescaped);
    off, the last value wins downstream, as with ``json.loads``.

    ``spans=True`` sets ``spans`` after each ``push()``/``finish()`` (also when
    it raises) to a list parallel to the fragments of that call: the
    ``(start, end)`` input offsets, in ``position`` units, of the input the
    fragment's leaf was decoded from, ``end`` exclusive:

    - ``String``: the raw input of its text, escapes included, so for ``str``
      input ``end - start == len(text)`` exactly when the piece held no escape.
      An escape (or UTF-8 sequence) cut by a chunk's end belongs to the piece
      that decodes it, which then starts where it began.
    - ``Scalar``: its literal or number text.
    - ``Empty`` and ``Done``: the character that proves them: the closing
      quote, bracket or brace; a literal's last letter; a number's delimiter,
      or ``(position, position)`` when ``finish()`` ends the number.

    Spans are non-decreasing and within ``[0, position]``. Off, ``spans`` is
    ``None`` and nothing is recorded.

    A parser reads one stream: use it from one thread at a time. A ``push``
    or ``finish`` entered while another call on the same parser is running (a
    second thread, or a callback re-entering it) raises ``ConcurrentUseError``
    and reads nothing; the running call completes normally, and since a chunk
    is then missing, every later call raises ``ConcurrentUseError`` too. So
    misuse never corrupts memory or returns a wrong value, with or without the
    GIL. Reading ``spans`` or ``keys`` during another thread's call raises it
    too, without breaking the parser. Different parsers share nothing mutable.

    ``spans=True`` also sets ``keys``: the object keys that call read, each as
    ``(index, path, span)``: ``index`` is how many of the call's fragments came
    before the key, ``path`` the path of the key's value (the key last) and
    ``span`` the key's closing quote. A key is known complete there, before its
    value's first fragment, which may come in a later call: a consumer that
    must act on a key itself (a schema's ``additionalProperties: false``) acts
    at once. The fragments are the same with or without it. Off, ``keys`` is
    ``None``.

    ``max_depth`` bounds the nesting (deeper input raises ``ArgumentStreamError``); by default
    it is ``MAX_DEPTH`` (512) with ``flat=True`` and ``NESTED_MAX_DEPTH`` (64) without, since a
    nested fragment wraps its leaf once per level: ``n`` characters of input give at most
    ``n + 1`` fragments (strict), each of at most ``max_depth`` wrappers.

    ``lenient=True`` repairs what weak models get almost right and records each repair in
    ``repairs`` (see ``docs/lenient.md``). The repairs live in the pure twin only: a lenient
    parser runs this compiled core while the input is valid, keeping its chunks, and at the
    first failure (a push that raises, a ``finish()`` on a cut-off value) replays them into the
    twin's lenient parser, which goes on from there. On a valid prefix the two agree fragment
    for fragment, so the result is the twin's, at the compiled speed on valid input; the cost
    is that a lenient parser keeps its input until then, up to ``HISTORY_LIMIT`` (1 MiB) of
    it: past that the twin takes over at once (its speed, bounded memory). Strict parsers pay
    one flag test.
    """

    cdef int _ready(self) except -1:
        if self._tok is None:
            raise TypeError("IncrementalArgParser.__init__ was not called")
        return 0

    def __init__(self, *, max_depth=None, bint flat=False, str surrogates="replace",
                 bint catch_duplicate_keys=False, bint spans=False, bint lenient=False):
        cdef int seen = argstream_guard_enter(&self._busy)
        if seen:
            guard_refused(seen, "parser")
        try:
            self._setup(max_depth, flat, surrogates, catch_duplicate_keys, spans, lenient)
        finally:
            argstream_guard_leave(&self._busy)

    cdef int _setup(self, object max_depth, bint flat, str surrogates, bint catch_duplicate_keys, bint spans,
                    bint lenient) except -1:
        if max_depth is None:
            max_depth = MAX_DEPTH if flat else NESTED_MAX_DEPTH
        if lenient:
            self._lenient = True
            self._history = []
            self._options = dict(max_depth=max_depth, flat=flat, surrogates=surrogates,
                                 catch_duplicate_keys=catch_duplicate_keys, spans=spans, lenient=True)
        self._tok = tokenizer_new(max_depth, surrogates, catch_duplicate_keys)
        self._builder = FragmentBuilder.__new__(FragmentBuilder)
        self._builder.setup(flat, self._tok if spans else None)
        return 0

    def push(self, chunk):
        """Parse one chunk (``str`` or UTF-8 bytes-like); return the fragments it completed or extended.

        Raises ``ConcurrentUseError`` when another call on this parser is running (see the class doc).
        """
        cdef list out = []
        cdef FragmentBuilder builder
        cdef int rc
        cdef int seen = argstream_guard_enter(&self._busy)
        if seen:
            guard_refused(seen, "parser")
        try:
            self._ready()
            builder = self._builder
            if self._lenient:
                if self._twin is not None:
                    return self._twin.push(chunk)
                if type(chunk) is not str and type(chunk) is not bytes:
                    chunk = bytes(chunk)
                self._history.append(chunk)
                if not self._seen:
                    first = chunk.lstrip(" \t\r\n" if type(chunk) is str else b" \t\r\n")[:1]
                    if first:
                        self._seen = True
                        if first == '"' or first == b'"':  # a root string may hold JSON (double-encoded)
                            return self._replay(True)
            if self._failed:
                tokenizer_check(self._tok)  # raised as it is: its fragments stay those of the chunk that failed
            builder.out = out
            if builder.recording:
                builder.new_call()
            rc = (<push_t>tokenizer_push)(self._tok, chunk, builder)
            builder.out = None  # the caller owns the fragments; keeping them would pin their memory
            if rc == -1:
                self._failed = True
                exc = argstream_take_error()
                if self._lenient and isinstance(exc, ArgumentStreamError):
                    return self._replay(True)
                if isinstance(exc, ArgumentStreamError):
                    exc.fragments = out
                raise exc
            if self._lenient:
                self._history_size += len(chunk)
                if self._history_size > HISTORY_LIMIT:
                    self._replay(False)  # the twin reads on from here: the input is kept no longer
            return out
        finally:
            argstream_guard_leave(&self._busy)

    cdef list push_noraise(self, object chunk):
        """``push`` for compiled consumers: on an error, the failing chunk's fragments are returned and
        the exception is left in ``taken`` (``None`` after a push that succeeded); no exception raised."""
        cdef list out = []
        cdef FragmentBuilder builder
        cdef int rc
        cdef int seen = argstream_guard_enter(&self._busy)
        if seen:
            try:
                guard_refused(seen, "parser")
            except BaseException as exc:
                self.taken = exc
            return out
        try:
            builder = self._builder
            self.taken = None
            if self._tok is None or self._failed:
                self.taken = argstream_sticky(self)
                return out
            builder.out = out
            if builder.recording:
                builder.new_call()
            rc = (<push_t>tokenizer_push)(self._tok, chunk, builder)
            builder.out = None
            if rc == -1:
                self._failed = True
                exc = argstream_take_error()
                if isinstance(exc, ArgumentStreamError):
                    exc.fragments = out
                self.taken = exc
            return out
        finally:
            argstream_guard_leave(&self._busy)

    def finish(self):
        """Signal the end of input; return what only the end completes (a bare root number).

        Raises ``ConcurrentUseError`` when another call on this parser is running (see the class doc).
        """
        cdef int seen = argstream_guard_enter(&self._busy)
        if seen:
            guard_refused(seen, "parser")
        try:
            return self._finish()
        finally:
            argstream_guard_leave(&self._busy)

    cdef list _finish(self):
        cdef list out = []
        self._ready()
        if self._lenient:
            if self._twin is not None:
                return self._twin.finish()
            if self._failed or not tokenizer_done(self._tok):
                self._replay(False)
                return self._twin.finish()
        self._builder.out = out
        if self._builder.recording:
            self._builder.new_call()
        self._builder.at_end = True
        try:
            tokenizer_end(self._tok, self._builder)
        finally:
            self._builder.out = None
        return out

    cdef object _replay(self, bint last):
        """Hand the input so far to the twin's lenient parser; return its fragments of the last chunk."""
        from argstream._parser_py import IncrementalArgParser as Twin
        cdef list history = self._history
        twin = Twin(**self._options)
        self._history = None
        self._twin = twin
        for chunk in history[:-1] if last else history:
            twin.push(chunk)
        return twin.push(history[-1]) if last else None

    @property
    def done(self):
        """The root value is complete."""
        self._ready()
        if self._twin is not None:
            return self._twin.done
        return tokenizer_done(self._tok)

    @property
    def position(self):
        """Characters (str input) or bytes (bytes input) consumed so far."""
        self._ready()
        if self._twin is not None:
            return self._twin.position
        return tokenizer_position(self._tok)

    @property
    def spans(self):
        """``(start, end)`` input offsets parallel to the last call's fragments; ``None`` unless ``spans=True``."""
        cdef int seen = argstream_guard_enter_read(&self._busy)
        if seen:
            guard_refused(1, "parser")
        try:
            self._ready()
            if self._twin is not None:
                return self._twin.spans
            return self._builder.spans
        finally:
            argstream_guard_leave(&self._busy)

    @property
    def keys(self):
        """The keys the last call read, ``(index, path, span)`` (see the class doc); ``None`` unless ``spans=True``."""
        cdef int seen = argstream_guard_enter_read(&self._busy)
        if seen:
            guard_refused(1, "parser")
        try:
            self._ready()
            if self._twin is not None:
                return self._twin.keys
            return self._builder.keys
        finally:
            argstream_guard_leave(&self._busy)

    @property
    def repairs(self):
        """The repairs made so far, in input order (``lenient=True``; always empty when strict)."""
        self._ready()
        return self._twin.repairs if self._twin is not None else []

    @property
    def lenient(self):
        return self._lenient

    @property
    def flat(self):
        self._ready()
        return self._builder.flat

    @property
    def max_depth(self):
        self._ready()
        return self._tok.max_depth
