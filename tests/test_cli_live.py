"""``argstream live`` and ``record`` against the loopback server, through the official SDKs.

The server plays the demo's Anthropic stream (or a Chat Completions one); the command must send
the tools and the prompt, render the answer as ``demo`` does, never execute a tool, cancel the
response when a call is declined, and ``record`` must write what ``replay`` reads.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from loopback import LoopbackServer, Reply, sse

import argstream
from argstream.cli import main

pytestmark = pytest.mark.sdk

DEMO = [json.loads(line) for line in (Path(argstream.__file__).parent / "data" / "demo.anthropic.jsonl").read_text().splitlines()]
CHAT = [
    {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": [{"index": 0, "delta": {
        "role": "assistant", "tool_calls": [{"index": 0, "id": "call_1", "type": "function",
                                             "function": {"name": "shell", "arguments": ""}}]}, "finish_reason": None}]},
    {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": [{"index": 0, "delta": {
        "tool_calls": [{"index": 0, "function": {"arguments": '{"command": "ls \\u001b[2J'}}]}, "finish_reason": None}]},
    {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": [{"index": 0, "delta": {
        "tool_calls": [{"index": 0, "function": {"arguments": ' -la"}'}}]}, "finish_reason": None}]},
    {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
     "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
]
POLICY = '[tools.fs_create_file.policy]\nrun = [{ arg = "/path", prefix = "docs/", mode = "unattended" }, { mode = "ask" }]\n'


@pytest.fixture(autouse=True)
def _keys(monkeypatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")


def _live(server: LoopbackServer, provider: str, *extra: str) -> int:
    url = server.url if provider == "anthropic" else server.url + "/v1"
    return main(["live", "--provider", provider, "--model", "test-model", "--base-url", url, "--no-color", *extra,
                 "write a greeter"])


def test_live_renders_the_answer_and_sends_the_demo_tools(capsys) -> None:
    pytest.importorskip("anthropic")
    with LoopbackServer(Reply.body(sse(DEMO, event_field="type"), 97)) as server:
        assert _live(server, "anthropic") == 0
        request = server.exchanges[0].json()
    out = capsys.readouterr().out
    demo_status = main(["demo", "--delay", "0", "--no-color"])
    assert demo_status == 0 and out == capsys.readouterr().out  # the same screen as the recording's replay
    assert request["messages"] == [{"role": "user", "content": "write a greeter"}]
    assert [t["name"] for t in request["tools"]] == ["fs_create_file", "fs_modify_file", "shell"]
    assert request["stream"] is True and request["model"] == "test-model"


def test_live_with_a_policy_cancels_the_response_on_no(tmp_path, capsys) -> None:
    pytest.importorskip("anthropic")
    policy = tmp_path / "policy.toml"
    policy.write_text(POLICY)
    body = sse(DEMO, event_field="type")
    content_starts = len(sse(DEMO[:20], event_field="type"))  # the server holds there until the client hangs up
    with LoopbackServer(Reply.body(body, 64, hold_after=content_starts)) as server:
        assert _live(server, "anthropic", "--policy", str(policy), "--answer", "no") == 0
        exchange = server.wait()
        exchange.ended.wait(10)
    out = capsys.readouterr().out
    assert '? fs_create_file(path: "src/greet.py", streaming...)  Allow? [y/n] n\n' in out
    assert out.endswith("✗ fs_create_file: skipped by user (0 argument chunks dropped)\n— cancelled (stream cancelled)\n")
    assert exchange.client_closed and not exchange.completed  # the response was closed before its end


def test_live_openai_chat_makes_model_text_visible(capsys) -> None:
    pytest.importorskip("openai")
    with LoopbackServer(Reply.body(sse(CHAT, done=True), 50)) as server:
        assert _live(server, "openai_chat") == 0
        request = server.exchanges[0].json()
    out = capsys.readouterr().out
    assert 'command: "ls \u241b[2J -la"' in out and "\x1b" not in out
    assert request["tools"][0] == {"type": "function", "function": {
        "name": "fs_create_file", "description": "Create a file in the workspace with the given content.",
        "parameters": request["tools"][0]["function"]["parameters"]}}


def test_record_writes_what_replay_reads(tmp_path, capsys) -> None:
    pytest.importorskip("anthropic")
    with LoopbackServer(Reply.body(sse(DEMO, event_field="type"), 97)) as server:
        assert main(["record", "--provider", "anthropic", "--model", "m", "--base-url", server.url, "go"]) == 0
    recorded = capsys.readouterr().out
    assert len(recorded.splitlines()) == len(DEMO)
    path = tmp_path / "rec.jsonl"
    path.write_text(recorded)
    assert main(["replay", str(path), "--no-color"]) == 0
    replayed = capsys.readouterr().out
    assert main(["demo", "--delay", "0", "--no-color"]) == 0
    assert replayed == capsys.readouterr().out


def test_a_refused_request_is_one_line(capsys) -> None:
    pytest.importorskip("anthropic")
    error = json.dumps({"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}})
    with LoopbackServer(Reply([error.encode()], status=401, content_type="application/json")) as server:
        assert _live(server, "anthropic") == 1
    err = capsys.readouterr().err
    assert err.startswith("argstream: anthropic: ") and err.count("\n") == 1 and "invalid x-api-key" in err


def test_live_needs_a_known_tool_list(tmp_path, capsys) -> None:
    tools = tmp_path / "tools.json"
    tools.write_text('"fs_create_file"')
    assert main(["live", "--provider", "anthropic", "--model", "m", "--tools", str(tools), "go"]) == 1
    assert capsys.readouterr().err == "argstream: a tool list is a JSON array or a {name: schema} object\n"


OWN = Path(__file__).resolve().parent / "recordings"


@pytest.mark.parametrize(("provider", "sdk", "recording"), [
    ("openai_responses", "openai", "responses_create_and_modify"),
    ("gemini", "google.genai", "gemini_partial_args"),
    ("ollama", "ollama", "ollama_create_and_modify"),
])
def test_live_and_record_with_every_sdk(tmp_path, capsys, monkeypatch, provider, sdk, recording) -> None:
    """Each SDK's stream renders every expected call, and what ``record`` writes replays to the same screen."""
    pytest.importorskip(sdk)
    from loopback import ndjson

    monkeypatch.setenv("GEMINI_API_KEY", "test-key")
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    items = [json.loads(line) for line in (OWN / f"{recording}.chunks.txt").read_text(encoding="utf-8").splitlines()]
    expected = json.loads((OWN / f"{recording}.expected.json").read_text(encoding="utf-8"))
    if provider == "ollama":
        reply = Reply.body(ndjson(items), 61, content_type="application/x-ndjson")
    else:
        reply = Reply.body(sse(items, event_field="type" if provider == "openai_responses" else None), 61)
    url_suffix = "/v1" if provider == "openai_responses" else ""
    tools = tmp_path / "tools.json"  # the recording's tools (live checks each call against what it sent)
    tools.write_text(json.dumps({call["name"]: {"type": "object"} for call in expected["tool_calls"]}))
    with LoopbackServer(reply) as server:
        base = ["--provider", provider, "--model", "m", "--base-url", server.url + url_suffix, "--tools", str(tools)]
        assert main(["live", *base, "--no-color", "go"]) == 0
        live = capsys.readouterr().out
        assert main(["record", *base, "go"]) == 0
        recorded = capsys.readouterr().out
    for call in expected["tool_calls"]:
        assert f"▶ {call['name']}" in live
    path = tmp_path / "rec.jsonl"
    path.write_text(recorded)
    assert main(["replay", str(path), "--no-color"]) == 0
    assert capsys.readouterr().out == live
