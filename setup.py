"""Builds the compiled core; everything else is in pyproject.toml.

``pip install .`` cythonizes the core's modules, ``src/argstream/_*.pyx``. If compiling
fails, the package is built pure (the twin runs) unless
``ARGSTREAM_REQUIRE_EXTENSION=1`` (implied by ``CIBUILDWHEEL=1``) makes that
fatal. ``ARGSTREAM_CYTHON_ANNOTATE=1`` writes the HTML annotation;
``ARGSTREAM_CYTHON_TRACE=1`` enables line tracing for coverage.
"""

import os
import platform
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


def _flag(name: str) -> bool:
    return os.environ.get(name, "") not in ("", "0")


REQUIRE = _flag("ARGSTREAM_REQUIRE_EXTENSION") or _flag("CIBUILDWHEEL")
PURE_BUILD = _flag("ARGSTREAM_PURE_BUILD") or platform.python_implementation() != "CPython"


class BuildFailed(Exception):
    pass


class optional_build_ext(build_ext):
    """Turns a compiler failure into a pure build, unless the extension is required."""

    def run(self):
        try:
            super().run()
        except Exception as exc:  # noqa: BLE001 - any failure of the toolchain
            self._failed(exc)

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception as exc:  # noqa: BLE001
            self._failed(exc)

    def _failed(self, exc):
        if REQUIRE:
            raise
        banner = "*" * 75
        print(f"{banner}\nargstream: the compiled core could not be built ({exc});\n"
              f"installing the pure-Python twin instead (slower, same behaviour).\n{banner}", file=sys.stderr)


def extensions():
    if PURE_BUILD:
        return []
    try:
        from Cython.Build import cythonize
    except ImportError:
        if REQUIRE:
            raise
        return []
    trace = _flag("ARGSTREAM_CYTHON_TRACE")
    macros = [("CYTHON_TRACE", "1"), ("CYTHON_TRACE_NOGIL", "1")] if trace else []
    directives = {"language_level": "3", "embedsignature": True}
    if trace:
        directives.update(linetrace=True, binding=True)
    exts = [
        Extension(f"argstream.{path.stem}", [str(path)], define_macros=macros)
        for path in sorted(Path("src/argstream").glob("_*.pyx"))
    ]
    return cythonize(
        exts,
        compiler_directives=directives,
        annotate=_flag("ARGSTREAM_CYTHON_ANNOTATE"),
        include_path=["src"],
    )


setup(ext_modules=extensions(), cmdclass={"build_ext": optional_build_ext})
