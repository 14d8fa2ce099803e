"""What ships: a self-contained sdist, wheels without generated C or debug info, no silent pure wheel.

The build tests make the sdist from the source tree, then wheels from the unpacked sdist (as pip
does from PyPI): the compiled one, a deliberate pure one, and one whose compiler fails.
"""

from __future__ import annotations

import importlib.machinery
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

import argstream
from conftest import ROOT

PACKAGE = Path(argstream.__file__).resolve().parent

WARNING_PROBE = """
import warnings
warnings.simplefilter("always")
with warnings.catch_warnings(record=True) as caught:
    import argstream
print(argstream.BACKEND)
for w in caught:
    print(w.category.__name__, w.message)
"""


def _import_copy(tmp_path: Path, extension: bytes | None) -> str:
    """Import a copy of the package without its compiled core (or with ``extension`` as its bytes)."""
    copy = tmp_path / "argstream"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("_tokenizer.*.so", "_tokenizer.*.pyd", "__pycache__"))
    if extension is not None:
        (copy / f"_tokenizer{importlib.machinery.EXTENSION_SUFFIXES[0]}").write_bytes(extension)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARGSTREAM_")}
    env["PYTHONPATH"] = str(tmp_path)
    done = subprocess.run([sys.executable, "-c", WARNING_PROBE], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.skipif(sys.implementation.name != "cpython", reason="the warning is for CPython only")
def test_import_warning_says_the_core_was_not_built(tmp_path: Path) -> None:
    out = _import_copy(tmp_path, None)
    assert out.startswith("python\nRuntimeWarning argstream: the compiled extension was not built")
    assert "circular" not in out


@pytest.mark.skipif(sys.implementation.name != "cpython", reason="the warning is for CPython only")
def test_import_warning_names_the_loader_error(tmp_path: Path) -> None:
    out = _import_copy(tmp_path, b"crafted: not a shared object")
    assert out.startswith("python\nRuntimeWarning argstream: the compiled extension is installed but does not load")
    assert "ImportError" in out
    assert "circular" not in out


# -- building -------------------------------------------------------------------------------------

CPYTHON_ONLY = pytest.mark.skipif(sys.implementation.name != "cpython", reason="the compiled core is for CPython")


def build_test(fn):
    """Marks of a test that builds from the source tree: slow, and skipped where there is none to build."""
    for mark in (
        pytest.mark.slow,
        pytest.mark.skipif(not (ROOT / "setup.py").is_file(), reason="no source tree (tests of an installed copy)"),
        pytest.mark.skipif(bool(os.environ.get("CIBUILDWHEEL")), reason="cibuildwheel builds and inspects the wheels"),
    ):
        fn = mark(fn)
    return fn


def _build(args: list[str], source: Path, out: Path, **env: str) -> subprocess.CompletedProcess:
    pytest.importorskip("build")
    pytest.importorskip("Cython")
    return subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), *args, str(source)],
        capture_output=True, text=True, env=dict(os.environ, **env), timeout=900,
    )


@pytest.fixture(scope="module")
def sdist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("sdist")
    done = _build(["--sdist"], ROOT, out)
    assert done.returncode == 0, done.stderr[-4000:]
    return next(out.glob("*.tar.gz"))


@pytest.fixture
def unpacked(sdist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh copy of the unpacked sdist (a build leaves objects that a later build would reuse)."""
    where = tmp_path_factory.mktemp("unpacked")
    with tarfile.open(sdist) as tar:
        tar.extractall(where, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
    return next(where.iterdir())


def _sdist_names(sdist: Path) -> set[str]:
    with tarfile.open(sdist) as tar:
        return {name.split("/", 1)[1] for name in tar.getnames() if "/" in name}


@build_test
def test_sdist_is_self_contained(sdist: Path) -> None:
    names = _sdist_names(sdist)
    for needed in ("tests/conftest.py", "tests/_support.py", "tests/loopback.py", "tests/cython_api/consumer.pyx",
                   "tests/recordings/generate.py", "benchmarks/report.py", "benchmarks/quick.py", "docs/compat.md",
                   "ci/gen_conformance_table.py", ".ci/run", "setup.py", "pyproject.toml", "MANIFEST.in",
                   "src/argstream/_tokenizer.pyx", "src/argstream/_tokenizer.pxd", "src/argstream/py.typed"):
        assert needed in names, needed
    tracked = {p.relative_to(ROOT).as_posix() for p in (ROOT / "tests").rglob("*") if p.is_file()}
    assert {n for n in tracked if "__pycache__" not in n and not n.endswith((".c", ".so", ".pyd"))} <= names
    assert not [n for n in names if n.endswith((".c", ".so", ".pyd", ".pyc")) or "__pycache__" in n]


@build_test
@CPYTHON_ONLY
def test_wheel_from_the_sdist_is_compiled_and_clean(unpacked: Path, tmp_path: Path) -> None:
    done = _build(["--wheel"], unpacked, tmp_path)
    assert done.returncode == 0, done.stderr[-4000:]
    (wheel,) = tmp_path.glob("*.whl")
    assert not wheel.name.endswith("-none-any.whl")
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
        pyx = sorted(p.relative_to(unpacked / "src") for p in (unpacked / "src").rglob("*.pyx"))
        assert pyx, "the sdist carries the core's .pyx"
        for source in pyx:
            binary = source.with_name(source.stem + suffix).as_posix()
            assert binary in names, binary
            if (unpacked / "src" / source.with_suffix(".pxd")).exists():  # the C API other Cython code cimports
                assert source.with_suffix(".pxd").as_posix() in names
            if sys.platform != "win32":
                data = zf.read(binary)
                assert b".debug_info" not in data and b"__debug_info" not in data, f"{binary} carries debug info"
        assert "argstream/py.typed" in names
        assert not [n for n in names if n.endswith((".c", ".pyx", ".html"))]


@build_test
def test_pure_build_is_one_wheel_for_every_platform(unpacked: Path, tmp_path: Path) -> None:
    done = _build(["--wheel"], unpacked, tmp_path, ARGSTREAM_PURE_BUILD="1")
    assert done.returncode == 0, done.stderr[-4000:]
    (wheel,) = tmp_path.glob("*.whl")
    assert wheel.name.endswith("-py3-none-any.whl")
    with zipfile.ZipFile(wheel) as zf:
        assert not [n for n in zf.namelist() if n.endswith((".so", ".pyd", ".c", ".pyx"))]


@build_test
@CPYTHON_ONLY
@pytest.mark.skipif(sys.platform == "win32", reason="MSVC does not read CC")
def test_compiler_failure_fails_the_build_and_says_so(unpacked: Path, tmp_path: Path) -> None:
    done = _build(["--wheel"], unpacked, tmp_path, CC="/bin/false", LDSHARED="/bin/false")
    assert done.returncode != 0
    output = done.stdout + done.stderr
    assert "argstream: the compiled core could not be built" in output
    assert "ARGSTREAM_PURE_BUILD=1" in output
    assert not list(tmp_path.glob("*.whl"))
