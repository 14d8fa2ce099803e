"""Tool parameter declarations, read from the tool definitions users already send to their provider.

A declaration records each parameter's JSON type (``"path"`` for a string with
``"format": "path"``) and, for objects and arrays, what they hold. Policies are
checked against them when loaded: :meth:`ToolDecl.resolve` follows a rule's
``arg`` pointer, descending through arrays without an index.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..tools import tool_schemas

__all__ = ["ParamDecl", "ToolDecl", "parse_pointer", "tool_declarations"]

_JSON_TYPES = frozenset({"string", "number", "integer", "boolean", "object", "array", "null"})


@dataclass(frozen=True)
class ParamDecl:
    """One parameter (or nested value): its type, and what an object or array holds.

    ``type`` is a JSON type name, ``"path"``, or ``None`` when the schema does not pin one down.
    """

    name: str
    type: str | None = None
    required: bool = False
    properties: Mapping[str, ParamDecl] = field(default_factory=dict)
    items: ParamDecl | None = None


@dataclass(frozen=True)
class ToolDecl:
    """A tool's name and its top-level parameters."""

    name: str
    params: Mapping[str, ParamDecl] = field(default_factory=dict)

    def resolve(self, pointer: str) -> ParamDecl:
        """The declaration that ``pointer`` reaches, past any arrays. Raises ``LookupError`` with the reason."""
        segments = parse_pointer(pointer)
        node = ParamDecl("", "object", True, self.params)
        walked = ""
        for segment in segments:
            node, was_array = _items(node)
            if segment in node.properties:
                node = node.properties[segment]
                walked += "/" + segment.replace("~", "~0").replace("/", "~1")
                continue
            if was_array and segment.isdigit():
                raise LookupError(f"{walked} is an array: write the pointer without an index")
            if node.type not in ("object", None):
                raise LookupError(f"{walked} is {node.type}, it has no parameter {segment!r}")
            where = f"in {walked}" if walked else "among the tool's parameters"
            raise LookupError(f"no parameter {segment!r} {where}")
        node, _ = _items(node)
        return node


def _items(node: ParamDecl) -> tuple[ParamDecl, bool]:
    """Descend through arrays to the declaration of their elements."""
    was_array = False
    while node.type == "array":
        if node.items is None:
            return ParamDecl(node.name, None, node.required), True
        node, was_array = node.items, True
    return node, was_array


def parse_pointer(pointer: str) -> tuple[str, ...]:
    """The unescaped segments of an RFC 6901 pointer. Raises ``ValueError`` for a malformed one."""
    if not isinstance(pointer, str) or not pointer.startswith("/"):
        raise ValueError(f"arg {pointer!r} is not a JSON Pointer (it must start with '/')")
    segments = []
    for raw in pointer[1:].split("/"):
        if "~" in raw.replace("~0", "").replace("~1", ""):
            raise ValueError(f"arg {pointer!r} has a '~' that is not '~0' or '~1'")
        segments.append(raw.replace("~1", "/").replace("~0", "~"))
    return tuple(segments)


def _deref(schema: Any, root: Mapping[str, Any], seen: frozenset[str]) -> Any:
    """Follow local ``$ref``s (``#/$defs/...``, ``#/definitions/...``)."""
    while isinstance(schema, Mapping) and isinstance(schema.get("$ref"), str):
        ref = schema["$ref"]
        if ref in seen or not ref.startswith("#/"):
            return {}
        seen = seen | {ref}
        target: Any = root
        for part in ref[2:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            target = target.get(part) if isinstance(target, Mapping) else None
        schema = target if isinstance(target, Mapping) else {}
    return schema


def _param(name: str, schema: Any, root: Mapping[str, Any], required: bool, seen: frozenset[str]) -> ParamDecl:
    schema = _deref(schema, root, seen)
    if not isinstance(schema, Mapping):
        return ParamDecl(name, None, required)
    for combinator in ("anyOf", "oneOf", "allOf"):
        options = schema.get(combinator)
        if isinstance(options, list):
            options = [_deref(o, root, seen) for o in options]
            options = [o for o in options if not (isinstance(o, Mapping) and o.get("type") == "null")]
            if len(options) == 1 and isinstance(options[0], Mapping):
                merged = {k: v for k, v in schema.items() if k != combinator}
                merged.update(options[0])
                return _param(name, merged, root, required, seen)
    kind = schema.get("type")
    if isinstance(kind, list):
        kinds = [k for k in kind if k != "null"]
        kind = kinds[0] if len(kinds) == 1 else None
    if kind is None:
        if isinstance(schema.get("properties"), Mapping):
            kind = "object"
        elif "items" in schema:
            kind = "array"
    if kind not in _JSON_TYPES:
        kind = None
    if kind == "string" and schema.get("format") == "path":
        kind = "path"
    properties: dict[str, ParamDecl] = {}
    items = None
    if kind == "object":
        props = schema.get("properties")
        needed = set(schema.get("required") or ())
        if isinstance(props, Mapping):
            properties = {k: _param(k, v, root, k in needed, seen) for k, v in props.items()}
    elif kind == "array" and isinstance(schema.get("items"), Mapping):
        items = _param(name, schema["items"], root, True, seen)
    return ParamDecl(name, kind, required, properties, items)


def _from_schema(name: str, schema: Any) -> ToolDecl:
    root = schema if isinstance(schema, Mapping) else {}
    decl = _param("", root, root, True, frozenset())
    return ToolDecl(name, decl.properties)


def tool_declarations(tools: Any) -> dict[str, ToolDecl]:
    """Declarations from the tool definitions sent to a provider (any form
    :func:`argstream.tools.tool_schemas` reads), or from ``ToolDecl`` objects."""
    if not isinstance(tools, Mapping):
        tools = list(tools)
        decls = [t for t in tools if isinstance(t, ToolDecl)]
        if decls:
            rest = tool_declarations([t for t in tools if not isinstance(t, ToolDecl)]) if len(decls) < len(tools) else {}
            return {**{d.name: d for d in decls}, **rest}
    return {name: _from_schema(name, schema) for name, schema in tool_schemas(tools).items()}
