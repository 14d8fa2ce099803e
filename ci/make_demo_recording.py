"""Writes src/argstream/data/demo.anthropic.jsonl: the tool-calling stream `argstream demo` replays.

An Anthropic Messages stream (one decoded SSE data object a line, as in ../shared/recordings):
thinking with a signature, a sentence of text, then an `fs_create_file` call whose argument JSON
streams in small pieces that split escapes, a surrogate pair and multi-byte characters.
Run: python ci/make_demo_recording.py
"""

from __future__ import annotations

import json
import random
from pathlib import Path

CONTENT = '''"""A tiny greeter, streamed to you by argstream."""

import sys


def greet(name: str) -> str:
    """Say hello — politely, with a wave 👋 and a "quote"."""
    return f"Hello, {name}!\\t(C:\\\\Users\\\\{name})"


if __name__ == "__main__":
    for who in sys.argv[1:] or ["wörld", "世界"]:
        print(greet(who))
'''


def main() -> None:
    rnd = random.Random(7)
    args = json.dumps({"path": "src/greet.py", "content": CONTENT, "overwrite": False})
    pieces, i = [""], 0
    while i < len(args):
        n = rnd.randint(3, 14)
        pieces.append(args[i : i + n])
        i += n
    events: list[dict] = [
        {"type": "message_start", "message": {"id": "msg_demo", "type": "message", "role": "assistant",
         "model": "claude-demo", "content": [], "stop_reason": None, "stop_sequence": None,
         "usage": {"input_tokens": 412, "output_tokens": 1}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": "", "signature": ""}},
    ]
    for chunk in ["The user wants a greeter script. ", "I'll write it to src/greet.py ", "in one call."]:
        events.append({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": chunk}})
    events += [
        {"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "c2lnbmF0dXJl"}},
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
    ]
    for chunk in ["I'll create ", "the greeter ", "now."]:
        events.append({"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": chunk}})
    events += [
        {"type": "content_block_stop", "index": 1},
        {"type": "content_block_start", "index": 2, "content_block": {"type": "tool_use", "id": "toolu_demo",
         "name": "fs_create_file", "input": {}}},
    ]
    for piece in pieces:
        events.append({"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": piece}})
    events += [
        {"type": "content_block_stop", "index": 2},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None}, "usage": {"output_tokens": 214}},
        {"type": "message_stop"},
    ]
    out = Path(__file__).resolve().parent.parent / "src/argstream/data/demo.anthropic.jsonl"
    out.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in events), encoding="utf-8")
    print(f"wrote {out} ({len(events)} events, {len(pieces)} argument pieces)")


if __name__ == "__main__":
    main()
