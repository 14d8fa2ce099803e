"""The permission prompt of a streaming tool call: ``Allow? [y/n/e]``, one line per answer.

A :class:`Prompt` is the ``prompt`` callback of a ``TurnCoordinator``. It shows the call as far as
it is known (in the renderer's display style), holds the renderer's live output while the question
waits so the two never garble, and reads one line per answer: ``y`` runs, ``n`` declines, ``e``
asks to edit the complete arguments (offered only with an ``edit`` callback), anything else asks
again, and end of input declines. A prompt nobody can answer (no answer stream, or one already at
its end: a pipe, ``/dev/null``) says so on its line and declines; :meth:`Prompt.unanswered` tells
those calls apart, so a summary does not call that a person's "no". A prompt made before the
arguments are complete says so (``streaming...`` or the parameter still streaming), so it never
reads as the whole call. :func:`edit_in_editor` is the ``edit`` callback for a terminal: the
arguments as JSON in ``$VISUAL`` / ``$EDITOR``.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import tempfile
import threading
from typing import Any, Callable, Iterable, TextIO

from .formatting import format_prompt
from .terminal import TerminalRenderer

__all__ = ["Prompt", "edit_in_editor", "find_editor"]

_YES, _NO, _EDIT = ("y", "yes"), ("n", "no"), ("e", "edit")


class Prompt:
    """Ask about a call on ``renderer``'s terminal, reading answers from ``answers``.

    ``answers`` is a text stream (``None``: no way to ask, every prompt declines);
    ``answer`` scripts every reply (``"y"``, ``"n"``); ``edit`` makes ``e`` an answer.
    """

    def __init__(
        self,
        renderer: TerminalRenderer,
        answers: TextIO | None,
        *,
        answer: str | None = None,
        edit: Callable[[Any], Any] | None = None,
    ) -> None:
        self.renderer = renderer
        self.answers = answers
        self.answer = answer
        self.edit = self._holding(edit) if edit is not None else None
        self._unanswered: dict[int, Any] = {}  # id -> call declined because nobody could answer
        self._asked: dict[int, tuple[Any, int]] = {}  # id -> (call, the prompt number last answered)
        self._lock = threading.Lock()

    def hold_for(self, calls: Iterable[Any]) -> None:
        """Hold the renderer's drawing when one of ``calls`` waits for a prompt (or an editor) not yet
        answered.

        For the thread that draws the stream (the coordinator's ``render``): from the moment a
        prompt is requested until it is answered, what the stream brings is held, so the question
        is never preceded by arguments it does not show, and nothing is drawn over an editor.
        Atomic with the answer's release, so a hold never outlives its prompt.
        """
        with self._lock:
            for call in calls:
                status = getattr(call.status, "value", call.status)
                waiting = status == "prompting" or (status == "editing" and call.arguments is not None)
                if waiting and self._asked.get(id(call), (call, 0))[1] < call.prompts:
                    self.renderer.hold()
                    return

    def _holding(self, edit: Callable[[Any], Any]) -> Callable[[Any], Any]:
        """``edit``, with the renderer held while the editor has the terminal."""

        def run(call: Any) -> Any:
            with self._lock:
                self.renderer.hold()
            try:
                return edit(call)
            finally:
                with self._lock:
                    self._asked[id(call)] = (call, getattr(call, "prompts", 0))
                    self.renderer.release()

        return run

    def unanswered(self, call: Any) -> bool:
        """``call`` was declined because nobody could answer its prompt (no terminal, end of input)."""
        return self._unanswered.get(id(call)) is call

    def question(self, call: Any) -> str:
        """The prompt line for ``call``: the call as known so far, then the choices."""
        shown_arguments = call.partial_arguments()
        streaming = call.streaming_parameter
        complete = call.arguments  # None until the arguments are complete
        more = complete is None or any(key not in shown_arguments for key in complete)
        shown = format_prompt(call.name, shown_arguments, [streaming] if streaming else [], self.renderer.style,
                              more=more)
        changed = " (asked again: the final arguments differ from what was shown)" if getattr(call, "reprompt", False) else ""
        repairs = getattr(call, "repairs", ())
        if repairs:  # the lenient parser had to guess: say what it repaired (kinds are its own names)
            kinds = sorted({r.kind for r in repairs})
            changed += f" (repaired JSON: {', '.join(kinds)})"
        return f"? {shown}{changed}  Allow? {'[y/n/e]' if self.edit is not None else '[y/n]'} "

    def __call__(self, call: Any) -> bool | str:
        self.renderer.hold(self.question(call))
        try:
            while True:
                reply = self._read()
                if reply is None:
                    self._unanswered[id(call)] = call
                    return False
                if reply in _YES:
                    return True
                if reply in _NO:
                    return False
                if reply in _EDIT and self.edit is not None:
                    return "edit"
                self.renderer.hold(f"  Answer y or n{' (or e to edit)' if self.edit is not None else ''}: ")
        finally:
            with self._lock:
                self._asked[id(call)] = (call, getattr(call, "prompts", 0))
                self.renderer.release()

    def _read(self) -> str | None:
        """One answer, lower-cased; ``None`` at end of input (the prompt line is ended)."""
        if self.answer is not None:
            self.renderer.echo(self.answer)
            return self.answer
        if self.answers is None:
            self.renderer.echo("(no terminal to answer on: declined)")
            return None
        line = self.answers.readline()
        if not line:
            self.renderer.echo("(no answer, end of input: declined)")
            return None
        if not _is_terminal(self.answers):  # nobody's typing echoed it: end the prompt line with the answer
            self.renderer.echo(line.strip())
        return line.strip().lower()


def _is_terminal(stream: Any) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty()) if isatty is not None else False
    except ValueError:  # closed
        return False


def find_editor() -> list[str] | None:
    """The editor command: ``$VISUAL``, ``$EDITOR``, else ``vi`` or ``nano`` when installed."""
    for variable in ("VISUAL", "EDITOR"):
        command = os.environ.get(variable, "").strip()
        if command:
            return shlex.split(command)
    for name in ("vi", "nano"):
        path = shutil.which(name)
        if path:
            return [path]
    return None


def edit_in_editor(command: list[str]) -> Callable[[Any], dict[str, Any] | None]:
    """An ``edit`` callback: the call's complete arguments as JSON in ``command``; ``None`` declines.

    The edited text must be a JSON object; an editor that fails, an empty file or anything
    else declines the call.
    """

    def edit(call: Any) -> dict[str, Any] | None:
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False, encoding="utf-8") as f:
            json.dump(call.arguments, f, ensure_ascii=False, indent=2)
            name = f.name
        try:
            if subprocess.call([*command, name]) != 0:
                return None
            with open(name, encoding="utf-8") as f:
                edited = json.load(f)
        except (OSError, ValueError):
            return None
        finally:
            os.unlink(name)
        return edited if isinstance(edited, dict) else None

    return edit
