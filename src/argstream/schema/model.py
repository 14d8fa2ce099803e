"""Pydantic models: the streaming check from the model's JSON Schema, typed partial values, and one
final validation by Pydantic itself.

Pydantic is optional: it is imported by the caller's model class, never here.
"""

from __future__ import annotations

from typing import Any, Sequence

from ..aggregate import FragmentAggregator
from .validator import Schema, SchemaValidator
from .violation import Violation

__all__ = ["ModelValidator", "model_schema"]


def model_schema(model: type) -> Schema:
    """A :class:`Schema` from a Pydantic model class's JSON Schema (raises ``SchemaError`` for keywords
    outside the subset, e.g. ``uniqueItems`` from a ``set`` field)."""
    to_schema = getattr(model, "model_json_schema", None)
    if not isinstance(model, type) or to_schema is None:
        raise TypeError(f"{model!r} is not a Pydantic model class")
    return Schema(to_schema())


def _construct(model: type, data: dict[str, Any]) -> Any:
    """``model.model_construct`` (no validation), nested model fields constructed the same way."""
    values = dict(data)
    for name, field in model.model_fields.items():  # type: ignore[attr-defined]
        key = field.alias if field.alias is not None and field.alias in values else name
        sub = field.annotation
        if key in values and isinstance(values[key], dict) and isinstance(sub, type) and hasattr(sub, "model_fields"):
            values[key] = _construct(sub, values[key])
    return model.model_construct(**values)  # type: ignore[attr-defined]


class ModelValidator:
    """One call's arguments checked against a Pydantic model while they stream.

    ``feed`` / ``extend`` return violations exactly as :class:`SchemaValidator`
    does. ``partial()`` is a model instance of the top-level fields complete so
    far with no violation at or under them, built with ``model_construct``
    (no re-validation, so it costs the number of fields, not their size).
    ``result()`` validates the complete value once, with Pydantic.
    """

    __slots__ = ("model", "schema", "validator", "_agg", "_fields", "_bad")

    def __init__(self, model: type, schema: Schema | None = None, *, units: str = "chars") -> None:
        self.model = model
        self.schema = schema if schema is not None else model_schema(model)
        self.validator = SchemaValidator(self.schema, units=units)
        self._agg = FragmentAggregator()
        self._fields: dict[str, Any] = {}
        self._bad: set[str | int] = set()

    @property
    def violations(self) -> list[Violation]:
        return self.validator.violations

    def feed(self, fragment: Any, span: tuple[int, int] | None = None) -> Sequence[Violation]:
        """Check one fragment (nested or flat); return the violations it proves."""
        found = self.validator.feed(fragment, span)
        self._note(found, (self._agg.push(fragment),))
        return found

    def extend(self, fragments: Sequence[Any], spans: Sequence[tuple[int, int]] | None = None,
               keys: Sequence[Any] | None = None) -> Sequence[Violation]:
        """Feed several fragments (with their spans and keys, when given); return the violations they prove."""
        found = self.validator.extend(fragments, spans, keys)
        self._note(found, self._agg.extend(fragments))
        return found

    def _note(self, found: Sequence[Violation], completed: Sequence[Any]) -> None:
        """Mark fields with a violation; keep the top-level values that completed clean."""
        for violation in found:
            if violation.path:
                self._bad.add(violation.path[0])
        for done in completed:
            if done is not None and len(done.path) == 1 and done.path[0] not in self._bad:
                self._fields[done.path[0]] = done.value

    def partial(self) -> Any:
        """The fields proven valid so far, as a model instance built without validation."""
        return _construct(self.model, self._fields)

    def result(self) -> Any:
        """The complete value validated once by Pydantic. Raises ``LookupError`` before the root
        completes, and Pydantic's ``ValidationError`` when the value is invalid."""
        return self.model.model_validate(self._agg.value)  # type: ignore[attr-defined]
