"""Tool definitions as users send them to their provider, read into ``{name: JSON Schema}``.

One reader for every consumer (policies, schema validation, the CLI's
``--tools``), so that they agree on which schema belongs to which tool.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["tool_schemas"]

_NO_PARAMETERS: dict[str, Any] = {"type": "object", "properties": {}}


def _as_mapping(tool: Any) -> Mapping[str, Any]:
    """An SDK object or a Pydantic model instance as a mapping (``model_dump``, else its attributes)."""
    if isinstance(tool, Mapping):
        return tool
    dump = getattr(tool, "model_dump", None)
    if dump is not None:
        return dump()
    try:
        return vars(tool)
    except TypeError:
        raise ValueError(f"not a tool definition: {tool!r}") from None


def _schema_of(value: Any) -> Any:
    """A schema given as a Pydantic model class becomes its JSON Schema."""
    if type(value) is dict:  # the usual schema: no attribute to look for (a failed getattr costs an exception)
        return value
    to_schema = getattr(value, "model_json_schema", None)
    if isinstance(value, type) and to_schema is not None:
        return to_schema()
    return value


def _entries(tools: Any) -> Iterable[tuple[str, Any]]:
    if type(tools) is dict or isinstance(tools, Mapping):  # (the exact type first: the ABC check is slow)
        return tools.items()  # (no generator to resume an entry at a time)
    return _listed(tools)


def _listed(tools: Iterable[Any]) -> Iterable[tuple[str, Any]]:
    for tool in tools:
        tool = _as_mapping(tool)
        function = tool.get("function")
        inner: Mapping[str, Any] = function if isinstance(function, Mapping) else tool
        name = inner.get("name")
        if not isinstance(name, str):
            raise ValueError(f"a tool definition without a name: {tool!r}")
        schema = inner.get("input_schema", inner.get("parameters", inner.get("parametersJsonSchema")))
        yield name, schema


def tool_schemas(tools: Any) -> dict[str, Any]:
    """``{name: JSON Schema}`` from the tool definitions sent to a provider.

    Accepts ``{name: schema}``, Anthropic's ``[{name, description, input_schema}]``,
    OpenAI Chat's ``[{type: "function", function: {name, parameters}}]``, the
    Responses API's flat ``[{type, name, parameters}]``, Gemini's
    ``parametersJsonSchema``, and SDK objects or Pydantic models with
    ``model_dump``. A schema may be a Pydantic model class. A tool without
    parameters gets ``{"type": "object", "properties": {}}``.

    Raises ``ValueError`` for a definition without a name or a name given twice.
    """
    out: dict[str, Any] = {}
    for name, schema in _entries(tools):
        if name in out:
            raise ValueError(f"tool {name!r} is defined twice")
        out[name] = schema if type(schema) is dict else _NO_PARAMETERS if schema is None else _schema_of(schema)
    return out
