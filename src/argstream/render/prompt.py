"""The permission prompt of a streaming tool call: ``Allow? [y/n/e]``, one line per answer.

A :class:`Prompt` is the ``prompt`` callback of a ``TurnCoordinator``. It shows the call as far
as it is known (in the renderer's display style), holds the renderer's live output while the
question waits so the two never garble, and reads one line per answer: ``y`` runs, ``n``
declines, ``e`` asks to edit the complete arguments (offered only with an ``edit`` callback),
anything else asks again, and end of input declines. :func:`edit_in_editor` is that callback
for a terminal: the arguments as JSON in ``$VISUAL`` / ``$EDITOR``.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import tempfile
from typing import Any, Callable, TextIO

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
        self.edit = edit

    def question(self, call: Any) -> str:
        """The prompt line for ``call``: the call as known so far, then the choices."""
        streaming = [call.streaming_parameter] if call.streaming_parameter else []
        shown = format_prompt(call.name, call.partial_arguments(), streaming, self.renderer.style)
        changed = " (asked again: the final arguments differ from what was shown)" if getattr(call, "reprompt", False) else ""
        return f"? {shown}{changed}  Allow? {'[y/n/e]' if self.edit is not None else '[y/n]'} "

    def __call__(self, call: Any) -> bool | str:
        self.renderer.hold(self.question(call))
        try:
            while True:
                reply = self._read()
                if reply is None:
                    return False
                if reply in _YES:
                    return True
                if reply in _NO:
                    return False
                if reply in _EDIT and self.edit is not None:
                    return "edit"
                self.renderer.hold(f"  Answer y or n{' (or e to edit)' if self.edit is not None else ''}: ")
        finally:
            self.renderer.release()

    def _read(self) -> str | None:
        """One answer, lower-cased; ``None`` at end of input (the prompt line is ended)."""
        if self.answer is not None:
            self.renderer.echo(self.answer)
            return self.answer
        line = self.answers.readline() if self.answers is not None else ""
        if not line:
            self.renderer.echo("")
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
