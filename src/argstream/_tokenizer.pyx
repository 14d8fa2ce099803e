# cython: language_level=3, embedsignature=True, freethreading_compatible=True
"""argstream's compiled core: the state machine of ``_tokenizer_py`` in C.

Theory of operation
-------------------
``Tokenizer`` walks each chunk once, reading ``str`` input in place through
its PEP 393 storage (one, two or four bytes a character; no encode round
trip) and bytes input as UTF-8, validated as it goes. It reports structure to
a ``Sink`` through C calls. Inside a string, plain text is not copied while
it is scanned: the decoded output of a chunk is ``buf`` (characters that had
to be decoded: escapes, a UTF-8 sequence split by the previous chunk) followed
by the slice ``data[seg:i]`` of the chunk itself, and it is handed out once
per string per chunk. Only an escape or UTF-8 sequence cut by the chunk's end
is held back, along with the stack of open containers and a key or number
still being read; never the document.

The states, event kinds and error codes are the twin's (``cpdef enum``s in
``_tokenizer.pxd``); errors are built by one cold function and are sticky.
Other Cython code drives a tokenizer through the functions at the end of this
file (declared in ``_tokenizer.pxd``), never through its fields.
"""


cimport cython
from cpython.long cimport PyLong_FromLongLong, PyLong_FromString
from cpython.mem cimport PyMem_Free, PyMem_Realloc
from cpython.object cimport PyObject
from cpython.unicode cimport (
    PyUnicode_DATA,
    PyUnicode_DecodeUTF8,
    PyUnicode_FromKindAndData,
    PyUnicode_GET_LENGTH,
    PyUnicode_KIND,
)
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memcpy

from argstream._guard cimport argstream_guard_enter, argstream_guard_leave, guard_refused
from argstream._sink cimport PySink, Sink

from argstream._tokenizer_py import MESSAGES as _MESSAGES
from argstream.errors import ArgumentStreamError, DuplicateKeyError, IncompleteJSONError

cdef extern from "Python.h":
    object PyUnicode_New(Py_ssize_t size, Py_UCS4 maxchar)
    bint PyUnicode_IS_ASCII(object s)
    double PyOS_string_to_double(const char* s, char** endptr, PyObject* overflow_exception) except? -1.0

cdef extern from *:
    """
    /* The exception in flight, as a borrowed reference, left set (error paths only). */
    static PyObject* argstream_peek_error(void) {
    #if PY_VERSION_HEX >= 0x030C0000
        PyObject* exc = PyErr_GetRaisedException();
        PyErr_SetRaisedException(exc);
        return exc;
    #else
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        PyErr_NormalizeException(&type, &value, &tb);
        if (tb != NULL) PyException_SetTraceback(value, tb);
        PyErr_Restore(type, value, tb);
        return value;
    #endif
    }
    """
    PyObject* argstream_peek_error()

cdef extern from *:
    """
    /* Plain-run scanners: the first index in d[j:n] whose character may stop a run of plain string
     * text (a control character, a quote, a backslash; a byte >= 0x80 in UTF-8; a surrogate in a wide
     * str), looked at 16 bytes at a time with SSE2. They stop at the last whole block: the caller's
     * per-character loop finishes from where they return, and is the whole scan where SSE2 is absent. */
    #if defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2)
    #include <emmintrin.h>
    #define ARGSTREAM_SSE2 1
    #if defined(__GNUC__) || defined(__clang__)
    #define ARGSTREAM_CTZ(m) __builtin_ctz(m)
    #else
    #include <intrin.h>
    static __inline int argstream_ctz(unsigned int m) { unsigned long i; _BitScanForward(&i, m); return (int)i; }
    #define ARGSTREAM_CTZ(m) argstream_ctz(m)
    #endif
    #else
    #define ARGSTREAM_SSE2 0
    #endif

    static inline Py_ssize_t argstream_plain1(const uint8_t* d, Py_ssize_t j, Py_ssize_t n, int utf8) {
    #if ARGSTREAM_SSE2
        const __m128i quote = _mm_set1_epi8(0x22), slash = _mm_set1_epi8(0x5C), ctl = _mm_set1_epi8(0x1F);
        const __m128i zero = _mm_setzero_si128();
        while (j + 16 <= n) {
            __m128i v = _mm_loadu_si128((const __m128i*)(d + j));
            __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, slash)),
                                       _mm_cmpeq_epi8(_mm_subs_epu8(v, ctl), zero));
            unsigned int m = (unsigned int)_mm_movemask_epi8(hit);
            if (utf8) m |= (unsigned int)_mm_movemask_epi8(v);
            if (m) return j + ARGSTREAM_CTZ(m);
            j += 16;
        }
    #endif
        return j;
    }

    static inline Py_ssize_t argstream_plain2(const uint16_t* d, Py_ssize_t j, Py_ssize_t n) {
    #if ARGSTREAM_SSE2
        const __m128i quote = _mm_set1_epi16(0x22), slash = _mm_set1_epi16(0x5C), ctl = _mm_set1_epi16(0x1F);
        const __m128i high = _mm_set1_epi16((short)0xF800), sur = _mm_set1_epi16((short)0xD800);
        const __m128i zero = _mm_setzero_si128();
        while (j + 8 <= n) {
            __m128i v = _mm_loadu_si128((const __m128i*)(d + j));
            __m128i hit = _mm_or_si128(
                _mm_or_si128(_mm_cmpeq_epi16(v, quote), _mm_cmpeq_epi16(v, slash)),
                _mm_or_si128(_mm_cmpeq_epi16(_mm_subs_epu16(v, ctl), zero),
                             _mm_cmpeq_epi16(_mm_and_si128(v, high), sur)));
            unsigned int m = (unsigned int)_mm_movemask_epi8(hit);
            if (m) return j + (ARGSTREAM_CTZ(m) >> 1);
            j += 8;
        }
    #endif
        return j;
    }

    static inline Py_ssize_t argstream_plain4(const uint32_t* d, Py_ssize_t j, Py_ssize_t n) {
    #if ARGSTREAM_SSE2
        /* code points are below 0x110000, so the signed compare is an unsigned one */
        const __m128i quote = _mm_set1_epi32(0x22), slash = _mm_set1_epi32(0x5C), space = _mm_set1_epi32(0x20);
        const __m128i sur = _mm_set1_epi32(0x1B);
        while (j + 4 <= n) {
            __m128i v = _mm_loadu_si128((const __m128i*)(d + j));
            __m128i hit = _mm_or_si128(
                _mm_or_si128(_mm_cmpeq_epi32(v, quote), _mm_cmpeq_epi32(v, slash)),
                _mm_or_si128(_mm_cmplt_epi32(v, space), _mm_cmpeq_epi32(_mm_srli_epi32(v, 11), sur)));
            unsigned int m = (unsigned int)_mm_movemask_epi8(hit);
            if (m) return j + (ARGSTREAM_CTZ(m) >> 2);
            j += 4;
        }
    #endif
        return j;
    }
    """
    Py_ssize_t argstream_plain1(const uint8_t* d, Py_ssize_t j, Py_ssize_t n, bint utf8) noexcept nogil
    Py_ssize_t argstream_plain2(const uint16_t* d, Py_ssize_t j, Py_ssize_t n) noexcept nogil
    Py_ssize_t argstream_plain4(const uint32_t* d, Py_ssize_t j, Py_ssize_t n) noexcept nogil

ctypedef fused char_t:
    uint8_t
    uint16_t
    uint32_t


# ``_run`` without Cython's automatic propagation: the feed functions look at its -1 themselves, so the
# hot path needs no try/except (which saves and restores the thread's exception state on every call).
ctypedef int (*run8_t)(Tokenizer, const uint8_t*, Py_ssize_t, Py_ssize_t, bint, Sink) noexcept
ctypedef int (*run16_t)(Tokenizer, const uint16_t*, Py_ssize_t, Py_ssize_t, bint, Sink) noexcept
ctypedef int (*run32_t)(Tokenizer, const uint32_t*, Py_ssize_t, Py_ssize_t, bint, Sink) noexcept
ctypedef int (*emit_t)(Tokenizer, Sink, Py_ssize_t) noexcept
# the unguarded entry points, called between ``argstream_guard_enter`` and ``_leave`` (see ``_guard.pxd``)
ctypedef int (*feed_t)(Tokenizer, const unsigned char*, Py_ssize_t, Sink) noexcept
ctypedef int (*feed_str_t)(Tokenizer, str, Sink) noexcept
ctypedef int (*end_t)(Tokenizer, Sink) noexcept


# STOP[c] != 0: c ends a run of plain string characters ('"', '\', control);
# UTF8_STOP also stops at bytes >= 0x80, which start a sequence to validate.
cdef uint8_t STOP[256]
cdef uint8_t UTF8_STOP[256]
cdef uint8_t HEXVAL[256]   # value + 1 for hex digits, 0 otherwise
cdef uint32_t SIMPLE_ESC[256]  # decoded char + 1 for \" \\ \/ \b \f \n \r \t

cdef void _init_tables() noexcept:
    cdef int c
    for c in range(256):
        STOP[c] = 1 if (c < 0x20 or c == 0x22 or c == 0x5C) else 0
        UTF8_STOP[c] = 1 if (STOP[c] or c >= 0x80) else 0
        HEXVAL[c] = 0
        SIMPLE_ESC[c] = 0
    for c in range(10):
        HEXVAL[0x30 + c] = c + 1
    for c in range(6):
        HEXVAL[0x41 + c] = c + 11
        HEXVAL[0x61 + c] = c + 11
    SIMPLE_ESC[0x22] = 0x22 + 1
    SIMPLE_ESC[0x5C] = 0x5C + 1
    SIMPLE_ESC[0x2F] = 0x2F + 1
    SIMPLE_ESC[0x62] = 0x08 + 1
    SIMPLE_ESC[0x66] = 0x0C + 1
    SIMPLE_ESC[0x6E] = 0x0A + 1
    SIMPLE_ESC[0x72] = 0x0D + 1
    SIMPLE_ESC[0x74] = 0x09 + 1

_init_tables()

cdef const char* LITERALS[3]
LITERALS[0] = b"true"
LITERALS[1] = b"false"
LITERALS[2] = b"null"
cdef int LITERAL_LEN[3]
LITERAL_LEN[:] = [4, 5, 4]
cdef object LITERAL_VALUES = (True, False, None)

#: every constant by name, for the test that checks the twin mirrors them
CONSTANTS = {member.name: int(member) for enum in (Event, State, NumberState, Container, Error) for member in enum}


cdef int _fail(Tokenizer t, int code, Py_ssize_t pos) except -1:
    """Build the error (cold path), make it sticky, and raise it."""
    cls = IncompleteJSONError if ERR_EOF_VALUE <= code <= ERR_EOF_LITERAL else ArgumentStreamError
    t.error = cls(_MESSAGES[code], pos, t.line, pos - t.last_nl)
    t.state = ST_ERROR
    raise t.error


cdef int _check_key(Tokenizer t, str key, Py_ssize_t pos) except -1:
    """Remember ``key`` in its object's set; a repeat fails at ``pos``, its closing quote."""
    cdef set seen = <set>t.key_sets[len(t.key_sets) - 1]
    if key in seen:
        t.error = DuplicateKeyError(_MESSAGES[ERR_DUPLICATE_KEY], pos, t.line, pos - t.last_nl, key)
        t.state = ST_ERROR
        raise t.error
    seen.add(key)
    return 0


cdef inline int _buf_reserve(Tokenizer t, Py_ssize_t extra) except -1:
    """Room in ``buf`` for ``extra`` more characters of its current kind."""
    cdef Py_ssize_t need = (t.buf_len + extra) * t.buf_kind
    cdef Py_ssize_t cap
    cdef char* p
    if need <= t.buf_cap:
        return 0
    cap = t.buf_cap * 2 if t.buf_cap else 256
    while cap < need:
        cap *= 2
    p = <char*>PyMem_Realloc(t.buf, cap)
    if p is NULL:
        raise MemoryError()
    t.buf = p
    t.buf_cap = cap
    return 0


cdef int _buf_widen(Tokenizer t, int kind) except -1:
    """Re-store ``buf`` with ``kind`` bytes a character (PEP 393 kinds: 1, 2 or 4), widening in place."""
    cdef Py_ssize_t k
    cdef int old = t.buf_kind
    cdef uint8_t* p1
    cdef uint16_t* p2
    cdef uint32_t* p4
    t.buf_kind = kind
    _buf_reserve(t, 0)
    k = t.buf_len
    p1 = <uint8_t*>t.buf
    p2 = <uint16_t*>t.buf
    p4 = <uint32_t*>t.buf
    while k > 0:  # from the end, so no character is overwritten before it is read
        k -= 1
        if kind == 4:
            p4[k] = p1[k] if old == 1 else p2[k]
        else:
            p2[k] = p1[k]
    return 0


cdef inline void _buf_store(Tokenizer t, uint32_t c) noexcept:
    """Append ``c``, which fits ``buf``'s kind, where ``buf`` has room for it."""
    if t.buf_kind == 1:
        (<uint8_t*>t.buf)[t.buf_len] = <uint8_t>c
    elif t.buf_kind == 2:
        (<uint16_t*>t.buf)[t.buf_len] = <uint16_t>c
    else:
        (<uint32_t*>t.buf)[t.buf_len] = c
    t.buf_len += 1


cdef inline int _buf_put(Tokenizer t, uint32_t c) except -1:
    cdef int kind = 1 if c < 0x100 else (2 if c < 0x10000 else 4)
    if c >= 0x80:
        t.buf_ascii = False
    if kind > t.buf_kind:
        _buf_widen(t, kind)
    if (t.buf_len + 1) * t.buf_kind > t.buf_cap:
        _buf_reserve(t, 1)
    _buf_store(t, c)
    return 0


cdef inline object _buf_take(Tokenizer t):
    """``buf`` as a ``str``, emptied (and narrow and ASCII again)."""
    cdef object text
    if t.buf_ascii and t.buf_kind == 1:  # known ASCII: no scan for the widest character
        text = PyUnicode_New(t.buf_len, 127)
        memcpy(PyUnicode_DATA(text), t.buf, t.buf_len)
    else:
        text = PyUnicode_FromKindAndData(t.buf_kind, t.buf, t.buf_len)
    t.buf_len = 0
    t.buf_kind = 1
    t.buf_ascii = True
    return text


cdef inline bint _stop8(const uint8_t* p, bint utf8) noexcept nogil:
    """Whether any of the eight bytes at ``p`` stops a run of plain string bytes (see ``STOP``)."""
    cdef uint64_t w, ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL, q, b
    memcpy(&w, p, 8)
    if utf8 and (w & high):
        return True
    q = w ^ (ones * 0x22)
    b = w ^ (ones * 0x5C)
    # a zero byte in q or b is a quote or backslash; (x - ones) & ~x & high finds one, as does a byte < 0x20
    return (((q - ones) & ~q) | ((b - ones) & ~b) | ((w - ones * 0x20) & ~w)) & high != 0


cdef inline bint _surrogate(uint32_t c) noexcept nogil:
    """Whether ``c`` is a surrogate code point (U+D800..U+DFFF), which a ``str`` may hold but UTF-8 cannot."""
    return (c >> 11) == 0x1B  # 0xD800 >> 11 == 0xDFFF >> 11


cdef inline int _utf8_len(uint32_t lead) noexcept nogil:
    """Length of the UTF-8 sequence that ``lead`` starts, 0 if it starts none."""
    if lead < 0x80:
        return 1
    if lead < 0xC2:
        return 0
    if lead < 0xE0:
        return 2
    if lead < 0xF0:
        return 3
    if lead < 0xF5:
        return 4
    return 0


cdef inline bint _utf8_ok(uint32_t lead, int k, uint32_t b) noexcept nogil:
    """Whether ``b`` may be byte ``k`` (1-based after the lead) of the sequence ``lead`` starts."""
    if k == 1:
        if lead == 0xE0:
            return 0xA0 <= b <= 0xBF
        if lead == 0xED:
            return 0x80 <= b <= 0x9F
        if lead == 0xF0:
            return 0x90 <= b <= 0xBF
        if lead == 0xF4:
            return 0x80 <= b <= 0x8F
    return 0x80 <= b <= 0xBF


cdef int _put_utf8(Tokenizer t, const uint8_t* p, Py_ssize_t n) except -1:
    """Append already validated UTF-8 to ``buf``."""
    cdef Py_ssize_t i = 0
    cdef uint32_t c
    cdef uint8_t lead = 0
    for i in range(n):  # the widest lead byte says the widest kind needed
        if p[i] > lead:
            lead = p[i]
    if lead >= 0x80:
        t.buf_ascii = False
    if lead >= 0xF0:
        if t.buf_kind < 4:
            _buf_widen(t, 4)
    elif lead >= 0xC4 and t.buf_kind < 2:
        _buf_widen(t, 2)
    _buf_reserve(t, n)
    i = 0
    while i < n:
        c = p[i]
        if c < 0x80:
            i += 1
        elif c < 0xE0:
            c = ((c & 0x1F) << 6) | (p[i + 1] & 0x3F)
            i += 2
        elif c < 0xF0:
            c = ((c & 0x0F) << 12) | ((p[i + 1] & 0x3F) << 6) | (p[i + 2] & 0x3F)
            i += 3
        else:
            c = ((c & 0x07) << 18) | ((p[i + 1] & 0x3F) << 12) | ((p[i + 2] & 0x3F) << 6) | (p[i + 3] & 0x3F)
            i += 4
        _buf_store(t, c)
    return 0


cdef inline int _materialize(Tokenizer t, const char_t* data, Py_ssize_t seg, Py_ssize_t end, bint utf8) except -1:
    """Move the plain slice ``data[seg:end]`` into ``buf``."""
    cdef Py_ssize_t k, n = end - seg
    cdef uint16_t* p2
    cdef uint32_t* p4
    if seg < 0 or n <= 0:
        return 0
    if char_t is uint8_t:
        if utf8:
            return _put_utf8(t, data + seg, n)
        if not t.src_ascii:
            t.buf_ascii = False
    elif char_t is uint16_t:
        t.buf_ascii = False
        if t.buf_kind < 2:
            _buf_widen(t, 2)
    else:
        t.buf_ascii = False
        if t.buf_kind < 4:
            _buf_widen(t, 4)
    _buf_reserve(t, n)
    if t.buf_kind == sizeof(char_t):
        memcpy(t.buf + t.buf_len * sizeof(char_t), data + seg, n * sizeof(char_t))
    elif t.buf_kind == 2:
        p2 = <uint16_t*>t.buf + t.buf_len
        for k in range(n):
            p2[k] = data[seg + k]
    else:
        p4 = <uint32_t*>t.buf + t.buf_len
        for k in range(n):
            p4[k] = data[seg + k]
    t.buf_len += n
    return 0


# Above this many characters, text after an escape is joined to it rather than copied into buf.
cdef enum:
    JOIN_ABOVE = 4096


cdef object _take_text(Tokenizer t, const char_t* data, Py_ssize_t seg, Py_ssize_t end, bint utf8):
    """The decoded text ``buf + data[seg:end]``, emptying ``buf``; ``None`` when empty."""
    cdef object text
    if t.buf_len == 0:
        if seg < 0 or end <= seg:
            return None
        if char_t is uint8_t:
            if utf8:
                return PyUnicode_DecodeUTF8(<char*>(data + seg), end - seg, NULL)
            return PyUnicode_FromKindAndData(1, data + seg, end - seg)
        elif char_t is uint16_t:
            return PyUnicode_FromKindAndData(2, data + seg, end - seg)
        else:
            return PyUnicode_FromKindAndData(4, data + seg, end - seg)
    if char_t is uint8_t:
        if not utf8 and t.src_ascii and t.buf_ascii and t.buf_kind == 1:
            # ASCII text after an escape: one copy of each part straight into the new str
            if seg < 0 or end <= seg:
                seg = end = 0
            text = PyUnicode_New(t.buf_len + end - seg, 127)
            memcpy(PyUnicode_DATA(text), t.buf, t.buf_len)
            memcpy(<char*>PyUnicode_DATA(text) + t.buf_len, data + seg, end - seg)
            t.buf_len = 0
            return text
    if end - seg > JOIN_ABOVE and seg >= 0:
        # a long slice joins as a str: widening it into buf would cost four bytes a character
        text = _buf_take(t)
        return text + _take_text(t, data, seg, end, utf8)
    _materialize(t, data, seg, end, utf8)
    return _buf_take(t)


cdef inline int _flush_high(Tokenizer t) except -1:
    """A high surrogate escape that no low one followed."""
    _buf_put(t, 0xFFFD if t.replace_surrogates else t.high)
    t.high = 0
    return 0


cdef int _escape_char(Tokenizer t, uint32_t c) except -1:
    """Advance the escape sequence by one character (``buf`` already holds everything before it).

    Returns 0, or the error code when ``c`` cannot continue the escape (the caller raises).
    """
    cdef uint32_t decoded, unit
    cdef int esc = t.esc
    if esc == 1:
        if c == 0x75:  # 'u'
            t.esc = 2
            t.code = 0
            return 0
        decoded = SIMPLE_ESC[c] if c < 256 else 0
        if decoded == 0:
            return ERR_INVALID_ESCAPE
        if t.high:
            _flush_high(t)
        _buf_put(t, decoded - 1)
        t.esc = 0
        return 0
    if c >= 256 or HEXVAL[c] == 0:
        return ERR_INVALID_UNICODE_ESCAPE
    t.code = t.code * 16 + (HEXVAL[c] - 1)
    if esc < 5:
        t.esc = esc + 1
        return 0
    t.esc = 0
    unit = t.code
    if t.high:
        if 0xDC00 <= unit <= 0xDFFF:
            _buf_put(t, 0x10000 + ((t.high - 0xD800) << 10) + (unit - 0xDC00))
            t.high = 0
            return 0
        _flush_high(t)
    if 0xD800 <= unit <= 0xDBFF:
        t.high = unit
    elif 0xDC00 <= unit <= 0xDFFF:
        _buf_put(t, 0xFFFD if t.replace_surrogates else unit)
    else:
        _buf_put(t, unit)
    return 0


cdef int _string_error(Tokenizer t, const char_t* data, Py_ssize_t seg, Py_ssize_t end, bint utf8, Sink sink,
                       int code, Py_ssize_t pos) except -1:
    """Hand out the value text this chunk decoded before the error, then raise it."""
    cdef object text
    if t.state == ST_STRING:
        text = _take_text(t, data, seg, end, utf8)
        if text is not None:
            t.offset = pos
            sink.on_string_data(text)
    return _fail(t, code, pos)


cdef Py_ssize_t _string(Tokenizer t, const char_t* data, Py_ssize_t i, Py_ssize_t n, Py_ssize_t base,
                        bint utf8, Sink sink) except -1:
    """Decode string data from ``i``; return where the string (or the chunk) ends."""
    cdef bint is_key = t.state == ST_KEY_STRING
    cdef Py_ssize_t seg = -1, j, k
    cdef uint32_t c, lead
    cdef int need, err
    cdef object text
    if char_t is uint8_t:
        if t.tail_len:  # complete the UTF-8 sequence the previous chunk cut
            lead = t.tail[0]
            while t.tail_len < t.tail_need and i < n:
                if not _utf8_ok(lead, t.tail_len, data[i]):
                    _fail(t, ERR_UTF8, t.tail_pos)
                t.tail[t.tail_len] = data[i]
                t.tail_len += 1
                i += 1
            if t.tail_len < t.tail_need:
                return i
            _put_utf8(t, t.tail, t.tail_len)
            t.tail_len = 0
    while i < n:
        if t.esc == 1 and not t.high and data[i] < 256 and SIMPLE_ESC[data[i]]:  # \n, \", ...: the common case
            _buf_put(t, SIMPLE_ESC[data[i]] - 1)
            t.esc = 0
            i += 1
            continue
        if t.esc:
            err = _escape_char(t, data[i])
            if err:
                _string_error(t, data, -1, 0, utf8, sink, err, base + i)
            i += 1
            continue
        j = i
        if char_t is uint8_t:
            j = argstream_plain1(data, j, n, utf8)
            while j + 8 <= n and not _stop8(data + j, utf8):  # eight plain bytes at a time
                j += 8
            if utf8:
                while j < n and not UTF8_STOP[data[j]]:
                    j += 1
            else:
                while j < n and not STOP[data[j]]:
                    j += 1
        else:  # a surrogate stops the run too (only a str of kind 2 or 4 holds one): one more test per wide character
            if char_t is uint16_t:
                j = argstream_plain2(data, j, n)
            else:
                j = argstream_plain4(data, j, n)
            while j < n and (not STOP[data[j]] if data[j] < 256 else not _surrogate(data[j])):
                j += 1
        if j > i:
            if t.high:
                _flush_high(t)
            if seg < 0:
                seg = i
            i = j
            if i >= n:
                break
        c = data[i]
        if char_t is uint8_t:
            if utf8 and c >= 0x80:
                if t.high:  # decoded before the byte is judged, as in the twin
                    _flush_high(t)
                need = _utf8_len(c)
                if need == 0:
                    _string_error(t, data, seg, i, utf8, sink, ERR_UTF8, base + i)
                for k in range(1, need):
                    if i + k >= n:  # cut by the chunk's end: hold the valid prefix back
                        if is_key:
                            _materialize(t, data, seg, i, utf8)
                            seg = -1
                        else:
                            text = _take_text(t, data, seg, i, utf8)
                            seg = -1
                            if text is not None:
                                t.offset = base + i
                                sink.on_string_data(text)
                        t.tail_len = <int>(n - i)
                        t.tail_need = need
                        t.tail_pos = base + i
                        memcpy(t.tail, data + i, n - i)
                        return n
                    if not _utf8_ok(c, <int>k, data[i + k]):
                        _string_error(t, data, seg, i, utf8, sink, ERR_UTF8, base + i)
                if seg < 0:
                    seg = i
                i += need
                continue
        if c == 0x5C:  # backslash
            _materialize(t, data, seg, i, utf8)
            seg = -1
            if not t.high:
                t.hold = base + i
            t.esc = 1
            i += 1
            continue
        if t.high:
            _materialize(t, data, seg, i, utf8)
            seg = -1
            _flush_high(t)
        if c == 0x22:  # closing quote
            text = _take_text(t, data, seg, i, utf8)
            if is_key:
                if text is None:
                    text = ""
                if t.key_sets is not None:
                    _check_key(t, text, base + i)
                t.state = ST_COLON
                t.offset = base + i + 1
                sink.on_key(text)
            else:
                if text is not None:
                    t.offset = base + i
                    sink.on_string_data(text)
                t.offset = base + i + 1
                sink.on_end_string()
                t.state = ST_AFTER_VALUE if t.depth else ST_END
            return i + 1
        if char_t is not uint8_t:
            if _surrogate(c):  # written raw: decoded as its escape would be
                if t.replace_surrogates:
                    _materialize(t, data, seg, i, utf8)
                    seg = -1
                    _buf_put(t, 0xFFFD)
                elif seg < 0:
                    seg = i
                i += 1
                continue
        _string_error(t, data, seg, i, utf8, sink, ERR_CONTROL_CHAR, base + i)
    if is_key:
        _materialize(t, data, seg, i, utf8)
    else:
        text = _take_text(t, data, seg, i, utf8)
        if text is not None:
            t.offset = base + i
            sink.on_string_data(text)
    return i


cdef int _num_put(Tokenizer t, char c) except -1:
    cdef Py_ssize_t cap
    cdef char* p
    if t.num_len + 1 >= t.num_cap:
        cap = t.num_cap * 2 if t.num_cap else 32
        p = <char*>PyMem_Realloc(t.numbuf, cap)
        if p is NULL:
            raise MemoryError()
        t.numbuf = p
        t.num_cap = cap
    t.numbuf[t.num_len] = c
    t.num_len += 1
    return 0


cdef int _emit_number(Tokenizer t, Sink sink, Py_ssize_t pos) except -1:
    cdef object value
    cdef long long acc = 0
    cdef Py_ssize_t k
    cdef bint neg
    t.numbuf[t.num_len] = 0
    if t.num >= NUM_DOT:
        value = PyOS_string_to_double(t.numbuf, NULL, NULL)
    elif t.num_len <= 18:
        neg = t.numbuf[0] == 45  # '-'
        for k in range(1 if neg else 0, t.num_len):
            acc = acc * 10 + (t.numbuf[k] - 48)
        value = PyLong_FromLongLong(-acc if neg else acc)
    else:
        try:
            value = PyLong_FromString(t.numbuf, NULL, 10)
        except ValueError:  # more digits than int() converts
            _fail(t, ERR_NUMBER_TOO_LARGE, pos - t.num_len)
    t.num_len = 0
    t.offset = pos
    sink.on_scalar(value)
    return 0


cdef Py_ssize_t _number(Tokenizer t, const char_t* data, Py_ssize_t i, Py_ssize_t n, Py_ssize_t base,
                        Sink sink) except -1:
    cdef int num = t.num
    cdef uint32_t c
    while i < n:
        c = data[i]
        if 0x30 <= c <= 0x39:
            if num == NUM_MINUS:
                num = NUM_ZERO if c == 0x30 else NUM_INT
            elif num == NUM_ZERO:
                break
            elif num == NUM_DOT:
                num = NUM_FRAC
            elif num == NUM_E or num == NUM_E_SIGN:
                num = NUM_EXP
        elif c == 0x2E and (num == NUM_ZERO or num == NUM_INT):
            num = NUM_DOT
        elif (c == 0x65 or c == 0x45) and (num == NUM_ZERO or num == NUM_INT or num == NUM_FRAC):
            num = NUM_E
        elif (c == 0x2B or c == 0x2D) and num == NUM_E:
            num = NUM_E_SIGN
        else:
            break
        _num_put(t, <char>c)
        i += 1
    t.num = num
    if i < n:
        if num == NUM_MINUS or num == NUM_DOT or num == NUM_E or num == NUM_E_SIGN:
            _fail(t, ERR_INVALID_NUMBER, base + i)
        _emit_number(t, sink, base + i)
        t.state = ST_AFTER_VALUE if t.depth else ST_END
    return i


cdef Py_ssize_t _literal(Tokenizer t, const char_t* data, Py_ssize_t i, Py_ssize_t n, Py_ssize_t base,
                         Sink sink) except -1:
    cdef const char* word = LITERALS[t.lit]
    cdef int length = LITERAL_LEN[t.lit]
    cdef int k = t.lit_idx
    while i < n and k < length:
        if data[i] != <uint8_t>word[k]:
            _fail(t, ERR_INVALID_LITERAL, base + i)
        i += 1
        k += 1
    t.lit_idx = k
    if k == length:
        t.offset = base + i
        sink.on_scalar(LITERAL_VALUES[t.lit])
        t.state = ST_AFTER_VALUE if t.depth else ST_END
    return i


cdef int _push_container(Tokenizer t, uint8_t kind, Py_ssize_t pos) except -1:
    cdef Py_ssize_t cap
    cdef uint8_t* p
    if t.depth >= t.max_depth:
        _fail(t, ERR_DEPTH, pos)
    if t.depth >= t.stack_cap:
        cap = t.stack_cap * 2 if t.stack_cap else 32
        p = <uint8_t*>PyMem_Realloc(t.stack, cap)
        if p is NULL:
            raise MemoryError()
        t.stack = p
        t.stack_cap = cap
    t.stack[t.depth] = kind
    t.depth += 1
    return 0


cdef int _close(Tokenizer t, Sink sink, Py_ssize_t pos) except -1:
    t.depth -= 1
    t.offset = pos + 1
    if t.stack[t.depth] == CT_OBJECT:
        if t.key_sets is not None:
            t.key_sets.pop()
        sink.on_end_object()
    else:
        sink.on_end_array()
    t.state = ST_AFTER_VALUE if t.depth else ST_END
    return 0


cdef int _value(Tokenizer t, uint32_t c, int state, Py_ssize_t pos, Sink sink) except -1:
    """Start the value that ``c`` opens."""
    t.offset = pos + 1
    t.start = pos
    if c == 0x22:
        t.state = ST_STRING
        sink.on_begin_string()
    elif c == 0x7B:  # {
        _push_container(t, CT_OBJECT, pos)
        if t.key_sets is not None:
            t.key_sets.append(set())
        t.state = ST_OBJECT_FIRST
        sink.on_begin_object()
    elif c == 0x5B:  # [
        _push_container(t, CT_ARRAY, pos)
        t.state = ST_ARRAY_FIRST
        sink.on_begin_array()
    elif c == 0x2D or 0x30 <= c <= 0x39:
        t.state = ST_NUMBER
        t.num = NUM_MINUS if c == 0x2D else (NUM_ZERO if c == 0x30 else NUM_INT)
        t.num_len = 0
        _num_put(t, <char>c)
    elif c == 0x74 or c == 0x66 or c == 0x6E:  # t f n
        t.state = ST_LITERAL
        t.lit = 0 if c == 0x74 else (1 if c == 0x66 else 2)
        t.lit_idx = 1
    elif c == 0x5D and state == ST_ARRAY_FIRST:
        _close(t, sink, pos)
    elif c == 0x5D and t.depth and t.stack[t.depth - 1] == CT_ARRAY:
        _fail(t, ERR_TRAILING_COMMA_ARRAY, pos)
    else:
        _fail(t, ERR_EXPECTING_VALUE, pos)
    return 0


cdef int _run(Tokenizer t, const char_t* data, Py_ssize_t n, Py_ssize_t base, bint utf8, Sink sink) except -1:
    cdef Py_ssize_t i = 0
    cdef int state
    cdef uint32_t c
    cdef uint8_t top
    while i < n:
        state = t.state
        if state == ST_STRING or state == ST_KEY_STRING:
            i = _string(t, data, i, n, base, utf8, sink)
            continue
        if state == ST_NUMBER:
            i = _number(t, data, i, n, base, sink)
            continue
        if state == ST_LITERAL:
            i = _literal(t, data, i, n, base, sink)
            continue
        c = data[i]
        if c == 0x20 or c == 0x0A or c == 0x0D or c == 0x09:
            if c == 0x0A:
                t.line += 1
                t.last_nl = base + i
            i += 1
            continue
        if state == ST_AFTER_VALUE:
            top = t.stack[t.depth - 1]
            if c == 0x2C:  # ,
                t.state = ST_KEY if top == CT_OBJECT else ST_VALUE
            elif (c == 0x7D and top == CT_OBJECT) or (c == 0x5D and top == CT_ARRAY):
                _close(t, sink, base + i)
            else:
                _fail(t, ERR_EXPECTING_COMMA, base + i)
            i += 1
        elif state == ST_COLON:
            if c != 0x3A:
                _fail(t, ERR_EXPECTING_COLON, base + i)
            t.state = ST_VALUE
            i += 1
        elif state == ST_OBJECT_FIRST or state == ST_KEY:
            if c == 0x22:
                t.state = ST_KEY_STRING
                t.buf_len = 0
                t.buf_kind = 1
                t.buf_ascii = True
            elif c == 0x7D:
                if state == ST_KEY:
                    _fail(t, ERR_TRAILING_COMMA_OBJECT, base + i)
                _close(t, sink, base + i)
            else:
                _fail(t, ERR_EXPECTING_KEY, base + i)
            i += 1
        elif state == ST_END:
            _fail(t, ERR_EXTRA_DATA, base + i)
        else:
            _value(t, c, state, base + i, sink)
            i += 1
    return 0


cdef int _check(Tokenizer t, int mode) except -1:
    if t.error is not None:
        raise t.error.with_traceback(None)
    if t.mode != mode:
        if t.mode:
            raise TypeError("a parser takes either str or bytes chunks, not both")
        t.mode = mode
    return 0


cdef int _broken(Tokenizer t) except -1:
    """A sink (or memory) failed mid-chunk: the state is past repair, so the exception in flight is the sticky
    error. Returns -1 with that exception still set, for the caller to pass on."""
    if t.error is None:
        t.error = <object>argstream_peek_error()
    t.state = ST_ERROR
    return -1


cdef void _trim(Tokenizer t) noexcept:
    """Give back a decode buffer that one large chunk grew (memory stays bounded between pushes)."""
    if t.buf_cap > 65536 and t.buf_len == 0:
        PyMem_Free(t.buf)
        t.buf = NULL
        t.buf_cap = 0


cdef inline int _fed(Tokenizer t, Py_ssize_t pos, int rc) except -1:
    """After ``_run``: the chunk counts as read; a failure (``rc == -1``, exception set) becomes sticky."""
    t.pos = pos
    _trim(t)
    if rc == -1:
        return _broken(t)
    return 0


cdef class Tokenizer:
    """Incremental JSON tokenizer: ``push(chunk, sink)`` until ``finish(sink)`` (C: ``feed`` / ``end``).

    During a callback, ``offset`` says how far the input had been read when the
    event fired (absolute, in the input's unit): just past the character that
    triggered it (``{``, ``[``, a closer, a quote, a literal's last letter), the end
    of the data for ``on_string_data``, a number's terminator for its ``on_scalar``.
    A sink can slice a value's raw text out of the chunk with it. ``start`` is
    where the current value began (its first character; for a string, the
    opening quote), and ``hold`` where an escape still being decoded began
    (the backslash of a pending high surrogate, if any): string data handed
    out while ``esc`` or ``high`` is set ends there, not at ``offset``.

    With ``catch_duplicate_keys``, a key repeated in one object raises
    ``DuplicateKeyError`` at its closing quote; each open object keeps the set of
    its keys until it closes. Off, keys are not kept at all.

    An exception raised by the sink stops the chunk at that event; the chunk
    still counts as read, and the tokenizer keeps that exception as its sticky
    error (its state past the event is not repairable), re-raised by every
    later ``push``/``finish``.

    One caller at a time: ``push``/``finish`` (and every C API function that
    reads input) entered while another call is running (another thread, or a
    sink callback re-entering) raises ``ConcurrentUseError``, and so does every
    later call, since a chunk is then missing (see ``_guard.pxd``).
    """

    cdef readonly Py_ssize_t max_depth
    cdef readonly Py_ssize_t pos        # absolute offset of the next chunk's first unit
    cdef readonly int state
    cdef readonly Py_ssize_t offset     # input read when the current event fired (see Tokenizer)
    cdef bint replace_surrogates
    cdef int mode                       # 0 unknown, 1 str, 2 bytes
    cdef Py_ssize_t line
    cdef Py_ssize_t last_nl
    cdef object error
    # open containers
    cdef uint8_t* stack
    cdef Py_ssize_t depth
    cdef Py_ssize_t stack_cap
    # string decoding
    cdef int esc                        # 0 none, 1 after '\', 2..5 after '\u' + hex digits
    cdef uint32_t code
    cdef uint32_t high                  # pending high surrogate, 0 if none
    cdef uint8_t tail[4]                # incomplete UTF-8 sequence (bytes input)
    cdef int tail_len
    cdef int tail_need
    cdef Py_ssize_t tail_pos
    cdef char* buf                      # decoded text not yet handed out, buf_kind bytes a character
    cdef int buf_kind                   # 1, 2 or 4 (PEP 393): as wide as its widest character needs
    cdef Py_ssize_t buf_len             # in characters
    cdef Py_ssize_t buf_cap             # in bytes
    cdef bint buf_ascii                 # buf holds only ASCII (a str of it needs no scan)
    cdef bint src_ascii                 # the str chunk being read is ASCII
    # numbers and literals
    cdef int num
    cdef char* numbuf
    cdef Py_ssize_t num_len
    cdef Py_ssize_t num_cap
    cdef int lit
    cdef int lit_idx
    # spans and duplicate keys (see Tokenizer)
    cdef readonly Py_ssize_t start      # where the current value began
    cdef Py_ssize_t hold                # where the pending escape began
    cdef list key_sets                  # one set of keys per open object; None unless catching duplicates
    cdef int busy                       # 0 idle, 1 in a call, 2 broken by concurrent use (see _guard.pxd)

    def __cinit__(self):
        self.stack = NULL
        self.buf = NULL
        self.buf_kind = 1
        self.buf_ascii = True
        self.numbuf = NULL
        self.max_depth = 512  # usable (and safe) even when __init__ is skipped
        self.replace_surrogates = True
        self.line = 1
        self.last_nl = -1

    def __init__(self, Py_ssize_t max_depth=512, str surrogates="replace", bint catch_duplicate_keys=False):
        cdef int seen = argstream_guard_enter(&self.busy)
        if seen:
            guard_refused(seen, "tokenizer")
        try:
            self._setup(max_depth, surrogates, catch_duplicate_keys)
        finally:
            argstream_guard_leave(&self.busy)

    cdef int _setup(self, Py_ssize_t max_depth, str surrogates, bint catch_duplicate_keys) except -1:
        if surrogates != "replace" and surrogates != "pass":
            raise ValueError("surrogates must be 'replace' or 'pass'")
        if max_depth < 1:
            raise ValueError("max_depth must be at least 1")
        self.max_depth = max_depth
        self.replace_surrogates = surrogates == "replace"
        self.state = ST_VALUE
        self.line = 1
        self.last_nl = -1
        self.key_sets = [] if catch_duplicate_keys else None
        return 0

    def __dealloc__(self):
        PyMem_Free(self.stack)
        PyMem_Free(self.buf)
        PyMem_Free(self.numbuf)

    cdef int feed(self, const unsigned char* data, Py_ssize_t n, Sink sink) except -1:
        """Tokenize ``n`` bytes of UTF-8."""
        cdef Py_ssize_t base = self.pos
        cdef int rc
        if n == 0:
            if self.error is not None:
                raise self.error.with_traceback(None)
            return 0
        _check(self, 2)
        rc = (<run8_t>_run[uint8_t])(self, <const uint8_t*>data, n, base, True, sink)
        return _fed(self, base + n, rc)

    cdef int feed_str(self, str s, Sink sink) except -1:
        """Tokenize a ``str`` chunk, read in place."""
        cdef Py_ssize_t n = PyUnicode_GET_LENGTH(s)
        cdef int kind, rc
        cdef void* data
        cdef Py_ssize_t base = self.pos
        if n == 0:
            if self.error is not None:
                raise self.error.with_traceback(None)
            return 0
        _check(self, 1)
        kind = PyUnicode_KIND(s)
        data = PyUnicode_DATA(s)
        self.src_ascii = PyUnicode_IS_ASCII(s)
        if kind == 1:
            rc = (<run8_t>_run[uint8_t])(self, <const uint8_t*>data, n, base, False, sink)
        elif kind == 2:
            rc = (<run16_t>_run[uint16_t])(self, <const uint16_t*>data, n, base, False, sink)
        else:
            rc = (<run32_t>_run[uint32_t])(self, <const uint32_t*>data, n, base, False, sink)
        return _fed(self, base + n, rc)

    cdef int end(self, Sink sink) except -1:
        """No more input: complete a bare root number, or raise ``IncompleteJSONError``."""
        cdef int code
        if self.error is not None:
            raise self.error.with_traceback(None)
        if self.state == ST_END:
            return 0
        if self.state == ST_NUMBER and self.depth == 0 and (
            self.num == NUM_ZERO or self.num == NUM_INT or self.num == NUM_FRAC or self.num == NUM_EXP
        ):
            if (<emit_t>_emit_number)(self, sink, self.pos) == -1:
                return _broken(self)
            self.state = ST_END
            return 0
        if self.state == ST_STRING or self.state == ST_KEY_STRING:
            code = ERR_EOF_STRING
        elif self.state == ST_NUMBER:
            code = ERR_EOF_NUMBER
        elif self.state == ST_LITERAL:
            code = ERR_EOF_LITERAL
        elif self.depth == 0:
            code = ERR_EOF_VALUE
        elif self.stack[self.depth - 1] == CT_OBJECT:
            code = ERR_EOF_OBJECT
        else:
            code = ERR_EOF_ARRAY
        _fail(self, code, self.pos)
        return -1

    def push(self, chunk, sink):
        """Tokenize one chunk (``str``, or bytes-like UTF-8), reporting to ``sink``.

        ``sink`` is a ``Sink`` subclass (cdef) or any object with the ``on_*`` methods.
        """
        cdef Sink s = sink if isinstance(sink, Sink) else PySink(sink)
        _feed_any(self, chunk, s)

    def finish(self, sink):
        """No more input; see ``end``."""
        cdef Sink s = sink if isinstance(sink, Sink) else PySink(sink)
        tokenizer_end(self, s)

    @property
    def done(self):
        return self.state == ST_END


cdef int _feed_any(Tokenizer t, object chunk, Sink sink) except -1:
    """Feed one chunk, for one caller at a time (``ConcurrentUseError`` for another, see ``_guard.pxd``)."""
    cdef int seen = argstream_guard_enter(&t.busy)
    if seen:
        return guard_refused(seen, "tokenizer")
    try:
        if t.error is not None:  # the sticky error comes before judging the chunk
            raise t.error.with_traceback(None)
        if type(chunk) is str:
            return t.feed_str(<str>chunk, sink)
        if type(chunk) is bytes:
            return t.feed(<const unsigned char*><char*>chunk, len(<bytes>chunk), sink)
        if isinstance(chunk, str):
            return t.feed_str(str(chunk), sink)
        return _feed_buffer(t, chunk, sink)
    finally:
        argstream_guard_leave(&t.busy)


cdef int _feed_buffer(Tokenizer t, object chunk, Sink sink) except -1:
    """A bytes-like chunk other than ``bytes`` (kept apart: its buffer view costs every call that declares it)."""
    cdef const unsigned char[::1] view
    if isinstance(chunk, (bytearray, memoryview)):
        try:
            view = chunk
        except (ValueError, TypeError, BufferError):  # not C-contiguous or not bytes-formatted
            view = bytes(chunk)
        if view.shape[0] == 0:
            return t.feed(NULL, 0, sink)
        return t.feed(&view[0], view.shape[0], sink)
    raise TypeError(f"chunks are str or bytes-like, not {type(chunk).__name__}")


# ---------------------------------------------------------------------------
# The C API (declared in _tokenizer.pxd)
# ---------------------------------------------------------------------------

cdef object tokenizer_new(Py_ssize_t max_depth, str surrogates, bint catch_duplicate_keys):
    cdef Tokenizer t = Tokenizer.__new__(Tokenizer)  # (``__init__``'s work without its arguments parsed)
    t._setup(max_depth, surrogates, catch_duplicate_keys)
    return t


cdef int _feed(Tokenizer t, const unsigned char* data, Py_ssize_t n, Sink sink) except -1:
    return t.feed(data, n, sink)


cdef int _feed_str(Tokenizer t, str s, Sink sink) except -1:
    return t.feed_str(s, sink)


cdef int _end(Tokenizer t, Sink sink) except -1:
    return t.end(sink)


cdef int tokenizer_feed(object tok, const unsigned char* data, Py_ssize_t n, Sink sink) except -1:
    cdef Tokenizer t = <Tokenizer?>tok
    cdef int rc
    cdef int seen = argstream_guard_enter(&t.busy)
    if seen:
        return guard_refused(seen, "tokenizer")
    rc = (<feed_t>_feed)(t, data, n, sink)
    argstream_guard_leave(&t.busy)
    return rc


cdef int tokenizer_feed_str(object tok, str s, Sink sink) except -1:
    cdef Tokenizer t = <Tokenizer?>tok
    cdef int rc
    cdef int seen = argstream_guard_enter(&t.busy)
    if seen:
        return guard_refused(seen, "tokenizer")
    rc = (<feed_str_t>_feed_str)(t, s, sink)
    argstream_guard_leave(&t.busy)
    return rc


cdef int tokenizer_check(object tok) except -1:
    cdef Tokenizer t = <Tokenizer?>tok
    if t.error is not None:
        raise t.error.with_traceback(None)
    return 0


cdef int tokenizer_push(object tok, object chunk, Sink sink) except -1:
    return _feed_any(<Tokenizer?>tok, chunk, sink)


cdef int tokenizer_end(object tok, Sink sink) except -1:
    cdef Tokenizer t = <Tokenizer?>tok
    cdef int rc
    cdef int seen = argstream_guard_enter(&t.busy)
    if seen:
        return guard_refused(seen, "tokenizer")
    rc = (<end_t>_end)(t, sink)
    argstream_guard_leave(&t.busy)
    return rc


cdef bint tokenizer_done(object tok) except -1:
    return (<Tokenizer?>tok).state == ST_END


cdef Py_ssize_t tokenizer_position(object tok) except -1:
    return (<Tokenizer?>tok).pos


cdef Py_ssize_t tokenizer_offset(object tok) except -1:
    return (<Tokenizer?>tok).offset


cdef Py_ssize_t tokenizer_start(object tok) except -1:
    return (<Tokenizer?>tok).start


cdef Py_ssize_t tokenizer_data_end(object tok) except -1:
    cdef Tokenizer t = <Tokenizer?>tok
    return t.hold if (t.esc or t.high) else t.offset
