"""Builds the compiled core; everything else is in pyproject.toml.

``pip install .`` cythonizes every ``src/argstream/**/*.pyx`` (so splitting the
core into more modules needs no change here) and compiles it without debug
information. On CPython a failure to compile fails the install, with a message
saying what failed and how to install the pure-Python twin on purpose
(``ARGSTREAM_PURE_BUILD=1``): pip shows a build's output only when it fails, so
a silent fallback would ship a slower package that nobody was told about, under
a platform tag it does not need. A pure build (that variable, or an interpreter
other than CPython) has no extension and makes a ``py3-none-any`` wheel.

``ARGSTREAM_CYTHON_ANNOTATE=1`` writes the HTML annotation;
``ARGSTREAM_CYTHON_TRACE=1`` enables line tracing for coverage;
``ARGSTREAM_DEBUG_BUILD=1`` keeps the compiler's debug information.
"""

import os
import platform
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

SRC = Path("src")
PURE_HINT = "set ARGSTREAM_PURE_BUILD=1 to install the pure-Python twin instead (slower, same behaviour)"


def _flag(name: str) -> bool:
    return os.environ.get(name, "") not in ("", "0")


PURE_BUILD = _flag("ARGSTREAM_PURE_BUILD") or platform.python_implementation() != "CPython"


def _fail(what: str, exc: BaseException) -> SystemExit:
    banner = "*" * 75
    return SystemExit(f"{banner}\nargstream: {what}: {exc}\nThe compiled core is required by default; "
                      f"{PURE_HINT}.\n{banner}")


class required_build_ext(build_ext):
    """Compiles without debug information (gcc/clang), and names a compile failure loudly."""

    def build_extensions(self):
        if self.compiler.compiler_type == "unix" and not _flag("ARGSTREAM_DEBUG_BUILD"):
            for ext in self.extensions:
                ext.extra_compile_args = [*ext.extra_compile_args, "-g0"]
                if sys.platform.startswith("linux"):
                    ext.extra_link_args = [*ext.extra_link_args, "-Wl,--strip-all"]
        try:
            super().build_extensions()
        except Exception as exc:  # noqa: BLE001 - any failure of the toolchain
            raise _fail("the compiled core could not be built", exc) from exc


def extensions():
    if PURE_BUILD:
        return []
    try:
        from Cython.Build import cythonize
    except ImportError as exc:
        raise _fail("Cython is not installed, so the compiled core cannot be built", exc) from exc
    trace = _flag("ARGSTREAM_CYTHON_TRACE")
    macros = [("CYTHON_TRACE", "1"), ("CYTHON_TRACE_NOGIL", "1")] if trace else []
    directives = {"language_level": "3", "embedsignature": True}
    if trace:
        directives.update(linetrace=True, binding=True)
    exts = [
        Extension(".".join(pyx.relative_to(SRC).with_suffix("").parts), [pyx.as_posix()], define_macros=macros)
        for pyx in sorted(SRC.glob("argstream/**/*.pyx"))
    ]
    return cythonize(
        exts,
        compiler_directives=directives,
        annotate=_flag("ARGSTREAM_CYTHON_ANNOTATE"),
        include_path=[str(SRC)],
    )


setup(ext_modules=extensions(), cmdclass={"build_ext": required_build_ext})
