"""Defence in depth on the read side, on SQLite and PostgreSQL: a text already recorded that
a store cannot keep (a NUL, as the API accepted before it refused them at the edge) does
not stop a read model; it is shown with U+FFFD in its place, and a rebuild gets past it.
"""

from __future__ import annotations

import pytest

from projections.balances import balances
from projections.disputes import disputes
from projections.runner import Projections
from projections.store import ReadStore, read_store, storable
from tests.ledger_club import LedgerClub, stacked_pack


@pytest.fixture
def store(ledger, store_settings) -> ReadStore:  # type: ignore[no-untyped-def]
    found = read_store(ledger, store_settings)
    assert found is not None
    return found


def recorded_with_nul(ledger) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    """The issue's two requests, sent to the ledger as the API once let them through."""
    club = LedgerClub(ledger)
    odd = club.register_player("a\x00b")
    bea, pat = club.register_player("Bea"), club.register_player("Pat")
    club.buy_in(pat, 20)
    table = club.open_table("Friday", [bea, pat], banker=bea,
                            pack={"mode": "ordered", "cards": stacked_pack(())})
    deal = club.start_deal(table)
    dispute = ledger.raise_dispute(deal, "x\x00y", raised_by="player:" + pat)
    return odd, str(dispute.result["id"])


def test_a_nul_already_recorded_does_not_stop_a_read_model(ledger, store) -> None:  # type: ignore[no-untyped-def]
    odd, dispute_id = recorded_with_nul(ledger)
    runner = Projections(ledger, store)

    runner.catch_up()

    assert set(runner.lags().values()) == {0}, runner.lags()
    [shown] = [d for d in disputes(store) if d["dispute_id"] == dispute_id]
    assert shown["reason"] == "x\ufffdy"
    names = {row["account"]: row["name"] for row in balances(store)}
    assert names[f"player:{odd}"] == "a\ufffdb"


def test_a_rebuild_gets_past_a_nul_already_recorded(ledger, store) -> None:  # type: ignore[no-untyped-def]
    recorded_with_nul(ledger)
    runner = Projections(ledger, store)
    runner.catch_up()

    runner.rebuild()

    assert set(runner.lags().values()) == {0}, runner.lags()


def test_only_texts_a_store_cannot_keep_are_changed() -> None:
    assert storable(("plain", 5, None, "é\u202e\n")) == ("plain", 5, None, "é\u202e\n")
    assert storable(("a\x00b", "\ud800", 7)) == ("a\ufffdb", "\ufffd", 7)
