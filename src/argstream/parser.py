"""``IncrementalArgParser``, from the compiled core when it is available (see ``_backend``).

``TokenizerC`` / ``TokenizerPy`` and ``IncrementalArgParserC`` /
``IncrementalArgParserPy`` name both implementations explicitly (``*C`` is
``None`` when the extension is not in use), for differential tests and for
code that wants one in particular.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import _backend, _tokenizer_py
from ._backend import BACKEND

__all__ = ["IncrementalArgParser", "BACKEND"]

IncrementalArgParserPy = _tokenizer_py.IncrementalArgParser
TokenizerPy = _tokenizer_py.Tokenizer

if TYPE_CHECKING or _backend.core is None:
    IncrementalArgParserC = None
    TokenizerC = None
    IncrementalArgParser = IncrementalArgParserPy
else:
    IncrementalArgParserC = _backend.core.IncrementalArgParser
    TokenizerC = _backend.core.Tokenizer
    IncrementalArgParser = IncrementalArgParserC
