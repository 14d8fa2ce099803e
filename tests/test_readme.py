"""The README's examples do what it says."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import argstream
from argstream import DONE, FragmentAggregator, ObjectEntry, String

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(argstream.__file__).parent / "data"


def test_readme_parser_example(make_parser) -> None:
    parser = make_parser()
    out = []
    for chunk in ['{"path": "src/ma', 'in.rs", "content": "fn main(', ') {}\\n"}']:
        out.extend(parser.push(chunk))
    assert out == [
        ObjectEntry("path", String("src/ma")),
        ObjectEntry("path", String("in.rs")),
        ObjectEntry("path", DONE),
        ObjectEntry("content", String("fn main(")),
        ObjectEntry("content", String(") {}\n")),
        ObjectEntry("content", DONE),
        DONE,
    ]
    agg = FragmentAggregator()
    agg.extend(out)
    assert agg.value == {"path": "src/main.rs", "content": "fn main() {}\n"}


def test_cli_parse_sample() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "argstream", "parse", "--sample", "--chunk-size", "16"],
        capture_output=True, text=True, check=True,
    )
    lines = result.stdout.splitlines()
    assert lines[0] == "ObjectEntry(key='path', value=String(text='src/gr'))"
    assert "ObjectEntry(key='path', value=DONE)" in lines
    assert lines[-1] == "DONE"


def test_cli_parse_reports_errors() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "argstream", "parse"], input=b'{"a": [1,]}', capture_output=True,
    )
    assert result.returncode == 1
    assert b"Illegal trailing comma before end of array: line 1 column 10 (char 9)" in result.stderr


def test_backend_is_reported() -> None:
    assert argstream.BACKEND in ("cython", "python")


def _blocks(text: str, language: str) -> list[str]:
    """The fenced code blocks of ``language`` in a Markdown text, in order."""
    return re.findall(rf"^```{language}\n(.*?)^```", text, flags=re.S | re.M)


@pytest.mark.sdk
def test_readme_python_examples_run_as_written(tmp_path, monkeypatch, capsys) -> None:
    """Every ``python`` block of the README, in order and in one namespace, as a reader would paste
    them: against the demo's recorded stream served by the loopback server, with nothing but the
    README's own policy file (which it says to save as ``policies.toml``) and an API key in the
    environment (issue 22 item 17: no ``tools.json`` or tool the README does not give)."""
    pytest.importorskip("anthropic")
    from loopback import LoopbackServer, Reply, sse

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "saved as `policies.toml`" in readme
    (tmp_path / "policies.toml").write_text(_blocks(readme, "toml")[0])
    demo = [json.loads(line) for line in (DATA / "demo.anthropic.jsonl").read_text().splitlines()]
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setattr(sys, "stdin", io.StringIO("n\n"))
    namespace: dict = {"__name__": "readme"}
    with LoopbackServer(Reply.body(sse(demo, event_field="type"), 80)) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        for block in _blocks(readme, "python"):
            exec(compile(block, "README.md", "exec"), namespace)
    out = capsys.readouterr().out
    assert "path is complete\nfn main() {}\n" in out  # the parser
    assert "\nfs_create_file:\n  path known: toolu_demo\n" in out  # the provider loop
    assert namespace["ready"]["toolu_demo"][1]["path"] == "src/greet.py"
    assert "run fs_create_file {'path': 'src/greet.py'" in out  # the policy: src/ is unattended
    assert "FinishReason.TOOL_USE ['approved']\n" in out
    assert out.endswith("('mode',) enum\n")  # the schema example: stopped at the "d" of "delete"


def test_readme_shell_commands_exist() -> None:
    """Each ``argstream ...`` command the README names parses (options and subcommands exist)."""
    from argstream.cli import build_parser

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = re.findall(r"`(argstream [a-z][^`]*)`", readme)
    assert len(commands) >= 4
    placeholders = {"M": "model", "PROMPT": "hello", "FILE": "rec.jsonl", "...": None}
    for command in commands:
        words = [placeholders.get(w, w) for w in command.split()[1:]]
        words = [w for w in words if w is not None]
        if words[0] in ("live", "record") and "--model" not in words:
            words += ["--provider", "anthropic", "--model", "m", "hello"]
        if words[0] == "replay" and len(words) == 1:
            words.append("rec.jsonl")
        build_parser().parse_args(words)
