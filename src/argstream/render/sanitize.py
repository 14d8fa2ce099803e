"""The one sanitiser for model-controlled text on its way to a terminal.

A model's output is attacker-influenced: a ``command`` argument holding ``\\r`` + ``ESC[2K`` +
``ESC[1A`` erases the line the user is reading, OSC 0 / 8 / 52 set the window title, a hyperlink
or the clipboard, and bidirectional overrides reorder what is shown. Every layer that writes
model text (renderer, prompt, error lines) passes it through :func:`visible` first, so escape
sequences on screen come only from argstream itself.

C0 controls and DEL become their Unicode control pictures (``ESC`` shows as ``␛``), C1 controls
and the bidirectional formatting characters become ``<U+XXXX>``. Newlines are kept where the text
is multi-line content (``newlines=True``), tabs where it is content (``tabs=True``).
"""

from __future__ import annotations

import re

__all__ = ["visible", "visible_line", "has_unsafe"]

_BIDI = (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))


def _table(newlines: bool, tabs: bool) -> dict[int, str]:
    table = {c: chr(0x2400 + c) for c in range(0x20)}
    table[0x7F] = "\u2421"
    table.update({c: f"<U+{c:04X}>" for c in range(0x80, 0xA0)})
    table.update({c: f"<U+{c:04X}>" for c in _BIDI})
    if newlines:
        del table[0x0A]
    if tabs:
        del table[0x09]
    return table


_TABLES = {(n, t): _table(n, t) for n in (False, True) for t in (False, True)}
_PATTERNS = {
    key: re.compile("[" + "".join(f"\\U{c:08x}" for c in sorted(table)) + "]") for key, table in _TABLES.items()
}


def visible(text: str, *, newlines: bool = True, tabs: bool = True) -> str:
    """``text`` with every control character (and bidi override) made visible; cheap when there is none."""
    key = (newlines, tabs)
    if _PATTERNS[key].search(text) is None:
        return text
    return text.translate(_TABLES[key])


def visible_line(text: str) -> str:
    """For one-line fields (tool names, ids, keys, prompt values): newlines and tabs made visible too."""
    return visible(text, newlines=False, tabs=False)


def has_unsafe(text: str, *, newlines: bool = True, tabs: bool = True) -> bool:
    """``text`` holds a character that :func:`visible` would replace."""
    return _PATTERNS[(newlines, tabs)].search(text) is not None
