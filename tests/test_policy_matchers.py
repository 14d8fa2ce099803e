"""The matcher table of POLICY.md: each keyword on each parameter type, path prefixes, ECMAScript patterns."""

from __future__ import annotations

import posixpath

import pytest
from hypothesis import given
from hypothesis import strategies as st

from argstream.policy import (
    ConstMatcher,
    EnumMatcher,
    ExclusiveMaximumMatcher,
    ExclusiveMinimumMatcher,
    MaximumMatcher,
    MinimumMatcher,
    PathPrefixMatcher,
    PatternMatcher,
    PrefixMatcher,
    make_matcher,
    normalize_path,
)
from argstream.policy._ecma_regex import compile_pattern
from argstream.policy.matchers import json_equal

# (keyword, configured value, parameter type, argument value, holds)
TABLE = [
    # const: any type; JSON equality (1 == 1.0, but true is not 1)
    ("const", "main", "string", "main", True),
    ("const", "main", "string", "main2", False),
    ("const", 3, "integer", 3, True),
    ("const", 3, "number", 3.0, True),
    ("const", 1, "integer", True, False),
    ("const", True, "boolean", True, True),
    ("const", True, "boolean", 1, False),
    ("const", False, "boolean", False, True),
    ("const", False, "boolean", 0, False),
    ("const", {"a": [1, 2]}, "object", {"a": [1.0, 2]}, True),
    ("const", {"a": [1, 2]}, "object", {"a": [1, 2], "b": 0}, False),
    ("const", "src/a.rs", "path", "src/a.rs", True),
    # enum: one of the list
    ("enum", ["read", "write"], "string", "write", True),
    ("enum", ["read", "write"], "string", "exec", False),
    ("enum", [1, 2, 3], "integer", 2.0, True),
    ("enum", [1, 2, 3], "integer", True, False),
    ("enum", [True], "boolean", True, True),
    # pattern: strings and paths, search anywhere
    ("pattern", r"\.env$", "path", "config/.env", True),
    ("pattern", r"\.env$", "path", "config/.env.example", False),
    ("pattern", "^rm ", "string", "rm -rf /", True),
    ("pattern", "^rm ", "string", "echo rm -rf /", False),
    ("pattern", "secret", "string", "my-secret-key", True),
    ("pattern", "secret", "string", 42, False),
    # prefix on a string: plain text
    ("prefix", "git ", "string", "git status", True),
    ("prefix", "git ", "string", "gitk", False),
    ("prefix", "src", "string", "src-old/x", True),
    # prefix on a path: by components
    ("prefix", "src/", "path", "src/lib.rs", True),
    ("prefix", "src/", "path", "src-old/x", False),
    ("prefix", "src", "path", "src/lib.rs", True),
    ("prefix", "src/", "path", "src", False),  # a prefix ending in "/" holds strictly under it
    ("prefix", "src/", "path", "src/.", False),
    ("prefix", "src/", "path", "src/a/..", False),
    ("prefix", "src/", "path", "src//", False),
    ("prefix", "src", "path", "src", True),  # without the "/", the directory itself too
    ("prefix", "src", "path", "src/a", True),
    ("prefix", "/", "path", "/", False),
    ("prefix", "/", "path", "/etc", True),
    ("prefix", "src/", "path", "src/a.", False),  # Windows drops a trailing dot or space: src/a
    ("prefix", "src/", "path", "src/a ", False),
    ("prefix", "src/", "path", "src./x", False),
    ("prefix", "src/", "path", "src /x", False),
    ("prefix", "src/", "path", "src/.../x", False),
    ("prefix", "src/", "path", "src/a::$DATA", False),  # NTFS streams and drives
    ("prefix", "src/", "path", "src/a:s", False),
    ("prefix", "src/", "path", "C:/src/a", False),
    ("prefix", "src/", "path", "src/.a", True),
    ("prefix", "src/", "path", "src/a b/c", True),
    ("prefix", "src/", "path", "./src//lib.rs", True),
    ("prefix", "src/", "path", "src/../etc/passwd", False),
    ("prefix", "src/", "path", "lib/../src/main.rs", True),
    ("prefix", "./src/./", "path", "src/x", True),
    ("prefix", "src/", "path", "/src/lib.rs", False),
    ("prefix", "/home/u/", "path", "/home/u/.ssh/id", True),
    ("prefix", "/home/u", "path", "/home/../home/u/x", True),
    ("prefix", "/home/u", "path", "home/u/x", False),
    ("prefix", "src/", "path", "../src/lib.rs", False),
    ("prefix", "src/", "path", 7, False),
    # numbers: inclusive and exclusive bounds
    ("minimum", 10, "integer", 10, True),
    ("minimum", 10, "integer", 9, False),
    ("minimum", 0.5, "number", 0.5, True),
    ("maximum", 10, "integer", 10, True),
    ("maximum", 10, "integer", 11, False),
    ("exclusive_minimum", 10, "integer", 10, False),
    ("exclusive_minimum", 10, "integer", 11, True),
    ("exclusive_maximum", 10, "number", 9.99, True),
    ("exclusive_maximum", 10, "number", 10.0, False),
    ("minimum", 0, "integer", True, False),  # a boolean is not a number
    ("maximum", 10, "integer", "5", False),
]


@pytest.mark.parametrize(("keyword", "config", "param_type", "value", "holds"), TABLE)
def test_matcher_table(keyword: str, config: object, param_type: str, value: object, holds: bool) -> None:
    matcher = make_matcher(keyword, config, param_type)
    assert matcher.keyword == keyword
    assert matcher.check(param_type) is None
    assert matcher.matches(value) is holds


def test_make_matcher_classes() -> None:
    assert type(make_matcher("prefix", "src/", "path")) is PathPrefixMatcher
    assert type(make_matcher("prefix", "src/", "string")) is PathPrefixMatcher  # contains "/": a path prefix
    assert type(make_matcher("prefix", "src/", None)) is PathPrefixMatcher
    assert type(make_matcher("prefix", "rm ", "string")) is PrefixMatcher
    assert type(make_matcher("const", 1)) is ConstMatcher
    assert type(make_matcher("enum", [1])) is EnumMatcher
    assert type(make_matcher("pattern", "a")) is PatternMatcher
    assert type(make_matcher("minimum", 1)) is MinimumMatcher
    assert type(make_matcher("maximum", 1)) is MaximumMatcher
    assert type(make_matcher("exclusive_minimum", 1)) is ExclusiveMinimumMatcher
    assert type(make_matcher("exclusive_maximum", 1)) is ExclusiveMaximumMatcher
    with pytest.raises(ValueError, match="unknown matcher keyword"):
        make_matcher("suffix", "x")


@pytest.mark.parametrize(
    ("keyword", "value", "param_type"),
    [
        ("const", True, "number"),
        ("const", "3", "integer"),
        ("const", 1.5, "integer"),
        ("const", 1, "string"),
        ("const", "x", "boolean"),
        ("enum", ["a", 1], "string"),
        ("pattern", "x", "integer"),
        ("pattern", "x", "boolean"),
        ("prefix", "x", "number"),
        ("minimum", 1, "string"),
        ("maximum", 1, "path"),
        ("exclusive_minimum", 1, "boolean"),
        ("exclusive_maximum", 1, "object"),
    ],
)
def test_keyword_or_value_that_does_not_suit_the_type(keyword: str, value: object, param_type: str) -> None:
    assert make_matcher(keyword, value, param_type).check(param_type) is not None


@pytest.mark.parametrize(
    ("keyword", "value"),
    [("enum", []), ("enum", "a"), ("pattern", 3), ("prefix", 3), ("minimum", "1"), ("maximum", True),
     ("pattern", "(unclosed"), ("pattern", r"\p{L}"), ("pattern", "(?i)abc")],
)
def test_malformed_values(keyword: str, value: object) -> None:
    with pytest.raises(ValueError):
        make_matcher(keyword, value, None)


def test_const_integer_accepts_integral_float() -> None:
    assert make_matcher("const", 2.0, "integer").check("integer") is None


@pytest.mark.parametrize(
    ("path", "normal"),
    [
        ("src/lib.rs", (False, ("src", "lib.rs"))),
        ("src/", (False, ("src",))),
        ("./src//./lib.rs/", (False, ("src", "lib.rs"))),
        ("src/../lib.rs", (False, ("lib.rs",))),
        ("../../a", (False, ("..", "..", "a"))),
        ("a/../../b", (False, ("..", "b"))),
        ("/../etc", (True, ("etc",))),
        ("/", (True, ())),
        (".", (False, ())),
        ("", (False, ())),
    ],
)
def test_normalize_path(path: str, normal: tuple) -> None:
    assert normalize_path(path) == normal


@pytest.mark.parametrize(
    ("a", "b", "equal"),
    [(1, 1.0, True), (True, 1, False), (0, False, False), (None, None, True), ("a", "a", True),
     ([1, [2]], [1.0, [2.0]], True), ([1], [1, 2], False), ({"a": 1}, {"a": 1}, True), ({"a": 1}, {"b": 1}, False),
     ("1", 1, False), (None, 0, False)],
)
def test_json_equal(a: object, b: object, equal: bool) -> None:
    assert json_equal(a, b) is equal


# -- ECMAScript patterns in Python's re ---------------------------------------------------------

ECMA = [
    (r"^\d+$", "123", True),
    (r"^\d+$", "١٢٣", False),  # Arabic-Indic digits: \d is ASCII in ECMAScript
    (r"^\w+$", "héllo", False),
    (r"^\w+$", "hello_1", True),
    (r"\bcat\b", "a cat!", True),
    (r"\bcat\b", "écat", True),  # é is not a word character in ECMAScript
    (r"\Bcat", "bobcat", True),
    (r"^\s$", "\ufeff", True),
    (r"^\s$", "\x1c", False),
    (r"^a.c$", "a\rc", False),
    (r"^a.c$", "a\u2028c", False),
    (r"^a.c$", "abc", True),
    (r"abc$", "abc\n", False),  # $ is the very end
    (r"abc$", "abc", True),
    (r"^[^]$", "\n", True),
    (r"a[]", "a", False),
    (r"(?<year>\d{4})-\k<year>", "2024-2024", True),
    (r"(?<year>\d{4})-\k<year>", "2024-2025", False),
    (r"^\cJ$", "\n", True),
    (r"^\u{1F600}$", "😀", True),
    (r"^\u00e9$", "é", True),
    (r"^\x41$", "A", True),
    (r"^[\d\s]+$", "1 2", True),
    (r"^[\D]+$", "ab", True),
    (r"^[\D]+$", "a1", False),
    (r"^[\W]$", "é", True),
    (r"^[\S]$", " ", False),
    (r"^[a-z&&]$", "&", True),
    (r"^[[]$", "[", True),
    (r"^\/$", "/", True),
    (r"(a)\1", "aa", True),
    (r"\0", "\x00", True),
    (r"[\b]", "\x08", True),
    (r"(?:ab)+(?=c)", "ababc", True),
    (r"(?<!x)y", "zy", True),
    (r"(?<=x)y", "zy", False),
]


BACKTRACKING = {r"(?<year>\d{4})-\k<year>", r"(a)\1", r"(?:ab)+(?=c)", r"(?<!x)y", r"(?<=x)y"}


@pytest.mark.parametrize(("pattern", "text", "found"), ECMA)
def test_ecmascript_pattern(pattern: str, text: str, found: bool) -> None:
    """Both translations agree: RE2 for policies (linear time), Python ``re`` for trusted patterns."""
    assert (compile_pattern(pattern).search(text) is not None) is found
    if pattern in BACKTRACKING:
        with pytest.raises(ValueError, match="backtracking"):
            PatternMatcher(pattern)
    else:
        assert PatternMatcher(pattern).matches(text) is found


@pytest.mark.parametrize("pattern", ["(a+)+$", "^(a|a)*$", "(a*)*b", "(x+x+)+y", "^(\\w+\\s?)*$"])
def test_catastrophic_patterns_run_in_linear_time(pattern: str) -> None:
    """Patterns that make a backtracking engine run for ever answer at once on RE2 (ReDoS)."""
    matcher = PatternMatcher(pattern)
    assert matcher.matches("a" * 30 + "!") is False
    assert matcher.matches("a" * 200_000 + "!") is False


@pytest.mark.parametrize("pattern", ["(?P<n>a)", "(?i)a", r"\A", r"\Z", r"\p{Lu}", "[a", "a\\", r"\x4", r"\u12",
                                     r"\k<x", r"\c1", "(?#comment)"])
def test_non_ecmascript_syntax_is_an_error(pattern: str) -> None:
    with pytest.raises(ValueError, match="invalid regular expression"):
        PatternMatcher(pattern)


# -- coverage (what makes a later rule unreachable) ---------------------------------------------


@pytest.mark.parametrize(
    ("earlier", "later", "covers"),
    [
        (("prefix", "src/", "path"), ("prefix", "src/lib/", "path"), True),
        (("prefix", "src/", "path"), ("prefix", "src-old/", "path"), False),
        (("prefix", "src/lib", "path"), ("prefix", "src/", "path"), False),
        (("prefix", "src", "path"), ("prefix", "src/", "path"), True),
        (("prefix", "src/", "path"), ("prefix", "src", "path"), False),  # "src" itself is not under src/
        (("prefix", "src/", "path"), ("prefix", "src/a", "path"), True),
        (("prefix", "src/", "path"), ("prefix", "src/", "path"), True),
        (("prefix", "src/", "path"), ("const", "src", "path"), False),
        (("prefix", "ab", "string"), ("prefix", "abc", "string"), True),
        (("prefix", "ab", "string"), ("const", "abx", "string"), True),
        (("prefix", "ab", "string"), ("const", "xab", "string"), False),
        (("prefix", "src", "path"), ("const", "src/x", "path"), True),
        (("enum", ["a", "b"], "string"), ("const", "a", "string"), True),
        (("enum", ["a", "b"], "string"), ("enum", ["b"], "string"), True),
        (("enum", ["a", "b"], "string"), ("enum", ["b", "c"], "string"), False),
        (("const", "a", "string"), ("const", "a", "string"), True),
        (("const", "a", "string"), ("enum", ["a"], "string"), True),
        (("pattern", "x", "string"), ("pattern", "x", "string"), True),
        (("pattern", "x", "string"), ("const", "axb", "string"), True),
        (("pattern", "x", "string"), ("prefix", "x", "string"), False),
        (("minimum", 5, "integer"), ("minimum", 10, "integer"), True),
        (("minimum", 5, "integer"), ("exclusive_minimum", 5, "integer"), True),
        (("exclusive_minimum", 5, "integer"), ("minimum", 5, "integer"), False),
        (("exclusive_minimum", 5, "integer"), ("minimum", 6, "integer"), True),
        (("maximum", 5, "integer"), ("maximum", 3, "integer"), True),
        (("maximum", 5, "integer"), ("minimum", 3, "integer"), False),
        (("exclusive_maximum", 5, "integer"), ("maximum", 5, "integer"), False),
        (("exclusive_maximum", 5, "integer"), ("exclusive_maximum", 5, "integer"), True),
    ],
)
def test_covers(earlier: tuple, later: tuple, covers: bool) -> None:
    assert make_matcher(*earlier).covers(make_matcher(*later)) is covers


# -- path prefixes against an independent oracle (posixpath.normpath) -------------------------------

_PARTS = ["src", "a", ".", "..", "", "src.", "a ", "a:b", "a::$DATA", "a\\b", "x.y", " a", "..."]


@pytest.mark.hypothesis
@given(st.lists(st.sampled_from(_PARTS), min_size=1, max_size=6), st.booleans(),
       st.sampled_from(["src/", "src", "src/a/", "/"]))
def test_a_path_prefix_holds_only_for_paths_it_names_unambiguously(parts: list[str], absolute: bool,
                                                                    prefix: str) -> None:
    value = ("/" if absolute else "") + "/".join(parts)
    if not make_matcher("prefix", prefix, "path").matches(value):
        return
    # Never a part Windows would read otherwise, nor one that climbs above the start.
    assert not any(c in value for c in "\\:\x00")
    assert not any(p and p not in (".", "..") and p[-1] in ". " for p in value.split("/"))
    normal = posixpath.normpath(value)
    assert not normal.startswith("..")
    base = posixpath.normpath(prefix)
    if prefix.endswith("/"):  # strictly under it
        assert normal.startswith(base.rstrip("/") + "/") and normal != base, (value, normal)
    else:
        assert normal == base or normal.startswith(base + "/"), (value, normal)
