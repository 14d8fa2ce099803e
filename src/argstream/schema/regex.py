"""The ``pattern`` engine of the schema check: the linear-time engine, and nothing slower unasked.

Patterns are ECMAScript (translated by ``policy._ecma_regex``) and run on
model output, so by default only patterns that RE2 (``google-re2``) runs are
accepted: matching is linear in the string's length. A pattern that needs a
backtracking engine (a lookaround, a backreference), or any pattern when RE2
is not installed, is refused when the schema is built, unless the user gives a
time bound (``Schema(..., pattern_timeout=seconds)``): it then runs on the
``regex`` module, and a search that runs out of time counts as a mismatch (a
``pattern`` violation). No analysis of the pattern decides what is
safe: overlapping alternation (``(a|a)*``) and polynomial shapes (``.*.*.*=``)
are as slow on a backtracking engine as nested repeats.

One shape skips the engines: a whole string of one class of ASCII characters,
``^[A-Za-z0-9_./-]+$`` (or ``*``), the usual pattern of a name, id or path. Its
answer is whether every character is in the class, which Python's ``re`` gives
from ``fullmatch`` in one linear pass over a bitmap, without RE2's fixed cost of
a search (some 8K instructions a 40-character path, most of a checked call sent
whole).
"""

from __future__ import annotations

import re
from typing import Any, Callable

from ..policy._ecma_regex import BoundedPattern, PatternTimeout, compile_bounded, compile_pattern, translate

try:
    import re2  # optional: google-re2
except ImportError:  # pragma: no cover - depends on the environment
    re2 = None

__all__ = ["compile_search"]

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

    match = _direct_match(compiled)
    if match is not None:
        def direct(text: str) -> bool:
            try:
                data = text.encode("utf-8")
            except UnicodeEncodeError:  # a lone surrogate (surrogates="pass"): RE2 reads UTF-8, so U+FFFD stands in
                data = _SURROGATE.sub("\ufffd", text).encode("utf-8")
            return match(_UNANCHORED, data, 0, len(data))[0] != _NO_SPAN

        return direct

    def search(text: str) -> bool:
        try:
            return compiled.search(text) is not None
        except UnicodeEncodeError:  # a lone surrogate, as in ``direct``
            return compiled.search(_SURROGATE.sub("\ufffd", text)) is not None

    return search


_NO_SPAN = (-1, -1)
try:  # the anchor RE2's own Match takes (google-re2's private layout; absent, the public search serves)
    _UNANCHORED: Any = re2._re2.RE2.Anchor.UNANCHORED if re2 is not None else None
except AttributeError:  # pragma: no cover - another google-re2 layout
    _UNANCHORED = None
_PROBES = ("", "a", "A0 _./-", "\u00e9\n\u2028", "\U0001f600")


def _direct_match(compiled: Any) -> Callable[..., Any] | None:
    """RE2's own ``Match`` on UTF-8 bytes, when this google-re2 has the layout it was written against.

    The wrapper's ``search`` builds a match object and maps its byte offsets back to characters:
    3.3 us for a 40-character path, against 0.55 us for the yes-or-no the schema check needs, once
    per checked string. The layout is private, so it is checked here: on a few probes the two must
    agree, and anything unexpected keeps the wrapper's ``search``."""
    if _UNANCHORED is None:
        return None
    try:
        match = compiled._regexp.Match
        for probe in _PROBES:
            data = probe.encode("utf-8")
            if (match(_UNANCHORED, data, 0, len(data))[0] != _NO_SPAN) != (compiled.search(probe) is not None):
                return None
    except Exception:  # noqa: BLE001 - another google-re2 layout: the public API serves
        return None
    return match


def _bounded_search(bounded: BoundedPattern) -> Callable[[str], bool]:
    def search(text: str) -> bool:
        try:
            return bounded.search(text)
        except PatternTimeout:
            return False

    return search


#: ``^[...]+$`` or ``^[...]*$`` whose class holds ASCII letters and digits (alone or as ranges ``a-z``),
#: a few punctuation marks that mean themselves in any class, and a ``-`` last: read the same way by
#: ECMAScript, RE2 and Python's ``re``
_ONE_CLASS = re.compile(r"\^\[((?:[A-Za-z0-9](?:-[A-Za-z0-9])?|[_.:@~,+= /])+-?)\]([+*])\$")


def _one_class(pattern: str) -> Callable[[str], bool] | None:
    """The search of a pattern that accepts exactly the strings of one ASCII class (``_ONE_CLASS``): the
    class's ``fullmatch``, which a lone surrogate fails as RE2's U+FFFD does; ``None`` for any other."""
    found = _ONE_CLASS.fullmatch(pattern)
    if found is None:
        return None
    try:
        # (``~`` escaped: Python reads ``~~`` in a class as a set operation to come, and warns)
        fullmatch = re.compile(f"[{found.group(1).replace('~', chr(92) + '~')}]{found.group(2)}").fullmatch
    except re.error:  # a range that runs backwards: the engines' own error stands
        return None

    def search(text: str) -> bool:
        return fullmatch(text) is not None

    return search


def compile_search(pattern: str, timeout: float | None = None) -> Callable[[str], bool]:
    """A function telling whether ``pattern`` matches somewhere in a string. Raises ``ValueError``.

    ``timeout`` (seconds per search) admits a pattern the linear engine cannot run; a search that
    runs out of time answers ``False``.
    """
    try:
        translated = translate(pattern)
    except ValueError as exc:
        raise ValueError(f"invalid regular expression {pattern!r}: {exc}") from None
    compile_pattern(pattern)  # a malformed pattern is an error whatever the engine
    simple = _one_class(pattern)
    if simple is not None:
        return simple
    fast = _re2_search(translated)
    if fast is not None:
        return fast
    if timeout is None:
        why = ("needs a backtracking engine (a lookaround or a backreference)" if re2 is not None
               else "needs google-re2, the linear-time engine, which is not installed (pip install google-re2)")
        raise ValueError(
            f"pattern {pattern!r} {why}: a backtracking engine can take exponential or polynomial time on a "
            "crafted string, so such patterns are refused unless the schema gives them a time bound "
            "(Schema(..., pattern_timeout=seconds))"
        )
    return _bounded_search(compile_bounded(pattern, timeout))
