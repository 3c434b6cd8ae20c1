"""Every command of the Ledger works on a real store and is durable: a new application built
on the same store reads back exactly the state the commands left (events replay). Refusals
record nothing."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from uuid import UUID

import pytest

from domain.aggregates import TREASURY_ID, Token, kitty_id, token_id
from domain.engine.shuffle import commitment, derived_seed, shuffle_pack
from domain.errors import InsufficientChips, NotAllowed, NotFound, NotNow, PontoonError
from tests.integration.ledger_views import (
    Club,
    assert_read_back_identically,
    events_of,
    fresh_ledger,
    head,
    notifications,
    picture,
    seat_club,
    topic,
    treasury_balance,
)
from tests.ledger_club import stacked_pack

THREE = ("Banker", "Pat", "Sam")
SHOOT = {"shoot": True, "kitty_min": 10, "kitty_max": 50}


# --- players and chips ---------------------------------------------------------------------

def test_a_buy_in_and_a_cash_out_move_chips_between_the_treasury_and_the_player(
        ledger, store_settings):
    """R11.1: the treasurer issues 100 chips and redeems 30; the treasury's balance mirrors."""
    player = str(ledger.register_player("Pat").result["id"])

    bought = ledger.buy_in(player, 100)
    cashed = ledger.cash_out(player, 30)

    assert bought.result["balance"] == 100 and cashed.result["balance"] == 70
    assert cashed.position is not None and bought.position is not None
    assert cashed.position > bought.position
    assert ledger.player_account(player).balance == 70
    assert treasury_balance(ledger) == -70
    entries = events_of(ledger, player)
    assert [type(e).__name__ for e in entries] == ["Opened", "Credited", "Debited"]
    assert [(e.amount, e.rule, e.balance_after) for e in entries[1:]] == [
        (100, "R11.1", 100), (30, "R11.1", 70)]
    assert entries[1].posting_id == bought.result["posting_id"]
    with fresh_ledger(store_settings) as again:
        assert again.player_account(player).name == "Pat"
        assert again.player_account(player).balance == 70
        assert treasury_balance(again) == -70


def test_a_cash_out_of_more_than_the_balance_is_refused_and_nothing_is_recorded(
        ledger, store_settings):
    """R11.1, R11.2: the treasurer never redeems chips a player does not hold (422)."""
    player = str(ledger.register_player("Pat").result["id"])
    ledger.buy_in(player, 40)
    before = head(ledger)

    with pytest.raises(InsufficientChips) as refused:
        ledger.cash_out(player, 41)

    assert refused.value.rule == "R11.2" and refused.value.status == 422
    assert head(ledger) == before
    assert ledger.player_account(player).balance == 40
    assert treasury_balance(ledger) == -40
    assert_read_back_identically(ledger, store_settings, players=[player])


@pytest.mark.parametrize("amount", [0, -5, True])
def test_a_buy_in_of_no_whole_positive_amount_is_refused(ledger, amount):
    """R11.1: every posting is a positive whole number of chips."""
    player = str(ledger.register_player("Pat").result["id"])
    before = head(ledger)

    with pytest.raises(NotAllowed) as refused:
        ledger.buy_in(player, amount)

    assert refused.value.rule == "R11.1"
    assert head(ledger) == before


# --- tokens --------------------------------------------------------------------------------

def test_a_token_is_stored_only_as_its_hash_and_still_names_its_principal(
        ledger, store_settings):
    """A bearer token is looked up by its SHA-256; the token itself is never stored, not
    even in an idempotency receipt."""
    player = str(ledger.register_player("Pat").result["id"])

    treasurer = ledger.create_token("treasurer").result["token"]
    operator = ledger.create_token("operator", key="token-key-1").result["token"]
    players = ledger.create_token("player", player_id=player).result["token"]

    stored = notifications(ledger)
    tokens = [treasurer, operator, players]
    assert len(set(tokens)) == 3
    for token in tokens:
        assert token.encode() not in b"".join(n.state for n in stored)
        assert token not in {str(n.originator_id) for n in stored}
    issued = [n for n in stored if n.topic == topic(Token.Issued)]
    assert {UUID(str(n.originator_id)) for n in issued} == {
        token_id(hashlib.sha256(t.encode()).hexdigest()) for t in tokens}
    with fresh_ledger(store_settings) as again:
        assert again.principal(treasurer).role == "treasurer"
        assert again.principal(operator).role == "operator"
        assert (again.principal(players).role, again.principal(players).player_id) == (
            "player", player)
        assert again.principal("pt_not-a-token") is None
        assert again.principal(hashlib.sha256(treasurer.encode()).hexdigest()) is None


def test_a_token_adopted_from_outside_names_its_principal(ledger, store_settings):
    """A token chosen outside (PONTOON_TREASURER_TOKEN) is stored by hash like any other."""
    chosen = "adopted-treasurer-token-0123456789"

    ledger.create_token("treasurer", token=chosen)

    assert chosen.encode() not in b"".join(n.state for n in notifications(ledger))
    with fresh_ledger(store_settings) as again:
        assert again.principal(chosen).role == "treasurer"


@pytest.mark.parametrize("role, with_player", [
    ("bogus", False), ("player", False), ("treasurer", True), ("player", "unknown")])
def test_a_token_for_an_unknown_role_or_a_wrong_player_is_refused(ledger, role, with_player):
    """Roles are treasurer, operator and player; only a player token names a player, and
    that player must exist (404 for the API's path). Nothing is recorded."""
    player = str(ledger.register_player("Pat").result["id"])
    player_id = {False: None, True: player, "unknown": "6a1d0b2e-0000-4000-8000-000000000000"
                 }[with_player]
    before = head(ledger)

    with pytest.raises(NotFound if with_player == "unknown" else NotAllowed):
        ledger.create_token(role, player_id=player_id)

    assert head(ledger) == before


# --- tables --------------------------------------------------------------------------------

def test_a_shuffled_table_cuts_for_the_bank_and_commits_to_its_seed(ledger, store_settings):
    """R1.7, R3.2: the pack is the Fisher-Yates shuffle of the stored seed, its commitment is
    the seed's SHA-256, and with no named banker the highest cut takes the bank."""
    players = [str(ledger.register_player(n).result["id"]) for n in ("Ann", "Bob", "Cat")]

    table_id = str(ledger.open_table(name="shuffled", seats=players).result["table_id"])

    table = ledger.table(table_id).engine
    assert table.pack_mode == "shuffled" and table.seed is not None
    assert table.pack == shuffle_pack(table.seed, 1)
    assert table.commitment == commitment(table.seed)
    assert table.banker in players and table.cuts
    assert set(table.cuts[-1]) >= {table.banker}
    assert [type(e).__name__ for e in events_of(ledger, table_id)] == [
        "TableOpened", "PackShuffled"]
    assert_read_back_identically(ledger, store_settings, tables=[table_id])


def test_an_ordered_table_keeps_the_pack_order_it_was_given(ledger, store_settings):
    """R1.7: an explicit pack order, holding every card once, is dealt as given."""
    order = stacked_pack(["AS", "KH", "7C"])

    club = seat_club(ledger, top=["AS", "KH", "7C"])

    assert club.table.pack_mode == "ordered" and club.table.pack == order
    assert club.table.seed is None and club.table.commitment is None
    assert [type(e).__name__ for e in events_of(ledger, club.table_id)] == [
        "TableOpened", "PackArranged"]
    assert_read_back_identically(ledger, store_settings, **club.everything())


def test_a_recorded_table_takes_each_card_as_it_is_dealt(ledger, store_settings):
    """R1.7 recorded mode: the operator enters each card in dealing order."""
    club = seat_club(ledger, pack={"mode": "recorded"})

    club.start(cards=["10S", "9H"])
    club.act("Pat", "stake", amount=2, cards=["5S", "8H"])
    club.act("Pat", "twist", cards=["4D"])
    club.act("Pat", "stick")
    club.act("Banker", "stay")

    assert club.table.pack is None and club.deal.pack is None
    assert club.hands("Pat") == [["10S", "5S", "4D"]]
    assert club.deal.banker_cards == ["9H", "8H"]
    assert club.deal.phase == "settled"
    assert (club.chips("Pat"), club.chips("Banker")) == (102, 98)
    assert_read_back_identically(ledger, store_settings, **club.everything())


@pytest.mark.parametrize("cards", [None, ["10S", "10S"], ["10S"]])
def test_a_recorded_deal_refuses_missing_or_impossible_cards(ledger, cards):
    """R1.7: the count must match what is dealt and each card must still be in the packs."""
    club = seat_club(ledger, pack={"mode": "recorded"})
    before = head(ledger)

    with pytest.raises(NotAllowed) as refused:
        club.start(cards=cards)

    assert refused.value.rule == "R1.7"
    assert head(ledger) == before


def test_a_table_with_an_unknown_seat_is_refused_and_nothing_is_recorded(ledger):
    """R3.1: every seat is a registered player (422)."""
    pat = str(ledger.register_player("Pat").result["id"])
    before = head(ledger)

    with pytest.raises(NotAllowed):
        ledger.open_table(name="ghosts", seats=[pat, "0c0ffee0-0000-4000-8000-000000000000"])
    with pytest.raises(NotAllowed):
        ledger.open_table(name="bad id", seats=[pat, "not-a-uuid"])

    assert head(ledger) == before


def test_players_join_and_leave_between_deals(ledger, store_settings):
    """R3.1: Sam sits after the banker, Cat at the end; Pat leaves; seats keep their order."""
    club = seat_club(ledger)
    sam = str(ledger.register_player("Sam").result["id"])
    cat = str(ledger.register_player("Cat").result["id"])

    ledger.seat_player(club.table_id, sam, after=club.ids["Banker"])
    ledger.seat_player(club.table_id, cat)
    ledger.remove_player(club.table_id, club.ids["Pat"])

    assert club.table.seats == [club.ids["Banker"], sam, cat]
    assert [type(e).__name__ for e in events_of(ledger, club.table_id)][-3:] == [
        "PlayerSeated", "PlayerSeated", "PlayerLeft"]
    assert_read_back_identically(ledger, store_settings, **club.everything())


def test_a_kitty_is_put_up_and_topped_up_from_the_bankers_chips(ledger, store_settings):
    """R9.1 a new kitty of 20, R9.9 a top-up of 15: both move the banker's chips to the
    table's kitty account, each posting naming its rule."""
    club = seat_club(ledger, rules=SHOOT)

    ledger.put_up_kitty(club.table_id, club.ids["Banker"], 20)
    ledger.put_up_kitty(club.table_id, club.ids["Banker"], 15)

    assert club.table.kitty == 35 and club.kitty_chips() == 35
    assert club.chips("Banker") == 65
    kitty_entries = events_of(ledger, kitty_id(club.table_id))
    assert [(type(e).__name__, getattr(e, "amount", None), getattr(e, "rule", None))
            for e in kitty_entries] == [
        ("Opened", None, None), ("Credited", 20, "R9.1"), ("Credited", 15, "R9.9")]
    assert_read_back_identically(ledger, store_settings, **club.everything())


def test_the_bank_is_sold_and_the_old_banker_takes_the_kitty(ledger, store_settings):
    """R8.2: the price moves from buyer to seller; R9.11: the seller takes the kitty."""
    club = seat_club(ledger, THREE, rules=SHOOT, kitty=20)

    ledger.sell_bank(club.table_id, club.ids["Pat"], 15)

    assert club.table.banker == club.ids["Pat"] and club.table.kitty == 0
    assert club.kitty_chips() == 0
    assert (club.chips("Banker"), club.chips("Pat"), club.chips("Sam")) == (115, 85, 100)
    assert_read_back_identically(ledger, store_settings, **club.everything())


# Pat 10-9 = 19, Sam 10-7 = 17, banker 10-8 = 18; Pat shoots the whole kitty of 10 and wins.
EMPTYING_TOP = ["10S", "10H", "10C", "9S", "7H", "8C"]


def empty_the_kitty(ledger) -> Club:
    """A deal after which the kitty is empty (R9.10)."""
    club = seat_club(ledger, THREE, top=EMPTYING_TOP, rules=SHOOT, kitty=10)
    club.start()
    club.act("Pat", "stake", amount=2)
    club.act("Sam", "stake", amount=2)
    club.act("Pat", "shoot", amount=10)
    club.act("Pat", "stick")
    club.act("Sam", "stick")
    club.act("Banker", "stay")
    assert club.table.kitty == 0 and club.kitty_chips() == 0
    return club


def test_an_auction_of_the_bank_sells_it_to_the_highest_bid(ledger, store_settings):
    """R9.10: with the kitty empty after a deal the banker offers the bank; Pat's 7 beats
    Sam's 5 and moves from Pat to the banker."""
    club = empty_the_kitty(ledger)
    chips = {name: club.chips(name) for name in THREE}

    ledger.open_auction(club.table_id, club.ids["Banker"])
    ledger.bid(club.table_id, club.ids["Sam"], 5)
    ledger.bid(club.table_id, club.ids["Pat"], 7)
    closed = ledger.close_auction(club.table_id, club.ids["Banker"])

    assert (closed.result["sold_to"], closed.result["price"]) == (club.ids["Pat"], 7)
    assert club.table.banker == club.ids["Pat"] and club.table.auction is None
    assert club.chips("Pat") == chips["Pat"] - 7
    assert club.chips("Banker") == chips["Banker"] + 7
    assert club.chips("Sam") == chips["Sam"]
    assert_read_back_identically(ledger, store_settings, **club.everything())


def test_an_auction_read_back_while_open_keeps_its_bids(ledger, store_settings):
    """R9.10: bids in the order placed survive a new application reading the table."""
    club = empty_the_kitty(ledger)

    ledger.open_auction(club.table_id, club.ids["Banker"])
    ledger.bid(club.table_id, club.ids["Sam"], 5)

    assert club.table.auction == [(club.ids["Sam"], 5)]
    with fresh_ledger(store_settings) as again:
        assert again.table(club.table_id).engine.auction == [(club.ids["Sam"], 5)]
    assert_read_back_identically(ledger, store_settings, **club.everything())


# --- deals ---------------------------------------------------------------------------------

# Pat 8-8 splits: 8-2 buys a 9 (19), 8-3 twists a 5 (16); Sam 6-7 burns and gets 10-9;
# the banker 10-6 draws a 4 and stays on 20.
EVERY_PLAYER_ACTION = ["8S", "6H", "10C", "8H", "7D", "6C", "2S", "3S", "9S", "5S", "10D",
                       "9D", "4C"]


def test_a_deal_of_stakes_split_buy_twist_stick_burn_draw_and_stay_is_read_back(
        ledger, store_settings):
    """R3.5, R10.3 (decline), R5.1-R5.2, R4.3, R4.4, R4.6, R10.8, R6.3, R7.2: every player's
    and banker's action is recorded and a new application replays the same deal."""
    club = seat_club(ledger, THREE, top=EVERY_PLAYER_ACTION,
                     rules={"banker_may_double": True, "burn": "13"})

    club.start()
    club.act("Pat", "stake", amount=2)
    club.act("Sam", "stake", amount=2)
    club.act("Banker", "decline")
    club.act("Pat", "split")
    club.act("Pat", "buy", amount=2)
    club.act("Pat", "stick")
    club.act("Pat", "twist")
    club.act("Pat", "stick")
    club.act("Sam", "burn")
    club.act("Sam", "stick")
    club.act("Banker", "draw")
    settled = club.act("Banker", "stay")

    deal = club.deal
    assert deal.phase == "settled" and not deal.doubled
    assert club.hands("Pat") == [["8S", "2S", "9S"], ["8H", "3S", "5S"]]
    assert club.hands("Sam") == [["10D", "9D"]]
    assert deal.banker_cards == ["10C", "6C", "4C"]
    assert (club.chips("Banker"), club.chips("Pat"), club.chips("Sam")) == (108, 94, 98)
    assert settled.result["version"] == club.ledger.deal(club.deal_id).version
    assert club.table.deal_id is None and club.table.deals_played == 1
    names = [type(e).__name__ for e in events_of(ledger, club.deal_id)]
    for event in ("StakePlaced", "BankerDeclinedToDouble", "HandSplit", "CardBought",
                  "HandTwisted", "HandBurned", "HandStuck", "BankerTurnBegan",
                  "BankerStayed", "DealSettled"):
        assert event in names
    assert_read_back_identically(ledger, store_settings, **club.everything())


def test_a_banker_who_doubles_collects_two_stakes_and_the_deal_is_read_back(
        ledger, store_settings):
    """R10.3: the banker doubles; Pat sticks on 17 against 18 and pays twice the stake."""
    club = seat_club(ledger, top=["10S", "10H", "7S", "8H"], rules={"banker_may_double": True})

    club.start()
    club.act("Pat", "stake", amount=2)
    club.act("Banker", "double")
    club.act("Pat", "stick")
    club.act("Banker", "stay")

    assert club.deal.doubled and club.deal.phase == "settled"
    assert (club.chips("Banker"), club.chips("Pat")) == (104, 96)
    assert {p.rule for p in club.deal.settlement.postings} == {"R10.3"}
    assert_read_back_identically(ledger, store_settings, **club.everything())


# Pat 2-3 twists a 4 (9), shoots 3, twists a 5 and a 6: a five card trick of 20.
# Sam 10-9 sticks on 19; the banker 10-8 stays on 18.
SHOOTING_TOP = ["2S", "10H", "10C", "3S", "9H", "8C", "4S", "5S", "6S"]


def test_first_round_shoot_and_pass_and_a_fourth_card_shoot_are_read_back(
        ledger, store_settings):
    """R9.3: Pat shoots 5 and Sam passes; R9.5: Pat shoots 3 more before the fourth card;
    R4.8, R7.2, R9.8: the five card trick is paid double and its shoot bets from the kitty."""
    club = seat_club(ledger, THREE, top=SHOOTING_TOP, rules=SHOOT, kitty=20)

    club.start()
    club.act("Pat", "stake", amount=2)
    club.act("Sam", "stake", amount=2)
    club.act("Pat", "shoot", amount=5)
    club.act("Sam", "pass")
    club.act("Pat", "twist")
    club.act("Pat", "shoot", amount=3)
    club.act("Pat", "twist")
    club.act("Pat", "twist")
    club.act("Sam", "stick")
    club.act("Banker", "stay")

    pat = club.deal.hands[club.ids["Pat"]][0]
    assert pat.cards == ["2S", "3S", "4S", "5S", "6S"] and pat.status == "five_card_trick"
    assert pat.shoot_bet == 8
    assert (club.chips("Banker"), club.chips("Pat"), club.chips("Sam")) == (74, 112, 102)
    assert club.kitty_chips() == 12 and club.table.kitty == 12
    names = [type(e).__name__ for e in events_of(ledger, club.deal_id)]
    assert names.count("ShootBetPlaced") == 2 and names.count("ShootPassed") == 1
    assert_read_back_identically(ledger, store_settings, **club.everything())


def test_a_deal_read_back_in_the_middle_is_the_same_deal(ledger, store_settings):
    """An open deal replays to the same turn, hands, escrow postings and pack."""
    club = seat_club(ledger, THREE, top=EVERY_PLAYER_ACTION,
                     rules={"banker_may_double": True, "burn": "13"})

    club.start()
    club.act("Pat", "stake", amount=2)
    club.act("Sam", "stake", amount=2)
    club.act("Banker", "decline")
    club.act("Pat", "split")

    assert club.deal.phase == "playing" and club.deal.turn == (club.ids["Pat"], 0)
    assert club.table.deal_id == club.deal_id
    assert_read_back_identically(ledger, store_settings, **club.everything())


def test_a_second_deal_is_dealt_from_the_pack_the_first_deal_left(ledger, store_settings):
    """R1.4, R1.5: with no pontoon the used cards go under the pack, in table order."""
    club = seat_club(ledger, top=["10S", "10H", "7S", "8H"])
    club.start()
    club.act("Pat", "stake", amount=2)
    club.act("Pat", "stick")
    club.act("Banker", "stay")
    left = list(club.table.pack)

    club.start()

    assert left[-4:] == ["10S", "7S", "10H", "8H"]
    assert club.deal.pack is not None and list(club.deal.pack) == left[2:]
    assert club.hands("Pat") == [[left[0]]] and club.deal.banker_cards == [left[1]]
    assert_read_back_identically(ledger, store_settings, **club.everything())



def test_after_a_pontoon_the_bank_passes_and_the_next_deal_reshuffles(ledger, store_settings):
    """R8.1: Pat's pontoon is paid double and takes the bank; R1.4: the pack is shuffled
    before the next deal, an ordered table from its public derived seed (R1.7)."""
    club = seat_club(ledger, top=["AS", "10H", "KS", "8H"])
    club.start()
    club.act("Pat", "stake", amount=2)
    club.act("Banker", "stay")
    first_deal = club.deal_id

    club.start()

    seed = derived_seed("pontoon-ordered-table", club.table_id, 0)
    table = club.table
    assert (club.chips("Pat"), club.chips("Banker")) == (104, 96)
    assert table.banker == club.ids["Pat"] and table.shuffles == 1 and table.seed == seed
    assert list(club.deal.pack) == shuffle_pack(seed, 1)[2:]
    assert club.deal.order == [club.ids["Banker"]]
    assert [type(e).__name__ for e in events_of(ledger, club.table_id)][-3:] == [
        "DealEnded", "PackShuffled", "DealOpened"]
    assert_read_back_identically(ledger, store_settings, players=club.ids.values(),
                                 tables=[club.table_id], deals=[first_deal, club.deal_id])

# --- refusals ------------------------------------------------------------------------------

Refusal = Callable[[Club], object]
UNKNOWN = "5eed5eed-0000-4000-8000-000000000000"

REFUSALS: dict[str, tuple[Refusal, type[PontoonError], str | None]] = {
    "a stake out of turn": (lambda c: c.act("Sam", "stake", amount=2), NotNow, "R3.1"),
    "a stake above the maximum": (lambda c: c.act("Pat", "stake", amount=11), NotAllowed,
                                  "R3.5"),
    "a stake of chips not held": (lambda c: c.act("Pat", "stake", amount=4),
                                  InsufficientChips, "R11.2"),
    "a banker's draw before the players": (lambda c: c.act("Banker", "draw"), NotNow, "R6.3"),
    "an unknown action": (lambda c: c.act("Pat", "fold"), NotAllowed, None),
    "an action of an unknown deal": (
        lambda c: c.ledger.act(UNKNOWN, c.ids["Pat"], "stake", amount=2), NotFound, None),
    "an action of an unknown player": (
        lambda c: c.ledger.act(c.deal_id, UNKNOWN, "stake", amount=2), NotAllowed, None),
    "a buy-in for an unknown player": (lambda c: c.ledger.buy_in(UNKNOWN, 5), NotFound, None),
    "a buy-in to the treasury itself": (lambda c: c.ledger.buy_in(str(TREASURY_ID), 5),
                                        NotFound, None),
    "a table command naming a deal": (
        lambda c: c.ledger.seat_player(c.deal_id, c.ids["Pat"]), NotFound, None),
    "a cash-out of chips not held": (lambda c: c.ledger.cash_out(c.ids["Pat"], 4),
                                     InsufficientChips, "R11.2"),
    "a second deal while one is open": (lambda c: c.ledger.start_deal(c.table_id), NotNow,
                                        "R3.4"),
    "a player joining during a deal": (
        lambda c: c.ledger.seat_player(c.table_id, c.ids["Pat"]), NotNow, "R3.1"),
    "a player leaving during a deal": (
        lambda c: c.ledger.remove_player(c.table_id, c.ids["Pat"]), NotNow, "R3.1"),
    "a kitty at a table without Shoot Pontoon": (
        lambda c: c.ledger.put_up_kitty(c.table_id, c.ids["Banker"], 10), NotAllowed, "R9.12"),
    "a bid at a table without Shoot Pontoon": (
        lambda c: c.ledger.bid(c.table_id, c.ids["Sam"], 5), NotAllowed, "R9.12"),
    "an action on an unknown table": (
        lambda c: c.ledger.sell_bank(UNKNOWN, c.ids["Pat"], 1), NotFound, None),
}


@pytest.mark.parametrize("case", list(REFUSALS))
def test_a_refused_command_records_nothing(ledger, case):
    """R11.2 and every refusal: the command is refused (409, 422 or 404) and the store, the
    deal, the table and every balance are exactly as they were."""
    command, error, rule = REFUSALS[case]
    club = seat_club(ledger, THREE, chips={"Banker": 100, "Pat": 3, "Sam": 100})
    club.start()
    before = picture(ledger, **club.everything())

    with pytest.raises(error) as refused:
        command(club)

    assert refused.value.rule == rule
    assert picture(ledger, **club.everything()) == before


def test_refusals_between_deals_record_nothing(ledger):
    """R3.1 a player already seated; R8.2 the banker cannot leave; R8.2 the buyer must hold
    the price; R9.1 only the banker puts up a kitty."""
    club = seat_club(ledger, THREE, rules=SHOOT, chips={"Banker": 100, "Pat": 3, "Sam": 100})
    before = picture(ledger, **club.everything())

    with pytest.raises(NotNow) as seated:
        ledger.seat_player(club.table_id, club.ids["Pat"])
    with pytest.raises(NotNow) as banker_leaves:
        ledger.remove_player(club.table_id, club.ids["Banker"])
    with pytest.raises(InsufficientChips):
        ledger.sell_bank(club.table_id, club.ids["Pat"], 4)
    with pytest.raises(NotAllowed) as not_banker:
        ledger.put_up_kitty(club.table_id, club.ids["Sam"], 10)
    with pytest.raises(NotNow) as no_auction:
        ledger.open_auction(club.table_id, club.ids["Banker"])

    assert (seated.value.rule, banker_leaves.value.rule, not_banker.value.rule,
            no_auction.value.rule) == ("R3.1", "R8.2", "R9.1", "R9.10")
    assert picture(ledger, **club.everything()) == before

