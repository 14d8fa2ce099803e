"""The README's examples do what it says."""

from __future__ import annotations

import subprocess
import sys

import argstream
from argstream import DONE, FragmentAggregator, ObjectEntry, String


def test_readme_parser_example(make_parser) -> None:
    parser = make_parser()
    out = []
    for chunk in ['{"path": "src/ma', 'in.rs", "content": "fn main(', ') {}\\n"}']:
        out.extend(parser.push(chunk))
    assert out == [
        ObjectEntry("path", String("src/ma")),
        ObjectEntry("path", String("in.rs")),
        ObjectEntry("path", DONE),
        ObjectEntry("content", String("fn main(")),
        ObjectEntry("content", String(") {}\n")),
        ObjectEntry("content", DONE),
        DONE,
    ]
    agg = FragmentAggregator()
    agg.extend(out)
    assert agg.value == {"path": "src/main.rs", "content": "fn main() {}\n"}


def test_cli_parse_sample() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "argstream", "parse", "--sample", "--chunk-size", "16"],
        capture_output=True, text=True, check=True,
    )
    lines = result.stdout.splitlines()
    assert lines[0] == "ObjectEntry(key='path', value=String(text='src/gr'))"
    assert "ObjectEntry(key='path', value=DONE)" in lines
    assert lines[-1] == "DONE"


def test_cli_parse_reports_errors() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "argstream", "parse"], input=b'{"a": [1,]}', capture_output=True,
    )
    assert result.returncode == 1
    assert b"Illegal trailing comma before end of array: line 1 column 10 (char 9)" in result.stderr


def test_backend_is_reported() -> None:
    assert argstream.BACKEND in ("cython", "python")
