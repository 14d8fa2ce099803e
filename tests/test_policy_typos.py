"""Every unknown table or key in a policy file, at every level, is a load error naming it and the
nearest valid name (issue 18 item 14, issue 22 item 1): a typo never lets a deny rule vanish."""

from __future__ import annotations

import re
import warnings

import pytest
from hypothesis import given
from hypothesis import strategies as st

from argstream.policy import PolicyError, PolicyWarning, RunMode, evaluate, load_policies

TOOLS = {
    "fs_delete": {"type": "object", "properties": {"path": {"type": "string", "format": "path"}}},
    "fs_modify_file": {
        "type": "object",
        "properties": {
            "patterns": {
                "type": "array",
                "items": {"type": "object", "properties": {"paths": {"type": "array", "items": {"type": "string"}}}},
            },
        },
    },
    "shell": {"type": "object", "properties": {"command": {"type": "string"}, "timeout": {"type": "number"}}},
}
OPEN = '[tools."*".policy]\nrun = "unattended"\n'


def reasons(text: str, tools: object = TOOLS) -> list[str]:
    with pytest.raises(PolicyError) as info:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PolicyWarning)
            load_policies(text, tools=tools)
    return [str(p) for p in info.value.problems]


@pytest.mark.parametrize(
    ("deny", "expected"),
    [
        ("[tools.fs_delete.polcy]\nrun = \"skip\"\n", "unknown key 'polcy' in [tools.fs_delete] (did you mean 'policy'?)"),
        ("[tool.fs_delete.policy]\nrun = \"skip\"\n", "unknown top-level table 'tool' (did you mean 'tools'?)"),
        ("[tools.fs_delete]\nrun = \"skip\"\n", "unknown key 'run' in [tools.fs_delete] (run belongs in "
                                                "[tools.fs_delete.policy])"),
        ("[tools.fs_delete.policy]\nrum = \"skip\"\n", "unknown policy key 'rum' in [tools.fs_delete.policy] "
                                                       "(did you mean 'run'?)"),
        ("[tools.fs_delete.policy]\nrun = [{ arg = \"/path\", prefx = \"/\", mode = \"skip\" }]\n",
         "unknown key 'prefx' (did you mean 'prefix'?)"),
        ("[tools.fs_delte.policy]\nrun = \"skip\"\n", "did you mean 'fs_delete'?"),
        ("tols = 1\n", "unknown top-level key 'tols' (did you mean 'tools'?)"),
        ("[tools.fs_delete.policy]\nrun = [{ arg = \"/path\", prefix = \"/\", mode = \"skip\", match = \"every\" }]\n",
         "match is 'all' or 'any', not 'every'"),
    ],
)
def test_a_misspelt_deny_rule_is_an_error_not_a_silent_fall_through(deny: str, expected: str) -> None:
    found = reasons(deny + OPEN if not deny.startswith("[") else OPEN + deny)
    assert any(expected in r for r in found), found


def test_without_tool_definitions_the_structure_is_still_checked() -> None:
    for deny in ("[tools.fs_delete.polcy]\nrun = \"skip\"\n", "[tool.fs_delete.policy]\nrun = \"skip\"\n",
                 "[tools.fs_delete]\nrun = \"skip\"\n"):
        assert reasons(OPEN + deny, tools=None)


def test_the_correct_spelling_denies() -> None:
    policies = load_policies(OPEN + "[tools.fs_delete.policy]\nrun = \"skip\"\n", tools=TOOLS)
    assert evaluate(policies["fs_delete"].run, {"path": "/"}) is RunMode.SKIP
    assert evaluate(policies["shell"].run, {"command": "ls"}) is RunMode.UNATTENDED


def test_an_already_parsed_mapping_is_checked_the_same_way() -> None:
    data = {"tools": {"fs_delete": {"polcy": {"run": "skip"}}}}
    with pytest.raises(PolicyError, match="did you mean 'policy'"):
        load_policies(data, tools=TOOLS)


# -- every single-character edit of a name: the same policy, or an error ---------------------------

# «...» marks the names (table and key names) that the property below edits.
TEMPLATE = """
[«tools».«"*"».«policy»]
«run» = "ask"
«result» = "unattended"

[«tools».«fs_delete».«policy»]
«run» = [
  { «arg» = "/path", «prefix» = "src/", «mode» = "unattended" },
  { «arg» = "/path", «pattern» = "\\\\.env$", «mode» = "skip", «match» = "any" },
  { «mode» = "ask" },
]

[«tools».«fs_modify_file».«policy»]
«run» = [{ «arg» = "/patterns/paths", «const» = "docs/a", «mode» = "unattended" }, { «mode» = "ask" }]
«result» = [{ «arg» = "/patterns/paths", «enum» = ["x", "y"], «mode» = "skip" }, { «mode» = "unattended" }]

[«tools».«shell»]
«policy».«run» = [{ «arg» = "/timeout", «maximum» = 10, «mode» = "unattended" }, { «arg» = "/timeout", «minimum» = 100, «mode» = "skip" }, { «mode» = "ask" }]
«policy».«result» = "ask"
"""


def _spans() -> tuple[str, list[tuple[int, int]]]:
    text, spans, pos = "", [], 0
    for match in re.finditer("«([^»]*)»", TEMPLATE):
        text += TEMPLATE[pos:match.start()]
        spans.append((len(text), len(text) + len(match.group(1))))
        text += match.group(1)
        pos = match.end()
    return text + TEMPLATE[pos:], spans


TEXT, SPANS = _spans()
ALPHABET = "abcdefghijklmnopqrstuvwxyz_-.\"'*0 =[]"


def _load(text: str) -> object:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PolicyWarning)
        return load_policies(text, tools=TOOLS)


BASELINE = _load(TEXT)


@st.composite
def edits(draw: st.DrawFn) -> str:
    start, end = draw(st.sampled_from(SPANS))
    kind = draw(st.sampled_from(["insert", "delete", "replace"]))
    if kind == "insert":
        at = draw(st.integers(start, end))
        return TEXT[:at] + draw(st.sampled_from(ALPHABET)) + TEXT[at:]
    at = draw(st.integers(start, end - 1))
    if kind == "delete":
        return TEXT[:at] + TEXT[at + 1:]
    return TEXT[:at] + draw(st.sampled_from(ALPHABET)) + TEXT[at + 1:]


def test_the_template_loads() -> None:
    assert set(BASELINE) == {"fs_delete", "fs_modify_file", "shell", "*"}  # type: ignore[arg-type]


@pytest.mark.hypothesis
@given(edits())
def test_a_one_character_edit_of_a_name_loads_the_same_policy_or_is_rejected(text: str) -> None:
    try:
        loaded = _load(text)
    except PolicyError:
        return
    assert loaded == BASELINE, text


def test_every_one_character_deletion_of_a_name() -> None:
    for start, end in SPANS:
        for at in range(start, end):
            text = TEXT[:at] + TEXT[at + 1:]
            try:
                loaded = _load(text)
            except PolicyError:
                continue
            assert loaded == BASELINE, text
