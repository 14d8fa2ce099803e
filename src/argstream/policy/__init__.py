"""Argument-conditional tool policies, evaluated while the arguments stream (POLICY.md, RFD D26).

``load_policies`` reads the TOML configuration into a :class:`ToolPolicy` per
tool; ``evaluate`` is the pure first-match-wins evaluator;
``StreamingPolicyState`` decides one call as its parameters complete; and
``TurnCoordinator`` wires provider events, the ``EventBuilder``, a renderer
hook, prompts and stream cancellation together for one model response. The
policy layer knows no screen and no wire: those come in as callbacks.
"""

from __future__ import annotations

from .config import DEFAULTS, PolicyError, PolicyProblem, PolicyWarning, ToolPolicy, load_policies
from .coordinator import EDIT, CallStatus, Request, ToolCallState, TurnCoordinator, TurnResult
from .drivers import arun, run_inline, run_threaded
from .evaluation import evaluate
from .matchers import (
    ConstMatcher,
    EnumMatcher,
    ExclusiveMaximumMatcher,
    ExclusiveMinimumMatcher,
    MaximumMatcher,
    MinimumMatcher,
    PathPrefixMatcher,
    PatternMatcher,
    PrefixMatcher,
    TypedMatcher,
    make_matcher,
    normalize_path,
)
from .modes import ResultMode, RunMode
from .rules import ParamCondition, RunPolicy, RunRule
from .schema import ParamDecl, ToolDecl, tool_declarations
from .streaming import StreamingPolicyState

__all__ = [
    "RunMode", "ResultMode", "RunRule", "RunPolicy", "ParamCondition",
    "TypedMatcher", "ConstMatcher", "EnumMatcher", "PatternMatcher", "PrefixMatcher", "PathPrefixMatcher",
    "MinimumMatcher", "MaximumMatcher", "ExclusiveMinimumMatcher", "ExclusiveMaximumMatcher",
    "make_matcher", "normalize_path",
    "evaluate", "StreamingPolicyState",
    "ToolPolicy", "PolicyError", "PolicyProblem", "PolicyWarning", "load_policies", "DEFAULTS",
    "ParamDecl", "ToolDecl", "tool_declarations",
    "TurnCoordinator", "TurnResult", "ToolCallState", "CallStatus", "Request", "EDIT",
    "run_inline", "run_threaded", "arun",
]
