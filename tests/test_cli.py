"""The command line: demo, replay, parse."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

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
    assert '? fs_create_file(path: "src/greet.py")  Allow? [y/n] n\n' in out
    assert "content:" not in out  # declined before the content streamed; the stream was cancelled
    assert out.endswith("✗ fs_create_file: skipped by user (0 argument chunks dropped)\n— cancelled (stream cancelled)\n")


def test_demo_with_a_policy_runs_to_the_end_on_yes(tmp_path, capsys) -> None:
    policy = tmp_path / "policy.toml"
    policy.write_text(POLICY.replace('"docs/"', '"src/"'))
    assert main(["demo", "--delay", "0", "--no-color", "--policy", str(policy), "--answer", "no"]) == 0
    out = capsys.readouterr().out
    assert "policy: unattended" in out and "Allow?" not in out
    assert out.endswith("✓ fs_create_file: approved, 3 arguments (not executed)\n— tool_use\n")
