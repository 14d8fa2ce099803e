"""``ArgumentCall.push`` hands a chunk's progress items in the list the compiled parser returned (each
item takes its fragment's place), unless something else holds that list: the exception of a chunk
that failed (``error.fragments``) and a validator that reads the fragments must still see fragments.
"""

from __future__ import annotations

from typing import Any

import pytest

from argstream import _backend, _calls_py
from argstream.aggregate import FragmentAggregator

CALLS = {"compiled": _backend.ArgumentCall, "twin": _calls_py.ArgumentCall}
PROGRESS = {"compiled": _backend.ToolCallArgumentProgress, "twin": _calls_py.ToolCallArgumentProgress}


def make_call(kind: str, make_parser: Any) -> Any:
    parser = make_parser(catch_duplicate_keys=True, flat=True)
    return CALLS[kind](parser, FragmentAggregator(), PROGRESS[kind], 0)


class Keeper:
    """A validator that keeps every list it is given, and proves nothing."""

    violations = ()

    def __init__(self) -> None:
        self.kept: list[list[Any]] = []

    def extend(self, fragments: list[Any], *rest: Any) -> tuple[()]:
        self.kept.append(fragments)
        return ()


def pairs(items: list[Any]) -> list[Any]:
    return [(item.path, item.leaf) for item in items]


@pytest.mark.parametrize("kind", sorted(CALLS))
def test_the_failing_chunks_fragments_stay_fragments(kind: str, make_parser: Any) -> None:
    call = make_call(kind, make_parser)
    first = call.push('{"a": "xy')
    out = call.push('z", "b": [1, tru1')
    assert call.error is not None and out
    kept = call.error.fragments
    assert kept is not out
    assert all(type(f) is tuple and len(f) == 2 for f in kept)
    assert kept == pairs(out)
    assert [type(i) for i in first + out] == [PROGRESS[kind]] * len(first + out)
    assert call.push("e]}") == []


@pytest.mark.parametrize("kind", sorted(CALLS))
def test_a_validator_keeps_the_fragments_it_read(kind: str, make_parser: Any) -> None:
    call = make_call(kind, make_parser)
    keeper = Keeper()
    call.validator = keeper
    outs = [call.push(chunk) for chunk in ('{"path": "src/', 'a.py", "n": [1, ', '2], "s": "x"}')]
    assert len(keeper.kept) == 3
    for kept, out in zip(keeper.kept, outs):
        assert kept is not out
        assert all(type(f) is tuple and len(f) == 2 for f in kept)
        assert kept == pairs(out)


@pytest.mark.parametrize("kind", sorted(CALLS))
def test_each_chunk_gets_a_list_of_its_own(kind: str, make_parser: Any) -> None:
    call = make_call(kind, make_parser)
    chunks = ['{"content": "', "a", "bc", '", "k": [true, null, 1.5], "z": {"y": "w"}}']
    outs = [call.push(chunk) for chunk in chunks]
    alone = make_parser(catch_duplicate_keys=True, flat=True)
    assert [pairs(out) for out in outs] == [alone.push(chunk) for chunk in chunks]
    assert len({id(out) for out in outs}) == len(outs)
    assert all(type(i) is PROGRESS[kind] for out in outs for i in out)
    assert outs[3][-1].completed.value == {"content": "abc", "k": [True, None, 1.5], "z": {"y": "w"}}
