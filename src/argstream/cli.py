"""The ``argstream`` command.

- ``demo``: replay the tool-calling stream shipped in the package and render it live;
- ``replay FILE|-``: the same for a recorded stream (one wire JSON object a line, or raw SSE),
  read as it arrives, so ``curl -N ... | argstream replay -`` renders live;
- ``parse [FILE|-]``: JSON in, its fragments out, one a line (``repr`` or ``json``), as it arrives;
- ``live``: ask a real model through its official SDK and render the answer live, with the policy
  decisions; no tool is ever executed. ``record`` writes the same stream for ``replay``.

Errors are one line on standard error: status 2 for a usage mistake, 1 for invalid input or a
failed request; Ctrl-C exits with 130 and a closed output pipe ends quietly (141).
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import os
import re
import sys
import time
from importlib import resources
from itertools import chain
from typing import IO, Any, BinaryIO, Callable, Iterable, Iterator, NoReturn, Sequence, TextIO

from . import BACKEND, ArgumentStreamError, IncrementalArgParser, __version__
from .fragments import SCALAR_TYPES, STRING_TYPES, Empty, flatten
from .render.sanitize import INVISIBLE, visible_line

from .textcalls import FORMATS as TEXT_FORMATS

__all__ = ["main", "read_wire", "wire_objects"]

PROVIDERS = ["anthropic", "openai_chat", "openai_responses", "gemini", "ollama"]
SDK_PROVIDERS = ["anthropic", "openai_chat", "openai_responses", "gemini", "ollama"]
_READ_SIZE = 1 << 16


class CommandError(Exception):
    """An error reported as one line on standard error, with the exit status it means."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.status = status


class _ArgumentParser(argparse.ArgumentParser):
    """argparse, with a usage mistake as one line (status 2) instead of the usage text."""

    def error(self, message: str) -> NoReturn:
        raise CommandError(f"{message} (see '{self.prog} --help')", 2)


def _number(kind: type, minimum: float, what: str, maximum: float = math.inf) -> Any:
    """An argparse type: a finite number from ``minimum`` to ``maximum`` (``nan`` and ``inf`` are not)."""

    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except (ValueError, OverflowError):
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
        if not math.isfinite(value) or not minimum <= value <= maximum:
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}")
        return value

    return parse


# -- input, read as it arrives ------------------------------------------------------------


def open_input(name: str) -> BinaryIO:
    """The named file for reading (``-``: standard input), or a one-line error."""
    if name == "-":
        return sys.stdin.buffer
    if os.path.isdir(name):
        raise CommandError(f"{name}: is a directory")
    try:
        return open(name, "rb")  # noqa: SIM115 - closed by the caller
    except FileNotFoundError:
        raise CommandError(f"{name}: no such file") from None
    except OSError as exc:
        raise CommandError(f"{name}: {exc.strerror}") from None


def read_chunks(stream: BinaryIO) -> Iterator[bytes]:
    """The bytes of ``stream`` as they arrive (``read1`` returns what is there, without waiting to fill)."""
    read = getattr(stream, "read1", stream.read)
    while True:
        data = read(_READ_SIZE)
        if not data:
            return
        yield data


def wire_objects(lines: Iterable[bytes | str], name: str = "<input>") -> Iterator[dict[str, Any]]:
    """Decode a recorded stream line by line as it arrives (SSE or one JSON object a line), with
    :class:`argstream.providers.wire.WireDecoder`; a line that is not a wire event is a one-line
    error naming the input and the line."""
    from .providers import ProviderProtocolError
    from .providers.wire import WireDecoder

    decoder = WireDecoder()
    number = 0

    def objects(items: list[Any]) -> Iterator[dict[str, Any]]:
        for obj in items:
            if not isinstance(obj, dict):
                raise CommandError(f"{name}:{number}: a wire event is a JSON object, not {type(obj).__name__}")
            yield obj

    try:
        for number, raw in enumerate(lines, 1):
            if isinstance(raw, bytes):
                try:
                    raw = raw.decode("utf-8")
                except UnicodeDecodeError:
                    raise CommandError(f"{name}:{number}: not UTF-8 text (is it a binary file?)") from None
            yield from objects(decoder.feed_line(raw.rstrip("\r\n")))
        yield from objects(decoder.close())
    except ProviderProtocolError as exc:
        raise CommandError(f"{name}:{number}: not a wire event ({exc})") from None


def read_wire(text: str) -> list[dict[str, Any]]:
    """Decode a whole recorded stream held in memory (see :func:`wire_objects`)."""
    return list(wire_objects(text.splitlines()))


def _detect(objects: Iterator[Any], provider: str | None, name: str) -> tuple[str, Any, Iterator[Any]]:
    """The provider (named, or detected from the first event), the first event, and all the events."""
    from .providers.detect import detect_provider

    first = next(objects, None)
    if first is None:
        raise CommandError(f"{name}: no wire events (an empty recording)")
    if provider is None:
        try:
            provider = detect_provider(first)
        except ValueError:
            raise CommandError(f"{name}: not a known provider's stream; name it with --provider") from None
    return provider, first, chain([first], objects)


def _paced(items: Iterable[Any], delay: float) -> Iterator[Any]:
    for item in items:
        if delay:
            time.sleep(delay)
        yield item


# -- parse ----------------------------------------------------------------------------------


_UNSAFE_IN_JSON = re.compile("[" + "".join(f"\\U{c:08x}" for c in sorted(INVISIBLE)) + "]")
"""What ``json.dumps`` leaves raw but a terminal acts on or hides: DEL, C1 controls, bidi marks, line
separators, zero-width and tag characters (the sanitiser's set)."""


def _json_escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def _fragment_json(fragment: Any) -> str:
    path, leaf = fragment if type(fragment) is tuple else flatten(fragment)  # flat=True: already a pair
    cls = type(leaf)
    if cls in STRING_TYPES:
        shown: dict[str, Any] = {"type": "string", "text": leaf.text}
    elif cls in SCALAR_TYPES:
        shown = {"type": "scalar", "value": leaf.value}
    elif cls is Empty:
        shown = {"type": "empty", "kind": leaf.kind}
    else:
        shown = {"type": "done"}
    line = json.dumps({"path": list(path), "fragment": shown}, ensure_ascii=False)
    return _UNSAFE_IN_JSON.sub(_json_escape, line)


def _pieces(stream: BinaryIO, size: int) -> Iterator[bytes]:
    for data in read_chunks(stream):
        if not size:
            yield data
            continue
        for start in range(0, len(data), size):
            yield data[start : start + size]


def cmd_parse(args: argparse.Namespace) -> int:
    """Feed the input as it arrives (in ``--chunk-size`` pieces) and print each fragment at once.

    On an error, the fragments the parser made before it (``error.fragments``) are printed first,
    so the output does not depend on how the input was cut."""
    import io

    if args.sample:
        stream: BinaryIO = io.BytesIO(resources.files("argstream").joinpath("data/sample_args.json").read_bytes())
    else:
        stream = open_input(args.file)
    show = _fragment_json if args.format == "json" else repr
    parser = IncrementalArgParser(flat=args.flat, max_depth=args.max_depth)
    out = sys.stdout
    try:
        for piece in _pieces(stream, args.chunk_size):
            for fragment in parser.push(piece):
                out.write(show(fragment) + "\n")
            out.flush()
        for fragment in parser.finish():
            out.write(show(fragment) + "\n")
    except ArgumentStreamError as exc:
        for fragment in getattr(exc, "fragments", None) or ():
            out.write(show(fragment) + "\n")
        out.flush()
        raise CommandError(f"{args.file}: {exc}") from None
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()
    return 0


# -- rendering: replay, demo, live ------------------------------------------------------------


def _renderer(args: argparse.Namespace, outcomes: bool = True) -> Any:
    try:
        from .render.terminal import TerminalRenderer
    except ImportError:
        raise CommandError("rendering needs rich: pip install 'argstream[render]'") from None
    return TerminalRenderer(color=args.color, style=args.style, reasoning=args.reasoning, outcomes=outcomes)


def _load_json(name: str, what: str) -> Any:
    with open_input(name) as f:
        try:
            return json.loads(f.read().decode("utf-8-sig"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise CommandError(f"{name}: not a JSON {what} ({exc})") from None


def _tools(args: argparse.Namespace) -> Any:
    """The ``--tools`` file, or the demo's tool definitions."""
    if args.tools:
        return _load_json(args.tools, "tool list")
    return json.loads(resources.files("argstream").joinpath("data/demo_tools.json").read_text(encoding="utf-8"))


def _policy_text(name: str) -> str:
    """The policy file as text: UTF-8, a byte-order mark allowed (as for recordings and tool lists)."""
    with open_input(name) as f:
        data = f.read()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CommandError(f"{name}: not UTF-8 text (is it a binary file?): byte {exc.start}") from None
    return text + "\n"  # never mistaken by load_policies for a file name, whatever the file holds


def _policies(args: argparse.Namespace, tools: Any) -> Any:
    from .policy import load_policies

    if args.policy == "-":
        raise CommandError("--policy: a file is needed ('-' is the recording or the answers)")
    text = _policy_text(args.policy)
    try:
        return load_policies(text, tools=tools)
    except (ValueError, TypeError, ImportError) as exc:  # PolicyError is a ValueError
        problems = "; ".join(line.strip() for line in str(exc).splitlines())
        raise CommandError(f"{args.policy}: {problems}") from None


class _Tally:
    """The wire events of a stream, counted, with whether the input ran out (to say where it ended)."""

    def __init__(self, events: Iterable[Any]) -> None:
        self._events = iter(events)
        self.count = 0
        self.ended = False

    def __iter__(self) -> Iterator[Any]:
        for event in self._events:
            self.count += 1
            yield event
        self.ended = True


def _render_stream(items: Iterable[Any], provider: Any, args: argparse.Namespace,
                   tools: Any = None) -> tuple[int, Any, list[str]]:
    """Render every stream item (calls checked against ``tools``' schemas when given); the status
    (1 when a call failed or broke its schema, or the stream ended in error), the last
    ``StreamFinished`` and the names of the calls that failed."""
    from .stream import StreamFinished, ToolCallFailed, ToolCallViolation, iter_tool_stream

    renderer = _renderer(args)
    status, finished, failed = 0, None, []
    try:
        for item in iter_tool_stream(items, provider, tools=tools, lenient=getattr(args, "lenient", False),
                                     text_tool_calls=getattr(args, "text_tool_calls", None)):
            renderer(item)
            if isinstance(item, StreamFinished):
                finished = item
            if isinstance(item, (ToolCallFailed, ToolCallViolation)):
                failed.append(item.name)
            if failed or (isinstance(item, StreamFinished) and item.reason.value == "error"):
                status = 1
    finally:
        renderer.close()
    return status, finished, failed


def _answers(args: argparse.Namespace) -> TextIO | None:
    """Where prompt answers come from: standard input, or the terminal when standard input is the data."""
    if args.answer:
        return None
    if getattr(args, "file", None) != "-":
        return sys.stdin
    try:
        return open("/dev/tty", encoding="utf-8")  # noqa: SIM115 - lives as long as the command
    except OSError:
        return None


_UNANSWERED = "declined: nobody answered the prompt (no terminal to ask on; an unanswered prompt declines)"


def _verdict(call: Any, unanswered: Callable[[Any], bool]) -> tuple[str, str]:
    """One line for what became of ``call`` under the policy, and its style (model text in it, a
    name or a quoted value, is made visible: it cannot start a line of its own)."""
    name = visible_line(call.name)
    if call.error is not None:
        return f"✗ {name}: invalid arguments ({visible_line(str(call.error))})", "red"
    if call.failed:
        return f"✗ {name}: {visible_line(str(call.response or 'failed'))}", "red"
    if call.skipped:
        why = _UNANSWERED if unanswered(call) else visible_line(str(call.response))
        return f"✗ {name}: {why} ({call.dropped_chunks} argument chunks dropped)", "red"
    if call.complete:
        state = "approved" if call.approved else call.status.value
        return f"✓ {name}: {state}, {len(call.arguments or {})} arguments{_repaired(call.repairs)} (not executed)", "green"
    return f"… {name}: {call.status.value}, its arguments never completed", "dim"


def _repaired(repairs: Sequence[Any]) -> str:
    """What the lenient parser repaired, for a call's line (empty when nothing)."""
    return f", repaired JSON ({', '.join(sorted({r.kind for r in repairs}))})" if repairs else ""


def _render_with_policy(events: Iterable[Any], close: Any, args: argparse.Namespace, tools: Any) -> tuple[int, Any]:
    """Decide each call while it streams: decisions, prompts and cancellation, drawn live; the
    status (0 when the stream ended without error) and the coordinator's result.

    One transcript: the renderer draws no outcome of its own (each call's verdict and the end
    are written once, from the result), and its drawing is held from the moment a prompt is
    requested, so nothing the stream brings meanwhile is drawn before the question."""
    from .policy import TurnCoordinator
    from .policy.drivers import run_inline, run_threaded
    from .render.prompt import Prompt, edit_in_editor, find_editor

    policies = _policies(args, tools)
    renderer = _renderer(args, outcomes=False)
    answers = _answers(args)
    editor = find_editor() if answers is not None and answers.isatty() else None
    prompt = Prompt(renderer, answers, answer=args.answer and args.answer[0],
                    edit=edit_in_editor(editor) if editor else None)

    asking: dict[int, Any] = {}  # the calls that may prompt (an ask or edit decision not yet settled)

    def decided(call: Any) -> None:
        renderer.write_line(f"  policy: {call.mode.value} (at argument chunk {call.decided_at})", "dim")
        if call.mode.value in ("ask", "edit"):
            asking[id(call)] = call

    def render(item: Any) -> None:
        for key in [k for k, call in asking.items() if call.status.value in ("approved", "skipped", "failed")]:
            del asking[key]
        prompt.hold_for(asking.values())  # a question is coming: what follows waits for its answer
        renderer(item)

    # The CLI runs no tool: an early answer decides the transcript, and the prompt says what still
    # streams, which is then drawn in full (a program that runs tools keeps the default, "shown").
    turn = TurnCoordinator(policies, prompt=prompt, edit=prompt.edit, render=render, on_decision=decided,
                           tools=tools, early_answer="call", lenient=getattr(args, "lenient", False),
                           text_tool_calls=getattr(args, "text_tool_calls", None))
    drive = run_inline if args.answer else run_threaded  # a scripted answer needs no second thread
    try:
        result = drive(turn, events, close=close)
    finally:
        renderer.close()
    for call in result.calls:
        renderer.write_line(*_verdict(call, prompt.unanswered))
    reason = result.finish_reason.value if result.finish_reason is not None else "none"
    renderer.write_line(f"— {reason}{' (stream cancelled)' if result.cancelled else ''}", "dim")
    ok = result.finish_reason is not None and result.finish_reason.value != "error"
    return (0 if ok else 1), result


def _failed_calls(calls: Iterable[Any]) -> list[str]:
    """The names of the calls whose arguments failed (invalid JSON, cut off, or against their schema)."""
    return [call.name for call in calls if call.error is not None or call.failed]


def _check_calls(name: str, failed: list[str]) -> None:
    """One line on standard error (status 1) when tool calls failed; the transcript shows how."""
    if failed:
        calls = ", ".join(dict.fromkeys(visible_line(n) for n in failed))
        plural = "s" if len(failed) > 1 else ""
        raise CommandError(f"{name}: {len(failed)} tool call{plural} failed ({calls[:200]}; see above)")


def _looks_like(first: Any, provider: str) -> str:
    """What to say when the first event is another provider's than the one named, else ``""``."""
    from .providers.detect import detect_provider

    try:
        detected = detect_provider(first)
    except ValueError:
        keys = ", ".join(sorted(map(str, first))[:8]) if isinstance(first, dict) else type(first).__name__
        return f"not in the {provider} format: its first event ({visible_line(keys)[:200]}) is no known provider's"
    if detected == provider:
        return ""
    article = "an" if detected[0] in "aeiou" else "a"
    return (f"not in the {provider} format: it looks like {article} {detected} stream "
            "(leave out --provider to detect it)")


def _replay(objects: Iterator[Any], provider: str | None, args: argparse.Namespace, name: str,
            tools: Any = None) -> int:
    """Render a recorded stream; a stream that ended in error says why on standard error."""
    from .providers import ProviderProtocolError

    named = provider
    provider, first, objects = _detect(objects, provider, name)
    hint = _looks_like(first, provider) if named else ""
    wire = _Tally(_paced(objects, args.delay))
    try:
        if not args.policy:
            status, finished, failed = _render_stream(wire, provider, args, tools)
            metadata = finished.metadata if finished is not None else {}
            error, stop = metadata.get("error"), metadata.get("stop_reason")
            broken = finished is None or finished.reason.value == "error"
        else:
            module = importlib.import_module(f"argstream.providers.{provider}")
            events = module.to_events(wire)
            status, result = _render_with_policy(events, getattr(events, "close", None), args, tools)
            error, stop, failed = None, None, _failed_calls(result.calls)
            broken = not result.cancelled and (result.finish_reason is None or result.finish_reason.value == "error")
    except ProviderProtocolError as exc:
        raise CommandError(f"{name}: {hint}" if hint else f"{name}: not a valid {provider} stream at its wire event "
                           f"{wire.count}: {visible_line(str(exc))[:300]}") from None
    if broken:
        if hint:
            why = hint
        elif error is not None:
            shown = visible_line(json.dumps(error, ensure_ascii=False, default=str))
            why = f"the stream reported an error: {shown[:300]}"
        elif stop is not None:
            why = f"the response ended as {visible_line(json.dumps(stop, ensure_ascii=False, default=str))[:100]}"
        elif wire.ended:
            why = f"the stream ended after {wire.count} wire events without its final event (cut off?)"
        else:
            why = f"the stream ended in error at its wire event {wire.count}"
        raise CommandError(f"{name}: {why}")
    _check_calls(name, failed)
    return status


def cmd_demo(args: argparse.Namespace) -> int:
    """Replay the shipped Anthropic stream: thinking, text, then a file write that streams in."""
    tools = _tools(args) if args.policy or args.tools else None
    with resources.files("argstream").joinpath("data/demo.anthropic.jsonl").open("rb") as f:
        return _replay(wire_objects(f, "demo"), "anthropic", args, "demo", tools)


def cmd_replay(args: argparse.Namespace) -> int:
    """Replay a recorded stream, read line by line as it arrives, through the provider adapter.

    Without ``--tools`` nothing is checked against tool definitions: a recording's tools are not
    the demo's, so the policy's tool names and the calls' schemas are checked only when given."""
    tools = _load_json(args.tools, "tool list") if args.tools else None
    stream = open_input(args.file)
    try:
        return _replay(wire_objects(stream, args.file), args.provider, args, args.file, tools)
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()


# -- live and record: a real model through its official SDK -----------------------------------


def _tool_specs(tools: Any) -> list[tuple[str, str, dict[str, Any]]]:
    """``(name, description, JSON schema)`` of each tool, read by :func:`argstream.tools.tool_schemas`."""
    from .tools import tool_schemas

    if not isinstance(tools, (dict, list)):
        raise CommandError("a tool list is a JSON array or a {name: schema} object")
    try:
        schemas = tool_schemas(tools)
    except (ValueError, TypeError, AttributeError) as exc:
        raise CommandError(f"--tools: {visible_line(str(exc))[:200]}") from None
    descriptions: dict[str, str] = {}
    for tool in tools if isinstance(tools, list) else ():
        inner = tool.get("function", tool) if isinstance(tool, dict) else {}
        descriptions[str(inner.get("name"))] = str(inner.get("description", ""))
    specs = []
    for name, schema in schemas.items():
        if not isinstance(schema, dict):
            raise CommandError(f"tool {visible_line(name)}: its schema is not a JSON object")
        specs.append((name, descriptions.get(name, ""), schema))
    return specs


def _sdk(module: str, extra: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError:
        raise CommandError(f"--provider {extra} needs its SDK: pip install 'argstream[{extra.split('_')[0]}]'") from None


def _request(args: argparse.Namespace, tools: Any) -> Any:
    """Start the streaming request through the provider's official SDK; the SDK's stream object."""
    specs = _tool_specs(tools)
    messages = [{"role": "user", "content": args.prompt}]
    functions = [{"name": n, "description": d, "parameters": s} for n, d, s in specs]
    if args.provider == "anthropic":
        anthropic = _sdk("anthropic", "anthropic")
        if not (os.environ.get("ANTHROPIC_API_KEY") or os.environ.get("ANTHROPIC_AUTH_TOKEN")):
            raise CommandError("anthropic: no API key: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN)")
        client = anthropic.Anthropic(base_url=args.base_url, max_retries=0)
        return client.messages.create(
            model=args.model, max_tokens=args.max_tokens, messages=messages, stream=True,
            tools=[{"name": n, "description": d, "input_schema": s} for n, d, s in specs],
        )
    if args.provider in ("openai_chat", "openai_responses"):
        openai = _sdk("openai", args.provider)
        client = openai.OpenAI(base_url=args.base_url, max_retries=0)
        if args.provider == "openai_chat":
            return client.chat.completions.create(
                model=args.model, messages=messages, stream=True, max_completion_tokens=args.max_tokens,
                tools=[{"type": "function", "function": f} for f in functions],
            )
        return client.responses.create(
            model=args.model, input=args.prompt, stream=True, max_output_tokens=args.max_tokens,
            tools=[{"type": "function", **f} for f in functions],
        )
    if args.provider == "gemini":
        genai = _sdk("google.genai", "gemini")
        types = importlib.import_module("google.genai.types")
        try:
            client = genai.Client(http_options=types.HttpOptions(base_url=args.base_url) if args.base_url else None)
        except ValueError as exc:  # no API key in the environment
            raise CommandError(f"gemini: {exc}") from None
        declarations = [types.FunctionDeclaration(name=n, description=d, parameters_json_schema=s) for n, d, s in specs]
        config = types.GenerateContentConfig(tools=[types.Tool(function_declarations=declarations)],
                                             max_output_tokens=args.max_tokens)
        return _holding(client, client.models.generate_content_stream(model=args.model, contents=args.prompt,
                                                                        config=config))
    ollama = _sdk("ollama", "ollama")
    client = ollama.Client(host=args.base_url)
    return client.chat(model=args.model, messages=messages, stream=True,
                       tools=[{"type": "function", "function": f} for f in functions])


def _holding(client: Any, stream: Iterable[Any]) -> Iterator[Any]:
    """``stream``, keeping ``client`` alive while it is read (google-genai closes its HTTP client when collected)."""
    try:
        yield from stream
    finally:
        del client


def _wire_dict(obj: Any) -> Any:
    """An SDK stream object as the wire JSON it was decoded from."""
    dump = getattr(obj, "model_dump", None)
    return dump(mode="json", exclude_unset=True, by_alias=True) if dump is not None else obj


_SDK_ERRORS = {
    "anthropic": ("anthropic", ("AnthropicError",)),
    "openai_chat": ("openai", ("OpenAIError",)),
    "openai_responses": ("openai", ("OpenAIError",)),
    "gemini": ("google.genai.errors", ("APIError",)),
    "ollama": ("ollama", ("ResponseError", "RequestError")),
}


def _sdk_errors(provider: str) -> tuple[type[BaseException], ...]:
    """The SDK's own error classes, reported as one line (a refused key, a dropped connection),
    with httpx's, which some SDKs let through (Ollama's client on a refused connection)."""
    module, names = _SDK_ERRORS[provider]
    sdk = sys.modules.get(module)
    errors = tuple(getattr(sdk, n) for n in names if isinstance(getattr(sdk, n, None), type))
    httpx = sys.modules.get("httpx")
    transport = (httpx.HTTPError, httpx.StreamError) if httpx is not None else ()
    return errors + transport + (ConnectionError,)


def cmd_live(args: argparse.Namespace) -> int:
    """Ask the model, render its answer live with the policy decisions; never run a tool."""
    from .providers import ProviderProtocolError

    tools = _tools(args)
    if args.policy:
        _policies(args, tools)  # a policy mistake is reported before the request is made
    try:
        stream = _request(args, tools)
        if not args.policy:
            status, _, failed = _render_stream(stream, args.provider, args, tools)
        else:
            module = importlib.import_module(f"argstream.providers.{args.provider}")
            status, result = _render_with_policy(module.to_events(stream), getattr(stream, "close", None), args, tools)
            failed = _failed_calls(result.calls)
    except _sdk_errors(args.provider) as exc:
        raise CommandError(f"{args.provider}: {visible_line(str(exc))[:500]}") from None
    except ProviderProtocolError as exc:
        raise CommandError(f"{args.provider}: the stream broke its format: {visible_line(str(exc))[:300]}") from None
    _check_calls(args.provider, failed)
    return status


def cmd_record(args: argparse.Namespace) -> int:
    """Write the model's stream as wire JSON, one event a line, for ``replay``."""
    tools = _tools(args)
    out = sys.stdout
    try:
        for event in _request(args, tools):
            out.write(json.dumps(_wire_dict(event), ensure_ascii=False) + "\n")
            out.flush()
    except _sdk_errors(args.provider) as exc:
        raise CommandError(f"{args.provider}: {visible_line(str(exc))[:500]}") from None
    return 0


# -- the command line ---------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    ap = _ArgumentParser(prog="argstream", description=f"Incremental tool-call argument parsing ({BACKEND} core).")
    ap.add_argument("--version", action="version", version=f"argstream {__version__} ({BACKEND} core)")
    sub = ap.add_subparsers(dest="command", required=True, parser_class=_ArgumentParser)
    delay = _number(float, 0, "a number of seconds from 0 to 3600", 3600)

    render = _ArgumentParser(add_help=False)
    render.add_argument("--style", choices=["function_call", "json", "off"], default="function_call",
                        help="how tool call arguments are drawn (RFD D26 display styles)")
    render.add_argument("--color", action=argparse.BooleanOptionalAction, default=None,
                        help="force colour on or off (default: rich decides: terminal, NO_COLOR, FORCE_COLOR)")
    render.add_argument("--no-reasoning", dest="reasoning", action="store_false", help="hide the model's reasoning")
    render.add_argument("--lenient", action="store_true",
                        help="repair almost-right argument JSON (each call's repairs are shown; docs/lenient.md)")
    render.add_argument("--text-tool-calls", metavar="FORMAT", choices=(*TEXT_FORMATS, "auto"),
                        help=f"read tool calls the model wrote in its text: {', '.join(TEXT_FORMATS)} or auto")
    policy = _ArgumentParser(add_help=False)
    policy.add_argument("--policy", metavar="TOML", help="decide tool calls by this policy file while they stream")
    policy.add_argument("--tools", metavar="JSON",
                        help="the tool definitions (Anthropic, OpenAI or {name: schema}); default: the demo's")
    policy.add_argument("--answer", choices=["yes", "no"], help="answer every policy prompt (default: ask)")
    sdk = _ArgumentParser(add_help=False)
    sdk.add_argument("--provider", required=True, choices=SDK_PROVIDERS, help="the official SDK to call")
    sdk.add_argument("--model", required=True, help="the model name")
    sdk.add_argument("--base-url", help="the API's address (default: the SDK's; any compatible server)")
    sdk.add_argument("--max-tokens", type=_number(int, 1, "a positive number"), default=4096)
    sdk.add_argument("prompt", help="what to ask the model")

    d = sub.add_parser("demo", parents=[render, policy], help="replay a recorded tool-calling stream and render it live")
    d.add_argument("--delay", type=delay, default=0.03, help="seconds between wire events (0 for none)")
    d.set_defaults(func=cmd_demo)
    r = sub.add_parser("replay", parents=[render, policy], help="render a recorded stream as it is read")
    r.add_argument("file", help="one wire JSON object a line, or raw SSE; '-' reads standard input as it arrives")
    r.add_argument("--provider", choices=PROVIDERS, help="the wire format (default: detected from the first event)")
    r.add_argument("--delay", type=delay, default=0.0, help="seconds between wire events")
    r.set_defaults(func=cmd_replay)
    p = sub.add_parser("parse", help="print the fragments of JSON as it is read, one a line")
    p.add_argument("file", nargs="?", default="-", help="the JSON file; '-' (default) reads standard input")
    p.add_argument("--chunk-size", type=_number(int, 0, "a size in bytes (0 or more)"), default=0,
                   help="feed the input in pieces of this many bytes (default: as it arrives)")
    p.add_argument("--flat", action="store_true", help="print (path, leaf) pairs instead of nested fragments")
    p.add_argument("--max-depth", type=_number(int, 1, "a depth of 1 or more"), default=None,
                   help="the deepest nesting accepted (default: 64 for nested fragments, 512 with --flat)")
    p.add_argument("--format", choices=["repr", "json"], default="repr",
                   help="repr: Python reprs; json: one {\"path\": [...], \"fragment\": {...}} object a line")
    p.add_argument("--sample", action="store_true", help="parse the sample tool call shipped with the package")
    p.set_defaults(func=cmd_parse)
    live = sub.add_parser("live", parents=[render, policy, sdk], help="ask a model and render its answer live")
    live.set_defaults(func=cmd_live)
    rec = sub.add_parser("record", parents=[sdk], help="write a model's stream for replay (one wire event a line)")
    rec.add_argument("--tools", metavar="JSON", help="the tool definitions; default: the demo's")
    rec.set_defaults(func=cmd_record)
    return ap


def _quiet_stdout() -> None:
    """After a closed pipe: point standard output at /dev/null so the exit flush cannot fail too."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _fail(message: str, err: IO[str]) -> None:
    err.write(f"argstream: {visible_line(message)}\n")
    err.flush()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; the exit status is returned (``sys.exit(main())``)."""
    try:
        args = build_parser().parse_args(argv)
        return int(args.func(args))
    except CommandError as exc:
        _fail(str(exc), sys.stderr)
        return exc.status
    except KeyboardInterrupt:
        if sys.stderr.isatty():  # the ^C left the cursor mid-line (a prompt, a streaming string)
            sys.stderr.write("\n")
        _fail("interrupted", sys.stderr)
        return 130
    except BrokenPipeError:
        _quiet_stdout()
        return 141


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
