"""Running the installed ``argstream`` command as a user would: a subprocess, its three outputs."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import argstream

DATA = Path(argstream.__file__).parent / "data"
DEMO = DATA / "demo.anthropic.jsonl"
POLICY = '[tools.fs_create_file.policy]\nrun = [{ arg = "/path", prefix = "docs/", mode = "unattended" }, { mode = "ask" }]\n'
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(argstream.__file__).parent.parent),
                                                    os.environ.get("PYTHONPATH", "")])}
for _name in ("FORCE_COLOR", "NO_COLOR", "VISUAL", "EDITOR", "COLUMNS", "LINES"):
    ENV.pop(_name, None)


def command() -> list[str]:
    """The ``argstream`` script installed beside this interpreter (``python -m argstream`` without one)."""
    script = shutil.which("argstream", path=str(Path(sys.executable).parent))
    return [script] if script else [sys.executable, "-m", "argstream"]


class Result(NamedTuple):
    status: int
    out: str
    err: str


def run(*args: str, stdin: bytes | None = None, env: dict[str, str] | None = None, cwd: Path | None = None,
        timeout: float = 60) -> Result:
    """``argstream ARGS`` with ``stdin`` as its input (none: ``/dev/null``)."""
    done = subprocess.run([*command(), *args], input=stdin, stdin=subprocess.DEVNULL if stdin is None else None,
                          capture_output=True, env=env if env is not None else ENV, cwd=cwd, timeout=timeout)
    return Result(done.returncode, done.stdout.decode("utf-8"), done.stderr.decode("utf-8"))


def one_error_line(result: Result, status: int = 1) -> str:
    """The single ``argstream: ...`` line on standard error, checked, with the exit status."""
    assert result.status == status, result
    assert "Traceback" not in result.err, result.err
    lines = result.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("argstream: "), result.err
    return lines[0]
