"""JSON Schema (the subset tool definitions use) compiled into a graph of ``Node``s, once per tool.

Every keyword is checked here: a keyword outside the subset, a malformed
value or a ``$ref`` that never reaches a schema is a :class:`SchemaError`
naming the schema location, so nothing the validator would ignore is
silently accepted. Annotations (``title``, ``description``, ``default``,
``examples``, ``format`` values without a check, ...) are accepted and unused.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Callable

from .formats import FORMAT_CHECKS
from .regex import compile_search

__all__ = ["Node", "SchemaError", "compile_schema", "reachable"]

TYPES = ("null", "boolean", "object", "array", "number", "integer", "string")
_ANNOTATIONS = frozenset({
    "title", "description", "default", "examples", "$comment", "$schema", "$id", "$anchor",
    "deprecated", "readOnly", "writeOnly", "discriminator", "contentMediaType", "contentEncoding",
})
_CHECKED = frozenset({
    "type", "enum", "const", "properties", "required", "additionalProperties", "items", "prefixItems",
    "minItems", "maxItems", "minLength", "maxLength", "pattern", "format", "minimum", "maximum",
    "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "anyOf", "oneOf", "allOf", "$ref", "$defs",
    "definitions", "nullable",
})


class SchemaError(ValueError):
    """A schema the validator cannot enforce exactly; ``location`` is the JSON Pointer into the schema."""

    def __init__(self, location: str, reason: str) -> None:
        super().__init__(f"{location or '/'}: {reason}")
        self.location = location
        self.reason = reason


class Node:
    """One schema, compiled. ``None`` means the keyword is absent; see ``compile_schema``."""

    __slots__ = (
        "location", "never", "types", "enum", "enum_keyword", "nullable",
        "min_length", "max_length", "pattern", "pattern_search", "format", "format_check",
        "minimum", "maximum", "exclusive_minimum", "exclusive_maximum", "multiple_of",
        "properties", "required", "additional", "prefix", "items", "min_items", "max_items",
        "all_of", "any_of", "one_of", "ref", "needs_text", "needs_value", "own",
    )

    def __init__(self, location: str) -> None:
        self.location = location
        self.never = False  # the schema ``false``
        self.types: frozenset[str] | None = None
        self.enum: tuple[Any, ...] | None = None
        self.enum_keyword = "enum"
        self.nullable = False
        self.min_length: int | None = None
        self.max_length: int | None = None
        self.pattern: str | None = None
        self.pattern_search: Callable[[str], bool] | None = None
        self.format: str | None = None
        self.format_check: Callable[[str], bool] | None = None
        self.minimum: int | float | None = None
        self.maximum: int | float | None = None
        self.exclusive_minimum: int | float | None = None
        self.exclusive_maximum: int | float | None = None
        self.multiple_of: int | float | None = None
        self.properties: dict[str, Node] = {}
        self.required: tuple[str, ...] = ()
        self.additional: Node | bool = True  # False: no other keys; a Node: schema for the others
        self.prefix: tuple[Node, ...] = ()
        self.items: Node | bool = True
        self.min_items: int | None = None
        self.max_items: int | None = None
        self.all_of: tuple[Node, ...] = ()  # ``allOf`` members and ``$ref`` targets
        self.any_of: tuple[Node, ...] | None = None
        self.one_of: tuple[Node, ...] | None = None
        self.ref: str | None = None  # the ``$ref``, whose target joins ``all_of`` once linked
        self.needs_text = False  # string checks that look at the characters
        self.needs_value = False  # an enum/const with an object or array: compared once complete
        self.own = False  # any keyword of its own, beyond combinators


def _constrains(node: Node) -> bool:
    """``node`` accepts less than the schema ``true`` (or will, once its ``$ref`` is linked)."""
    return node.own or bool(node.all_of or node.any_of or node.one_of) or node.ref is not None


def _pointer_escape(step: str) -> str:
    return step.replace("~", "~0").replace("/", "~1")


def _count(loc: str, key: str, value: Any) -> int:
    if type(value) is float and value.is_integer():
        value = int(value)
    if type(value) is not int or value < 0:
        raise SchemaError(f"{loc}/{key}", f"must be a non-negative integer, not {value!r}")
    return value


def _number(loc: str, key: str, value: Any) -> int | float:
    if type(value) not in (int, float) or (type(value) is float and not math.isfinite(value)):
        raise SchemaError(f"{loc}/{key}", f"must be a finite number, not {value!r}")
    return value


class _Compiler:
    def __init__(self, root: Any, pattern_timeout: float | None = None) -> None:
        self.root = root
        self.pattern_timeout = pattern_timeout
        self.by_ref: dict[str, Node] = {}
        self.pending: list[tuple[Node, str]] = []  # ($ref holder, target) resolved after the walk

    def node(self, schema: Any, loc: str) -> Node:
        node = Node(loc)
        if schema is True:
            return node
        if schema is False:
            node.never = node.own = True
            return node
        if not isinstance(schema, Mapping):
            raise SchemaError(loc, f"a schema is an object or a boolean, not {schema!r}")
        unknown = [k for k in schema if k not in _CHECKED and k not in _ANNOTATIONS]
        if unknown:
            raise SchemaError(f"{loc}/{_pointer_escape(str(unknown[0]))}", "keyword not supported by the streaming validator")
        for key in ("$defs", "definitions"):
            defs = schema.get(key)
            if defs is not None and not isinstance(defs, Mapping):
                raise SchemaError(f"{loc}/{key}", "must be an object")
        self._type(node, schema, loc)
        self._enum(node, schema, loc)
        self._string(node, schema, loc)
        self._numeric(node, schema, loc)
        self._object(node, schema, loc)
        self._array(node, schema, loc)
        self._combinators(node, schema, loc)
        if "$ref" in schema:
            ref = schema["$ref"]
            if not isinstance(ref, str):
                raise SchemaError(f"{loc}/$ref", f"must be a string, not {ref!r}")
            node.ref = ref
            self.pending.append((node, ref))
        node.needs_text = bool(
            node.enum is not None or node.max_length is not None or node.min_length is not None
            or node.pattern is not None or node.format_check is not None
        )
        node.own = bool(
            node.types is not None or node.enum is not None or node.needs_text or node.minimum is not None
            or node.maximum is not None or node.exclusive_minimum is not None or node.exclusive_maximum is not None
            or node.multiple_of is not None or node.properties or node.required or node.additional is not True
            or node.prefix or node.items is not True or node.min_items is not None or node.max_items is not None
        )
        nullable = schema.get("nullable", False)
        if type(nullable) is not bool:
            raise SchemaError(f"{loc}/nullable", f"must be a boolean, not {nullable!r}")
        node.nullable = nullable
        if nullable and (node.all_of or node.any_of or node.one_of or node.ref is not None):
            node.nullable = False  # null passes the whole schema, combinators and $ref included
            null, wrapper = Node(f"{loc}/nullable"), Node(loc)
            null.types = frozenset({"null"})
            null.own = True
            wrapper.any_of = (null, node)
            return wrapper
        return node

    def _type(self, node: Node, schema: Mapping[str, Any], loc: str) -> None:
        if "type" not in schema:
            return
        kinds = schema["type"]
        kinds = [kinds] if isinstance(kinds, str) else kinds
        if not isinstance(kinds, list) or not kinds or any(k not in TYPES for k in kinds):
            raise SchemaError(f"{loc}/type", f"must be one of {', '.join(TYPES)} or a list of them, not {schema['type']!r}")
        node.types = frozenset(kinds)

    def _enum(self, node: Node, schema: Mapping[str, Any], loc: str) -> None:
        if "enum" in schema and "const" in schema:
            raise SchemaError(loc, "enum and const together are not supported: use one")
        if "const" in schema:
            node.enum, node.enum_keyword = (schema["const"],), "const"
        elif "enum" in schema:
            values = schema["enum"]
            if not isinstance(values, list):
                raise SchemaError(f"{loc}/enum", "must be an array")
            node.enum = tuple(values)
        if node.enum is not None:
            for value in node.enum:
                _check_json(value, f"{loc}/{node.enum_keyword}")
            node.needs_value = any(isinstance(v, (list, dict)) for v in node.enum)

    def _string(self, node: Node, schema: Mapping[str, Any], loc: str) -> None:
        if "minLength" in schema:
            node.min_length = _count(loc, "minLength", schema["minLength"])
        if "maxLength" in schema:
            node.max_length = _count(loc, "maxLength", schema["maxLength"])
        if "pattern" in schema:
            pattern = schema["pattern"]
            if not isinstance(pattern, str):
                raise SchemaError(f"{loc}/pattern", f"must be a string, not {pattern!r}")
            try:
                node.pattern_search = compile_search(pattern, self.pattern_timeout)
            except ValueError as exc:
                raise SchemaError(f"{loc}/pattern", str(exc)) from None
            node.pattern = pattern
        if "format" in schema:
            fmt = schema["format"]
            if not isinstance(fmt, str):
                raise SchemaError(f"{loc}/format", f"must be a string, not {fmt!r}")
            node.format = fmt
            node.format_check = FORMAT_CHECKS.get(fmt)

    def _numeric(self, node: Node, schema: Mapping[str, Any], loc: str) -> None:
        for key, slot in (("minimum", "minimum"), ("maximum", "maximum"),
                          ("exclusiveMinimum", "exclusive_minimum"), ("exclusiveMaximum", "exclusive_maximum")):
            if key in schema:
                if type(schema[key]) is bool:
                    raise SchemaError(f"{loc}/{key}", "the draft-4 boolean form is not supported: give the bound as a number")
                setattr(node, slot, _number(loc, key, schema[key]))
        if "multipleOf" in schema:
            step = _number(loc, "multipleOf", schema["multipleOf"])
            if step <= 0:
                raise SchemaError(f"{loc}/multipleOf", f"must be greater than 0, not {step!r}")
            node.multiple_of = step

    def _object(self, node: Node, schema: Mapping[str, Any], loc: str) -> None:
        if "properties" in schema:
            props = schema["properties"]
            if not isinstance(props, Mapping):
                raise SchemaError(f"{loc}/properties", "must be an object")
            node.properties = {
                str(k): self.node(v, f"{loc}/properties/{_pointer_escape(str(k))}") for k, v in props.items()
            }
        if "required" in schema:
            required = schema["required"]
            if not isinstance(required, list) or not all(isinstance(k, str) for k in required):
                raise SchemaError(f"{loc}/required", "must be an array of strings")
            node.required = tuple(dict.fromkeys(required))
        if "additionalProperties" in schema:
            extra = self.node(schema["additionalProperties"], f"{loc}/additionalProperties")
            node.additional = False if extra.never else (extra if _constrains(extra) else True)

    def _array(self, node: Node, schema: Mapping[str, Any], loc: str) -> None:
        if "prefixItems" in schema:
            prefix = schema["prefixItems"]
            if not isinstance(prefix, list):
                raise SchemaError(f"{loc}/prefixItems", "must be an array of schemas")
            node.prefix = tuple(self.node(s, f"{loc}/prefixItems/{i}") for i, s in enumerate(prefix))
        if "items" in schema:
            if isinstance(schema["items"], list):
                raise SchemaError(f"{loc}/items", "the array form is draft 4-7 tuple validation: use prefixItems")
            items = self.node(schema["items"], f"{loc}/items")
            node.items = False if items.never else (items if _constrains(items) else True)
        if "minItems" in schema:
            node.min_items = _count(loc, "minItems", schema["minItems"])
        if "maxItems" in schema:
            node.max_items = _count(loc, "maxItems", schema["maxItems"])

    def _combinators(self, node: Node, schema: Mapping[str, Any], loc: str) -> None:
        for key in ("allOf", "anyOf", "oneOf"):
            if key in schema:
                members = schema[key]
                if not isinstance(members, list) or not members:
                    raise SchemaError(f"{loc}/{key}", "must be a non-empty array of schemas")
                compiled = tuple(self.node(s, f"{loc}/{key}/{i}") for i, s in enumerate(members))
                if key == "allOf":
                    node.all_of += compiled
                elif key == "anyOf":
                    node.any_of = compiled
                else:
                    node.one_of = compiled

    def resolve(self, ref: str) -> Node:
        """The node a local ``$ref`` (``#``, ``#/$defs/...``, any ``#/...`` pointer) names, compiled once."""
        if ref in self.by_ref:
            return self.by_ref[ref]
        if ref != "#" and not ref.startswith("#/"):
            raise SchemaError(ref, "only local references ('#/...') are supported")
        target: Any = self.root
        for raw in ref[2:].split("/") if ref != "#" else ():
            step = raw.replace("~1", "/").replace("~0", "~")
            if isinstance(target, Mapping) and step in target:
                target = target[step]
            elif isinstance(target, list) and step.isdigit() and int(step) < len(target):
                target = target[int(step)]
            else:
                raise SchemaError(ref, "the reference names nothing in the schema")
        node = self.node(target, ref[1:])
        self.by_ref[ref] = node
        return node

    def link(self) -> None:
        """Resolve every ``$ref`` (compiling targets as they are first named)."""
        while self.pending:
            holder, ref = self.pending.pop()
            holder.all_of += (self.resolve(ref),)


def _check_json(value: Any, loc: str) -> None:
    if value is None or type(value) in (bool, int, str):
        return
    if type(value) is float:
        if not math.isfinite(value):
            raise SchemaError(loc, f"{value!r} is not a JSON value")
        return
    if isinstance(value, list):
        for item in value:
            _check_json(item, loc)
        return
    if isinstance(value, Mapping) and all(isinstance(k, str) for k in value):
        for item in value.values():
            _check_json(item, loc)
        return
    raise SchemaError(loc, f"{value!r} is not a JSON value")


def _same_location(node: Node) -> tuple[Node, ...]:
    return node.all_of + (node.any_of or ()) + (node.one_of or ())


def _children(node: Node) -> list[Node]:
    out = [*_same_location(node), *node.properties.values(), *node.prefix]
    out.extend(x for x in (node.additional, node.items) if isinstance(x, Node))
    return out


def reachable(root: Node) -> list[Node]:
    """Every node ``root`` can lead to (through any keyword), each once."""
    nodes, seen, todo = [], {id(root)}, [root]
    while todo:
        node = todo.pop()
        nodes.append(node)
        for child in _children(node):
            if id(child) not in seen:
                seen.add(id(child))
                todo.append(child)
    return nodes


def _check_cycles(root: Node) -> None:
    """Reject a ``$ref``/``allOf``/``anyOf``/``oneOf`` loop that never descends into the instance.

    Such a loop would make the validator instantiate schemas forever at one
    location; loops through ``properties`` or ``items`` (recursive trees) are fine.
    """
    nodes = reachable(root)
    colour: dict[int, int] = {}  # 1: on the current walk, 2: finished
    for start in nodes:
        if id(start) in colour:
            continue
        colour[id(start)] = 1
        walk = [(start, iter(_same_location(start)))]
        while walk:
            node, members = walk[-1]
            member: Node | None = next(members, None)
            if member is None:
                colour[id(node)] = 2
                walk.pop()
            elif colour.get(id(member)) == 1:
                raise SchemaError(member.location or "#", "$ref / combinator cycle that never reaches an instance value")
            elif id(member) not in colour:
                colour[id(member)] = 1
                walk.append((member, iter(_same_location(member))))


def compile_schema(schema: Any, *, pattern_timeout: float | None = None) -> Node:
    """Compile ``schema`` (a JSON Schema object or boolean). Raises :class:`SchemaError`.

    A ``pattern`` runs on the linear-time engine; one that it cannot run is refused unless
    ``pattern_timeout`` (seconds per search) lets it run on a backtracking engine (``regex``).
    """
    compiler = _Compiler(schema, pattern_timeout)
    root = compiler.node(schema, "")
    compiler.by_ref.setdefault("#", root)
    compiler.link()
    _check_cycles(root)
    return root
