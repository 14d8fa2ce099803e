"""ECMAScript regular expressions (JSON Schema's ``pattern`` dialect) translated to Python ``re``.

The two dialects share most syntax; the differences that change what matches are rewritten:

- ``\\d \\w \\b`` are ASCII-only in ECMAScript (Python's are Unicode), ``\\s`` is ECMAScript's own
  whitespace set, and ``.`` excludes all four line terminators (``\\n \\r \\u2028 \\u2029``);
- ``$`` matches only at the very end (Python's also matches before a final ``\\n``);
- ``[]`` never matches and ``[^]`` matches anything (both are errors in Python);
- ``(?<name>…)`` / ``\\k<name>`` become ``(?P<name>…)`` / ``(?P=name)``, ``\\cX`` and ``\\u{…}`` become
  code point escapes;
- syntax ECMAScript lacks (inline flags, ``(?P…)``, ``\\A``, ``\\Z``, ``\\p{…}``) is an error rather than
  silently meaning something else.
"""

from __future__ import annotations

import re

__all__ = ["translate", "compile_pattern"]

_MAX = 0x10FFFF
_DIGIT = ((0x30, 0x39),)
_WORD = ((0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A))
_SPACE = (
    (0x09, 0x0D), (0x20, 0x20), (0xA0, 0xA0), (0x1680, 0x1680), (0x2000, 0x200A),
    (0x2028, 0x2029), (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000), (0xFEFF, 0xFEFF),
)
_LINE_TERMINATORS = ((0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029))


def _complement(ranges: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    out, start = [], 0
    for lo, hi in ranges:
        if lo > start:
            out.append((start, lo - 1))
        start = hi + 1
    if start <= _MAX:
        out.append((start, _MAX))
    return tuple(out)


def _cp(c: int) -> str:
    return f"\\x{c:02x}" if c < 0x100 else (f"\\u{c:04x}" if c < 0x10000 else f"\\U{c:08x}")


def _members(ranges: tuple[tuple[int, int], ...]) -> str:
    """Class contents (without brackets) for ``ranges``."""
    return "".join(_cp(lo) if lo == hi else f"{_cp(lo)}-{_cp(hi)}" for lo, hi in ranges)


_CLASS_ESCAPES = {
    "d": _DIGIT, "D": _complement(_DIGIT),
    "w": _WORD, "W": _complement(_WORD),
    "s": _SPACE, "S": _complement(_SPACE),
}
_W = f"[{_members(_WORD)}]"
_BOUNDARY = f"(?:(?<={_W})(?!{_W})|(?<!{_W})(?={_W}))"
_NON_BOUNDARY = f"(?:(?<={_W})(?={_W})|(?<!{_W})(?!{_W}))"
_SIMPLE_ESCAPES = {"t": "\\t", "n": "\\n", "v": "\\v", "f": "\\f", "r": "\\r"}
_HEX = set("0123456789abcdefABCDEF")


def _escape(src: str, i: int, in_class: bool) -> tuple[str, int]:
    """Translate the escape at ``src[i] == '\\\\'``; return the Python text and the next index."""
    if i + 1 >= len(src):
        raise ValueError("pattern ends with a lone backslash")
    e = src[i + 1]
    j = i + 2
    if e in _CLASS_ESCAPES:
        members = _members(_CLASS_ESCAPES[e])
        return (members if in_class else f"[{members}]"), j
    if e in _SIMPLE_ESCAPES:
        return _SIMPLE_ESCAPES[e], j
    if e == "b":
        return ("\\x08" if in_class else _BOUNDARY), j
    if e == "B":
        if in_class:
            raise ValueError("\\B inside a character class")
        return _NON_BOUNDARY, j
    if e == "0" and not (j < len(src) and src[j].isdigit()):
        return "\\x00", j
    if e.isdigit():
        if in_class:
            raise ValueError(f"backreference \\{e} inside a character class")
        while j < len(src) and src[j].isdigit():
            j += 1
        return f"(?:\\{src[i + 1:j]})", j
    if e == "c":
        if j < len(src) and src[j].isascii() and src[j].isalpha():
            return _cp(ord(src[j]) % 32), j + 1
        raise ValueError("\\c must be followed by a letter")
    if e == "x":
        if len(src) >= j + 2 and set(src[j:j + 2]) <= _HEX:
            return "\\x" + src[j:j + 2], j + 2
        raise ValueError("\\x must be followed by two hex digits")
    if e == "u":
        if j < len(src) and src[j] == "{":
            end = src.find("}", j)
            digits = src[j + 1:end] if end > 0 else ""
            if not digits or not set(digits) <= _HEX or int(digits, 16) > _MAX:
                raise ValueError("malformed \\u{...} escape")
            return _cp(int(digits, 16)), end + 1
        if len(src) >= j + 4 and set(src[j:j + 4]) <= _HEX:
            return "\\u" + src[j:j + 4], j + 4
        raise ValueError("\\u must be followed by four hex digits or {...}")
    if e == "k":
        end = src.find(">", j)
        if j < len(src) and src[j] == "<" and end > j + 1 and not in_class:
            return f"(?P={src[j + 1:end]})", end + 1
        raise ValueError("malformed \\k<name> backreference")
    if e in "pP":
        raise ValueError(f"\\{e}{{...}} Unicode property escapes are not supported")
    if e.isascii() and e.isalnum():
        raise ValueError(f"\\{e} is not an ECMAScript escape")
    return re.escape(e), j


def translate(src: str) -> str:
    """Translate ECMAScript pattern ``src`` to Python ``re`` syntax. Raises ``ValueError``."""
    out: list[str] = []
    i, n = 0, len(src)
    in_class = False
    while i < n:
        c = src[i]
        if c == "\\":
            text, i = _escape(src, i, in_class)
            out.append(text)
            continue
        if in_class:
            if c == "]":
                in_class = False
                out.append(c)
            elif c in "[&|~" or (c == "-" and src.startswith("--", i)):
                out.append("\\" + c)  # Python reserves these for future set operations
            else:
                out.append(c)
            i += 1
            continue
        if c == "[":
            if src.startswith("[^]", i):
                out.append("[\\s\\S]")
                i += 3
            elif src.startswith("[]", i):
                out.append("(?!)")
                i += 2
            else:
                in_class = True
                if src.startswith("[^", i):
                    out.append("[^")
                    i += 2
                else:
                    out.append("[")
                    i += 1
            continue
        if c == ".":
            out.append(f"[^{_members(_LINE_TERMINATORS)}]")
        elif c == "$":
            out.append("\\Z")  # the very end only, never before a final newline
        elif c == "(" and src.startswith("(?", i):
            if src.startswith(("(?:", "(?=", "(?!", "(?<=", "(?<!"), i):
                out.append("(?")
                i += 2
                continue
            if src.startswith("(?<", i):
                out.append("(?P<")
                i += 3
                continue
            raise ValueError(f"group syntax {src[i:i + 3]!r} is not ECMAScript")
        else:
            out.append(c)
        i += 1
    if in_class:
        raise ValueError("unterminated character class")
    return "".join(out)


def compile_pattern(src: str) -> re.Pattern[str]:
    """Compile an ECMAScript pattern. Raises ``ValueError`` with the reason."""
    try:
        return re.compile(translate(src))
    except re.error as exc:
        raise ValueError(f"invalid regular expression {src!r}: {exc}") from None
    except ValueError as exc:
        raise ValueError(f"invalid regular expression {src!r}: {exc}") from None
