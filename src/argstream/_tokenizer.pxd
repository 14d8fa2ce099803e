# cython: language_level=3
# The C-level push API of argstream's compiled core (an ABI: changing it is a breaking release).
#
#     from argstream._tokenizer cimport Tokenizer, Sink
#
#     cdef class MySink(Sink):
#         cdef int on_string_data(self, str text) except -1:
#             ...
#
#     tok = Tokenizer(512, "replace")
#     tok.feed(<const unsigned char*>buf, n, sink)   # UTF-8 bytes; or tok.feed_str(s, sink)
#     tok.end(sink)
#
# Every callback returns 0, or -1 with a Python exception set. An exception from a
# callback stops the chunk at that event and breaks the tokenizer: the chunk still
# counts as read (``pos`` moves past it), and that exception becomes the sticky
# error every later ``feed``/``end`` raises again, as a parse error would. The constants
# below are mirrored by argstream._tokenizer_py (a test checks they agree).

from libc.stdint cimport uint8_t, uint32_t

cdef enum:
    EV_BEGIN_OBJECT = 1
    EV_END_OBJECT = 2
    EV_BEGIN_ARRAY = 3
    EV_END_ARRAY = 4
    EV_KEY = 5
    EV_BEGIN_STRING = 6
    EV_STRING_DATA = 7
    EV_END_STRING = 8
    EV_SCALAR = 9

cdef enum:
    ST_VALUE = 0
    ST_ARRAY_FIRST = 1
    ST_OBJECT_FIRST = 2
    ST_KEY = 3
    ST_COLON = 4
    ST_AFTER_VALUE = 5
    ST_STRING = 6
    ST_KEY_STRING = 7
    ST_NUMBER = 8
    ST_LITERAL = 9
    ST_END = 10
    ST_ERROR = 11

cdef enum:
    NUM_MINUS = 0
    NUM_ZERO = 1
    NUM_INT = 2
    NUM_DOT = 3
    NUM_FRAC = 4
    NUM_E = 5
    NUM_E_SIGN = 6
    NUM_EXP = 7

cdef enum:
    CT_OBJECT = 1
    CT_ARRAY = 2

cdef enum:
    ERR_EXPECTING_VALUE = 1
    ERR_EXPECTING_KEY = 2
    ERR_EXPECTING_COLON = 3
    ERR_EXPECTING_COMMA = 4
    ERR_TRAILING_COMMA_OBJECT = 5
    ERR_TRAILING_COMMA_ARRAY = 6
    ERR_CONTROL_CHAR = 7
    ERR_INVALID_ESCAPE = 8
    ERR_INVALID_UNICODE_ESCAPE = 9
    ERR_INVALID_NUMBER = 10
    ERR_INVALID_LITERAL = 11
    ERR_EXTRA_DATA = 12
    ERR_DEPTH = 13
    ERR_UTF8 = 14
    ERR_NUMBER_TOO_LARGE = 15
    ERR_EOF_VALUE = 16
    ERR_EOF_STRING = 17
    ERR_EOF_OBJECT = 18
    ERR_EOF_ARRAY = 19
    ERR_EOF_NUMBER = 20
    ERR_EOF_LITERAL = 21
    ERR_DUPLICATE_KEY = 22


cdef class Sink:
    """Receives the tokenizer's events; override the callbacks you need (the defaults do nothing)."""
    cdef int on_begin_object(self) except -1
    cdef int on_end_object(self) except -1
    cdef int on_begin_array(self) except -1
    cdef int on_end_array(self) except -1
    cdef int on_key(self, str key) except -1
    cdef int on_begin_string(self) except -1
    cdef int on_string_data(self, str text) except -1
    cdef int on_end_string(self) except -1
    cdef int on_scalar(self, object value) except -1


cdef class Tokenizer:
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
    cdef uint32_t* buf                  # decoded text not yet handed out
    cdef Py_ssize_t buf_len
    cdef Py_ssize_t buf_cap
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

    cdef int feed(self, const unsigned char* data, Py_ssize_t n, Sink sink) except -1
    cdef int feed_str(self, str s, Sink sink) except -1
    cdef int end(self, Sink sink) except -1
