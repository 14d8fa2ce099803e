"""The ``pattern`` engine: one function to re-point when the project settles on a linear-time engine.

Patterns are ECMAScript (translated by ``policy._ecma_regex``). With
``google-re2`` installed, matching is linear in the string's length. With
Python's backtracking ``re``, a pattern that nests unbounded repeats
(``(a+)+``, ``(\\w*)*``) can take exponential time on a crafted string, and the
string is the model's: such patterns are refused when the schema is built.
"""

from __future__ import annotations

import re
import sys
from typing import Any, Callable

from ..policy._ecma_regex import translate

try:
    import re2  # optional: google-re2
except ImportError:  # pragma: no cover - depends on the environment
    re2 = None

__all__ = ["compile_search"]

if sys.version_info >= (3, 11):
    from re import _parser as _sre_parse
else:  # pragma: no cover - Python 3.10
    import sre_parse as _sre_parse

_REPEATS = {_sre_parse.MAX_REPEAT, _sre_parse.MIN_REPEAT, getattr(_sre_parse, "POSSESSIVE_REPEAT", None)}
_UNBOUNDED = _sre_parse.MAXREPEAT


def _may_match(item: tuple[Any, Any], code: int) -> bool:
    """Whether the one-character item can match character ``code`` (``True`` when unsure)."""
    op, arg = item
    if op is _sre_parse.LITERAL:
        return bool(arg == code)
    if op is _sre_parse.NOT_LITERAL:
        return bool(arg != code)
    if op is _sre_parse.IN:
        negate, hit = False, False
        for sub_op, sub_arg in arg:
            if sub_op is _sre_parse.NEGATE:
                negate = True
            elif sub_op is _sre_parse.LITERAL:
                hit = hit or sub_arg == code
            elif sub_op is _sre_parse.RANGE:
                hit = hit or sub_arg[0] <= code <= sub_arg[1]
            else:
                return True
        return hit != negate
    return True


def _delimited(body: list[Any]) -> bool:
    """The repeated ``body`` starts with a literal that none of its inner unbounded single-character
    repeats can match, so each iteration starts at a fixed character: ``(-[a-z]+)*`` is linear."""
    if not body or body[0][0] is not _sre_parse.LITERAL:
        return False
    code = body[0][1]
    for op, arg in body[1:]:
        if op in _REPEATS and arg[1] == _UNBOUNDED:
            inner = list(arg[2])
            if len(inner) != 1 or _may_match(inner[0], code):
                return False
        elif op in _REPEATS or op is _sre_parse.SUBPATTERN or op is _sre_parse.BRANCH:
            return False
    return True


def _nested_unbounded(items: Any, inside: bool) -> bool:
    """A repeat without an upper bound inside another one (the classic catastrophic-backtracking shape)."""
    for op, arg in items:
        if op in _REPEATS:
            low, high, sub = arg
            unbounded = high == _UNBOUNDED
            if unbounded and inside:
                return True
            body = list(sub)
            if len(body) == 1 and body[0][0] is _sre_parse.SUBPATTERN:
                body = list(body[0][1][-1])
            if unbounded and _delimited(body):
                continue
            if _nested_unbounded(sub, inside or unbounded):
                return True
        elif op is _sre_parse.SUBPATTERN:
            if _nested_unbounded(arg[-1], inside):
                return True
        elif op is _sre_parse.BRANCH:
            if any(_nested_unbounded(branch, inside) for branch in arg[1]):
                return True
        elif op in (_sre_parse.ASSERT, _sre_parse.ASSERT_NOT):
            if _nested_unbounded(arg[1], inside):
                return True
    return False


_SURROGATE = re.compile("[\ud800-\udfff]")
_PY_ESCAPES = re.compile(r"\\\\|\\u([0-9a-fA-F]{4})|\\U([0-9a-fA-F]{8})|\\Z")


def _re2_syntax(translated: str) -> str:
    """Python-only escapes the translation emits, in RE2's spelling (``\\x{...}``, ``\\z``)."""
    def spell(match: re.Match[str]) -> str:
        code = match.group(1) or match.group(2)
        if code:
            return f"\\x{{{code}}}"
        return "\\z" if match.group(0) == "\\Z" else match.group(0)

    return _PY_ESCAPES.sub(spell, translated)


def _re2_search(translated: str) -> Callable[[str], bool] | None:
    """A linear-time search with RE2, or ``None`` when RE2 is absent or lacks the syntax (lookaround)."""
    if re2 is None:
        return None
    options = re2.Options()
    options.log_errors = False
    try:
        compiled = re2.compile(_re2_syntax(translated), options)
    except Exception:  # noqa: BLE001 - re2 raises its own error type for lookaround and backreferences
        return None

    def search(text: str) -> bool:
        try:
            return compiled.search(text) is not None
        except UnicodeEncodeError:  # a lone surrogate (surrogates="pass"): RE2 reads UTF-8, so U+FFFD stands in
            return compiled.search(_SURROGATE.sub("\ufffd", text)) is not None

    return search


def compile_search(pattern: str) -> Callable[[str], bool]:
    """A function telling whether ``pattern`` matches somewhere in a string. Raises ``ValueError``."""
    translated = translate(pattern)
    fast = _re2_search(translated)
    if fast is not None:
        return fast
    try:
        parsed = _sre_parse.parse(translated)
        compiled_re = re.compile(translated)
    except re.error as exc:
        raise ValueError(f"invalid regular expression {pattern!r}: {exc}") from None
    if _nested_unbounded(parsed.data, False):
        raise ValueError(
            f"pattern {pattern!r} nests unbounded repeats, which can backtrack exponentially on a crafted "
            "string; rewrite it, or install google-re2 for linear-time matching"
        )
    return lambda text: compiled_re.search(text) is not None
