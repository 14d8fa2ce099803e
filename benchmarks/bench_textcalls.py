"""Tool calls in text and lenient JSON (issue 19): the scanner, the lenient parser and their peers, in one run.

Documents: tool-call arguments of 2 KB and 200 KB (a file write: a long escaped string, plus a list of
small objects), fed in chunks (16 characters at 2 KB, 4096 at 200 KB, so that the quadratic peers
finish). Cases, each consuming every chunk in order:

- ``parse``: ``IncrementalArgParser`` over the arguments alone (the baseline);
- ``scan``: ``TextToolCallScanner("hermes")`` over the same arguments wrapped in ``<tool_call>``
  markup (target: at most 1.3x ``parse``); ``scan+parse`` is both, the whole text-call path;
- ``plain-scan`` / ``plain-find``: the scanner over text with no call, against one ``str.find`` of the
  marker per chunk (target: at most 2x);
- ``lenient`` / ``strict``: the parser with and without ``lenient=True`` on valid input (target: at
  most 1.2x);
- ``json_repair-growing``: ``json_repair.loads`` of the growing buffer after every chunk, and
  ``partial_json_parser-reparse``: ``partial_json_parser.loads`` of the growing buffer after every chunk
  (what the serving stacks' tool parsers do).

``python benchmarks/bench_textcalls.py`` prints the table with the ratios; under pytest each case is a
pytest-benchmark in the group of its size.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))
import environment  # noqa: E402,F401  # puts src/ on the path when argstream is not installed
import pytest  # noqa: E402

from argstream import IncrementalArgParser  # noqa: E402
from argstream.textcalls import CallArguments, TextToolCallScanner  # noqa: E402

MARKER = "<tool_call>"
SIZES = {"2KB": (2_000, 16), "200KB": (200_000, 4096)}


def arguments(size: int) -> str:
    """Tool arguments of about ``size`` characters: a file's content and a list of small records."""
    line = 'def f(x):\n    return "x\\ty" + str(x)  # é\n'
    records = []
    text = ""
    while len(text) < size // 2:
        text += line
    while len(json.dumps(records)) < size // 2:
        records.append({"id": len(records), "ok": True, "score": 1.5, "tag": "t"})
    return json.dumps({"path": "src/mod.py", "content": text, "records": records}, ensure_ascii=False)


def chunks_of(text: str, n: int) -> list[str]:
    return [text[k : k + n] for k in range(0, len(text), n)]


def plain_text(size: int) -> str:
    words = "The weather in Paris is mild today, with a light breeze from the west. "
    return (words * (size // len(words) + 1))[:size]


def case_parse(chunks: list[str]) -> int:
    p = IncrementalArgParser()
    n = 0
    for c in chunks:
        n += len(p.push(c))
    return n + len(p.finish())


def case_strict(chunks: list[str]) -> int:
    return case_parse(chunks)


def case_lenient(chunks: list[str]) -> int:
    p = IncrementalArgParser(lenient=True)
    n = 0
    for c in chunks:
        n += len(p.push(c))
    return n + len(p.finish())


def case_scan(chunks: list[str]) -> int:
    s = TextToolCallScanner("hermes")
    n = 0
    for c in chunks:
        n += len(s.feed(c))
    return n + len(s.finish())


def case_scan_parse(chunks: list[str]) -> int:
    s = TextToolCallScanner("hermes")
    p = IncrementalArgParser()
    n = 0
    push = p.push
    for c in chunks:
        for item in s.feed(c):
            if type(item) is CallArguments:
                n += len(push(item.text))
    s.finish()
    return n + len(p.finish())


def case_plain_find(chunks: list[str]) -> int:
    n = 0
    for c in chunks:
        n += c.find(MARKER)
    return n


def case_json_repair(chunks: list[str]) -> int:
    import json_repair

    buf = ""
    for c in chunks:
        buf += c
        json_repair.loads(buf)
    return len(buf)


def case_partial_json(chunks: list[str]) -> int:
    import partial_json_parser

    buf = ""
    for c in chunks:
        buf += c
        try:
            partial_json_parser.loads(buf)
        except Exception:  # a prefix it cannot complete yet
            pass
    return len(buf)


def corpus(name: str) -> dict[str, list[str]]:
    size, n = SIZES[name]
    args = arguments(size)
    wrapped = f'Let me write it.\n<tool_call>\n{{"name": "write_file", "arguments": {args}}}\n</tool_call>\n'
    return {"args": chunks_of(args, n), "wrapped": chunks_of(wrapped, n), "plain": chunks_of(plain_text(size), n)}


CASES: dict[str, tuple[Callable[[list[str]], int], str]] = {
    "parse": (case_parse, "args"),
    "scan": (case_scan, "wrapped"),
    "scan+parse": (case_scan_parse, "wrapped"),
    "plain-find": (case_plain_find, "plain"),
    "plain-scan": (case_scan, "plain"),
    "strict": (case_strict, "args"),
    "lenient": (case_lenient, "args"),
    "json_repair-growing": (case_json_repair, "args"),
    "partial_json_parser-reparse": (case_partial_json, "args"),
}
RATIOS = {"scan": "parse", "scan+parse": "parse", "plain-scan": "plain-find", "lenient": "strict",
          "json_repair-growing": "parse", "partial_json_parser-reparse": "parse"}


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("case", list(CASES))
def test_textcalls(benchmark: Any, size: str, case: str) -> None:
    fn, doc = CASES[case]
    data = corpus(size)[doc]
    benchmark.group = f"textcalls {size}"
    if case in ("json_repair-growing", "partial_json_parser-reparse"):
        pytest.importorskip(case.split("-")[0])
        benchmark.pedantic(fn, args=(data,), rounds=1, iterations=1)
    else:
        benchmark(fn, data)


SLOW = ("json_repair-growing", "partial_json_parser-reparse")


def timings(data: dict[str, list[str]], rounds: int = 40) -> dict[str, float]:
    """The best time of each case; the fast cases interleaved round by round, so that a machine whose
    load changes shifts them all alike and their ratios hold; the quadratic peers once."""
    got: dict[str, float] = {}
    fast = [c for c in CASES if c not in SLOW]
    for _ in range(rounds):
        for case in fast:
            fn, doc = CASES[case]
            t = time.perf_counter()
            fn(data[doc])
            got[case] = min(got.get(case, float("inf")), time.perf_counter() - t)
    for case in SLOW:
        fn, doc = CASES[case]
        try:
            t = time.perf_counter()
            fn(data[doc])
        except ImportError:
            continue
        got[case] = time.perf_counter() - t
    return got


def main() -> None:
    from argstream import BACKEND

    print(f"argstream backend: {BACKEND}")
    for size in SIZES:
        data = corpus(size)
        got = timings(data)
        print(f"\n{size} ({len(data['args'])} chunks of {SIZES[size][1]} characters)")
        for case, t in got.items():
            ref = RATIOS.get(case)
            ratio = f"{t / got[ref]:8.2f}x {ref}" if ref in got else ""
            print(f"  {case:30s} {t * 1e3:10.3f} ms  {ratio}")


if __name__ == "__main__":
    main()
