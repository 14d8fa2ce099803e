"""The twin of ``_records.pyx``: ``maker(cls)`` is ``cls`` itself, checked to be a class the compiled
``Maker`` can make (a frozen, slotted dataclass made by ``object.__new__``, every field set by
``__init__``), so that the two backends accept the same classes."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta, timezone
from functools import partial
from types import MemberDescriptorType
from typing import Any, TypeVar

T = TypeVar("T")

def checked_fields(cls: type) -> list[Any]:
    """The member descriptors of ``cls``'s fields, in field order; ``TypeError`` unless ``cls`` is a
    frozen, slotted dataclass made by ``object.__new__`` whose fields ``__init__`` all sets."""
    if not dataclasses.is_dataclass(cls) or not isinstance(cls, type):
        raise TypeError(f"not a dataclass: {cls!r}")
    if not cls.__dataclass_params__.frozen or "__slots__" not in cls.__dict__:  # type: ignore[attr-defined]
        raise TypeError(f"{cls.__qualname__} is not a frozen, slotted dataclass")
    if cls.__new__ is not object.__new__:
        raise TypeError(f"{cls.__qualname__} has its own __new__")
    slots = []
    for field in dataclasses.fields(cls):
        if not field.init:
            raise TypeError(f"{cls.__qualname__}.{field.name} is not set by __init__")
        descr = next((k.__dict__[field.name] for k in cls.__mro__ if field.name in k.__dict__), None)
        if type(descr) is not MemberDescriptorType:
            raise TypeError(f"{cls.__qualname__}.{field.name} is not a slot")
        slots.append(descr)
    return slots


def maker(cls: type[T]) -> Any:
    """``cls`` itself (its ``__init__`` runs): the reference for ``_records.Maker(cls)``."""
    checked_fields(cls)
    return cls


#: ``datetime.now(timezone.utc)``: the timestamp of a flushed event (``_records.utc_now``, which the
#: datetime C API makes without ``now``'s second instance)
utc_now = partial(datetime.now, timezone.utc)

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def utc_from_microseconds(us: int) -> datetime:
    """The aware UTC ``datetime`` ``us`` microseconds after 1970-01-01: the reference for the compiled one."""
    return _EPOCH + timedelta(microseconds=us)
