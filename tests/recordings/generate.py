"""Our own recordings: Anthropic and OpenAI Chat streams built to the shapes in WIRE_FORMATS.md.

Each :class:`Recording` is a list of decoded wire dicts (one per SSE ``data:`` frame, as in
../shared/recordings) plus what a reader must reconstruct from it. Built deterministically in
memory (the 20 KB call alone is ~440 KB of wire dicts); ``generate.py DIR`` writes them as
``<name>.chunks.txt`` files (one JSON per line) with an ``expected.json``.

Recordings, for both formats:

- ``create_file_20k``: a short text, then ``fs_create_file`` with ~20 KB of argument JSON whose
  text is split inside ``\\n``/``\\"``/``\\\\`` escapes, inside ``\\uXXXX`` escapes and between the
  two halves of escaped surrogate pairs;
- ``modify_file``: ``fs_modify_file`` with a ``patterns`` array of ``{old, new}`` objects (raw
  UTF-8 text, no ``\\u`` escapes);
- ``parallel``: four calls (one without arguments); the OpenAI Chat one interleaves their deltas
  by ``index``;
- ``thinking_then_call``: thinking (with a signature) or reasoning, text, then a call;
- ``abrupt_close``: the stream stops mid-argument, without its final events.
"""

from __future__ import annotations

import json
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Recording", "RECORDINGS", "big_content", "split_json"]


@dataclass
class Recording:
    name: str
    format: str  # "anthropic" or "openai_chat"
    items: list[dict[str, Any]]
    tool_calls: list[tuple[str, str, dict[str, Any]]]  # (id, name, arguments), in order of their flush
    finish: str  # FinishReason name
    text: str = ""
    reasoning: str = ""
    truncated: bool = False  # the stream ends mid-argument
    arg_texts: dict[str, str] = field(default_factory=dict)  # id -> the argument JSON text as sent

    @property
    def key(self) -> str:
        return f"{self.format}/{self.name}"


def big_content(size: int = 11_300) -> str:
    """~``size`` characters of file text full of characters JSON must escape, and non-BMP ones (~20 KB as JSON)."""
    rng = random.Random(20_000)
    lines = []
    total = 0
    n = 0
    while total < size:
        n += 1
        pick = n % 6
        if pick == 0:
            line = f'    print("line {n}: \\"quoted\\" and a tab\\t", end="")'
        elif pick == 1:
            line = f"    path = r'C:\\\\Users\\\\dev\\\\file_{n}.txt'  # backslashes \\ \\\\"
        elif pick == 2:
            line = f"    greeting = 'héllo wörld ñ {n} – “smart quotes” — 日本語'"
        elif pick == 3:
            line = f"    emoji = '😀🎉👩‍💻 {n} 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 🚀'"
        elif pick == 4:
            line = f"\t# control: \x01\x1f and a form feed \f line {n}"
        else:
            line = "    " + "".join(rng.choice("abcdefghij{}[]:,\"\\/ ") for _ in range(40))
        lines.append(line)
        total += len(line) + 1
    return "\n".join(lines) + "\n"


def split_json(text: str, seed: int, *, sizes: tuple[int, int] = (1, 24)) -> list[str]:
    """Cut JSON text into fragments of random size, forcing cuts inside escapes and between surrogate halves."""
    rng = random.Random(seed)
    cuts = set()
    pos = 0
    while pos < len(text):
        pos += rng.randint(*sizes)
        cuts.add(pos)
    i = text.find("\\")
    count = 0
    while i != -1:
        count += 1
        if text.startswith("\\u", i):
            cuts.add(i + 1 + count % 5)  # after '\', '\u', '\u0', '\u00' or '\u00e'
            if text.startswith("\\u", i + 6) and 0xD8 <= int(text[i + 2:i + 4], 16) <= 0xDB:
                cuts.add(i + 6)  # between the halves of a surrogate pair
                cuts.add(i + 6 + 1 + count % 5)
            i = text.find("\\", i + 6)
        else:
            if count % 2:
                cuts.add(i + 1)  # after the backslash
            i = text.find("\\", i + 2)
    bounds = sorted(c for c in cuts if 0 < c < len(text))
    return [text[a:b] for a, b in zip([0, *bounds], [*bounds, len(text)])]


def split_text(text: str, seed: int) -> list[str]:
    rng = random.Random(seed)
    out, pos = [], 0
    while pos < len(text):
        n = rng.randint(2, 12)
        out.append(text[pos:pos + n])
        pos += n
    return out


# -- Anthropic ------------------------------------------------------------------------------------


class _Anthropic:
    def __init__(self, name: str) -> None:
        self.items: list[dict[str, Any]] = [
            {"type": "message_start", "message": {
                "id": f"msg_{name}", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                "content": [], "stop_reason": None, "stop_sequence": None,
                "usage": {"input_tokens": 120, "output_tokens": 1}}},
            {"type": "ping"},
        ]
        self.index = 0

    def text(self, text: str, seed: int) -> None:
        i = self.index
        self.items.append({"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}})
        for piece in split_text(text, seed):
            self.items.append({"type": "content_block_delta", "index": i,
                               "delta": {"type": "text_delta", "text": piece}})
        self.items.append({"type": "content_block_stop", "index": i})
        self.index += 1

    def thinking(self, text: str, signature: str, seed: int) -> None:
        i = self.index
        self.items.append({"type": "content_block_start", "index": i,
                           "content_block": {"type": "thinking", "thinking": "", "signature": ""}})
        for piece in split_text(text, seed):
            self.items.append({"type": "content_block_delta", "index": i,
                               "delta": {"type": "thinking_delta", "thinking": piece}})
        self.items.append({"type": "content_block_delta", "index": i,
                           "delta": {"type": "signature_delta", "signature": signature}})
        self.items.append({"type": "content_block_stop", "index": i})
        self.index += 1

    def tool(self, call_id: str, name: str, pieces: list[str], stop: bool = True) -> None:
        i = self.index
        self.items.append({"type": "content_block_start", "index": i, "content_block": {
            "type": "tool_use", "id": call_id, "name": name, "input": {}}})
        for piece in ["", *pieces]:
            self.items.append({"type": "content_block_delta", "index": i,
                               "delta": {"type": "input_json_delta", "partial_json": piece}})
        if stop:
            self.items.append({"type": "content_block_stop", "index": i})
        self.index += 1

    def end(self, stop_reason: str = "tool_use") -> list[dict[str, Any]]:
        self.items.append({"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                           "usage": {"output_tokens": 4321}})
        self.items.append({"type": "message_stop"})
        return self.items


# -- OpenAI Chat ----------------------------------------------------------------------------------


class _Chat:
    def __init__(self, name: str) -> None:
        self.id = f"chatcmpl-{name}"
        self.items: list[dict[str, Any]] = [self._chunk({"role": "assistant", "content": "", "refusal": None})]

    def _chunk(self, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {"id": self.id, "object": "chat.completion.chunk", "created": 1_760_000_000, "model": "gpt-4.1",
                "system_fingerprint": "fp_argstream",
                "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}

    def add(self, delta: dict[str, Any]) -> None:
        self.items.append(self._chunk(delta))

    def text(self, text: str, seed: int) -> None:
        for piece in split_text(text, seed):
            self.add({"content": piece})

    def reasoning(self, text: str, seed: int) -> None:
        for piece in split_text(text, seed):
            self.add({"content": None, "reasoning_content": piece})

    def call_start(self, index: int, call_id: str, name: str) -> None:
        self.add({"tool_calls": [{"index": index, "id": call_id, "type": "function",
                                  "function": {"name": name, "arguments": ""}}]})

    def call_args(self, index: int, piece: str) -> None:
        self.add({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})

    def end(self, finish: str = "tool_calls") -> list[dict[str, Any]]:
        self.items.append(self._chunk({}, finish))
        self.items.append({"id": self.id, "object": "chat.completion.chunk", "created": 1_760_000_000,
                           "model": "gpt-4.1", "choices": [],
                           "usage": {"prompt_tokens": 120, "completion_tokens": 4321, "total_tokens": 4441}})
        return self.items


# -- the recordings -------------------------------------------------------------------------------

_CREATE_ARGS = {"path": "src/argstream_demo/big_module.py", "content": big_content()}
_CREATE_TEXT = json.dumps(_CREATE_ARGS)  # ensure_ascii: non-ASCII as \u escapes, non-BMP as surrogate pairs
_MODIFY_ARGS = {
    "path": "src/lib.rs",
    "patterns": [
        {"old": "fn main() {\n    println!(\"hello\");\n}\n",
         "new": "fn main() {\n    println!(\"héllo, wörld 🌍\");\n}\n"},
        {"old": "let x = 1;", "new": "let x = compute(\"a\\\\b\", 2.5e-3, true, null);"},
        {"old": "// TODO", "new": ""},
    ],
    "dry_run": False,
}
_MODIFY_TEXT = json.dumps(_MODIFY_ARGS, ensure_ascii=False, indent=1)
_PARALLEL = [
    ("read_file", {"path": "README.md"}),
    ("grep", {"pattern": "fn \\w+\\(", "paths": ["src", "tests"], "max": 50}),
    ("list_dir", {"path": "src/argstream/providers", "recursive": True, "depth": 3}),
    ("now", {}),
]
_THINKING = "The user wants a greeting file. I should create it with a short body, then stop."
_SIGNATURE = "EqQBCkgIARABGAIiQL2kMmFnYXJndW1lbnRzdHJlYW0tc2lnbmF0dXJl"


def _anthropic() -> list[Recording]:
    out = []
    a = _Anthropic("create_20k")
    a.text("I'll create the module now.", 1)
    a.tool("toolu_create_20k", "fs_create_file", split_json(_CREATE_TEXT, 11))
    out.append(Recording("create_file_20k", "anthropic", a.end(),
                         [("toolu_create_20k", "fs_create_file", _CREATE_ARGS)], "TOOL_USE",
                         text="I'll create the module now.", arg_texts={"toolu_create_20k": _CREATE_TEXT}))

    a = _Anthropic("modify")
    a.tool("toolu_modify", "fs_modify_file", split_json(_MODIFY_TEXT, 12, sizes=(1, 9)))
    out.append(Recording("modify_file", "anthropic", a.end(), [("toolu_modify", "fs_modify_file", _MODIFY_ARGS)],
                         "TOOL_USE", arg_texts={"toolu_modify": _MODIFY_TEXT}))

    a = _Anthropic("parallel")
    a.text("Three things at once.", 2)
    calls = []
    for n, (name, args) in enumerate(_PARALLEL):
        text = json.dumps(args) if args else ""
        a.tool(f"toolu_par_{n}", name, split_json(text, 20 + n, sizes=(1, 6)) if text else [])
        calls.append((f"toolu_par_{n}", name, args))
    out.append(Recording("parallel", "anthropic", a.end(), calls, "TOOL_USE", text="Three things at once."))

    a = _Anthropic("thinking")
    a.thinking(_THINKING, _SIGNATURE, 3)
    a.text("Creating hello.txt.", 4)
    args = {"path": "hello.txt", "content": "Hello!\n"}
    a.tool("toolu_think", "fs_create_file", split_json(json.dumps(args), 5, sizes=(1, 7)))
    out.append(Recording("thinking_then_call", "anthropic", a.end(), [("toolu_think", "fs_create_file", args)],
                         "TOOL_USE", text="Creating hello.txt.", reasoning=_THINKING))

    a = _Anthropic("abrupt")
    a.text("Writing it.", 6)
    pieces = split_json(_CREATE_TEXT[:3000], 13)
    a.tool("toolu_abrupt", "fs_create_file", pieces, stop=False)
    out.append(Recording("abrupt_close", "anthropic", a.items, [], "ERROR", text="Writing it.", truncated=True))
    return out


def _chat() -> list[Recording]:
    out = []
    c = _Chat("create_20k")
    c.text("I'll create the module now.", 1)
    c.call_start(0, "call_create_20k", "fs_create_file")
    for piece in split_json(_CREATE_TEXT, 11):
        c.call_args(0, piece)
    out.append(Recording("create_file_20k", "openai_chat", c.end(),
                         [("call_create_20k", "fs_create_file", _CREATE_ARGS)], "TOOL_USE",
                         text="I'll create the module now.", arg_texts={"call_create_20k": _CREATE_TEXT}))

    c = _Chat("modify")
    c.call_start(0, "call_modify", "fs_modify_file")
    for piece in split_json(_MODIFY_TEXT, 12, sizes=(1, 9)):
        c.call_args(0, piece)
    out.append(Recording("modify_file", "openai_chat", c.end(), [("call_modify", "fs_modify_file", _MODIFY_ARGS)],
                         "TOOL_USE", arg_texts={"call_modify": _MODIFY_TEXT}))

    c = _Chat("parallel")
    c.text("Three things at once.", 2)
    queues = []
    for n, (name, args) in enumerate(_PARALLEL):
        c.call_start(n, f"call_par_{n}", name)
        text = json.dumps(args) if args else ""
        queues.append(split_json(text, 20 + n, sizes=(1, 6)) if text else [])
    while any(queues):  # interleave: one fragment of each call in turn
        for n, queue in enumerate(queues):
            if queue:
                c.call_args(n, queue.pop(0))
    calls = [(f"call_par_{n}", name, args) for n, (name, args) in enumerate(_PARALLEL)]
    out.append(Recording("parallel", "openai_chat", c.end(), calls, "TOOL_USE", text="Three things at once."))

    c = _Chat("thinking")
    c.reasoning(_THINKING, 3)
    c.text("Creating hello.txt.", 4)
    args = {"path": "hello.txt", "content": "Hello!\n"}
    c.call_start(0, "call_think", "fs_create_file")
    for piece in split_json(json.dumps(args), 5, sizes=(1, 7)):
        c.call_args(0, piece)
    out.append(Recording("thinking_then_call", "openai_chat", c.end(), [("call_think", "fs_create_file", args)],
                         "TOOL_USE", text="Creating hello.txt.", reasoning=_THINKING))

    c = _Chat("abrupt")
    c.text("Writing it.", 6)
    c.call_start(0, "call_abrupt", "fs_create_file")
    for piece in split_json(_CREATE_TEXT[:3000], 13):
        c.call_args(0, piece)
    out.append(Recording("abrupt_close", "openai_chat", c.items, [], "ERROR", text="Writing it.", truncated=True))
    return out


RECORDINGS: dict[str, Recording] = {r.key: r for r in (*_anthropic(), *_chat())}


def write(directory: Path) -> None:
    """Write every recording as ``<format>/<name>.chunks.txt`` plus ``expected.json``."""
    expected = {}
    for rec in RECORDINGS.values():
        path = directory / rec.format / f"{rec.name}.chunks.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(i, ensure_ascii=False, separators=(",", ":")) + "\n" for i in rec.items))
        expected[f"{rec.format}/{path.name}"] = {
            "format": rec.format, "chunks": len(rec.items), "finish": rec.finish, "truncated": rec.truncated,
            "tool_calls": [{"id": i, "name": n, "arguments": a} for i, n, a in rec.tool_calls],
        }
    (directory / "expected.json").write_text(json.dumps(expected, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: generate.py DIRECTORY")
    write(Path(sys.argv[1]))
