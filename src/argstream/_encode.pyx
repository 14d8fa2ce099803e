# cython: language_level=3, embedsignature=True, binding=False
"""Compact JSON text of an argument value a provider sent whole (Gemini ``args``, Ollama ``arguments``).

``compact(value)`` is ``json.dumps(value, ensure_ascii=False, separators=(",", ":"))`` for a value made
only of exact ``dict`` (``str`` keys), ``list``, ``tuple``, ``str``, ``int``, ``float``, ``bool`` and
``None``, nested at most ``MAX_DEPTH`` deep; for anything else (a subclass, an SDK object, another key
type, a deeper value, a number whose text ``repr`` refuses) it returns ``None`` and the caller takes
the general way (``providers._common.json_text``), so every unusual value behaves exactly as before.

``json``'s own encoder writes a string with non-ASCII characters through a character-at-a-time writer
(about 3 ns a character); here the text is measured once (its length and widest character) and then
written into a ``str`` of exactly that size, copying the runs between escapes.

``same_json(a, b)`` tells whether two plain values would have one compact text, without writing it
(``builder``: tools sent again are the ones compiled last).
"""

cimport cython
from cpython.float cimport PyFloat_AS_DOUBLE
from cpython.unicode cimport PyUnicode_DATA, PyUnicode_GET_LENGTH, PyUnicode_KIND
from cpython.dict cimport PyDict_Next
from cpython.ref cimport PyObject
from libc.math cimport isfinite, signbit
from libc.stdint cimport uint8_t, uint16_t, uint32_t
from libc.string cimport memcpy

cdef extern from "Python.h":
    object PyUnicode_New(Py_ssize_t size, Py_UCS4 maxchar)
    Py_UCS4 PyUnicode_MAX_CHAR_VALUE(object o)

#: nesting that stays well within the C stack; ``json.dumps`` is the judge of anything deeper
cdef int MAX_DEPTH = 256

cdef enum:
    LONG = 64  # a string at least this long has its escaped length kept by the first walk, not measured twice

cdef extern from *:
    """
    /* The two scans of a JSON string body: how many characters escaping adds (extra_W), and where the
       next character to escape is (next_special_W), for a str of W-byte characters. A character
       needs escaping when it is '"', '\\' or below 0x20. With SSE2 (every x86-64) whole 16-byte
       blocks are tested first; the characters after the last whole block, and every character
       elsewhere, one at a time. */
    #include <stdint.h>
    #if defined(__SSE2__)
    #include <emmintrin.h>
    static inline int argstream_ones(int m) {  /* the set bits of a 16-bit mask, without a libgcc call */
        m = m - ((m >> 1) & 0x5555);
        m = (m & 0x3333) + ((m >> 2) & 0x3333);
        m = (m + (m >> 4)) & 0x0f0f;
        return (m + (m >> 8)) & 0x1f;
    }
    /* the byte masks of a block's control characters and of its quotes and backslashes; their union */
    #define ARGSTREAM_MASKS(W, T, SET1, CMPEQ)                                                          \
    static inline int argstream_special_##W(const T* s, int* control, int* quoted) {                    \
        __m128i v = _mm_loadu_si128((const __m128i*)s);                                                 \
        *control = _mm_movemask_epi8(CMPEQ(_mm_and_si128(v, SET1((T)~(T)0x1f)), _mm_setzero_si128()));  \
        *quoted = _mm_movemask_epi8(_mm_or_si128(CMPEQ(v, SET1(0x22)), CMPEQ(v, SET1(0x5c))));          \
        return *control | *quoted;                                                                      \
    }                                                                                                   \
    /* the byte mask of a block's \b \t \n \f \r, which escape in two characters, not six */            \
    static inline int argstream_brief_##W(const T* s) {                                                 \
        __m128i v = _mm_loadu_si128((const __m128i*)s);                                                 \
        __m128i b = _mm_or_si128(_mm_or_si128(CMPEQ(v, SET1(8)), CMPEQ(v, SET1(9))),                    \
                                 _mm_or_si128(CMPEQ(v, SET1(10)),                                       \
                                              _mm_or_si128(CMPEQ(v, SET1(12)), CMPEQ(v, SET1(13)))));   \
        return _mm_movemask_epi8(b);                                                                    \
    }
    #define argstream_set1_8(x) _mm_set1_epi8((char)(x))
    #define argstream_set1_16(x) _mm_set1_epi16((short)(x))
    #define argstream_set1_32(x) _mm_set1_epi32((int)(x))
    ARGSTREAM_MASKS(1, uint8_t, argstream_set1_8, _mm_cmpeq_epi8)
    ARGSTREAM_MASKS(2, uint16_t, argstream_set1_16, _mm_cmpeq_epi16)
    ARGSTREAM_MASKS(4, uint32_t, argstream_set1_32, _mm_cmpeq_epi32)
    #define ARGSTREAM_EXTRA_BLOCKS(W)                                                                   \
        for (; i + 16 / W <= n; i += 16 / W) {                                                          \
            int control, quoted, brief;                                                                 \
            if (!argstream_special_##W(s + i, &control, &quoted)) continue;                             \
            total += argstream_ones(quoted) / W;                                                        \
            if (control) {                                                                              \
                brief = argstream_brief_##W(s + i);                                                     \
                total += (argstream_ones(brief) + 5 * argstream_ones(control & ~brief)) / W;            \
            }                                                                                           \
        }
    #define ARGSTREAM_NEXT_BLOCKS(W)                                                                    \
        for (; i + 16 / W <= n; i += 16 / W) {                                                          \
            int control, quoted, m = argstream_special_##W(s + i, &control, &quoted);                   \
            if (m) return i + __builtin_ctz(m) / W;                                                     \
        }
    #else
    #define ARGSTREAM_EXTRA_BLOCKS(W)
    #define ARGSTREAM_NEXT_BLOCKS(W)
    #endif
    #define ARGSTREAM_SCANS(W, T)                                                                       \
    static Py_ssize_t extra_##W(const T* s, Py_ssize_t n) {                                             \
        Py_ssize_t total = 0, i = 0;                                                                    \
        ARGSTREAM_EXTRA_BLOCKS(W)                                                                       \
        for (; i < n; i++) {                                                                            \
            uint32_t c = s[i];                                                                          \
            if (c == 0x22 || c == 0x5c) total += 1;                                                     \
            else if (c < 0x20) total += (c == 8 || c == 9 || c == 10 || c == 12 || c == 13) ? 1 : 5;    \
        }                                                                                               \
        return total;                                                                                   \
    }                                                                                                   \
    static inline Py_ssize_t next_special_##W(const T* s, Py_ssize_t i, Py_ssize_t n) {                 \
        ARGSTREAM_NEXT_BLOCKS(W)                                                                        \
        for (; i < n; i++) {                                                                            \
            uint32_t c = s[i];                                                                          \
            if (c < 0x20 || c == 0x22 || c == 0x5c) return i;                                           \
        }                                                                                               \
        return n;                                                                                       \
    }
    ARGSTREAM_SCANS(1, uint8_t)
    ARGSTREAM_SCANS(2, uint16_t)
    ARGSTREAM_SCANS(4, uint32_t)
    """
    Py_ssize_t extra_1(const uint8_t* s, Py_ssize_t n) nogil
    Py_ssize_t extra_2(const uint16_t* s, Py_ssize_t n) nogil
    Py_ssize_t extra_4(const uint32_t* s, Py_ssize_t n) nogil
    Py_ssize_t next_special_1(const void* s, Py_ssize_t i, Py_ssize_t n) nogil
    Py_ssize_t next_special_2(const void* s, Py_ssize_t i, Py_ssize_t n) nogil
    Py_ssize_t next_special_4(const void* s, Py_ssize_t i, Py_ssize_t n) nogil

ctypedef fused src_t:  # a str's characters, by its kind (plain integers: Cython's Py_UCS4 is a character type)
    uint8_t
    uint16_t
    uint32_t

ctypedef fused dst_t:
    uint8_t
    uint16_t
    uint32_t


cdef inline Py_ssize_t copy(const src_t* s, Py_ssize_t n, dst_t* d) noexcept nogil:
    """Copy ``n`` characters from ``s`` to ``d`` (a wider ``dst_t`` widens them); return ``n``."""
    cdef Py_ssize_t i
    if src_t is dst_t:
        memcpy(d, s, <size_t>n * sizeof(dst_t))
    else:
        for i in range(n):
            d[i] = <dst_t>s[i]
    return n


cdef inline Py_ssize_t put_escaped(const src_t* s, Py_ssize_t n, dst_t* d) noexcept nogil:
    """Write ``s`` escaped at ``d``; return the characters written. The runs between the characters to
    escape (found by ``next_special``) are copied at once."""
    cdef Py_ssize_t i = 0, j = 0, at
    cdef unsigned int c
    while True:
        if src_t is uint8_t:
            at = next_special_1(s, i, n)
        elif src_t is uint16_t:
            at = next_special_2(s, i, n)
        else:
            at = next_special_4(s, i, n)
        j += copy(s + i, at - i, d + j)
        if at == n:
            return j
        c = s[at]
        i = at + 1
        d[j] = 0x5c
        j += 2
        if c == 0x22 or c == 0x5c:
            d[j - 1] = <dst_t>c
        elif c == 0x0a:
            d[j - 1] = 0x6e
        elif c == 0x0d:
            d[j - 1] = 0x72
        elif c == 0x09:
            d[j - 1] = 0x74
        elif c == 0x08:
            d[j - 1] = 0x62
        elif c == 0x0c:
            d[j - 1] = 0x66
        else:
            d[j - 1] = 0x75
            d[j] = 0x30
            d[j + 1] = 0x30
            d[j + 2] = 0x30 + (c >> 4)
            d[j + 3] = (0x30 + (c & 15)) if (c & 15) < 10 else (0x61 + (c & 15) - 10)
            j += 4


cdef Py_ssize_t escaped_length(str text) noexcept:
    """The length of ``text`` as a JSON string literal, quotes included."""
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(text)
    if kind == 1:
        return n + 2 + extra_1(<uint8_t*>data, n)
    if kind == 2:
        return n + 2 + extra_2(<uint16_t*>data, n)
    return n + 2 + extra_4(<uint32_t*>data, n)


@cython.final
cdef class Measure:
    """The first walk: the output's length and widest character, and in ``known``, in the order met, the
    text of every number (a ``str``) and of each long string a ``(string, escaped length)`` pair (for the
    second walk; the two kinds of entry cannot be taken for each other)."""
    cdef Py_ssize_t size
    cdef Py_UCS4 maxchar
    cdef list known

    cdef bint string(self, str text) except -1:
        cdef Py_UCS4 m = PyUnicode_MAX_CHAR_VALUE(text)
        cdef Py_ssize_t length = escaped_length(text)
        if m > self.maxchar:
            self.maxchar = m
        if PyUnicode_GET_LENGTH(text) >= LONG:
            self.known.append((text, length))
        self.size += length
        return True

    cdef bint walk(self, object value, int depth) except -1:
        """Add ``value``; ``False`` when it is not one this module writes."""
        cdef type t = type(value)
        cdef Py_ssize_t n
        cdef double x
        cdef str text
        if t is str:
            return self.string(<str>value)
        if value is None or value is True:
            self.size += 4
            return True
        if value is False:
            self.size += 5
            return True
        if t is int:
            text = repr(value)
            self.known.append(text)
            self.size += PyUnicode_GET_LENGTH(text)
            return True
        if t is float:
            x = PyFloat_AS_DOUBLE(value)
            if isfinite(x):
                text = repr(value)
            else:
                text = u"NaN" if x != x else (u"Infinity" if x > 0 else u"-Infinity")
            self.known.append(text)
            self.size += PyUnicode_GET_LENGTH(text)
            return True
        if depth >= MAX_DEPTH:
            return False
        if t is dict:
            n = len(<dict>value)
            self.size += 2 + (2 * n - 1 if n else 0)  # braces, a colon per entry, commas between
            for k, v in (<dict>value).items():
                if type(k) is not str:
                    return False
                self.string(<str>k)
                if not self.walk(v, depth + 1):
                    return False
            return True
        if t is list or t is tuple:
            n = len(value)
            self.size += 2 + (n - 1 if n else 0)
            for v in value:
                if not self.walk(v, depth + 1):
                    return False
            return True
        return False


cdef inline bint fits(str text, Py_ssize_t at, Py_ssize_t size, int width, list known, Py_ssize_t* k):
    """Whether ``text`` escaped fits between ``at`` and ``size`` in a buffer of ``width``-byte characters.
    A long string's length is the first walk's when ``known`` holds it next (the very object), else
    measured again."""
    cdef Py_ssize_t length
    cdef object entry
    if PyUnicode_KIND(text) > width:
        return False
    entry = known[k[0]] if PyUnicode_GET_LENGTH(text) >= LONG and k[0] < len(known) else None
    if type(entry) is tuple and (<tuple>entry)[0] is text:
        length = <Py_ssize_t>(<tuple>entry)[1]
        k[0] += 1
    else:
        length = escaped_length(text)
    return at + length <= size


cdef inline Py_ssize_t put_text(str text, dst_t* d) noexcept:
    """Copy ``text`` (ASCII: a number's, ``null``, ..., checked by the caller) to ``d``; return its length."""
    cdef Py_ssize_t i, n = PyUnicode_GET_LENGTH(text)
    cdef const uint8_t* s = <const uint8_t*>PyUnicode_DATA(text)
    for i in range(n):
        d[i] = s[i]
    return n


cdef inline Py_ssize_t put_string(str text, dst_t* d) noexcept:
    """Write ``text`` as a JSON string literal at ``d``; return the characters written."""
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(text)
    cdef Py_ssize_t j
    d[0] = 0x22  # the caller checked that the text fits and that its characters fit dst_t
    if kind == 1:
        j = put_escaped(<uint8_t*>data, n, d + 1)
    elif kind == 2:
        j = put_escaped(<uint16_t*>data, n, d + 1)
    else:
        j = put_escaped(<uint32_t*>data, n, d + 1)
    d[j + 1] = 0x22
    return j + 2


cdef Py_ssize_t put(object value, dst_t* d, Py_ssize_t at, Py_ssize_t size, list known, Py_ssize_t* k) except -2:
    """The second walk: write ``value`` at ``d + at``; return the end, or -1 when the value no longer has the
    size the first walk measured (nothing is written past ``size``)."""
    cdef type t = type(value)
    cdef str text
    cdef bint first = True
    cdef unsigned int close
    if t is str:
        if not fits(<str>value, at, size, <int>sizeof(dst_t), known, k):
            return -1
        return at + put_string(<str>value, d + at)
    if t is int or t is float:
        if k[0] >= len(known) or type(known[k[0]]) is not str:
            return -1
        text = <str>known[k[0]]
        k[0] += 1
    elif value is None:
        text = u"null"
    elif value is True:
        text = u"true"
    elif value is False:
        text = u"false"
    else:
        text = None
    if text is not None:
        if at + PyUnicode_GET_LENGTH(text) > size:
            return -1
        return at + put_text(text, d + at)
    if at >= size:
        return -1
    if t is dict:
        d[at] = 0x7b
        at += 1
        for key, v in (<dict>value).items():
            if type(key) is not str or not fits(<str>key, at + (0 if first else 1), size - 1, <int>sizeof(dst_t),
                                                    known, k):
                return -1
            if not first:
                d[at] = 0x2c
                at += 1
            first = False
            at += put_string(<str>key, d + at)
            d[at] = 0x3a
            at = put(v, d, at + 1, size, known, k)
            if at < 0:
                return -1
        close = 0x7d
    elif t is list or t is tuple:
        d[at] = 0x5b
        at += 1
        for v in value:
            if not first:
                if at >= size:
                    return -1
                d[at] = 0x2c
                at += 1
            first = False
            at = put(v, d, at, size, known, k)
            if at < 0:
                return -1
        close = 0x5d
    else:
        return -1
    if at >= size:
        return -1
    d[at] = close
    return at + 1


cpdef object compact(object value):
    """``json.dumps(value, ensure_ascii=False, separators=(",", ":"))`` for a plain value, else ``None``."""
    cdef Measure m = Measure.__new__(Measure)
    cdef Py_ssize_t k = 0
    cdef Py_ssize_t end
    cdef int kind
    m.maxchar = 0x7f
    m.known = []
    try:
        if not m.walk(value, 0):
            return None
    except Exception:  # a dict changed size while read, a number repr refused: the general way decides
        return None
    out = PyUnicode_New(m.size, m.maxchar)
    kind = PyUnicode_KIND(out)
    try:
        if kind == 1:
            end = put(value, <uint8_t*>PyUnicode_DATA(out), 0, m.size, m.known, &k)
        elif kind == 2:
            end = put(value, <uint16_t*>PyUnicode_DATA(out), 0, m.size, m.known, &k)
        else:
            end = put(value, <uint32_t*>PyUnicode_DATA(out), 0, m.size, m.known, &k)
    except Exception:
        return None
    if end != m.size or k != len(m.known):
        return None
    return out


cpdef bint same_json(object a, object b) except -1:
    """Whether ``a`` and ``b`` are one plain JSON value: exact ``dict`` (``str`` keys, in the same order),
    ``list``, ``str``, ``int``, ``float``, ``bool`` and ``None`` alike and equal, nested at most
    ``MAX_DEPTH`` deep (deeper: ``False``). Two such values have one compact text (``compact``); this
    tells it without writing the text. Runs no code of the values' own (every type is exact)."""
    return same(a, b, 0)


cdef bint same(object a, object b, int depth) except -1:
    cdef object kind = type(a)
    cdef Py_ssize_t pa = 0, pb = 0
    cdef PyObject *ka
    cdef PyObject *va
    cdef PyObject *kb
    cdef PyObject *vb
    cdef double x, y
    cdef Py_ssize_t i, n
    if type(b) is not kind:
        return False
    if kind is str or kind is int:
        return a == b
    if kind is bool or a is None:
        return a is b
    if kind is float:
        x = PyFloat_AS_DOUBLE(a)
        y = PyFloat_AS_DOUBLE(b)
        return x == y and signbit(x) == signbit(y)
    if depth >= MAX_DEPTH:
        return False
    if kind is list:
        n = len(<list>a)
        if len(<list>b) != n:
            return False
        for i in range(n):
            if not same((<list>a)[i], (<list>b)[i], depth + 1):
                return False
        return True
    if kind is dict:
        if len(<dict>a) != len(<dict>b):
            return False
        while PyDict_Next(a, &pa, &ka, &va):
            if not PyDict_Next(b, &pb, &kb, &vb):
                return False
            if type(<object>ka) is not str or type(<object>kb) is not str or <object>ka != <object>kb:
                return False
            if not same(<object>va, <object>vb, depth + 1):
                return False
        return True
    return False
