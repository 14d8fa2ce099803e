"""Quick mode: the cases behind CI's margins, timed in interleaved rounds, medians written as JSON.

    python benchmarks/quick.py compiled out.json    # the compiled core against its peers
    ARGSTREAM_PURE=1 python benchmarks/quick.py pure out.json    # the pure twin (its own fragment types) vs axio
    python benchmarks/quick.py events out.json      # the provider pipeline per argument delta (issue 17)

``report.py --quick`` runs both (the second in its own process, so the pure twin builds its own
fragment types) and prints one table. pytest-benchmark runs a case's rounds back to back, so a
burst of load on a shared machine can cover all of one case and none of its peer; here every
round times each case once, in turn, and each case keeps the median of its rounds (CPU time of
this process, which other processes barely move).

The ``events`` set (``bench_events.py``) keys its cases ``(provider, size, impl)`` and runs the sizes
of ``ARGSTREAM_BENCH_EVENT_SIZES`` (default ``20K``; ``2K,20K,200K`` for the whole matrix, which the
SDK helpers make slow). A case whose sample takes long (an SDK helper: a second or more on a loaded
machine) runs in every k-th round only, so that it costs at most ``SLOW_CASE_SECONDS`` (at least
``MIN_SLOW_ROUNDS`` samples, still interleaved with the others).
"""

from __future__ import annotations

import json
import math
import os
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import environment
from bench_core import stream_case, stream_skip, whole_case, whole_skip
from data import corpus

EVENT_SIZES = tuple(s.strip() for s in os.environ.get("ARGSTREAM_BENCH_EVENT_SIZES", "20K").split(",") if s.strip())
#: The issue-17 cases of the margins in report.py: (providers, impls) for every size of EVENT_SIZES.
EVENT_CASES = (
    (("anthropic", "openai_chat", "openai_responses"),
     ("parser", "json.loads-floor", "raw-sse", "wire-dicts-floor", "wire-dicts", "wire-dicts+tools",
      "async-wire-dicts", "async-floor", "async-raw-sse", "coordinator", "coordinator-async")),
    (("anthropic", "openai_chat"), ("sdk-objects-floor", "sdk-objects", "sdk-objects-iterate", "sdk-helper",
                                    "argstream-e2e")),
    (("gemini", "ollama"), ("parser", "wire-dicts", "wire-dicts+tools")),
)

#: The cases of each set, keyed as report.py keys times: (corpus, chunk size or None for one push, impl).
CASES: dict[str, tuple[tuple[str, int | None, str], ...]] = {
    "compiled": (
        ("W1-100K", 32, "argstream-cython"),
        ("W1-100K", 32, "str.find-floor"),
        ("W1-100K", 32, "jiter-reparse"),
        ("W1-100K", 32, "json-stream-rs"),
        ("W1-1M", 32, "argstream-cython"),
        ("W1-1M", None, "argstream-cython"),
        ("W1-1M", None, "orjson.loads"),
        ("W3", 32, "argstream-cython"),
        ("W3", 32, "json.loads-once"),
    ),
    "pure": (
        ("W1-100K", 32, "argstream-python"),
        ("W1-100K", 32, "axio"),
    ),
    "events": tuple((p, size, impl) for size in EVENT_SIZES for ps, impls in EVENT_CASES for p in ps for impl in impls),
}
ROUNDS = int(os.environ.get("ARGSTREAM_BENCH_ROUNDS", "21"))
#: A sample repeats a fast case until it lasts this long, so the timer's resolution does not matter.
MIN_SAMPLE_SECONDS = 0.02
#: A slow case (one sample longer than ROUNDS / this) skips rounds so as to cost about this much in all.
SLOW_CASE_SECONDS = 10.0
MIN_SLOW_ROUNDS = 5
#: Skip reasons that mean a peer could not be installed (axio on Python < 3.12, an SDK): "not measured",
#: never a missed margin (issue 18). Any other reason is argstream's own case failing to run.
PEER_MISSING = ("not installed", "not importable", "not available")


def prepare(key: tuple[str, Any, str]) -> tuple[Callable[[Any], Any], Any, float | None] | str:
    """The timed function and its argument, verified once (with that run's CPU time when known, the events
    cases: their SDK helpers take seconds, worth not running once more); or why the case cannot run."""
    name, n, impl = key
    if isinstance(n, str):  # an events case: (provider, size, impl)
        import bench_events

        return bench_events.prepare(name, n, impl)
    reason = whole_skip(impl) if n is None else stream_skip(impl, name, n)
    if reason:
        return reason
    fn, arg, verify = whole_case(impl, corpus(name)) if n is None else stream_case(impl, corpus(name), n)
    verify(fn(arg))
    return fn, arg, None


def _sample(fn: Callable[[Any], Any], arg: Any, reps: int) -> float:
    start = time.process_time()
    for _ in range(reps):
        fn(arg)
    return (time.process_time() - start) / reps


def measure(keys: tuple[tuple[str, int | None, str], ...], rounds: int) -> tuple[dict, dict]:
    """Median seconds per call of every case that runs, and the reason of every one that does not."""
    ready: dict[tuple, tuple[Callable[[Any], Any], Any, int]] = {}
    skipped: dict[tuple, str] = {}
    for key in keys:
        case = prepare(key)
        if isinstance(case, str):
            skipped[key] = case
            continue
        fn, arg, once = case
        if once is None or once < 0.5:  # a first run is cold: time a fast case once more
            once = _sample(fn, arg, 1)
        reps = max(1, math.ceil(MIN_SAMPLE_SECONDS / max(once, 1e-9)))
        allowed = max(MIN_SLOW_ROUNDS, int(SLOW_CASE_SECONDS / max(once * reps, 1e-9)))
        ready[key] = (fn, arg, reps, max(1, math.ceil(rounds / allowed)))
    samples: dict[tuple, list[float]] = {key: [] for key in ready}
    order = list(ready)
    for r in range(rounds):
        for key in order if r % 2 == 0 else reversed(order):  # alternate, so no case always runs first
            fn, arg, reps, stride = ready[key]
            if r % stride == 0:
                samples[key].append(_sample(fn, arg, reps))
    return {key: statistics.median(s) for key, s in samples.items()}, skipped


def main(argv: list[str]) -> int:
    which, out = argv
    times, skipped = measure(CASES[which], ROUNDS)
    doc = {
        "set": which,
        "rounds": ROUNDS,
        "machine_info": {
            "python_version": sys.version.split()[0],
            "benchmark_timer": "time.process_time (median of interleaved rounds)",
            "argstream_bench": environment.versions(),
        },
        "times": [[*key, seconds] for key, seconds in times.items()],
        "skipped": [[*key, reason] for key, reason in skipped.items()],
    }
    if which == "events":
        from wire_data import wire_stream

        import calls

        doc["deltas"] = sorted({(p, size, wire_stream(p, size).n_deltas) for p, size, _ in CASES[which]})
        doc["calls"] = calls.table()
    with open(out, "w") as f:
        json.dump(doc, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
