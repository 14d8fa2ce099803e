"""``FragmentAggregator``: fragments in, complete values out (RFD 043's aggregator layer).

Containers are created and attached to their parent as soon as their first
fragment (or ``Empty``) arrives, so the root object always holds every value
completed so far. A snapshot only has to place the one string still in
progress: its cost is that string's length, never the whole value.

The compiled aggregator (``_aggregate.pyx``) runs with the compiled core, else its pure-Python twin
(``_aggregate_py``): the same values, ``Completed`` and errors. Both stay reachable by name, for
differential tests (``FragmentAggregatorC`` is ``None`` without the compiled core).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from . import _backend
from ._aggregate_py import Completed
from ._aggregate_py import FragmentAggregator as FragmentAggregatorPy

__all__ = ["Completed", "FragmentAggregator"]

FragmentAggregatorC: Any = (importlib.import_module(f"{__package__}._aggregate").FragmentAggregator
                            if _backend.core is not None else None)

if TYPE_CHECKING:
    FragmentAggregator = FragmentAggregatorPy
else:
    FragmentAggregator = FragmentAggregatorC if FragmentAggregatorC is not None else FragmentAggregatorPy
