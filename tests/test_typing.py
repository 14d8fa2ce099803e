"""The package type-checks: its public API carries type hints and a py.typed marker."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

pytestmark = pytest.mark.slow


def test_package_type_checks_under_mypy(tmp_path) -> None:
    pytest.importorskip("mypy")
    source = ROOT / "src" / "argstream"
    if not source.is_dir():
        pytest.skip("source tree not available")
    result = subprocess.run(
        [sys.executable, "-m", "mypy", str(source), "--ignore-missing-imports", "--cache-dir", str(tmp_path)],
        capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stdout[-4000:]


def test_py_typed_marker_ships() -> None:
    import argstream

    assert (Path(argstream.__file__).parent / "py.typed").is_file()
