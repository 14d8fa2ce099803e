"""``IncrementalArgParser``, from the compiled core when it is available (chosen by ``_backend``).

``TokenizerC`` / ``TokenizerPy`` and ``IncrementalArgParserC`` /
``IncrementalArgParserPy`` name both implementations explicitly (``*C`` is
``None`` when the extension is not in use), for differential tests and for
code that wants one in particular.
"""

from __future__ import annotations

from ._backend import (  # noqa: F401 - re-exported
    BACKEND,
    IncrementalArgParser,
    IncrementalArgParserC,
    IncrementalArgParserPy,
    TokenizerC,
    TokenizerPy,
)

__all__ = ["IncrementalArgParser", "BACKEND"]
