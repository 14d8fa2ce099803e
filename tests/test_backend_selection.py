"""Backend selection: BACKEND, ARGSTREAM_PURE, the fallback warning, and the constants both cores share."""

from __future__ import annotations

import importlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import argstream
from argstream import _backend, _fragments_py, _parser_py, _tokenizer_py, fragments, parser

from conftest import REQUIRE_EXTENSION

SRC = Path(argstream.__file__).resolve().parent.parent
PXD = Path(argstream.__file__).resolve().parent / "_tokenizer.pxd"
CONSTANT = re.compile(r"^(EV|ST|NUM|CT|ERR)_[A-Z0-9_]+$")
TWIN_CONSTANTS = {k: v for k, v in vars(_tokenizer_py).items() if CONSTANT.match(k)}

PROBE = """
import json, sys, warnings
warnings.simplefilter("always")
if "block" in sys.argv:
    sys.modules["argstream._tokenizer"] = None  # as if the extension were not built
with warnings.catch_warnings(record=True) as caught:
    try:
        import argstream
        from argstream import parser
    except ImportError as exc:
        print(json.dumps({"import_error": str(exc)}))
        raise SystemExit(0)
print(json.dumps({
    "backend": argstream.BACKEND,
    "parser": parser.IncrementalArgParser.__module__,
    "c_is_none": parser.IncrementalArgParserC is None,
    "scalar": argstream.Scalar.__module__,
    "warnings": [(w.category.__name__, str(w.message)) for w in caught],
}))
"""


def probe(monkeypatch, *args: str, **env: str | None) -> dict:
    """Import argstream afresh in a subprocess with the given environment."""
    for name in ("ARGSTREAM_PURE", "ARGSTREAM_REQUIRE_EXTENSION"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        if value is not None:
            monkeypatch.setenv(name, value)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args], capture_output=True, text=True, timeout=60, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def compiled_importable() -> bool:
    try:
        importlib.import_module("argstream._tokenizer")
    except ImportError:
        return False
    return True


def test_backend_in_process():
    assert argstream.BACKEND in ("cython", "python")
    assert argstream.BACKEND == parser.BACKEND == _backend.BACKEND
    if argstream.BACKEND == "python":
        assert parser.IncrementalArgParser is parser.IncrementalArgParserPy
        assert parser.IncrementalArgParserC is None
        assert argstream.IncrementalArgParser is parser.IncrementalArgParserPy
    else:
        assert parser.IncrementalArgParser is parser.IncrementalArgParserC is _backend.core.IncrementalArgParser
        assert argstream.Scalar is fragments.Scalar is _backend.fragments_c.Scalar
        assert argstream.String is fragments.String is _backend.fragments_c.String
    assert parser.IncrementalArgParserPy is _parser_py.IncrementalArgParser
    assert parser.TokenizerPy is _tokenizer_py.Tokenizer


def test_pure_environment_variable_is_honoured():
    pure = os.environ.get("ARGSTREAM_PURE", "") not in ("", "0")
    if pure:
        assert argstream.BACKEND == "python"


def test_required_extension_is_in_use():
    """Under ARGSTREAM_REQUIRE_EXTENSION a missing compiled core is a failure, not a skip."""
    if not REQUIRE_EXTENSION:
        pytest.skip("ARGSTREAM_REQUIRE_EXTENSION is not set")
    assert argstream.BACKEND == "cython"


@pytest.mark.parametrize("value", ["1", "yes"])
def test_reimport_with_pure(monkeypatch, value):
    got = probe(monkeypatch, ARGSTREAM_PURE=value)
    assert got["backend"] == "python"
    assert got["parser"] == "argstream._parser_py"
    assert got["c_is_none"]
    assert got["warnings"] == []


@pytest.mark.parametrize("value", [None, "", "0"])
def test_reimport_without_pure(monkeypatch, value):
    got = probe(monkeypatch, ARGSTREAM_PURE=value)
    if compiled_importable():
        assert got["backend"] == "cython"
        assert got["parser"] == "argstream._parser"
        assert got["scalar"] == "argstream._fragments"
        assert not got["c_is_none"]
    else:
        assert got["backend"] == "python"
        built = any(Path(argstream.__file__).parent.glob("_parser.*.so")) or any(
            Path(argstream.__file__).parent.glob("_parser*.pyd"))
        assert [w[0] for w in got["warnings"]] == (["RuntimeWarning"] if built else [])  # a pure build: no warning


def test_missing_extension_falls_back_with_a_warning(monkeypatch):
    got = probe(monkeypatch, "block")
    assert got["backend"] == "python"
    assert got["c_is_none"]
    assert [w[0] for w in got["warnings"]] == ["RuntimeWarning"]
    assert "pure-Python" in got["warnings"][0][1]


def test_missing_extension_is_fatal_when_required(monkeypatch):
    got = probe(monkeypatch, "block", ARGSTREAM_REQUIRE_EXTENSION="1")
    assert "import_error" in got


# -- the constants both cores share ------------------------------------------------------------


def test_twin_constants_are_distinct_per_family():
    for family in ("EV", "ST", "NUM", "CT", "ERR"):
        values = [v for k, v in TWIN_CONSTANTS.items() if k.startswith(family + "_")]
        assert values and len(values) == len(set(values)), family
    errors = {v for k, v in TWIN_CONSTANTS.items() if k.startswith("ERR_")}
    assert errors == set(_tokenizer_py.MESSAGES)


def test_pxd_enums_match_the_twin():
    if not PXD.exists():
        pytest.skip("no _tokenizer.pxd")
    pattern = r"^\s+((?:EV|ST|NUM|CT|ERR)_[A-Z0-9_]+)\s*=\s*(\d+)"
    declared = {name: int(value) for name, value in re.findall(pattern, PXD.read_text(), re.M)}
    if not declared:
        pytest.skip("the .pxd declares no enum constants")
    assert declared == TWIN_CONSTANTS


def test_compiled_constants_match_the_twin():
    try:
        core = importlib.import_module("argstream._tokenizer")
    except ImportError:
        pytest.skip("compiled core not built")
    exposed = dict(getattr(core, "CONSTANTS", {}))
    exposed.update({k: v for k, v in vars(core).items() if CONSTANT.match(k) and isinstance(v, int)})
    if not exposed:
        pytest.skip("the compiled core exposes no constants")
    assert exposed == TWIN_CONSTANTS
    messages = getattr(core, "MESSAGES", None)
    if messages is not None:
        assert dict(messages) == _tokenizer_py.MESSAGES


# -- one selection, and each parser with its own fragment types ----------------------------------


def test_only_the_backend_module_imports_the_compiled_core():
    """``parser`` and ``fragments`` re-export ``_backend``'s choice; they import no compiled module."""
    compiled = re.compile(r"import[^\n]*\b_(fragments|tokenizer|parser|sink|fragment_builder)\b(?!_py)")
    for name in ("parser.py", "fragments.py", "__init__.py", "aggregate.py"):
        text = (SRC / "argstream" / name).read_text()
        assert not compiled.search(text), name


def test_the_pure_parser_builds_the_pure_types():
    out = parser.IncrementalArgParserPy().push('{"a": [1, "x"], "b": {}}')
    leaves = [f.value.value if type(f.value).__name__ == "ArrayItem" else f.value for f in out[:4]]
    kinds = {type(f) for f in out[:4]} | {type(f.value) for f in out[:4]} | {type(v) for v in leaves}
    assert all(k.__module__ in ("argstream._fragments_py",) for k in kinds), kinds
    assert type(out[0]) is _fragments_py.ObjectEntry


def test_fragments_of_both_parsers_compare_equal(make_parser):
    doc = '{"a": [1, "x", null, {"k": 2.5}], "b": {}, "c": ""}'
    ours = make_parser().push(doc)
    twin = parser.IncrementalArgParserPy().push(doc)
    assert ours == twin and twin == ours
    assert [hash(f) for f in ours] == [hash(f) for f in twin]
    assert [fragments.flatten(f) for f in ours] == [fragments.flatten(f) for f in twin]
