"""ECMAScript regular expressions (JSON Schema's ``pattern`` dialect) translated to RE2 or Python ``re``.

Patterns run on model output, so they run on RE2 (``google-re2``, the ``policy`` extra): matching
is linear in the argument's length whatever the pattern, and syntax that needs backtracking
(lookarounds, backreferences) is an error when the policy or schema is built. A user who needs such
a pattern opts in with a time bound: :func:`compile_bounded` runs it on the backtracking ``regex``
module, each search stopped after that many seconds (:class:`PatternTimeout`). ``compile_pattern``
(Python ``re``, no bound) remains for trusted patterns and text.

The dialects share most syntax; the differences that change what matches are rewritten:

- ``\\d \\w \\b`` are ASCII-only in ECMAScript (Python's are Unicode), ``\\s`` is ECMAScript's own
  whitespace set, and ``.`` excludes all four line terminators (``\\n \\r \\u2028 \\u2029``);
- ``$`` matches only at the very end (Python's also matches before a final ``\\n``);
- for RE2, lookarounds ``(?=`` ``(?!`` ``(?<=`` ``(?<!``, backreferences and repetition counts over
  1000 are errors (they need a backtracking engine, or RE2 refuses them);
- ``[]`` never matches and ``[^]`` matches anything (both are errors in Python);
- ``(?<name>…)`` / ``\\k<name>`` become ``(?P<name>…)`` / ``(?P=name)``, ``\\cX`` and ``\\u{…}`` become
  code point escapes;
- syntax ECMAScript lacks (inline flags, ``(?P…)``, ``\\A``, ``\\Z``, ``\\p{…}``) is an error rather than
  silently meaning something else.
"""

from __future__ import annotations

import re

__all__ = [
    "translate", "compile_pattern", "compile_linear", "compile_bounded", "compile_guarded", "LinearPattern",
    "BoundedPattern", "PatternTimeout", "linear_engine_available",
]

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


def _cp(c: int, re2: bool = False) -> str:
    if re2:
        return f"\\x{{{c:x}}}"
    return f"\\x{c:02x}" if c < 0x100 else (f"\\u{c:04x}" if c < 0x10000 else f"\\U{c:08x}")


def _members(ranges: tuple[tuple[int, int], ...], re2: bool = False) -> str:
    """Class contents (without brackets) for ``ranges``."""
    return "".join(_cp(lo, re2) if lo == hi else f"{_cp(lo, re2)}-{_cp(hi, re2)}" for lo, hi in ranges)


_CLASS_ESCAPES = {
    "d": _DIGIT, "D": _complement(_DIGIT),
    "w": _WORD, "W": _complement(_WORD),
    "s": _SPACE, "S": _complement(_SPACE),
}
_W = f"[{_members(_WORD)}]"
_BOUNDARY = f"(?:(?<={_W})(?!{_W})|(?<!{_W})(?={_W}))"
_NON_BOUNDARY = f"(?:(?<={_W})(?={_W})|(?<!{_W})(?!{_W}))"
_SIMPLE_ESCAPES = {"t": "\\t", "n": "\\n", "v": "\\v", "f": "\\f", "r": "\\r"}
_CONTROL = str.maketrans("tnvfr", "\t\n\v\f\r")
_HEX = set("0123456789abcdefABCDEF")


def _escape(src: str, i: int, in_class: bool, re2: bool) -> tuple[str, int]:
    """Translate the escape at ``src[i] == '\\\\'``; return the Python text and the next index."""
    if i + 1 >= len(src):
        raise ValueError("pattern ends with a lone backslash")
    e = src[i + 1]
    j = i + 2
    if e in _CLASS_ESCAPES:
        members = _members(_CLASS_ESCAPES[e], re2)
        return (members if in_class else f"[{members}]"), j
    if e in _SIMPLE_ESCAPES:
        return (_cp(ord(_SIMPLE_ESCAPES[e][1].translate(_CONTROL)), re2) if re2 else _SIMPLE_ESCAPES[e]), j
    if e == "b":
        if in_class:
            return _cp(8, re2), j
        return ("\\b" if re2 else _BOUNDARY), j
    if e == "B":
        if in_class:
            raise ValueError("\\B inside a character class")
        return ("\\B" if re2 else _NON_BOUNDARY), j
    if e == "0" and not (j < len(src) and src[j].isdigit()):
        return _cp(0, re2), j
    if e.isdigit():
        if in_class:
            raise ValueError(f"backreference \\{e} inside a character class")
        if re2:
            raise ValueError(f"backreference \\{e} needs a backtracking engine")
        while j < len(src) and src[j].isdigit():
            j += 1
        return f"(?:\\{src[i + 1:j]})", j
    if e == "c":
        if j < len(src) and src[j].isascii() and src[j].isalpha():
            return _cp(ord(src[j]) % 32, re2), j + 1
        raise ValueError("\\c must be followed by a letter")
    if e == "x":
        if len(src) >= j + 2 and set(src[j:j + 2]) <= _HEX:
            return (_cp(int(src[j:j + 2], 16), re2) if re2 else "\\x" + src[j:j + 2]), j + 2
        raise ValueError("\\x must be followed by two hex digits")
    if e == "u":
        if j < len(src) and src[j] == "{":
            end = src.find("}", j)
            digits = src[j + 1:end] if end > 0 else ""
            if not digits or not set(digits) <= _HEX or int(digits, 16) > _MAX:
                raise ValueError("malformed \\u{...} escape")
            return _cp(int(digits, 16), re2), end + 1
        if len(src) >= j + 4 and set(src[j:j + 4]) <= _HEX:
            return (_cp(int(src[j:j + 4], 16), re2) if re2 else "\\u" + src[j:j + 4]), j + 4
        raise ValueError("\\u must be followed by four hex digits or {...}")
    if e == "k":
        end = src.find(">", j)
        if re2:
            raise ValueError("backreference \\k<...> needs a backtracking engine")
        if j < len(src) and src[j] == "<" and end > j + 1 and not in_class:
            return f"(?P={src[j + 1:end]})", end + 1
        raise ValueError("malformed \\k<name> backreference")
    if e in "pP":
        raise ValueError(f"\\{e}{{...}} Unicode property escapes are not supported")
    if e.isascii() and e.isalnum():
        raise ValueError(f"\\{e} is not an ECMAScript escape")
    return re.escape(e), j


def translate(src: str, re2: bool = False) -> str:
    """Translate ECMAScript pattern ``src`` to Python ``re`` (or RE2) syntax. Raises ``ValueError``."""
    out: list[str] = []
    i, n = 0, len(src)
    in_class = False
    while i < n:
        c = src[i]
        if c == "\\":
            text, i = _escape(src, i, in_class, re2)
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
                out.append(f"[^{_cp(0, re2)}-{_cp(_MAX, re2)}]" if re2 else "(?!)")
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
            out.append(f"[^{_members(_LINE_TERMINATORS, re2)}]")
        elif c == "$":
            out.append("$" if re2 else "\\Z")  # the very end only, never before a final newline
        elif c == "(" and src.startswith("(?", i):
            if re2 and src.startswith(("(?=", "(?!", "(?<=", "(?<!"), i):
                raise ValueError(f"lookaround {src[i:i + 4].rstrip('(')!r} needs a backtracking engine")
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


try:
    import re2 as _re2
except ImportError:  # the ``policy`` extra installs it
    _re2 = None


def linear_engine_available() -> bool:
    """RE2 (``google-re2``) is installed, so pattern rules can be used."""
    return _re2 is not None


class LinearPattern:
    """An ECMAScript pattern compiled for RE2: ``search`` takes time linear in the text, whatever the pattern."""

    __slots__ = ("source", "_regex")

    def __init__(self, source: str, regex: object) -> None:
        self.source = source
        self._regex = regex

    def search(self, text: str) -> bool:
        """The pattern finds a match somewhere in ``text``."""
        return self._regex.search(text) is not None  # type: ignore[attr-defined]

    def __repr__(self) -> str:
        return f"LinearPattern({self.source!r})"


def compile_linear(src: str) -> LinearPattern:
    """Compile an ECMAScript pattern for RE2. Raises ``ValueError`` with the reason (syntax that needs
    backtracking, a pattern RE2 refuses, or RE2 not installed)."""
    if _re2 is None:
        raise ValueError(
            f"pattern {src!r} needs the linear-time engine RE2: pip install 'argstream[policy]' (google-re2)"
        )
    try:
        translated = translate(src, re2=True)
    except ValueError as exc:
        raise ValueError(f"invalid regular expression {src!r}: {exc}") from None
    options = _re2.Options()
    options.log_errors = False
    try:
        return LinearPattern(src, _re2.compile(translated, options=options))
    except _re2.error as exc:
        reason = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        raise ValueError(f"invalid regular expression {src!r}: {reason}") from None


class PatternTimeout(TimeoutError):
    """A bounded search ran past its time bound: whether the pattern matches is not known."""


try:
    import regex as _regex
except ImportError:  # the ``backtracking`` extra installs it
    _regex = None


class BoundedPattern:
    """An ECMAScript pattern on the backtracking ``regex`` module: ``search`` raises
    :class:`PatternTimeout` once it has run ``timeout`` seconds."""

    __slots__ = ("source", "timeout", "_regex")

    def __init__(self, source: str, regex: object, timeout: float) -> None:
        self.source = source
        self.timeout = timeout
        self._regex = regex

    def search(self, text: str) -> bool:
        """The pattern finds a match somewhere in ``text``."""
        try:
            return self._regex.search(text, timeout=self.timeout) is not None  # type: ignore[attr-defined]
        except TimeoutError:
            raise PatternTimeout(f"pattern {self.source!r} ran past its bound of {self.timeout} s") from None

    def __repr__(self) -> str:
        return f"BoundedPattern({self.source!r}, timeout={self.timeout})"


def _check_timeout(timeout: object) -> float:
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout < float("inf"):
        raise ValueError(f"a pattern's time bound is a positive number of seconds, not {timeout!r}")
    return float(timeout)


def compile_bounded(src: str, timeout: float) -> BoundedPattern:
    """Compile an ECMAScript pattern for the backtracking ``regex`` module, each search bounded by
    ``timeout`` seconds. Raises ``ValueError`` (a malformed pattern or bound, ``regex`` not installed)."""
    timeout = _check_timeout(timeout)
    try:
        translated = translate(src)
    except ValueError as exc:
        raise ValueError(f"invalid regular expression {src!r}: {exc}") from None
    if _regex is None:
        raise ValueError(
            f"pattern {src!r} with a time bound needs the 'regex' module: pip install 'argstream[backtracking]'"
        )
    try:
        return BoundedPattern(src, _regex.compile(translated), timeout)
    except _regex.error as exc:
        raise ValueError(f"invalid regular expression {src!r}: {exc}") from None


def compile_guarded(src: str, timeout: float | None = None) -> LinearPattern | BoundedPattern:
    """The linear engine when it can run ``src``; otherwise, only when the user gave a time bound
    (``timeout`` seconds per search), the bounded backtracking engine. Raises ``ValueError``."""
    if timeout is not None:
        _check_timeout(timeout)
    compile_pattern(src)  # a malformed pattern is an error whatever the engine
    try:
        return compile_linear(src)
    except ValueError as exc:
        if timeout is None:
            raise ValueError(
                f"{exc}. Patterns run on the linear-time engine only: one that needs a backtracking engine "
                "is refused unless it is given a time bound (pattern_timeout)"
            ) from None
    return compile_bounded(src, timeout)
