"""The terminal renderer: what a person sees while a tool call streams, in each display style."""

from __future__ import annotations

import io
import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from argstream import IncrementalArgParser
from argstream.events import FinishReason, ToolCallArgumentProgress
from argstream.render import TerminalRenderer, format_call, format_json_call, format_prompt, label, placeholder_key
from argstream.stream import (
    ReasoningDelta,
    StreamFinished,
    TextDelta,
    ToolCallFailed,
    ToolCallFinished,
    ToolCallStarted,
)

ESCAPE = re.compile(r"\x1b\[[0-9;]*m")


def _progress(call_id: str, name: str, chunks: list[str]) -> list[ToolCallArgumentProgress]:
    parser = IncrementalArgParser()
    out = []
    for chunk in chunks:
        out += [ToolCallArgumentProgress(call_id, name, f) for f in parser.push(chunk)]
    return out


def _render(items, **kw) -> str:
    buf = io.StringIO()
    kw.setdefault("color", False)
    renderer = TerminalRenderer(buf, **kw)
    for item in items:
        renderer(item)
    renderer.close()
    return buf.getvalue()


FILE_WRITE = [
    TextDelta("I'll "), TextDelta("write it."),
    ToolCallStarted("call_1", "fs_create_file"),
    *_progress("call_1", "fs_create_file", ['{"path": "src/a.py", "content": "line 1\\nli', 'ne 2\\n", "n": 3}']),
    ToolCallFinished("call_1", "fs_create_file", {"path": "src/a.py", "content": "line 1\nline 2\n", "n": 3}),
    StreamFinished(FinishReason.TOOL_USE),
]


def test_file_write_streams_under_its_label() -> None:
    assert _render(FILE_WRITE) == (
        "I'll write it.\n"
        "▶ fs_create_file  call_1\n"
        '  path: "src/a.py"\n'
        '  content: "line 1\n'
        "    │ line 2\n"
        '    │ "\n'
        "  n: 3\n"
        "✓ fs_create_file\n"
        "— tool_use\n"
    )


def test_json_style_writes_valid_looking_json_as_it_streams() -> None:
    out = _render(FILE_WRITE, style="json")
    assert out == (
        "I'll write it.\n"
        "▶ fs_create_file  call_1\n"
        "  {\n"
        '    "path": "src/a.py",\n'
        '    "content": "line 1\\nline 2\\n",\n'
        '    "n": 3\n'
        "  }\n"
        "✓ fs_create_file\n"
        "— tool_use\n"
    )
    body = out.split("call_1\n", 1)[1].split("✓", 1)[0]
    assert json.loads(body) == {"path": "src/a.py", "content": "line 1\nline 2\n", "n": 3}


@given(st.dictionaries(st.text(max_size=5), st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=8), max_size=4), st.integers(1, 7))
def test_json_style_is_the_arguments_whatever_their_shape(arguments, size) -> None:
    text = json.dumps(arguments, ensure_ascii=False)
    chunks = [text[i:i + size] for i in range(0, len(text), size)]
    out = _render([ToolCallStarted("c", "t"), *_progress("c", "t", chunks)], style="json")
    assert json.loads(out.split("c\n", 1)[1]) == json.loads(visible_json(text))


def visible_json(text: str) -> str:
    """The JSON text as the renderer may show it: C1 controls and bidi marks are made visible."""
    from argstream.render.sanitize import visible

    return visible(text)


def test_off_style_shows_calls_but_not_their_arguments() -> None:
    out = _render(FILE_WRITE, style="off")
    assert "▶ fs_create_file  call_1\n✓ fs_create_file\n" in out
    assert "src/a.py" not in out


def test_unknown_style_is_refused() -> None:
    with pytest.raises(ValueError, match="function_call, json, off"):
        TerminalRenderer(io.StringIO(), style="yaml")


def test_strings_and_numbers_stay_apart_when_piped() -> None:
    items = [ToolCallStarted("c", "t"), *_progress("c", "t", ['{"a": "1", "b": 1, "c": "", "d": null}'])]
    assert _render(items) == '▶ t  c\n  a: "1"\n  b: 1\n  c: ""\n  d: null\n'


def test_thinking_and_answer_stay_apart_when_piped() -> None:
    out = _render([ReasoningDelta("step one\nstep "), ReasoningDelta("two"), TextDelta("Answer\nhere")])
    assert out == "┊ step one\n┊ step two\nAnswer\nhere\n"
    assert "thinking" not in _render([ReasoningDelta("thinking")], reasoning=False)


def test_nested_values_get_one_header_per_level() -> None:
    doc = '{"path": "lib.rs", "patterns": [{"old": "a", "new": "b"}, {"old": "", "new": []}], "o": {}}'
    items = [ToolCallStarted("c", "fs_modify_file"), *_progress("c", "fs_modify_file", list(doc))]
    assert _render(items) == (
        "▶ fs_modify_file  c\n"
        '  path: "lib.rs"\n'
        "  patterns:\n"
        "    [0]:\n"
        '      old: "a"\n'
        '      new: "b"\n'
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
    assert '  x: "1…\n▶ two  b\n  y: true\n▶ one  a (continued)\n  x: "2"\n' in out


def test_failed_call_shows_once_as_soon_as_it_fails() -> None:
    from argstream import ArgumentStreamError

    error = ArgumentStreamError("Expecting value", 0)
    items = [ToolCallStarted("c", "t"), ToolCallFailed("c", "t", error), ToolCallFinished("c", "t", {}, error)]
    out = _render(items)
    assert out.count("✗ t: invalid arguments (Expecting value: line 1 column 1 (char 0))") == 1
    assert "✗" in _render([ToolCallFinished("c", "t", {}, error)])


def test_long_lines_wrap_at_the_width_under_their_lead() -> None:
    items = [ToolCallStarted("c", "t"), *_progress("c", "t", ['{"content": "' + "x" * 50 + '"}'])]
    out = _render(items, width=30)
    assert all(len(line) <= 30 for line in out.splitlines())
    assert out == '▶ t  c\n  content: "xxxxxxxxxxxxxxxxxx\n    │ xxxxxxxxxxxxxxxxxxxxxxxx\n    │ xxxxxxxx"\n'
    wide = _render([TextDelta("世界" * 20)], width=15)
    assert all(len(line) <= 7 for line in wide.splitlines())


def test_content_is_highlighted_by_its_path_language_when_colour_is_on() -> None:
    items = [ToolCallStarted("c", "t"), *_progress("c", "t", ['{"path": "a.py", "content": "def f():\\n  ret', 'urn 1\\n"}'])]
    coloured = _render(items, color=True)
    assert ESCAPE.sub("", coloured) == _render(items)
    assert "\x1b[94" in coloured  # the keyword colour of the python lexer
    plain_text = _render([ToolCallStarted("c", "t"), *_progress("c", "t", ['{"path": "a.unknown", "content": "def"}'])],
                         color=True)
    assert "\x1b[94" not in plain_text


def test_colour_codes_only_when_asked_and_rich_rules_apply(monkeypatch) -> None:
    assert "\x1b[1m" in _render([ToolCallStarted("c", "t")], color=True)
    assert "\x1b[" not in _render([ToolCallStarted("c", "t")])
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert "\x1b[" in _render([ToolCallStarted("c", "t")], color=None)  # a StringIO, forced by the environment
    monkeypatch.delenv("FORCE_COLOR")
    assert "\x1b[" not in _render([ToolCallStarted("c", "t")], color=None)  # not a terminal


def test_model_text_is_never_rich_markup() -> None:
    attack = "[bold red]x[/] [link=https://evil.example]y[/link] :smile:"
    items = [TextDelta(attack), ToolCallStarted("c", attack), *_progress("c", "t", [json.dumps({attack: attack})])]
    out = _render(items, color=True)
    assert ESCAPE.sub("", out).count(attack) == 3
    assert "\x1b]8" not in out


def test_a_large_argument_is_written_once() -> None:
    content = "line of content\n" * 20_000
    doc = json.dumps({"content": content})
    chunks = [doc[i:i + 64] for i in range(0, len(doc), 64)]
    out = _render([ToolCallStarted("c", "t"), *_progress("c", "t", chunks)], width=80)
    assert content.count("\n") <= out.count("\n") <= content.count("\n") + 5
    assert len(out) < len(content) * 1.5


def test_hold_keeps_items_until_release_and_write_line_ends_the_line() -> None:
    buf = io.StringIO()
    renderer = TerminalRenderer(buf, color=False)
    renderer(TextDelta("abc"))
    renderer.hold("? t()  Allow? [y/n] ")
    renderer(TextDelta("def"))
    assert buf.getvalue() == "abc\n? t()  Allow? [y/n] "
    buf.write("y\n")
    renderer.release()
    renderer.write_line("decided\x1b[2J")
    assert buf.getvalue() == "abc\n? t()  Allow? [y/n] y\ndef\ndecided\u241b[2J\n"


@pytest.mark.parametrize(
    ("args", "streaming", "expected"),
    [
        ({"path": "src/main.rs"}, ["content"], 'fs_create_file(path: "src/main.rs", streaming "content"...)'),
        ({"n": 1, "ok": True, "s": "1"}, [], 'fs_create_file(n: 1, ok: true, s: "1")'),
    ],
)
def test_format_call(args, streaming, expected) -> None:
    assert format_call("fs_create_file", args, streaming) == expected


def test_format_json_call_placeholder_cannot_be_a_real_key() -> None:
    assert format_json_call("fs_create_file", {"path": "src/main.rs"}, ["content"]) == (
        'fs_create_file {\n  "path": "src/main.rs",\n  "#": "streaming argument \\"content\\"..."\n}'
    )
    assert placeholder_key({"#": 1, "##": 2}) == "###"
    shown = format_json_call("t", {"#": "x"}, ["c"])
    assert '"##": "streaming argument' in shown and '"#": "x"' in shown
    assert format_json_call("t", {}) == "t {}"
    assert format_prompt("t", {"a": 1}, style="off") == "t"
    assert format_prompt("t", {"a": 1}, style="json") == format_json_call("t", {"a": 1})


def test_label() -> None:
    assert (label("path"), label(3)) == ("path", "[3]")


@settings(max_examples=30)
@given(st.lists(st.text(max_size=6), max_size=8), st.integers(12, 40))
def test_wrapping_never_exceeds_the_width(pieces, width) -> None:
    from rich.cells import cell_len

    out = _render([TextDelta(p) for p in pieces], width=width)
    assert all(cell_len(line) <= width for line in out.splitlines())


def test_json_style_resumes_cleanly_after_a_line_of_argstreams_own() -> None:
    buf = io.StringIO()
    renderer = TerminalRenderer(buf, color=False, style="json")
    items = [ToolCallStarted("c", "t"), *_progress("c", "t", ['{"path": "a"', ', "n": 1}'])]
    for item in items[:3]:
        renderer(item)
    renderer.write_line("  policy: ask")
    for item in items[3:]:
        renderer(item)
    assert buf.getvalue() == '▶ t  c\n  {\n    "path": "a"\n  policy: ask\n    "n": 1\n  }\n'


def test_a_second_hold_keeps_what_the_first_held() -> None:
    """A prompt that asks again ("Answer y or n") holds again: nothing held before is lost."""
    buf = io.StringIO()
    renderer = TerminalRenderer(buf, color=False)
    renderer.hold()  # a prompt is coming: hold, draw nothing yet
    assert renderer.holding and buf.getvalue() == ""
    renderer(TextDelta("first"))
    renderer.hold("? Allow? [y/n] ")
    renderer(TextDelta(" second"))
    renderer.echo("maybe")  # a scripted or piped answer ends the question's line
    renderer.hold("  Answer y or n: ")
    renderer(TextDelta(" third"))
    renderer.release()
    assert not renderer.holding
    assert buf.getvalue() == "? Allow? [y/n] maybe\n  Answer y or n: first second third"


def test_close_draws_what_is_still_held() -> None:
    buf = io.StringIO()
    renderer = TerminalRenderer(buf, color=False)
    renderer.hold()
    renderer(TextDelta("kept"))
    renderer.close()
    assert buf.getvalue() == "kept\n"


def test_without_outcomes_the_caller_reports_them_once() -> None:
    """outcomes=False (the CLI under a policy): no ✓/✗ per call and no closing line, violations still drawn."""
    from argstream.schema import Schema
    from argstream.stream import ToolCallViolation

    violation = Schema({"type": "object", "properties": {"a": {"type": "integer"}}}).validate({"a": "x"})[0]
    items = [ToolCallStarted("c1", "f"), *_progress("c1", "f", ['{"a": 1}']), ToolCallFinished("c1", "f", {"a": 1}),
             ToolCallStarted("c2", "g"), ToolCallFailed("c2", "g", ValueError("bad")),
             ToolCallStarted("c3", "h"), ToolCallViolation("c3", "h", violation),
             StreamFinished(FinishReason.TOOL_USE)]
    out = _render(items, outcomes=False)
    assert "✓" not in out and "— " not in out and "✗ g" not in out
    assert "✗ h: breaks its schema at /a" in out
    assert _render(items).count("✓ f") == 1 and "— tool_use" in _render(items)


def test_format_prompt_placeholders_in_every_style() -> None:
    assert format_prompt("f", {"a": 1}, [], "function_call", more=True) == "f(a: 1, streaming...)"
    assert format_prompt("f", {"a": 1}, ["b"], "function_call", more=True) == 'f(a: 1, streaming "b"...)'
    expected = 'f {\n  "#": 1,\n  "##": "streaming more arguments..."\n}'
    assert format_prompt("f", {"#": 1}, [], "json", more=True) == expected
    assert format_prompt("f", {}, [], "off", more=True) == "f (streaming...)"
    assert format_prompt("f", {"a": 1}, [], "off") == "f"
