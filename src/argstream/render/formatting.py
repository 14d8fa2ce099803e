"""One-line and block forms of a tool call for prompts and logs, in the display styles of RFD D26.

Pure string building, no terminal and no dependency: every name, key and value passes through the
sanitiser, so the result can be printed as it is.
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Mapping

from .sanitize import visible_line

__all__ = ["STYLES", "format_call", "format_json_call", "format_prompt", "label", "placeholder_key"]

STYLES = ("function_call", "json", "off")


def label(step: str | int) -> str:
    """How one path element is shown: a key as is, an index as ``[i]``."""
    return f"[{step}]" if isinstance(step, int) else visible_line(step)


def _value(value: Any) -> str:
    return visible_line(json.dumps(value, ensure_ascii=False))


def format_call(name: str, arguments: Mapping[str, Any], streaming: Iterable[str] = (), *,
                more: bool = False) -> str:
    """One line for a prompt: ``fs_create_file(path: "src/main.rs", streaming "content"...)``.

    ``arguments`` are the parameters known so far; ``streaming`` names the ones still arriving.
    ``more`` says the arguments are not complete although no parameter is named as streaming
    (the next one's name has not arrived): ``streaming...`` ends the list, so a prompt never
    passes for the whole call. Strings are quoted, so a string ``"1"`` never reads as the number ``1``.
    """
    streaming = list(streaming)
    parts = [f"{visible_line(key)}: {_value(value)}" for key, value in arguments.items()]
    parts += [f'streaming "{visible_line(key)}"...' for key in streaming]
    if more and not streaming:
        parts.append("streaming...")
    return f"{visible_line(name)}({', '.join(parts)})"


def placeholder_key(arguments: Mapping[str, Any]) -> str:
    """The key of the ``json`` style's placeholder: ``"#"``, lengthened until no real key has it.

    A model may send a parameter named ``#`` itself; the placeholder then becomes ``##`` (and so
    on), so it can never be read as one of the call's real arguments.
    """
    key = "#"
    while key in arguments:
        key += "#"
    return key


def format_json_call(name: str, arguments: Mapping[str, Any], streaming: Iterable[str] = (), *,
                     more: bool = False) -> str:
    """The ``json`` style: the known parameters as indented JSON, one placeholder per streaming one::

        fs_create_file {
          "path": "src/main.rs",
          "#": "streaming argument \\"content\\"..."
        }

    With ``more`` and no streaming parameter named, one ``"#": "streaming more arguments..."``.
    """
    streaming = list(streaming)
    members = [f"  {_value(key)}: {_value(value)}" for key, value in arguments.items()]
    hash_key = placeholder_key(arguments)
    members += [f"  {_value(hash_key)}: {_value(f'streaming argument {json.dumps(key, ensure_ascii=False)}...')}"
                for key in streaming]
    if more and not streaming:
        members.append(f"  {_value(hash_key)}: {_value('streaming more arguments...')}")
    body = "{\n" + ",\n".join(members) + "\n}" if members else "{}"
    return f"{visible_line(name)} {body}"


def format_prompt(name: str, arguments: Mapping[str, Any], streaming: Iterable[str] = (),
                  style: str = "function_call", *, more: bool = False) -> str:
    """A call as a prompt shows it: ``format_call``, ``format_json_call``, or the name alone (``off``,
    with ``(streaming...)`` while the arguments are incomplete)."""
    if style == "json":
        return format_json_call(name, arguments, streaming, more=more)
    if style == "off":
        return visible_line(name) + (" (streaming...)" if more or any(True for _ in streaming) else "")
    return format_call(name, arguments, streaming, more=more)
