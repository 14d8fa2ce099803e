"""Chooses the compiled core or its pure-Python twin, once, at import (like yarl's ``_quoting``).

``ARGSTREAM_PURE=1`` forces the twin. Otherwise the compiled ``_tokenizer`` is
used when it imports; when it does not (a pure build, PyPy), the twin runs and
a ``RuntimeWarning`` says so on CPython.
"""

from __future__ import annotations

import importlib
import os
import platform
import warnings
from types import ModuleType
from typing import TYPE_CHECKING

PURE = os.environ.get("ARGSTREAM_PURE", "") not in ("", "0")


def _unavailable(exc: ImportError) -> str:
    """The warning for a compiled core that does not import, naming the real cause."""
    if isinstance(exc, ModuleNotFoundError) and exc.name == f"{__package__}._tokenizer":
        cause = "the compiled extension was not built (a pure build, ARGSTREAM_PURE_BUILD=1, or not compiled in place)"
    else:
        cause = f"the compiled extension is installed but does not load: {type(exc).__name__}: {exc}"
    return f"argstream: {cause}; using the pure-Python twin (same behaviour, slower)"


core: ModuleType | None = None
if not (TYPE_CHECKING or PURE):
    try:
        # import_module, not ``from . import``: a missing module then says so instead of
        # "partially initialized module ... (most likely due to a circular import)".
        core = importlib.import_module(f"{__package__}._tokenizer")
    except ImportError as exc:  # pragma: no cover - depends on the build
        if os.environ.get("ARGSTREAM_REQUIRE_EXTENSION", "") not in ("", "0"):
            raise
        if platform.python_implementation() == "CPython":
            warnings.warn(_unavailable(exc), RuntimeWarning, stacklevel=2)
        core = None

BACKEND: str = "cython" if core is not None else "python"

if core is not None:
    Scalar = core.Scalar
    String = core.String
    ArrayItem = core.ArrayItem
    ObjectEntry = core.ObjectEntry
else:
    from ._fragments_py import ArrayItem, ObjectEntry, Scalar, String  # noqa: F401
