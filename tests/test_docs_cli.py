"""docs/cli.md cannot drift: each ``console`` example is run and must print what the page shows.

A ``$`` line is a shell command (``argstream`` runs this checkout's ``python -m argstream``);
the lines after it are its output (standard error included), and a closing ``[N]`` line is its
exit status (0 when absent). The page's ``toml`` block is the ``policy.toml`` the examples use.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

import argstream

DOC = Path(__file__).resolve().parent.parent / "docs" / "cli.md"
TEXT = DOC.read_text(encoding="utf-8")
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(argstream.__file__).parent.parent),
                                                    os.environ.get("PYTHONPATH", "")])}
for _name in ("FORCE_COLOR", "NO_COLOR", "VISUAL", "EDITOR"):
    ENV.pop(_name, None)


def _examples() -> list[tuple[str, str, int]]:
    out = []
    for block in re.findall(r"^```console\n(.*?)^```", TEXT, flags=re.S | re.M):
        for session in re.split(r"^(?=\$ )", block, flags=re.M):
            if not session.strip():
                continue
            command, _, output = session[2:].partition("\n")
            status = 0
            match = re.search(r"^\[(\d+)\]\n\Z", output, flags=re.M)
            if match:
                status, output = int(match.group(1)), output[: match.start()]
            out.append((command, output, status))
    return out


@pytest.mark.parametrize(("command", "output", "status"), _examples(), ids=lambda v: v if isinstance(v, str) and v.startswith(("echo", "argstream")) else "")
def test_console_example(tmp_path, command: str, output: str, status: int) -> None:
    (tmp_path / "policy.toml").write_text(re.findall(r"^```toml\n(.*?)^```", TEXT, flags=re.S | re.M)[0])
    argstream_cmd = f"{shlex.quote(sys.executable)} -m argstream"
    shell = re.sub(r"(^|\| )argstream ", lambda m: f"{m.group(1)}{argstream_cmd} ", command)
    result = subprocess.run(["bash", "-c", shell], cwd=tmp_path, env=ENV, capture_output=True, timeout=60,
                            stdin=subprocess.DEVNULL)
    shown = (result.stdout + result.stderr).decode()
    assert (shown, result.returncode) == (output, status)
