"""Target for the provider adapters, through ``iter_tool_stream``: a seed stream mutated by the fuzz
bytes (events dropped, duplicated, reordered, cut; fields given other values or types; strings and
indexes changed) gives stream items or the documented errors, ``ProviderProtocolError`` and
``ArgumentStreamError``, each after a ``StreamFinished``; never another exception. Both
parser backends give the same items, and the same stream sent as raw SSE / NDJSON bytes, cut
anywhere, gives what the decoded items give; and the provider's ``to_events`` (the generic way, its
public events) gives what the fused pipeline gives, also with every call checked against a schema
(``tools=``: the violations and their offsets, where whole arguments are walked on one side and
parsed from their text on the other).
"""

from __future__ import annotations

import copy
import functools
import importlib
import json
from typing import Any, Callable

from argstream import ArgumentStreamError, ToolCallStarted, iter_tool_stream
from argstream.builder import EventBuilder
from argstream.parser import IncrementalArgParserC, IncrementalArgParserPy
from argstream.providers import ProviderProtocolError

from ._compare import stable_repr
from ._data import Draw, chunking
from .recordings import PROVIDERS, seeds

HOSTILE: list[Any] = [None, 0, -1, 1, 2, 10**30, 1.5, -0.0, True, False, "", "x", "0", "{", '{"a":', "}", [], [0], {},
                      {"a": 1}, {"type": "text"}, [[[]]], "\ud800", "\u202e", "$.a[99999999]", "$" + ".a" * 200,
                      "tool_use", "function_call", "message_stop", "response.completed", "STOP", "tool_calls"]
CLASSES = [c for c in (IncrementalArgParserC, IncrementalArgParserPy) if c is not None]


def _slots(node: Any) -> list[tuple[Any, Any]]:
    """Every (container, key) in ``node``, depth first, without recursion."""
    out: list[tuple[Any, Any]] = []
    stack = [node]
    while stack:
        node = stack.pop()
        pairs = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, value in pairs:
            out.append((node, key))
            stack.append(value)
    return out


def _edit_string(draw: Draw, text: str) -> str:
    i = draw.below(len(text) + 1)
    op = draw.below(3)
    insert = draw.pick(['"', "\\", "{", "}", "[", "]", ",", ":", " ", "\n", "é", "\ud800", "0", "a", draw.text(4)])
    if op == 0:
        return text[:i] + insert + text[i:]
    if op == 1:
        return text[:i] + text[i + 1 :]
    return text[:i] + insert + text[i + 1 :]


def mutate(draw: Draw, items: list[Any], provider: str) -> list[Any]:
    """One mutation of the stream, chosen and placed by the bytes."""
    n = len(items)
    op = draw.below(9)
    if not items:
        return [copy.deepcopy(draw.pick(seeds(provider))[0])] if seeds(provider)[0] else items
    if op == 0:  # drop
        del items[draw.below(n)]
    elif op == 1:  # duplicate
        items.insert(draw.below(n + 1), copy.deepcopy(items[draw.below(n)]))
    elif op == 2:  # reorder
        i, j = draw.below(n), draw.below(n)
        items[i], items[j] = items[j], items[i]
    elif op == 3:  # cut
        del items[draw.below(n + 1) :]
    elif op == 4:  # an item of another provider's stream
        other = draw.pick(seeds(draw.pick(PROVIDERS)))
        if other:
            items.insert(draw.below(n + 1), copy.deepcopy(draw.pick(other)))
    else:
        i = draw.below(n)
        slots = _slots(items[i])
        if not slots:
            items[i] = copy.deepcopy(draw.pick(HOSTILE))
            return items
        parent, key = slots[draw.below(len(slots))]
        value = parent[key]
        if op == 5 or not isinstance(value, (str, int)) or isinstance(value, bool):
            parent[key] = copy.deepcopy(draw.pick(HOSTILE))  # another value, often of another type
        elif isinstance(value, str):
            parent[key] = _edit_string(draw, value)
        else:  # an index or a count: a neighbour, or far away
            parent[key] = value + draw.pick([1, -1, 2, -value - 1, 1 << 40])
    return items


def _builder(cls: type) -> Callable[[], EventBuilder]:
    return lambda: EventBuilder(parser_factory=cls)


#: every argument of a checked call: a short one-line string, an integer up to 100, an object or a list
#: of at most two items; what the seeds send breaks it often, at every depth
CHECKED = {"type": "object", "additionalProperties": {
    "type": ["string", "integer", "object", "array", "boolean"], "maxLength": 8, "pattern": "^[^\\n]*$",
    "maximum": 100, "maxItems": 2}}


@functools.cache
def tools() -> dict[str, Any]:
    """``CHECKED`` for every tool the seed streams call (without its ``pattern`` where google-re2 is not
    installed: the schema check refuses a pattern it cannot run in linear time)."""
    from argstream.schema import regex

    schema = CHECKED if regex.re2 is not None else {
        "type": "object", "additionalProperties": {k: v for k, v in CHECKED["additionalProperties"].items()
                                                   if k != "pattern"}}
    names = set()
    for name in PROVIDERS:
        for items in seeds(name):
            try:
                names.update(i.name for i in iter_tool_stream(copy.deepcopy(items), name) if type(i) is ToolCallStarted)
            except Exception:  # noqa: BLE001 - a seed that ends in an error still named its calls
                pass
    return {name: schema for name in sorted(names)}


def run(stream: Any, provider: str, cls: type, generic: bool = False,
        checked: bool = False) -> tuple[list[str], str | None]:
    """The items (their stable ``repr``) and the documented error the stream ended with, if any; with
    ``generic``, through the provider's ``to_events`` (its public events) instead of the fused pipeline;
    with ``checked``, each call checked against :func:`tools` (with the builder's own parser)."""
    out: list[str] = []
    source: Any = getattr(importlib.import_module(f"argstream.providers.{provider}"), "to_events") if generic \
        else provider
    options: dict[str, Any] = {"tools": tools()} if checked else {"builder_factory": _builder(cls)}
    try:
        for item in iter_tool_stream(stream, source, **options):
            out.append(stable_repr(item))
    except (ProviderProtocolError, ArgumentStreamError) as exc:
        # the StreamFinished(ERROR) comes first; after a response that had ended (issue 18 item 3), its
        # StreamFinished, and the error is reported once
        assert out and out[-1].startswith("StreamFinished("), out[-1:]
        return out, f"{type(exc).__name__}: {exc}"
    return out, None


def encode(items: list[Any], provider: str) -> bytes:
    """The items as the provider's raw stream: NDJSON for Ollama, SSE for the others."""
    lines = [json.dumps(item, ensure_ascii=False) for item in items]
    if provider == "ollama":
        return "".join(f"{line}\n" for line in lines).encode("utf-8", "surrogatepass")
    return "".join(f"data: {line}\n\n" for line in lines).encode("utf-8", "surrogatepass")


def provider(data: bytes) -> None:
    draw = Draw(data)
    name = draw.pick(PROVIDERS)
    items = copy.deepcopy(draw.pick(seeds(name)))
    raw_cut = Draw(draw.take(9)) if draw.flag() else None
    for _ in range(draw.below(6)):
        if draw.exhausted():
            break
        items = mutate(draw, items, name)
    outcomes = [run(copy.deepcopy(items), name, cls) for cls in CLASSES]
    for other in outcomes[1:]:
        assert outcomes[0] == other, (name, items, outcomes[0], other)
    generic = run(copy.deepcopy(items), name, CLASSES[0], generic=True)
    assert generic == outcomes[0], (name, items, outcomes[0], generic)
    checked = run(copy.deepcopy(items), name, CLASSES[0], checked=True)
    checked_generic = run(copy.deepcopy(items), name, CLASSES[0], generic=True, checked=True)
    assert checked == checked_generic, (name, items, checked, checked_generic)
    if raw_cut is not None and items and not _lone_surrogate(items):
        raw = run(iter(chunking(raw_cut, encode(items, name))), name, CLASSES[0])
        assert raw == outcomes[0], (name, items, outcomes[0], raw)


def _lone_surrogate(items: list[Any]) -> bool:
    """A lone surrogate cannot travel as UTF-8: such a stream has no raw form to compare."""
    try:
        json.dumps(items, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


__all__ = ["CHECKED", "provider", "mutate", "run", "encode", "tools"]
