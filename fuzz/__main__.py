"""``python -m fuzz TARGET``: a long fuzz run of one target (from the repository root).

With atheris installed the run is coverage-guided by libFuzzer (the Python code is instrumented; the
compiled core is covered only when built with clang's ``-fsanitize=fuzzer-no-link``, see
docs/fuzzing.md); otherwise Hypothesis draws inputs for the time given. Either way the corpus
directory seeds the run (build it with ``python fuzz/make_corpus.py``), an input that fails is written
to the crashes directory as ``crash-<sha1>``, and the exit status is 1. ``--replay FILE...`` runs
saved inputs once each (a crash, to debug it or to check its fix).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import signal
import sys
import time
import traceback
from pathlib import Path
from typing import Callable

if __package__ in (None, ""):  # python fuzz/__main__.py
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fuzz import NAMES  # noqa: E402 - argstream is imported later, after atheris' import hook is set


def save(crashes: Path, data: bytes) -> Path:
    crashes.mkdir(parents=True, exist_ok=True)
    path = crashes / f"crash-{hashlib.sha1(data).hexdigest()}"
    path.write_bytes(data)
    return path


def corpus_inputs(corpus: Path | None) -> list[bytes]:
    if corpus is None or not corpus.is_dir():
        return []
    return [p.read_bytes() for p in sorted(corpus.iterdir()) if p.is_file()]


class Hang(Exception):
    """One input ran longer than ``--timeout`` seconds."""


def bounded(target: Callable[[bytes], None], timeout: int) -> Callable[[bytes], None]:
    """``target`` that raises :class:`Hang` after ``timeout`` seconds (SIGALRM; 0: no bound)."""
    if timeout <= 0 or not hasattr(signal, "SIGALRM"):
        return target

    def alarm(signum: int, frame: object) -> None:
        raise Hang(f"an input ran longer than {timeout} s")

    def run(data: bytes) -> None:
        previous = signal.signal(signal.SIGALRM, alarm)
        signal.alarm(timeout)
        try:
            target(data)
        finally:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, previous)

    return run


def replay(target: Callable[[bytes], None], files: list[Path]) -> int:
    failed = 0
    for path in files:
        try:
            target(path.read_bytes())
        except Exception:  # noqa: BLE001 - every failure is reported
            failed += 1
            print(f"FAIL {path}", file=sys.stderr)
            traceback.print_exc()
        else:
            print(f"ok   {path}")
    return 1 if failed else 0


def run_hypothesis(target: Callable[[bytes], None], args: argparse.Namespace) -> int:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    seeds = corpus_inputs(args.corpus)
    for data in seeds:  # the corpus first: each seed once, as it is
        try:
            target(data)
        except Exception:  # noqa: BLE001
            print(f"crash saved to {save(args.crashes, data)}", file=sys.stderr)
            raise
    strategy = st.binary(max_size=args.max_len)
    if seeds:  # and seeds with bytes changed, so that the run starts near valid input
        strategy = strategy | st.builds(_splice, st.sampled_from(seeds), st.integers(0, 1 << 16),
                                        st.binary(max_size=8), st.integers(0, 8))
    failing: list[bytes] = []

    def recorded(data: bytes) -> None:
        try:
            target(data)
        except Exception:
            failing[:] = [data]
            raise

    deadline = time.monotonic() + args.time
    rounds = 0
    while time.monotonic() < deadline and (args.runs <= 0 or rounds * args.batch < args.runs):
        test = settings(max_examples=args.batch, deadline=None, database=None, derandomize=False,
                        suppress_health_check=list(HealthCheck))(given(strategy)(recorded))
        try:
            test()
        except Exception:
            print(f"crash saved to {save(args.crashes, failing[-1])}" if failing else "failed", file=sys.stderr)
            raise
        rounds += 1
    print(f"{args.target}: {rounds * args.batch} inputs, no failure (hypothesis)")
    return 0


def _splice(seed: bytes, at: int, insert: bytes, drop: int) -> bytes:
    at %= len(seed) + 1
    return seed[:at] + insert + seed[at + drop :]


def targets() -> dict[str, Callable[[bytes], None]]:
    from fuzz.targets import TARGETS

    return TARGETS


def run_atheris(args: argparse.Namespace) -> int:
    import atheris  # type: ignore[import-untyped]

    # coverage of argstream's Python code and the targets' (not of the standard library or Hypothesis)
    with atheris.instrument_imports(include=["argstream", "fuzz"]):
        target = targets()[args.target]
    args.crashes.mkdir(parents=True, exist_ok=True)
    flags = [sys.argv[0], f"-max_total_time={args.time}", f"-timeout={args.timeout}", f"-max_len={args.max_len}",
             f"-artifact_prefix={args.crashes}{os.sep}", "-print_final_stats=1"]
    if args.runs > 0:
        flags.append(f"-runs={args.runs}")
    if args.corpus is not None:
        args.corpus.mkdir(parents=True, exist_ok=True)
        flags.append(str(args.corpus))  # libFuzzer reads the seeds and adds what finds new coverage
    atheris.Setup(flags, target)
    atheris.Fuzz()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m fuzz", description=__doc__.split("\n\n")[0])
    parser.add_argument("target", choices=NAMES)
    parser.add_argument("--time", type=int, default=60, help="seconds to run (default 60)")
    parser.add_argument("--runs", type=int, default=0, help="stop after this many inputs (0: no limit)")
    parser.add_argument("--corpus", type=Path, default=None, help="seed directory (fuzz/make_corpus.py writes one)")
    parser.add_argument("--crashes", type=Path, default=Path("fuzz-crashes"), help="where failing inputs go")
    parser.add_argument("--engine", choices=["auto", "atheris", "hypothesis"], default="auto")
    parser.add_argument("--timeout", type=int, default=20, help="seconds one input may take: longer is a hang")
    parser.add_argument("--max-len", type=int, default=4096, help="the longest input to generate")
    parser.add_argument("--batch", type=int, default=500, help="hypothesis: inputs per round")
    parser.add_argument("--replay", type=Path, nargs="+", help="run these saved inputs once each and stop")
    args = parser.parse_args(argv)
    engine = args.engine
    if engine == "auto":
        try:
            import atheris  # noqa: F401
        except ImportError:
            engine = "hypothesis"
        else:
            engine = "atheris"
    if engine == "atheris" and not args.replay:
        print(f"fuzzing {args.target} with atheris for {args.time} s", flush=True)
        return run_atheris(args)  # libFuzzer's own -timeout finds hangs
    target = bounded(targets()[args.target], args.timeout)
    if args.replay:
        return replay(target, args.replay)
    print(f"fuzzing {args.target} with hypothesis for {args.time} s", flush=True)
    return run_hypothesis(target, args)


if __name__ == "__main__":
    sys.exit(main())
