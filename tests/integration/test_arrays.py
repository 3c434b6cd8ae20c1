"""application/arrays.py: arrays packed in PostgreSQL's binary form read back as psycopg's
own list dumping sends them."""

from __future__ import annotations

from uuid import UUID, uuid4

import psycopg
import pytest

from application.arrays import BigintArray, ByteaArray, TextArray, UuidArray
from tests.conftest import postgres_url

QUERY = "SELECT %s::uuid[], %s::bigint[], %s::text[], %s::bytea[]"


@pytest.mark.parametrize("size", [0, 1, 5])
def test_packed_arrays_read_back_as_psycopgs_lists(size: int) -> None:
    ids = [uuid4() for _ in range(size)]
    numbers = [1, -1, 2**62, 0, 7][:size]
    texts = ["", "é ♠ 10♥", "domain.aggregates.deal:DealAggregate.Acted", "a\tb", "z"][:size]
    blobs = [b"", b"\x00\xff", b'{"a":1}', bytes(range(256)), b"x"][:size]
    url = postgres_url()
    assert url is not None
    with psycopg.connect(url) as conn:
        packed = conn.execute(QUERY, (UuidArray(ids), BigintArray(numbers), TextArray(texts),
                                      ByteaArray(blobs)), prepare=True).fetchone()
        plain = conn.execute(QUERY, (ids, numbers, texts, blobs)).fetchone()
    assert packed == plain
    assert packed == (ids, numbers, texts, blobs)


def test_uuid_text_is_accepted() -> None:
    value = uuid4()
    url = postgres_url()
    assert url is not None
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT %s::uuid[]", (UuidArray([str(value)]),)).fetchone()
    assert row == ([UUID(str(value))],)
