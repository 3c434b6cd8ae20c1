"""One atomic save per command: everything a command changed is written in one transaction,
or nothing is (docs/architecture.md). Chips are conserved across every account and escrow."""

from __future__ import annotations

from uuid import NAMESPACE_URL, UUID, uuid5

import pytest
from eventsourcing.persistence import IntegrityError

from domain.aggregates import TREASURY_ID, Account, DealAggregate, TableAggregate, kitty_id
from domain.engine.postings import escrow_account, net_changes, player_account
from tests.integration.ledger_views import (
    account_names,
    all_balances,
    chips_in_play,
    escrow_held,
    events_of,
    fresh_ledger,
    head,
    notifications,
    recorded_topics,
    seat_club,
    topic,
)

THREE = ("Banker", "Pat", "Sam")
SHOOT = {"shoot": True, "kitty_min": 10, "kitty_max": 50}

# Pat 2-3 twists a 4 (9), shoots 3, twists a 5 and a 6: a five card trick of 20.
# Sam 10-9 sticks on 19; the banker 10-8 stays on 18 and pays both, the kitty pays Pat's
# shoot bets.
SHOOTING_TOP = ["2S", "10H", "10C", "3S", "9H", "8C", "4S", "5S", "6S"]

# Pat 10-6 shoots 4 in the first round, then twists a K and busts; Sam 10-9 sticks on 19;
# the banker 10-8 stays on 18.
BUSTING_TOP = ["10S", "10H", "10C", "6S", "9H", "8C", "KS"]


def play_to_the_banker(club) -> None:
    club.start()
    club.act("Pat", "stake", amount=2)
    club.act("Sam", "stake", amount=3)
    club.act("Pat", "shoot", amount=5)
    club.act("Sam", "pass")
    club.act("Pat", "twist")
    club.act("Pat", "shoot", amount=3)
    club.act("Pat", "twist")
    club.act("Pat", "twist")
    club.act("Sam", "stick")


def posting_id(source: UUID, version: int, index: int) -> str:
    """How the Ledger derives a posting id from the event that carries the posting."""
    return str(uuid5(NAMESPACE_URL, f"/pontoon/postings/{source}:{version}:{index}"))


def test_a_settlement_saves_the_deal_the_table_and_every_account_it_moves_together(ledger):
    """R7.2, R9.8, R11.1: the settling action writes DealSettled, the table's DealEnded and
    every account's entry in one save; each balance moves by exactly its postings."""
    club = seat_club(ledger, THREE, top=SHOOTING_TOP, rules=SHOOT, kitty=20)
    play_to_the_banker(club)
    before = account_names(all_balances(ledger), ledger)
    start = head(ledger)

    settled = club.act("Banker", "stay")

    deal = club.deal
    assert deal.phase == "settled" and deal.settlement is not None
    changes = net_changes(deal.settlement.postings)
    after = account_names(all_balances(ledger), ledger)
    moved = {name for name, change in changes.items() if change and name in after}
    assert moved == {player_account(club.ids[n]) for n in THREE} | {
        f"kitty:{club.table_id}"}
    for name, balance in after.items():
        assert balance == before[name] + changes.get(name, 0), name
    assert changes[escrow_account(club.deal_id)] == -(2 + 3 + 5 + 3)
    assert settled.position == head(ledger)
    written = notifications(ledger, after=start)
    assert [n.topic for n in written].count(topic(DealAggregate.DealSettled)) == 1
    assert [n.topic for n in written].count(topic(TableAggregate.DealEnded)) == 1
    entries = [ledger.mapper.to_domain_event(n) for n in written
               if n.topic in (topic(Account.Credited), topic(Account.Debited))]
    [settled_event] = [n for n in written if n.topic == topic(DealAggregate.DealSettled)]
    ids = {posting_id(UUID(club.deal_id), settled_event.originator_version, i)
           for i in range(len(deal.settlement.postings))}
    assert {e.posting_id for e in entries} == ids
    assert {e.deal_id for e in entries} == {club.deal_id}
    assert club.table.deal_id is None and club.table.kitty == after[f"kitty:{club.table_id}"]
    assert chips_in_play(ledger) == 0


def test_chips_are_conserved_after_every_command_of_a_deal(ledger):
    """R11.1: the sum of every account (players, treasury, kitty) and the open deal's
    escrow is zero after each command; the escrow holds exactly the stakes and shoot bets."""
    club = seat_club(ledger, THREE, top=SHOOTING_TOP, rules=SHOOT, kitty=20)
    steps = [("Pat", "stake", 2), ("Sam", "stake", 3), ("Pat", "shoot", 5), ("Sam", "pass", None),
             ("Pat", "twist", None), ("Pat", "shoot", 3), ("Pat", "twist", None),
             ("Pat", "twist", None), ("Sam", "stick", None), ("Banker", "stay", None)]
    escrow = [2, 5, 10, 10, 10, 13, 13, 13, 13, 0]

    club.start()
    totals, held = [chips_in_play(ledger)], []
    for (name, action, amount), _ in zip(steps, escrow, strict=True):
        club.act(name, action, **({} if amount is None else {"amount": amount}))
        totals.append(chips_in_play(ledger))
        held.append(escrow_held(ledger))

    assert totals == [0] * len(totals)
    assert held == escrow
    assert all_balances(ledger)[TREASURY_ID] == -300


def test_a_stake_is_never_recorded_without_its_chip_debit(ledger):
    """R3.5, R11.2: the stake's event and the player's debit are written by the same save,
    with one posting id and amount; the escrow is the deal's own postings."""
    club = seat_club(ledger, THREE, top=SHOOTING_TOP)
    club.start()
    start = head(ledger)

    staked = club.act("Pat", "stake", amount=4)

    written = notifications(ledger, after=start)
    assert [n.topic for n in written] == [topic(DealAggregate.StakePlaced),
                                          topic(Account.Debited)]
    assert staked.position == written[-1].id
    stake, debit = (ledger.mapper.to_domain_event(n) for n in written)
    assert stake.fact["amount"] == debit.amount == 4
    assert debit.originator_id == UUID(club.ids["Pat"]) and debit.balance_after == 96
    assert debit.posting_id == posting_id(UUID(club.deal_id), stake.originator_version, 0)
    assert (debit.rule, debit.deal_id, debit.table_id, debit.hand) == (
        "R3.5", club.deal_id, club.table_id, 0)
    assert escrow_held(ledger) == 4 and chips_in_play(ledger) == 0


def test_a_bust_is_saved_with_the_bankers_stake_and_the_kittys_shoot_bet(ledger):
    """R4.7, R9.7: Pat's bust pays the stake to the banker and the shoot bet to the kitty
    at once, in the save that records the bust."""
    club = seat_club(ledger, THREE, top=BUSTING_TOP, rules=SHOOT, kitty=20)
    club.start()
    club.act("Pat", "stake", amount=2)
    club.act("Sam", "stake", amount=2)
    club.act("Pat", "shoot", amount=4)
    club.act("Sam", "pass")
    start = head(ledger)

    club.act("Pat", "twist")

    written = [ledger.mapper.to_domain_event(n) for n in notifications(ledger, after=start)]
    credits = {(e.originator_id, e.amount, e.rule) for e in written
               if isinstance(e, Account.Credited)}
    assert credits == {(UUID(club.ids["Banker"]), 2, "R4.7"), (kitty_id(club.table_id), 4, "R9.7")}
    assert [type(e).__name__ for e in written if not isinstance(e, Account.Moved)] == [
        "HandTwisted", "CardDealt", "HandBusted"]
    assert (club.chips("Banker"), club.kitty_chips(), club.deal.kitty) == (82, 24, 24)
    assert escrow_held(ledger) == 2 and chips_in_play(ledger) == 0


def test_a_deal_start_saves_the_table_and_the_new_deal_together(ledger):
    """R3.4: the table's DealOpened and the deal's first cards are written by one save."""
    club = seat_club(ledger, THREE, top=SHOOTING_TOP)
    start = head(ledger)

    opened = club.start()

    written = notifications(ledger, after=start)
    assert opened.position == written[-1].id
    assert {UUID(str(n.originator_id)) for n in written} == {
        UUID(club.table_id), UUID(club.deal_id)}
    assert [n.topic for n in written].count(topic(TableAggregate.DealOpened)) == 1
    assert [n.topic for n in written].count(topic(DealAggregate.CardDealt)) == 3



def test_a_bankers_pontoon_settles_in_the_save_of_the_last_stake_and_may_leave_a_debt(ledger):
    """R3.8: the last stake deals the second round and the banker's pontoon collects double
    in that same save; R11.3: the collection is never refused, so Pat, who staked all 2 of
    his chips, owes 2."""
    club = seat_club(ledger, top=["5S", "AH", "6S", "KH"], chips={"Banker": 100, "Pat": 2})
    club.start()
    start = head(ledger)

    club.act("Pat", "stake", amount=2)

    written = [ledger.mapper.to_domain_event(n) for n in notifications(ledger, after=start)]
    names = [type(e).__name__ for e in written]
    assert names[0] == "StakePlaced" and "DealSettled" in names and "DealEnded" in names
    pats = [(type(e).__name__, e.amount, e.rule, e.balance_after) for e in written
            if isinstance(e, Account.Moved) and e.originator_id == UUID(club.ids["Pat"])]
    assert pats == [("Debited", 2, "R3.5", 0), ("Debited", 2, "R3.8", -2)]
    assert (club.chips("Pat"), club.chips("Banker")) == (-2, 104)
    assert club.deal.phase == "settled" and club.table.deal_id is None
    assert chips_in_play(ledger) == 0


def test_a_pontoon_that_takes_the_bank_returns_the_kitty_in_the_settling_save(ledger):
    """R8.1, R9.11: Pat's pontoon takes the bank; as the deal settles the old banker takes
    the kitty, in the same save as the table's new banker."""
    club = seat_club(ledger, top=["AS", "10H", "KS", "8H"], rules=SHOOT, kitty=20)
    club.start()
    club.act("Pat", "stake", amount=2)
    club.act("Pat", "pass")
    start = head(ledger)

    club.act("Banker", "stay")

    written = [ledger.mapper.to_domain_event(n) for n in notifications(ledger, after=start)]
    kitty = [(type(e).__name__, e.amount, e.rule) for e in written
             if isinstance(e, Account.Moved) and e.originator_id == kitty_id(club.table_id)]
    assert kitty == [("Debited", 20, "R9.11")]
    [ended] = [e for e in written if isinstance(e, TableAggregate.DealEnded)]
    assert (ended.fact["next_banker"], ended.fact["kitty_after"]) == (club.ids["Pat"], 0)
    assert (club.chips("Pat"), club.chips("Banker"), club.kitty_chips()) == (104, 96, 0)
    assert club.table.banker == club.ids["Pat"] and club.table.kitty == 0
    assert chips_in_play(ledger) == 0

@pytest.mark.parametrize("stale_first", [True, False], ids=["stale-first", "fresh-first"])
def test_a_save_with_a_stale_aggregate_writes_none_of_the_aggregates_given(
        ledger, store_settings, stale_first):
    """All or nothing: Pat's account is read twice; one copy moves and is saved; a transfer
    on the stale copy saved with Sam's fresh account fails with IntegrityError, and neither
    account gains an event."""
    pat = str(ledger.register_player("Pat").result["id"])
    sam = str(ledger.register_player("Sam").result["id"])
    ledger.buy_in(pat, 50)
    stale = ledger.player_account(pat)
    ledger.buy_in(pat, 10)
    fresh_sam = ledger.player_account(sam)
    versions = (ledger.player_account(pat).version, fresh_sam.version)
    start = head(ledger)
    transfer = {"posting_id": "a-test-transfer", "amount": 5,
                "from_account": player_account(pat), "to_account": player_account(sam),
                "rule": "R11.1", "reason": "a transfer decided on stale chips",
                "deal_id": None, "table_id": None, "hand": None}
    stale.move(credit=False, **transfer)
    fresh_sam.move(credit=True, **transfer)

    with pytest.raises(IntegrityError):
        ledger.save(*((stale, fresh_sam) if stale_first else (fresh_sam, stale)))

    assert head(ledger) == start
    assert recorded_topics(ledger, after=start) == []
    with fresh_ledger(store_settings) as again:
        assert (again.player_account(pat).version, again.player_account(sam).version) == versions
        assert (again.player_account(pat).balance, again.player_account(sam).balance) == (60, 0)
        assert [e.posting_id for e in events_of(again, sam) if hasattr(e, "posting_id")] == []
        assert chips_in_play(again) == 0
