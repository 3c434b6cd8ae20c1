"""The command path's arrays, in PostgreSQL's binary array format, packed here.

psycopg dumps a Python list by finding its elements' type and a dumper for each element,
on every call, in Python: a tenth of a millisecond a command for the six short lists it
sends (the events to insert, the aggregates to fast-forward). These are packed in one pass
with `struct`, in exactly the format psycopg writes (one dimension, lower bound 1, no
NULLs), and sent as they are by the prepared statements of application/prepared.py.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from uuid import UUID

_HEADER = struct.Struct(">iiiii")  # dimensions, has NULLs, element oid, length, lower bound
_LENGTH = struct.Struct(">i")
BIGINT = struct.Struct(">q")  # a bigint in binary form (values read back too)
# The types' oids, for statements prepared with them (application/prepared.py).
TEXT, UUID_ARRAY, BIGINT_ARRAY, TEXT_ARRAY, BYTEA_ARRAY = 25, 2951, 1016, 1009, 1001


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
        super().__init__(BIGINT.pack(value) for value in values)


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
