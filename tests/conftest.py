"""Shared fixtures: every core test runs over both backends (multidict/aiohttp style)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from argstream import parser as _parser

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
RECORDINGS = SHARED / "recordings"
CONFORMANCE = SHARED / "conformance" / "JSONTestSuite" / "test_parsing"
REQUIRE_EXTENSION = os.environ.get("ARGSTREAM_REQUIRE_EXTENSION", "") not in ("", "0")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--no-c-extensions", action="store_true", default=False, help="run the pure backend only")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "c_extension: needs the compiled core")


def _parser_classes(config: pytest.Config) -> dict[str, object]:
    classes: dict[str, object] = {"python": _parser.IncrementalArgParserPy}
    if not config.getoption("--no-c-extensions"):
        classes["cython"] = _parser.IncrementalArgParserC
    return classes


@pytest.fixture(params=["cython", "python"])
def backend(request: pytest.FixtureRequest) -> str:
    """The backend name; skips (or fails under ARGSTREAM_REQUIRE_EXTENSION) when it is not available."""
    name = request.param
    cls = _parser_classes(request.config).get(name)
    if cls is None:
        if name == "cython" and REQUIRE_EXTENSION:
            pytest.fail("ARGSTREAM_REQUIRE_EXTENSION is set but the compiled core is not in use")
        pytest.skip(f"{name} backend not available")
    return name


@pytest.fixture
def make_parser(backend: str, request: pytest.FixtureRequest):
    """A factory for ``IncrementalArgParser`` of the backend under test: ``make_parser(flat=True)``."""
    return _parser_classes(request.config)[backend]


@pytest.fixture
def fragment_types(backend: str):
    """The fragment classes the backend's parser builds: each parser returns its own (they compare equal)."""
    from types import SimpleNamespace

    from argstream import _backend, _fragments_py

    module = _backend.fragments_c if backend == "cython" else _fragments_py
    return SimpleNamespace(**{n: getattr(module, n, getattr(_fragments_py, n)) for n in _fragments_py.__all__})


def _hypothesis_profiles() -> None:
    try:
        from hypothesis import HealthCheck, settings
    except ImportError:  # hypothesis is a test dependency; modules that need it import it themselves
        return
    common = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    settings.register_profile("dev", max_examples=100, **common)
    settings.register_profile("ci", max_examples=60, derandomize=True, **common)
    settings.register_profile("thorough", max_examples=2000, **common)
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


_hypothesis_profiles()
