"""Memory held while a long argument streams: ``iter_tool_stream`` on the wire dicts of ``wire_data``.

Traced with ``tracemalloc`` when all but the last events of the stream have been read (the string
still open), less before; beside it the size of the final ``content`` string itself, which any reader
that keeps the value holds. A streamed string's pieces are joined as they come (``_pieces``); before
that, one ``str`` a token-sized piece held about 9x the value (1.83 MB for a 200 KB argument whose
``content`` is 770 KB as a ``str``, having emoji in it). Not a timing: the figures do not move between
runs.

    python benchmarks/memory.py                      # the three delta providers at 20 KB and 200 KB
    python benchmarks/memory.py anthropic 200K
"""

from __future__ import annotations

import gc
import json
import sys
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import wire_data

from argstream import iter_tool_stream


def held(provider: str, size: str, tail: int = 8) -> tuple[int, int]:
    """Bytes traced with all but ``tail`` events read, and the size of the final ``content`` str."""
    ws = wire_data.wire_stream(provider, size)
    items = list(ws.items)
    measured: list[int] = []

    def source() -> Iterator[Any]:
        gc.collect()
        base = tracemalloc.get_traced_memory()[0]
        for n, item in enumerate(items):
            if n == len(items) - tail:
                gc.collect()
                measured.append(tracemalloc.get_traced_memory()[0] - base)
            yield item

    tracemalloc.start()
    try:
        for _ in iter_tool_stream(source(), provider):
            pass
    finally:
        tracemalloc.stop()
    return measured[0], sys.getsizeof(json.loads(ws.argument_text)["content"])


def main(argv: list[str]) -> None:
    providers = argv[0].split(",") if argv else list(wire_data.DELTA_PROVIDERS)
    sizes = argv[1].split(",") if len(argv) > 1 else ["20K", "200K"]
    print(f"{'provider':18} {'size':>5} {'held':>10} {'content str':>12} {'ratio':>6}")
    for provider in providers:
        for size in sizes:
            got, value = held(provider, size)
            print(f"{provider:18} {size:>5} {got / 1e6:8.3f} MB {value / 1e6:9.3f} MB {got / value:6.2f}")


if __name__ == "__main__":
    main(sys.argv[1:])
