"""The terminal renderer on a 1 MB file write: each chunk is written once, so the cost is linear.

The argument (20,000 lines of code, 1 MB) arrives in 64-character chunks, the way a provider
streams it; the renderer draws into a string buffer at 100 columns, in each display style, with
and without colour (colour adds per-line syntax highlighting). ``200KB`` vs ``1MB`` shows the
scaling.

    PYTHONPATH=src python -m pytest benchmarks/bench_render.py --benchmark-min-rounds=3
"""

from __future__ import annotations

import io
import json

import pytest

from argstream import IncrementalArgParser
from argstream.events import ToolCallArgumentProgress
from argstream.render import TerminalRenderer
from argstream.stream import ToolCallStarted

LINE = "    total = compute(values[index], factor=2.5)  # sum it\n"  # 52 characters


def _items(size: int) -> list:
    content = LINE * (size // len(LINE))
    doc = json.dumps({"path": "src/compute.py", "content": content})
    parser = IncrementalArgParser()
    items: list = [ToolCallStarted("c", "fs_create_file")]
    for start in range(0, len(doc), 64):
        items += [ToolCallArgumentProgress("c", "fs_create_file", f) for f in parser.push(doc[start:start + 64])]
    return items


ITEMS = {"200KB": _items(200_000), "1MB": _items(1_000_000)}


def _draw(items: list, style: str, color: bool) -> int:
    out = io.StringIO()
    renderer = TerminalRenderer(out, color=color, style=style, width=100)
    for item in items:
        renderer(item)
    renderer.close()
    return len(out.getvalue())


@pytest.mark.benchmark(group="render")
@pytest.mark.parametrize("size", ["200KB", "1MB"])
@pytest.mark.parametrize(("style", "color"), [("function_call", False), ("function_call", True), ("json", False)])
def test_render_a_file_write(benchmark, size: str, style: str, color: bool) -> None:
    assert benchmark(_draw, ITEMS[size], style, color) > 0
