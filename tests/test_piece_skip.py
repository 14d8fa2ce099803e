"""``PieceSkipper`` (the compiled base of ``SchemaValidator.extend``) and its twin decide alike: a list of
flat pieces of the skipped value, with no key, returns ``()`` at once; anything else reaches ``_extend``
untouched."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from argstream import _backend, _fragments_py, _piece_skip_py

BASES = {"python": _piece_skip_py.PieceSkipper}
if _backend.piece_skip_c is not None:
    BASES["cython"] = _backend.piece_skip_c.PieceSkipper

STRINGS = [_fragments_py.String]
if _backend.fragments_c is not None:
    STRINGS.append(_backend.fragments_c.String)
SKIP = ("content",)
EQUAL_NOT_SAME = tuple(["content"])  # equal to SKIP, not the same object: never skipped


def recorder(base: type) -> object:
    class Recorder(base):  # type: ignore[misc, valid-type]
        __slots__ = ("seen",)

        def _extend(self, fragments, spans, keys):
            self.seen = (fragments, spans, keys)
            return ["slow"]

    r = Recorder()
    r.seen = None
    return r


def fragment() -> st.SearchStrategy:
    string = st.sampled_from(STRINGS).map(lambda cls: cls("x"))
    return st.one_of(
        string.map(lambda s: (SKIP, s)),
        string.map(lambda s: (EQUAL_NOT_SAME, s)),
        st.just((SKIP, _fragments_py.Scalar(1))),
        st.just((SKIP, _fragments_py.DONE)),
        string.map(lambda s: (SKIP, s, 0)),
        string.map(lambda s: [SKIP, s]),
        string,
    )


@pytest.mark.parametrize("name", sorted(BASES))
@given(fragments=st.lists(fragment(), max_size=6), skip=st.sampled_from([SKIP, None]),
       container=st.sampled_from([list, tuple]))
def test_fast_path_or_the_slow_one_with_the_same_arguments(name: str, fragments, skip, container) -> None:
    r = recorder(BASES[name])
    r._skip = skip
    given_fragments = container(fragments)
    got = r.extend(given_fragments, None)
    fast = (
        skip is not None and container is list
        and all(type(f) is tuple and len(f) == 2 and f[0] is SKIP and type(f[1]) in STRINGS for f in fragments)
    )
    if fast:
        assert got == () and r.seen is None
    else:
        assert got == ["slow"] and r.seen[0] is given_fragments and r.seen[1] is None


@pytest.mark.parametrize("name", sorted(BASES))
def test_spans_reach_the_slow_path(name: str) -> None:
    r = recorder(BASES[name])
    spans = [(0, 1)]
    assert r.extend([(SKIP, STRINGS[0]("x"))], spans=spans) == ["slow"]  # _skip is None: nothing skipped
    assert r.seen[1] is spans


def pieces() -> st.SearchStrategy:
    string = st.tuples(st.sampled_from(STRINGS), st.text(max_size=5)).map(lambda p: p[0](p[1]))
    return st.lists(st.one_of(string.map(lambda s: (SKIP, s)), st.just((SKIP, _fragments_py.DONE))), max_size=6)


@given(batch=pieces(), budget=st.integers(-1, 12), taken=st.integers(0, 6), keep=st.booleans())
def test_counted_pieces_are_counted_kept_and_bounded_alike(batch, budget: int, taken: int, keep: bool) -> None:
    """With a budget (``maxLength``) and a list to keep the text in (``pattern``), both bases skip a
    batch only when every piece fits, and then count and keep each; otherwise nothing is touched."""
    results = []
    for name in sorted(BASES):
        r = recorder(BASES[name])
        r._skip, r._budget, r._taken, r._keep = SKIP, budget, taken, [] if keep else None
        got = r.extend(list(batch))
        results.append((got, r._taken, r._keep, r.seen is None))
        texts = [leaf.text for _, leaf in batch if type(leaf) in STRINGS]
        fits = all(type(leaf) in STRINGS for _, leaf in batch) and (
            budget < 0 or taken + sum(map(len, texts)) <= budget)
        assert (got == ()) is fits
        assert r._taken == (taken + sum(map(len, texts)) if fits else taken)
        assert r._keep == ((texts if fits else []) if keep else None)
    assert all(result == results[0] for result in results)


@given(text=st.text(max_size=12), budget=st.integers(-1, 12), taken=st.integers(0, 6))
def test_one_piece_at_a_time_alike(text: str, budget: int, taken: int) -> None:
    for name in sorted(BASES):
        r = recorder(BASES[name])
        r._skip, r._budget, r._taken, r._keep = SKIP, budget, taken, []
        fits = budget < 0 or taken + len(text) <= budget
        assert r._skips(SKIP, STRINGS[-1](text)) is fits
        assert r._skips(EQUAL_NOT_SAME, STRINGS[-1](text)) is False
        assert r._skips(SKIP, _fragments_py.Scalar(1)) is False
        assert (r._taken, r._keep) == ((taken + len(text), [text]) if fits else (taken, []))


@pytest.mark.parametrize("name", sorted(BASES))
def test_a_key_always_takes_the_slow_path(name: str) -> None:
    """A key read in the push must be checked even when every fragment is a piece of the skipped value."""
    r = recorder(BASES[name])
    r._skip = SKIP
    keys = [(1, ("other",), (5, 6))]
    assert r.extend([(SKIP, STRINGS[0]("x"))], None, keys) == ["slow"]
    assert r.seen[2] is keys
    assert r.extend([], None, []) == ()  # no key: the fast path


@pytest.mark.parametrize("overridden", [False, True])
@pytest.mark.parametrize("name", sorted(BASES))
def test_the_call_feeds_its_validator_as_extend_would(name: str, overridden: bool) -> None:
    """``ArgumentCall`` runs a compiled ``PieceSkipper``'s test itself and calls ``_extend`` only for what the
    test keeps; a validator with its own ``extend`` gets every chunk through it. Either way ``_extend`` sees
    the same fragments and the skipped pieces are counted alike."""
    from argstream import FragmentAggregator, IncrementalArgParser

    seen: list[str] = []
    extends: list[int] = []

    class Validator(BASES[name]):  # type: ignore[misc, valid-type]
        __slots__ = ()

        def _extend(self, fragments, spans, keys):
            seen.append("".join(leaf.text for _, leaf in fragments if type(leaf) in STRINGS))
            for path, _ in fragments:
                if path == ("content",):
                    self._skip = path  # the parser's one path object for every piece of the value
            return ()

    class Own(Validator):
        __slots__ = ()

        def extend(self, fragments, spans=None, keys=None):
            extends.append(len(fragments))
            return super().extend(fragments, spans, keys)

    validator = Own() if overridden else Validator()
    call = _backend.ArgumentCall(IncrementalArgParser(flat=True, catch_duplicate_keys=True), FragmentAggregator(),
                                 _backend.ToolCallArgumentProgress)
    call.validator = validator
    assert call.validator is validator
    items = [len(call.push(chunk)) for chunk in ['{"content": "ab', "c", "d", 'e", "path": "x"}']]
    assert items == [1, 1, 1, 5]
    assert seen == ["ab", "ex"]
    assert validator._taken == 2
    assert extends == ([1, 1, 1, 5] if overridden else [])
