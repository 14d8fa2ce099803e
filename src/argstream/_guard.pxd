# cython: language_level=3
# One caller at a time on a tokenizer or parser (see ``errors.ConcurrentUseError``), for the modules of
# the compiled core. ``state`` is an ``int`` field of the guarded object: 0 idle, 1 in a call, 2 broken
# (a call found it in use, so a chunk is missing: it stays broken). Without the GIL the test and the set
# are one atomic compare-exchange; with it, no other thread runs between them, so plain reads and writes
# do (a callback that re-enters is caught the same way). ``argstream_guard_enter`` returns 0 when the
# caller may go on, else the state it found (1 or 2); ``argstream_guard_leave`` ends a call that entered.

cdef extern from *:
    """
    #if defined(Py_GIL_DISABLED) || defined(ARGSTREAM_ATOMIC_GUARD)
    static inline int argstream_guard_enter(int *state) {
        int seen = 0;
        if (_Py_atomic_compare_exchange_int(state, &seen, 1)) return 0;
        _Py_atomic_store_int(state, 2);  /* refused: broken for good, whatever the owner does next */
        return seen;
    }
    static inline void argstream_guard_leave(int *state) {
        int busy = 1;
        (void)_Py_atomic_compare_exchange_int(state, &busy, 0);
    }
    static inline int argstream_guard_enter_read(int *state) {
        int seen = 0;
        return _Py_atomic_compare_exchange_int(state, &seen, 1) ? 0 : seen;
    }
    #else
    static inline int argstream_guard_enter(int *state) {
        int seen = *state;
        if (seen == 0) { *state = 1; return 0; }
        *state = 2;
        return seen;
    }
    static inline void argstream_guard_leave(int *state) {
        if (*state == 1) *state = 0;
    }
    static inline int argstream_guard_enter_read(int *state) {
        int seen = *state;
        if (seen == 0) *state = 1;
        return seen;
    }
    #endif
    """
    int argstream_guard_enter(int* state) nogil
    int argstream_guard_enter_read(int* state) nogil  # the same, but a refusal breaks nothing (a read)
    void argstream_guard_leave(int* state) nogil


cdef inline int guard_refused(int seen, str what) except -1:
    """Raise the ``ConcurrentUseError`` of a refused ``argstream_guard_enter`` (cold)."""
    from argstream.errors import concurrent_use
    raise concurrent_use(what, seen == 2)
