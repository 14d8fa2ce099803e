"""``load_policies``: the TOML shapes, the three tool-definition forms, and every load-time error."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from argstream.policy import (
    PathPrefixMatcher,
    PolicyError,
    PolicyWarning,
    PrefixMatcher,
    ResultMode,
    RunMode,
    RunRule,
    evaluate,
    load_policies,
    tool_declarations,
)

CREATE = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "format": "path"},
        "content": {"type": "string"},
        "mode": {"type": "integer"},
        "overwrite": {"type": "boolean"},
        "encoding": {"type": ["string", "null"], "enum": ["utf-8", "latin-1", None]},
    },
    "required": ["path", "content"],
}
MODIFY = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "format": "path"},
        "patterns": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "old": {"type": "string"},
                    "new": {"type": "string"},
                    "paths": {"type": "array", "items": {"type": "string", "format": "path"}},
                },
            },
        },
    },
}
SHELL = {"type": "object", "properties": {"command": {"type": "string"}, "timeout": {"type": "number"}}}
TOOLS = {"fs_create_file": CREATE, "fs_modify_file": MODIFY, "shell": SHELL}

EXAMPLE = r'''
[tools."*".policy]                 # defaults for every tool
run = "ask"

[tools.fs_create_file.policy]
run = [
  { arg = "/path", prefix = "src/", mode = "unattended" },
  { arg = "/path", pattern = "\\.env$", mode = "skip" },
  { mode = "ask" },                 # catch-all
]
result = "unattended"

[tools.fs_modify_file.policy]
run = [
  { arg = "/patterns/paths", prefix = "docs/", mode = "unattended" },
  { mode = "ask" },
]
'''


def load(text: str, tools: object = TOOLS) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("error", PolicyWarning)
        return load_policies(text, tools=tools)


def problems(text: str, tools: object = TOOLS) -> list[tuple]:
    with pytest.raises(PolicyError) as info:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PolicyWarning)
            load_policies(text, tools=tools)
    return [(p.tool, p.field, p.rule, p.reason) for p in info.value.problems]


def one_problem(text: str, tools: object = TOOLS) -> tuple:
    found = problems(text, tools)
    assert len(found) == 1, found
    return found[0]


# -- shapes ---------------------------------------------------------------------------------------


def test_policy_md_example() -> None:
    policies = load(EXAMPLE)
    assert set(policies) == {"fs_create_file", "fs_modify_file", "shell", "*"}
    create = policies["fs_create_file"]
    assert [r.mode for r in create.run] == [RunMode.UNATTENDED, RunMode.SKIP, RunMode.ASK]
    assert isinstance(create.run[0].condition.matcher, PathPrefixMatcher)
    assert create.run[0].condition.arg == "/path"
    assert create.result[0] == RunRule(ResultMode.UNATTENDED)
    assert evaluate(create.run, {"path": "src/main.rs"}) is RunMode.UNATTENDED
    assert evaluate(create.run, {"path": "config/.env"}) is RunMode.SKIP
    assert evaluate(create.run, {"path": "README.md"}) is RunMode.ASK
    modify = policies["fs_modify_file"].run
    assert evaluate(modify, {"patterns": [{"paths": ["docs/b", "docs/a.md"]}]}) is RunMode.UNATTENDED
    assert evaluate(modify, {"patterns": [{"paths": ["x", "docs/a.md"]}]}) is RunMode.ASK  # a grant needs every path
    assert list(policies["shell"].run) == [RunRule(RunMode.ASK)]  # from the "*" defaults
    assert list(policies["shell"].result) == [RunRule(ResultMode.UNATTENDED)]


def test_defaults_without_configuration() -> None:
    policies = load("", tools=TOOLS)
    for name in TOOLS:
        assert list(policies[name].run) == [RunRule(RunMode.ASK)]
        assert list(policies[name].result) == [RunRule(ResultMode.UNATTENDED)]


def test_mode_string_is_a_catch_all() -> None:
    policies = load('[tools.shell.policy]\nrun = "unattended"\nresult = "ask"\n')
    assert list(policies["shell"].run) == [RunRule(RunMode.UNATTENDED)]
    assert list(policies["shell"].result) == [RunRule(ResultMode.ASK)]
    assert not policies["shell"].run.conditional


def test_result_rules_take_conditions() -> None:
    text = '[tools.shell.policy]\nresult = [{ arg = "/command", prefix = "cat ", mode = "skip" }, { mode = "edit" }]\n'
    result = load(text)["shell"].result
    assert evaluate(result, {"command": "cat x"}) is ResultMode.SKIP
    assert evaluate(result, {"command": "ls"}) is ResultMode.EDIT


def test_tool_forms_are_equivalent() -> None:
    anthropic = [{"name": n, "description": "d", "input_schema": s} for n, s in TOOLS.items()]
    openai = [{"type": "function", "function": {"name": n, "description": "d", "parameters": s}} for n, s in TOOLS.items()]
    responses = [{"type": "function", "name": n, "parameters": s} for n, s in TOOLS.items()]
    expected = load(EXAMPLE, TOOLS)
    for form in (anthropic, openai, responses):
        assert load(EXAMPLE, form) == expected


def test_declarations() -> None:
    decls = tool_declarations(TOOLS)
    create = decls["fs_create_file"]
    assert create.params["path"].type == "path"
    assert create.params["content"].type == "string"
    assert create.params["path"].required and not create.params["mode"].required
    assert create.params["encoding"].type == "string"  # ["string", "null"]
    assert decls["fs_modify_file"].resolve("/patterns/paths").type == "path"
    assert decls["fs_modify_file"].resolve("/patterns/old").type == "string"
    assert decls["fs_modify_file"].resolve("/patterns").type == "object"  # the elements


def test_refs_and_optional_any_of() -> None:
    schema = {
        "type": "object",
        "$defs": {"P": {"type": "string", "format": "path"}},
        "properties": {
            "target": {"$ref": "#/$defs/P"},
            "backup": {"anyOf": [{"$ref": "#/$defs/P"}, {"type": "null"}], "default": None},
        },
    }
    decl = tool_declarations({"t": schema})["t"]
    assert decl.resolve("/target").type == "path"
    assert decl.resolve("/backup").type == "path"


def test_loads_from_a_path_and_from_a_mapping(tmp_path: Path) -> None:
    file = tmp_path / "policy.toml"
    file.write_text(EXAMPLE)
    assert load_policies(file, tools=TOOLS) == load(EXAMPLE)
    assert load_policies(str(file), tools=TOOLS) == load(EXAMPLE)
    mapping = {"tools": {"shell": {"policy": {"run": "skip"}}}}
    assert list(load_policies(mapping, tools=TOOLS)["shell"].run) == [RunRule(RunMode.SKIP)]


def test_without_tool_definitions() -> None:
    policies = load_policies('[tools.x.policy]\nrun = [{ arg = "/p", prefix = "a/", mode = "skip" }, { mode = "ask" }]\n')
    assert set(policies) == {"x", "*"}
    assert type(policies["x"].run[0].condition.matcher) is PathPrefixMatcher  # a prefix with "/" is a path prefix
    plain = load_policies('[tools.x.policy]\nrun = [{ arg = "/p", prefix = "rm ", mode = "skip" }, { mode = "ask" }]\n')
    assert type(plain["x"].run[0].condition.matcher) is PrefixMatcher


def test_other_tool_settings_are_errors() -> None:
    # A tool table holds only its policy: an unknown key there may be a misplaced or misspelt one.
    tool, field, rule, reason = one_problem('[tools.shell]\nenable = true\n[tools.shell.policy]\nrun = "skip"\n')
    assert (tool, field, rule) == ("shell", "policy", None)
    assert reason == "unknown key 'enable' in [tools.shell] (expected 'policy')"


def test_star_rules_skipped_for_tools_that_lack_the_parameter() -> None:
    text = '''
[tools."*".policy]
run = [
  { arg = "/path", pattern = "\\\\.env$", mode = "skip" },
  { arg = "/command", prefix = "rm ", mode = "skip" },
  { mode = "ask" },
]
'''
    policies = load(text)
    assert [r.condition.arg for r in policies["fs_create_file"].run if r.condition] == ["/path"]
    assert [r.condition.arg for r in policies["shell"].run if r.condition] == ["/command"]
    assert evaluate(policies["fs_create_file"].run, {"path": "a/.env"}) is RunMode.SKIP
    assert evaluate(policies["shell"].run, {"command": "rm -rf /"}) is RunMode.SKIP
    assert len(policies["*"].run) == 3


def test_own_policy_overrides_the_defaults_per_field() -> None:
    text = '[tools."*".policy]\nrun = "skip"\nresult = "ask"\n[tools.shell.policy]\nrun = "unattended"\n'
    policies = load(text)
    assert list(policies["shell"].run) == [RunRule(RunMode.UNATTENDED)]
    assert list(policies["shell"].result) == [RunRule(ResultMode.ASK)]
    assert list(policies["fs_create_file"].run) == [RunRule(RunMode.SKIP)]


def test_no_catch_all_warns_and_falls_back_to_ask() -> None:
    text = '[tools.shell.policy]\nrun = [{ arg = "/command", prefix = "ls", mode = "unattended" }]\n'
    with pytest.warns(PolicyWarning, match="no catch-all"):
        policies = load_policies(text, tools=TOOLS)
    assert evaluate(policies["shell"].run, {"command": "cat"}) is RunMode.ASK


def test_typos_are_load_time_errors_reported_together() -> None:
    """A misspelled tool, a pointer on no parameter, a "*" rule on a parameter no tool has: all at once."""
    text = """
[tools."*".policy]
run = [{ arg = "/pth", prefix = "src/", mode = "unattended" }, { mode = "ask" }]
[tools.fs_create_fil.policy]
run = "unattended"
[tools.fs_create_file.policy]
run = [{ arg = "/pth", prefix = "src/", mode = "unattended" }, { mode = "ask" }]
"""
    with pytest.raises(PolicyError) as info:
        load_policies(text, tools=TOOLS)
    problems = {(p.tool, p.rule, p.reason.split(":")[0]) for p in info.value.problems}
    assert ("fs_create_fil", None, "no tool is named 'fs_create_fil' (declared tools") in problems
    assert ("fs_create_file", 1, "arg '/pth' does not resolve") in problems
    assert ("*", 1, "arg '/pth' names a parameter of none of the declared tools") in problems


# -- load-time errors: tool, rule number and reason ----------------------------------------------


def test_pointer_that_does_not_resolve() -> None:
    text = '[tools.fs_create_file.policy]\nrun = [{ mode = "skip", arg = "/nope", const = "x" }, { mode = "ask" }]\n'
    tool, field, rule, reason = one_problem(text)
    assert (tool, field, rule) == ("fs_create_file", "run", 1)
    assert "'/nope' does not resolve" in reason and "no parameter 'nope'" in reason


def test_nested_pointer_that_does_not_resolve() -> None:
    text = ('[tools.fs_modify_file.policy]\n'
            'run = [{ mode = "ask" , arg = "/patterns/0/paths", prefix = "a" }]\n')
    tool, field, rule, reason = one_problem(text)
    assert (tool, rule) == ("fs_modify_file", 1)
    assert "without an index" in reason
    text = '[tools.fs_modify_file.policy]\nrun = [{ mode = "ask", arg = "/patterns/oops", const = "a" }]\n'
    assert "no parameter 'oops' in /patterns" in one_problem(text)[3]
    text = '[tools.fs_modify_file.policy]\nrun = [{ mode = "ask", arg = "/path/deeper", const = "a" }]\n'
    assert "/path is path" in one_problem(text)[3]


def test_malformed_pointer() -> None:
    text = '[tools.shell.policy]\nrun = [{ mode = "ask", arg = "command", const = "a" }]\n'
    assert "JSON Pointer" in one_problem(text)[3]


@pytest.mark.parametrize(
    ("rule", "needle"),
    [
        ('{ arg = "/mode", const = true, mode = "skip" }', "const = True is boolean, not integer"),
        ('{ arg = "/overwrite", const = 1, mode = "skip" }', "not boolean"),
        ('{ arg = "/path", const = 3, mode = "skip" }', "not path"),
        ('{ arg = "/encoding", enum = ["utf-8", 8], mode = "skip" }', "enum member 8"),
        ('{ arg = "/mode", prefix = "4", mode = "skip" }', "'prefix' applies to path or string parameters, not integer"),
        ('{ arg = "/mode", pattern = "4", mode = "skip" }', "'pattern' applies to"),
        ('{ arg = "/path", minimum = 3, mode = "skip" }', "'minimum' applies to integer or number parameters, not path"),
        ('{ arg = "/overwrite", maximum = 3, mode = "skip" }', "not boolean"),
        ('{ arg = "/content", exclusive_minimum = 3, mode = "skip" }', "not string"),
        ('{ arg = "/overwrite", exclusive_maximum = 3, mode = "skip" }', "'exclusive_maximum'"),
        ('{ arg = "/mode", minimum = "3", mode = "skip" }', "takes a number"),
        ('{ arg = "/path", prefix = 3, mode = "skip" }', "takes a string"),
        ('{ arg = "/path", pattern = "(", mode = "skip" }', "invalid regular expression"),
        ('{ arg = "/path", enum = [], mode = "skip" }', "non-empty list"),
    ],
)
def test_keyword_or_value_of_the_wrong_type(rule: str, needle: str) -> None:
    text = '[tools.fs_create_file.policy]\nrun = [{ mode = "ask" }]\n'.replace("[{ mode", f"[{rule}, {{ mode")
    tool, field, number, reason = one_problem(text)
    assert (tool, field, number) == ("fs_create_file", "run", 1)
    assert needle in reason


@pytest.mark.parametrize(
    ("rules", "bad", "needle"),
    [
        # a prefix before a longer prefix it covers
        ('{ arg = "/path", prefix = "src/", mode = "ask" }, { arg = "/path", prefix = "src/lib/", mode = "skip" }',
         2, "rule 1 (prefix = 'src/')"),
        # a prefix before a const that starts with it
        ('{ arg = "/path", prefix = "src", mode = "ask" }, { arg = "/path", const = "src/main.rs", mode = "skip" }',
         2, "rule 1 (prefix = 'src')"),
        # an enum before a const in it
        ('{ arg = "/encoding", enum = ["utf-8", "latin-1"], mode = "ask" }, '
         '{ arg = "/encoding", const = "latin-1", mode = "skip" }', 2, "rule 1 (enum = ['utf-8', 'latin-1'])"),
        # an enum before a subset enum
        ('{ arg = "/encoding", enum = ["utf-8", "latin-1"], mode = "ask" }, '
         '{ arg = "/encoding", enum = ["utf-8"], mode = "skip" }', 2, "rule 1 (enum"),
        # a catch-all before anything
        ('{ mode = "ask" }, { arg = "/path", prefix = "src/", mode = "skip" }', 2, "rule 1 is a catch-all"),
        ('{ mode = "ask" }, { mode = "skip" }', 2, "rule 1 is a catch-all"),
        # and the covering rule need not be the one right before
        ('{ arg = "/mode", minimum = 5, mode = "ask" }, { arg = "/path", prefix = "x", mode = "ask" }, '
         '{ arg = "/mode", minimum = 7, mode = "skip" }', 3, "rule 1 (minimum = 5)"),
    ],
)
def test_rule_that_can_never_match(rules: str, bad: int, needle: str) -> None:
    tool, field, rule, reason = one_problem(f"[tools.fs_create_file.policy]\nrun = [{rules}]\n")
    assert (tool, field, rule) == ("fs_create_file", "run", bad)
    assert reason.startswith("can never match") and needle in reason


def test_covering_needs_the_same_arg() -> None:
    text = ('[tools.fs_create_file.policy]\nrun = [{ arg = "/path", prefix = "s", mode = "ask" }, '
            '{ arg = "/content", prefix = "st", mode = "skip" }, { mode = "ask" }]\n')
    assert len(load(text)["fs_create_file"].run) == 3


def test_path_prefixes_cover_by_components() -> None:
    text = ('[tools.fs_create_file.policy]\nrun = [{ arg = "/path", prefix = "src", mode = "ask" }, '
            '{ arg = "/path", prefix = "src-old/", mode = "skip" }, { mode = "ask" }]\n')
    assert len(load(text)["fs_create_file"].run) == 3  # "src" does not cover "src-old/" as a path


@pytest.mark.parametrize(
    ("run", "rule", "needle"),
    [
        ('"sometimes"', 1, "unknown mode 'sometimes'"),
        ('[{ mode = "never" }]', 1, "unknown mode 'never'"),
        ('[{ mode = "ask" , arg = "/path"}]', 1, "without a matcher keyword"),
        ('[{ mode = "skip", prefix = "src/" }, { mode = "ask" }]', 1, "'prefix' needs an arg"),
        ('[{ mode = "skip", arg = "/path", prefix = "a", pattern = "b" }, { mode = "ask" }]', 1, "at most one condition"),
        ('[{ mode = "ask", arg = "/path", suffix = "a" }]', 1, "unknown key 'suffix'"),
        ('[{ arg = "/path", prefix = "a" }, { mode = "ask" }]', 1, "no mode"),
        ('[{ mode = "ask" }, "skip"]', 2, "a rule is a table"),
        ('[{ mode = "ask", arg = 3, const = 1 }]', 1, "JSON Pointer string"),
        ("3", None, "mode string or a list of rules"),
    ],
)
def test_rule_shape_errors(run: str, rule: int | None, needle: str) -> None:
    tool, field, number, reason = one_problem(f"[tools.fs_create_file.policy]\nrun = {run}\n")
    assert (tool, field, number) == ("fs_create_file", "run", rule)
    assert needle in reason


def test_result_errors_name_the_result_field() -> None:
    text = '[tools.shell.policy]\nresult = [{ mode = "ask" }, { mode = "unattended" }]\n'
    assert one_problem(text)[:3] == ("shell", "result", 2)
    text = '[tools.shell.policy]\nresult = "maybe"\n'
    assert one_problem(text)[:3] == ("shell", "result", 1)


def test_unknown_policy_key() -> None:
    tool, field, rule, reason = one_problem('[tools.shell.policy]\nrun = "ask"\nwhen = "always"\n')
    assert (tool, rule) == ("shell", None) and "unknown policy key 'when'" in reason


def test_star_rule_errors_are_reported_for_the_defaults() -> None:
    text = '[tools."*".policy]\nrun = [{ arg = "/path", minimum = 1, mode = "skip" }, { mode = "ask" }]\n'
    found = problems(text)
    assert {p[:3] for p in found} == {("*", "run", 1)}
    assert any("in tool 'fs_create_file'" in p[3] for p in found)


def test_every_problem_is_reported_at_once() -> None:
    text = '''
[tools.fs_create_file.policy]
run = [{ arg = "/nope", const = 1, mode = "ask" }, { mode = "ask" }, { mode = "skip" }]
[tools.shell.policy]
run = "perhaps"
result = [{ arg = "/timeout", const = "x", mode = "ask" }]
'''
    with pytest.raises(PolicyError) as info:
        load_policies(text, tools=TOOLS)
    found = [(p.tool, p.field, p.rule) for p in info.value.problems]
    assert found == [("fs_create_file", "run", 1), ("fs_create_file", "run", 3), ("shell", "run", 1),
                     ("shell", "result", 1)]
    message = str(info.value)
    assert "4 problems" in message and "tool 'shell', run rule 1: unknown mode 'perhaps'" in message
    assert info.value.tool == "fs_create_file" and info.value.rule == 1
    assert isinstance(info.value, ValueError)


def test_invalid_toml() -> None:
    with pytest.raises(PolicyError, match="invalid TOML"):
        load_policies("[tools.x.policy\nrun = ", tools=TOOLS)
