"""The fuzz targets by name, and the seeds each starts from (the corpus, see ``make_corpus.py``)."""

from __future__ import annotations

from typing import Callable, Iterator

from . import NAMES
from .core import lenient, parser
from .policy import policy
from .providers import provider
from .textcalls import textcalls
from .wire import wire

TARGETS: dict[str, Callable[[bytes], None]] = {
    "parser": parser,
    "lenient": lenient,
    "wire": wire,
    "provider": provider,
    "textcalls": textcalls,
    "policy": policy,
}
assert tuple(TARGETS) == NAMES

# What a seed document needs in front of it to reach the target as itself: the choice bytes that
# the target draws before the rest (options, mode, chunk sizes). Two prefixes per document: read
# whole, and cut into small chunks.
PREFIXES: dict[str, list[bytes]] = {
    "parser": [b"\x00\x00" + b"\x00" * 9, b"\x00\x00" + b"\x03\x03\x01\x07" + b"\x00" * 5],
    "lenient": [b"\x00\x01" + b"\x00" * 9, b"\x00\x01" + b"\x03\x03\x01\x07" + b"\x00" * 5],
    "wire": [b"\x00\x00" + b"\x00" * 9, b"\x00\x00" + b"\x03\x05\x01\x0f" + b"\x00" * 5],
}


def seeds(name: str, documents: Iterator[bytes]) -> Iterator[bytes]:
    """Corpus inputs for ``name`` from raw documents (JSON texts for the parsers, stream bodies for
    ``wire``); the other targets draw their seeds themselves and take short choice strings."""
    if name in PREFIXES:
        for doc in documents:
            for prefix in PREFIXES[name]:
                yield prefix + doc
    else:
        for n in range(64):  # each seed stream of each provider, each format, a few mutations
            yield bytes([n % 5, n // 5, n % 7, 0, 0, 0, 0, 0, 0, 0, n, n * 7 % 256, n * 13 % 256])


__all__ = ["TARGETS", "PREFIXES", "seeds"]
