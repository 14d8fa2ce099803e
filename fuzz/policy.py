"""Target for the policy matcher: rules made by the fuzz bytes (directly, or written as a small TOML
policy and loaded) and arguments of any shape, streamed in chunks through either parser backend:
nothing raises but the documented ``PolicyError`` / ``ValueError`` of a bad policy, and the
streaming decision (``StreamingPolicyState``) equals ``evaluate()`` on the complete arguments.
"""

from __future__ import annotations

import json
import warnings
from typing import Any, Literal, Optional

from argstream.parser import IncrementalArgParserC, IncrementalArgParserPy
from argstream.policy import (
    ParamCondition, PolicyError, RunMode, RunRule, StreamingPolicyState, evaluate, load_policies, make_matcher,
)

from ._data import Draw, chunking

PATHS = ["src/a.rs", "src", "src/", "src/.", "src/a/..", "src-old/x", "docs/g.md", "./src/../docs/x", ".env",
         "a/.env", "/etc/passwd", "src/../.env", "src\\a", "src/a.", "src/a ", "src/a::$DATA", "src/a\u200b", ""]
STRINGS = ["main", "git status", "rm -rf /", "x", "", "mainline", "Git", "é", "\u202e", "1"]
PREFIXES = ["src/", "src", "docs", "/etc", ".", "a", "", "git", "rm "]
PATTERNS = [r"\.env$", "^src/", "rm", r"\d", "^$", "a|b", r"^[a-z]+$", "(", "[a-", "é+"]
PARAMS = {"path": "path", "name": "string", "n": "integer", "x": "number", "flag": "boolean", "tags": "string",
          "patterns": "path", "content": "string"}
POINTERS = {"path": "/path", "name": "/name", "n": "/n", "x": "/x", "flag": "/flag", "tags": "/tags",
            "patterns": "/patterns/paths", "content": "/content"}
NUMBER_KEYWORDS = ["minimum", "maximum", "exclusive_minimum", "exclusive_maximum", "const", "enum"]
# (mode, parameter name or None for a catch-all, matcher keyword, matcher value, match quantifier)
Spec = tuple[RunMode, Optional[str], str, Any, Optional[Literal["any", "all"]]]
CLASSES = [c for c in (IncrementalArgParserC, IncrementalArgParserPy) if c is not None]


def _scalar(draw: Draw) -> Any:
    kind = draw.below(8)
    if kind == 0:
        return draw.pick(PATHS)
    if kind == 1:
        return draw.pick(STRINGS)
    if kind == 2:
        return draw.text(12)
    if kind == 3:
        return draw.below(16) - 4
    if kind == 4:
        return draw.pick([0.5, -0.0, 1e300, 3.0, -2.5, 10**20])
    if kind == 5:
        return draw.flag()
    if kind == 6:
        return None
    return draw.pick(PREFIXES)


def _value(draw: Draw, depth: int = 0) -> Any:
    kind = draw.below(6) if depth < 3 else 0
    if kind <= 2:
        return _scalar(draw)
    if kind <= 4:
        return [_value(draw, depth + 1) for _ in range(draw.below(4))]
    return {draw.pick(["paths", "old", "path", "x"]): _value(draw, depth + 1) for _ in range(draw.below(3))}


def _matcher_value(draw: Draw, param_type: str) -> tuple[str, Any]:
    if param_type in ("integer", "number"):
        keyword = draw.pick(NUMBER_KEYWORDS)
        number = draw.below(16) - 4
        return keyword, [number, draw.below(8)] if keyword == "enum" else number
    if param_type == "boolean":
        return ("const", draw.flag()) if draw.flag() else ("enum", [draw.flag()])
    keyword = draw.pick(["prefix", "pattern", "const", "enum"])
    if keyword == "prefix":
        return keyword, draw.pick(PREFIXES)
    if keyword == "pattern":
        return keyword, draw.pick(PATTERNS)
    pool = PATHS if param_type == "path" else STRINGS
    return keyword, draw.pick(pool) if keyword == "const" else [draw.pick(pool) for _ in range(draw.below(3) + 1)]


def _rules(draw: Draw) -> list[Spec]:
    out: list[Spec] = []
    for _ in range(draw.below(6)):
        mode = draw.pick(list(RunMode))
        if draw.below(6) == 0:
            out.append((mode, None, "", None, None))
            continue
        name = draw.pick(sorted(PARAMS))
        keyword, value = _matcher_value(draw, PARAMS[name])
        match: Optional[Literal["any", "all"]] = draw.pick([None, None, "any", "all"])
        out.append((mode, name, keyword, value, match))
    return out


def _toml_string(text: str) -> str:
    out = []
    for ch in text:
        if ch in '"\\' or ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        elif 0xD800 <= ord(ch) <= 0xDFFF:
            out.append("\ufffd")  # TOML cannot hold a lone surrogate
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return _toml_string(str(value))


def _loaded(specs: list[Spec]) -> list[RunRule] | None:
    """The rules written as ``[tools.t.policy] run = [...]`` and loaded; ``None`` for a refused policy."""
    entries = []
    for mode, name, keyword, value, match in specs:
        fields = [f"mode = {_toml_string(mode.value)}"]
        if name is not None:
            fields += [f"arg = {_toml_string(POINTERS[name])}", f"{keyword} = {_toml_value(value)}"]
            if match is not None:
                fields.append(f"match = {_toml_string(match)}")
        entries.append("{" + ", ".join(fields) + "}")
    text = "[tools.t.policy]\nrun = [" + ", ".join(entries) + "]\n"

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PolicyWarning: a policy without a catch-all
        try:
            return list(load_policies(text)["t"].run)
        except PolicyError:
            return None


def _direct(specs: list[Spec]) -> list[RunRule] | None:
    rules = []
    for mode, name, keyword, value, match in specs:
        if name is None:
            rules.append(RunRule(mode))
            continue
        try:
            matcher = make_matcher(keyword, value, PARAMS[name])
        except ValueError:  # a malformed value (a pattern that does not compile): documented
            return None
        rules.append(RunRule(mode, ParamCondition(POINTERS[name], matcher, match)))
    return rules


def policy(data: bytes) -> None:
    draw = Draw(data)
    specs = _rules(draw)
    rules = _loaded(specs) if draw.flag() else _direct(specs)
    if rules is None:
        return
    names = [n for n in sorted(PARAMS) if draw.flag()]
    args = {name: _value(draw) if draw.below(3) == 0 else _scalar(draw) for name in names}
    text = json.dumps(args, ensure_ascii=draw.flag(), indent=draw.pick([None, 1]))
    chunks = chunking(Draw(draw.take(9)), text)
    expected = evaluate(rules, args, complete=True)
    for cls in CLASSES:
        state = StreamingPolicyState(rules)
        parser = cls()
        for chunk in chunks:
            for fragment in parser.push(chunk):
                state.feed(fragment)
        for fragment in parser.finish():
            state.feed(fragment)
        assert state.resolved == expected, (rules, text, chunks, state.resolved, expected, cls.__module__)
        assert state.finish(args) == expected, (rules, text, state.finish(args), expected)


__all__ = ["policy"]
