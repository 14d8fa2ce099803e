"""JSONTestSuite (read in place), one test per file x backend x chunking, fed as bytes.

``y_`` files parse to ``json.loads``' value, ``n_`` files raise ``ArgumentStreamError``, and ``i_`` files
either parse or raise ``ArgumentStreamError`` (never anything else), as docs/conformance.md records.
"""

from __future__ import annotations

import json
import re
import zlib

import pytest

from argstream import ArgumentStreamError, FragmentAggregator

from _support import one_unit, random_chunks, same_json
from conftest import CONFORMANCE, ROOT

if not CONFORMANCE.is_dir():
    pytest.skip(f"JSONTestSuite not found at {CONFORMANCE}", allow_module_level=True)

FILES = sorted(p.name for p in CONFORMANCE.glob("*.json"))
CHUNKINGS = ["whole", "one", "random"]


def chunks_of(name: str, data: bytes, chunking: str) -> list[bytes]:
    if chunking == "whole":
        return [data]
    if chunking == "one":
        return one_unit(data)
    return random_chunks(data, zlib.crc32(name.encode()), 7)  # seeded per file


def outcome(make_parser, chunks: list[bytes]):
    """("ok", value) or ("error", ArgumentStreamError); anything else propagates."""
    p = make_parser()
    agg = FragmentAggregator()
    try:
        for chunk in chunks:
            agg.extend(p.push(chunk))
        agg.extend(p.finish())
    except ArgumentStreamError as exc:
        return "error", exc
    return "ok", agg.value


@pytest.mark.parametrize("chunking", CHUNKINGS)
@pytest.mark.parametrize("name", FILES)
def test_file(make_parser, name, chunking):
    data = (CONFORMANCE / name).read_bytes()
    kind, result = outcome(make_parser, chunks_of(name, data, chunking))
    if name.startswith("y_"):
        assert kind == "ok", result
        assert same_json(result, json.loads(data))
    elif name.startswith("n_"):
        assert kind == "error", f"accepted {data[:60]!r} as {result!r}"[:200]
    else:
        whole_kind, whole_result = outcome(make_parser, [data])
        assert kind == whole_kind
        if kind == "error":
            assert (result.msg, result.pos) == (whole_result.msg, whole_result.pos)
        else:
            assert same_json(result, whole_result)


def test_n_files_fail_at_the_same_position_under_any_chunking(make_parser):
    for name in FILES:
        if not name.startswith("n_"):
            continue
        data = (CONFORMANCE / name).read_bytes()
        _, whole = outcome(make_parser, [data])
        _, chunked = outcome(make_parser, chunks_of(name, data, "random"))
        assert (type(chunked), chunked.msg, chunked.pos) == (type(whole), whole.msg, whole.pos), name


def test_conformance_table_is_current(make_parser):
    """docs/conformance.md records the decision this backend makes for every i_ file."""
    table = ROOT / "docs" / "conformance.md"
    if not table.exists():
        pytest.skip("docs/conformance.md not generated (ci/gen_conformance_table.py)")
    rows = dict(re.findall(r"^\| `(i_[^`]+)` \| [^|]*\| \*\*(accepted|rejected)\*\*", table.read_text(), re.M))
    assert sorted(rows) == [n for n in FILES if n.startswith("i_")]
    for name, decision in rows.items():
        kind, _ = outcome(make_parser, [(CONFORMANCE / name).read_bytes()])
        assert {"ok": "accepted", "error": "rejected"}[kind] == decision, name
