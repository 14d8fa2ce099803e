"""The ``argstream`` command: ``parse`` prints the fragments of JSON read from standard input."""

from __future__ import annotations

import argparse
import sys
from importlib import resources
from typing import Sequence

from . import BACKEND, ArgumentStreamError, IncrementalArgParser

__all__ = ["main"]


def _sample() -> bytes:
    return resources.files("argstream").joinpath("data/sample_args.json").read_bytes()


def cmd_parse(args: argparse.Namespace) -> int:
    """Feed the input in ``--chunk-size`` pieces, as a stream would arrive, and print each fragment."""
    data = _sample() if args.sample else sys.stdin.buffer.read()
    parser = IncrementalArgParser(flat=args.flat, max_depth=args.max_depth)
    out = sys.stdout
    size = max(1, args.chunk_size) if args.chunk_size else len(data) or 1
    try:
        for start in range(0, len(data), size):
            for fragment in parser.push(data[start : start + size]):
                out.write(f"{fragment!r}\n")
        for fragment in parser.finish():
            out.write(f"{fragment!r}\n")
    except ArgumentStreamError as exc:
        print(f"argstream: {exc}", file=sys.stderr)
        return 1
    return 0


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="argstream", description=f"Incremental tool-call argument parsing ({BACKEND} core).")
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("parse", help="read JSON from standard input and print its fragments, one a line")
    p.add_argument("--chunk-size", type=int, default=0, help="feed the input in pieces of this many bytes")
    p.add_argument("--flat", action="store_true", help="print (path, leaf) pairs instead of nested fragments")
    p.add_argument("--max-depth", type=int, default=512)
    p.add_argument("--sample", action="store_true", help="parse the sample tool call shipped with the package")
    p.set_defaults(func=cmd_parse)
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
