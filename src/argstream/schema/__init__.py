"""Tool-call arguments checked against the tool's JSON Schema while they stream.

``Schema(json_schema)`` compiles once per tool; ``schema.validator()`` checks
one call: feed it the parser's fragments and it returns the violations each
fragment proves, at the first character that proves them. ``ModelValidator``
does the same for a Pydantic model and gives typed partial values.
"""

from .compile import SchemaError
from .model import ModelValidator
from .validator import Schema, SchemaValidator
from .violation import Violation

__all__ = ["Schema", "SchemaValidator", "SchemaError", "Violation", "ModelValidator"]
