"""The compiled aggregator against its pure-Python twin: the same ``Completed``, snapshots, open pieces
and errors for any fragments, from either parser or made up (hypothesis).

Each push's outcome is compared with its types (``1``, ``1.0`` and ``True`` differ; so do a list and a
tuple, and the order of a dict's keys), and a push that raises is followed by more pushes: both must
be left in the same state by what they refused.
"""

from __future__ import annotations

import copy
import json
import pickle
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from argstream import _backend, _fragments_py, aggregate
from argstream.parser import IncrementalArgParserC, IncrementalArgParserPy

from conftest import REQUIRE_EXTENSION

if aggregate.FragmentAggregatorC is None:
    if REQUIRE_EXTENSION:
        raise RuntimeError("ARGSTREAM_REQUIRE_EXTENSION is set but the compiled aggregator is not in use")
    pytest.skip("the compiled core is not in use", allow_module_level=True)

TWINS = (aggregate.FragmentAggregatorC, aggregate.FragmentAggregatorPy)
KINDS = [_fragments_py] + ([_backend.fragments_c] if _backend.fragments_c is not None else [])


def canon(value: Any) -> Any:
    """``value`` with every type spelled out, so that equal-but-different values compare unequal."""
    if type(value) is dict:
        return ("dict", [(canon(k), canon(v)) for k, v in value.items()])
    if type(value) in (list, tuple):
        return (type(value).__name__, [canon(v) for v in value])
    if type(value) is float and value != value:
        return ("float", "nan")
    return (type(value).__name__, value)


def outcome(aggregator: Any, fragment: Any) -> Any:
    try:
        done = aggregator.push(fragment)
    except Exception as exc:  # noqa: BLE001 - the error itself is what is compared
        return ("raised", type(exc).__name__, str(exc))
    if done is None:
        result: Any = None
    else:
        assert type(done) is aggregate.Completed
        result = (canon(done.path), canon(done.value))
    try:
        pieces = aggregator.open_pieces()
        snapshot = canon(aggregator.snapshot())
    except Exception as exc:  # noqa: BLE001 - compared as well
        return ("ok", result, "then raised", type(exc).__name__, str(exc))
    return ("ok", result, snapshot, None if pieces is None else list(pieces), aggregator.done)


def run_both(fragments: list[Any]) -> None:
    compiled, twin = (cls() for cls in TWINS)
    for fragment in fragments:
        assert outcome(compiled, fragment) == outcome(twin, fragment), fragment
    assert compiled.done == twin.done
    if twin.done:
        assert canon(compiled.value) == canon(twin.value)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-10**20, 10**20) | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=5), inner, max_size=5),
    max_leaves=30,
)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(value=JSON, cuts=st.lists(st.integers(1, 9), min_size=1, max_size=40), flat=st.booleans(),
       parser_kind=st.sampled_from(["compiled", "twin"]))
def test_a_parsers_fragments_give_the_same_values(value: Any, cuts: list[int], flat: bool, parser_kind: str) -> None:
    make = IncrementalArgParserC if parser_kind == "compiled" and IncrementalArgParserC is not None \
        else IncrementalArgParserPy
    text = json.dumps(value, ensure_ascii=False)
    parser = make(flat=flat)
    fragments: list[Any] = []
    at = 0
    for k in range(len(text)):
        size = cuts[k % len(cuts)]
        if at >= len(text):
            break
        fragments += parser.push(text[at:at + size])
        at += size
    fragments += parser.finish()
    run_both(fragments)
    compiled = TWINS[0]()
    for fragment in fragments:
        compiled.push(fragment)
    assert canon(compiled.value) == canon(json.loads(text))


def _made_up(kinds: Any) -> st.SearchStrategy[Any]:
    """Fragments that follow the protocol or break it: any step, any leaf, flat or nested, or no fragment."""
    steps = st.text(max_size=2) | st.integers(-1, 3) | st.booleans() | st.sampled_from([0.0, None, (1,)])
    leaves = st.one_of(
        st.builds(lambda v, m: m.Scalar(v), st.none() | st.integers(-2, 2) | st.booleans() | st.floats(), kinds),
        st.builds(lambda t, m: m.String(t), st.text(max_size=3), kinds),
        st.builds(_fragments_py.Empty, st.sampled_from(["string", "object", "array", "set"])),
        st.just(_fragments_py.DONE),
    )

    def nest(path: list[Any], leaf: Any, module: Any) -> Any:
        for step in reversed(path):
            leaf = module.ObjectEntry(step, leaf) if type(step) is str else module.ArrayItem(step, leaf)
        return leaf

    nested = st.builds(nest, st.lists(steps, max_size=3), leaves, kinds)
    flat = st.builds(lambda path, leaf: (tuple(path), leaf), st.lists(steps, max_size=3), leaves)
    odd = st.sampled_from([None, 42, "text", (), ((),), (("a",), _fragments_py.DONE, 1), [("a",), _fragments_py.DONE]])
    listed = st.builds(lambda path, leaf: (list(path), leaf), st.lists(steps, max_size=2), leaves)
    return st.one_of(nested, flat, listed, odd)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(fragments=st.lists(_made_up(st.sampled_from(KINDS)), max_size=25))
def test_made_up_fragments_give_the_same_outcomes(fragments: list[Any]) -> None:
    run_both(fragments)


def test_an_open_strings_pieces_are_the_aggregators_own() -> None:
    """``open_pieces`` hands out the list the value is joined from (``ArgumentCall`` appends to it)."""
    for cls in TWINS:
        agg = cls()
        agg.push((("a",), _fragments_py.String("x")))
        agg.open_pieces().append("yz")
        assert agg.snapshot() == {"a": "xyz"} and agg.open_pieces() == ["xyz"]
        agg.open_pieces().append("!")
        agg.push((("a",), _fragments_py.DONE))
        done = agg.push(((), _fragments_py.DONE))
        assert done == aggregate.Completed((), {"a": "xyz!"}) and agg.open_pieces() is None


def test_a_completed_path_is_a_tuple_of_the_steps_taken() -> None:
    """A flat fragment's own path is reused only when it names the very steps: a list path, or steps
    equal but not the same (``1`` for ``True``), give the steps the aggregator holds, as the twin does."""
    for fragments in (
        [((0,), _fragments_py.Scalar(1)), ([0], _fragments_py.DONE)],
        [((1 == 1,), _fragments_py.Scalar(1))],
        [((0,), _fragments_py.Scalar(1)), ((False,), _fragments_py.DONE)],
    ):
        run_both(fragments)
    agg = TWINS[0]()
    agg.push((("k",), _fragments_py.Scalar(1)))
    done = agg.push((["k"], _fragments_py.DONE))
    assert type(done.path) is tuple and done.path == ("k",)


COPIES = {"copy": copy.copy, "deepcopy": copy.deepcopy, "pickle": lambda agg: pickle.loads(pickle.dumps(agg))}


@settings(max_examples=100, suppress_health_check=[HealthCheck.too_slow])
@given(value=JSON, at=st.integers(0, 200), how=st.sampled_from(sorted(COPIES)))
def test_a_copy_mid_stream_goes_on_as_the_original_would(value: Any, at: int, how: str) -> None:
    """Copied, deep-copied or pickled at any fragment, either aggregator goes on to the same values as
    one never copied (a value not complete yet stays not complete: its marker survives the copy)."""
    parser = IncrementalArgParserPy(flat=True)
    fragments = parser.push(json.dumps(value)) + parser.finish()
    at = min(at, len(fragments))
    for cls in TWINS:
        original = cls()
        for fragment in fragments[:at]:
            original.push(fragment)
        copied = COPIES[how](original)
        assert type(copied) is cls and copied.done == original.done
        if how != "copy":  # a shallow copy shares the containers, as any shallow copy does
            assert canon(copied.snapshot()) == canon(original.snapshot())
        for fragment in fragments[at:]:
            copied.push(fragment)
        assert canon(copied.value) == canon(value)


def test_a_pickle_of_either_restores_in_the_other() -> None:
    parser = IncrementalArgParserPy(flat=True)
    fragments = parser.push('{"a": [1, {"b": "xy"}], "c": "z') + parser.push('w"}') + parser.finish()
    for source, target in (TWINS, TWINS[::-1]):
        agg = source()
        for fragment in fragments[:6]:
            agg.push(fragment)
        state = agg.__reduce__()[1][1:]
        moved = target.__new__(target)
        moved._set_state(*pickle.loads(pickle.dumps(state)))
        for fragment in fragments[6:]:
            moved.push(fragment)
        assert moved.value == {"a": [1, {"b": "xy"}], "c": "zw"}


@pytest.mark.parametrize("frames, root", [
    ((), aggregate.FragmentAggregatorPy().__reduce__()[1][2]),  # no root frame while the root is open
    ([(None, 0, None, [], False)], None),  # not a tuple
    (((None, 0, None, []),), None),  # a frame of four fields
    (((None, 9, None, [], False),), None),  # no such kind
    (((None, 1, [], [], False),), None),  # an object frame holding a list
    (((None, 2, {}, [], False),), None),  # an array frame holding a dict
    (((None, 3, None, None, False),), None),  # pieces that are not a list
    (((None, 0, None, [], 0),), None),  # placed that is not a bool
    ((("a", 0, None, [], False),), None),  # a root frame with a step
    (((None, 1, {}, [], True), (None, 0, None, [], False)), None),  # a child frame without one
    (((None, 1, {}, [], True), (1.5, 0, None, [], False)), None),  # a step neither key nor index
])
def test_a_state_no_aggregator_could_be_in_is_refused(frames: Any, root: Any) -> None:
    for cls in TWINS:
        with pytest.raises(ValueError, match="not the state of a FragmentAggregator"):
            cls.__new__(cls)._set_state(frames, root)


def test_the_compiled_one_made_by_new_alone_is_empty() -> None:
    agg = TWINS[0].__new__(TWINS[0])
    assert agg.snapshot() is None and not agg.done
    assert agg.push(((), _fragments_py.Scalar(3))) is None
    assert agg.push(((), _fragments_py.DONE)) == aggregate.Completed((), 3)
