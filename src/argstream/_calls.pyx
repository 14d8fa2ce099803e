# cython: language_level=3, embedsignature=True, binding=False
"""The compiled ``ArgumentCall`` and ``ToolCallArgumentProgress``: twins of ``_calls_py``.

The per-delta work of the pipeline: one chunk of a call's argument text through the compiled
parser (its no-raise push, so the hot path holds no try/except), and one progress item per
fragment, built here without a Python ``__init__``. A string piece that continues the open string
at the same path object is appended to that string's pieces without calling the aggregator.
"""

cimport cython
from cpython.float cimport PyFloat_AS_DOUBLE
from cpython.list cimport PyList_GET_ITEM, PyList_GET_SIZE
from cpython.long cimport PyLong_AsLongLongAndOverflow
from cpython.object cimport PyObject
from cpython.tuple cimport PyTuple_GET_ITEM, PyTuple_GET_SIZE
from cpython.unicode cimport PyUnicode_DATA, PyUnicode_GET_LENGTH, PyUnicode_KIND
from libc.math cimport isfinite
from libc.stdint cimport uint16_t, uint32_t

from argstream._aggregate cimport FragmentAggregator
from argstream._encode cimport escaped_length
from argstream._fragments cimport String, new_scalar, new_string
from argstream._fragment_builder cimport FragmentBuilder
from argstream._parser cimport IncrementalArgParser
from argstream._piece_skip cimport PieceSkipper
from argstream._pieces cimport PIECES_EVERY, compact_pieces
from argstream._fastpath cimport FastTest, fast_test

from argstream import _calls_py
from argstream._encode import compact as _compact
from argstream._fragments_py import DONE as _DONE_PY
from argstream._fragments_py import Empty as _EmptyPy
from argstream._fragments_py import String as _PyString
from argstream.errors import ArgumentStreamError
from argstream.fragments import flatten, nest

cdef object PLAIN_EXTEND = PieceSkipper.extend

cdef object PY_STRING = _PyString
cdef object NEST_TWIN = _calls_py.nest_twin
cdef object NEST = nest
cdef object FLATTEN = flatten
cdef object _END = object()  # PipelineItems: the wire iterator is exhausted
cdef object DONE = _DONE_PY
cdef object STRICT_PARSERS = _calls_py._STRICT_PARSERS
cdef object EMPTY_OBJECT = _EmptyPy("object")
cdef object EMPTY_ARRAY = _EmptyPy("array")
cdef object EMPTY_STRING = _EmptyPy("string")
cdef int WALK_MAX_DEPTH = _calls_py.WALK_MAX_DEPTH
cdef object JSON_DUMPS = None  # json.dumps, for a value compact() refuses (imported on first use)


@cython.final
@cython.freelist(32)
cdef class ToolCallArgumentProgress:
    """Ephemeral: one argument fragment of a tool call still streaming. Never persisted.

    Beyond the fragment (RFD 043), it carries what every consumer needs so that none has to
    work it out again: ``path`` and ``leaf`` (the fragment flattened: keys and indexes from the
    argument root, and ``Scalar`` / ``String`` / ``Empty`` / ``DONE``), ``completed`` (the
    ``Completed(path, value)`` that this fragment closed, or ``None``) and ``index`` (the
    call's index in the response). Equality compares the call and the fragment only.
    Immutable; built from ``(tool_call_id, tool_name, fragment)`` by hand, or from the flat form
    by the pipeline (then ``fragment`` is nested on first access). Fields: ``_calls.pxd``.
    """
    __match_args__ = ("tool_call_id", "tool_name", "fragment")

    def __init__(self, tool_call_id, tool_name, fragment=None, path=(), leaf=None, completed=None, index=0):
        if leaf is None:
            if fragment is None:
                raise TypeError("ToolCallArgumentProgress needs a fragment (or its path and leaf)")
            path, leaf = FLATTEN(fragment)
        self.tool_call_id = tool_call_id
        self.tool_name = tool_name
        self.path = tuple(path)
        self.leaf = leaf
        self.completed = completed
        self.index = index
        self.repairs = ()
        self._fragment = fragment
        self._twin = False

    def _note_repairs(self, tuple repairs):
        """The pipeline's: the repairs this fragment is the first to come from (see the twin)."""
        self.repairs = repairs

    @classmethod
    def _make(cls, tool_call_id, tool_name, path, leaf, completed, index, twin):
        """The pipeline's constructor: no checks, the fragment nested lazily."""
        return new_progress(tool_call_id, tool_name, path, leaf, completed, index, twin)

    @property
    def fragment(self):
        """The nested fragment (``ObjectEntry`` / ``ArrayItem`` around ``leaf``), built once."""
        if self._fragment is None:
            self._fragment = (NEST_TWIN if self._twin else NEST)(self.path, self.leaf)
        return self._fragment

    def to_dict(self):
        """This item as JSON-ready data (see :mod:`argstream.jsonform`)."""
        from argstream.jsonform import to_dict
        return to_dict(self)

    @classmethod
    def from_dict(cls, data):
        """The item that :meth:`to_dict` gave ``data`` for. Raises ``ValueError`` for any other data."""
        from argstream.jsonform import from_dict
        return from_dict(cls, data)

    @property
    def parameter(self):
        """The top-level parameter this fragment belongs to (``None`` for the root's own fragments)."""
        path = self.path
        first = path[0] if path else None
        return first if type(first) is str else None

    def __eq__(self, other):
        if not isinstance(other, _progress_types()):
            return NotImplemented
        return (self.tool_call_id == other.tool_call_id and self.tool_name == other.tool_name
                and self.path == other.path and self.leaf == other.leaf)

    def __ne__(self, other):
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self):
        return hash((self.tool_call_id, self.tool_name, self.path, self.leaf))

    def __repr__(self):
        return (f"ToolCallArgumentProgress(tool_call_id={self.tool_call_id!r}, tool_name={self.tool_name!r}, "
                f"fragment={self.fragment!r}, path={self.path!r}, leaf={self.leaf!r}, "
                f"completed={self.completed!r}, index={self.index!r})")

    def __reduce__(self):
        return (_rebuild, (self.tool_call_id, self.tool_name, self.path, self.leaf, self.completed, self.index,
                           self._twin))


def _rebuild(tool_call_id, tool_name, path, leaf, completed, index, twin):
    return new_progress(tool_call_id, tool_name, path, leaf, completed, index, twin)


cdef object _progress_types():
    from argstream._backend import PROGRESS_TYPES
    return PROGRESS_TYPES


cdef inline ToolCallArgumentProgress new_progress(object call_id, object name, object path, object leaf,
                                                  object completed, object index, bint twin):
    cdef ToolCallArgumentProgress p = ToolCallArgumentProgress.__new__(ToolCallArgumentProgress)
    p.tool_call_id = call_id
    p.tool_name = name
    p.path = path
    p.leaf = leaf
    p.completed = completed
    p.index = index
    p.repairs = ()
    p._twin = twin
    return p


cdef extern from *:
    """
    #if defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2)
    #include <emmintrin.h>
    #define ARGSTREAM_SSE2 1
    #endif

    /* Whether any of the n UTF-16 code units at s is a surrogate (0xD800-0xDFFF: top five bits 11011).
       With SSE2, eight units a compare, two vectors a pass, the answers or-ed and read once at the end
       (a third of the scalar loop's instructions); the scalar loop takes the tail, and the whole string
       elsewhere. */
    static int argstream_any_surrogate16(const uint16_t *s, Py_ssize_t n) {
        Py_ssize_t i = 0;
        unsigned int bad = 0;
    #ifdef ARGSTREAM_SSE2
        const __m128i mask = _mm_set1_epi16((short)0xF800), pattern = _mm_set1_epi16((short)0xD800);
        __m128i found = _mm_setzero_si128();
        for (; i + 16 <= n; i += 16) {
            __m128i a = _mm_loadu_si128((const __m128i *)(s + i));
            __m128i b = _mm_loadu_si128((const __m128i *)(s + i + 8));
            found = _mm_or_si128(found, _mm_cmpeq_epi16(_mm_and_si128(a, mask), pattern));
            found = _mm_or_si128(found, _mm_cmpeq_epi16(_mm_and_si128(b, mask), pattern));
        }
        bad = _mm_movemask_epi8(found) != 0;
    #endif
        for (; i < n; i++) {
            bad |= (s[i] >> 11) == 0x1B;
        }
        return bad != 0;
    }
    """
    bint argstream_any_surrogate16(const uint16_t* s, Py_ssize_t n) noexcept


cdef inline bint plain_string(str text) noexcept:
    """``text`` holds no lone surrogate (which the parser would replace): every 1-byte ``str``, else scanned
    (a 2-byte one eight code units a compare where the machine has SSE2: every string of a call sent whole
    is read twice, at the test of its wire item and at its walk)."""
    cdef int kind = PyUnicode_KIND(text)
    cdef Py_ssize_t i, n = PyUnicode_GET_LENGTH(text)
    cdef const uint32_t* s4
    cdef unsigned int bad = 0
    if kind == 1:
        return True
    if kind == 2:
        return not argstream_any_surrogate16(<const uint16_t*>PyUnicode_DATA(text), n)
    s4 = <const uint32_t*>PyUnicode_DATA(text)
    for i in range(n):
        bad |= (s4[i] >> 11) == 0x1B
    return bad == 0


cdef inline bint plain_scalar(object value, type t) except -1:
    """``None``, a ``bool``, an ``int`` within 64 bits or a finite ``float`` (``t`` is its type)."""
    cdef int overflow = 0
    if value is None or t is bool:
        return True
    if t is int:
        PyLong_AsLongLongAndOverflow(value, &overflow)
        return overflow == 0
    return t is float and isfinite(PyFloat_AS_DOUBLE(value))


cdef bint _walkable(object value, int depth) except -1:
    cdef type t = type(value)
    if t is str:
        return plain_string(<str>value)
    if t is dict or t is list or t is tuple:
        if depth >= WALK_MAX_DEPTH:
            return False
        if t is dict:
            for k, v in (<dict>value).items():
                if type(k) is not str or not plain_string(<str>k) or not _walkable(v, depth + 1):
                    return False
            return True
        for v in value:
            if not _walkable(v, depth + 1):
                return False
        return True
    return plain_scalar(value, t)


def walkable(value):
    """Whether arguments a provider sent whole can reach the call as their decoded value: ``_calls_py.walkable``."""
    return _walkable(value, 0)


cdef bint _walk(object value, tuple path, int depth, int max_depth, list out) except -1:
    """``_calls_py._walk`` with the compiled leaves: the fragments, checked in the same pass."""
    cdef type t = type(value)
    if t is str:
        if not plain_string(<str>value):
            return False
        out.append((path, new_string(<str>value) if PyUnicode_GET_LENGTH(<str>value) else EMPTY_STRING))
    elif t is dict:
        if depth >= max_depth:
            return False
        if not value:
            out.append((path, EMPTY_OBJECT))
        for k, v in (<dict>value).items():
            if type(k) is not str or not plain_string(<str>k) or not _walk(v, path + (k,), depth + 1, max_depth, out):
                return False
    elif t is list or t is tuple:
        if depth >= max_depth:
            return False
        if not value:
            out.append((path, EMPTY_ARRAY))
        for i, v in enumerate(value):
            if not _walk(v, path + (i,), depth + 1, max_depth, out):
                return False
    elif plain_scalar(value, t):
        out.append((path, new_scalar(value)))
    else:
        return False
    out.append((path, DONE))
    return True


def whole_items(object call_id, object name, object index, object value, int max_depth, object aggregator):
    """``_calls_py.whole_items`` with the compiled leaves and items: the fragments walked from the value,
    each made a progress item in its place (``aggregator`` pushed without a Python call when compiled)."""
    cdef list out = []
    cdef object pair, completed
    cdef FragmentAggregator cagg = aggregator if type(aggregator) is FragmentAggregator else None
    cdef Py_ssize_t k
    if type(value) is not dict or not _walk(value, (), 0, min(max_depth, WALK_MAX_DEPTH), out):
        return None
    for k in range(PyList_GET_SIZE(out)):
        pair = <object>PyList_GET_ITEM(out, k)
        completed = cagg.push(pair) if cagg is not None else aggregator.push(pair)
        out[k] = new_progress(call_id, name, <object>PyTuple_GET_ITEM(pair, 0), <object>PyTuple_GET_ITEM(pair, 1),
                              completed, index, False)
    return out


cdef inline Py_ssize_t scalar_length(object value, type t) except -1:
    """Characters of a plain scalar's compact JSON text (as ``_encode`` writes it)."""
    if value is None:
        return 4
    if t is bool:
        return 4 if value else 5
    return PyUnicode_GET_LENGTH(repr(value))


cdef Py_ssize_t _walk_spans(object value, tuple path, int depth, int max_depth, list out, list spans, list keys,
                            Py_ssize_t at) except -2:
    """``_calls_py._walk_spans`` with the compiled leaves: ``_walk`` from offset ``at`` of the compact text,
    recording the spans and keys a parser with ``spans=True`` would; the offset after ``value``, or -1."""
    cdef type t = type(value)
    cdef Py_ssize_t end, n = 0
    cdef tuple step
    if t is str:
        if not plain_string(<str>value):
            return -1
        end = at + escaped_length(<str>value) - 1  # the closing quote
        if PyUnicode_GET_LENGTH(<str>value):
            out.append((path, new_string(<str>value)))
            spans.append((at + 1, end))
        else:
            out.append((path, EMPTY_STRING))
            spans.append((end, end + 1))
        out.append((path, DONE))
        spans.append((end, end + 1))
        return end + 1
    if t is dict or t is list or t is tuple:
        if depth >= max_depth:
            return -1
        if not value:
            out.append((path, EMPTY_OBJECT if t is dict else EMPTY_ARRAY))
            spans.append((at + 1, at + 2))
            out.append((path, DONE))
            spans.append((at + 1, at + 2))
            return at + 2
        at += 1  # the opening brace or bracket
        if t is dict:
            for k, v in (<dict>value).items():
                at += n > 0  # the comma
                n += 1
                if type(k) is not str or not plain_string(<str>k):
                    return -1
                at += escaped_length(<str>k) - 1  # the key's closing quote
                step = path + (k,)
                keys.append((PyList_GET_SIZE(out), step, (at, at + 1)))
                at = _walk_spans(v, step, depth + 1, max_depth, out, spans, keys, at + 2)
                if at < 0:
                    return -1
        else:
            for v in value:
                at += n > 0
                at = _walk_spans(v, path + (n,), depth + 1, max_depth, out, spans, keys, at)
                n += 1
                if at < 0:
                    return -1
        out.append((path, DONE))
        spans.append((at, at + 1))  # the closing brace or bracket
        return at + 1
    if not plain_scalar(value, t):
        return -1
    end = at + scalar_length(value, t)
    out.append((path, new_scalar(value)))
    spans.append((at, end))
    out.append((path, DONE))
    # a number ends at the character after it (never at the root here); a literal at its last letter
    spans.append((end, end + 1) if t is int or t is float else (end - 1, end))
    return end


cdef str _text(object value):
    """The compact JSON text of ``value`` (``_encode.compact``, else ``json.dumps``: the same text)."""
    global JSON_DUMPS
    text = _compact(value)
    if text is not None:
        return text
    if JSON_DUMPS is None:
        from json import dumps
        JSON_DUMPS = dumps
    return JSON_DUMPS(value, ensure_ascii=False, separators=(",", ":"))


@cython.final
cdef class ArgumentCall:
    """One tool call's arguments as they stream: its parser, aggregator and validator, and its flags.

    See ``_calls_py.ArgumentCall``, which this follows line by line. With the compiled parser the
    chunk goes through its no-raise push; any other parser is called as Python.
    """
    cdef public object id
    cdef public object name
    cdef public object index
    cdef public object parser
    cdef public object aggregator
    cdef object _validator
    cdef PieceSkipper _skipper  # the validator, when its test is PieceSkipper's own: run in C
    cdef bint _looked  # the validator saw the last chunk (its test did not drop it whole)
    cdef public object error
    cdef public object progress
    cdef public bint spans
    cdef public bint seen
    cdef public bint failed
    cdef public bint violated
    cdef public bint flat
    cdef public bint twin
    cdef public bint lenient
    cdef Py_ssize_t _repaired
    cdef object _open_path
    cdef list _open_pieces
    cdef IncrementalArgParser _cparser
    cdef object _agg_push
    cdef FragmentAggregator _cagg  # the aggregator, when it is the compiled one: pushed into without a Python call
    cdef bint _fast_items
    cdef bint _quiet  # no progress items (``progress`` is None): the fragments only aggregated

    def __init__(self, parser, aggregator, progress, index=0):
        self.id = ""
        self.name = ""
        self.index = index
        self.parser = parser
        self.aggregator = aggregator
        self._validator = None
        self._skipper = None
        self._looked = True
        self.spans = False
        self.error = None
        self.seen = False
        self.failed = False
        self.violated = False
        if type(parser) is IncrementalArgParser and (<IncrementalArgParser>parser)._tok is not None:
            # (what the general reads below give for the compiled parser, without three attribute lookups)
            self.flat = (<IncrementalArgParser>parser)._builder.flat
            self.twin = False
            self.lenient = (<IncrementalArgParser>parser)._lenient
        else:
            self.flat = getattr(parser, "flat", False) is True
            self.twin = type(parser).__module__.endswith("._parser_py")
            self.lenient = getattr(parser, "lenient", False) is True
        self.progress = progress
        self._repaired = 0
        self._open_path = None
        self._open_pieces = None
        self._cparser = parser if type(parser) is IncrementalArgParser and not self.lenient else None
        self._agg_push = aggregator.push
        self._cagg = aggregator if type(aggregator) is FragmentAggregator else None
        self._fast_items = self.flat and (progress is ToolCallArgumentProgress or progress is None) and (
            self._cparser is not None or self.twin)
        self._quiet = progress is None

    @property
    def validator(self):
        """The call's schema validator (``schema.SchemaValidator``), or ``None``."""
        return self._validator

    @validator.setter
    def validator(self, value):
        self._validator = value
        self._skipper = value if isinstance(value, PieceSkipper) and type(value).extend is PLAIN_EXTEND else None

    cpdef list push(self, str text):
        """Parse one chunk of argument text; return a progress item per fragment."""
        cdef list fragments
        cdef bint own = False
        if self.error is not None or not text:
            return []
        if not self.seen and not text.isspace():
            self.seen = True
        if self._cparser is not None:
            fragments = self._cparser.push_noraise(text)
            if self._cparser.taken is not None:
                self._take(self._cparser.taken)  # its exception holds this list (``fragments``)
            else:
                own = True
        else:
            fragments = self._push_python(text)
        if self._validator is not None:  # before any return: a key can end a chunk that has no fragment
            self._check(fragments)
            own = own and self._skipper is not None and not self._looked  # (the skipper read it, kept none of it)
        if PyList_GET_SIZE(fragments) == 0:
            return []
        return self._items(fragments, own)

    def push_value(self, value):
        """The items of arguments a provider sent whole, as their decoded value: ``_calls_py.ArgumentCall.push_value``.

        With the compiled parser the fragments come from the value (``_walk``, compiled leaves; with the
        spans and keys for a schema check, ``_walk_spans``); with the twin's parser, from the twin's walk;
        any other call gets the compact text."""
        cdef list fragments = None
        cdef object spans = None, keys = None, accept
        cdef bint spanned = self._validator is not None and self.spans
        cdef int limit
        if self.error is None and not self.seen and self._fast_items and (
                not self.lenient) and (self._cparser is not None or type(self.parser) in STRICT_PARSERS):
            if self._cparser is not None:
                if type(value) is not int and type(value) is not float:
                    limit = <int>min(self._cparser.max_depth, WALK_MAX_DEPTH)
                    fragments = []
                    accept = getattr(self._validator, "accept_whole", None)
                    if accept is not None and _walk(value, (), 0, limit, fragments) and accept(value):
                        # a value that certainly passes needs no fragment checked (``schema.whole``)
                        self.seen = True
                        self._looked = True
                        self.parser.push('""')
                        return self._items(fragments, True)
                    fragments = []
                    if spanned:
                        spans, keys = [], []
                        if _walk_spans(value, (), 0, limit, fragments, spans, keys, 0) < 0:
                            fragments = None
                    elif not _walk(value, (), 0, limit, fragments):
                        fragments = None
            elif spanned:
                fragments, spans, keys = _calls_py.walk_spans(value, self.parser.max_depth) or (None, None, None)
            else:
                fragments = _calls_py.walk(value, self.parser.max_depth)
            if fragments is not None:
                self.seen = True
                self.parser.push('""')  # the parser ends where the text would have left it: more text is an error
                if self._validator is None:
                    return self._items(fragments, True)
                self._looked = True  # as ``_check`` feeds it the text's one push
                if spanned:
                    self._validator.extend(fragments, spans, keys)
                elif PyList_GET_SIZE(fragments):
                    self._validator.extend(fragments)
                return self._items(fragments, False)
        return self.push(_text(value))

    cdef list _items(self, list fragments, bint own):
        """A progress item per fragment, each pushed into the aggregator (a string's later pieces directly).

        ``own``: nothing else holds ``fragments`` (the compiled parser's fresh list, no exception or
        validator keeps it), so each item takes its fragment's place there: no second list a chunk."""
        cdef Py_ssize_t k, n = PyList_GET_SIZE(fragments)
        cdef list out
        cdef object pair
        if self._quiet:
            if self.flat:
                for k in range(n):
                    self._absorb(<object>PyList_GET_ITEM(fragments, k))
            else:
                for k in range(n):
                    self._agg_push(<object>PyList_GET_ITEM(fragments, k))
            return []
        if self._fast_items:
            if own:
                for k in range(n):
                    pair = <object>PyList_GET_ITEM(fragments, k)
                    fragments[k] = self._item(pair)
                out = fragments
            else:
                out = []
                for k in range(n):
                    out.append(self._item(<object>PyList_GET_ITEM(fragments, k)))
        else:
            out = []
            self._push_slow(fragments, out)
        if self.lenient:
            self.note_repairs(out)
        return out

    cdef inline object _item(self, object pair):
        """The progress item of one flat fragment ``(path, leaf)``, pushed into the aggregator."""
        return new_progress(self.id, self.name, <object>PyTuple_GET_ITEM(pair, 0), <object>PyTuple_GET_ITEM(pair, 1),
                            self._absorb(pair), self.index, self.twin)

    cdef inline object _absorb(self, object pair):
        """Push one flat fragment ``(path, leaf)`` into the aggregator (a piece that continues the open
        string straight onto its pieces): the ``Completed`` it closed, or ``None``."""
        cdef object path = <object>PyTuple_GET_ITEM(pair, 0)
        cdef object leaf = <object>PyTuple_GET_ITEM(pair, 1)
        cdef object completed
        if type(leaf) is String or type(leaf) is PY_STRING:
            if path is self._open_path:
                self._open_pieces.append((<String>leaf).text if type(leaf) is String else leaf.text)
                if not PyList_GET_SIZE(self._open_pieces) & (PIECES_EVERY - 1):
                    compact_pieces(self._open_pieces)
                return None
            completed = self._agg_push(pair) if self._cagg is None else self._cagg.push(pair)
            self._open_path = path
            self._open_pieces = self.aggregator.open_pieces()
        else:
            completed = self._agg_push(pair) if self._cagg is None else self._cagg.push(pair)
            self._open_path = None
            self._open_pieces = None  # a finished string's pieces are let go, not kept to the call's end
        return completed

    cdef int _check(self, list fragments) except -1:
        """Feed the validator a chunk's fragments (with the parser's spans and keys when it records them);
        its own test, when compiled and not overridden, runs here without a Python call (the twin calls
        ``extend``, which runs the same test), and the compiled parser's spans are made a list only for a
        chunk the validator looks at."""
        cdef FragmentBuilder builder = None
        cdef object spans = None, keys = None
        cdef bint keyed
        if self.spans:
            if self._cparser is not None:  # the compiled parser's own builder, without its guarded properties
                builder = self._cparser._builder
            else:
                spans, keys = self.parser.spans, getattr(self.parser, "keys", None)
        keyed = builder.read_keys() if builder is not None else bool(keys)
        if PyList_GET_SIZE(fragments) == 0 and not keyed:
            self._looked = False  # a push that read nothing whole (half a key) has nothing to check
            return 0
        if self._skipper is not None:
            self._looked = not self._skipper.skip(fragments, keys if builder is None else (True if keyed else None))
            if not self._looked:
                return 0
        if builder is not None:
            spans, keys = builder.spans, builder.keys
        if self._skipper is not None:
            self._skipper._extend(fragments, spans, keys)
        elif self.spans:
            self._validator.extend(fragments, spans, keys)
        else:
            self._validator.extend(fragments)
        return 0

    def note_repairs(self, list out):
        """Put the parser's repairs not yet handed out on the first of ``out`` (see the twin)."""
        repairs = self.parser.repairs
        if out and len(repairs) > self._repaired and hasattr(out[0], "_note_repairs"):
            out[0]._note_repairs(tuple(repairs[self._repaired:]))
            self._repaired = len(repairs)

    cdef int _take(self, object exc) except -1:
        if isinstance(exc, ArgumentStreamError):
            self.error = exc
            return 0
        raise exc

    cdef list _push_python(self, str text):
        try:
            return self.parser.push(text)
        except ArgumentStreamError as exc:
            self.error = exc
            return getattr(exc, "fragments", None) or []

    cdef int _push_slow(self, list fragments, list out) except -1:
        """A user's parser (nested fragments) or a user's progress class: the general loop."""
        cdef object make = self.progress._make
        for fragment in fragments:
            if self.flat:
                path, leaf = fragment
                completed = self._agg_push(fragment)
                self._open_path = None
                self._open_pieces = None
                out.append(make(self.id, self.name, path, leaf, completed, self.index, self.twin))
            else:
                path, leaf = FLATTEN(fragment)
                out.append(self.progress(self.id, self.name, fragment, path, leaf, self._agg_push(fragment),
                                         self.index))
        return 0


cdef class PipelineBase:
    """The fused pipeline's ``feed``: ``_calls_py.PipelineBase``, which this follows line by line, in C
    (its fields are declared in ``_calls.pxd``)."""

    def __init__(self, adapter, state):
        """The pipeline of one stream: ``adapter``'s tests and ``state``'s methods (see the twin)."""
        cdef object run_type, report, parts, builder = state.builder
        run_type, report, parts = type(self)._links
        self.state = state
        self._run = run_type(adapter)
        chunk = getattr(adapter, "chunk", None)
        self.chunk_method = chunk
        self.fast = fast_test(chunk) if chunk is not None else None
        if type(builder).handle_part is parts:
            self.set_text_test(getattr(adapter, "text_chunk", None))
            self._call_chunk = getattr(adapter, "call_chunk", None)
        self._argument = state.argument
        self._text = state.text
        self._feed = state.feed if state._text is not None else state._feed_one
        self._calls = builder.calls
        self._report = report
        self.count = 0
        self.over = False

    @property
    def _chunk(self):
        """The adapter's fast test, ``chunk(item)`` (``None`` without one)."""
        return self.chunk_method

    @_chunk.setter
    def _chunk(self, value):
        self.chunk_method = value
        self.fast = fast_test(value) if value is not None else None
        self.set_text_test(self.text_method)

    @property
    def _text_chunk(self):
        """The adapter's test for a message or reasoning text delta, ``text_chunk(item)`` (``None`` without one)."""
        return self.text_method

    @_text_chunk.setter
    def _text_chunk(self, value):
        self.set_text_test(value)

    cdef int set_text_test(self, object value) except -1:
        """``_text_chunk = value``: a compiled test's own ``text_chunk`` runs as its ``text_slot``, that of
        ``fast`` when the adapter has both tests (one object), or of an adapter with no ``chunk`` (Ollama)."""
        cdef object owner = fast_test(value, u"text_chunk") if value is not None else None
        self.text_method = value
        self.text_fast = owner if owner is not None and (self.fast is None or owner is self.fast) else None
        return 0

    def feed(self, item):
        """The stream items of one wire item (see ``StreamPipeline``)."""
        return self.feed_item(item)

    cdef object feed_item(self, object item):
        """``feed`` for C callers: a cdef method, so no lookup of a Python override on every call (a
        cpdef one on a Python subclass, ``StreamPipeline``, builds a bound method to compare each time)."""
        cdef object hit
        cdef list out
        if self.fast is not None:
            hit = self.fast.hit_slot(item)  # the compiled test behind ``_chunk``, without its Python call
            if hit is not None:
                return self.take_slot(hit, self.fast.found)
        elif self.chunk_method is not None:
            hit = self.chunk_method(item)
            if hit is not None:
                return self.take_hit(<tuple>hit)
        if self.text_fast is not None:
            hit = self.text_fast.text_slot(item, None)
            if hit is not None:
                return self.take_text_slot(hit, self.text_fast.found, self.text_fast.found_kind)
        elif self.text_method is not None:
            hit = self.text_method(item)
            if hit is not None:
                return self.take_text_slot((<tuple>hit)[0], (<tuple>hit)[1], (<tuple>hit)[2])
        if self._call_chunk is not None:
            hit = self._call_chunk(item)
            if hit is not None:
                return self.take_calls(hit)  # the subclass's (``StreamPipeline``): per call, not per delta
        self.count += 1
        out = []
        for event in self._run.feed(item, self.count - 1):
            out += self._feed(event)
        self.over = self._run.over
        return out

    def step(self, item):
        """``feed``, or the one item itself when there is exactly one and the stream goes on (see the twin)."""
        cdef object result = self.feed_item(item)
        cdef list out = result if type(result) is list else list(result)
        if PyList_GET_SIZE(out) == 1 and not self.over:
            return <object>PyList_GET_ITEM(out, 0)
        return out

    def items(self, iterator):
        """The stream items of every wire item ``iterator`` gives (see the twin): an iterator object
        whose ``__next__`` feeds the next wire item when the items of the last one are used up."""
        return PipelineItems(self, iter(iterator))

    def take(self, tuple hit):
        """The stream items of a dominant event the caller recognised itself (see the twin)."""
        return self.take_hit(hit)

    cdef object take_hit(self, tuple hit):
        """``take`` for C callers (see ``feed_item``)."""
        return self.take_slot(hit[0], hit[1])

    def take_text(self, tuple hit):
        """The stream items of a message, reasoning or structured output text delta (see the twin)."""
        return self.take_text_slot(hit[0], hit[1], hit[2])

    cdef object take_text_slot(self, object slot, object text, int kind):
        """``take_text((slot, text, kind))`` for C callers."""
        cdef object run = self._run
        self.count += 1
        if run.finished:
            run.finished = False  # as ``_Run._passed`` has it after any event but a ``Finished``
        return self._text(slot, text, kind)

    cdef object take_slot(self, object slot, object text):
        """``take_hit((slot, text))``, for a caller that has the two without their tuple."""
        cdef object call
        cdef list out
        self.count += 1
        call = self._calls.get(slot)
        if type(call) is not ArgumentCall:
            return self._argument(slot, text)
        out = (<ArgumentCall>call).push(text)
        if ((<ArgumentCall>call).error is not None and not (<ArgumentCall>call).failed) or (
                (<ArgumentCall>call)._validator is not None and not (<ArgumentCall>call).violated
                and (<ArgumentCall>call)._looked and (<ArgumentCall>call)._validator.violations):
            self._report(call, out)  # something to report that was not yet: the call's first violation, its failure
        return out


@cython.final
cdef class PipelineItems:
    """``PipelineBase.items``: the stream items of a wire iterator, one ``__next__`` at a time."""
    cdef PipelineBase pipeline
    cdef object iterator
    cdef list out
    cdef Py_ssize_t at

    def __cinit__(self, PipelineBase pipeline, object iterator):
        self.pipeline = pipeline
        self.iterator = iterator
        self.out = []
        self.at = 0

    def __iter__(self):
        return self

    def __next__(self):
        cdef object item, result
        cdef list out = self.out
        while self.at >= PyList_GET_SIZE(out):
            if self.pipeline.over or self.iterator is None:
                raise StopIteration
            item = next(self.iterator, _END)
            if item is _END:
                self.iterator = None
                raise StopIteration
            result = self.pipeline.feed_item(item)
            out = self.out = result if type(result) is list else list(result)
            self.at = 0
        item = <object>PyList_GET_ITEM(out, self.at)
        self.at += 1
        return item
