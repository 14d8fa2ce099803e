"""Fragment value types: the pure dataclasses and the public (possibly compiled) ones behave alike."""

from __future__ import annotations

import copy
import pickle
from types import SimpleNamespace

import pytest

import argstream
from argstream import _fragments_py, flatten, nest

from _support import run

PURE = SimpleNamespace(**{n: getattr(_fragments_py, n) for n in _fragments_py.__all__})
PUBLIC = SimpleNamespace(**{n: getattr(argstream, n) for n in _fragments_py.__all__})


@pytest.fixture(params=["pure", "public"])
def ns(request: pytest.FixtureRequest) -> SimpleNamespace:
    """The fragment classes: ``_fragments_py``'s dataclasses, or ``argstream``'s (compiled under cython)."""
    return PURE if request.param == "pure" else PUBLIC


def samples(ns: SimpleNamespace) -> list:
    """One or more instances of every fragment type, nested ones included."""
    return [
        ns.Scalar(None), ns.Scalar(True), ns.Scalar(False), ns.Scalar(0), ns.Scalar(-12), ns.Scalar(2.5),
        ns.Scalar(10**30), ns.String("x"), ns.String("héllo 😀\n\"q\""),
        ns.ArrayItem(0, ns.DONE), ns.ArrayItem(3, ns.String("ab")),
        ns.ObjectEntry("path", ns.String("/tmp/foo.rs")), ns.ObjectEntry("", ns.Scalar(None)),
        ns.ObjectEntry("patterns", ns.ArrayItem(0, ns.ObjectEntry("old", ns.String("lo")))),
        ns.Empty("object"), ns.Empty("array"), ns.Empty("string"), ns.DONE,
    ]


SAMPLE_IDS = [str(i) for i in range(18)]


def test_fields(ns):
    assert ns.Scalar(1).value == 1
    assert ns.String("t").text == "t"
    item = ns.ArrayItem(2, ns.DONE)
    assert (item.index, item.value) == (2, ns.DONE)
    entry = ns.ObjectEntry("k", ns.String("v"))
    assert (entry.key, entry.value) == ("k", ns.String("v"))
    assert ns.Empty("array").kind == "array"


def test_keyword_construction(ns):
    assert ns.Scalar(value=1) == ns.Scalar(1)
    assert ns.String(text="a") == ns.String("a")
    assert ns.ArrayItem(index=1, value=ns.DONE) == ns.ArrayItem(1, ns.DONE)
    assert ns.ObjectEntry(key="k", value=ns.DONE) == ns.ObjectEntry("k", ns.DONE)


def test_match_args(ns):
    assert ns.Scalar.__match_args__ == ("value",)
    assert ns.String.__match_args__ == ("text",)
    assert ns.ArrayItem.__match_args__ == ("index", "value")
    assert ns.ObjectEntry.__match_args__ == ("key", "value")
    assert ns.Empty.__match_args__ == ("kind",)
    assert ns.Done.__match_args__ == ()


def describe(ns: SimpleNamespace, fragment) -> str:
    """Pattern matching as users write it (the API's ``case ObjectEntry("path", String(text))``)."""
    match fragment:
        case ns.ObjectEntry("path", ns.String(text)):
            return f"path chunk {text}"
        case ns.ObjectEntry(key, ns.Done()):
            return f"{key} done"
        case ns.ObjectEntry(key, ns.ArrayItem(index, ns.Scalar(value))):
            return f"{key}[{index}] = {value!r}"
        case ns.ArrayItem(index, ns.Empty(kind)):
            return f"[{index}] empty {kind}"
        case ns.Scalar(None):
            return "null"
        case ns.Scalar(bool() as b):
            return f"bool {b}"
        case ns.Scalar(value):
            return f"number {value!r}"
        case ns.String(text):
            return f"text {text}"
        case ns.Done():
            return "done"
    return "other"


def test_pattern_matching(ns):
    assert describe(ns, ns.ObjectEntry("path", ns.String("/a"))) == "path chunk /a"
    assert describe(ns, ns.ObjectEntry("path", ns.DONE)) == "path done"
    assert describe(ns, ns.ObjectEntry("xs", ns.ArrayItem(4, ns.Scalar(1.5)))) == "xs[4] = 1.5"
    assert describe(ns, ns.ArrayItem(0, ns.Empty("object"))) == "[0] empty object"
    assert describe(ns, ns.Scalar(None)) == "null"
    assert describe(ns, ns.Scalar(False)) == "bool False"
    assert describe(ns, ns.Scalar(7)) == "number 7"
    assert describe(ns, ns.String("t")) == "text t"
    assert describe(ns, ns.DONE) == "done"
    assert describe(ns, ns.ObjectEntry("other", ns.String("x"))) == "other"


def test_pattern_matching_parser_output(make_parser, fragment_types):
    """Fragments straight from a parser (either backend) match the classes that parser builds."""
    ns = fragment_types
    frags = run(make_parser, ['{"path": "/tmp/a", "n": [1]}'])
    assert [describe(ns, f) for f in frags] == [
        "path chunk /tmp/a", "path done", "n[0] = 1", "other", "n done", "done",
    ]
    match frags[2]:
        case ns.ObjectEntry("n", ns.ArrayItem(0, ns.Scalar(1))):
            pass
        case _:
            pytest.fail(f"no match for {frags[2]!r}")


@pytest.mark.parametrize("i", range(18), ids=SAMPLE_IDS)
def test_equality_and_hash(ns, i):
    a, b = samples(ns)[i], samples(ns)[i]
    assert a == b
    assert not (a != b)
    assert hash(a) == hash(b)
    assert {a: 1}[b] == 1
    others = [x for j, x in enumerate(samples(ns)) if j != i]
    assert all(a != x for x in others if not (type(x) is type(a) is ns.Scalar))


def test_inequality(ns):
    assert ns.Scalar(1) != 1
    assert ns.String("a") != "a"
    assert ns.String("1") != ns.Scalar(1)
    assert ns.ArrayItem(0, ns.DONE) != ns.ObjectEntry("0", ns.DONE)
    assert ns.ArrayItem(0, ns.DONE) != ns.ArrayItem(1, ns.DONE)
    assert ns.ObjectEntry("a", ns.String("x")) != ns.ObjectEntry("a", ns.String("y"))
    assert ns.Empty("object") != ns.Empty("array")
    assert ns.DONE != ns.Empty("object")
    assert ns.DONE != None  # noqa: E711
    assert ns.Scalar(None) != ns.DONE


def test_unhashable_contents(ns):
    """Hashable where their contents are: a list inside makes the fragment unhashable."""
    with pytest.raises(TypeError):
        hash(ns.ArrayItem(0, []))
    with pytest.raises(TypeError):
        hash(ns.ObjectEntry("k", {}))


def test_repr(ns):
    assert repr(ns.Scalar(None)) == "Scalar(value=None)"
    assert repr(ns.Scalar(1.5)) == "Scalar(value=1.5)"
    assert repr(ns.String("a'b")) == "String(text=\"a'b\")"
    assert repr(ns.ArrayItem(1, ns.DONE)) == "ArrayItem(index=1, value=DONE)"
    assert repr(ns.ObjectEntry("k", ns.String("v"))) == "ObjectEntry(key='k', value=String(text='v'))"
    assert repr(ns.Empty("string")) == "Empty(kind='string')"
    assert repr(ns.DONE) == "DONE"


@pytest.mark.parametrize("i", range(18), ids=SAMPLE_IDS)
def test_repr_evaluates_back(ns, i):
    frag = samples(ns)[i]
    assert eval(repr(frag), vars(ns)) == frag  # noqa: S307 - our own reprs


@pytest.mark.parametrize("i", range(18), ids=SAMPLE_IDS)
def test_public_types_behave_like_pure(i):
    """Compiled fragment types (or the same dataclasses) agree with the pure ones."""
    pub, pure = samples(PUBLIC)[i], samples(PURE)[i]
    assert repr(pub) == repr(pure)
    assert hash(pub) == hash(pub)
    assert type(pub).__match_args__ == type(pure).__match_args__
    assert [getattr(pub, f) == getattr(pure, f) or repr(getattr(pub, f)) == repr(getattr(pure, f))
            for f in type(pure).__match_args__] == [True] * len(type(pure).__match_args__)


@pytest.mark.parametrize("i", range(17), ids=SAMPLE_IDS[:17])
def test_immutable(ns, i):
    frag = samples(ns)[i]
    for name in type(frag).__match_args__:
        with pytest.raises(AttributeError):
            setattr(frag, name, 1)
        with pytest.raises(AttributeError):
            delattr(frag, name)
    with pytest.raises((AttributeError, TypeError)):
        frag.extra = 1
    assert not hasattr(frag, "__dict__")


def test_done_singleton(ns):
    assert ns.Done() is ns.DONE
    assert type(ns.DONE)() is ns.DONE
    assert ns.DONE is argstream.DONE
    assert copy.copy(ns.DONE) is ns.DONE
    assert copy.deepcopy(ns.ObjectEntry("k", ns.DONE)).value is ns.DONE
    assert hash(ns.DONE) == hash(ns.Done())
    with pytest.raises((AttributeError, TypeError)):
        ns.DONE.extra = 1


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_pickle_round_trip(ns, protocol):
    for frag in samples(ns):
        back = pickle.loads(pickle.dumps(frag, protocol))
        assert back == frag
        assert type(back) is type(frag)
        assert repr(back) == repr(frag)
    assert pickle.loads(pickle.dumps(ns.DONE, protocol)) is ns.DONE
    nested = pickle.loads(pickle.dumps(ns.ArrayItem(0, ns.DONE), protocol))
    assert nested.value is ns.DONE


def test_copy(ns):
    for frag in samples(ns):
        assert copy.copy(frag) == frag
        assert copy.deepcopy(frag) == frag


def test_parser_emits_its_own_types(make_parser, fragment_types):
    ns = fragment_types
    frags = run(make_parser, ['{"a": [1, "s", {}, ""]}'])
    leaves = [flatten(f)[1] for f in frags]
    kinds = {type(x) for x in leaves}
    assert kinds == {ns.Scalar, ns.String, ns.Empty, ns.Done}
    assert all(type(f) is ns.ObjectEntry for f in frags[:-1])
    assert type(frags[0].value) is ns.ArrayItem


# -- flatten / nest -------------------------------------------------------------


def test_flatten():
    E, A, S = argstream.ObjectEntry, argstream.ArrayItem, argstream.String
    assert flatten(E("a", A(0, S("x")))) == (("a", 0), S("x"))
    assert flatten(argstream.DONE) == ((), argstream.DONE)
    assert flatten(A(3, E("0", argstream.Empty("array")))) == ((3, "0"), argstream.Empty("array"))


def test_nest():
    E, A, S = argstream.ObjectEntry, argstream.ArrayItem, argstream.String
    assert nest(("a", 0), S("x")) == E("a", A(0, S("x")))
    assert nest((), argstream.DONE) is argstream.DONE
    assert type(nest(("0",), argstream.DONE)) is E
    assert type(nest((0,), argstream.DONE)) is A


@pytest.mark.parametrize("step", [True, 1.0, None, b"k", (1,)])
def test_nest_rejects_bad_steps(step):
    with pytest.raises(TypeError):
        nest((step,), argstream.DONE)


DOCS = [
    '{"path": "lib.rs", "patterns": [{"old": "a\\nb", "new": ""}, [], {}], "n": [1, [2, [true]]]}',
    '[[[[["deep"]]]], {"k": {"k": {"k": null}}}]',
    '"root"',
    "-1.5e3",
]


@pytest.mark.parametrize("doc", DOCS)
def test_flatten_nest_round_trip(make_parser, doc):
    """``flat=True`` output is ``flatten`` of the nested output, and ``nest`` inverts it, chunk by chunk."""
    chunks = [doc[i : i + 3] for i in range(0, len(doc), 3)]
    nested_p, flat_p = make_parser(), make_parser(flat=True)
    for chunk in [*chunks, None]:
        nested = nested_p.push(chunk) if chunk is not None else nested_p.finish()
        flat = flat_p.push(chunk) if chunk is not None else flat_p.finish()
        assert flat == [flatten(f) for f in nested]
        assert [nest(path, leaf) for path, leaf in flat] == nested
        assert all(type(path) is tuple for path, _ in flat)
