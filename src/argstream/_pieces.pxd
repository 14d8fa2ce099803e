# cython: language_level=3
"""The compiled twin of ``_pieces_py``, for the compiled holders of a streaming string's pieces."""

cdef enum:
    PIECES_EVERY = 256  # _pieces_py.PIECES_EVERY
    PIECES_RUN = 32  # _pieces_py.PIECES_RUN
    PIECES_LONG = 1024  # _pieces_py.PIECES_LONG

cdef int compact_pieces(object pieces) except -1
