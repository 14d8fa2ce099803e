"""``load_policies``: the TOML configuration of POLICY.md, checked against the tool definitions.

Every problem is collected, then reported together in one :class:`PolicyError`
whose ``problems`` each name the tool, the rule number (1-based, in the
``run`` or ``result`` list) and the reason.
"""

from __future__ import annotations

import difflib
import os
import re
import sys
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Union

from .matchers import MATCHER_KEYWORDS, TypedMatcher, make_matcher
from .modes import ResultMode, RunMode
from .rules import QUANTIFIERS, Mode, ParamCondition, Quantifier, RunPolicy, RunRule
from .schema import ToolDecl, tool_declarations

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

__all__ = ["ToolPolicy", "PolicyProblem", "PolicyError", "PolicyWarning", "load_policies", "DEFAULTS"]

DEFAULTS = "*"
_TOP_KEYS = ("tools",)
_TOOL_KEYS = ("policy",)
_RULE_KEYS = ("mode", "arg", "match", *MATCHER_KEYWORDS, "pattern_timeout")
_FIELDS: dict[str, type[RunMode] | type[ResultMode]] = {"run": RunMode, "result": ResultMode}
_POLICY_KEYS = (*_FIELDS, "repaired")
_DEFAULT_MODE: dict[str, Mode] = {"run": RunMode.ASK, "result": ResultMode.UNATTENDED}

Source = Union[str, bytes, "os.PathLike[str]", Mapping[str, Any]]


@dataclass(frozen=True)
class ToolPolicy:
    """What happens to one tool's calls (``run``) and to their results (``result``).

    ``repaired`` is the least strict mode a call whose arguments the lenient parser repaired can
    get (``lenient=True``; strict calls have no repairs): the rules' mode when it is as strict or
    stricter, else this one. The default ``ask`` never runs a repaired call unasked.
    """

    name: str
    run: RunPolicy = field(default_factory=lambda: RunPolicy.always(RunMode.ASK))
    result: RunPolicy = field(default_factory=lambda: RunPolicy.always(ResultMode.UNATTENDED))
    repaired: RunMode = RunMode.ASK


@dataclass(frozen=True)
class PolicyProblem:
    """One load-time error: the tool (``"*"`` for the defaults), the field, the 1-based rule number and why."""

    tool: str | None
    reason: str
    rule: int | None = None
    field: str = "run"

    def __str__(self) -> str:
        where = f"tool {self.tool!r}" if self.tool is not None else "policy configuration"
        if self.rule is not None:
            where += f", {self.field} rule {self.rule}"
        elif self.tool is not None:
            where += f", {self.field}"
        return f"{where}: {self.reason}"


class PolicyError(ValueError):
    """The configuration has errors; ``problems`` lists every one (``tool``/``rule``/``reason`` are the first's)."""

    def __init__(self, problems: list[PolicyProblem]) -> None:
        self.problems = tuple(problems)
        first = self.problems[0]
        self.tool, self.rule, self.reason = first.tool, first.rule, first.reason
        if len(self.problems) == 1:
            message = str(first)
        else:
            message = f"{len(self.problems)} problems in the tool policies:\n" + "\n".join(
                f"  {p}" for p in self.problems
            )
        super().__init__(message)


class PolicyWarning(UserWarning):
    """A policy that loads but probably is not what was meant (no catch-all, an undeclared tool)."""


def _nearest(name: object, valid: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the valid name closest to ``name``, else the list of valid names."""
    valid = list(valid)
    close = difflib.get_close_matches(str(name), valid, n=1, cutoff=0.5)
    if close:
        return f" (did you mean {close[0]!r}?)"
    return f" (expected {', '.join(repr(v) for v in valid) or 'none'})"


def _guess(value: object, modes: Any) -> str:
    """``; did you mean 'x'?`` for the mode closest to a misspelt one."""
    close = difflib.get_close_matches(str(value), [m.value for m in modes], n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def _table(*path: str) -> str:
    """A table's name as written in TOML: ``[tools.fs_delete.policy]``."""
    bare = re.compile(r"[A-Za-z0-9_-]+\Z")
    return "[" + ".".join(p if bare.match(p) else '"' + p.replace('"', '\\"') + '"' for p in path) + "]"


@dataclass(frozen=True)
class _RawRule:
    number: int  # 1-based
    mode: Mode
    arg: str | None = None
    keyword: str | None = None
    value: Any = None
    match: Quantifier | None = None
    pattern_timeout: Any = None


class _Loader:
    def __init__(self, decls: dict[str, ToolDecl] | None) -> None:
        self.decls = decls
        self.problems: list[PolicyProblem] = []
        self._seen: set[PolicyProblem] = set()

    def problem(self, tool: str | None, reason: str, rule: int | None = None, field: str = "run") -> None:
        p = PolicyProblem(tool, reason, rule, field)
        if p not in self._seen:
            self._seen.add(p)
            self.problems.append(p)

    # -- shapes ----------------------------------------------------------------

    def parse_field(self, tool: str, name: str, value: Any) -> list[_RawRule] | None:
        modes = _FIELDS[name]
        choices = ", ".join(repr(m.value) for m in modes)
        if isinstance(value, str):
            try:
                return [_RawRule(1, modes(value))]
            except ValueError:
                self.problem(tool, f"unknown mode {value!r} (expected one of {choices}){_guess(value, modes)}",
                             1, name)
                return None
        if not isinstance(value, list):
            self.problem(tool, f"{name} is a mode string or a list of rules, not {type(value).__name__}", None, name)
            return None
        rules: list[_RawRule] = []
        ok = True
        for number, item in enumerate(value, 1):
            rule = self.parse_rule(tool, name, number, item, modes, choices)
            if rule is None:
                ok = False
            else:
                rules.append(rule)
        return rules if ok else None

    def parse_rule(
        self, tool: str, name: str, number: int, item: Any, modes: Any, choices: str
    ) -> _RawRule | None:
        def bad(reason: str) -> None:
            self.problem(tool, reason, number, name)

        if not isinstance(item, Mapping):
            bad(f"a rule is a table like {{ mode = \"ask\" }}, not {type(item).__name__}")
            return None
        unknown = [k for k in item if k not in _RULE_KEYS]
        if unknown:
            bad(f"unknown key {unknown[0]!r}{_nearest(unknown[0], _RULE_KEYS)}; a rule has mode, arg, match, "
                f"one of {', '.join(MATCHER_KEYWORDS)} and, with pattern, pattern_timeout")
            return None
        if "mode" not in item:
            bad("the rule has no mode")
            return None
        try:
            mode = modes(item["mode"])
        except ValueError:
            bad(f"unknown mode {item['mode']!r} (expected one of {choices}){_guess(item['mode'], modes)}")
            return None
        keywords = [k for k in item if k in MATCHER_KEYWORDS]
        arg = item.get("arg")
        if len(keywords) > 1:
            bad(f"a rule has at most one condition, this one has {' and '.join(keywords)}")
            return None
        if keywords and arg is None:
            bad(f"'{keywords[0]}' needs an arg naming the parameter it tests")
            return None
        if arg is not None and not keywords:
            bad(f"arg {arg!r} without a matcher keyword ({', '.join(MATCHER_KEYWORDS)})")
            return None
        if arg is not None and not isinstance(arg, str):
            bad(f"arg must be a JSON Pointer string, not {type(arg).__name__}")
            return None
        match = item.get("match")
        if match is not None:
            if match not in QUANTIFIERS:
                bad(f"match is 'all' or 'any', not {match!r}")
                return None
            if arg is None:
                bad(f"match = {match!r} needs an arg and a matcher: a catch-all has nothing to quantify")
                return None
        keyword = keywords[0] if keywords else None
        timeout = item.get("pattern_timeout")
        if timeout is not None and keyword != "pattern":
            bad("pattern_timeout bounds a 'pattern' rule's search; this rule has no pattern")
            return None
        return _RawRule(number, mode, arg, keyword, item[keyword] if keyword else None, match, timeout)

    # -- typed rules -----------------------------------------------------------

    def build(
        self, label: str, name: str, raws: list[_RawRule], decl: ToolDecl | None, *, skip_unresolved: bool = False
    ) -> RunPolicy | None:
        """Typed rules for one tool; ``None`` when a rule has an error. ``label`` names the tool in problems."""
        built: list[tuple[int, RunRule]] = []
        ok = True
        suffix = f" (in tool {decl.name!r})" if skip_unresolved and decl is not None else ""
        for raw in raws:
            if raw.arg is None:
                built.append((raw.number, RunRule(raw.mode)))
                continue
            param_type = None
            if decl is not None:
                try:
                    param_type = decl.resolve(raw.arg).type
                except LookupError as exc:
                    if skip_unresolved:
                        continue
                    self.problem(label, f"arg {raw.arg!r} does not resolve: {exc}", raw.number, name)
                    ok = False
                    continue
                except ValueError as exc:
                    self.problem(label, str(exc), raw.number, name)
                    ok = False
                    continue
            try:
                matcher = make_matcher(raw.keyword, raw.value, param_type,  # type: ignore[arg-type]
                                       pattern_timeout=raw.pattern_timeout)
                condition = ParamCondition(raw.arg, matcher, raw.match)
            except ValueError as exc:
                self.problem(label, str(exc), raw.number, name)
                ok = False
                continue
            if decl is not None:
                reason = matcher.check(param_type)
                if reason is not None:
                    self.problem(label, f"{reason} ({raw.arg} is {param_type or 'untyped'}){suffix}", raw.number, name)
                    ok = False
                    continue
            built.append((raw.number, RunRule(raw.mode, condition)))
        ok = self.check_reachable(label, name, built, suffix) and ok
        if not ok:
            return None
        return RunPolicy(tuple(rule for _, rule in built))

    def check_reachable(self, label: str, name: str, built: list[tuple[int, RunRule]], suffix: str) -> bool:
        ok = True
        for j, (number, later) in enumerate(built):
            for earlier_number, earlier in built[:j]:
                if earlier.condition is None:
                    self.problem(label, f"can never match: rule {earlier_number} is a catch-all", number, name)
                    ok = False
                    break
                lc = later.condition
                if lc is not None and lc.segments == earlier.condition.segments and _covers(earlier, later):
                    m = earlier.condition.matcher
                    self.problem(
                        label,
                        f"can never match: rule {earlier_number} ({m.keyword} = {m.config_value!r}) "
                        f"on the same arg covers it{suffix}",
                        number,
                        name,
                    )
                    ok = False
                    break
        return ok

    def warn_no_catch_all(self, label: str, name: str, policy: RunPolicy) -> None:
        if policy.conditional and policy[-1].condition is not None:
            warnings.warn(
                f"tool {label!r}, {name}: no catch-all rule; calls that match no rule get 'ask'",
                PolicyWarning,
                stacklevel=4,
            )


def _resolves(decl: ToolDecl, pointer: str) -> bool:
    try:
        decl.resolve(pointer)
    except (LookupError, ValueError):
        return False
    return True


def _covers(earlier: RunRule, later: RunRule) -> bool:
    assert earlier.condition is not None and later.condition is not None
    matcher: TypedMatcher = earlier.condition.matcher
    return matcher.covers(later.condition.matcher)


def _read(source: Source) -> Mapping[str, Any]:
    if isinstance(source, Mapping):
        return source
    if isinstance(source, bytes):
        text = source.decode("utf-8")
    elif isinstance(source, os.PathLike) or (
        isinstance(source, str) and "\n" not in source and "=" not in source and "[" not in source and source.strip()
    ):
        with open(source, "rb") as f:
            text = f.read().decode("utf-8")
    elif isinstance(source, str):
        text = source
    else:
        raise TypeError(f"load_policies takes TOML text, a path or a mapping, not {type(source).__name__}")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PolicyError([PolicyProblem(None, f"invalid TOML: {exc}")]) from None


def load_policies(path_or_text: Source, tools: Any = None) -> dict[str, ToolPolicy]:
    """Read the ``[tools.<name>.policy]`` tables of a TOML configuration.

    ``path_or_text`` is TOML text, a path to a TOML file (an ``os.PathLike``, or a ``str``
    without newlines, ``=`` or ``[``), or an already-parsed mapping.
    ``tools`` are the tool definitions sent to the provider (``{name: JSON
    Schema}``, Anthropic's or OpenAI's list form); with them, every rule's
    ``arg`` is resolved and its matcher checked against the parameter type, the
    ``"*"`` defaults are applied to every declared tool (a default rule on a
    parameter a tool lacks is skipped for that tool), and the result holds a
    policy for every declared tool. The ``"*"`` entry is the fallback for other tools.

    With ``tools``, a policy for a tool no definition names, and a ``"*"`` rule whose ``arg``
    names a parameter of none of them, are errors too: a typo must not let calls fall through.

    Raises:
        PolicyError: listing every problem, each with the tool, rule number and reason.
    Warns:
        PolicyWarning: a conditional policy without a catch-all.
    """
    data = _read(path_or_text)
    decls = tool_declarations(tools) if tools is not None else None
    loader = _Loader(decls)
    for key in data:
        if key not in _TOP_KEYS:
            where = "table" if isinstance(data[key], Mapping) else "key"
            loader.problem(None, f"unknown top-level {where} {key!r}{_nearest(key, _TOP_KEYS)}: a policy file holds "
                                 "[tools.<name>.policy] tables only")
    table = data.get("tools", {})
    if not isinstance(table, Mapping):
        raise PolicyError([PolicyProblem(None, "'tools' must be a table")])

    configured: dict[str, dict[str, list[_RawRule] | None]] = {}
    repaired: dict[str, RunMode] = {}
    for tool, entry in table.items():
        if not isinstance(entry, Mapping):
            loader.problem(tool, f"a tool's configuration must be a table like {_table('tools', tool, 'policy')}",
                           None, "policy")
            continue
        for key in entry:
            if key in _TOOL_KEYS:
                continue
            if key in _FIELDS:
                hint = f" ({key} belongs in {_table('tools', tool, 'policy')})"
            else:
                hint = _nearest(key, _TOOL_KEYS)
            loader.problem(tool, f"unknown key {key!r} in {_table('tools', tool)}{hint}", None, "policy")
        policy = entry.get("policy")
        if policy is None:
            continue
        if not isinstance(policy, Mapping):
            loader.problem(tool, "policy must be a table with run and result", None, "policy")
            continue
        fields: dict[str, list[_RawRule] | None] = {}
        for key, value in policy.items():
            if key == "repaired":
                if isinstance(value, str) and value in {m.value for m in RunMode}:
                    repaired[tool] = RunMode(value)
                else:
                    loader.problem(tool, f"repaired must be one of {', '.join(repr(m.value) for m in RunMode)}, "
                                         f"not {value!r}", None, "policy")
                continue
            if key not in _FIELDS:
                loader.problem(tool, f"unknown policy key {key!r} in {_table('tools', tool, 'policy')}"
                                     f"{_nearest(key, _POLICY_KEYS)}", None, "policy")
                continue
            fields[key] = loader.parse_field(tool, key, value)
        configured[tool] = fields

    defaults = configured.get(DEFAULTS, {})
    out: dict[str, ToolPolicy] = {}
    names = list(decls) if decls is not None else []
    names += [t for t in configured if t != DEFAULTS and t not in names]
    for tool in names:
        decl = decls.get(tool) if decls is not None else None
        if decls is not None and decl is None:
            close = difflib.get_close_matches(tool, list(decls), n=1, cutoff=0.5)
            known = "declared tools: " + (", ".join(repr(t) for t in decls) or "none")
            if close:
                known += f"; did you mean {close[0]!r}?"
            loader.problem(tool, f"no tool is named {tool!r} ({known}); a typo here would let "
                                 "the call fall to the defaults", None, "policy")
            continue
        policies: dict[str, RunPolicy | None] = {}
        for name in _FIELDS:
            own = configured.get(tool, {})
            if name in own:
                raws = own[name]
                policies[name] = loader.build(tool, name, raws, decl) if raws is not None else None
                if policies[name] is not None:
                    loader.warn_no_catch_all(tool, name, policies[name])  # type: ignore[arg-type]
            elif defaults.get(name) is not None:
                # The defaults, checked against this tool: rules on parameters it lacks are skipped.
                policies[name] = loader.build(DEFAULTS, name, defaults[name], decl, skip_unresolved=True)  # type: ignore[arg-type]
            else:
                policies[name] = RunPolicy.always(_DEFAULT_MODE[name])
        if policies["run"] is not None and policies["result"] is not None:
            out[tool] = ToolPolicy(tool, policies["run"], policies["result"],
                                   repaired.get(tool, repaired.get(DEFAULTS, RunMode.ASK)))

    if decls:
        for name in _FIELDS:
            for raw in defaults.get(name) or ():
                if raw.arg is not None and not any(_resolves(decl, raw.arg) for decl in decls.values()):
                    loader.problem(DEFAULTS, f"arg {raw.arg!r} names a parameter of none of the declared tools",
                                   raw.number, name)
    star: dict[str, RunPolicy | None] = {}
    for name in _FIELDS:
        raws = defaults.get(name)
        if raws is None:
            star[name] = None if name in defaults else RunPolicy.always(_DEFAULT_MODE[name])
            continue
        star[name] = loader.build(DEFAULTS, name, raws, None)
        if star[name] is not None:
            loader.warn_no_catch_all(DEFAULTS, name, star[name])  # type: ignore[arg-type]
    if loader.problems:
        order = {tool: i for i, tool in enumerate(table)}
        field_order = {"policy": 0, "run": 1, "result": 2}
        loader.problems.sort(key=lambda p: (order.get(p.tool, -1), field_order.get(p.field, 3), p.rule or 0))
        raise PolicyError(loader.problems)
    out[DEFAULTS] = ToolPolicy(DEFAULTS, star["run"], star["result"],  # type: ignore[arg-type]
                               repaired.get(DEFAULTS, RunMode.ASK))
    return out
