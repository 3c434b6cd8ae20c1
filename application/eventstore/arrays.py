"""The command path's arrays, in PostgreSQL's binary array format, packed here.

psycopg dumps a Python list by finding its elements' type and a dumper for each element,
on every call, in Python: a tenth of a millisecond a command for the six short lists it
sends (the events to insert, the aggregates to fast-forward). These are packed in one pass
with `struct`, in exactly the format psycopg writes (one dimension, lower bound 1, no
NULLs), and sent as they are by the prepared statements of application/prepared.py, which
declare their parameters with the array types' oids below.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from uuid import UUID

_HEADER = struct.Struct(">iiiii")  # dimensions, has NULLs, element oid, length, lower bound
_LENGTH = struct.Struct(">i")
BIGINT = struct.Struct(">q")  # a bigint in binary form (values read back too)
# PostgreSQL's type oids: the elements, and the arrays the statements declare.
_UUID, _INT8, _BYTEA, TEXT = 2950, 20, 17, 25
UUID_ARRAY, BIGINT_ARRAY, TEXT_ARRAY, BYTEA_ARRAY = 2951, 1016, 1009, 1001


def uuids(values: Iterable[UUID | str]) -> bytes:
    return _packed(_UUID, ((v if isinstance(v, UUID) else UUID(v)).bytes for v in values))


def bigints(values: Iterable[int]) -> bytes:
    return _packed(_INT8, (BIGINT.pack(value) for value in values))


def texts(values: Iterable[str]) -> bytes:
    return _packed(TEXT, (value.encode() for value in values))


def byteas(values: Iterable[bytes]) -> bytes:
    return _packed(_BYTEA, (bytes(value) for value in values))


def _packed(element_oid: int, elements: Iterable[bytes]) -> bytes:
    items = list(elements)
    return _HEADER.pack(1, 0, element_oid, len(items), 1) + b"".join(
        _LENGTH.pack(len(item)) + item for item in items)
