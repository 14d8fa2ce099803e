"""Live terminal output of a tool-calling stream, drawn with rich (the ``render`` extra).

The renderer consumes the items of :func:`argstream.stream.iter_tool_stream` and writes each one
once, as it arrives: nothing already on screen is redrawn, so a 1 MB argument costs one pass.
Lines are wrapped at the terminal's width by the renderer itself (it tracks the column), a long
string streams under its label with a ``│`` lead on every line, highlighted by the language its
call's ``path`` names when colour is on. Three display styles (RFD D26)::

    function_call                      json                                 off
    ▶ fs_create_file  call_1           ▶ fs_create_file  call_1             ▶ fs_create_file  call_1
      path: "src/lib.rs"                 {                                  ✓ fs_create_file
      content: "fn main() {              "path": "src/lib.rs",
        │ }                                "content": "fn main() {\\n}\\n"
        │ "                              }
      n: 3                             ✓ fs_create_file
    ✓ fs_create_file

Strings are quoted and numbers are not, reasoning lines carry a ``┊`` lead: piped output (no
colour) still tells them apart. Colour follows rich: on for a terminal, off for a pipe,
``NO_COLOR`` and ``FORCE_COLOR`` honoured, or forced by ``color=``. Model text goes through
:func:`~argstream.render.sanitize.visible` and is written as plain text in rich styles, never parsed
as markup. Each item becomes one write; rich supplies the colour system, the styles and the
highlighter, and nothing is measured or laid out twice.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from typing import Any, NamedTuple, TextIO

from pygments.lexers import get_lexer_by_name
from rich.cells import cell_len, get_character_cell_size
from rich.console import COLOR_SYSTEMS, Console
from rich.style import Style
from rich.syntax import Syntax
from rich.text import Text

from ..events import ToolCallArgumentProgress
from ..fragments import SCALAR_TYPES, STRING_TYPES, Done, Empty
from ..stream import (
    ReasoningDelta,
    StreamFinished,
    StructuredDelta,
    TextDelta,
    ToolCallFailed,
    ToolCallFinished,
    ToolCallStarted,
    ToolCallViolation,
)
from .formatting import STYLES, label
from .sanitize import visible, visible_line

__all__ = ["TerminalRenderer", "make_console"]

_EMPTY_TEXT = {"object": "{}", "array": "[]", "string": '""'}
_PATH_KEYS = ("path", "file_path", "filename", "file")  # a parameter naming the file a call writes
_KEY, _VALUE, _STRING, _LEAD, _DIM = "cyan", "yellow", "green", "dim", "dim"
_MIN_ROOM = 12  # columns a wrapped line keeps for text whatever its lead


def make_console(out: TextIO | None = None, color: bool | None = None) -> Console:
    """A rich console for model text: no markup, no highlighting, no emoji codes; ``color`` forces colour."""
    options: dict[str, Any] = {"file": out if out is not None else sys.stdout, "highlight": False,
                               "markup": False, "emoji": False, "soft_wrap": True}
    if color is False:  # no colour, but still a terminal: its width still wraps the lines
        options.update(color_system=None, no_color=True)
    elif color is True:
        options["force_terminal"] = True
    console = Console(**options)
    if color is True and console.color_system is None:  # TERM=dumb or unset: still honour the request
        console = Console(**options, color_system="standard")
    return console


def _broken(violation: Any) -> str:
    """A schema violation in one line: where, and why."""
    where = "/".join(str(step) for step in getattr(violation, "path", ()))
    return f"breaks its schema at /{where}: {getattr(violation, 'message', violation)}"


def _chop(text: str, room: int) -> int:
    """How many characters of ``text`` fit in ``room`` cells."""
    if text.isascii():
        return min(room, len(text))
    used = 0
    for i, char in enumerate(text):
        used += get_character_cell_size(char)
        if used > room:
            return i
    return len(text)


class _Line(NamedTuple):
    """A line of argstream's own, drawn in order with the stream items."""

    text: str
    style: str


class _CallView:
    """What is on screen for one tool call: open headers, the string being written, its highlighter."""

    __slots__ = ("name", "headers", "string_path", "syntax", "pending", "brackets", "file")

    def __init__(self, name: str) -> None:
        self.name = name
        self.headers: list[tuple] = []  # function_call: the container paths with a header shown
        self.string_path: tuple | None = None  # the string being written, if any
        self.syntax: Syntax | None = None  # the highlighter for this call's file, once its path is known
        self.pending = ""  # highlighted strings: the part of the current line not yet drawn
        self.brackets: list[list[Any]] = []  # json: [path, closing bracket, members so far] per open container
        self.file: list[str] | None = []  # the path parameter's text so far; None once seen whole


class TerminalRenderer:
    """Draws stream items as they arrive. Call it (or :meth:`render`) with each item.

    ``out``: the text stream (default standard output), or give a rich ``console``. ``color``:
    ``None`` lets rich decide (terminal, ``NO_COLOR``, ``FORCE_COLOR``). ``style``: one of
    ``function_call``, ``json``, ``off``. ``reasoning=False`` hides reasoning text. ``width``
    fixes the wrap width (default: the terminal's, no wrapping when piped). ``outcomes=False``
    leaves out the ``✓``/``✗`` line of each finished or failed call and the stream's closing
    ``—`` line, for a caller that reports the outcome itself (the CLI's policy verdicts), so no
    outcome is printed twice; schema violations are still drawn as they are proven.

    Thread-safe: a prompt drawn from another thread goes through :meth:`hold` / :meth:`release`
    or :meth:`write_line`, which take the same lock as the live output.
    """

    def __init__(
        self,
        out: TextIO | None = None,
        *,
        color: bool | None = None,
        reasoning: bool = True,
        style: str = "function_call",
        width: int | None = None,
        console: Console | None = None,
        outcomes: bool = True,
    ) -> None:
        if style not in STYLES:
            raise ValueError(f"style must be one of {', '.join(STYLES)}, not {style!r}")
        self.console = console if console is not None else make_console(out, color)
        self.color = self.console.color_system is not None and self.console.is_terminal
        self.reasoning = reasoning
        self.style = style
        self.outcomes = outcomes
        self._width = width
        self._lock = threading.RLock()
        self._held: list[Any] | None = None
        self._calls: dict[str, _CallView] = {}
        self._failed: set[str] = set()
        self._active: str | None = None  # the call whose arguments are on the current lines
        self._mode = ""  # "text" or "reasoning" while free text is on the current line
        self._buf: list[str] = []
        self._styles: dict[Any, tuple[str, str]] = {}
        self._col = 0
        self._lead = ""  # written at the start of each new line (and wrapped continuation)
        self._lead_style = _LEAD

    def __call__(self, item: Any) -> None:
        self.render(item)

    # -- output primitives -------------------------------------------------------------

    def _wrap_width(self) -> int | None:
        if self._width is not None:
            return self._width
        if not self.console.is_terminal:
            return None
        if self.console.is_dumb_terminal:  # rich assumes 80 columns for TERM=dumb; the terminal knows better
            try:
                return os.get_terminal_size(self.console.file.fileno()).columns or self.console.width
            except (AttributeError, OSError, ValueError):
                pass
        return self.console.width

    def _sgr(self, style: str | Style | None) -> tuple[str, str]:
        """The escape codes around text in ``style`` for this console (none without colour), cached."""
        pair = self._styles.get(style)
        if pair is None:
            system = COLOR_SYSTEMS.get(self.console.color_system or "")
            if not style or system is None:
                pair = ("", "")
            else:
                parsed = self.console.get_style(style) if isinstance(style, str) else style
                if self.console.no_color:
                    parsed = parsed.without_color
                pre, _, post = parsed.render("\x00", color_system=system).partition("\x00")
                pair = (pre, post)
            self._styles[style] = pair
        return pair

    def _write(self, text: str, style: str | Style | None) -> None:
        pre, post = self._sgr(style)
        self._buf.append(f"{pre}{text}{post}" if pre else text)

    def _put(self, piece: str, style: str | Style | None = None) -> None:
        """Append one piece without newlines, wrapping at the width onto a new line with the lead."""
        width = self._wrap_width()
        if width is not None:
            width = max(width, cell_len(self._lead) + _MIN_ROOM)
        while piece:
            if self._col == 0 and self._lead:
                self._write(self._lead, self._lead_style)
                self._col = cell_len(self._lead)
            if width is None:
                self._write(piece, style)
                self._col += cell_len(piece)
                return
            count = _chop(piece, width - self._col)
            if count == 0 and self._col <= cell_len(self._lead):
                count = 1  # a wide character on a line too narrow for it: draw it anyway
            if count:
                self._write(piece[:count], style)
                self._col += cell_len(piece[:count])
            if count == len(piece):
                return
            self._newline()
            piece = piece[count:]

    def _puts(self, *pieces: str | tuple[str, str]) -> None:
        for piece in pieces:
            if isinstance(piece, tuple):
                self._put(*piece)
            else:
                self._put(piece)

    def _put_text(self, text: Text) -> None:
        """A rich ``Text`` (a highlighted line): each styled run in turn."""
        for segment in text.render(self.console):
            self._put(segment.text, segment.style)

    def _newline(self) -> None:
        if self._col == 0 and self._lead:  # an empty line still shows its lead
            self._write(self._lead.rstrip(), self._lead_style)
        self._buf.append("\n")
        self._col = 0

    def _line_start(self) -> None:
        """End whatever is on the current line; the next line has no lead."""
        if self._col:
            self._newline()
        self._mode = ""
        self._lead = ""

    def _line(self, *pieces: str | tuple[str, str]) -> None:
        self._line_start()
        self._puts(*pieces)
        self._newline()

    def _emit(self) -> None:
        if self._buf:
            self.console.file.write("".join(self._buf))
            self._buf = []
        self.console.file.flush()

    # -- public ------------------------------------------------------------------------

    def render(self, item: Any) -> None:
        """Draw one item (held back while :meth:`hold` is in effect); unknown items are ignored."""
        with self._lock:
            if self._held is not None:
                self._held.append(item)
                return
            self._draw(item)
            self._emit()

    def write_line(self, text: str, style: str | None = None) -> None:
        """A line of argstream's own (a decision, a summary) between the live output, sanitised;
        held back with the items while a question waits."""
        self.render(_Line(visible(text), style or ""))

    @property
    def holding(self) -> bool:
        """Drawing is held (a question waits, or is about to be asked)."""
        return self._held is not None

    def hold(self, question: str = "") -> None:
        """Stop drawing (items are kept, with those already held) and leave the cursor after
        ``question``, for a prompt; with no question, only stop drawing (a prompt is coming)."""
        with self._lock:
            if self._held is None:
                self._held = []
            if not question:
                return
            self._end_string()
            self._line_start()
            for i, part in enumerate(visible(question).split("\n")):
                if i:
                    self._newline()
                self._put(part, "bold")
            self._emit()
            self._col = 0  # the answer's newline, echoed by the terminal, ends the line

    def echo(self, answer: str) -> None:
        """End a held question's line with ``answer`` (a scripted reply, or nothing at end of input)."""
        with self._lock:
            self._buf.append(visible_line(answer) + "\n")
            self._emit()

    def release(self) -> None:
        """Draw what arrived while held, and go on drawing live."""
        with self._lock:
            held, self._held = self._held or [], None
            for item in held:
                self._draw(item)
            self._emit()

    def close(self) -> None:
        """Draw anything still held and end the current line."""
        with self._lock:
            held, self._held = self._held or [], None
            for item in held:
                self._draw(item)
            self._end_string()
            self._line_start()
            self._emit()

    # -- dispatch ------------------------------------------------------------------------

    def _draw(self, item: Any) -> None:
        cls = type(item)
        if cls is ToolCallArgumentProgress:
            self._progress(item)
        elif cls is TextDelta:
            self._free_text(item.text, "text")
        elif cls is ReasoningDelta:
            if self.reasoning:
                self._free_text(item.text, "reasoning", "┊ ", "dim italic")
        elif cls is StructuredDelta:
            self._free_text(item.chunk, "text")
        elif cls is ToolCallStarted:
            self._started(item.id, item.name)
        elif cls is ToolCallFailed:
            self._failed_call(item.id, item.name, f"invalid arguments ({item.error})")
        elif cls is ToolCallViolation:
            self._failed_call(item.id, item.name, _broken(item.violation), always=True)
        elif cls is ToolCallFinished:
            self._finished(item)
        elif cls is _Line:
            self._end_string()
            self._line((item.text, item.style))
        elif cls is StreamFinished:
            self._end_string()
            if self.outcomes:
                self._line((f"— {item.reason.value}", _DIM))

    def _free_text(self, text: str, mode: str, lead: str = "", style: str | None = None) -> None:
        self._end_string()
        if self._mode != mode:
            self._line_start()
            self._active = None
            self._mode = mode
            self._lead, self._lead_style = lead, _LEAD
        for i, part in enumerate(visible(text).split("\n")):
            if i:
                self._newline()
            self._put(part, style)

    def _header(self, name: str, call_id: str, note: str = "") -> None:
        self._line(("▶ " + visible_line(name), "bold"), "  ", (visible_line(call_id) + note, _DIM))

    def _started(self, call_id: str, name: str) -> None:
        self._end_string()
        self._calls[call_id] = _CallView(name)
        self._active = call_id
        self._header(name, call_id)

    def _failed_call(self, call_id: str, name: str, reason: str, always: bool = False) -> None:
        self._end_string()
        self._failed.add(call_id)
        if self.outcomes or always:
            self._line((f"✗ {visible_line(name)}: {visible_line(reason)}", "red"))

    def _finished(self, item: ToolCallFinished) -> None:
        self._end_string()
        self._calls.pop(item.id, None)
        if self._active == item.id:
            self._active = None
        if not self.outcomes:
            self._line_start()
        elif item.error is None and not item.violations:
            repaired = sorted({r.kind for r in getattr(item, "repairs", ())})
            note = f" (repaired JSON: {', '.join(repaired)})" if repaired else ""
            self._line((f"✓ {visible_line(item.name)}{note}", "green"))
        elif item.id not in self._failed:
            reason = f"invalid arguments ({item.error})" if item.error is not None else _broken(item.violations[0])
            self._failed_call(item.id, item.name, reason)
        self._failed.discard(item.id)

    # -- arguments -----------------------------------------------------------------------

    def _view(self, progress: ToolCallArgumentProgress) -> _CallView:
        call_id = progress.tool_call_id
        view = self._calls.get(call_id)
        if view is None:
            view = self._calls[call_id] = _CallView(progress.tool_name)
        if self._active != call_id:  # interleaved calls: say whose lines follow
            self._end_string()
            if self.style != "off":
                self._header(view.name, call_id, " (continued)")
            view.headers = []
            self._active = call_id
        return view

    def _end_string(self) -> None:
        """Close the string being written (a call's lines are interrupted by other output)."""
        view = self._calls.get(self._active) if self._active is not None else None
        if view is not None and view.string_path is not None:
            self._flush_pending(view)
            self._put("…", _DIM)
            view.string_path = None

    def _progress(self, progress: ToolCallArgumentProgress) -> None:
        if self._mode:
            self._line_start()
        view = self._view(progress)
        if self.color and view.file is not None and len(progress.path) == 1 and progress.path[0] in _PATH_KEYS:
            self._learn_language(view, progress.leaf)
        if self.style == "function_call":
            self._call_progress(view, progress.path, progress.leaf)
        elif self.style == "json":
            self._json_progress(view, progress.path, progress.leaf)

    def _learn_language(self, view: _CallView, leaf: Any) -> None:
        """Collect the call's ``path`` (bounded) and pick the highlighter its extension names."""
        assert view.file is not None
        cls = type(leaf)
        if cls in STRING_TYPES and len(view.file) < 64:
            view.file.append(leaf.text)
        elif cls is Done:
            name = Syntax.guess_lexer("".join(view.file)[-256:])
            view.file = None
            if name != "default":  # the lexer object itself: by name, rich would look it up on every line
                lexer = get_lexer_by_name(name)
                view.syntax = Syntax("", lexer, theme="ansi_dark", background_color="default")

    def _string_text(self, view: _CallView, path: tuple, text: str, escape: bool) -> None:
        """Draw a piece of a string value: JSON-escaped on one line, or line by line under a lead."""
        if escape:
            self._put(visible(json.dumps(text, ensure_ascii=False)[1:-1]), _STRING)
            return
        text = visible(text)
        if view.syntax is None or (path and path[-1] in _PATH_KEYS):
            for i, part in enumerate(text.split("\n")):
                if i:
                    self._newline()
                self._put(part, _STRING)
            return
        lines = (view.pending + text).split("\n")
        for line in lines[:-1]:
            self._put_text(self._highlight(view, line))
            self._newline()
        view.pending = lines[-1]
        width = self._wrap_width()
        if width is not None and cell_len(view.pending) >= width:  # a long line: draw what fills the screen
            self._flush_pending(view)

    def _highlight(self, view: _CallView, line: str) -> Text:
        assert view.syntax is not None
        text = view.syntax.highlight(line)
        if text.plain.endswith("\n"):
            text.right_crop(1)
        return text

    def _flush_pending(self, view: _CallView) -> None:
        if view.pending:
            self._put_text(self._highlight(view, view.pending))
            view.pending = ""

    def _end_value(self, view: _CallView, closing: str) -> None:
        self._flush_pending(view)
        self._put(closing, _STRING)
        view.string_path = None

    # function_call style: one "key: value" line per leaf, one header per container.

    def _headers(self, view: _CallView, path: tuple) -> None:
        """Show a header line for every container on ``path`` not yet shown."""
        headers = view.headers
        while headers and headers[-1] != path[: len(headers[-1])]:
            headers.pop()
        for depth in range(len(headers[-1]) + 1 if headers else 1, len(path)):
            prefix = path[:depth]
            self._line("  " * depth, (label(prefix[-1]), _KEY), ":")
            headers.append(prefix)

    def _name(self, path: tuple) -> None:
        self._put("  " * len(path))
        if path:
            self._puts((label(path[-1]), _KEY), ": ")

    def _call_progress(self, view: _CallView, path: tuple, leaf: Any) -> None:
        cls = type(leaf)
        if cls in STRING_TYPES:
            if view.string_path != path:
                self._end_string()
                self._line_start()
                self._headers(view, path)
                self._name(path)
                self._put('"', _STRING)
                self._lead = "  " * (len(path) + 1) + "│ "
                view.string_path = path
            self._string_text(view, path, leaf.text, escape=False)
            return
        if view.string_path == path:  # the Done (or Empty) of the string being written
            self._end_value(view, '"')
            self._line_start()
            return
        if cls in SCALAR_TYPES or cls is Empty:
            self._end_string()
            self._line_start()
            self._headers(view, path)
            shown = visible_line(json.dumps(leaf.value, ensure_ascii=False)) if cls in SCALAR_TYPES else _EMPTY_TEXT[leaf.kind]
            self._name(path)
            self._put(shown, _STRING if cls is Empty and leaf.kind == "string" else _VALUE)
            self._newline()

    # json style: the arguments as indented JSON, written as they stream.

    def _json_progress(self, view: _CallView, path: tuple, leaf: Any) -> None:
        cls = type(leaf)
        if view.string_path == path:
            if cls in STRING_TYPES:
                self._string_text(view, path, leaf.text, escape=True)
            else:
                self._end_value(view, '"')
            return
        if cls is Done:
            if any(entry[0] == path for entry in view.brackets):
                self._json_close(view, path)
                if not path:
                    self._line_start()
            return
        self._json_member(view, path)
        if cls in STRING_TYPES:
            self._put('"', _STRING)
            view.string_path = path
            self._string_text(view, path, leaf.text, escape=True)
        elif cls in SCALAR_TYPES:
            self._put(visible_line(json.dumps(leaf.value, ensure_ascii=False)), _VALUE)
        elif cls is Empty:
            self._put(_EMPTY_TEXT[leaf.kind], _STRING if leaf.kind == "string" else _VALUE)

    def _json_close(self, view: _CallView, path: tuple) -> None:
        """Close the open containers down to (and with) the one at ``path``."""
        brackets = view.brackets
        self._lead = ""
        while brackets and len(brackets[-1][0]) >= len(path):
            entry_path, closing, members = brackets.pop()
            if members:
                self._newline()
                self._put("  " * (len(entry_path) + 1))
            self._put(closing)

    def _json_member(self, view: _CallView, path: tuple) -> None:
        """Open the containers ``path`` goes through, then start its member: comma, indent, key."""
        brackets = view.brackets
        self._lead = ""
        while brackets and brackets[-1][0] != path[: len(brackets[-1][0])]:
            self._json_close(view, brackets[-1][0])
        if not brackets:
            self._line_start()
            self._put("  ")
            if not path:
                return
            root_is_array = type(path[0]) is int
            brackets.append([(), "]" if root_is_array else "}", 0])
            self._put("[" if root_is_array else "{")
        for depth in range(len(brackets[-1][0]) + 1, len(path) + 1):
            entry = brackets[-1]
            if entry[2] and self._col:  # (after a prompt or a line of argstream's, no comma on a line of its own)
                self._put(",")
            entry[2] += 1
            if self._col:
                self._newline()
            step = path[depth - 1]
            self._put("  " * (depth + 1))
            if type(step) is str:
                self._put(visible_line(json.dumps(step, ensure_ascii=False)), _KEY)
                self._put(": ")
            if depth < len(path):
                closing = "]" if type(path[depth]) is int else "}"
                self._put("[" if closing == "]" else "{")
                brackets.append([path[:depth], closing, 0])
        self._lead = "  " * (len(path) + 2)
