"""Drop-in layers for code written against the seed peers, built on argstream's core parser.

- :mod:`argstream.compat.axio`: ``ToolArgStream`` and the ``ToolField*`` events of
  ``axio.tool_args`` / ``axio.events``.
- :mod:`argstream.compat.segments`: ``write_file`` / ``patch_file`` tool calls as
  ``SEGMENT_START`` / ``SEGMENT_CONTENT`` / ``SEGMENT_END`` segment events, other tools as
  ``tool_call`` segments (the autobyteus API tool-call handler).

Import the submodule you need; neither needs the peer installed. docs/compat.md lists every
difference from the peers.
"""

from __future__ import annotations

from typing import Any, TypeVar

__all__ = ["axio", "segments"]

_T = TypeVar("_T")


def _fast_init(cls: _T) -> _T:
    """Give a frozen slotted dataclass an ``__init__`` that sets its slots directly.

    The generated one calls ``object.__setattr__`` once per field, about twice the cost; events
    are made once per chunk, so this is a visible share of a small chunk's budget. Same
    signature (defaults given as ``None`` mean "use the field's default factory").
    """
    import dataclasses

    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    setters = [cls.__dict__[f.name].__set__ for f in fields]
    params, body, env = [], [], {}
    for f, setter in zip(fields, setters):
        env[f"_set_{f.name}"] = setter
        if f.default is not dataclasses.MISSING:
            env[f"_dflt_{f.name}"] = f.default
            params.append(f"{f.name}=_dflt_{f.name}")
            body.append(f"    _set_{f.name}(self, {f.name})")
        elif f.default_factory is not dataclasses.MISSING:
            env[f"_fact_{f.name}"] = f.default_factory
            params.append(f"{f.name}=None")
            body.append(f"    _set_{f.name}(self, _fact_{f.name}() if {f.name} is None else {f.name})")
        else:
            params.append(f.name)
            body.append(f"    _set_{f.name}(self, {f.name})")
    src = f"def __init__(self, {', '.join(params)}):\n" + "\n".join(body)
    ns: dict[str, Any] = {}
    exec(src, env, ns)  # noqa: S102 - built from the dataclass's own field names
    init = ns["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"  # type: ignore[attr-defined]
    init.__doc__ = cls.__init__.__doc__  # type: ignore[misc]
    cls.__init__ = init  # type: ignore[misc]
    return cls
