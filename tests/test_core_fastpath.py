"""What the core's fast paths must keep (issue 10, part 6): chains of fragments freed without recursion,
text buffered at the width it needs, eight-byte scans that stop at every special byte, and errors that
stay sticky without a try/except on the hot path. Each runs on both backends where it applies."""

from __future__ import annotations

import gc
import json
import subprocess
import sys

import pytest

from argstream.errors import ArgumentStreamError
from argstream.fragments import flatten

from test_core_defects import _same_argstream

# -- chains of ObjectEntry / ArrayItem ---------------------------------------------------------------

USER_CHAIN = """
import sys
from argstream import _backend
types = _backend.fragments_c if sys.argv[-1] == "cython" else __import__("argstream._fragments_py").__dict__
if sys.argv[-1] == "cython":
    Entry, Item, String = types.ObjectEntry, types.ArrayItem, types.String
else:
    from argstream._fragments_py import ObjectEntry as Entry, ArrayItem as Item, String
node = String("leaf")
for k in range(1_000_000):
    node = Entry("k", node) if k % 3 else Item(k, node)
del node
print("freed")
"""


@pytest.mark.slow
def test_a_million_deep_chain_built_by_hand_frees(backend: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", USER_CHAIN, backend], capture_output=True, text=True, timeout=300,
        env=_same_argstream(),
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "freed" in done.stdout


def test_freeing_a_chain_keeps_a_shared_tail(fragment_types) -> None:
    t = fragment_types
    tail = t.String("x")
    for k in range(5_000):
        tail = t.ArrayItem(k, tail)
    shared = tail
    head = shared
    for _ in range(5_000):
        head = t.ObjectEntry("a", head)
    del head
    gc.collect()
    path, leaf = flatten(shared)
    assert len(path) == 5_000 and leaf == t.String("x")


def test_a_finaliser_that_collects_during_the_free_is_safe(fragment_types) -> None:
    t = fragment_types
    seen = []

    class Noisy:
        def __del__(self) -> None:
            gc.collect()  # the GC walks while the chain above is being freed
            seen.append(True)

    node = t.Scalar(Noisy())
    for k in range(2_000):
        node = t.ObjectEntry(str(k), node) if k % 2 else t.ArrayItem(k, node)
    del node
    gc.collect()
    assert seen == [True]


# -- text buffered at its width ----------------------------------------------------------------------

WIDE = ["a", "é", "\u4e2d", "\U0001f600", "\\n", "\\u00e9", "\\u4e2d", "\\ud83d\\ude00", "\\\"", "\\\\"]


@pytest.mark.parametrize("order", range(len(WIDE)))
def test_escapes_and_widths_in_every_order_decode(make_parser, order: int) -> None:
    body = "".join(WIDE[order:] + WIDE[:order]) * 3
    text = f'{{"k": "{body}", "pad": "{"x" * 20}"}}'
    expected = json.loads(text)
    for chunks in (
        [text],
        [text[i:i + 1] for i in range(len(text))],
        [text[i:i + 7] for i in range(0, len(text), 7)],
    ):
        for data in (chunks, [c.encode() for c in chunks]):
            parser = make_parser(flat=True)
            pieces: dict[tuple, str] = {}
            for chunk in data:
                for path, leaf in parser.push(chunk):
                    if hasattr(leaf, "text"):
                        pieces[path] = pieces.get(path, "") + leaf.text
            parser.finish()
            assert pieces == {("k",): expected["k"], ("pad",): expected["pad"]}


def test_a_narrow_buffer_widens_mid_piece(make_parser) -> None:
    # one piece: narrow text, then an escape that needs two bytes, then one that needs four
    text = '"' + "a" * 300 + "\\u00e9" + "b" * 300 + "\\u4e2d" + "c" * 300 + "\\ud83d\\ude00" + "d" * 300 + '"'
    for chunk in (text, text.encode()):
        parser = make_parser()
        (piece, *rest) = parser.push(chunk)
        assert piece.text == json.loads(text) and len(rest) == 1


# -- the eight-byte scan ------------------------------------------------------------------------------

@pytest.mark.parametrize("special", ['"', "\\\\", "\\n", "\x00", "\x1f", "\x7f", "\x80", "é"])
@pytest.mark.parametrize("where", range(0, 17))
def test_the_scan_stops_at_each_special_byte_at_every_position(make_parser, special: str, where: int) -> None:
    body = "y" * where + special + "z" * (16 - where)
    text = '"' + body + '"'
    for chunk in (text, text.encode()):
        parser = make_parser()
        try:
            expected = json.loads(text)
        except json.JSONDecodeError as exc:
            with pytest.raises(ArgumentStreamError) as info:
                parser.push(chunk)
            assert info.value.pos == (exc.pos if isinstance(chunk, str) else len(text[:exc.pos].encode()))
            continue
        fragments = parser.push(chunk)
        assert "".join(f.text for f in fragments if hasattr(f, "text")) == expected


# -- errors without a try/except on the hot path ----------------------------------------------------

def test_the_error_of_a_push_is_sticky_and_keeps_its_fragments(make_parser) -> None:
    parser = make_parser()
    parser.push('{"a": "xy')
    with pytest.raises(ArgumentStreamError) as first:
        parser.push('z\x01')
    assert [f.value.text for f in first.value.fragments] == ["z"]
    with pytest.raises(ArgumentStreamError) as again:
        parser.push('"}')
    assert again.value is first.value
    assert [f.value.text for f in again.value.fragments] == ["z"]  # the failed chunk's, not the empty retry's
    with pytest.raises(ArgumentStreamError) as at_end:
        parser.finish()
    assert at_end.value is first.value


def test_a_wrong_chunk_type_is_not_sticky(make_parser) -> None:
    parser = make_parser()
    parser.push('["a')
    with pytest.raises(TypeError):
        parser.push(3)
    assert [leaf.text for path, leaf in map(flatten, parser.push('b"]')) if hasattr(leaf, "text")] == ["b"]
