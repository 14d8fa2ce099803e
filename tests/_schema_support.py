"""Helpers for the schema tests: char-at-a-time feeding with the parser's own spans."""

from __future__ import annotations

from typing import Any, Callable, Iterator

from argstream import ArgumentStreamError, Done


def char_spans(make_parser: Callable[..., Any], text: str) -> Iterator[tuple[Any, tuple[int, int], int]]:
    """``(flat fragment, span, position after the push that produced it)`` for ``text`` read a character
    at a time, spans from ``IncrementalArgParser(spans=True)``; the ``finish()`` fragments come with
    position ``len(text) + 1``."""
    parser = make_parser(flat=True, spans=True)
    for i, char in enumerate(text):
        fragments = parser.push(char)
        yield from ((fragment, span, i + 1) for fragment, span in zip(fragments, parser.spans))
    fragments = parser.finish()
    yield from ((fragment, span, len(text) + 1) for fragment, span in zip(fragments, parser.spans))


def check_chars(schema: Any, make_parser: Callable[..., Any], text: str) -> tuple[list[tuple[Any, int]], dict]:
    """Validate ``text`` fed a character at a time: ``[(violation, position when reported)]`` and
    ``{path: [position when each of its values' Done arrived, in order]}`` (a key given twice has two).
    Text that is not JSON stops at its parse error."""
    validator = schema.validator()
    found: list[tuple[Any, int]] = []
    done_at: dict[tuple, int] = {}
    try:
        for fragment, span, position in char_spans(make_parser, text):
            for violation in validator.feed(fragment, span):
                found.append((violation, position))
            if isinstance(fragment[1], Done):
                done_at.setdefault(fragment[0], []).append(position)
    except ArgumentStreamError:
        pass
    return found, done_at
