"""FragmentAggregator: completed values at every depth, snapshots, flat input, protocol violations.

Every test runs on the compiled aggregator and on its pure-Python twin (``aggregator`` below).
"""

from __future__ import annotations

import json

import pytest

import argstream
from argstream import (
    DONE, ArrayItem, Completed, Empty, FragmentAggregator, ObjectEntry, Scalar, String, flatten,
)

from argstream import aggregate

from _support import same_json
from conftest import REQUIRE_EXTENSION

E, A = ObjectEntry, ArrayItem


@pytest.fixture(autouse=True, params=["compiled", "twin"])
def aggregator(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> type:
    """``FragmentAggregator`` in this module's tests is the implementation under test."""
    cls = aggregate.FragmentAggregatorC if request.param == "compiled" else aggregate.FragmentAggregatorPy
    if cls is None:
        if REQUIRE_EXTENSION:
            pytest.fail("ARGSTREAM_REQUIRE_EXTENSION is set but the compiled aggregator is not in use")
        pytest.skip("the compiled core is not in use")
    monkeypatch.setitem(globals(), "FragmentAggregator", cls)
    return cls


def parse(doc, chunk=None, flat=False, finish=True):
    """Fragments of ``doc`` from the default backend, in chunks of ``chunk`` characters."""
    p = argstream.IncrementalArgParser(flat=flat)
    chunk = chunk or len(doc) or 1
    out = []
    for i in range(0, len(doc), chunk):
        out += p.push(doc[i : i + chunk])
    return out + p.finish() if finish else out


def test_completed_at_every_depth():
    doc = '{"a": [1, {"b": "x", "c": []}], "d": {}, "e": ""}'
    agg = FragmentAggregator()
    completed = [c for c in map(agg.push, parse(doc, 3)) if c is not None]
    value = json.loads(doc)
    assert completed == [
        Completed(("a", 0), 1),
        Completed(("a", 1, "b"), "x"),
        Completed(("a", 1, "c"), []),
        Completed(("a", 1), {"b": "x", "c": []}),
        Completed(("a",), value["a"]),
        Completed(("d",), {}),
        Completed(("e",), ""),
        Completed((), value),
    ]
    assert agg.value == value
    assert agg.done


def test_completed_values_are_the_final_objects():
    """A completed container is the very object that ends up in the root value (it is reused)."""
    agg = FragmentAggregator()
    completed = {c.path: c.value for c in agg.extend(parse('{"a": {"x": [1]}, "b": [{}]}', 2))}
    root = agg.value
    assert completed[()] is root
    assert completed[("a",)] is root["a"]
    assert completed[("a", "x")] is root["a"]["x"]
    assert completed[("b", 0)] is root["b"][0]


@pytest.mark.parametrize(
    "doc", ['"root string"', '""', "1.5", "-7", "true", "false", "null", "[]", "{}", '[""]', '{"": null}']
)
def test_root_values(doc):
    agg = FragmentAggregator()
    completed = agg.extend(parse(doc, 2))
    assert completed[-1] == Completed((), json.loads(doc))
    assert same_json(agg.value, json.loads(doc))


def test_value_before_complete_raises_lookup_error():
    agg = FragmentAggregator()
    with pytest.raises(LookupError):
        agg.value
    assert not agg.done
    agg.push(E("a", String("x")))
    with pytest.raises(LookupError):
        agg.value
    agg.push(E("a", DONE))
    with pytest.raises(LookupError):
        agg.value
    agg.push(DONE)
    assert agg.value == {"a": "x"}


def test_scalar_types_are_kept():
    agg = FragmentAggregator()
    agg.extend(parse("[1, 1.0, true, null, -0.0, 100000000000000000000]"))
    assert same_json(agg.value, [1, 1.0, True, None, -0.0, 10**20])


def test_duplicate_keys_last_wins():
    doc = '{"a": 1, "b": [1], "a": {"x": ""}, "b": "s"}'
    agg = FragmentAggregator()
    agg.extend(parse(doc, 1))
    assert agg.value == json.loads(doc) == {"a": {"x": ""}, "b": "s"}


# -- snapshot --------------------------------------------------------------------------------


def test_snapshot_before_data_is_none():
    assert FragmentAggregator().snapshot() is None


def test_snapshot_shows_strings_in_progress():
    agg = FragmentAggregator()
    steps = [
        (E("path", String("/tm")), {"path": "/tm"}),
        (E("path", String("p/a")), {"path": "/tmp/a"}),
        (E("path", DONE), {"path": "/tmp/a"}),
        (E("items", A(0, Scalar(1))), {"path": "/tmp/a", "items": [1]}),
        (E("items", A(0, DONE)), {"path": "/tmp/a", "items": [1]}),
        (E("items", A(1, E("old", String("ab")))), {"path": "/tmp/a", "items": [1, {"old": "ab"}]}),
        (E("items", A(1, E("old", String("cd")))), {"path": "/tmp/a", "items": [1, {"old": "abcd"}]}),
        (E("items", A(1, E("old", DONE))), {"path": "/tmp/a", "items": [1, {"old": "abcd"}]}),
        (E("items", A(1, DONE)), {"path": "/tmp/a", "items": [1, {"old": "abcd"}]}),
        (E("items", A(2, Empty("array"))), {"path": "/tmp/a", "items": [1, {"old": "abcd"}, []]}),
        (E("items", A(2, DONE)), {"path": "/tmp/a", "items": [1, {"old": "abcd"}, []]}),
        (E("items", A(3, String("x"))), {"path": "/tmp/a", "items": [1, {"old": "abcd"}, [], "x"]}),
        (E("items", A(3, String("y"))), {"path": "/tmp/a", "items": [1, {"old": "abcd"}, [], "xy"]}),
        (E("items", A(3, DONE)), {"path": "/tmp/a", "items": [1, {"old": "abcd"}, [], "xy"]}),
        (E("items", DONE), {"path": "/tmp/a", "items": [1, {"old": "abcd"}, [], "xy"]}),
        (E("s", Empty("string")), {"path": "/tmp/a", "items": [1, {"old": "abcd"}, [], "xy"], "s": ""}),
        (E("s", DONE), {"path": "/tmp/a", "items": [1, {"old": "abcd"}, [], "xy"], "s": ""}),
        (DONE, {"path": "/tmp/a", "items": [1, {"old": "abcd"}, [], "xy"], "s": ""}),
    ]
    for fragment, expected in steps:
        agg.push(fragment)
        assert agg.snapshot() == expected, fragment
    assert agg.snapshot() is agg.value


def test_snapshot_of_root_string_and_scalar():
    agg = FragmentAggregator()
    agg.push(String("ab"))
    assert agg.snapshot() == "ab"
    agg.push(String("cd"))
    assert agg.snapshot() == "abcd"
    agg.push(DONE)
    assert agg.snapshot() == agg.value == "abcd"
    agg = FragmentAggregator()
    agg.push(Scalar(2.5))
    assert agg.snapshot() == 2.5
    agg.push(DONE)
    assert agg.value == 2.5


def test_snapshot_reuses_completed_values():
    """Snapshots share the aggregator's containers: completed values are never copied."""
    agg = FragmentAggregator()
    agg.extend(parse('{"done": {"x": [1, 2]}, "list": [{"a": 1}', 4, finish=False))
    first = agg.snapshot()
    done_value = first["done"]
    item = first["list"][0]
    agg.extend(parse_rest('{"done": {"x": [1, 2]}, "list": [{"a": 1}', ', "more"], "z": "tail"}'))
    final = agg.value
    assert final["done"] is done_value
    assert final["list"][0] is item
    assert agg.snapshot() is final


def parse_rest(prefix, rest):
    """Fragments that ``rest`` adds after ``prefix`` (one parser for both)."""
    p = argstream.IncrementalArgParser()
    p.push(prefix)
    return p.push(rest) + p.finish()


def test_snapshot_in_progress_items_are_replaced_not_appended():
    agg = FragmentAggregator()
    agg.extend([A(0, String("a"))])
    assert agg.snapshot() == ["a"]
    agg.push(A(0, String("b")))
    assert agg.snapshot() == ["ab"]
    agg.push(A(0, DONE))
    agg.push(A(1, Scalar(3)))
    assert agg.snapshot() == ["ab", 3]
    agg.extend([A(1, DONE), DONE])
    assert agg.value == ["ab", 3]


def test_snapshot_after_every_fragment_is_a_prefix_view():
    doc = '{"a": "long text", "b": [true, {"c": "xyz", "d": [[], "q"]}], "e": 12}'
    final = json.loads(doc)
    agg = FragmentAggregator()
    completed = []
    for fragment in parse(doc, 2):
        done = agg.push(fragment)
        if done is not None:
            completed.append(done)
        snap = agg.snapshot()
        assert_prefix_view(snap, final)
        for c in completed:
            node = snap
            for step in c.path:
                node = node[step]
            assert node == c.value


def assert_prefix_view(snap, final):
    if snap is None:
        return
    if isinstance(final, dict):
        assert isinstance(snap, dict) and snap.keys() <= final.keys()
        for k in snap:
            assert_prefix_view(snap[k], final[k])
    elif isinstance(final, list):
        assert isinstance(snap, list) and len(snap) <= len(final)
        for s, f in zip(snap, final):
            assert_prefix_view(s, f)
    elif isinstance(final, str):
        assert final.startswith(snap)
    else:
        assert snap == final


# -- flat input ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "doc", ['{"a": [1, {"b": "x"}], "c": {}}', '[[[]], "", {"k": [null]}]', '"s"', "0", '{"a": 1, "a": [2]}']
)
def test_flat_input(doc):
    nested, flat = FragmentAggregator(), FragmentAggregator()
    c_nested = nested.extend(parse(doc, 3))
    c_flat = flat.extend(parse(doc, 3, flat=True))
    assert c_flat == c_nested
    assert flat.value == nested.value == json.loads(doc)


def test_flat_and_nested_may_mix():
    frags = parse('{"a": [1, "x"], "b": null}')
    agg = FragmentAggregator()
    for i, f in enumerate(frags):
        agg.push(flatten(f) if i % 2 else f)
    assert agg.value == {"a": [1, "x"], "b": None}


def test_extend_returns_completed_in_order():
    agg = FragmentAggregator()
    assert agg.extend([]) == []
    assert agg.extend([A(0, Scalar(1)), A(0, DONE), A(1, String("s"))]) == [Completed((0,), 1)]
    assert agg.extend([A(1, DONE), DONE]) == [Completed((1,), "s"), Completed((), [1, "s"])]


# -- protocol violations -----------------------------------------------------------------------

VIOLATIONS = {
    "after root done": [Scalar(1), DONE, Scalar(2)],
    "done before any value": [DONE],
    "done for a value never started": [E("a", DONE)],
    "second scalar": [Scalar(1), Scalar(2)],
    "string after scalar": [Scalar(1), String("x")],
    "scalar after string": [String("x"), Scalar(1)],
    "empty after data": [String("x"), Empty("string")],
    "string inside an object": [E("a", Scalar(1)), E("a", DONE), String("x")],
    "entry inside an array": [A(0, Scalar(1)), A(0, DONE), E("a", Scalar(2))],
    "item inside an object": [E("a", Scalar(1)), E("a", DONE), A(0, Scalar(2))],
    "entry inside a string": [String("x"), E("a", Scalar(1))],
    "item out of order": [A(1, Scalar(1))],
    "item skips an index": [A(0, Scalar(1)), A(0, DONE), A(2, Scalar(1))],
    "next key while a value is open": [E("a", String("x")), E("b", String("y"))],
    "parent done while a child is open": [E("a", String("x")), DONE],
    "unknown empty kind": [Empty("set")],
    "flat: next item while one is open": [((0,), String("x")), ((1,), String("y"))],
    "a step that is neither a key nor an index": [((True,), Scalar(1))],
    "a float index": [A(0, Scalar(1)), A(0, DONE), ((1.0,), Scalar(2))],
    "a key that is a str subclass's": [(("a",), Scalar(1)), (("a",), DONE), ((type("K", (str,), {})("b"),), Scalar(2))],
}


@pytest.mark.parametrize("name", VIOLATIONS)
def test_protocol_violations_raise_value_error(name):
    *ok, bad = VIOLATIONS[name]
    agg = FragmentAggregator()
    for f in ok:
        agg.push(f)
    with pytest.raises(ValueError):
        agg.push(bad)


@pytest.mark.parametrize("thing", [42, "text", None, object()])
def test_non_fragments_raise(thing):
    with pytest.raises((TypeError, ValueError)):
        FragmentAggregator().push(thing)


def test_completed_is_a_value_type():
    c = Completed(("a", 0), [1])
    assert (c.path, c.value) == (("a", 0), [1])
    assert c == Completed(("a", 0), [1])
    match c:
        case Completed(("a", index), value):
            assert (index, value) == (0, [1])
    with pytest.raises(AttributeError):
        c.path = ()
