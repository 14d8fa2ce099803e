"""Chooses the compiled core or its pure-Python twin, once, at import (like yarl's ``_quoting``).

``ARGSTREAM_PURE=1`` forces the twin. Otherwise the compiled ``_tokenizer`` is
used when it imports; when it does not (a pure build, PyPy), the twin runs and
a ``RuntimeWarning`` says so on CPython.
"""

from __future__ import annotations

import os
import platform
import warnings
from types import ModuleType
from typing import TYPE_CHECKING

PURE = os.environ.get("ARGSTREAM_PURE", "") not in ("", "0")

core: ModuleType | None = None
if not (TYPE_CHECKING or PURE):
    try:
        from . import _tokenizer as core  # type: ignore[no-redef]
    except ImportError as exc:  # pragma: no cover - depends on the build
        if os.environ.get("ARGSTREAM_REQUIRE_EXTENSION", "") not in ("", "0"):
            raise
        if platform.python_implementation() == "CPython":
            warnings.warn(
                f"argstream: compiled core unavailable ({exc}); using the pure-Python twin",
                RuntimeWarning,
                stacklevel=2,
            )
        core = None

BACKEND: str = "cython" if core is not None else "python"

if core is not None:
    Scalar = core.Scalar
    String = core.String
    ArrayItem = core.ArrayItem
    ObjectEntry = core.ObjectEntry
else:
    from ._fragments_py import ArrayItem, ObjectEntry, Scalar, String  # noqa: F401
