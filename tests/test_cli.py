"""The command line: demo, replay, parse."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import argstream

from argstream.cli import main, read_wire

from conftest import RECORDINGS


def test_demo_renders_the_shipped_stream(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--delay", "0", "--no-color"]) == 0
    out = capsys.readouterr().out
    assert "▶ fs_create_file  toolu_demo\n  path: \"src/greet.py\"\n  content: \"" in out
    assert '    │     """Say hello — politely, with a wave 👋 and a "quote"."""\n' in out
    assert out.endswith("✓ fs_create_file\n— tool_use\n")


def test_demo_as_a_command() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "argstream", "demo", "--delay", "0"], capture_output=True, text=True, check=True
    )
    assert "✓ fs_create_file" in result.stdout


def test_replay_reads_sse_and_json_lines(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    events = [
        {"id": "c1", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [
            {"index": 0, "id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": ""}}]},
            "finish_reason": None}]},
        {"id": "c1", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "function": {"arguments": '{"city": "Par'}}]}, "finish_reason": None}]},
        {"id": "c1", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "function": {"arguments": 'is"}'}}]}, "finish_reason": None}]},
        {"id": "c1", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    ]
    sse = "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"
    assert read_wire(sse) == events
    path = tmp_path / "stream.sse"
    path.write_text(sse)
    assert main(["replay", str(path), "--no-color"]) == 0
    assert "  city: \"Paris\"\n✓ get_weather\n— tool_use\n" in capsys.readouterr().out


def test_replay_fails_on_a_cut_stream(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    events = [
        {"type": "message_start", "message": {"id": "m", "content": [], "usage": {}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "t", "name": "f", "input": {}}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": '{"a": "b'}},
    ]
    path = tmp_path / "cut.jsonl"
    path.write_text("\n".join(json.dumps(e) for e in events))
    assert main(["replay", str(path), "--no-color"]) == 1
    out = capsys.readouterr().out
    assert "✓" not in out
    assert out.endswith("— error\n")


@pytest.mark.skipif(not RECORDINGS.is_dir(), reason="shared recordings absent")
def test_replay_every_recording(capsys: pytest.CaptureFixture[str]) -> None:
    expected = json.loads((RECORDINGS / "expected.json").read_text())
    for name, info in expected.items():
        if name.endswith("tool-call-step1.chunks.txt"):
            continue  # the Interactions API format has no adapter of its own in replay's detection
        main(["replay", str(RECORDINGS / name), "--no-color"])
        out = capsys.readouterr().out
        for call in info["tool_calls"]:
            assert f"▶ {call['name']}" in out, name


POLICY = """
[tools.fs_create_file.policy]
run = [
  { arg = "/path", prefix = "docs/", mode = "unattended" },
  { mode = "ask" },
]
"""


def test_demo_with_a_policy_prompts_before_content_and_cancels_on_no(tmp_path, capsys) -> None:
    policy = tmp_path / "policy.toml"
    policy.write_text(POLICY)
    assert main(["demo", "--delay", "0", "--no-color", "--policy", str(policy), "--answer", "no"]) == 0
    out = capsys.readouterr().out
    assert "  path: \"src/greet.py\"\n  policy: ask (at argument chunk 4)\n" in out
    assert '? fs_create_file(path: "src/greet.py", streaming...)  Allow? [y/n] n\n' in out
    assert "content:" not in out  # declined before the content streamed; the stream was cancelled
    assert out.endswith("✗ fs_create_file: skipped by user (0 argument chunks dropped)\n— cancelled (stream cancelled)\n")


def test_demo_with_a_policy_runs_to_the_end_on_yes(tmp_path, capsys) -> None:
    policy = tmp_path / "policy.toml"
    policy.write_text(POLICY.replace('"docs/"', '"src/"'))
    assert main(["demo", "--delay", "0", "--no-color", "--policy", str(policy), "--answer", "no"]) == 0
    out = capsys.readouterr().out
    assert "policy: unattended" in out and "Allow?" not in out
    assert out.endswith("✓ fs_create_file: approved, 3 arguments (not executed)\n— tool_use\n")


# -- errors: one line on stderr, status 2 for usage, 1 for input -------------------------------

DEMO_LINES = (Path(argstream.__file__).parent / "data" / "demo.anthropic.jsonl").read_bytes().splitlines(keepends=True)


ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(argstream.__file__).parent.parent),
                                                    os.environ.get("PYTHONPATH", "")])}


def run(*args: str, stdin: bytes | None = None, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "argstream", *args], input=stdin, capture_output=True, timeout=60,
                          env=ENV, **kw)


@pytest.mark.parametrize(
    ("args", "stdin", "status", "message"),
    [
        (["replay", "/nonexistent/rec.jsonl"], None, 1, "/nonexistent/rec.jsonl: no such file"),
        (["replay", "."], None, 1, ".: is a directory"),
        (["replay", sys.executable], None, 1, "not UTF-8 text"),
        (["replay", "-"], b"hello\n", 1, "-:1: not a wire event"),
        (["replay", "-"], b"[1, 2]\n", 1, "-:1: a wire event is a JSON object, not list"),
        (["replay", "-"], b"", 1, "-: no wire events (an empty recording)"),
        (["replay", "-", "--policy", "policy.toml"], b"", 1, "no wire events"),
        (["replay", "-"], b'{"hello": 1}\n', 1, "not a known provider's stream; name it with --provider"),
        (["parse", "-"], b'{"a": [1,]}', 1, "Illegal trailing comma before end of array: line 1 column 10 (char 9)"),
        (["parse", "-"], b'{"a": "\x1b[2J', 1, "line 1 column 8"),
        (["demo", "--policy", "missing.toml"], None, 1, "missing.toml: no such file"),
        (["demo", "--policy", "bad.toml"], None, 1, "bad.toml: policy configuration: invalid TOML"),
        (["demo", "--policy", "typo.toml"], None, 1, "typo.toml:"),
        (["demo", "--policy", "policy.toml", "--tools", "missing.json"], None, 1, "missing.json: no such file"),
        (["demo", "--policy", "policy.toml", "--tools", "bad.toml"], None, 1, "bad.toml: not a JSON tool list"),
        (["demo", "--delay", "-1"], None, 2, "argument --delay: '-1' is not a number of seconds"),
        (["demo", "--delay", "soon"], None, 2, "argument --delay: 'soon' is not a number of seconds"),
        (["parse", "--max-depth", "0"], b"{}", 2, "argument --max-depth: '0' is not a depth of 1 or more"),
        (["parse", "--chunk-size", "-3"], b"{}", 2, "argument --chunk-size"),
        (["demo", "--style", "yaml"], None, 2, "argument --style: invalid choice: 'yaml'"),
        (["bogus"], None, 2, "invalid choice: 'bogus'"),
        ([], None, 2, "the following arguments are required: command"),
        (["live", "--provider", "anthropic", "hello"], None, 2, "the following arguments are required: --model"),
    ],
)
def test_every_error_is_one_line_with_its_status(tmp_path, args, stdin, status, message) -> None:
    (tmp_path / "policy.toml").write_text(POLICY)
    (tmp_path / "bad.toml").write_text("x = [")
    (tmp_path / "typo.toml").write_text('[tools.fs_create_file.policy]\nrun = [{ arg = "/pth", prefix = "a", mode = "ask" }]')
    result = run(*args, stdin=stdin if stdin is not None else b"", cwd=tmp_path)
    assert result.returncode == status, result.stderr
    err = result.stderr.decode()
    assert err.count("\n") == 1 and err.startswith("argstream: ") and "Traceback" not in err, err
    assert message in err
    assert "\x1b" not in err


def test_version() -> None:
    result = run("--version")
    assert result.returncode == 0
    assert result.stdout.decode() == f"argstream {argstream.__version__} ({argstream.BACKEND} core)\n"


def test_ctrl_c_exits_130_without_a_traceback() -> None:
    proc = subprocess.Popen([sys.executable, "-m", "argstream", "replay", "-"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(DEMO_LINES[0] + DEMO_LINES[1] + DEMO_LINES[2])
    proc.stdin.flush()
    assert os.read(proc.stdout.fileno(), 100).startswith("┊".encode())  # running: the first thinking is drawn
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130
    assert err.decode() == "argstream: interrupted\n"


def test_a_closed_pipe_ends_quietly(tmp_path) -> None:
    big = tmp_path / "big.json"
    big.write_text(json.dumps({"content": "x" * 2_000_000}))
    proc = subprocess.Popen([sys.executable, "-m", "argstream", "parse", "--chunk-size", "4", str(big)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
    assert proc.stdout is not None
    assert proc.stdout.readline().startswith(b"ObjectEntry(")
    proc.stdout.close()  # like `| head -1`
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 141
    assert err == b""


# -- parse ---------------------------------------------------------------------------------------


def _stdin(monkeypatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


def test_parse_format_json_is_one_object_a_line(monkeypatch, capsys) -> None:
    _stdin(monkeypatch, b'{"a": "1", "b": [1, {}], "c": ""}')
    assert main(["parse", "--format", "json", "--chunk-size", "3"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines[0] == {"path": ["a"], "fragment": {"type": "string", "text": "1"}}
    assert {"path": ["b", 0], "fragment": {"type": "scalar", "value": 1}} in lines
    assert {"path": ["b", 1], "fragment": {"type": "empty", "kind": "object"}} in lines
    assert {"path": ["c"], "fragment": {"type": "empty", "kind": "string"}} in lines
    assert lines[-1] == {"path": [], "fragment": {"type": "done"}}


def _rebuild(lines: list[dict]) -> Any:
    """The value that ``parse --format json`` lines describe."""
    from argstream import DONE, FragmentAggregator, nest
    from argstream import Empty as E
    from argstream import Scalar as S
    from argstream import String as T

    agg = FragmentAggregator()
    for line in lines:
        shown = line["fragment"]
        leaf = {"string": lambda: T(shown["text"]), "scalar": lambda: S(shown["value"]),
                "empty": lambda: E(shown["kind"]), "done": lambda: DONE}[shown["type"]]()
        agg.push(nest(tuple(line["path"]), leaf))
    return agg.value


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=40)
@given(value=JSON_VALUES, size=st.integers(0, 9))
def test_parse_format_json_lines_rebuild_the_document(value, size) -> None:
    from unittest import mock

    out = io.StringIO()
    data = json.dumps(value, ensure_ascii=False).encode()
    with mock.patch.object(sys, "stdin", io.TextIOWrapper(io.BytesIO(data))), mock.patch.object(sys, "stdout", out):
        assert main(["parse", "--format", "json", "--chunk-size", str(size)]) == 0
    lines = out.getvalue().split("\n")[:-1]
    assert not any(unicodedata.category(c) == "Cc" or c in "\u202e\u2028" for line in lines for c in line)
    assert _rebuild([json.loads(line) for line in lines]) == value


def test_parse_reads_a_file_and_keeps_repr(tmp_path, capsys) -> None:
    path = tmp_path / "a.json"
    path.write_text('{"n": 1}')
    assert main(["parse", str(path)]) == 0
    assert capsys.readouterr().out == "ObjectEntry(key='n', value=Scalar(value=1))\nObjectEntry(key='n', value=DONE)\nDONE\n"


# -- display styles and --tools ------------------------------------------------------------------


def test_demo_in_each_style(capsys) -> None:
    assert main(["demo", "--delay", "0", "--no-color", "--style", "json"]) == 0
    out = capsys.readouterr().out
    assert '  {\n    "path": "src/greet.py",\n    "content": "\\"\\"\\"A tiny greeter' in out
    assert main(["demo", "--delay", "0", "--no-color", "--style", "off", "--no-reasoning"]) == 0
    out = capsys.readouterr().out
    assert out == "I'll create the greeter now.\n▶ fs_create_file  toolu_demo\n✓ fs_create_file\n— tool_use\n"


def test_policy_typos_are_load_time_errors_against_the_given_tools(tmp_path, capsys) -> None:
    policy = tmp_path / "policy.toml"
    policy.write_text('[tools.fs_create_file.policy]\nrun = [{ arg = "/content", prefix = "x", mode = "ask" }, { mode = "ask" }]')
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps({"fs_create_file": {"type": "object", "properties": {"path": {"type": "string"}}}}))
    assert main(["demo", "--delay", "0", "--policy", str(policy), "--tools", str(tools), "--answer", "yes"]) == 1
    assert "/content" in capsys.readouterr().err
    assert main(["demo", "--delay", "0", "--no-color", "--policy", str(policy), "--answer", "yes"]) == 0


def test_replay_with_a_policy_reads_prompt_answers_from_the_terminal_not_the_data(tmp_path, capsys, monkeypatch) -> None:
    policy = tmp_path / "policy.toml"
    policy.write_text(POLICY)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"".join(DEMO_LINES))))
    real_open = open

    def no_tty(name, *args, **kwargs):
        if name == "/dev/tty":
            raise OSError("no tty")
        return real_open(name, *args, **kwargs)

    monkeypatch.setattr("argstream.cli.open", no_tty, raising=False)
    assert main(["replay", "-", "--no-color", "--policy", str(policy)]) == 0
    out = capsys.readouterr().out
    assert "Allow? [y/n] (no terminal to answer on: declined)\n" in out  # said, on the prompt's own line
    assert "✗ fs_create_file: declined: nobody answered the prompt (no terminal to ask on" in out
    assert "skipped by user" not in out


def test_replay_with_tools_shows_a_schema_violation_as_soon_as_it_is_proven(tmp_path, capsys) -> None:
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps([{"name": "fs_create_file", "input_schema": {
        "type": "object", "properties": {"path": {"type": "string", "pattern": "^docs/"}}}}]))
    demo = Path(argstream.__file__).parent / "data" / "demo.anthropic.jsonl"
    assert main(["replay", str(demo), "--no-color", "--tools", str(tools)]) == 1
    out = capsys.readouterr().out
    assert '  path: "src/greet.py"\n✗ fs_create_file: breaks its schema at /path: \'src/greet.py\' does not match' in out
    assert "✓" not in out and out.count("✗") == 1
