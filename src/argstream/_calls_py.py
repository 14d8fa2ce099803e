"""One tool call's argument state, and the progress item it hands out per fragment: the reference for ``_calls.pyx``.

:class:`ArgumentCall` is the per-call object of the one-pass pipeline: it owns the call's parser
(flat fragments), the aggregator that builds the value as it goes, and the schema validator, and
turns one argument chunk into its ``ToolCallArgumentProgress`` items in one loop. A string piece
that continues the string already open at the same path (the parser hands out one path tuple for
all of them) is appended to that string's pieces directly, without a trip through the aggregator.

:class:`ToolCallArgumentProgress` keeps the fragment flat (``path``, ``leaf``) and builds the nested
``fragment`` of RFD 043 on first access, with the fragment types of the parser that made the leaf.
"""

from __future__ import annotations

import json
import re
from typing import Any, ClassVar

from ._fragments_py import DONE, Empty
from ._fragments_py import ArrayItem as _ArrayItemPy
from ._fragments_py import ObjectEntry as _ObjectEntryPy
from ._fragments_py import Scalar as _ScalarPy
from ._fragments_py import String as _StringPy
from . import _backend
from ._backend import STRING_TYPES
from ._pieces_py import PIECES_EVERY, compact_pieces
from .errors import ArgumentStreamError
from .fragments import flatten, nest

__all__ = ["ArgumentCall", "ToolCallArgumentProgress", "nest_twin", "walkable", "walk", "walk_spans", "whole_items"]

WALK_MAX_DEPTH = 256
"""The deepest value :func:`walkable` accepts (the compiled ``compact`` writes no deeper value)."""

_SURROGATE = re.compile("[\ud800-\udfff]")
_EMPTY_OBJECT, _EMPTY_ARRAY, _EMPTY_STRING = Empty("object"), Empty("array"), Empty("string")
#: the parsers whose fragments :func:`walk` reproduces (a user's subclass may differ)
_STRICT_PARSERS = frozenset(c for c in (_backend.IncrementalArgParserPy, _backend.IncrementalArgParserC) if c is not None)


def nest_twin(path: tuple[Any, ...], leaf: Any) -> Any:
    """``nest`` with the pure twin's wrapper types (for leaves that the twin's parser made)."""
    fragment = leaf
    for step in reversed(path):
        fragment = _ObjectEntryPy(step, fragment) if type(step) is str else _ArrayItemPy(step, fragment)
    return fragment


class ToolCallArgumentProgress:
    """Ephemeral: one argument fragment of a tool call still streaming. Never persisted.

    Beyond the fragment (RFD 043), it carries what every consumer needs so that none has to
    work it out again: ``path`` and ``leaf`` (the fragment flattened: keys and indexes from the
    argument root, and ``Scalar`` / ``String`` / ``Empty`` / ``DONE``), ``completed`` (the
    ``Completed(path, value)`` that this fragment closed, or ``None``) and ``index`` (the
    call's index in the response). With a lenient parser, ``repairs`` holds the repairs
    (``argstream.errors.Repair``) of the input that this fragment is the first to come from
    (``()`` otherwise). Equality compares the call and the fragment only.
    Immutable; built from ``(tool_call_id, tool_name, fragment)`` by hand, or from the flat form
    by the pipeline (then ``fragment`` is nested on first access).
    """

    __slots__ = ("tool_call_id", "tool_name", "path", "leaf", "completed", "index", "repairs", "_fragment",
                 "_twin")
    __match_args__: ClassVar[tuple[str, ...]] = ("tool_call_id", "tool_name", "fragment")

    tool_call_id: str
    tool_name: str
    path: tuple[str | int, ...]
    leaf: Any
    completed: Any
    index: int
    repairs: tuple[Any, ...]
    _fragment: Any
    _twin: bool

    def __init__(self, tool_call_id: str, tool_name: str, fragment: Any = None, path: tuple[Any, ...] = (),
                 leaf: Any = None, completed: Any = None, index: int = 0) -> None:
        if leaf is None:
            if fragment is None:
                raise TypeError("ToolCallArgumentProgress needs a fragment (or its path and leaf)")
            path, leaf = flatten(fragment)
        setter = object.__setattr__
        setter(self, "tool_call_id", tool_call_id)
        setter(self, "tool_name", tool_name)
        setter(self, "path", tuple(path))
        setter(self, "leaf", leaf)
        setter(self, "completed", completed)
        setter(self, "index", index)
        setter(self, "repairs", ())
        setter(self, "_fragment", fragment)
        setter(self, "_twin", False)

    @classmethod
    def _make(cls, tool_call_id: str, tool_name: str, path: tuple[Any, ...], leaf: Any, completed: Any,
              index: int, twin: bool) -> ToolCallArgumentProgress:
        """The pipeline's constructor: no checks, the fragment nested lazily."""
        self = object.__new__(cls)
        setter = object.__setattr__
        setter(self, "tool_call_id", tool_call_id)
        setter(self, "tool_name", tool_name)
        setter(self, "path", path)
        setter(self, "leaf", leaf)
        setter(self, "completed", completed)
        setter(self, "index", index)
        setter(self, "repairs", ())
        setter(self, "_fragment", None)
        setter(self, "_twin", twin)
        return self

    def _note_repairs(self, repairs: tuple[Any, ...]) -> None:
        """The pipeline's: the repairs this fragment is the first to come from (set once, before it is handed out)."""
        object.__setattr__(self, "repairs", repairs)

    @property
    def fragment(self) -> Any:
        """The nested fragment (``ObjectEntry`` / ``ArrayItem`` around ``leaf``), built once."""
        fragment = self._fragment
        if fragment is None:
            fragment = (nest_twin if self._twin else nest)(self.path, self.leaf)
            object.__setattr__(self, "_fragment", fragment)
        return fragment

    def to_dict(self) -> Any:
        """This item as JSON-ready data (see :mod:`argstream.jsonform`)."""
        from .jsonform import to_dict

        return to_dict(self)

    @classmethod
    def from_dict(cls, data: Any) -> Any:
        """The item that :meth:`to_dict` gave ``data`` for. Raises ``ValueError`` for any other data."""
        from .jsonform import from_dict

        return from_dict(cls, data)

    @property
    def parameter(self) -> str | None:
        """The top-level parameter this fragment belongs to (``None`` for the root's own fragments)."""
        path = self.path
        first = path[0] if path else None
        return first if type(first) is str else None

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}")

    def __eq__(self, other: Any) -> bool:
        if not isinstance(other, _backend.PROGRESS_TYPES):
            return NotImplemented
        return (self.tool_call_id == other.tool_call_id and self.tool_name == other.tool_name
                and self.path == other.path and self.leaf == other.leaf)

    def __ne__(self, other: Any) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self) -> int:
        return hash((self.tool_call_id, self.tool_name, self.path, self.leaf))

    def __repr__(self) -> str:
        return (f"ToolCallArgumentProgress(tool_call_id={self.tool_call_id!r}, tool_name={self.tool_name!r}, "
                f"fragment={self.fragment!r}, path={self.path!r}, leaf={self.leaf!r}, "
                f"completed={self.completed!r}, index={self.index!r})")

    def __reduce__(self) -> Any:
        return (_rebuild, (self.tool_call_id, self.tool_name, self.path, self.leaf, self.completed, self.index,
                           self._twin))


def _rebuild(tool_call_id: str, tool_name: str, path: tuple[Any, ...], leaf: Any, completed: Any, index: int,
             twin: bool) -> ToolCallArgumentProgress:
    return ToolCallArgumentProgress._make(tool_call_id, tool_name, path, leaf, completed, index, twin)


def _plain_string(text: str) -> bool:
    return text.isascii() or _SURROGATE.search(text) is None


def _plain_scalar(value: Any, t: type) -> bool:
    """``None``, a ``bool``, an ``int`` within 64 bits or a finite ``float`` (``t`` is its type)."""
    if value is None or t is bool:
        return True
    if t is int:
        return -(1 << 63) <= value < (1 << 63)
    return t is float and value - value == 0.0  # finite: inf - inf and nan - nan are nan


def walkable(value: Any, depth: int = 0) -> bool:
    """Whether ``value``, arguments a provider sent whole and decoded, can reach the call as the value
    (``events.WholeArguments``) rather than as its compact JSON text.

    Exact ``dict`` with ``str`` keys, ``list``, ``tuple``, ``str`` without a lone surrogate, ``int``
    within 64 bits, finite ``float``, ``bool`` and ``None``, nested at most ``WALK_MAX_DEPTH`` deep:
    the values whose compact text (``_encode.compact``, ``json.dumps``) parses back to the value
    itself, fragment for fragment. Anything else is written and parsed, as before.
    """
    t = type(value)
    if t is str:
        return _plain_string(value)
    if t is dict or t is list or t is tuple:
        if depth >= WALK_MAX_DEPTH:
            return False
        if t is dict:
            return all(type(k) is str and _plain_string(k) and walkable(v, depth + 1) for k, v in value.items())
        return all(walkable(v, depth + 1) for v in value)
    return _plain_scalar(value, t)


def walk(value: Any, max_depth: int, string: Any = _StringPy, scalar: Any = _ScalarPy) -> list[Any] | None:
    """The flat fragments a strict parser (``max_depth``, leaves made by ``string`` and ``scalar``) gives
    for the compact JSON text of ``value`` in one push, taken from the value itself in one pass; ``None``
    when the value is not :func:`walkable` or nests deeper than ``max_depth`` (then the text decides),
    and for a number at the root, whose text the parser holds until it ends (a digit could follow)."""
    if type(value) is int or type(value) is float:
        return None
    out: list[Any] = []
    return out if _walk(value, (), 0, min(max_depth, WALK_MAX_DEPTH), string, scalar, out) else None


def whole_items(call_id: str, name: str, index: int, value: Any, max_depth: int, aggregator: Any) -> list[Any] | None:
    """The progress items of a tool call sent whole that opens and closes at once, ``value`` its decoded
    arguments: those a new call of the strict parser (``max_depth``, twin leaves) gives from
    ``push_value(value)``, each fragment pushed into ``aggregator`` (new), without the call, whose
    parser would only be told that the text ended. ``None``, with nothing pushed, for a value that is
    no ``dict`` or that :func:`walk` declines (then the call takes the general way)."""
    fragments = walk(value, max_depth) if type(value) is dict else None
    if fragments is None:
        return None
    make = ToolCallArgumentProgress._make
    push = aggregator.push
    return [make(call_id, name, pair[0], pair[1], push(pair), index, True) for pair in fragments]


def walk_spans(value: Any, max_depth: int, string: Any = _StringPy,
               scalar: Any = _ScalarPy) -> tuple[list[Any], list[tuple[int, int]], list[Any]] | None:
    """:func:`walk` with what a parser made with ``spans=True`` records for that one push: the fragments,
    their ``spans`` and the ``keys``, offsets into the compact text (never written: each string's length
    there is counted). A schema check of whole arguments reads these, so its violations name the
    offsets the text would have given."""
    if type(value) is int or type(value) is float:
        return None
    out: list[Any] = []
    spans: list[tuple[int, int]] = []
    keys: list[Any] = []
    at = _walk_spans(value, (), 0, min(max_depth, WALK_MAX_DEPTH), string, scalar, out, spans, keys, 0)
    return None if at < 0 else (out, spans, keys)


def _body_length(text: str) -> int:
    """Characters of ``text`` between its quotes in compact JSON (``ensure_ascii=False``)."""
    return len(json.dumps(text, ensure_ascii=False)) - 2


def _walk_spans(value: Any, path: tuple[Any, ...], depth: int, max_depth: int, string: Any, scalar: Any,
                out: list[Any], spans: list[tuple[int, int]], keys: list[Any], at: int) -> int:
    """:func:`_walk` from offset ``at`` of the compact text: the offset after ``value``, or -1 where
    :func:`_walk` gives ``False``."""
    t = type(value)
    if t is str:
        if not _plain_string(value):
            return -1
        end = at + 1 + _body_length(value)  # the closing quote
        if value:
            out.append((path, string(value)))
            spans.append((at + 1, end))
        else:
            out.append((path, _EMPTY_STRING))
            spans.append((end, end + 1))
        out.append((path, DONE))
        spans.append((end, end + 1))
        return end + 1
    if t is dict or t is list or t is tuple:
        if depth >= max_depth:
            return -1
        if not value:
            out.append((path, _EMPTY_OBJECT if t is dict else _EMPTY_ARRAY))
            spans.append((at + 1, at + 2))
            out.append((path, DONE))
            spans.append((at + 1, at + 2))
            return at + 2
        at += 1  # the opening brace or bracket
        for n, (step, item) in enumerate(value.items() if t is dict else enumerate(value)):
            at += n > 0  # the comma
            if t is dict:
                if type(step) is not str or not _plain_string(step):
                    return -1
                at += 1 + _body_length(step)  # the key's closing quote
                keys.append((len(out), path + (step,), (at, at + 1)))
                at += 2  # the quote and the colon
            at = _walk_spans(item, path + (step,), depth + 1, max_depth, string, scalar, out, spans, keys, at)
            if at < 0:
                return -1
        out.append((path, DONE))
        spans.append((at, at + 1))  # the closing brace or bracket
        return at + 1
    if not _plain_scalar(value, t):
        return -1
    end = at + len(json.dumps(value))
    out.append((path, scalar(value)))
    spans.append((at, end))
    out.append((path, DONE))
    # a number ends at the character after it (never at the root here); a literal at its last letter
    spans.append((end, end + 1) if t is int or t is float else (end - 1, end))
    return end


def _walk(value: Any, path: tuple[Any, ...], depth: int, max_depth: int, string: Any, scalar: Any,
          out: list[Any]) -> bool:
    """Append ``value``'s fragments to ``out``; ``False`` as soon as :func:`walkable` would refuse it."""
    t = type(value)
    if t is str:
        if not _plain_string(value):
            return False
        out.append((path, string(value) if value else _EMPTY_STRING))
    elif t is dict or t is list or t is tuple:
        if depth >= max_depth:
            return False
        if not value:
            out.append((path, _EMPTY_OBJECT if t is dict else _EMPTY_ARRAY))
        for step, item in (value.items() if t is dict else enumerate(value)):
            if t is dict and (type(step) is not str or not _plain_string(step)):
                return False
            if not _walk(item, path + (step,), depth + 1, max_depth, string, scalar, out):
                return False
    elif _plain_scalar(value, t):
        out.append((path, scalar(value)))
    else:
        return False
    out.append((path, DONE))
    return True


class ArgumentCall:
    """One tool call's arguments as they stream: its parser, aggregator and validator, and its flags.

    ``push(text)`` parses one chunk and returns its progress items (instances of ``progress``, the
    backend's ``ToolCallArgumentProgress``). ``error`` is set when the text stops being valid
    JSON (the items of the fragments before the error are still returned). ``failed`` and
    ``violated`` say whether the stream has reported the error and the first violation; ``seen``
    whether a non-whitespace character arrived. A parser without ``flat=True`` (a user's own
    factory) works too, at the cost of flattening each fragment.
    """

    __slots__ = ("id", "name", "index", "parser", "aggregator", "validator", "spans", "error", "seen", "failed",
                 "violated", "flat", "twin", "progress", "lenient", "_open_path", "_open_pieces", "_repaired")

    def __init__(self, parser: Any, aggregator: Any, progress: Any, index: int = 0) -> None:
        self.id = ""
        self.name = ""
        self.index = index
        self.parser = parser
        self.aggregator = aggregator
        self.validator: Any = None
        self.spans = False  # hand the parser's spans to the validator
        self.error: ArgumentStreamError | None = None
        self.seen = False
        self.failed = False
        self.violated = False
        self.flat = getattr(parser, "flat", False) is True
        self.twin = type(parser).__module__.endswith("._parser_py")
        self.progress = progress
        self.lenient = getattr(parser, "lenient", False) is True
        self._open_path: Any = None  # the path of the string still open, whose pieces list is below
        self._open_pieces: Any = None
        self._repaired = 0  # the parser's repairs already put on a progress item

    def _absorb(self, pair: Any) -> Any:
        """Push one flat fragment ``(path, leaf)`` into the aggregator (a piece that continues the open
        string straight onto its pieces): the ``Completed`` it closed, or ``None``."""
        path, leaf = pair
        if path is self._open_path and type(leaf) in STRING_TYPES:
            self._open_pieces.append(leaf.text)
            if not len(self._open_pieces) & (PIECES_EVERY - 1):
                compact_pieces(self._open_pieces)
            return None
        completed = self.aggregator.push(pair)
        if type(leaf) in STRING_TYPES:
            self._open_path = path
            self._open_pieces = self.aggregator.open_pieces()
        else:
            self._open_path = self._open_pieces = None  # a finished string's pieces are let go
        return completed

    def note_repairs(self, out: list[Any]) -> None:
        """Put the parser's repairs not yet handed out on the first of ``out`` (a lenient parser's items)."""
        repairs = self.parser.repairs
        if out and len(repairs) > self._repaired and hasattr(out[0], "_note_repairs"):
            out[0]._note_repairs(tuple(repairs[self._repaired:]))
            self._repaired = len(repairs)

    def push(self, text: str) -> list[Any]:
        """Parse one chunk of argument text; return a progress item per fragment."""
        if self.error is not None or not text:
            return []
        if not self.seen and not text.isspace():
            self.seen = True
        try:
            fragments = self.parser.push(text)
        except ArgumentStreamError as exc:
            self.error = exc
            fragments = getattr(exc, "fragments", None) or []
        if self.validator is not None:  # before any return: a key can end a chunk that has no fragment
            if self.spans:
                keys = getattr(self.parser, "keys", None)
                if fragments or keys:  # a push that read nothing whole (half a key) has nothing to check
                    self.validator.extend(fragments, self.parser.spans, keys)
            elif fragments:
                self.validator.extend(fragments)
        if not fragments:
            return []
        return self._items(fragments)

    def push_value(self, value: Any) -> list[Any]:
        """The items of arguments a provider sent whole, as their decoded value (``events.WholeArguments``):
        those ``push`` gives for the value's compact JSON text.

        A fresh call of the strict parser takes the fragments from the value itself (:func:`walk`: no
        text written, none parsed, each string handed on as the very object); its schema check gets
        them with the spans and keys the parser would have recorded (:func:`walk_spans`). Any other
        call, and a value the walk declines, gets the text.
        """
        parser = self.parser
        if (self.error is None and not self.seen and self.flat and not self.lenient
                and type(parser) in _STRICT_PARSERS):
            leaves = (_StringPy, _ScalarPy) if self.twin else (_backend.String, _backend.Scalar)
            spans: Any = None
            keys: Any = None
            accept = getattr(self.validator, "accept_whole", None)
            if accept is not None:  # a value that certainly passes needs no fragment checked (``schema.whole``)
                fragments = walk(value, parser.max_depth, *leaves)
                if fragments is not None and accept(value):
                    self.seen = True
                    parser.push('""')
                    return self._items(fragments)
            if self.validator is not None and self.spans:
                fragments, spans, keys = walk_spans(value, parser.max_depth, *leaves) or (None, None, None)
            else:
                fragments = walk(value, parser.max_depth, *leaves)
            if fragments is not None:
                self.seen = True
                parser.push('""')  # the parser ends where the text would have left it: more text is an error
                if self.validator is not None:  # as ``push`` feeds it that text's one push
                    if self.spans:
                        self.validator.extend(fragments, spans, keys)
                    elif fragments:
                        self.validator.extend(fragments)
                return self._items(fragments)
        return self.push(json.dumps(value, ensure_ascii=False, separators=(",", ":")))

    def _items(self, fragments: list[Any]) -> list[Any]:
        """A progress item per fragment, each pushed into the aggregator (a string's later pieces directly);
        none, the fragments only aggregated, when ``progress`` is ``None``."""
        out: list[Any] = []
        progress = self.progress
        push = self.aggregator.push
        if progress is None:
            for fragment in fragments:
                if self.flat:
                    self._absorb(fragment)
                else:
                    push(fragment)
            return out
        make = progress._make
        call_id, name, index, twin = self.id, self.name, self.index, self.twin
        if self.flat:
            absorb = self._absorb
            for pair in fragments:
                out.append(make(call_id, name, pair[0], pair[1], absorb(pair), index, twin))
        else:
            for fragment in fragments:
                path, leaf = flatten(fragment)
                out.append(progress(call_id, name, fragment, path, leaf, push(fragment), index))
        if self.lenient:
            self.note_repairs(out)
        return out


class PipelineBase:
    """The fused pipeline's hot method, ``feed``: one wire item to its stream items.

    ``_chunk`` is the adapter's fast test (``None`` without one; it never raises), ``_text_chunk``
    its test for a message or reasoning text delta (``None`` without one), ``_call_chunk`` its test
    for a wire item of tool calls sent whole (``None`` without one; a hit goes to the subclass's
    ``take_calls``), ``_run`` the driver
    machinery of the generic way, ``_feed``, ``_argument`` and ``_text`` the stream state's ``feed``,
    ``argument`` and ``text``, ``_calls`` its open calls by index, ``_report`` what adds a call's
    failure and first violation, ``count`` the wire items fed so far, ``over`` whether a
    ``Finished(ERROR)`` ended the stream (read no further item).
    """

    __slots__ = ("_chunk", "_text_chunk", "_call_chunk", "_run", "_feed", "_argument", "_text", "_calls", "_report",
                 "count", "over", "state")

    #: ``(run_type, report, handle_part)``, the subclass's: the driver machinery's class (made with the
    #: adapter), the function that reports a call's failure and first violation, and the builder method
    #: that the parts the tests take would skip (a builder that overrides it gets every part the general way)
    _links: tuple[Any, Any, Any]

    _chunk: Any
    _text_chunk: Any
    _call_chunk: Any
    _run: Any
    _feed: Any
    _argument: Any
    _text: Any
    _calls: dict[int, Any]
    _report: Any
    count: int
    over: bool

    def __init__(self, adapter: Any, state: Any) -> None:
        """The pipeline of one stream: ``adapter``'s tests, ``state``'s (``stream.ToolStreamState``) methods."""
        run_type, report, parts = type(self)._links
        builder = state.builder
        self.state = state
        self._run = run_type(adapter)
        self._chunk = getattr(adapter, "chunk", None)
        own = type(builder).handle_part is parts
        self._text_chunk = getattr(adapter, "text_chunk", None) if own else None
        self._call_chunk = getattr(adapter, "call_chunk", None) if own else None
        self._argument = state.argument
        self._text = state.text
        self._feed = state.feed if state._text is not None else state._feed_one  # one call less per event
        self._calls = builder.calls
        self._report = report
        self.count = 0
        self.over = False

    def feed(self, item: Any) -> list[Any]:
        """The stream items of one wire item (see ``StreamPipeline``)."""
        chunk = self._chunk
        if chunk is not None:
            hit = chunk(item)
            if hit is not None:
                return self.take(hit)
        text_chunk = self._text_chunk
        if text_chunk is not None:
            hit = text_chunk(item)
            if hit is not None:
                return self.take_text(hit)
        call_chunk = self._call_chunk
        if call_chunk is not None:
            hit = call_chunk(item)
            if hit is not None:
                # the subclass's (``StreamPipeline``): per call, not per delta
                return self.take_calls(hit)  # type: ignore[attr-defined]
        self.count += 1
        out = []
        feed = self._feed
        for event in self._run.feed(item, self.count - 1):
            out += feed(event)
        self.over = self._run.over
        return out

    def step(self, item: Any) -> Any:
        """``feed(item)``, but the one item itself (not a list) when there is exactly one and the stream
        goes on: what the async loop yields from, without a list to walk for each argument delta.
        A list (possibly empty) means: yield each, then stop if ``over``."""
        out = self.feed(item)
        if len(out) == 1 and not self.over:
            return out[0]
        return out

    def items(self, iterator: Any) -> Any:
        """The stream items of every wire item ``iterator`` gives, in order, until it is exhausted or an
        item ends the stream (``over``); what ``iter_tool_stream`` yields from (compiled: an iterator
        object, no generator frame per item). Errors, the iterator's own included, propagate."""
        feed = self.feed
        for item in iterator:
            yield from feed(item)
            if self.over:
                return

    def take_text(self, hit: tuple[int, str, int]) -> list[Any]:
        """The stream items of a text delta the adapter's ``text_chunk`` recognised, as ``(index, text,
        kind)`` (counted as one wire item): what its one ``Message``, ``Reasoning`` or ``Structured``
        part would give (``_fastpath_py.MESSAGE_TEXT`` ...)."""
        self.count += 1
        run = self._run
        if run.finished:
            run.finished = False  # as ``_Run._passed`` has it after any event but a ``Finished``
        return self._text(hit[0], hit[1], hit[2])

    def take(self, hit: tuple[Any, str]) -> list[Any]:
        """The stream items of a dominant event the caller recognised itself, as ``(index, text)``
        from the adapter's ``chunk`` (counted as one wire item)."""
        self.count += 1
        call = self._calls.get(hit[0])
        if type(call) is not ArgumentCall:
            return self._argument(hit[0], hit[1])
        out = call.push(hit[1])
        if (call.error is not None and not call.failed) or (
                call.validator is not None and not call.violated and call.validator.violations):
            self._report(call, out)  # something to report that was not yet: the call's first violation, its failure
        return out
