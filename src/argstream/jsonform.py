"""A JSON form of every stream item, event, fragment and error, so they can be sent, logged and replayed.

``to_dict(obj)`` gives JSON-ready data (dicts, lists, strings, numbers, booleans, ``None``) and
``from_dict(cls, data)`` gives back an object equal to the original, of class ``cls``. Every
class that has a form tags it with its own name (``{"type": "TextDelta", "text": "hi", "index": 0}``);
``load(data)`` picks the class from that tag. The item and event classes carry the two as
methods (:class:`JsonForm`); the compiled fragment types cannot, so use the functions for them:
``from_dict(type(fragment), data)`` builds that backend's classes, nested ones included.

Forms, by what they hold:

- fragments: ``{"type": "ObjectEntry", "key": "path", "value": {"type": "String", "text": "src/"}}``;
- argument progress: its call (``tool_call_id``, ``tool_name``, ``index``), the flattened
  ``path`` and ``leaf``, and ``completed`` (``{"path": [...], "value": ...}`` or ``None``); the
  fragment is rebuilt from the path and the leaf;
- errors (``ArgumentStreamError``, ``IncompleteJSONError``, ``DuplicateKeyError``): ``msg``,
  ``pos``, ``line``, ``col`` (and ``key``), plus the ``fragments`` the failing chunk decoded;
- ``FinishReason``: its value, a string (``"tool_use"``);
- timestamps: ISO 8601 text with the UTC offset.

Argument values and metadata are model and wire data, already JSON values, and pass as they are
(``json.dumps`` writes a ``1e999`` argument as ``Infinity``, which ``json.loads`` reads back; a
browser's ``JSON.parse`` does not, so :mod:`argstream.ui` writes such numbers as ``null``).

Everything is looked up by ``type(obj)`` in one table, built on first use, so this module imports
nothing from the modules whose classes inherit :class:`JsonForm`.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, TypeVar

__all__ = ["JsonForm", "from_dict", "load", "to_dict"]

T = TypeVar("T")


class JsonForm:
    """Mixin that gives a class ``to_dict()`` and ``from_dict(data)`` through this module."""

    __slots__ = ()

    def to_dict(self) -> Any:
        """This object as JSON-ready data (see :mod:`argstream.jsonform`)."""
        return to_dict(self)

    @classmethod
    def from_dict(cls: type[T], data: Any) -> T:
        """The object that :meth:`to_dict` gave ``data`` for. Raises ``ValueError`` for any other data."""
        return from_dict(cls, data)


def to_dict(obj: Any) -> Any:
    """``obj`` (an item, event, fragment, error, violation or ``FinishReason``) as JSON-ready data.

    Raises:
        TypeError: ``obj`` has no JSON form.
    """
    encode = _tables()[0].get(type(obj))
    if encode is None:
        raise TypeError(f"{type(obj).__name__} has no JSON form")
    return encode(obj)


def from_dict(cls: type[T], data: Any) -> T:
    """The ``cls`` instance whose JSON form is ``data`` (equal to the object that gave it).

    Raises:
        TypeError: ``cls`` has no JSON form.
        ValueError: ``data`` is not the JSON form of a ``cls`` (wrong tag, missing or mistyped fields).
    """
    decode = _tables()[1].get(cls)
    if decode is None:
        raise TypeError(f"{getattr(cls, '__name__', cls)!r} has no JSON form")
    try:
        return decode(cls, data)
    except (KeyError, TypeError, AttributeError, IndexError) as exc:
        raise ValueError(f"not the JSON form of a {cls.__name__}: {type(exc).__name__}: {exc}") from None


def load(data: Any) -> Any:
    """The object whose JSON form is ``data``, its class told by the ``"type"`` tag.

    Raises:
        ValueError: no class has that tag, or ``data`` is not its form.
    """
    tag = data.get("type") if isinstance(data, Mapping) else None
    cls = _tables()[2].get(tag) if isinstance(tag, str) else None
    if cls is None:
        raise ValueError(f"not a tagged JSON form: {_short(data)}")
    return from_dict(cls, data)


# -- the table ---------------------------------------------------------------------------------

_TABLES: tuple[dict[type, Callable[[Any], Any]], dict[type, Callable[[Any, Any], Any]], dict[str, type]] | None = None


def _tables() -> tuple[dict[type, Callable[[Any], Any]], dict[type, Callable[[Any, Any], Any]], dict[str, type]]:
    global _TABLES
    if _TABLES is None:
        _TABLES = _build()
    return _TABLES


def _short(data: Any) -> str:
    text = repr(data)
    return text if len(text) <= 80 else text[:77] + "..."


def _tag(data: Any, cls: type) -> Mapping[str, Any]:
    if not isinstance(data, Mapping) or data.get("type") != cls.__name__:
        raise ValueError(f"not the JSON form of a {cls.__name__}: {_short(data)}")
    return data


def _str(value: Any) -> str:
    if type(value) is not str:
        raise TypeError(f"expected a string, not {type(value).__name__}")
    return value


def _int(value: Any) -> int:
    if type(value) is not int:
        raise TypeError(f"expected an integer, not {type(value).__name__}")
    return value


def _opt_int(value: Any) -> int | None:
    return None if value is None else _int(value)


def _path(value: Any) -> tuple[str | int, ...]:
    if not isinstance(value, list):
        raise TypeError(f"a path is a list, not {type(value).__name__}")
    for step in value:
        if type(step) is not str and type(step) is not int:
            raise TypeError(f"path steps are keys or indexes, not {type(step).__name__}")
    return tuple(value)


def _mapping(value: Any) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise TypeError(f"expected an object, not {type(value).__name__}")
    return dict(value)


def _build() -> tuple[dict[type, Callable[[Any], Any]], dict[type, Callable[[Any, Any], Any]], dict[str, type]]:
    from . import _backend, _fragments_py, events, stream
    from .aggregate import Completed
    from .errors import ArgumentStreamError, DuplicateKeyError, IncompleteJSONError, Repair
    from .fragments import nest
    from .schema.violation import Violation

    enc: dict[type, Callable[[Any], Any]] = {}
    dec: dict[type, Callable[[Any, Any], Any]] = {}

    # -- fragments: each backend decodes nested values into its own classes ------------------

    modules = [_fragments_py] + ([_backend.fragments_c] if _backend.fragments_c is not None else [])
    fragment_decoders: dict[Any, Callable[[Any], Any]] = {}

    def fragment_decoder(module: Any) -> Callable[[Any], Any]:
        scalar, string, item, entry = module.Scalar, module.String, module.ArrayItem, module.ObjectEntry
        Empty, DONE = _fragments_py.Empty, _fragments_py.DONE

        def decode(data: Any) -> Any:
            if not isinstance(data, Mapping):
                raise TypeError(f"a fragment is an object, not {type(data).__name__}")
            tag = data["type"]
            if tag == "String":
                text = _str(data["text"])
                if not text:
                    raise TypeError("a String fragment is never empty")
                return string(text)
            if tag == "ObjectEntry":
                return entry(_str(data["key"]), decode(data["value"]))
            if tag == "ArrayItem":
                return item(_int(data["index"]), decode(data["value"]))
            if tag == "Scalar":
                value = data["value"]
                if value is not None and type(value) not in (bool, int, float):
                    raise TypeError(f"a Scalar holds null, a boolean or a number, not {type(value).__name__}")
                return scalar(value)
            if tag == "Empty":
                kind = data["kind"]
                if kind not in ("object", "array", "string"):
                    raise TypeError(f"an Empty kind is object, array or string, not {kind!r}")
                return Empty(kind)
            if tag == "Done":
                return DONE
            raise TypeError(f"not a fragment type: {_short(tag)}")

        return decode

    for module in modules:
        fragment_decoders[module] = fragment_decoder(module)
    default_fragment = fragment_decoders[_backend.fragments_c or _fragments_py]

    def enc_fragment(fragment: Any) -> dict[str, Any]:
        cls = type(fragment)
        if cls in _backend.STRING_TYPES:
            return {"type": "String", "text": fragment.text}
        if cls in _backend.OBJECT_ENTRY_TYPES:
            return {"type": "ObjectEntry", "key": fragment.key, "value": enc_fragment(fragment.value)}
        if cls in _backend.ARRAY_ITEM_TYPES:
            return {"type": "ArrayItem", "index": fragment.index, "value": enc_fragment(fragment.value)}
        if cls in _backend.SCALAR_TYPES:
            return {"type": "Scalar", "value": fragment.value}
        if cls is _fragments_py.Empty:
            return {"type": "Empty", "kind": fragment.kind}
        if cls is _fragments_py.Done:
            return {"type": "Done"}
        raise TypeError(f"{cls.__name__} is not a fragment")

    def tagged(decode_in: Callable[[Any], Any]) -> Callable[[Any, Any], Any]:
        return lambda c, d: decode_in(_tag(d, c))

    for module in modules:
        for name in ("Scalar", "String", "ArrayItem", "ObjectEntry"):
            cls = getattr(module, name)
            enc[cls] = enc_fragment
            dec[cls] = tagged(fragment_decoders[module])
    for cls in (_fragments_py.Empty, _fragments_py.Done):
        enc[cls] = enc_fragment
        dec[cls] = lambda c, d: default_fragment(_tag(d, c))

    # -- errors and violations ---------------------------------------------------------------

    def enc_error(error: Any) -> dict[str, Any]:
        out = {"type": type(error).__name__, "msg": error.msg, "pos": error.pos, "line": error.line, "col": error.col}
        if type(error) is DuplicateKeyError:
            out["key"] = error.key
        fragments = error.fragments
        if fragments:
            out["fragments"] = [enc_fragment(f) for f in fragments]
        return out

    def dec_error(cls: Any, data: Any) -> Any:
        data = _tag(data, cls)
        args = (_str(data["msg"]), _int(data["pos"]), _int(data["line"]), _int(data["col"]))
        error = cls(*args, key=_str(data.get("key", ""))) if cls is DuplicateKeyError else cls(*args)
        if data.get("fragments"):
            error.fragments = [default_fragment(f) for f in data["fragments"]]
        return error

    errors = {cls.__name__: cls for cls in (ArgumentStreamError, IncompleteJSONError, DuplicateKeyError)}

    def enc_opt_error(error: Any) -> Any:
        return None if error is None else enc_error(error)

    def dec_opt_error(data: Any) -> Any:
        if data is None:
            return None
        cls = errors.get(str(data.get("type"))) if isinstance(data, Mapping) else None
        if cls is None:
            raise TypeError(f"not an argument error: {_short(data)}")
        return dec_error(cls, data)

    for cls in errors.values():
        enc[cls] = enc_error
        dec[cls] = dec_error

    def enc_violation(v: Any) -> dict[str, Any]:
        return {"type": "Violation", "path": list(v.path), "keyword": v.keyword, "message": v.message,
                "offset": v.offset, "schema_path": v.schema_path}

    def dec_violation(cls: Any, data: Any) -> Any:
        data = _tag(data, cls)
        return cls(_path(data["path"]), _str(data["keyword"]), _str(data["message"]), _opt_int(data["offset"]),
                   _str(data["schema_path"]))

    enc[Violation] = enc_violation
    dec[Violation] = dec_violation

    def enc_any_violation(v: Any) -> Any:
        return enc_violation(v) if type(v) is Violation else v

    def dec_any_violation(data: Any) -> Any:
        if isinstance(data, Mapping) and data.get("type") == "Violation":
            return dec_violation(Violation, data)
        return data

    # -- finish reasons and timestamps -------------------------------------------------------

    FinishReason = events.FinishReason
    enc[FinishReason] = lambda reason: reason.value
    dec[FinishReason] = lambda c, d: c(_str(d))

    # -- streaming events --------------------------------------------------------------------

    def simple(cls: type, *names: str, checks: tuple[Callable[[Any], Any], ...] = ()) -> None:
        """A class whose fields are plain JSON values (text, indexes)."""
        checks = checks or tuple(_str for _ in names)

        def encode(obj: Any) -> dict[str, Any]:
            out = {"type": cls.__name__}
            for name in names:
                out[name] = getattr(obj, name)
            return out

        def decode(c: Any, data: Any) -> Any:
            data = _tag(data, c)
            return c(*(check(data[name]) for name, check in zip(names, checks)))

        enc[cls] = encode
        dec[cls] = decode

    simple(events.ToolCallStart, "id", "name")
    simple(events.ArgumentChunk, "text")
    simple(events.Message, "text")
    simple(events.Reasoning, "text")
    simple(events.Structured, "chunk")
    simple(events.ChatMessage, "text")
    simple(events.ChatReasoning, "text")
    simple(stream.TextDelta, "text", "index", checks=(_str, _int))
    simple(stream.ReasoningDelta, "text", "index", checks=(_str, _int))
    simple(stream.StructuredDelta, "chunk", "index", checks=(_str, _int))
    simple(stream.ToolCallStarted, "id", "name", "index", checks=(_str, _str, _int))

    tool_call_parts = (events.ToolCallStart, events.ArgumentChunk)
    event_parts = (events.Message, events.Reasoning, events.Structured, events.ToolCall)

    def dec_one_of(classes: tuple[type, ...], data: Any) -> Any:
        tag = data.get("type") if isinstance(data, Mapping) else None
        for cls in classes:
            if cls.__name__ == tag:
                return dec[cls](cls, data)
        raise TypeError(f"expected one of {', '.join(c.__name__ for c in classes)}: {_short(data)}")

    enc[events.ToolCall] = lambda obj: {"type": "ToolCall", "part": enc[type(obj.part)](obj.part)}
    dec[events.ToolCall] = lambda c, d: c(dec_one_of(tool_call_parts, _tag(d, c)["part"]))
    enc[events.Part] = lambda obj: {"type": "Part", "index": obj.index, "part": enc[type(obj.part)](obj.part),
                                    "metadata": dict(obj.metadata)}
    dec[events.Part] = lambda c, d: c(_int(_tag(d, c)["index"]), dec_one_of(event_parts, d["part"]),
                                      _mapping(d.get("metadata", {})))
    enc[events.Flush] = lambda obj: {"type": "Flush", "index": obj.index, "metadata": dict(obj.metadata)}
    dec[events.Flush] = lambda c, d: c(_int(_tag(d, c)["index"]), _mapping(d.get("metadata", {})))
    enc[events.Finished] = lambda obj: {"type": "Finished", "reason": obj.reason.value, "metadata": dict(obj.metadata)}
    dec[events.Finished] = lambda c, d: c(FinishReason(_str(_tag(d, c)["reason"])), _mapping(d.get("metadata", {})))

    # -- persisted events --------------------------------------------------------------------

    enc[events.ChatStructured] = lambda obj: {"type": "ChatStructured", "data": obj.data,
                                              "error": enc_opt_error(obj.error)}
    dec[events.ChatStructured] = lambda c, d: c(_tag(d, c)["data"], dec_opt_error(d.get("error")))

    def enc_request(obj: Any) -> dict[str, Any]:
        return {"type": "ToolCallRequest", "id": obj.id, "name": obj.name, "arguments": obj.arguments,
                "error": enc_opt_error(obj.error), "violations": [enc_any_violation(v) for v in obj.violations]}

    def dec_request(cls: Any, data: Any) -> Any:
        data = _tag(data, cls)
        return cls(_str(data["id"]), _str(data["name"]), _mapping(data["arguments"]),
                   dec_opt_error(data.get("error")), tuple(dec_any_violation(v) for v in data.get("violations", ())))

    enc[events.ToolCallRequest] = enc_request
    dec[events.ToolCallRequest] = dec_request
    kinds = (events.ChatMessage, events.ChatReasoning, events.ChatStructured, events.ToolCallRequest)

    def enc_conversation(obj: Any) -> dict[str, Any]:
        return {"type": "ConversationEvent", "kind": enc[type(obj.kind)](obj.kind),
                "timestamp": obj.timestamp.isoformat(), "metadata": dict(obj.metadata)}

    def dec_conversation(cls: Any, data: Any) -> Any:
        data = _tag(data, cls)
        try:
            timestamp = datetime.fromisoformat(_str(data["timestamp"]))
        except ValueError as exc:
            raise TypeError(str(exc)) from None
        return cls(dec_one_of(kinds, data["kind"]), timestamp, _mapping(data.get("metadata", {})))

    enc[events.ConversationEvent] = enc_conversation
    dec[events.ConversationEvent] = dec_conversation

    def enc_opt_event(event: Any) -> Any:
        return None if event is None else enc_conversation(event)

    def dec_opt_event(data: Any) -> Any:
        return None if data is None else dec_conversation(events.ConversationEvent, data)

    # -- argument progress: the call, path, leaf and completed value -------------------------

    def enc_progress(obj: Any) -> dict[str, Any]:
        completed = obj.completed
        return {
            "type": "ToolCallArgumentProgress", "tool_call_id": obj.tool_call_id, "tool_name": obj.tool_name,
            "index": obj.index, "path": list(obj.path), "leaf": enc_fragment(obj.leaf),
            "completed": None if completed is None else {"path": list(completed.path), "value": completed.value},
            **({"repairs": [{"kind": r.kind, "pos": r.pos} for r in obj.repairs]} if obj.repairs else {}),
        }

    def dec_progress(cls: Any, data: Any) -> Any:
        data = _tag(data, cls)
        path = _path(data["path"])
        leaf = default_fragment(data["leaf"])
        if type(leaf) in _backend.OBJECT_ENTRY_TYPES or type(leaf) in _backend.ARRAY_ITEM_TYPES:
            raise TypeError("a progress leaf is a Scalar, String, Empty or Done")
        done = data.get("completed")
        completed = None if done is None else Completed(_path(_mapping(done)["path"]), done["value"])
        item = _make_progress(cls, _str(data["tool_call_id"]), _str(data["tool_name"]), nest, path, leaf, completed,
                              _int(data["index"]))
        repairs = tuple(Repair(_str(_mapping(r)["kind"]), _int(r["pos"])) for r in data.get("repairs", ()))
        if repairs:
            item._note_repairs(repairs)
        return item

    for progress_type in _backend.PROGRESS_TYPES:
        enc[progress_type] = enc_progress
        dec[progress_type] = dec_progress

    # -- the other stream items --------------------------------------------------------------

    enc[stream.ToolCallFailed] = lambda obj: {"type": "ToolCallFailed", "id": obj.id, "name": obj.name,
                                              "error": enc_error(obj.error), "index": obj.index}
    dec[stream.ToolCallFailed] = lambda c, d: c(_str(_tag(d, c)["id"]), _str(d["name"]),
                                                dec_opt_error(d["error"]) or _missing("error"), _int(d["index"]))
    enc[stream.ToolCallViolation] = lambda obj: {"type": "ToolCallViolation", "id": obj.id, "name": obj.name,
                                                 "violation": enc_any_violation(obj.violation), "index": obj.index}
    dec[stream.ToolCallViolation] = lambda c, d: c(_str(_tag(d, c)["id"]), _str(d["name"]),
                                                   dec_any_violation(d["violation"]), _int(d["index"]))

    def enc_finished(obj: Any) -> dict[str, Any]:
        return {"type": "ToolCallFinished", "id": obj.id, "name": obj.name, "arguments": obj.arguments,
                "error": enc_opt_error(obj.error), "index": obj.index, "event": enc_opt_event(obj.event),
                "violations": [enc_any_violation(v) for v in obj.violations],
                "repairs": [{"kind": r.kind, "pos": r.pos} for r in obj.repairs]}

    def dec_finished(cls: Any, data: Any) -> Any:
        data = _tag(data, cls)
        return cls(_str(data["id"]), _str(data["name"]), _mapping(data["arguments"]), dec_opt_error(data.get("error")),
                   _int(data["index"]), dec_opt_event(data.get("event")),
                   tuple(dec_any_violation(v) for v in data.get("violations", ())),
                   tuple(Repair(_str(_mapping(r)["kind"]), _int(r["pos"])) for r in data.get("repairs", ())))

    enc[stream.ToolCallFinished] = enc_finished
    dec[stream.ToolCallFinished] = dec_finished

    def enc_stream_finished(obj: Any) -> dict[str, Any]:
        return {"type": "StreamFinished", "reason": obj.reason.value,
                "events": [enc_conversation(e) for e in obj.events],
                "incomplete": [enc_conversation(e) for e in obj.incomplete], "metadata": dict(obj.metadata)}

    def dec_stream_finished(cls: Any, data: Any) -> Any:
        data = _tag(data, cls)
        conversation = events.ConversationEvent
        return cls(FinishReason(_str(data["reason"])),
                   tuple(dec_conversation(conversation, e) for e in data.get("events", ())),
                   tuple(dec_conversation(conversation, e) for e in data.get("incomplete", ())),
                   _mapping(data.get("metadata", {})))

    enc[stream.StreamFinished] = enc_stream_finished
    dec[stream.StreamFinished] = dec_stream_finished

    tags = {cls.__name__: cls for cls in dec if cls.__module__.startswith("argstream.") and cls is not FinishReason}
    for module in modules:  # a tag names the default backend's fragment class
        if module is not (_backend.fragments_c or _fragments_py):
            continue
        for name in ("Scalar", "String", "ArrayItem", "ObjectEntry"):
            tags[name] = getattr(module, name)
    return enc, dec, tags


def _missing(name: str) -> Any:
    raise TypeError(f"{name} is required")


_TAKES_FRAGMENT: dict[type, bool] = {}


def _make_progress(cls: Any, call_id: str, name: str, nest: Callable[..., Any], path: tuple[str | int, ...],
                   leaf: Any, completed: Any, index: int) -> Any:
    """Build a progress item from its call, path, leaf and completed value, by keyword; the fragment
    (their nesting) is passed only to a class that takes it rather than computing it."""
    takes = _TAKES_FRAGMENT.get(cls)
    if takes is None:
        try:
            takes = _TAKES_FRAGMENT[cls] = "fragment" in inspect.signature(cls).parameters
        except (TypeError, ValueError):  # no signature to read (an extension type): pass it
            takes = _TAKES_FRAGMENT[cls] = True
    extra = {"fragment": nest(path, leaf)} if takes else {}
    return cls(tool_call_id=call_id, tool_name=name, path=path, leaf=leaf, completed=completed, index=index, **extra)
