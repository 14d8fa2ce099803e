"""The ``argstream`` command.

- ``demo``: replay the tool-calling stream shipped in the package and render it live;
- ``replay FILE``: the same for a recorded stream (one wire JSON object a line, or raw SSE);
- ``parse``: read JSON from standard input and print its fragments, one a line.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from importlib import resources
from pathlib import Path
from typing import Any, Iterator, Sequence

from . import BACKEND, ArgumentStreamError, IncrementalArgParser

__all__ = ["main"]


def _sample() -> bytes:
    return resources.files("argstream").joinpath("data/sample_args.json").read_bytes()


def cmd_parse(args: argparse.Namespace) -> int:
    """Feed the input in ``--chunk-size`` pieces, as a stream would arrive, and print each fragment."""
    data = _sample() if args.sample else sys.stdin.buffer.read()
    parser = IncrementalArgParser(flat=args.flat, max_depth=args.max_depth)
    out = sys.stdout
    size = max(1, args.chunk_size) if args.chunk_size else len(data) or 1
    try:
        for start in range(0, len(data), size):
            for fragment in parser.push(data[start : start + size]):
                out.write(f"{fragment!r}\n")
        for fragment in parser.finish():
            out.write(f"{fragment!r}\n")
    except ArgumentStreamError as exc:
        print(f"argstream: {exc}", file=sys.stderr)
        return 1
    return 0


def read_wire(text: str) -> list[Any]:
    """Decode a recorded stream: one JSON object a line, or SSE (``data:`` lines; ``[DONE]`` dropped)."""
    lines = text.splitlines()
    if any(line.startswith("data:") for line in lines):
        payloads = [line[5:].strip() for line in lines if line.startswith("data:")]
        return [json.loads(p) for p in payloads if p and p != "[DONE]"]
    return [json.loads(line) for line in lines if line.strip()]


def _paced(items: list[Any], delay: float) -> Iterator[Any]:
    for item in items:
        if delay:
            time.sleep(delay)
        yield item


def _replay(items: list[Any], provider: str | None, delay: float, color: bool | None) -> int:
    from .render import TerminalRenderer
    from .stream import StreamFinished, ToolCallFinished, iter_tool_stream

    renderer = TerminalRenderer(color=color)
    status = 0
    for item in iter_tool_stream(_paced(items, delay), provider or None):
        renderer(item)
        if type(item) is ToolCallFinished and item.error is not None:
            status = 1
        elif type(item) is StreamFinished and item.reason.value == "error":
            status = 1
    renderer.close()
    return status


def _replay_with_policy(items: list[Any], provider: str | None, args: argparse.Namespace) -> int:
    """Replay through a ``TurnCoordinator``: decisions while the arguments stream, prompts, cancellation."""
    import importlib

    from .policy import TurnCoordinator, load_policies
    from .policy.drivers import run_inline, run_threaded
    from .render import TerminalRenderer, format_call
    from .stream import detect_provider

    policies = load_policies(Path(args.policy))
    renderer = TerminalRenderer(color=args.color)
    module = importlib.import_module(f"argstream.providers.{provider or detect_provider(items[0])}")

    def prompt(call: Any) -> bool:
        renderer.close()
        streaming = [call.streaming_parameter] if call.streaming_parameter else []
        question = f"? {format_call(call.name, call.partial_arguments(), streaming)}  Allow? [y/n] "
        if args.answer:
            print(question + ("y" if args.answer == "yes" else "n"), flush=True)
            return args.answer == "yes"
        try:
            return input(question).strip().lower().startswith("y")
        except EOFError:
            return False

    def decided(call: Any) -> None:
        renderer.close()
        print(f"  policy: {call.mode.value} (at argument chunk {call.decided_at})", flush=True)

    events = module.to_events(_paced(items, args.delay))
    turn = TurnCoordinator(policies, prompt=prompt, render=renderer, on_decision=decided)
    drive = run_inline if args.answer else run_threaded  # a scripted answer needs no second thread
    result = drive(turn, events, close=getattr(events, "close", None))
    renderer.close()
    for call in result.calls:
        if call.skipped:
            print(f"✗ {call.name}: {call.response} ({call.dropped_chunks} argument chunks dropped)")
        elif call.error is not None:
            print(f"✗ {call.name}: invalid arguments ({call.error})")
        elif call.complete:
            print(f"✓ {call.name}: {'approved' if call.approved else call.status.value}, {len(call.arguments or {})} arguments")
    reason = result.finish_reason.value if result.finish_reason is not None else "none"
    print(f"— {reason}{' (stream cancelled)' if result.cancelled else ''}")
    return 0 if result.finish_reason is not None and result.finish_reason.value != "error" else 1


def cmd_demo(args: argparse.Namespace) -> int:
    """Replay the shipped Anthropic stream: thinking, text, then a file write that streams in."""
    text = resources.files("argstream").joinpath("data/demo.anthropic.jsonl").read_text(encoding="utf-8")
    if args.policy:
        return _replay_with_policy(read_wire(text), "anthropic", args)
    return _replay(read_wire(text), "anthropic", args.delay, args.color)


def cmd_replay(args: argparse.Namespace) -> int:
    """Replay a recorded stream file through the provider adapter and render it."""
    text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text(encoding="utf-8")
    if args.policy:
        return _replay_with_policy(read_wire(text), args.provider, args)
    return _replay(read_wire(text), args.provider, args.delay, args.color)


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="argstream", description=f"Incremental tool-call argument parsing ({BACKEND} core).")
    sub = ap.add_subparsers(dest="command", required=True)
    render_opts = argparse.ArgumentParser(add_help=False)
    render_opts.add_argument("--color", action=argparse.BooleanOptionalAction, default=None,
                             help="force colour on or off (default: when writing to a terminal)")
    render_opts.add_argument("--policy", metavar="TOML", help="decide tool calls by this policy file while they stream")
    render_opts.add_argument("--answer", choices=["yes", "no"], help="answer every policy prompt (default: ask)")
    d = sub.add_parser("demo", parents=[render_opts], help="replay a recorded tool-calling stream and render it live")
    d.add_argument("--delay", type=float, default=0.03, help="seconds between wire events (0 for none)")
    d.set_defaults(func=cmd_demo)
    r = sub.add_parser("replay", parents=[render_opts], help="replay a recorded stream file and render it")
    r.add_argument("file", help="one wire JSON object a line, or raw SSE; '-' reads standard input")
    r.add_argument("--provider", choices=["anthropic", "openai_chat", "openai_responses", "gemini", "ollama"],
                   help="the wire format (default: detected from the first event)")
    r.add_argument("--delay", type=float, default=0.0, help="seconds between wire events")
    r.set_defaults(func=cmd_replay)
    p = sub.add_parser("parse", help="read JSON from standard input and print its fragments, one a line")
    p.add_argument("--chunk-size", type=int, default=0, help="feed the input in pieces of this many bytes")
    p.add_argument("--flat", action="store_true", help="print (path, leaf) pairs instead of nested fragments")
    p.add_argument("--max-depth", type=int, default=512)
    p.add_argument("--sample", action="store_true", help="parse the sample tool call shipped with the package")
    p.set_defaults(func=cmd_parse)
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
