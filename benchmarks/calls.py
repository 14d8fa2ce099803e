"""Calls per argument delta on each path of ``bench_events.py``, counted with a ``sys.setprofile`` hook.

Issue 17 asks that each event be looked at once; a count says how close a path is, on any machine and
without timing noise. The hook counts ``call`` events (Python functions, and generator or coroutine
resumptions) and ``c_call`` events (builtins and extension methods called from Python code) on this
thread. Each path runs on the 2 KB and the 20 KB stream, and the figure is the difference in calls
over the difference in deltas, so what a stream costs once (setup, the first and last events) cancels.
Printed, not asserted: ``report.py --quick`` shows the table, and

    python benchmarks/calls.py              # every delta provider
    python benchmarks/calls.py anthropic    # one
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import bench_events
import environment  # noqa: F401 - first: puts src/ on the path when argstream is not installed
from wire_data import DELTA_PROVIDERS, wire_stream

#: The paths counted, in the table's order (the SDK one only where its SDK is installed).
PATHS = ("parser", "raw-sse", "wire-dicts", "wire-dicts+tools", "async-wire-dicts", "coordinator",
         "coordinator-async", "sdk-objects")
SIZES = ("2K", "20K")


def count(fn: Callable[[Any], Any], arg: Any) -> tuple[int, int]:
    """(Python calls, C calls) made by ``fn(arg)`` on this thread."""
    counts = [0, 0]

    def hook(frame: Any, event: str, _: Any) -> None:
        if event == "call":
            counts[0] += 1
        elif event == "c_call":
            counts[1] += 1

    previous = sys.getprofile()
    sys.setprofile(hook)
    try:
        fn(arg)
    finally:
        sys.setprofile(previous)
    return counts[0], counts[1]


def per_delta(provider: str, impl: str) -> tuple[float, float] | str:
    """(Python, C) calls per argument delta of one path, or why it cannot run."""
    counted = []
    for size in SIZES:
        case = bench_events.prepare(provider, size, impl)  # verified once, untimed: warm, as when timed
        if isinstance(case, str):
            return case
        fn, arg, _ = case
        counted.append(count(fn, arg))
    extra = wire_stream(provider, SIZES[1]).n_deltas - wire_stream(provider, SIZES[0]).n_deltas
    return tuple((big - small) / extra for small, big in zip(counted[0], counted[1]))  # type: ignore[return-value]


def table(providers: tuple[str, ...] = DELTA_PROVIDERS) -> list[list[Any]]:
    """Rows ``[provider, impl, python calls, C calls]`` per delta (``None``, reason when it cannot run)."""
    rows = []
    for provider in providers:
        for impl in PATHS:
            got = per_delta(provider, impl)
            rows.append([provider, impl, None, got] if isinstance(got, str) else [provider, impl, *got])
    return rows


def render(rows: list[list[Any]]) -> str:
    """The rows as a table: one line per path, Python / C calls per delta for each provider."""
    providers = list(dict.fromkeys(r[0] for r in rows))
    impls = list(dict.fromkeys(r[1] for r in rows))
    cell = {(r[0], r[1]): r[2:] for r in rows}
    width = max(len(i) for i in impls)
    lines = [f"{'calls per delta (Python + C)':<{width}}  " + "  ".join(f"{p:>18}" for p in providers)]
    for impl in impls:
        cells = []
        for p in providers:
            py, c = cell.get((p, impl), (None, "-"))
            cells.append(f"{'-' if py is None else f'{py:.1f} + {c:.1f}':>18}")
        lines.append(f"{impl:<{width}}  " + "  ".join(cells))
    return "\n".join(lines)


if __name__ == "__main__":
    print(render(table(tuple(sys.argv[1:]) or DELTA_PROVIDERS)))
