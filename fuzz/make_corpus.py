"""Write a seed corpus for each fuzz target: ``python fuzz/make_corpus.py [OUT] [--max N]``.

Seeds for ``parser`` and ``lenient``: the JSONTestSuite files (../shared/conformance), the argument
JSON of every recorded tool call (../shared/recordings*, joined from the streams' pieces) and a few
documents of the tests; for ``wire``: the recorded stream bodies, whole and cut into pieces; for the
other targets, short choice strings that start from each seed stream (they draw their seeds
themselves). The corpus is written to ``OUT`` (default ``fuzz-corpus/``, not committed), one
directory per target, files named by their SHA-1, so that running it twice changes nothing.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any, Iterator

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fuzz.recordings import FOLDERS, SHARED  # noqa: E402
from fuzz.targets import TARGETS, seeds  # noqa: E402

CONFORMANCE = SHARED / "conformance" / "JSONTestSuite" / "test_parsing"
DOCUMENTS = [b'{"path": "src/a.py", "recursive": true, "depth": -1.5e3, "tags": ["a", null]}', b'{"a": {"b": [[]]}}',
             b'"\\ud83d\\ude00\\u00e9"', b"{'path': 'src', b: [1, 2,], // c\n}", b'```json\n{"a": 1}\n```', b"[tr"]


def json_documents(max_size: int) -> Iterator[bytes]:
    yield from DOCUMENTS
    if CONFORMANCE.is_dir():
        for path in sorted(CONFORMANCE.glob("*.json")):
            data = path.read_bytes()
            if len(data) <= max_size:
                yield data
    for body in stream_bodies(max_size=1 << 30):
        for value in _argument_texts(body):
            if len(value) <= max_size:
                yield value


def _argument_texts(body: bytes) -> Iterator[bytes]:
    """The argument JSON of a stream: every ``partial_json`` / ``arguments`` / ``delta`` string joined per line."""
    from argstream.providers.wire import read_wire

    try:
        items = read_wire(body.decode("utf-8"))
    except Exception:  # noqa: BLE001 - a recording that needs its README's skipped lines: no argument seeds
        return
    pieces: list[str] = []
    stack: list[Any] = list(items)
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("partial_json", "arguments", "args", "input") and isinstance(value, str):
                    pieces.append(value)
                elif key in ("arguments", "args", "input") and isinstance(value, dict):
                    yield json.dumps(value, ensure_ascii=False).encode()
                else:
                    stack.append(value)
        elif isinstance(node, list):
            stack.extend(node)
    joined = "".join(reversed(pieces))
    if joined:
        yield joined.encode("utf-8", "surrogatepass")


def stream_bodies(max_size: int) -> Iterator[bytes]:
    for folder in FOLDERS:
        if not folder.is_dir():
            continue
        for path in sorted(folder.rglob("*")):
            if path.suffix in (".txt", ".sse", ".ndjson", ".jsonl") and path.is_file():
                if path.stat().st_size <= max_size:
                    yield path.read_bytes()


def documents_for(name: str, max_size: int) -> Iterator[bytes]:
    if name == "wire":
        yield b'data: {"a": 1}\n\n'
        yield from stream_bodies(max_size)
    else:
        yield from json_documents(max_size)


def write(out: Path, max_size: int) -> dict[str, int]:
    counts = {}
    for name in TARGETS:
        folder = out / name
        folder.mkdir(parents=True, exist_ok=True)
        n = 0
        for data in seeds(name, documents_for(name, max_size)):
            (folder / hashlib.sha1(data).hexdigest()).write_bytes(data)
            n += 1
        counts[name] = n
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", nargs="?", type=Path, default=Path("fuzz-corpus"))
    parser.add_argument("--max", type=int, default=64 * 1024, help="the largest seed document, in bytes")
    args = parser.parse_args(argv)
    for name, n in write(args.out, args.max).items():
        print(f"{args.out / name}: {n} inputs")
    if not SHARED.is_dir():
        print(f"({SHARED} is absent: built-in seeds only)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
