"""Machine instructions per argument delta on the paths of ``bench_events.py``, counted by valgrind.

Timings on a shared machine move by 2x between runs; an instruction count does not move at all, so
the ratios of issue 17 that compare two paths on one machine (``wire-dicts`` / ``parser`` at most 4x,
with ``tools=`` 5x) can be read from counts too. A count is not a time (a cache miss costs more than
an add), so these ratios sit beside the timed ones in the notes, never in place of them.

Each case runs in a process of its own under ``valgrind --tool=cachegrind --cache-sim=no``, once
with the case called ``WARMUP`` times (setup, imports, first calls) and once with it called
``WARMUP + REPS`` times; the difference over ``REPS`` times the stream's deltas is what one more
delta costs. The first calls cost more than later ones (the interpreter specialises a function's
bytecode over its first runs, and caches fill), so the count is of a call after ``WARMUP`` of them:
the steady state that the timed benchmarks' rounds measure. CPython 3.11 quickens a function's
bytecode on its 8th call and specialises it over the calls after, so ``WARMUP`` must be above that:
code that runs once a stream (a stream's setup, a call sent whole) was counted unspecialised with
the 5 used until the stop after d5d5105 (a 2 KB Gemini stream 176.7K then, 145.8K at 20; a Chat
delta at 2 KB moved 2.6%, 6,272 -> 6,130). (Until the stop after ed64670 the baseline made one
call, which counted a 2 KB Gemini stream 223.8K.) Needs valgrind (Debian's ``valgrind``);
slow (about 20 s a process):

    python benchmarks/instructions.py                                  # the default table
    python benchmarks/instructions.py anthropic,openai_chat parser,wire-dicts 20K
    python benchmarks/instructions.py vertex parser,wire-dicts,raw-sse 2K   # bench_vertex.py's cases, per piece
    python benchmarks/instructions.py --misses openai_chat parser,wire-dicts-floor,wire-dicts 20K

``--misses`` has cachegrind simulate the caches too (slower) and adds the first-level caches' misses
per delta, data reads and instructions (``[D1 read / I1]``): what a count of instructions leaves out,
and where a timed ratio parts from the counted one. A path that reads the fields of large decoded events misses where the parser, which
reads one short string, does not (the stop after 442e9fc: a Chat delta at 20 KB 77.8 misses against
the plainest read's 41.7 and the parser's 1.5).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPS = 2
WARMUP = 20  # above CPython 3.11's quickening of a function on its 8th call
PROVIDERS = ("anthropic", "openai_chat", "openai_responses")
CASES = ("parser", "json.loads-floor", "raw-sse", "wire-dicts", "wire-dicts+tools", "coordinator")


def _child(provider: str, size: str, impl: str, calls: int) -> None:
    """Run the case ``calls`` times (in the valgrind child)."""
    sys.path.insert(0, str(HERE))
    if provider == "vertex":
        import bench_vertex

        fn, arg = bench_vertex.prepare(size, impl)
    else:
        import bench_events

        fn, arg, _ = bench_events.event_case(provider, size, impl)
    for _ in range(calls):
        fn(arg)


def instructions(provider: str, size: str, impl: str, calls: int, misses: bool = False) -> tuple[int, int, int]:
    """Instructions a process that runs the case ``calls`` times executes in all, and (``misses``) its
    first-level data cache read misses and instruction cache misses (0 without)."""
    # without address randomisation where ``setarch`` can turn it off: the order of sets and dicts keyed by
    # object ids follows the addresses, and moved a count by about 1% from one process to the next
    fixed = ["setarch", os.uname().machine, "-R"] if shutil.which("setarch") else []
    out = subprocess.run(
        [*fixed, "valgrind", "--tool=cachegrind", f"--cache-sim={'yes' if misses else 'no'}",
         "--cachegrind-out-file=/dev/null",
         sys.executable, __file__, "--child", provider, size, impl, str(calls)],
        capture_output=True, text=True, check=True, env={**os.environ, "PYTHONHASHSEED": "0"})
    found = re.search(r"I\s+refs:\s+([\d,]+)", out.stderr)
    if found is None:
        raise RuntimeError(f"no instruction count in valgrind's output:\n{out.stderr[-2000:]}")
    if not misses:
        return int(found.group(1).replace(",", "")), 0, 0
    data = re.search(r"D1\s+misses:\s+[\d,]+\s+\(\s*([\d,]+) rd", out.stderr)
    code = re.search(r"I1\s+misses:\s+([\d,]+)", out.stderr)
    if data is None or code is None:
        raise RuntimeError(f"no cache misses in valgrind's output:\n{out.stderr[-2000:]}")
    return (int(found.group(1).replace(",", "")), int(data.group(1).replace(",", "")),
            int(code.group(1).replace(",", "")))


def per_delta(provider: str, size: str, impl: str, misses: bool = False) -> tuple[float, ...]:
    """Instructions, and (``misses``) first-level data read and instruction misses, one more delta costs."""
    sys.path.insert(0, str(HERE))
    from bench_vertex import vertex_stream
    from wire_data import wire_stream

    once = instructions(provider, size, impl, WARMUP, misses)
    more = instructions(provider, size, impl, WARMUP + REPS, misses)
    deltas = len(vertex_stream(size)[1]) if provider == "vertex" else wire_stream(provider, size).n_deltas
    return tuple((b - a) / (REPS * deltas) for a, b in zip(once, more))


def main(argv: list[str]) -> int:
    if argv[:1] == ["--child"]:
        provider, size, impl, calls = argv[1:]
        _child(provider, size, impl, int(calls))
        return 0
    if shutil.which("valgrind") is None:
        print("instructions.py needs valgrind (apt-get install valgrind)", file=sys.stderr)
        return 2
    misses = argv[:1] == ["--misses"]
    argv = argv[1:] if misses else argv
    providers = argv[0].split(",") if argv else PROVIDERS
    cases = argv[1].split(",") if len(argv) > 1 else CASES
    size = argv[2] if len(argv) > 2 else "20K"
    print(f"instructions{' [D1 read misses / I1 misses]' if misses else ''} per argument delta, {size} stream"
          f" ({'/'.join(cases)})")
    for provider in providers:
        counts = {impl: per_delta(provider, size, impl, misses) for impl in cases}
        base = counts["parser"][0] if "parser" in counts else None
        cells = "  ".join(f"{impl} {n:,.0f}" + (f" ({n / base:.2f}x)" if base and impl != "parser" else "")
                          + (f" [{data:.1f} / {code:.1f}]" if misses else "")
                          for impl, (n, data, code) in counts.items())
        print(f"{provider:<18}{cells}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
