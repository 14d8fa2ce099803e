"""Deterministic benchmark workloads: no network, no unseeded randomness.

W1 is a ``write_file``-style tool call, ``{"path": ..., "content": <source>}``,
whose content is CPython stdlib source (read with ``inspect.getsource``, so it
is fixed for a given Python) with non-ASCII, CJK, emoji, tab and
quote/backslash lines injected every 25 lines, cut to an exact number of
characters. W3 is ``{"rows": [...]}`` with 2,000 small objects of mixed
scalars from a seeded RNG. Each corpus is JSON text (``json.dumps``,
``ensure_ascii=False``) cut into ``n``-character chunks, and its UTF-8 bytes
cut into ``n``-byte chunks (which split multi-byte sequences, as a network
stream does).
"""

from __future__ import annotations

import functools
import importlib
import inspect
import json
import os
import random
from dataclasses import dataclass
from typing import Any

#: Chunk sizes (characters for str, bytes for bytes); ``ARGSTREAM_BENCH_CHUNKS=1,16,256,4096`` overrides.
CHUNK_SIZES: tuple[int, ...] = tuple(
    int(n) for n in os.environ.get("ARGSTREAM_BENCH_CHUNKS", "8,32,256").split(",") if n.strip()
)

#: Corpus name -> W1 content size in characters (code points).
W1_SIZES = {"W1-100K": 100_000, "W1-1M": 1_000_000}
W3_ROWS = 2_000
CORPORA: tuple[str, ...] = (*W1_SIZES, "W3")

# Large, stable stdlib modules, in order; the ones a Python lacks are skipped.
_MODULES = (
    "_pydecimal", "typing", "inspect", "argparse", "pydoc", "tarfile", "zipfile", "subprocess",
    "difflib", "_pydatetime", "datetime", "email.message", "json.decoder", "json.encoder", "textwrap",
    "pathlib", "dataclasses", "enum", "functools", "collections", "ast", "tokenize", "logging",
    "unittest.case", "http.client", "urllib.parse", "string", "configparser", "shutil", "tempfile",
    "threading", "calendar", "fractions", "statistics", "pickle", "socket", "asyncio.base_events",
)

# Injected every 25 lines (in rotation): accented Latin, Cyrillic, CJK, astral emoji (ZWJ sequences,
# flags), tabs, and lines dense in double quotes and backslashes.
_EXTRA_LINES = (
    "\t# Café crème, naïve façade, résumé: Ærøskøbing, Łódź, İstanbul, São Paulo, Zürich",
    '    greeting = "日本語のテキスト、中文字符，한국어 문장"  # CJK, full-width punctuation',
    '\tlabel = "🚀 deploy ✅ passed 🐍 python 👩\u200d💻 dev 🇫🇷 flag 🎉"  # astral chars, ZWJ, flags',
    '    path = "C:\\\\Users\\\\Zoë\\\\Документы\\\\файл.txt"  # backslashes, Cyrillic',
    "\t\tpattern = r'\"(?:[^\"\\\\]|\\\\.)*\"'  # a JSON string regex: quotes and backslashes",
    '    math = "∑ αβγ ≤ ∞ → ≠ ½ ° € £ ¥ — “curly” ‘quotes’ … «guillemets»"',
    "\tcols = 'a\\tb\\tc'\t# tab\tseparated\tcomment\t🧪",
    '    emoji_only = "😀😃😄😁😆😅🤣😂🙂🙃😉😊😇🥰😍🤩"',
)


@functools.cache
def source_text(size: int) -> str:
    """Exactly ``size`` characters of stdlib source with the extra lines injected."""
    lines: list[str] = []
    total = 0
    k = 0
    while total < size:
        for name in _MODULES:
            try:
                src = inspect.getsource(importlib.import_module(name))
            except (ImportError, OSError, TypeError):
                continue
            for line in src.splitlines(keepends=True):
                if k % 25 == 24:
                    extra = _EXTRA_LINES[(k // 25) % len(_EXTRA_LINES)] + "\n"
                    lines.append(extra)
                    total += len(extra)
                lines.append(line)
                total += len(line)
                k += 1
            if total >= size:
                break
    return "".join(lines)[:size]


def w1_value(size: int) -> dict[str, str]:
    return {"path": "src/argstream_bench/generated_module.py", "content": source_text(size)}


def w3_value(rows: int = W3_ROWS) -> dict[str, list[dict[str, Any]]]:
    rng = random.Random(20240531)
    tags = ("a", "bb", "ccc", "ok", "warn", "err", "é", "x\"y", "a\\b", "🙂", "")
    out = []
    for i in range(rows):
        r = rng.random()
        score: Any = round(rng.uniform(-1000, 1000), rng.randrange(0, 6))
        if r < 0.1:
            score = rng.random() * 10.0 ** rng.randrange(-30, 30)  # exponents
        out.append({
            "id": i + 1,
            "score": score,
            "ok": rng.random() < 0.5,
            "tag": rng.choice(tags),
            "n": None if rng.random() < 0.5 else rng.randrange(-10**6, 10**6),
        })
    return {"rows": out}


@dataclass(frozen=True)
class Corpus:
    """A workload: its value, JSON text and UTF-8 bytes."""

    name: str
    value: Any
    text: str
    data: bytes

    def chunks(self, n: int) -> list[str]:
        """The JSON text in ``n``-character chunks."""
        return _chunks(self.text, n)

    def byte_chunks(self, n: int) -> list[bytes]:
        """The UTF-8 bytes in ``n``-byte chunks."""
        return _chunks(self.data, n)


@functools.cache
def corpus(name: str) -> Corpus:
    """Build (once) the corpus ``name``: one of :data:`CORPORA`."""
    if name in W1_SIZES:
        value: Any = w1_value(W1_SIZES[name])
    elif name == "W3":
        value = w3_value()
    else:
        raise KeyError(name)
    text = json.dumps(value, ensure_ascii=False)
    assert json.loads(text) == value
    return Corpus(name, value, text, text.encode("utf-8"))


@functools.lru_cache(maxsize=64)
def _chunks(seq: Any, n: int) -> list[Any]:
    return [seq[i : i + n] for i in range(0, len(seq), n)]


def describe() -> str:
    """One line per corpus: sizes and character mix (for the README and the run header)."""
    rows = []
    for name in CORPORA:
        c = corpus(name)
        t = c.text
        non_ascii = sum(1 for ch in t if ord(ch) > 127)
        astral = sum(1 for ch in t if ord(ch) > 0xFFFF)
        rows.append(
            f"{name}: {len(t):,} chars, {len(c.data):,} UTF-8 bytes, {t.count(chr(92)):,} backslashes, "
            f"{non_ascii:,} non-ASCII ({astral:,} astral)"
        )
    return "\n".join(rows)


if __name__ == "__main__":
    print(describe())
