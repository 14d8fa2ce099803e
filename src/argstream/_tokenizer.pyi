"""Types of the compiled tokenizer (``_tokenizer.pyx``); the pure twin is ``_tokenizer_py``."""

from ._sink import Sink, SinkProtocol

CONSTANTS: dict[str, int]

class Tokenizer:
    max_depth: int
    pos: int
    state: int
    offset: int
    start: int
    def __init__(
        self, max_depth: int = 512, surrogates: str = "replace", catch_duplicate_keys: bool = False
    ) -> None: ...
    def push(self, chunk: str | bytes | bytearray | memoryview, sink: Sink | SinkProtocol) -> None: ...
    def finish(self, sink: Sink | SinkProtocol) -> None: ...
    @property
    def done(self) -> bool: ...
