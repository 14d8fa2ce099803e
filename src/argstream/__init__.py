"""argstream: typed fragments from tool-call argument JSON while it streams.

Parse each chunk once (``IncrementalArgParser``), aggregate fragments into
values (``FragmentAggregator``), and build typed events from every major
provider's stream (``argstream.providers``).
"""

from __future__ import annotations

from .aggregate import Completed, FragmentAggregator
from .errors import ArgumentStreamError, IncompleteJSONError
from .fragments import DONE, ArrayItem, Done, Empty, ObjectEntry, Scalar, String, flatten, nest
from .parser import BACKEND, IncrementalArgParser

__version__ = "0.1.0"

__all__ = [
    "BACKEND",
    "ArgumentStreamError",
    "ArrayItem",
    "Completed",
    "DONE",
    "Done",
    "Empty",
    "FragmentAggregator",
    "IncompleteJSONError",
    "IncrementalArgParser",
    "ObjectEntry",
    "Scalar",
    "String",
    "flatten",
    "nest",
]
