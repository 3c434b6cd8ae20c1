"""What the process's cache shares between threads cannot be changed in place.

Every command decides on a copy of a cached aggregate; the entry itself is read by every
thread (application/cache.py). It is sealed when the cache takes it (domain/engine/sealed.py):
each way of changing it in place raises, and the copies a command gets are open again and
leave the entry as it was. Run on both stores (`ledger`)."""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable
from typing import Any
from uuid import UUID

import pytest

from application import Ledger
from domain.aggregates import Account, DealAggregate, TableAggregate
from domain.errors import SharedStateChanged
from tests.ledger_club import stacked_pack

# Player 10H 7H (17), banker 9H 8H (17): a stake leaves the deal in play; Pat's stick and
# the banker's stay settle it.
QUIET_DEAL = ("10H", "9H", "7H", "8H")


def a_deal_in_play(ledger: Ledger) -> tuple[str, str, str, str]:
    """Banker and Pat at a table with a deal whose stake is placed: (banker, pat, table, deal)."""
    banker, pat = (str(ledger.register_player(name).result["id"]) for name in ("Bea", "Pat"))
    ledger.buy_in(banker, 100)
    ledger.buy_in(pat, 50)
    table = ledger.open_table(name="sealed", seats=[banker, pat], banker=banker,
                              pack={"mode": "ordered", "cards": stacked_pack(QUIET_DEAL)}
                              ).result["table_id"]
    deal = ledger.start_deal(table).result["deal_id"]
    ledger.act(deal, pat, "stake", amount=5)
    return banker, pat, table, deal


def entry(ledger: Ledger, aggregate_id: str) -> Any:
    found = ledger.cache.peek(UUID(aggregate_id))
    assert found is not None, "the command's saved aggregate is the cached entry"
    return found


def changes(ledger: Ledger, pat: str, table: str, deal: str
            ) -> dict[str, Callable[[], object]]:
    """Every kind of change in place a thread could try on the entries."""
    account, table_entry, deal_entry = (entry(ledger, i) for i in (pat, table, deal))
    engine = deal_entry.engine
    hand = engine.hands[pat][0]
    return {
        "an account's balance": lambda: setattr(account, "balance", 1_000),
        "a command on an account": lambda: account.move(
            credit=True, posting_id="p", amount=1, from_account="treasury",
            to_account=f"player:{pat}", rule="R11.1", reason="x", deal_id=None,
            table_id=None, hand=None),
        "a deal's engine replaced": lambda: setattr(deal_entry, "engine", None),
        "an engine's attribute": lambda: setattr(engine, "phase", "settled"),
        "an engine's attribute deleted": lambda: delattr(engine, "phase"),
        "a list appended": lambda: engine.order.append("someone"),
        "a list's item replaced": lambda: engine.order.__setitem__(0, "someone"),
        "a list extended in place": lambda: engine.postings.__iadd__([]),
        "a dict's item set": lambda: engine.hands.__setitem__("someone", []),
        "a dict updated": lambda: engine.sat_out.update({"someone": "why"}),
        "a deque popped": lambda: engine.pack.popleft(),
        "a counter changed": lambda: engine.in_play.update(["AS"]),
        "a hand's stake": lambda: setattr(hand, "stake", 50),
        "a hand's cards": lambda: hand.cards.append("AS"),
        "a table's seats": lambda: table_entry.engine.seats.remove(pat),
        "a table's revealed seeds": lambda: table_entry.engine.revealed.clear(),
        "a deal's end marker": lambda: setattr(deal_entry, "ended", {"version": 1}),
    }


KINDS = ["an account's balance", "a command on an account", "a deal's engine replaced",
         "an engine's attribute", "an engine's attribute deleted", "a list appended",
         "a list's item replaced", "a list extended in place", "a dict's item set",
         "a dict updated", "a deque popped", "a counter changed", "a hand's stake",
         "a hand's cards", "a table's seats", "a table's revealed seeds",
         "a deal's end marker"]


@pytest.mark.parametrize("kind", KINDS)
def test_changing_a_cached_entry_in_place_raises_and_changes_nothing(ledger, kind):
    """Each attempt raises SharedStateChanged, and a fresh read still shows what the store
    holds: Pat staked 5 of 50 chips, the deal is in play."""
    banker, pat, table, deal = a_deal_in_play(ledger)
    attempt = changes(ledger, pat, table, deal)[kind]

    with pytest.raises(SharedStateChanged):
        attempt()

    assert ledger.player_account(pat).balance == 45
    read = ledger.deal(deal)
    assert read.engine.phase == "playing" and read.engine.order == [pat]
    assert read.engine.hands[pat][0].stake == 5 and len(read.engine.hands[pat][0].cards) == 2


def test_postings_and_facts_a_cached_deal_holds_are_frozen(ledger):
    """R11.1: a settled deal's postings and its settlement fact are shared by the cache and
    by every copy: none of their fields can be replaced, nor their lists changed."""
    banker, pat, table, deal = a_deal_in_play(ledger)
    ledger.act(deal, pat, "stick")
    ledger.act(deal, banker, "stay")
    engine = entry(ledger, deal).engine
    settled = engine.settlement

    with pytest.raises(dataclasses.FrozenInstanceError):
        engine.postings[0].amount = 500  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        settled.kitty_after = 7
    with pytest.raises(SharedStateChanged):
        settled.postings.append(settled.postings[0])

    assert engine.phase == "settled" and engine.postings[0].amount == 5


def test_a_commands_copy_of_an_entry_is_open_and_leaves_the_entry_as_it_was(ledger):
    """The copy a command decides on can be changed freely; the entry it came from cannot
    and does not change."""
    banker, pat, table, deal = a_deal_in_play(ledger)
    shared = entry(ledger, deal)

    mine = copy.deepcopy(shared)
    mine.engine.order.append("someone")
    mine.engine.hands[pat][0].cards.append("AS")
    mine.engine.pack.popleft()
    mine.engine.phase = "banker"

    assert type(mine.engine.order) is list and type(mine.engine.pack).__name__ == "deque"
    assert shared.engine.order == [pat] and shared.engine.phase == "playing"
    assert len(shared.engine.hands[pat][0].cards) == 2
    assert len(shared.engine.pack) == len(mine.engine.pack) + 1


def test_what_a_command_answers_it_saved_is_the_sealed_entry(ledger):
    """The aggregates an Outcome carries (the API shows them without reading them again)
    are the entries themselves: read-only for the API too."""
    banker, pat, table, deal = a_deal_in_play(ledger)

    outcome = ledger.act(deal, pat, "stick")

    saved = outcome.saved[UUID(deal)]
    assert isinstance(saved, DealAggregate) and saved is entry(ledger, deal)
    with pytest.raises(SharedStateChanged):
        saved.engine.banker_cards.append("AS")
    assert all(isinstance(a, Account | DealAggregate | TableAggregate)
               for a in outcome.saved.values())
