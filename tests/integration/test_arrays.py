"""application/arrays.py and application/prepared.py: arrays packed in PostgreSQL's binary
form, sent by statements prepared through libpq, read as psycopg's own list dumping sends
them; failures raised as psycopg raises them."""

from __future__ import annotations

import os
import socket
from uuid import UUID, uuid4

import psycopg
import pytest

from application.eventstore import arrays
from application.eventstore.prepared import Statement
from tests.conftest import postgres_url

AS_TEXT = Statement("SELECT $1::uuid[]::text, $2::bigint[]::text, $3::text[]::text, "
                    "$4::bytea[]::text, $5::text",
                    [arrays.UUID_ARRAY, arrays.BIGINT_ARRAY, arrays.TEXT_ARRAY,
                     arrays.BYTEA_ARRAY, arrays.TEXT])


def _connect() -> psycopg.Connection[tuple[object, ...]]:
    url = postgres_url()
    assert url is not None
    return psycopg.connect(url, autocommit=True)


@pytest.mark.parametrize("size", [0, 1, 5])
def test_packed_arrays_read_as_psycopgs_lists(size: int) -> None:
    ids = [uuid4() for _ in range(size)]
    numbers = [1, -1, 2**62, 0, 7][:size]
    texts = ["", "é ♠ 10♥", "domain.aggregates.deal:DealAggregate.Acted", "a\tb", "z"][:size]
    blobs = [b"", b"\x00\xff", b'{"a":1}', bytes(range(256)), b"x"][:size]
    with _connect() as conn:
        result = AS_TEXT.run(conn, (arrays.uuids(ids), arrays.bigints(numbers),
                                    arrays.texts(texts), arrays.byteas(blobs),
                                    b"5s"))
        packed = tuple((result.get_value(0, column) or b"").decode() for column in range(5))
        plain = conn.execute("SELECT %s::uuid[]::text, %s::bigint[]::text, %s::text[]::text, "
                             "%s::bytea[]::text, %s::text",
                             (ids, numbers, texts, blobs, "5s")).fetchone()
    assert packed == plain


def test_uuid_text_is_accepted() -> None:
    value = uuid4()
    assert arrays.uuids([str(value)]) == arrays.uuids([UUID(str(value))])


def test_a_statement_is_prepared_on_each_connection_it_runs_on() -> None:
    statement = Statement("SELECT $1::bigint[]::text", [arrays.BIGINT_ARRAY])
    for _ in range(2):
        with _connect() as conn:
            for numbers in ([1, 2], [3]):
                result = statement.run(conn, [arrays.bigints(numbers)])
                assert result.get_value(0, 0) == str(numbers).replace("[", "{") \
                    .replace("]", "}").replace(" ", "").encode()


def test_a_failure_is_raised_as_psycopg_raises_it() -> None:
    with _connect() as conn:
        conn.execute("CREATE TEMP TABLE once (n bigint PRIMARY KEY)")
        insert = Statement("INSERT INTO once SELECT unnest($1::bigint[]) RETURNING n",
                           [arrays.BIGINT_ARRAY])
        assert insert.run(conn, [arrays.bigints([1])]).ntuples == 1
        with pytest.raises(psycopg.errors.UniqueViolation):
            insert.run(conn, [arrays.bigints([1])])
        # The connection is still usable, as after any failed statement.
        assert insert.run(conn, [arrays.bigints([2])]).ntuples == 1


def test_a_statement_taken_away_is_prepared_again() -> None:
    """psycopg sends DEALLOCATE ALL after a ROLLBACK it ran, which drops ours too."""
    statement = Statement("SELECT $1::bigint[]::text", [arrays.BIGINT_ARRAY])
    with _connect() as conn:
        assert statement.run(conn, [arrays.bigints([4])]).get_value(0, 0) == b"{4}"
        conn.execute("DEALLOCATE ALL")
        assert statement.run(conn, [arrays.bigints([5])]).get_value(0, 0) == b"{5}"


def test_a_lost_connection_is_an_operational_error_as_psycopg_raises_it() -> None:
    """The event store's recorders retry an OperationalError (a server restart): a
    statement on a connection whose server process is gone must raise one."""
    statement = Statement("SELECT $1::bigint[]::text", [arrays.BIGINT_ARRAY])
    with _connect() as conn:
        assert statement.run(conn, [arrays.bigints([1])]).ntuples == 1
        # Cut the connection under libpq, as a crashed server does: no error message, so
        # no SQLSTATE (a backend terminated by the server would still send one).
        with socket.socket(fileno=os.dup(conn.pgconn.socket)) as cut:
            cut.shutdown(socket.SHUT_RDWR)
        with pytest.raises(psycopg.OperationalError):
            statement.run(conn, [arrays.bigints([2])])


def test_two_statements_of_one_text_share_its_preparation() -> None:
    """The name comes from the text: a second Statement of it finds it prepared."""
    first = Statement("SELECT $1::bigint[]::text", [arrays.BIGINT_ARRAY])
    second = Statement("SELECT $1::bigint[]::text", [arrays.BIGINT_ARRAY])
    with _connect() as conn:
        assert first.run(conn, [arrays.bigints([6])]).get_value(0, 0) == b"{6}"
        assert second.run(conn, [arrays.bigints([7])]).get_value(0, 0) == b"{7}"
