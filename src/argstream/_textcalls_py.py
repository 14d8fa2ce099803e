"""The text-call scanner's JSON skimmer, pure Python (twin of ``_textcalls.pyx``).

``skim(buf, i, depth, in_str, esc, max_depth)`` reads one JSON value's text from ``buf[i:]``,
tracking only strings, escapes and bracket depth, and returns ``(end, depth, in_str, esc, done)``:
``done`` when the value closed at ``end`` (its last character is ``buf[end - 1]``), else ``end`` is
``len(buf)`` and the other fields carry over to the next chunk. It stops early, not done, when the
depth passes ``max_depth``. Escaped quotes are told apart by the run of backslashes before them.
"""

from __future__ import annotations

import re

__all__ = ["skim"]

_BRACKETS = re.compile(r"[{}\[\]]")


def skim(buf: str, i: int, depth: int, in_str: bool, esc: bool, max_depth: int) -> tuple[int, int, bool, bool, bool]:
    n = len(buf)
    find = buf.find
    while i < n:
        if in_str:
            if esc:
                esc = False
                i += 1
                continue
            k = find('"', i)
            if k < 0:  # the string runs past the chunk: is its last character an escape's backslash?
                b = n
                while b > i and buf[b - 1] == "\\":
                    b -= 1
                return n, depth, True, (n - b) % 2 == 1, False
            b = k
            while b > i and buf[b - 1] == "\\":
                b -= 1
            i = k + 1
            if (k - b) % 2:  # an escaped quote
                continue
            in_str = False
            if depth == 0:
                return i, 0, False, False, True
            continue
        k = find('"', i)
        end = n if k < 0 else k
        before = depth
        for c in _BRACKETS.findall(buf, i, end):
            if c == "{" or c == "[":
                depth += 1
            else:
                depth -= 1
                if depth <= 0:
                    break
        if depth <= 0:  # the value ends in this stretch: find where
            depth = before
            for m in _BRACKETS.finditer(buf, i, end):
                depth += 1 if m.group() in "{[" else -1
                if depth <= 0:
                    return m.end(), 0, False, False, True
        if depth > max_depth:
            return end, depth, False, False, False
        if k < 0:
            return n, depth, False, False, False
        i = k + 1
        in_str = True
    return n, depth, in_str, esc, False
