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
