"""The command path's arrays, sent to PostgreSQL in its binary array format, packed here.

psycopg dumps a Python list by finding its elements' type and a dumper for each element,
on every call, in Python: a tenth of a millisecond a command for the six short lists it
sends (the events to insert, the aggregates to fast-forward). These wrappers are packed in
one pass with `struct`, in exactly the format psycopg writes (one dimension, lower bound 1,
no NULLs), and their dumpers are registered once for every connection made after.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from uuid import UUID

import psycopg
from psycopg.adapt import Dumper
from psycopg.pq import Format

_HEADER = struct.Struct(">iiiii")  # dimensions, has NULLs, element oid, length, lower bound
_LENGTH = struct.Struct(">i")
_BIGINT = struct.Struct(">q")


class Packed:
    """An array, already in PostgreSQL's binary form."""

    __slots__ = ("data",)
    element_oid = 0

    def __init__(self, elements: Iterable[bytes]) -> None:
        items = list(elements)
        self.data = _HEADER.pack(1, 0, self.element_oid, len(items), 1) + b"".join(
            _LENGTH.pack(len(item)) + item for item in items)


class UuidArray(Packed):
    __slots__ = ()
    element_oid = 2950

    def __init__(self, values: Iterable[UUID | str]) -> None:
        super().__init__((value if isinstance(value, UUID) else UUID(value)).bytes
                         for value in values)


class BigintArray(Packed):
    __slots__ = ()
    element_oid = 20

    def __init__(self, values: Iterable[int]) -> None:
        super().__init__(_BIGINT.pack(value) for value in values)


class TextArray(Packed):
    __slots__ = ()
    element_oid = 25

    def __init__(self, values: Iterable[str]) -> None:
        super().__init__(value.encode() for value in values)


class ByteaArray(Packed):
    __slots__ = ()
    element_oid = 17

    def __init__(self, values: Iterable[bytes]) -> None:
        super().__init__(bytes(value) for value in values)


def _dumper(array_oid: int) -> type[Dumper]:
    class PackedDumper(Dumper):
        format = Format.BINARY
        oid = array_oid

        def dump(self, obj: Packed) -> bytes:
            return obj.data

    return PackedDumper


for _cls, _oid in ((UuidArray, 2951), (BigintArray, 1016), (TextArray, 1009),
                   (ByteaArray, 1001)):
    psycopg.adapters.register_dumper(_cls, _dumper(_oid))
