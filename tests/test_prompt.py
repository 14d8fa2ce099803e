"""The permission prompt: what it shows, how it reads answers, and that model text cannot forge it."""

from __future__ import annotations

import io
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from argstream.render.prompt import Prompt, edit_in_editor, find_editor
from argstream.render.terminal import TerminalRenderer
from argstream.stream import TextDelta

SGR = re.compile(r"\x1b\[[0-9;]*m")


@dataclass
class Call:
    """The parts of a coordinator's ``ToolCallState`` a prompt reads."""

    name: str
    known: dict[str, Any]
    streaming_parameter: str | None = None
    reprompt: bool = False
    arguments: dict[str, Any] = field(default_factory=dict)

    def partial_arguments(self) -> dict[str, Any]:
        return dict(self.known)


def _ask(call: Call, answers: str | None, *, style: str = "function_call", edit: Any = None, color: bool = False,
         answer: str | None = None) -> tuple[Any, str]:
    out = io.StringIO()
    renderer = TerminalRenderer(out, color=color, style=style)
    prompt = Prompt(renderer, io.StringIO(answers) if answers is not None else None, answer=answer, edit=edit)
    return prompt(call), out.getvalue()


CALL = Call("fs_create_file", {"path": "src/main.rs"}, "content")


def test_yes_no_and_the_question_shown() -> None:
    # answers piped in are echoed (nobody's typing did it), so the next line starts on its own
    assert _ask(CALL, "y\n") == (True, '? fs_create_file(path: "src/main.rs", streaming "content"...)  Allow? [y/n] y\n')
    assert _ask(CALL, "no\n")[0] is False
    assert _ask(CALL, "YES\n")[0] is True


def test_edit_is_offered_only_with_an_edit_callback() -> None:
    answer, shown = _ask(CALL, "e\n", edit=lambda call: None)
    assert answer == "edit" and shown.endswith("Allow? [y/n/e] e\n")
    answer, shown = _ask(CALL, "e\nn\n")
    assert answer is False and shown.endswith("Allow? [y/n] e\n  Answer y or n: n\n")


def test_end_of_input_declines_says_so_and_ends_the_line() -> None:
    answer, shown = _ask(CALL, "")
    assert answer is False and shown.endswith("[y/n] (no answer, end of input: declined)\n")
    answer, shown = _ask(CALL, None)  # nowhere to ask from
    assert answer is False and shown.endswith("[y/n] (no terminal to answer on: declined)\n")
    assert _ask(CALL, "maybe\n")[1].endswith("Answer y or n: (no answer, end of input: declined)\n")


def test_unanswered_tells_a_declined_prompt_from_a_persons_no() -> None:
    renderer = TerminalRenderer(io.StringIO(), color=False)
    nobody, person = Call("a", {}), Call("b", {})
    prompt = Prompt(renderer, io.StringIO(""))
    assert prompt(nobody) is False and prompt.unanswered(nobody)
    prompt.answers = io.StringIO("n\n")
    assert prompt(person) is False and not prompt.unanswered(person)


def test_a_prompt_before_the_arguments_are_complete_says_so() -> None:
    """D26: a parameter still streaming has a placeholder, and so do arguments whose next name has
    not arrived, in every style: an early prompt never reads as the whole call (issue 18 item 5)."""
    early = Call("fs_create_file", {"path": "src/a"}, None, arguments=None)
    assert _ask(early, "n\n")[1].startswith('? fs_create_file(path: "src/a", streaming...)  Allow?')
    shown = _ask(early, "n\n", style="json")[1]
    assert shown.startswith('? fs_create_file {\n  "path": "src/a",\n  "#": "streaming more arguments..."\n}  Allow?')
    assert _ask(early, "n\n", style="off")[1].startswith("? fs_create_file (streaming...)  Allow?")
    named = Call("fs_create_file", {"path": "src/a"}, "content", arguments=None)
    shown = _ask(named, "n\n", style="json")[1]
    assert '  "#": "streaming argument \\"content\\"..."\n}' in shown
    # complete arguments all shown: no placeholder; complete but some not shown: still one
    whole = Call("fs_create_file", {"path": "src/a"}, None, arguments={"path": "src/a"})
    assert _ask(whole, "n\n")[1].startswith('? fs_create_file(path: "src/a")  Allow?')
    later = Call("fs_create_file", {"path": "src/a"}, None, arguments={"path": "src/a", "content": "x"})
    assert _ask(later, "n\n")[1].startswith('? fs_create_file(path: "src/a", streaming...)  Allow?')


def test_a_scripted_answer_is_echoed() -> None:
    assert _ask(CALL, None, answer="y") == (True, '? fs_create_file(path: "src/main.rs", streaming "content"...)  Allow? [y/n] y\n')


def test_asked_again_says_so() -> None:
    call = Call("t", {"path": "a"}, reprompt=True)
    assert "asked again: the final arguments differ from what was shown" in _ask(call, "y\n")[1]


def test_json_style_question_uses_a_placeholder_no_real_key_can_be() -> None:
    call = Call("t", {"#": "mine"}, "content")
    shown = _ask(call, "n\n", style="json")[1]
    assert shown == '? t {\n  "#": "mine",\n  "##": "streaming argument \\"content\\"..."\n}  Allow? [y/n] n\n'


def test_live_output_waits_for_the_answer() -> None:
    out = io.StringIO()
    renderer = TerminalRenderer(out, color=False)

    class Answers(io.StringIO):
        def readline(self, *args: Any) -> str:
            renderer(TextDelta("drawn meanwhile"))  # the stream goes on while the user reads the question
            return "y\n"

    assert Prompt(renderer, Answers())(CALL) is True
    assert out.getvalue() == '? fs_create_file(path: "src/main.rs", streaming "content"...)  Allow? [y/n] y\ndrawn meanwhile'


def _hostile() -> st.SearchStrategy[str]:
    attacks = ["\r\x1b[2K\x1b[1A", "\x1b]0;pwned\x07", "\x9b2J", "\u202e", "\n", "[bold]x[/]", "\x00\x7f"]
    return st.lists(st.one_of(st.text(max_size=6), st.sampled_from(attacks)), max_size=5).map("".join)


@given(name=_hostile(), key=_hostile(), value=_hostile(), streaming=_hostile(), style=st.sampled_from(["function_call", "json", "off"]),
       color=st.booleans())
def test_the_prompt_line_has_no_control_argstream_did_not_write(name, key, value, streaming, style, color) -> None:
    call = Call(name, {key: value}, streaming or None)
    _, shown = _ask(call, "maybe\nn\n", style=style, color=color)
    plain = SGR.sub("", shown)
    assert not [c for c in plain if unicodedata.category(c) == "Cc" and c != "\n"]
    assert "\u202e" not in plain
    if style == "function_call" and not color:  # (a terminal's width wraps long lines)
        assert "\n" not in plain[: plain.index("Allow?")]  # a model cannot push "Allow?" onto a line of its own


def test_find_editor_and_edit(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("VISUAL", "sed -i s/old/new/")
    command = find_editor()
    assert command == ["sed", "-i", "s/old/new/"]
    edit = edit_in_editor(command)
    assert edit(Call("t", {}, arguments={"text": "old"})) == {"text": "new"}
    assert edit_in_editor(["false"])(Call("t", {}, arguments={"a": 1})) is None
    assert edit_in_editor(["sed", "-i", "s/.*/[1]/"])(Call("t", {}, arguments={"a": 1})) is None  # not an object


@dataclass
class Waiting:
    """A call as ``Prompt.hold_for`` sees it: status, prompt count, arguments once complete."""

    status: str
    prompts: int = 1
    arguments: dict[str, Any] | None = None
    name: str = "f"
    reprompt: bool = False
    streaming_parameter: str | None = None

    def partial_arguments(self) -> dict[str, Any]:
        return {}


def test_hold_for_holds_from_the_request_until_the_answer_and_never_after() -> None:
    renderer = TerminalRenderer(io.StringIO(), color=False)
    prompt = Prompt(renderer, io.StringIO("y\n"))
    call = Waiting("prompting")
    prompt.hold_for([Waiting("pending"), Waiting("approved")])
    assert not renderer.holding
    prompt.hold_for([call])  # requested, not yet asked: the stream's drawing waits
    assert renderer.holding
    assert prompt(call) is True and not renderer.holding
    prompt.hold_for([call])  # answered, the answer not yet applied by the driver: no new hold
    assert not renderer.holding
    call.prompts = 2  # asked again
    prompt.hold_for([call])
    assert renderer.holding


def test_nothing_is_drawn_while_the_editor_has_the_terminal() -> None:
    out = io.StringIO()
    renderer = TerminalRenderer(out, color=False)
    seen = []

    def editor(call: Any) -> dict[str, Any]:
        renderer(TextDelta("drawn meanwhile"))
        seen.append(out.getvalue())
        return {"a": 1}

    prompt = Prompt(renderer, io.StringIO(), edit=editor)
    call = Waiting("editing", prompts=1, arguments={"a": 0})
    assert prompt.edit(call) == {"a": 1}
    assert seen == [""] and out.getvalue() == "drawn meanwhile"  # held while editing, drawn after
    prompt.hold_for([call])
    assert not renderer.holding  # that edit is done
    prompt.hold_for([Waiting("editing", prompts=1, arguments=None)])
    assert not renderer.holding  # an edit decision waiting for complete arguments does not hold the stream
