"""The read side's pages of the log (projections/log.py) hold exactly what the library's
`select_notifications` gives, on SQLite and PostgreSQL, and decode to the same events."""

from __future__ import annotations

import pytest

from projections.decoding import Decoder
from projections.log import Log
from tests.integration.ledger_views import seat_club


def as_tuple(note) -> tuple:  # type: ignore[no-untyped-def]
    return (note.id, note.originator_id, note.originator_version, note.topic,
            bytes(note.state))


@pytest.fixture
def played(ledger):  # type: ignore[no-untyped-def]
    club = seat_club(ledger, ("Banker", "Pat", "Sam"), top=["10S", "10H", "9C", "9S", "7H"])
    club.start()
    for name, action, amount in [("Pat", "stake", 2), ("Sam", "stake", 3),
                                 ("Pat", "stick", None), ("Sam", "stick", None),
                                 ("Banker", "stay", None)]:
        club.act(name, action, **({} if amount is None else {"amount": amount}))
    return ledger


@pytest.mark.parametrize(("start", "limit", "stop"), [
    (1, 1000, None), (1, 5, None), (7, 4, None), (3, 1000, 9), (9, 1000, 9), (1000, 10, None),
    (5, 3, 6)])
def test_a_page_of_rows_is_the_page_of_notifications(played, start, limit, stop):
    notes = played.recorder.select_notifications(start=start, limit=limit, stop=stop)

    rows = Log(played.recorder).page(start, limit, stop)

    assert [as_tuple(r) for r in rows] == [as_tuple(n) for n in notes]


def test_every_row_decodes_to_the_event_its_notification_decodes_to(played):
    notes = played.recorder.select_notifications(start=1, limit=1000)
    decode = Decoder(played.mapper)

    rows = Log(played.recorder).page(1, 1000)

    assert len(rows) == len(notes) > 20
    for row, note in zip(rows, notes, strict=True):
        event, expected = decode(row), played.mapper.to_domain_event(note)
        assert (type(event), vars(event)) == (type(expected), vars(expected))
