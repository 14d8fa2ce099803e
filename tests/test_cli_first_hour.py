"""Issue 22, "A new user's first hour": each finding as the installed ``argstream`` command meets it,
in a subprocess, checking standard output, standard error and the exit status."""

from __future__ import annotations

import fcntl
import importlib.util
import io
import json
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from argstream.cli import main

from _cli_run import DEMO, ENV, POLICY, command, one_error_line, run
from conftest import ROOT, SHARED

def _chunk(delta: dict, finish: str | None = None) -> dict:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    return {"id": "c1", "object": "chat.completion.chunk", "choices": [choice]}


CHAT = [
    _chunk({"role": "assistant", "tool_calls": [
        {"index": 0, "id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": ""}}]}),
    _chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"city": "Pa👋'}}]}),
    _chunk({"tool_calls": [{"index": 0, "function": {"arguments": 'ris"}'}}]}),
    _chunk({}, "tool_calls"),
]


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "policy.toml").write_text(POLICY)
    sse = "".join(f"data: {json.dumps(e, ensure_ascii=False)}\r\n\r\n" for e in CHAT)
    (tmp_path / "chat.sse").write_bytes(sse.encode())
    return tmp_path


# -- 2: "skipped by user" when nobody was asked -------------------------------------------------------


def test_2_a_prompt_nobody_can_answer_says_so(files: Path) -> None:
    result = run("demo", "--delay", "0", "--no-reasoning", "--policy", "policy.toml", cwd=files)  # stdin: /dev/null
    assert result.status == 0 and result.err == ""
    assert ('? fs_create_file(path: "src/greet.py", streaming...)  Allow? [y/n] (no answer, end of input: declined)\n'
            in result.out)
    assert ("✗ fs_create_file: declined: nobody answered the prompt (no terminal to ask on; an unanswered prompt "
            "declines)") in result.out
    assert "skipped by user" not in result.out


def test_2_answers_piped_in_are_still_answers(files: Path) -> None:
    result = run("demo", "--delay", "0", "--no-reasoning", "--policy", "policy.toml", stdin=b"y\n", cwd=files)
    assert (result.status, result.err) == (0, "")
    assert "Allow? [y/n] y\n" in result.out
    assert result.out.endswith("✓ fs_create_file: approved, 3 arguments (not executed)\n— tool_use\n")
    no = run("demo", "--delay", "0", "--no-reasoning", "--policy", "policy.toml", stdin=b"n\n", cwd=files)
    assert re.search(r"\n✗ fs_create_file: skipped by user \(\d+ argument chunks dropped\)\n"
                     r"— (cancelled \(stream cancelled\)|tool_use)\n\Z", no.out)  # cancelled unless it ended first


# -- 3, 4: live and record without a key, or without a server --------------------------------------------


@pytest.mark.skipif(importlib.util.find_spec("anthropic") is None, reason="needs the anthropic SDK")
@pytest.mark.parametrize("subcommand", ["live", "record"])
def test_3_anthropic_without_an_api_key_is_one_line(subcommand: str) -> None:
    env = {k: v for k, v in ENV.items() if k not in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")}
    result = run(subcommand, "--provider", "anthropic", "--model", "m", "hi", env=env)
    assert one_error_line(result) == "argstream: anthropic: no API key: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN)"
    assert result.out == ""


@pytest.mark.skipif(importlib.util.find_spec("ollama") is None, reason="needs the ollama SDK")
@pytest.mark.parametrize("subcommand", ["live", "record"])
def test_4_an_unreachable_server_is_one_line(subcommand: str) -> None:
    import socket

    with socket.socket() as sock:  # a loopback port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    result = run(subcommand, "--provider", "ollama", "--base-url", f"http://127.0.0.1:{port}", "--model", "m", "hi")
    line = one_error_line(result)
    assert line.startswith("argstream: ollama: ") and "refused" in line.lower()


# -- 5: --delay nan, inf, 1e300 -------------------------------------------------------------------


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e300", "-1", "3601", "soon"])
@pytest.mark.parametrize("subcommand", ["demo", "replay"])
def test_5_a_delay_that_is_no_number_of_seconds_is_a_usage_error(files: Path, subcommand: str, value: str) -> None:
    args = [subcommand, *(["chat.sse"] if subcommand == "replay" else []), f"--delay={value}"]
    line = one_error_line(run(*args, cwd=files), status=2)
    assert line == (f"argstream: argument --delay: '{value}' is not a number of seconds from 0 to 3600 "
                    f"(see 'argstream {subcommand} --help')")


# -- 6: a cut recording, and a --provider that does not match the file -------------------------------------


def test_6_a_cut_recording_says_where_the_stream_ended(files: Path) -> None:
    lines = DEMO.read_bytes().splitlines(keepends=True)
    (files / "cut.jsonl").write_bytes(b"".join(lines[:20]))
    result = run("replay", "cut.jsonl", "--no-reasoning", cwd=files)
    assert one_error_line(result) == ("argstream: cut.jsonl: the stream ended after 20 wire events without its final "
                                      "event (cut off?)")
    assert result.out.endswith("— error\n")
    with_policy = run("replay", "cut.jsonl", "--policy", "policy.toml", "--answer", "yes", cwd=files)
    assert one_error_line(with_policy).endswith("ended after 20 wire events without its final event (cut off?)")
    (files / "cut.sse").write_text("".join(f"data: {json.dumps(e)}\n\n" for e in CHAT[:-1]))  # no finish_reason
    assert "without its final event" in one_error_line(run("replay", "cut.sse", cwd=files))


@pytest.mark.parametrize("provider", ["openai_chat", "openai_responses", "gemini", "ollama"])
def test_6_a_provider_that_does_not_match_the_file_is_named(provider: str) -> None:
    result = run("replay", str(DEMO), "--provider", provider)
    assert one_error_line(result) == (f"argstream: {DEMO}: not in the {provider} format: it looks like an anthropic "
                                      "stream (leave out --provider to detect it)")


def test_6_the_providers_own_error_and_stop_reason_are_said(files: Path) -> None:
    events = [{"type": "message_start", "message": {"id": "m", "content": [], "usage": {}}},
              {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}]
    (files / "err.jsonl").write_text("\n".join(json.dumps(e) for e in events))
    line = one_error_line(run("replay", "err.jsonl", cwd=files))
    assert line.startswith("argstream: err.jsonl: the stream reported an error: ") and "overloaded_error" in line


# -- 7: a policy file that is not UTF-8, or starts with a byte-order mark -------------------------------


def test_7_a_binary_policy_file_is_not_utf8_text(files: Path) -> None:
    (files / "binary.toml").write_bytes(bytes(range(256)) * 4)
    line = one_error_line(run("demo", "--policy", "binary.toml", cwd=files))
    assert line.startswith("argstream: binary.toml: not UTF-8 text (is it a binary file?)")


def test_7_a_byte_order_mark_is_accepted(files: Path) -> None:
    (files / "bom.toml").write_bytes(b"\xef\xbb\xbf" + POLICY.encode())
    with_bom = run("demo", "--delay", "0", "--policy", "bom.toml", "--answer", "no", cwd=files)
    plain = run("demo", "--delay", "0", "--policy", "policy.toml", "--answer", "no", cwd=files)
    assert with_bom == plain and plain.status == 0 and plain.err == ""


def test_7_recordings_and_tool_lists_with_a_byte_order_mark_are_read_too(files: Path) -> None:
    (files / "bom.sse").write_bytes(b"\xef\xbb\xbf" + (files / "chat.sse").read_bytes())
    (files / "tools.json").write_bytes(b"\xef\xbb\xbf" + json.dumps({"get_weather": {"type": "object"}}).encode())
    result = run("replay", "bom.sse", "--tools", "tools.json", cwd=files)
    assert (result.status, result.err) == (0, "")
    assert result.out.endswith('  city: "Pa👋ris"\n✓ get_weather\n— tool_use\n')


@pytest.mark.parametrize("text", ["x", "", "run", "[tools"])
def test_7_any_policy_text_is_read_as_toml_never_as_a_file_name(files: Path, text: str) -> None:
    (files / "odd.toml").write_text(text)
    result = run("demo", "--delay", "0", "--policy", "odd.toml", "--answer", "no", cwd=files)
    if result.status:
        line = one_error_line(result)
        assert line.startswith("argstream: odd.toml: ") and "No such file" not in line


# -- 8: replay with the user's own policy ------------------------------------------------------------------


def test_8_replay_with_a_policy_for_the_recordings_own_tools(files: Path) -> None:
    (files / "weather.toml").write_text('[tools.get_weather.policy]\nrun = "unattended"\n')
    result = run("replay", "chat.sse", "--policy", "weather.toml", cwd=files)
    assert (result.status, result.err) == (0, "")
    assert result.out.endswith("✓ get_weather: approved, 1 arguments (not executed)\n— tool_use\n")
    schema = {"type": "object", "properties": {"city": {"type": "string"}}}
    (files / "tools.json").write_text(json.dumps({"get_weather": schema}))
    checked = run("replay", "chat.sse", "--policy", "weather.toml", "--tools", "tools.json", cwd=files)
    assert checked == result
    (files / "typo.toml").write_text('[tools.get_wether.policy]\nrun = "unattended"\n')
    line = one_error_line(run("replay", "chat.sse", "--policy", "typo.toml", "--tools", "tools.json", cwd=files))
    assert line.startswith("argstream: typo.toml: ") and "get_wether" in line


# -- 9: --no-color and TERM=dumb in a 40-column terminal ----------------------------------------------------


def _in_a_terminal(args: list[str], env: dict[str, str], columns: int = 40) -> str:
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    proc = subprocess.Popen([*command(), *args], stdin=slave, stdout=slave, stderr=slave, env=env)
    os.close(slave)
    seen = b""
    end = time.monotonic() + 60
    while time.monotonic() < end:
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                data = os.read(master, 65536)
            except OSError:  # the other side closed
                break
            if not data:
                break
            seen += data
        elif proc.poll() is not None:
            break
    proc.wait(timeout=30)
    os.close(master)
    assert proc.returncode == 0, seen
    return seen.decode("utf-8").replace("\r\n", "\n")


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
@pytest.mark.parametrize(("term", "flag"), [("xterm-256color", "--no-color"), ("dumb", "--delay=0"),
                                            ("xterm-256color", "--delay=0")])
def test_9_lines_wrap_at_the_terminals_width_without_colour_too(term: str, flag: str) -> None:
    from rich.cells import cell_len

    screen = _in_a_terminal(["demo", "--delay", "0", flag], {**ENV, "TERM": term})
    plain = re.sub(r"\x1b\[[0-9;]*m", "", screen)
    widths = [cell_len(line) for line in plain.split("\n")]
    assert max(widths) <= 40 and max(widths) >= 38, (max(widths), plain)
    assert "    │ " in plain  # the long string wraps under its lead
    if flag == "--no-color" or term == "dumb":
        assert "\x1b" not in screen


# -- 10, 13: parse prints the same whatever the chunking; --flat --format json ------------------------------


def _core(backend: str) -> dict[str, str]:
    """The environment that makes the command use ``backend``'s parser."""
    return {**ENV, "ARGSTREAM_PURE": "1"} if backend == "python" else {**ENV, "ARGSTREAM_PURE": "0"}


@pytest.mark.parametrize("extra", [[], ["--flat"], ["--format", "json"], ["--flat", "--format", "json"]])
def test_10_what_parse_prints_before_an_error_does_not_depend_on_the_chunking(backend: str, extra: list[str]) -> None:
    data = b'{"a": 1, "s": "x\\u00e9y"} {"b": 2}'
    results = {size: run("parse", "--chunk-size", str(size), *extra, stdin=data, env=_core(backend))
               for size in (0, 1, 2, 3, 4, 7, 64)}
    first = results[0]
    assert one_error_line(first).startswith("argstream: -: ")
    assert first.out.count("\n") >= 4  # the whole first document's fragments
    def cut_free(out: str) -> list[str]:  # a string arrives in pieces that follow the cuts; nothing else does
        return [line for line in out.splitlines() if "String(" not in line and '"string"' not in line]

    for size, result in results.items():
        assert (result.status, result.err, cut_free(result.out)) == (first.status, first.err, cut_free(first.out)), size


def test_13_flat_json_output_keeps_every_value(backend: str) -> None:
    data = b'{"a": "xy", "b": [1], "c": {}}'
    flat = run("parse", "--flat", "--format", "json", stdin=data, env=_core(backend))
    nested = run("parse", "--format", "json", stdin=data, env=_core(backend))
    assert flat == nested and flat.status == 0 and flat.err == ""
    shown = [json.loads(line) for line in flat.out.splitlines()]
    assert shown[:3] == [{"path": ["a"], "fragment": {"type": "string", "text": "xy"}},
                         {"path": ["a"], "fragment": {"type": "done"}},
                         {"path": ["b", 0], "fragment": {"type": "scalar", "value": 1}}]
    assert {"path": ["c"], "fragment": {"type": "empty", "kind": "object"}} in shown


def test_parse_json_escapes_invisible_characters() -> None:
    data = json.dumps({"p": "src/a\u200b\u2028\U000e0041"}).encode()
    result = run("parse", "--format", "json", stdin=data)
    assert result.status == 0
    line = result.out.splitlines()[0]
    assert "\\u200b\\u2028\\udb40\\udc41" in line
    assert json.loads(line)["fragment"]["text"] == "src/a\u200b\u2028\U000e0041"


# -- 12: bytes through the wire decoder, from the command ----------------------------------------------------


def test_12_an_sse_recording_with_crlf_and_non_ascii_text_replays(files: Path) -> None:
    result = run("replay", "-", "--no-color", stdin=(files / "chat.sse").read_bytes())
    assert (result.status, result.err) == (0, "")
    assert result.out == '▶ get_weather  call_1\n  city: "Pa👋ris"\n✓ get_weather\n— tool_use\n'


# -- 14: tomli is declared where it is needed ---------------------------------------------------------------


def test_14_tomli_is_a_runtime_dependency_on_python_310() -> None:
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert any(re.fullmatch(r"""tomli>=2; python_version < ['"]3\.11['"]""", d) for d in project["dependencies"])


# -- 15, 16: broken streams end in one line, never a traceback ------------------------------------------------


def _recordings() -> list[Path]:
    folders = [SHARED / "recordings", SHARED / "recordings-more"]
    return sorted(p for folder in folders if folder.is_dir() for p in folder.rglob("*")
                  if p.is_file() and p.suffix in (".jsonl", ".txt", ".sse", ".ndjson") and "LICENSE" not in p.name)


@pytest.mark.skipif(not _recordings(), reason="shared recordings absent")
def test_15_every_recording_replays_to_a_transcript_or_one_error_line(monkeypatch) -> None:
    for path in _recordings():
        out, err = io.StringIO(), io.StringIO()
        monkeypatch.setattr(sys, "stdout", out)
        monkeypatch.setattr(sys, "stderr", err)
        status = main(["replay", str(path), "--no-color"])  # an uncaught exception fails the test here
        assert status in (0, 1), path
        if status:
            said = err.getvalue()
            assert len(said.splitlines()) == 1 and said.startswith("argstream: "), (path, said)
        else:
            assert err.getvalue() == "", path


@pytest.mark.skipif(not (SHARED / "recordings-more" / "anthropic").is_dir(), reason="shared recordings absent")
def test_15_a_spliced_stream_is_one_line_from_the_command() -> None:
    spliced = sorted((SHARED / "recordings-more" / "anthropic").glob("*spliced-message-start*"))
    assert spliced
    line = one_error_line(run("replay", str(spliced[0]), "--no-color"))
    assert "not a valid anthropic stream at its wire event" in line and "spliced" in line


def test_16_a_stream_of_the_wrong_shape_for_the_named_provider_says_so(files: Path) -> None:
    langchain = [{"content": "hi", "additional_kwargs": {}, "type": "AIMessageChunk"},
                 {"content": "", "tool_call_chunks": [{"name": "get_weather", "args": "{}", "index": 0}]}]
    (files / "lc.jsonl").write_text("\n".join(json.dumps(e) for e in langchain))
    detected = run("replay", "lc.jsonl", cwd=files)
    assert one_error_line(detected) == "argstream: lc.jsonl: not a known provider's stream; name it with --provider"
    named = run("replay", "lc.jsonl", "--provider", "openai_chat", cwd=files)
    assert one_error_line(named) == ("argstream: lc.jsonl: not in the openai_chat format: its first event "
                                     "(additional_kwargs, content, type) is no known provider's")


# -- 11: a pure build is said once, not warned about on every command -------------------------------------


def test_11_a_pure_install_runs_without_a_warning_and_says_its_core(tmp_path: Path) -> None:
    """A copy of the package with no compiled module on disk, as ``ARGSTREAM_PURE_BUILD=1`` installs it."""
    import shutil

    import argstream

    shutil.copytree(Path(argstream.__file__).parent, tmp_path / "argstream",
                    ignore=shutil.ignore_patterns("*.so", "*.pyd", "*.c", "*.html", "__pycache__"))
    env = {**ENV, "PYTHONPATH": str(tmp_path)}
    env.pop("ARGSTREAM_REQUIRE_EXTENSION", None)
    version = subprocess.run([sys.executable, "-m", "argstream", "--version"], capture_output=True, text=True,
                             env=env, timeout=60)
    assert (version.returncode, version.stderr) == (0, "")
    assert version.stdout.endswith("(python core)\n")
    demo = subprocess.run([sys.executable, "-m", "argstream", "demo", "--delay", "0"], capture_output=True, text=True,
                          env=env, timeout=60)
    assert (demo.returncode, demo.stderr) == (0, "") and demo.stdout.endswith("— tool_use\n")
