"""The ``format`` values checked (cheap, whole-string, same verdicts as ``jsonschema``'s ``FormatChecker``).

Any other ``format`` is an annotation, as JSON Schema 2020-12 defines it by
default: ``"path"``, ``"uri"``, ``"date-time"`` and the rest are not checked.
"""

from __future__ import annotations

import ipaddress
import re
from datetime import date
from typing import Callable
from uuid import UUID

__all__ = ["FORMAT_CHECKS"]

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}", re.ASCII)


def _email(text: str) -> bool:
    return "@" in text


def _parses(parse: Callable[[str], object], text: str) -> object | None:
    """``parse(text)``, or ``None`` when it raises ``ValueError``."""
    try:
        return parse(text)
    except ValueError:
        return None


def _ipv4(text: str) -> bool:
    return _parses(ipaddress.IPv4Address, text) is not None


def _ipv6(text: str) -> bool:
    address = _parses(ipaddress.IPv6Address, text)
    return address is not None and not getattr(address, "scope_id", "")


def _date(text: str) -> bool:
    return _DATE.fullmatch(text) is not None and _parses(date.fromisoformat, text) is not None


def _uuid(text: str) -> bool:
    return _parses(UUID, text) is not None and all(text[i] == "-" for i in (8, 13, 18, 23))


FORMAT_CHECKS: dict[str, Callable[[str], bool]] = {
    "email": _email, "ipv4": _ipv4, "ipv6": _ipv6, "date": _date, "uuid": _uuid,
}
