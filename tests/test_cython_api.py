"""The .pxd is a usable C API: a separate Cython module cimports it, builds, and sees the twin's events."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import argstream
from argstream import _tokenizer_py

pytestmark = [pytest.mark.c_extension, pytest.mark.slow]

HERE = Path(__file__).parent / "cython_api"


class _Recorder(_tokenizer_py.Sink):
    def __init__(self) -> None:
        self.events: list[tuple[str, object]] = []

    def on_begin_object(self) -> None:
        self.events.append(("begin_object", None))

    def on_end_object(self) -> None:
        self.events.append(("end_object", None))

    def on_begin_array(self) -> None:
        self.events.append(("begin_array", None))

    def on_end_array(self) -> None:
        self.events.append(("end_array", None))

    def on_key(self, key: str) -> None:
        self.events.append(("key", key))

    def on_begin_string(self) -> None:
        self.events.append(("begin_string", None))

    def on_string_data(self, text: str) -> None:
        self.events.append(("string_data", text))

    def on_end_string(self) -> None:
        self.events.append(("end_string", None))

    def on_scalar(self, value: object) -> None:
        self.events.append(("scalar", value))


@pytest.fixture(scope="module")
def consumer(tmp_path_factory: pytest.TempPathFactory):
    """Compile tests/cython_api/consumer.pyx against the installed argstream's .pxd."""
    if argstream.BACKEND != "cython":
        pytest.skip("the compiled core is not in use")
    pytest.importorskip("Cython")
    if shutil.which(os.environ.get("CC", "cc")) is None and shutil.which("gcc") is None:
        pytest.skip("no C compiler")
    build = tmp_path_factory.mktemp("cython_api")
    shutil.copy(HERE / "consumer.pyx", build / "consumer.pyx")
    package_root = Path(argstream.__file__).resolve().parent.parent
    setup = build / "setup.py"
    setup.write_text(
        "from setuptools import setup, Extension\n"
        "from Cython.Build import cythonize\n"
        f"setup(ext_modules=cythonize([Extension('consumer', ['consumer.pyx'])], include_path=[{str(package_root)!r}],"
        " compiler_directives={'language_level': '3'}))\n"
    )
    pytest.importorskip("setuptools")
    result = subprocess.run(
        [sys.executable, str(setup), "build_ext", "--inplace", "-q"], cwd=build, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr[-3000:]
    so = next(build.glob("consumer*.so"), None) or next(build.glob("consumer*.pyd"))
    spec = importlib.util.spec_from_file_location("consumer", so)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


DOC = {"path": "src/x.py", "content": 'print("héllo 😀")\n\\', "n": [1, 2.5, None, True, {}], "e": ""}


def _twin_events(chunks: list) -> list:
    tok = _tokenizer_py.Tokenizer()
    rec = _Recorder()
    for chunk in chunks:
        tok.push(chunk, rec)
    tok.finish(rec)
    return rec.events


@pytest.mark.parametrize("size", [1, 3, 1000])
def test_consumer_sees_the_twins_events(consumer, size: int) -> None:
    text = json.dumps(DOC, ensure_ascii=False)
    data = text.encode()
    str_chunks = [text[i : i + size] for i in range(0, len(text), size)]
    byte_chunks = [data[i : i + size] for i in range(0, len(data), size)]
    assert consumer.run_str(str_chunks).events == _twin_events(str_chunks)
    assert consumer.run_bytes(byte_chunks).events == _twin_events(byte_chunks)


def test_consumer_sink_counts_in_c(consumer) -> None:
    text = json.dumps(DOC, ensure_ascii=False)
    sink = consumer.run_str([text], consumer.CountingSink())
    assert sink.chars == len(DOC["path"]) + len(DOC["content"])


def test_consumer_gets_the_documented_error(consumer) -> None:
    with pytest.raises(argstream.ArgumentStreamError) as info:
        consumer.run_bytes([b'{"a": \xff}'])
    assert (info.value.msg, info.value.pos) == ("Expecting value", 6)


@pytest.mark.parametrize("size", [1, 4, 1000])
def test_consumer_reads_raw_surrogates_as_their_escapes(consumer, size: int) -> None:
    """``tokenizer_feed_str`` (surrogates "replace"): a surrogate written raw in ``str`` input is U+FFFD."""
    text = '{"p\udfff": ["a\ud800b", "\U0001f600\udc00", "\\ud83d\ude00"]}'
    chunks = [text[i : i + size] for i in range(0, len(text), size)]
    events = consumer.run_str(chunks).events
    assert events == _twin_events(chunks)
    decoded = "".join(str(v) for kind, v in events if kind in ("key", "string_data"))
    assert decoded == "p\ufffda\ufffdb\U0001f600\ufffd\ufffd\ufffd"
