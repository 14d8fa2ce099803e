"""The terminal renderer: what a person sees while a tool call streams."""

from __future__ import annotations

import io

import pytest

from argstream import IncrementalArgParser
from argstream.events import FinishReason, ToolCallArgumentProgress
from argstream.render import TerminalRenderer, format_call, label
from argstream.stream import (
    ReasoningDelta,
    StreamFinished,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
)


def _progress(call_id: str, name: str, chunks: list[str]) -> list[ToolCallArgumentProgress]:
    parser = IncrementalArgParser()
    out = []
    for chunk in chunks:
        out += [ToolCallArgumentProgress(call_id, name, f) for f in parser.push(chunk)]
    return out


def _render(items, **kw) -> str:
    buf = io.StringIO()
    renderer = TerminalRenderer(buf, color=False, **kw)
    for item in items:
        renderer(item)
    renderer.close()
    return buf.getvalue()


def test_file_write_streams_under_its_label() -> None:
    items = [
        TextDelta("I'll "), TextDelta("write it."),
        ToolCallStarted("call_1", "fs_create_file"),
        *_progress("call_1", "fs_create_file", ['{"path": "src/a.py", "content": "line 1\\nli', 'ne 2\\n", "n": 3}']),
        ToolCallFinished("call_1", "fs_create_file", {"path": "src/a.py", "content": "line 1\nline 2\n", "n": 3}),
        StreamFinished(FinishReason.TOOL_USE),
    ]
    assert _render(items) == (
        "I'll write it.\n"
        "▶ fs_create_file  call_1\n"
        "  path: src/a.py\n"
        "  content: line 1\n"
        "    │ line 2\n"
        "    │ \n"
        "  n: 3\n"
        "✓ fs_create_file\n"
        "— tool_use\n"
    )


def test_nested_values_get_one_header_per_level() -> None:
    doc = '{"path": "lib.rs", "patterns": [{"old": "a", "new": "b"}, {"old": "", "new": []}], "o": {}}'
    items = [ToolCallStarted("c", "fs_modify_file"), *_progress("c", "fs_modify_file", list(doc))]
    assert _render(items) == (
        "▶ fs_modify_file  c\n"
        "  path: lib.rs\n"
        "  patterns:\n"
        "    [0]:\n"
        "      old: a\n"
        "      new: b\n"
        "    [1]:\n"
        '      old: ""\n'
        "      new: []\n"
        "  o: {}\n"
    )


def test_interleaved_calls_say_whose_lines_follow() -> None:
    a = _progress("a", "one", ['{"x": "1', '2"}'])
    b = _progress("b", "two", ['{"y": true}'])
    items = [ToolCallStarted("a", "one"), a[0], ToolCallStarted("b", "two"), *b, *a[1:]]
    out = _render(items)
    assert "▶ one  a (continued)\n" in out
    assert out.index("y: true") < out.index("(continued)")


def test_reasoning_can_be_hidden_and_errors_show() -> None:
    from argstream import ArgumentStreamError

    items = [ReasoningDelta("thinking"), ToolCallFinished("c", "t", {}, ArgumentStreamError("Expecting value", 0))]
    assert "thinking" not in _render(items, reasoning=False)
    assert "✗ t: invalid arguments (Expecting value: line 1 column 1 (char 0))" in _render(items)


def test_color_codes_only_when_asked() -> None:
    items = [ToolCallStarted("c", "t")]
    buf = io.StringIO()
    TerminalRenderer(buf, color=True)(items[0])
    assert "\x1b[1m" in buf.getvalue()
    assert "\x1b[" not in _render(items)


@pytest.mark.parametrize(
    ("args", "streaming", "expected"),
    [
        ({"path": "src/main.rs"}, ["content"], 'fs_create_file(path: "src/main.rs", streaming "content"...)'),
        ({"n": 1, "ok": True}, [], "fs_create_file(n: 1, ok: true)"),
    ],
)
def test_format_call(args, streaming, expected) -> None:
    assert format_call("fs_create_file", args, streaming) == expected


def test_label() -> None:
    assert (label("path"), label(3)) == ("path", "[3]")
