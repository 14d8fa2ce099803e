"""What a benchmark run measures: argstream (from the working tree when not installed) and its peers' versions.

Imported first by ``conftest.py`` and ``quick.py``: an installed argstream wins, else ``src/`` is put on
the path (run from a checkout with the core built in place).
"""

from __future__ import annotations

import importlib.metadata
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"

try:
    import argstream  # noqa: F401
except ImportError:  # not installed and no PYTHONPATH=src: use the working tree
    sys.path.insert(0, str(SRC))


def _version(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def versions() -> dict:
    """The backends and peer versions, stored with every result so a saved run says what it measured."""
    import argstream
    from argstream import parser

    info = {
        "argstream": argstream.__version__,
        "argstream_backend": argstream.BACKEND,
        "argstream_cython_available": parser.IncrementalArgParserC is not None,
        # argstream-python builds these too: the compiled ones unless ARGSTREAM_PURE=1
        "fragment_types": argstream.String.__module__,
        **{name: _version(name) for name in ("jiter", "orjson", "ijson", "axio", "json-stream",
                                             "json-stream-rs-tokenizer", "anthropic", "openai", "httpx", "httpx2")},
    }
    try:
        import ijson

        info["ijson_backend"] = ijson.backend
    except ImportError:
        pass
    return info
