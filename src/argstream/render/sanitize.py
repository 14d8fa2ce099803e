"""The one sanitiser for model-controlled text on its way to a terminal.

A model's output is attacker-influenced: a ``command`` argument holding ``\\r`` + ``ESC[2K`` +
``ESC[1A`` erases the line the user is reading, OSC 0 / 8 / 52 set the window title, a hyperlink
or the clipboard, and bidirectional overrides reorder what is shown. Every layer that writes
model text (renderer, prompt, error lines) passes it through :func:`visible` first, so escape
sequences on screen come only from argstream itself.

Invisible characters are as dangerous on a prompt: ``src/a`` and ``src/a`` + U+200B look the
same when a person approves, tag characters (U+E0020-E007F) carry hidden text, and U+2028 / U+2029
break lines that a terminal may or may not show. So C0 controls and DEL become their Unicode
control pictures (``ESC`` shows as ``␛``), and C1 controls, the bidirectional formatting
characters, the zero-width and other invisible format characters, the line and paragraph
separators and the tag characters become ``<U+XXXX>``, as do lone surrogates (a ``\\ud800``
escape in a tool name or a text delta decodes to one), which cannot be written to a UTF-8
terminal at all. Newlines are kept where the text is multi-line content (``newlines=True``), tabs
where it is content (``tabs=True``).
"""

from __future__ import annotations

import re

__all__ = ["visible", "visible_line", "has_unsafe", "INVISIBLE"]

_BIDI = (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))
_FORMAT = (  # every format character (Cf) of Unicode 15.1 but the bidi ones above, and the separators
    0x00AD, *range(0x0600, 0x0606), 0x06DD, 0x070F, 0x0890, 0x0891, 0x08E2, 0x180E,
    *range(0x200B, 0x200E),  # zero-width space, non-joiner, joiner
    0x2028, 0x2029,  # line and paragraph separators
    *range(0x2060, 0x2065), *range(0x206A, 0x2070),  # word joiner, invisible operators, deprecated format
    0xFEFF, *range(0xFFF9, 0xFFFC),  # BOM / zero-width no-break space, interlinear annotation
    0x110BD, 0x110CD, *range(0x13430, 0x13440), *range(0x1BCA0, 0x1BCA4), *range(0x1D173, 0x1D17B),
    *range(0xE0000, 0xE0080),  # the tags block: hidden ASCII (U+E0020-E007F), U+E0001 and the unassigned rest
    0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x3164, 0xFFA0,  # not Cf, but drawn as nothing: joiner, fillers
)
_SURROGATES = tuple(range(0xD800, 0xE000))  # lone: what json.loads gives for a "\\ud800" escape
INVISIBLE = frozenset(_BIDI + _FORMAT + _SURROGATES + tuple(range(0x80, 0xA0)) + (0x7F,))
"""Code points beyond C0 that :func:`visible` replaces: what other writers (``parse --format json``) escape too."""


def _table(newlines: bool, tabs: bool) -> dict[int, str]:
    table = {c: chr(0x2400 + c) for c in range(0x20)}
    table[0x7F] = "\u2421"
    table.update({c: f"<U+{c:04X}>" for c in range(0x80, 0xA0)})
    table.update({c: f"<U+{c:04X}>" for c in _BIDI + _FORMAT + _SURROGATES})
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
    """``text`` with every control, bidi and invisible format character made visible; cheap when there is none."""
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
