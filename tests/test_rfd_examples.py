"""Every fragment example in RFD 043 (seeds/000), fragment for fragment, nested and ``flat=True``."""

from __future__ import annotations

import json

import pytest

import argstream
from argstream import DONE, ArrayItem, Completed, ObjectEntry, Scalar, String, flatten

from _support import run_per_push, same_json

E, A = ObjectEntry, ArrayItem

# name -> (chunks, expected fragments). The chunks cut strings where the RFD's String pieces split.
EXAMPLES = {
    "fs_create_file": (
        ['{"path": "/tmp/foo.rs", "content": "fn main(', ') {...}"}'],
        [
            E("path", String("/tmp/foo.rs")),
            E("path", DONE),
            E("content", String("fn main(")),
            E("content", String(") {...}")),
            E("content", DONE),
            DONE,
        ],
    ),
    "fs_modify_file": (
        ['{"path": "lib.rs", "patterns": [{"old": "lo', 'ng...", "new": "also ', 'long..."}]}'],
        [
            E("path", String("lib.rs")),
            E("path", DONE),
            E("patterns", A(0, E("old", String("lo")))),
            E("patterns", A(0, E("old", String("ng...")))),
            E("patterns", A(0, E("old", DONE))),
            E("patterns", A(0, E("new", String("also ")))),
            E("patterns", A(0, E("new", String("long...")))),
            E("patterns", A(0, E("new", DONE))),
            E("patterns", A(0, DONE)),
            E("patterns", DONE),
            DONE,
        ],
    ),
    "dry_run": (
        ['{"dry_run": true}'],
        [E("dry_run", Scalar(True)), E("dry_run", DONE), DONE],
    ),
    "bare_string": (
        ['"chu', 'nk"'],
        [String("chu"), String("nk"), DONE],
    ),
    "parser_section": (
        ['{"path":"/tmp/foo.rs","content":"fn main()', ' {}\\n","dry_run":false}'],
        [
            E("path", String("/tmp/foo.rs")),
            E("path", DONE),
            E("content", String("fn main()")),
            E("content", String(" {}\n")),
            E("content", DONE),
            E("dry_run", Scalar(False)),
            E("dry_run", DONE),
            DONE,
        ],
    ),
}

# What each push returns (the finish() list last): string data arrives with the chunk that carries it.
PER_PUSH = {
    "fs_create_file": [3, 3, 0],
    "fs_modify_file": [3, 3, 5, 0],
    "dry_run": [3, 0],
    "bare_string": [1, 2, 0],
    "parser_section": [3, 5, 0],
}


@pytest.mark.parametrize("name", EXAMPLES)
def test_nested(make_parser, name):
    chunks, expected = EXAMPLES[name]
    per_push = run_per_push(make_parser, chunks)
    assert [f for push in per_push for f in push] == expected
    assert [len(push) for push in per_push] == PER_PUSH[name]
    assert all(type(a).__name__ == type(b).__name__ for a, b in zip([f for p in per_push for f in p], expected))


@pytest.mark.parametrize("name", EXAMPLES)
def test_flat(make_parser, name):
    chunks, expected = EXAMPLES[name]
    flat = [f for push in run_per_push(make_parser, chunks, flat=True) for f in push]
    assert flat == [flatten(f) for f in expected]


def test_flat_spelled_out(make_parser):
    chunks, _ = EXAMPLES["fs_modify_file"]
    flat = [f for push in run_per_push(make_parser, chunks, flat=True) for f in push]
    assert flat == [
        (("path",), String("lib.rs")),
        (("path",), DONE),
        (("patterns", 0, "old"), String("lo")),
        (("patterns", 0, "old"), String("ng...")),
        (("patterns", 0, "old"), DONE),
        (("patterns", 0, "new"), String("also ")),
        (("patterns", 0, "new"), String("long...")),
        (("patterns", 0, "new"), DONE),
        (("patterns", 0), DONE),
        (("patterns",), DONE),
        ((), DONE),
    ]


@pytest.mark.parametrize("name", EXAMPLES)
def test_aggregates_to_json(name):
    """The RFD's aggregator layer: each argument completes as its ``Done`` arrives."""
    chunks, expected = EXAMPLES[name]
    agg = argstream.FragmentAggregator()
    completed = [c for c in map(agg.push, expected) if c is not None]
    assert same_json(agg.value, json.loads("".join(chunks)))
    assert completed[-1] == Completed((), agg.value)
    assert len(completed) == sum(1 for f in expected if flatten(f)[1] is DONE)


def test_path_is_complete_after_second_fragment():
    """"The renderer sees path complete in the first events (after getting Done in the second event)"."""
    _, expected = EXAMPLES["fs_create_file"]
    agg = argstream.FragmentAggregator()
    assert agg.push(expected[0]) is None
    assert agg.push(expected[1]) == Completed(("path",), "/tmp/foo.rs")
    assert agg.snapshot() == {"path": "/tmp/foo.rs"}
