"""Types of the compiled core (``_tokenizer.pyx``); the pure twin is ``_tokenizer_py``."""

from typing import Any, ClassVar, Protocol

from ._fragments_py import ArrayItem as _ArrayItem
from ._fragments_py import ObjectEntry as _ObjectEntry
from ._fragments_py import Scalar as _Scalar
from ._fragments_py import String as _String

CONSTANTS: dict[str, int]

class Scalar(_Scalar):
    __match_args__: ClassVar[tuple[str, ...]]

class String(_String):
    __match_args__: ClassVar[tuple[str, ...]]

class ArrayItem(_ArrayItem):
    __match_args__: ClassVar[tuple[str, ...]]

class ObjectEntry(_ObjectEntry):
    __match_args__: ClassVar[tuple[str, ...]]

class _SinkProtocol(Protocol):
    def on_begin_object(self) -> None: ...
    def on_end_object(self) -> None: ...
    def on_begin_array(self) -> None: ...
    def on_end_array(self) -> None: ...
    def on_key(self, key: str) -> None: ...
    def on_begin_string(self) -> None: ...
    def on_string_data(self, text: str) -> None: ...
    def on_end_string(self) -> None: ...
    def on_scalar(self, value: Any) -> None: ...

class Sink: ...

class Tokenizer:
    max_depth: int
    pos: int
    state: int
    offset: int
    start: int
    def __init__(
        self, max_depth: int = 512, surrogates: str = "replace", catch_duplicate_keys: bool = False
    ) -> None: ...
    def push(self, chunk: str | bytes | bytearray | memoryview, sink: Sink | _SinkProtocol) -> None: ...
    def finish(self, sink: Sink | _SinkProtocol) -> None: ...
    @property
    def done(self) -> bool: ...

class FragmentBuilder(Sink):
    out: list[Any]
    flat: bool
    spans: list[tuple[int, int]] | None
    at_end: bool
    def __init__(self, flat: bool = False, tokenizer: Tokenizer | None = None) -> None: ...

class IncrementalArgParser:
    def __init__(
        self,
        *,
        max_depth: int = 512,
        flat: bool = False,
        surrogates: str = "replace",
        catch_duplicate_keys: bool = False,
        spans: bool = False,
    ) -> None: ...
    def push(self, chunk: str | bytes | bytearray | memoryview) -> list[Any]: ...
    def finish(self) -> list[Any]: ...
    @property
    def done(self) -> bool: ...
    @property
    def position(self) -> int: ...
    @property
    def spans(self) -> list[tuple[int, int]] | None: ...
    @property
    def flat(self) -> bool: ...
    @property
    def max_depth(self) -> int: ...
