"""pytest-benchmark setup: collect ``bench_*.py``, make ``src/`` importable, record versions.

Run from the repository root, e.g.::

    ARGSTREAM_PURE=1 PYTHONPATH=src .venv/bin/python -m pytest benchmarks/ \
        --benchmark-min-rounds=3 --benchmark-max-time=0.2
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import environment  # first: puts src/ on the path when argstream is not installed

HERE = Path(__file__).resolve().parent


def pytest_collect_file(file_path: Path, parent: pytest.Collector):
    """Collect ``benchmarks/bench_*.py`` too (``python_files`` stays the project's)."""
    if file_path.suffix == ".py" and file_path.name.startswith("bench_") and HERE in file_path.parents:
        if parent.session.isinitpath(file_path):  # named on the command line: pytest collects it itself
            return None
        return pytest.Module.from_parent(parent, path=file_path)
    return None


def pytest_benchmark_update_machine_info(config: pytest.Config, machine_info: dict) -> None:
    """Store the backends in the JSON output, so a saved run says what it measured."""
    machine_info["argstream_bench"] = environment.versions()


def pytest_report_header(config: pytest.Config) -> list[str]:
    from argstream import parser

    import data

    try:
        import ijson

        ijson_backend = ijson.backend
    except ImportError:
        ijson_backend = "not installed"
    return [
        f"argstream: cython core {'available' if parser.IncrementalArgParserC is not None else 'NOT built'}; "
        f"ijson backend: {ijson_backend}; chunk sizes: {data.CHUNK_SIZES}",
        *data.describe().splitlines(),
    ]


@pytest.fixture(scope="session")
def capi_consumer():
    """``capi_consumer.pyx`` compiled against the core's ``.pxd`` (cached in ``benchmarks/build/``)."""
    import hashlib
    import importlib.util
    import shutil
    import subprocess

    from argstream import parser

    if parser.IncrementalArgParserC is None:
        pytest.skip("compiled core not built (IncrementalArgParserC is None)")
    cython = pytest.importorskip("Cython")
    import argstream

    package_root = Path(argstream.__file__).resolve().parent.parent
    pyx = HERE / "capi_consumer.pyx"
    key = hashlib.sha256()
    for part in (pyx.read_bytes(), *(p.read_bytes() for p in sorted((package_root / "argstream").glob("_*.pxd")))):
        key.update(part)
    key.update(f"{sys.version}{cython.__version__}".encode())
    build = HERE / "build" / f"capi-{key.hexdigest()[:16]}"
    so = next(build.glob("capi_consumer*.so"), None) or next(build.glob("capi_consumer*.pyd"), None)
    if so is None:
        build.mkdir(parents=True, exist_ok=True)
        shutil.copy(pyx, build / pyx.name)
        (build / "setup.py").write_text(
            "from setuptools import setup, Extension\n"
            "from Cython.Build import cythonize\n"
            "setup(ext_modules=cythonize([Extension('capi_consumer', ['capi_consumer.pyx'])],"
            f" include_path=[{str(package_root)!r}]))\n"
        )
        proc = subprocess.run(
            [sys.executable, "setup.py", "build_ext", "--inplace", "-q"], cwd=build, capture_output=True, text=True
        )
        if proc.returncode:
            pytest.skip(f"could not build capi_consumer.pyx: {proc.stderr[-2000:]}")
        so = next(build.glob("capi_consumer*.so"), None) or next(build.glob("capi_consumer*.pyd"))
    spec = importlib.util.spec_from_file_location("capi_consumer", so)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
