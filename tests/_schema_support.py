"""Helpers for the schema tests: a span shim and char-at-a-time feeding.

Until ``IncrementalArgParser(spans=True)`` lands, ``char_spans`` feeds text
one character at a time and derives each fragment's span from where it was
emitted: the one character just read (the proving character for ``Empty``
and ``Done``, the decoded character for a ``String`` piece), and for a
``Scalar`` its literal, found by scanning back over literal characters.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator

from argstream import ArgumentStreamError, Done, Scalar

_LITERAL = set("0123456789+-.eEtrufalsn")


def char_spans(make_parser: Callable[..., Any], text: str) -> Iterator[tuple[Any, tuple[int, int], int]]:
    """``(flat fragment, span, position after the push that produced it)`` for ``text`` read a character
    at a time; the ``finish()`` fragments come with position ``len(text) + 1``."""
    parser = make_parser(flat=True)
    for i, char in enumerate(text):
        for fragment in parser.push(char):
            yield fragment, _span(text, i, fragment[1], True), i + 1
    for fragment in parser.finish():
        yield fragment, _span(text, len(text), fragment[1], False), len(text) + 1


def _span(text: str, i: int, leaf: Any, read: bool) -> tuple[int, int]:
    if type(leaf) is Scalar:
        end = i + 1 if read and (leaf.value is None or type(leaf.value) is bool) else i
        start = end
        while start > 0 and text[start - 1] in _LITERAL:
            start -= 1
        return start, end
    if isinstance(leaf, Done) and not read:
        return i, i
    return i, i + 1


def check_chars(schema: Any, make_parser: Callable[..., Any], text: str) -> tuple[list[tuple[Any, int]], dict]:
    """Validate ``text`` fed a character at a time: ``[(violation, position when reported)]`` and
    ``{path: position when its Done arrived}``. Text that is not JSON stops at its parse error."""
    validator = schema.validator()
    found: list[tuple[Any, int]] = []
    done_at: dict[tuple, int] = {}
    try:
        for fragment, span, position in char_spans(make_parser, text):
            for violation in validator.feed(fragment, span):
                found.append((violation, position))
            if isinstance(fragment[1], Done):
                done_at.setdefault(fragment[0], position)
    except ArgumentStreamError:
        pass
    return found, done_at
