"""The command as a person sees it: in a real pseudo-terminal, and behind a slow pipe.

Each test drives ``python -m argstream`` and waits for output with a generous deadline (a
guard against hanging, not a timing assertion): what matters is the order, e.g. that the
``path`` is on screen while the recording's content has not even been written to the pipe.
"""

from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import argstream

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")

DATA = Path(argstream.__file__).parent / "data"
DEMO = (DATA / "demo.anthropic.jsonl").read_bytes().splitlines(keepends=True)
PATH_DONE = next(i for i, line in enumerate(DEMO) if b'\\"content\\"' in line) + 1  # the lines up to the path's end
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(argstream.__file__).parent.parent),
                                                    os.environ.get("PYTHONPATH", "")])}
ENV.pop("FORCE_COLOR", None)
ENV.pop("NO_COLOR", None)
POLICY = '[tools.fs_create_file.policy]\nrun = [{ arg = "/path", prefix = "docs/", mode = "unattended" }, { mode = "ask" }]\n'


def read_until(fd: int, needle: bytes, seen: bytearray, deadline: float = 30.0) -> bytes:
    """Read ``fd`` into ``seen`` until ``needle`` is in it; what was read so far."""
    end = time.monotonic() + deadline
    while needle not in seen:
        left = end - time.monotonic()
        assert left > 0, f"{needle!r} never came; got {bytes(seen)!r}"
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            try:
                data = os.read(fd, 65536)
            except OSError:  # the pty's other side closed
                data = b""
            assert data, f"{needle!r} never came; output ended with {bytes(seen)!r}"
            seen += data
    return bytes(seen)


def spawn(*args: str, stdin=None, env=ENV) -> tuple[subprocess.Popen, int]:
    """The command with its output (and, without ``stdin``, its input) on a new pseudo-terminal."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "argstream", *args], stdin=stdin if stdin is not None else slave,
                            stdout=slave, stderr=slave, env={**env, "TERM": "xterm-256color", "COLUMNS": "100"})
    os.close(slave)
    return proc, master


def finish(proc: subprocess.Popen, master: int, seen: bytearray) -> bytes:
    """Read the rest of the output until the command exits."""
    end = time.monotonic() + 30
    while time.monotonic() < end:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                data = os.read(master, 65536)
            except OSError:
                data = b""
            if not data:
                break
            seen += data
        elif proc.poll() is not None:
            break
    proc.wait(timeout=30)
    os.close(master)
    return bytes(seen)


def test_path_is_on_screen_before_the_content_is_even_sent() -> None:
    proc, master = spawn("replay", "-", "--no-color", stdin=subprocess.PIPE)
    assert proc.stdin is not None
    proc.stdin.write(b"".join(DEMO[:PATH_DONE]))
    proc.stdin.flush()
    read_until(master, b'path: "src/greet.py"\r\n', bytearray())  # the whole path, while no content was sent
    proc.stdin.write(b"".join(DEMO[PATH_DONE:]))
    proc.stdin.close()
    out = finish(proc, master, bytearray())
    assert proc.returncode == 0
    assert "✓ fs_create_file".encode() in out


@pytest.mark.parametrize(("answer", "expected"), [(b"n", "skipped by user"), (b"y", "approved")])
def test_prompt_comes_before_the_content_and_the_answer_decides(tmp_path, answer, expected) -> None:
    policy = tmp_path / "policy.toml"
    policy.write_text(POLICY)
    proc, master = spawn("demo", "--delay", "0.01", "--policy", str(policy), env={**ENV, "EDITOR": "true"})
    seen = bytearray()
    before = read_until(master, b"Allow? ", seen)
    assert b"greet.py" in before and "✓".encode() not in before and b"main" not in before
    assert b"\x1b[" in before  # a terminal: colour
    read_until(master, b"[y/n/e] ", seen)  # a terminal and an editor: editing is offered
    os.write(master, b"maybe\r")
    read_until(master, b"Answer y or n (or e to edit): ", seen)
    os.write(master, answer + b"\r")
    out = finish(proc, master, seen).decode()
    assert proc.returncode == 0
    assert expected in out
    if answer == b"n":
        assert "cancelled" in out


def test_end_of_input_at_the_prompt_declines_on_a_line_of_its_own(tmp_path) -> None:
    policy = tmp_path / "policy.toml"
    policy.write_text(POLICY)
    result = subprocess.run([sys.executable, "-m", "argstream", "demo", "--delay", "0", "--policy", str(policy)],
                            stdin=subprocess.DEVNULL, capture_output=True, env=ENV, timeout=60)
    out = result.stdout.decode()
    assert "Allow? [y/n] (no answer, end of input: declined)\n" in out  # not a terminal: no editing offered
    assert "✗ fs_create_file: declined: nobody answered the prompt" in out and "skipped by user" not in out
    assert result.stderr == b""


def test_piped_output_has_no_escape_codes() -> None:
    result = subprocess.run([sys.executable, "-m", "argstream", "demo", "--delay", "0"], capture_output=True,
                            env=ENV, timeout=60)
    assert result.returncode == 0
    assert b"\x1b" not in result.stdout
    assert 'path: "src/greet.py"'.encode() in result.stdout
    forced = subprocess.run([sys.executable, "-m", "argstream", "demo", "--delay", "0"], capture_output=True,
                            env={**ENV, "FORCE_COLOR": "1"}, timeout=60)
    assert b"\x1b[" in forced.stdout


@pytest.mark.parametrize(
    ("args", "first", "rest", "expected"),
    [
        (["replay", "-"], b"".join(DEMO[:PATH_DONE]), b"".join(DEMO[PATH_DONE:]), b"greet.py"),
        (["parse", "-"], b'{"path": "src/a.py", "content": "abc', b'def"}', b"ObjectEntry(key='path', value=DONE)"),
        (["parse", "-", "--format", "json"], b'[1, 2, ', b"3]", b'"value": 2'),
    ],
)
def test_a_slow_pipe_gives_output_before_it_closes(args, first, rest, expected) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "argstream", *args, *(["--no-color"] if args[0] == "replay" else [])],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(first)
    proc.stdin.flush()
    read_until(proc.stdout.fileno(), expected, bytearray())
    assert proc.poll() is None  # still waiting for the rest
    proc.stdin.write(rest)
    proc.stdin.close()
    assert proc.wait(timeout=60) == 0


def test_ctrl_c_at_a_prompt_exits_130_on_a_line_of_its_own(tmp_path) -> None:
    policy = tmp_path / "policy.toml"
    policy.write_text(POLICY)
    proc, master = spawn("demo", "--delay", "0.01", "--policy", str(policy))
    seen = bytearray()
    read_until(master, b"Allow? [y/n", seen)
    proc.send_signal(signal.SIGINT)
    out = finish(proc, master, seen).decode()
    assert proc.returncode == 130
    assert out.endswith("\r\nargstream: interrupted\r\n") and "Traceback" not in out
