"""The one sanitiser: model-controlled text never reaches a terminal with a control character."""

from __future__ import annotations

import io
import re
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from argstream.events import FinishReason, ToolCallArgumentProgress
from argstream.fragments import DONE, ObjectEntry, Scalar, String
from argstream.render import TerminalRenderer, format_call
from argstream.render.sanitize import has_unsafe, visible, visible_line
from argstream.stream import ReasoningDelta, StreamFinished, TextDelta, ToolCallFinished, ToolCallStarted

ERASE = "\r\x1b[2K\x1b[1A"
OSC = ["\x1b]0;pwned\x07", "\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\", "\x1b]52;c;cm0gLXJmIH4=\x07"]
CSI_C1 = "\x9b2K"  # the 8-bit CSI


def _controls(text: str, *, newline: bool, tab: bool) -> list[str]:
    allowed = {"\n"} if newline else set()
    if tab:
        allowed.add("\t")
    return [c for c in text if unicodedata.category(c) == "Cc" and c not in allowed]


@pytest.mark.parametrize("attack", [ERASE, *OSC, CSI_C1, "\x00\x07\x08\x7f", "\u202e\u2066"])
def test_visible_leaves_no_control(attack: str) -> None:
    shown = visible(f"rm -rf /{attack}ls")
    assert not _controls(shown, newline=True, tab=True)
    assert "\u202e" not in shown and "\u2066" not in shown
    assert shown.startswith("rm -rf /") and shown.endswith("ls")


def test_escape_shows_as_a_picture_and_text_without_controls_is_returned_as_is() -> None:
    assert visible("a\x1bb") == "a\u241bb"
    assert visible("\x9b") == "<U+009B>"
    text = "plain text\nwith\ttabs"
    assert visible(text) is text
    assert visible_line("a\nb\tc") == "a\u240ab\u2409c"
    assert has_unsafe("\x1b") and not has_unsafe("ok\n")


@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=60))
def test_visible_never_keeps_a_control_character(text: str) -> None:
    assert not _controls(visible(text), newline=True, tab=True)
    assert not _controls(visible_line(text), newline=False, tab=False)


def test_format_call_makes_name_keys_and_values_visible() -> None:
    line = format_call(f"fs_write{ERASE}Allow? [y/n] y", {f"pa{ERASE}th": f"x{OSC[0]}", "n": 1}, [f"c{ERASE}"])
    assert not _controls(line, newline=False, tab=False)
    assert "\u241b" in line


@st.composite
def _hostile(draw) -> str:
    pieces = draw(st.lists(st.one_of(st.text(max_size=8), st.sampled_from([ERASE, *OSC, CSI_C1, "\r", "\x1b"])),
                           max_size=6))
    return "".join(pieces)


SGR = re.compile(r"\x1b\[[0-9;]*m")  # the only escape sequences the renderer writes: colours and weights


@given(name=_hostile(), call_id=_hostile(), key=_hostile(), text=_hostile(), value=_hostile(),
       style=st.sampled_from(["function_call", "json", "off"]), color=st.booleans(), path=st.sampled_from(["a.py", "b"]))
def test_renderer_output_has_no_control_the_renderer_did_not_write(
    name, call_id, key, text, value, style, color, path
) -> None:
    buf = io.StringIO()
    renderer = TerminalRenderer(buf, color=color, style=style, width=40)
    items = [
        TextDelta(text), ReasoningDelta(text), ToolCallStarted(call_id, name),
        ToolCallArgumentProgress(call_id, name, ObjectEntry("path", String(path))),
        ToolCallArgumentProgress(call_id, name, ObjectEntry("path", DONE)),
        ToolCallArgumentProgress(call_id, name, ObjectEntry(key, String(value or "v"))),
        ToolCallArgumentProgress(call_id, name, ObjectEntry(key, DONE)),
        ToolCallArgumentProgress(call_id, name, ObjectEntry(value, Scalar(1))),
        ToolCallFinished(call_id, name, {key: value}),
        StreamFinished(FinishReason.TOOL_USE),
    ]
    for item in items:
        renderer(item)
    renderer.hold(f"? {format_call(name, {key: value}, [key])}  Allow? [y/n] ")
    renderer.release()
    renderer.write_line(value)
    renderer.close()
    out = buf.getvalue()
    assert not _controls(SGR.sub("", out), newline=True, tab=True)
    if not color:
        assert "\x1b" not in out
