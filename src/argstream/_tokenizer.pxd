# cython: language_level=3
# The C API of argstream's compiled tokenizer (an ABI: changing it is a breaking release).
# Like fastrlock's, it is a sink class plus functions; the tokenizer's layout stays private.
#
#     from argstream._sink cimport Sink
#     from argstream._tokenizer cimport tokenizer_new, tokenizer_feed, tokenizer_end
#
#     cdef class MySink(Sink):
#         cdef int on_string_data(self, str text) except -1:
#             ...
#
#     tok = tokenizer_new(512, "replace", False)
#     tokenizer_feed(tok, <const unsigned char*>buf, n, sink)   # UTF-8 bytes; or tokenizer_feed_str(tok, s, sink)
#     tokenizer_end(tok, sink)
#
# ``tok`` is an ``argstream._tokenizer.Tokenizer`` (the same object Python code
# drives with ``push``/``finish``); the functions check its type. Every function
# returns 0 (or the value asked for), or -1 with a Python exception set. Errors are
# sticky: after a parse error, or an exception raised by a sink callback (which
# stops the chunk at that event; the chunk still counts as read), every later
# feed or end raises that exception again. See ``_sink.pxd`` for the callbacks.
# A tokenizer takes one caller at a time: a feed or end entered while another is
# running (another thread, or a sink callback re-entering) raises
# ``argstream.ConcurrentUseError``, and so does every later one (a chunk is missing).
#
# The constants are defined here once, as ``cpdef enum``s (also visible from
# Python on ``argstream._tokenizer``); ``argstream._tokenizer_py`` mirrors them
# for the pure twin and a test checks they agree.

from argstream._sink cimport Sink

cpdef enum Event:
    EV_BEGIN_OBJECT = 1
    EV_END_OBJECT = 2
    EV_BEGIN_ARRAY = 3
    EV_END_ARRAY = 4
    EV_KEY = 5
    EV_BEGIN_STRING = 6
    EV_STRING_DATA = 7
    EV_END_STRING = 8
    EV_SCALAR = 9

cpdef enum State:
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

cpdef enum NumberState:
    NUM_MINUS = 0
    NUM_ZERO = 1
    NUM_INT = 2
    NUM_DOT = 3
    NUM_FRAC = 4
    NUM_E = 5
    NUM_E_SIGN = 6
    NUM_EXP = 7

cpdef enum Container:
    CT_OBJECT = 1
    CT_ARRAY = 2

cpdef enum Error:
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


# a new tokenizer; surrogates is "replace" or "pass"
cdef object tokenizer_new(Py_ssize_t max_depth, str surrogates, bint catch_duplicate_keys)
# tokenize n bytes of UTF-8
cdef int tokenizer_feed(object tok, const unsigned char* data, Py_ssize_t n, Sink sink) except -1
# tokenize a str chunk, read in place
cdef int tokenizer_feed_str(object tok, str s, Sink sink) except -1
# raise the sticky error, if there is one (before looking at a chunk)
cdef int tokenizer_check(object tok) except -1
# tokenize a str or bytes-like chunk
cdef int tokenizer_push(object tok, object chunk, Sink sink) except -1
# no more input: complete a bare root number, or raise IncompleteJSONError
cdef int tokenizer_end(object tok, Sink sink) except -1
# the root value is complete
cdef bint tokenizer_done(object tok) except -1
# units consumed so far
cdef Py_ssize_t tokenizer_position(object tok) except -1
# during a callback: input read when the event fired (see Tokenizer.offset)
cdef Py_ssize_t tokenizer_offset(object tok) except -1
# during a callback: where the current value began (for a string, its opening quote)
cdef Py_ssize_t tokenizer_start(object tok) except -1
# during on_string_data: where the raw input of the text handed out ends (before a pending escape)
cdef Py_ssize_t tokenizer_data_end(object tok) except -1
