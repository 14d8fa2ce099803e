"""Live terminal output of a tool-calling stream: text, reasoning, and each call's arguments as they stream.

The renderer consumes the items of :func:`argstream.stream.iter_tool_stream` (or bare
``ToolCallArgumentProgress``) and writes to a text stream; it knows no wire format and does no
I/O besides writing. A short argument (``path``) shows as soon as it completes; a long string
(``content``) streams line by line under its label; nested arrays and objects get one header per
level::

    ▶ fs_modify_file  call_1
      path: src/lib.rs
      patterns:
        [0]:
          old: │ fn old() {}
          new: │ fn new() {}
    ✓ fs_modify_file
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any, Iterable, Mapping, TextIO

from ..events import ToolCallArgumentProgress
from ..fragments import Empty, Scalar, String, flatten
from .sanitize import visible, visible_line
from ..stream import (
    ReasoningDelta,
    StreamFinished,
    StructuredDelta,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
)

__all__ = ["TerminalRenderer", "format_call", "label"]

_RESET, _BOLD, _DIM, _RED, _GREEN, _YELLOW, _CYAN = (
    "\x1b[0m", "\x1b[1m", "\x1b[2m", "\x1b[31m", "\x1b[32m", "\x1b[33m", "\x1b[36m",
)
_EMPTY_TEXT = {"object": "{}", "array": "[]", "string": '""'}


def label(step: str | int) -> str:
    """How one path element is shown: a key as is, an index as ``[i]``."""
    return f"[{step}]" if isinstance(step, int) else visible_line(step)


def format_call(name: str, arguments: Mapping[str, Any], streaming: Iterable[str] = ()) -> str:
    """One line for a prompt: ``fs_create_file(path: "src/main.rs", streaming "content"...)``.

    ``arguments`` are the parameters known so far; ``streaming`` names the ones still arriving.
    """
    parts = [f"{visible_line(key)}: {visible_line(json.dumps(value, ensure_ascii=False))}"
             for key, value in arguments.items()]
    parts += [f'streaming "{visible_line(key)}"...' for key in streaming]
    return f"{visible_line(name)}({', '.join(parts)})"


class _CallView:
    """What is on screen for one tool call: the open container headers and the string being written."""

    __slots__ = ("name", "headers", "string_path")

    def __init__(self, name: str) -> None:
        self.name = name
        self.headers: list[tuple] = []
        self.string_path: tuple | None = None


class TerminalRenderer:
    """Draws stream items on ``out`` as they arrive. Call it (or :meth:`render`) with each item.

    ``color`` defaults to whether ``out`` is a terminal and ``NO_COLOR`` is unset;
    ``reasoning=False`` hides reasoning text.
    """

    def __init__(self, out: TextIO | None = None, *, color: bool | None = None, reasoning: bool = True) -> None:
        self.out = out if out is not None else sys.stdout
        if color is None:
            color = bool(getattr(self.out, "isatty", lambda: False)()) and "NO_COLOR" not in os.environ
        self.color = color
        self.reasoning = reasoning
        self._calls: dict[str, _CallView] = {}
        self._active: str | None = None  # the call whose arguments are on the current lines
        self._mode = ""  # "text", "reasoning" or "" (at a line start)

    def __call__(self, item: Any) -> None:
        self.render(item)

    # -- output helpers -------------------------------------------------------------

    def _style(self, text: str, *codes: str) -> str:
        return f"{''.join(codes)}{text}{_RESET}" if self.color and codes else text

    def _line_start(self) -> None:
        """End whatever free text is on the current line."""
        if self._mode:
            self.out.write("\n")
            self._mode = ""

    # -- dispatch --------------------------------------------------------------------

    def render(self, item: Any) -> None:
        """Draw one item; unknown items are ignored."""
        cls = type(item)
        if cls is ToolCallArgumentProgress:
            self._progress(item)
        elif cls is TextDelta:
            self._free_text(item.text, "text")
        elif cls is ReasoningDelta:
            if self.reasoning:
                self._free_text(item.text, "reasoning", _DIM)
        elif cls is StructuredDelta:
            self._free_text(item.chunk, "text")
        elif cls is ToolCallStarted:
            self._started(item.id, item.name)
        elif cls is ToolCallFinished:
            self._finished(item)
        elif cls is StreamFinished:
            self._end_string()
            self._line_start()
            self.out.write(self._style(f"— {item.reason.value}", _DIM) + "\n")
        flush = getattr(self.out, "flush", None)
        if flush is not None:
            flush()

    def _free_text(self, text: str, mode: str, *codes: str) -> None:
        self._end_string()
        if self._mode != mode:
            self._line_start()
            self._active = None
        self._mode = mode
        self.out.write(self._style(visible(text), *codes))

    def _started(self, call_id: str, name: str) -> None:
        self._end_string()
        self._line_start()
        self._calls[call_id] = _CallView(name)
        self._active = call_id
        self.out.write(self._style(f"▶ {visible_line(name)}", _BOLD) + "  " + self._style(visible_line(call_id), _DIM) + "\n")

    def _finished(self, item: ToolCallFinished) -> None:
        self._end_string()
        self._line_start()
        self._calls.pop(item.id, None)
        if self._active == item.id:
            self._active = None
        if item.error is None:
            self.out.write(self._style(f"✓ {visible_line(item.name)}", _GREEN) + "\n")
        else:
            message = visible_line(f"{item.name}: invalid arguments ({item.error})")
            self.out.write(self._style(f"✗ {message}", _RED) + "\n")

    # -- arguments ---------------------------------------------------------------------

    def _view(self, progress: ToolCallArgumentProgress) -> _CallView:
        call_id = progress.tool_call_id
        view = self._calls.get(call_id)
        if view is None:
            view = self._calls[call_id] = _CallView(progress.tool_name)
        if self._active != call_id:  # interleaved calls: say whose lines follow
            self._end_string()
            self._line_start()
            self.out.write(self._style(f"▶ {visible_line(view.name)}", _BOLD) + "  "
                           + self._style(f"{visible_line(call_id)} (continued)", _DIM) + "\n")
            view.headers = []
            self._active = call_id
        return view

    def _end_string(self) -> None:
        view = self._calls.get(self._active) if self._active is not None else None
        if view is not None and view.string_path is not None:
            self.out.write("\n")
            view.string_path = None

    def _headers(self, view: _CallView, path: tuple) -> None:
        """Show a header line for every container on ``path`` not yet shown."""
        headers = view.headers
        while headers and headers[-1] != path[: len(headers[-1])]:
            headers.pop()
        for depth in range(len(headers[-1]) + 1 if headers else 1, len(path)):
            prefix = path[:depth]
            self.out.write("  " * depth + self._style(label(prefix[-1]), _CYAN) + ":\n")
            headers.append(prefix)

    def _progress(self, progress: ToolCallArgumentProgress) -> None:
        self._line_start()
        view = self._view(progress)
        path, leaf = flatten(progress.fragment)
        cls = type(leaf)
        if cls is String:
            if view.string_path != path:
                self._end_string()
                self._headers(view, path)
                indent = "  " * len(path)
                name = self._style(label(path[-1]), _CYAN) + ": " if path else ""
                self.out.write(f"{indent}{name}")
                view.string_path = path
            text = visible(leaf.text)
            if "\n" in text:
                text = text.replace("\n", "\n" + "  " * (len(path) + 1) + self._style("│ ", _DIM))
            self.out.write(text)
            return
        if view.string_path == path:  # the Done (or Empty) of the string being written
            self.out.write("\n")
            view.string_path = None
            return
        if cls is Scalar or cls is Empty:
            self._end_string()
            self._headers(view, path)
            shown = visible_line(json.dumps(leaf.value)) if cls is Scalar else _EMPTY_TEXT[leaf.kind]
            indent = "  " * len(path)
            name = self._style(label(path[-1]), _CYAN) + ": " if path else ""
            self.out.write(f"{indent}{name}{self._style(shown, _YELLOW)}\n")

    def close(self) -> None:
        """End the current line."""
        self._end_string()
        self._line_start()
