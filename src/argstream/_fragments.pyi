"""Types of the compiled fragment types (``_fragments.pyx``); the pure twin is ``_fragments_py``."""

from typing import ClassVar

from ._fragments_py import ArrayItem as _ArrayItem
from ._fragments_py import ObjectEntry as _ObjectEntry
from ._fragments_py import Scalar as _Scalar
from ._fragments_py import String as _String

class Scalar(_Scalar):
    __match_args__: ClassVar[tuple[str, ...]]

class String(_String):
    __match_args__: ClassVar[tuple[str, ...]]

class ArrayItem(_ArrayItem):
    __match_args__: ClassVar[tuple[str, ...]]

class ObjectEntry(_ObjectEntry):
    __match_args__: ClassVar[tuple[str, ...]]
