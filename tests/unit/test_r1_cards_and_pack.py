"""R1 Cards and the pack: notation, values, one or two packs, pack order kept between deals,
used cards to the bottom (R1.5), reshuffles after a pontoon (R1.4), void deals (R1.6), and
ordered, shuffled and recorded packs (R1.7).

Deal order with ("Banker", "Pat", "Sam") and banker "Banker": Pat, Sam, Banker; after the
last stake Pat, Sam, Banker again; then one card per buy, twist or draw.
"""

import hashlib
import hmac
import re
from collections import Counter
from itertools import chain, count

import pytest

from domain.engine import facts as f
from domain.engine.cards import (
    ONE_PACK,
    POINTS,
    RANKS,
    SUITS,
    check_card,
    check_ordered_pack,
    full_pack,
)
from domain.engine.hands import value
from domain.engine.shuffle import commitment, derived_seed, shuffle_pack
from domain.engine.table import Table
from domain.engine.table_state import KEPT_PACKS
from domain.engine.verification import verify_deal
from domain.errors import InvalidSetup, NotAllowed
from tests.ledger_club import LedgerClub, make_game, stacked_pack

NOTATION = re.compile(r"^(A|[2-9]|10|J|Q|K)[SHDC]$")


# --- helpers -----------------------------------------------------------------------------

def suited(ranks):
    """Cards for `ranks`, each rank taking the next unused suit (S, H, D, C, then again)."""
    used: Counter[str] = Counter()
    cards = []
    for rank in ranks:
        cards.append(rank + SUITS[used[rank] % 4])
        used[rank] += 1
    return cards


def dealt(facts):
    """The cards of the CardDealt facts among `facts`, in the order dealt."""
    return [x.card for x in facts if isinstance(x, f.CardDealt)]


def facts_of(game, stream):
    return [fact for name, fact in game.club.log if name == stream]


def snapshot(game):
    """Everything a refused command must leave alone."""
    club = game.club
    deal = club.deals.get(game.deal_id) if game.deal_id else None
    return (game.table.version, deal.version if deal else None, dict(club.balances),
            club.head, list(game.table.pack or []), len(club.deals), len(club.tables))


def refused(game, command, error, rule):
    """`command()` raises exactly `error` naming `rule`, and nothing is recorded or moved."""
    before = snapshot(game)

    with pytest.raises(error) as caught:
        command()

    assert type(caught.value) is error
    assert caught.value.rule == rule
    assert snapshot(game) == before


def open_refused(rules=None, pack=None, seats=("Ann", "Bob"), banker="Ann"):
    """Opening a table is refused: returns the error; no table was opened."""
    club = LedgerClub()
    ids = {name: club.register_player(name) for name in seats}

    with pytest.raises(InvalidSetup) as caught:
        club.open_table("t", [ids[n] for n in seats], banker=ids[banker], rules=rules, pack=pack)

    assert club.tables == {} and club.log == []
    return caught.value


def play_out(game, steps):
    """Run (name, action[, amount]) steps; returns the facts of the last one."""
    facts = []
    for name, action, *amount in steps:
        facts = game.act(name, action, amount=amount[0] if amount else None)
    return facts


def banker_pontoon_game(**kwargs):
    """Banker, Pat: the banker's A-K is shown at once after Pat's stake (R3.8)."""
    game = make_game(("Banker", "Pat"), top=["9S", "AH", "8S", "KH"], **kwargs)
    game.start()
    game.act("Pat", "stake", amount=5)
    assert game.deal.phase == "settled"
    return game


# --- R1.1 one pack or two ----------------------------------------------------------------

def test_r1_1_a_pack_is_the_52_cards_of_thirteen_ranks_in_four_suits():
    """R1.1: one standard pack holds 52 different cards, 13 ranks of each of 4 suits."""
    pack = full_pack(1)

    assert len(pack) == 52 and len(set(pack)) == 52
    assert Counter(card[-1] for card in pack) == {"S": 13, "H": 13, "D": 13, "C": 13}
    assert Counter(card[:-1] for card in pack) == {rank: 4 for rank in RANKS}


def test_r1_1_two_packs_shuffled_together_hold_104_cards_each_twice():
    """R1.1: a two-pack table shuffles 104 cards, every card of the pack exactly twice."""
    seed = derived_seed("two packs")

    shuffled = shuffle_pack(seed, 2)

    assert len(shuffled) == 104
    assert Counter(shuffled) == {card: 2 for card in ONE_PACK}
    assert shuffled != full_pack(2)


def test_r1_1_a_two_pack_table_deals_the_same_card_twice():
    """R1.1: with `packs: 2` an ordered pack has 104 cards and the same card can be dealt twice."""
    game = make_game(("Banker", "Pat"), top=["KS", "KS", "9D", "9D"], rules={"packs": 2})

    game.start()
    facts = game.act("Pat", "stake", amount=5)

    assert game.hand("Pat").cards == ["KS", "9D"]
    assert game.deal.banker_cards == ["KS", "9D"]
    assert dealt(facts) == ["9D", "9D"]
    assert len(game.deal.pack) == 100


def test_r1_1_a_two_pack_table_refuses_a_one_pack_order():
    """R1.1, R1.7: a two-pack table's ordered pack must hold 104 cards, not 52."""
    error = open_refused(rules={"packs": 2}, pack={"mode": "ordered", "cards": full_pack(1)})

    assert error.rule == "R1.7"


@pytest.mark.parametrize("packs", [0, 3, "2", True, 1.0])
def test_r1_1_a_table_uses_one_or_two_packs_only(packs):
    """R1.1: `packs` is 1 or 2; anything else is refused when the table opens."""
    error = open_refused(rules={"packs": packs})

    assert error.rule == "R1.1"


# --- R1.2 card values --------------------------------------------------------------------

def test_r1_2_ten_cards_count_ten_and_other_cards_their_pips():
    """R1.2: K, Q, J and 10 count 10; 2 to 9 count their pips; an ace counts 1 (hard)."""
    expected = {"A": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9,
                "10": 10, "J": 10, "Q": 10, "K": 10}

    points = {card: POINTS[card] for card in ONE_PACK}

    assert points == {card: expected[card[:-1]] for card in ONE_PACK}


@pytest.mark.parametrize(("cards", "best"), [
    (["AS", "6D"], 17),             # the ace counts 11
    (["AS", "6D", "9C"], 16),       # 11 would bust: the ace counts 1
    (["AS", "AH"], 12),             # only one ace can count 11
    (["AS", "AH", "9C"], 21),
    (["AS", "KD"], 21),
    (["AS", "5C", "5D"], 21),
    (["AS", "5C", "5D", "KH"], 21),
    (["7S", "8C"], 15),
])
def test_r1_2_an_ace_counts_one_or_eleven_as_is_best_for_its_holder(cards, best):
    """R1.2: the ace counts 11 when that does not take the hand over 21, else 1."""
    assert value(cards) == best


def test_r1_2_a_soft_hand_may_stick_on_its_best_value():
    """R1.2: A-4 is worth 15 to its holder, so it may stick (R4.6: at least 15)."""
    game = make_game(("Banker", "Pat"), top=["AS", "10S", "4D", "8S"])
    game.start()
    game.act("Pat", "stake", amount=5)

    facts = game.act("Pat", "stick")

    assert any(isinstance(x, f.HandStuck) for x in facts)
    assert game.hand("Pat").status == "stuck"


def test_r1_2_a_soft_hand_that_would_bust_counts_its_ace_as_one():
    """R1.2: A-5 (16) twisting a king is 16 again, not bust: the ace now counts 1."""
    game = make_game(("Banker", "Pat"), top=["AS", "10S", "5D", "8S", "KC"])
    game.start()
    game.act("Pat", "stake", amount=5)

    game.act("Pat", "twist")

    assert game.hand("Pat").cards == ["AS", "5D", "KC"]
    assert game.hand("Pat").status == "open"
    assert value(game.hand("Pat").cards) == 16


# --- R1.3 notation -----------------------------------------------------------------------

def test_r1_3_every_card_is_written_rank_then_suit():
    """R1.3: ranks A 2 .. 10 J Q K, suits S H D C, rank first: AS, 10H, QD."""
    assert set(ONE_PACK) == {rank + suit for rank in RANKS for suit in SUITS}
    assert RANKS == ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
    assert SUITS == ("S", "H", "D", "C")
    assert all(NOTATION.match(card) for card in ONE_PACK)
    assert [check_card(card) for card in ("AS", "10H", "QD")] == ["AS", "10H", "QD"]


@pytest.mark.parametrize("text", ["TS", "1S", "11S", "SA", "as", "10h", "A♠", "A", "10", "",
                                  " AS", "AS ", "AX", None, 10])
def test_r1_3_text_that_is_not_a_card_is_refused(text):
    """R1.3: anything not written rank then suit in this notation is refused naming R1.3."""
    with pytest.raises(InvalidSetup) as caught:
        check_card(text)

    assert caught.value.rule == "R1.3"


def test_r1_3_an_ordered_pack_written_in_another_notation_is_refused():
    """R1.3: an ordered pack with "TS" for the ten of spades is refused; no table opens."""
    cards = ["TS" if card == "10S" else card for card in full_pack(1)]

    error = open_refused(pack={"mode": "ordered", "cards": cards})

    assert error.rule == "R1.3"


def test_r1_3_dealt_cards_are_reported_in_the_notation():
    """R1.3: the cards in the deal's facts are the notation strings, e.g. "10H"."""
    game = make_game(("Banker", "Pat"), top=["10H", "QD", "AS", "7C"])

    game.start()
    facts = game.act("Pat", "stake", amount=5)

    assert dealt(facts_of(game, game.deal_id)) == ["10H", "QD", "AS", "7C"]
    assert all(NOTATION.match(card) for card in dealt(facts))


# --- R1.4 pack order kept; a pontoon reshuffles ------------------------------------------

def test_r1_4_used_cards_go_to_the_bottom_without_shuffling():
    """R1.4: after a deal with no pontoon the pack keeps its order, used cards go under it,
    and the next deal is dealt from the top: its first cards are the next cards of the pack."""
    top = ["10S", "9S", "8S", "7S", "5S", "9H", "3H"]
    game = make_game(("Banker", "Pat", "Sam"), top=top)
    rest = stacked_pack(top)[len(top):]
    game.start()
    play_out(game, [("Pat", "stake", 5), ("Sam", "stake", 5), ("Pat", "stick"),
                    ("Sam", "twist"), ("Sam", "stick"), ("Banker", "stay")])
    assert game.deal.phase == "settled" and game.table.deal_id is None

    game.start()

    assert game.table.pack == rest + ["10S", "7S"] + ["9S", "5S", "3H"] + ["8S", "9H"]
    assert dealt(facts_of(game, game.deal_id)) == rest[:3]
    assert not any(isinstance(x, f.PackShuffled) for _, x in game.club.log)
    assert game.table.shuffles == 0


def test_r1_4_the_pack_order_carries_on_over_several_deals():
    """R1.4: three deals without a pontoon are dealt one after another from the same pack."""
    game = make_game(("Banker", "Pat"), top=["2S", "3S", "4S", "5S", "9S", "6S", "7S", "8S",
                                               "9H", "10H", "2H", "3H", "4H", "5H"])
    tops = []

    for _ in range(3):
        pack = list(game.table.pack)
        game.start()
        game.act("Pat", "stake", amount=5)
        tops.append((pack[:4], game.hand("Pat").cards[:2] + game.deal.banker_cards[:2]))
        while game.deal.phase == "playing":
            game.act("Pat", "stick" if value(game.hand("Pat").cards) >= 15 else "twist")
        if game.deal.phase == "banker":
            game.act("Banker", "stay")
        assert sorted(game.table.pack) == sorted(ONE_PACK)

    assert [(p[0], p[2], p[1], p[3]) for p, _ in tops] == [tuple(h) for _, h in tops]
    assert [h for _, h in tops] == [["2S", "4S", "3S", "5S"], ["6S", "8S", "7S", "9H"],
                                    ["2H", "4H", "3H", "5H"]]
    assert not any(isinstance(x, f.PackShuffled) for _, x in game.club.log)


def test_r1_4_a_players_pontoon_has_the_pack_shuffled_before_the_next_deal():
    """R1.4: after a deal in which a player held a pontoon the whole pack is shuffled."""
    top = ["AS", "9S", "KS", "8S"]
    game = make_game(("Banker", "Pat"), top=top)
    game.start()
    game.act("Pat", "stake", amount=5)
    game.act("Banker", "stay")
    assert game.deal.settlement.pontoon_held

    game.start()

    shuffled = [x for _, x in game.club.log if isinstance(x, f.PackShuffled)]
    assert len(shuffled) == 1 and shuffled[0].rule == "R1.4"
    new_pack = shuffle_pack(shuffled[0].seed, 1)
    assert game.deal.commitment == commitment(shuffled[0].seed)
    assert dealt(facts_of(game, game.deal_id)) == new_pack[:2]
    assert list(game.deal.pack) == new_pack[2:]


def test_r1_4_a_bankers_pontoon_has_the_pack_shuffled_before_the_next_deal():
    """R1.4: the banker's pontoon (R3.8) also counts: the next deal starts from a new shuffle."""
    game = banker_pontoon_game()
    leftover = list(game.deal.settlement.pack_after)  # what the deal left, before the shuffle

    game.start()

    shuffled = [x for _, x in game.club.log if isinstance(x, f.PackShuffled)]
    assert [x.rule for x in shuffled] == ["R1.4"]
    assert game.table.shuffles == 1
    assert dealt(facts_of(game, game.deal_id)) == shuffle_pack(shuffled[0].seed, 1)[:2]
    assert shuffle_pack(shuffled[0].seed, 1) != leftover


# --- R1.5 used cards to the bottom in table order ----------------------------------------

def test_r1_5_a_busted_hands_cards_go_to_the_bottom_at_once():
    """R1.5 (R4.7): the moment Sam busts, Sam's cards lie under the pack, during the deal."""
    top = ["10S", "10H", "9S", "8S", "6H", "7S", "9C"]
    game = make_game(("Banker", "Pat", "Sam"), top=top)
    rest = stacked_pack(top)[len(top):]
    game.start()
    play_out(game, [("Pat", "stake", 5), ("Sam", "stake", 5), ("Pat", "stick")])

    game.act("Sam", "twist")

    assert game.hand("Sam").status == "bust"
    assert game.deal.phase == "banker"
    assert list(game.deal.pack) == rest + ["10H", "6H", "9C"]


def test_r1_5_used_cards_go_under_in_table_order_hand_by_hand_then_the_banker():
    """R1.5: busted cards first (at once); then each player's hands in turn order, hand by
    hand with cards in the order dealt, then the banker's cards, drawn ones included."""
    top = ["8S", "10S", "9S", "8H", "6S", "5D", "KC", "QC", "9C", "4D"]
    game = make_game(("Banker", "Pat", "Sam"), top=top)
    rest = stacked_pack(top)[len(top):]
    game.start()
    play_out(game, [("Pat", "stake", 5), ("Sam", "stake", 5), ("Pat", "split"),
                    ("Pat", "stick"), ("Pat", "stick"), ("Sam", "twist")])
    assert game.hand("Sam").status == "bust"

    play_out(game, [("Banker", "draw"), ("Banker", "stay")])

    assert game.deal.settlement.pack_after == (
        rest + ["10S", "6S", "9C"] + ["8S", "KC"] + ["8H", "QC"] + ["9S", "5D", "4D"])
    assert game.table.pack == game.deal.settlement.pack_after


# --- R1.6 the pack runs out: the deal is void --------------------------------------------

LOW = ("H1", "H2", "H3", "H4", "H5", "H6", "H7", "H8")
TENS = ("T1", "T2", "T3", "T4", "T5", "T6", "T7")
CROWD = ("Banker", "Bust", *TENS, *LOW, "Last")


def crowded_pack():
    """An ordered pack that leaves every card in a standing hand, so the banker's third draw
    finds the pack empty.

    Deal order: Bust, T1..T7, H1..H8, Last, Banker (17 players and the banker). Bust holds two
    ten-cards and busts on a twisted 4: those three cards go to the bottom (R1.5) and are the
    last cards dealt. T1..T7 stick on two ten-cards; H1..H7 twist twice to a hard 21 (9-9-2-A,
    8-8-4-A, 7-7-5-2, 6-6-5-4); H8 twists once to 6-6-5 and sticks; Last holds 3-3 and twists
    Bust's first ten; the banker holds 3-3, draws Bust's second ten and the 4 (3-3-10-4, 20),
    and draws again: all 52 cards are in standing hands, so the pack has run out.
    """
    first_round = ["10", "J", "Q", "K", "10", "J", "Q", "K", "9", "9", "8", "8", "7", "7",
                   "6", "6", "3", "3"]
    draws = ["4", "2", "A", "2", "A", "4", "A", "4", "A", "5", "2", "5", "2", "5", "4", "5"]
    cards = suited(first_round + first_round + draws)
    assert Counter(cards) == Counter(full_pack(1))
    return cards


def play_crowd_until_the_pack_runs_out(game):
    """Plays the crowded deal to the banker's draw that finds no card; returns its facts."""
    game.club.put_up_kitty(game.table_id, game.ids["Banker"], 50)
    game.start()
    for name in CROWD[1:]:
        game.act(name, "stake", amount=2)
    for name in CROWD[1:]:
        if name == "Bust":
            game.act(name, "shoot", amount=5)
        elif name == "H1":
            game.act(name, "shoot", amount=3)
        else:
            game.act(name, "pass")
    game.act("Bust", "twist")
    assert game.hand("Bust").status == "bust"
    for name in TENS:
        game.act(name, "stick")
    for name in LOW[:-1]:
        game.act(name, "twist")
        game.act(name, "twist")
        assert game.hand(name).status == "stuck"
    play_out(game, [("H8", "twist"), ("H8", "stick"), ("Last", "twist"), ("Last", "stick"),
                    ("Banker", "draw"), ("Banker", "draw")])
    assert game.deal.phase == "banker" and list(game.deal.pack) == []
    return game.act("Banker", "draw")


def test_r1_6_when_the_pack_runs_out_the_deal_is_void_and_every_bet_comes_back():
    """R1.6: the banker's draw finds no card: the deal is void, every stake and shoot bet is
    returned (the busted hand's stake, taken by the banker, and its shoot bet, gone into the
    kitty, included), nothing else is paid, and the command is answered with the void deal."""
    game = make_game(CROWD, pack={"mode": "ordered", "cards": crowded_pack()},
                     rules={"shoot": True})
    kitty = f"kitty:{game.table_id}"

    facts = play_crowd_until_the_pack_runs_out(game)

    voided = [x for x in facts if isinstance(x, f.DealVoided)]
    assert len(voided) == 1 and facts[-1] is voided[0]
    assert game.deal.phase == "void" and game.deal.is_over
    assert all(p.rule == "R1.6" for p in voided[0].postings)
    assert {name: game.chips(name) for name in CROWD[1:]} == {name: 100 for name in CROWD[1:]}
    assert game.chips("Banker") == 100 - 50
    assert game.club.balances[kitty] == 50 and game.table.kitty == 50
    assert game.club.balances[f"escrow:{game.deal_id}"] == 0
    assert game.club.total() == 0


def test_r1_6_a_void_deal_does_not_pass_the_bank_and_the_pack_is_shuffled_next():
    """R1.6: after a void deal the bank stays where it was and the next deal starts from a
    freshly shuffled pack."""
    game = make_game(CROWD, pack={"mode": "ordered", "cards": crowded_pack()},
                     rules={"shoot": True})
    play_crowd_until_the_pack_runs_out(game)
    assert game.table.deal_id is None

    game.start()

    assert game.table.banker == game.ids["Banker"]
    shuffled = [x for _, x in game.club.log if isinstance(x, f.PackShuffled)]
    assert len(shuffled) == 1
    assert dealt(facts_of(game, game.deal_id)) == shuffle_pack(shuffled[0].seed, 1)[:18]


def test_r1_6_a_void_deal_pays_no_pontoon_and_passes_no_bank():
    """R1.6: 25 players and the banker take all 52 cards in two rounds. Pat's pontoon is
    formed, Sam's twist finds no card: the deal is void, Pat's pontoon is not paid and does
    not take the bank (R8.1), every stake comes back."""
    players = ("Banker", "Pat", "Sam", *(f"P{i}" for i in range(3, 26)))
    first = ["AS", "2S", *[None] * 23, "4S"]
    second = ["KS", "3S", *[None] * 23, "5S"]
    fixed = {c for c in first + second if c}
    filler = iter(card for card in full_pack(1) if card not in fixed)
    pack = [card or next(filler) for card in first + second]
    game = make_game(players, pack={"mode": "ordered", "cards": pack})
    game.start()
    for name in players[1:]:
        game.act(name, "stake", amount=3)
    assert game.hand("Pat").status == "pontoon" and list(game.deal.pack) == []
    assert game.deal.turn == (game.ids["Sam"], 0)

    facts = game.act("Sam", "twist")

    assert isinstance(facts[-1], f.DealVoided)
    assert game.deal.phase == "void"
    assert {name: game.chips(name) for name in players} == {name: 100 for name in players}
    assert game.table.banker == game.ids["Banker"]
    assert shuffled_as_it_ended(game)


def shuffled_as_it_ended(game) -> bool:
    """The deal that calls for a shuffle (R1.4, R1.6) commits to the next pack as it ends,
    so players may add to it before its first card (R1.7, decision 135)."""
    facts = [x for stream, x in game.club.log if stream == game.table_id]
    ended = max(i for i, x in enumerate(facts)
                if isinstance(x, f.DealEnded) and x.deal_id == game.deal_id)
    return not game.table.needs_shuffle and \
        any(isinstance(x, f.PackShuffled) for x in facts[ended + 1:])


def test_r1_6_a_pack_that_runs_out_in_the_first_round_voids_the_deal_at_once():
    """R1.6: 59 players and the banker need 60 first cards from one pack: the start of the
    deal is answered with a void deal, no chips move and the next deal is shuffled first."""
    players = ("Banker", *(f"P{i}" for i in range(59)))
    game = make_game(players)

    game.start()

    assert game.deal.phase == "void"
    assert isinstance(facts_of(game, game.deal_id)[-1], f.DealVoided)
    assert facts_of(game, game.deal_id)[-1].postings == []
    assert game.table.deal_id is None and shuffled_as_it_ended(game)
    assert {game.chips(name) for name in players} == {100}


SIX = ("Banker", "P1", "P2", "P3", "P4", "P5")


def six_seats_four_hands_each():
    """Six seats; each player splits to four hands (R5.3) and every card ends in a standing
    hand, so the banker's third draw finds the pack empty.

    P1..P5 hold the four 5s, 6s, 7s, 8s and 9s, each hand taking a ten-card (an ace for P5);
    P1's hands twist the 2s and 3s, P2's the other 3s and two 4s; the banker holds 2-2 and
    draws the last two 4s (12), then draws again.
    """
    rounds = ["5S", "6S", "7S", "8S", "9S", "2D", "5H", "6H", "7H", "8H", "9H", "2C"]
    turns = [["5D", "10S", "5C", "JS", "QS", "KS", "2S", "2H", "3S", "3H"],
             ["6D", "10H", "6C", "JH", "QH", "KH", "3D", "3C", "4S", "4H"],
             ["7D", "10D", "7C", "JD", "QD", "KD"], ["8D", "10C", "8C", "JC", "QC", "KC"],
             ["9D", "AS", "9C", "AH", "AD", "AC"]]
    cards = rounds + [card for cards in turns for card in cards] + ["4D", "4C"]
    assert Counter(cards) == Counter(full_pack(1))
    game = make_game(SIX, pack={"mode": "ordered", "cards": cards})
    game.start()
    for name in SIX[1:]:
        game.act(name, "stake", amount=2)
    for name in SIX[1:]:
        for _ in range(3):
            game.act(name, "split")
        for _ in range(4):
            if name in ("P1", "P2"):
                game.act(name, "twist")
            game.act(name, "stick")
    game.act("Banker", "draw")
    game.act("Banker", "draw")
    assert list(game.deal.pack) == []
    assert all(len(game.deal.hands[game.ids[name]]) == 4 for name in SIX[1:])
    return game


@pytest.mark.parametrize("scenario", ["crowd", "six-seats"])
def test_r1_6_a_deal_void_at_the_bankers_draw_is_decided_again_from_its_facts(scenario):
    """R1.6 with R7.5: "a void deal is recorded and audited like any other". When the
    banker's draw finds the pack empty, no card names that draw; the audit's verification
    still recovers it and decides every recorded fact again, the void included."""
    if scenario == "crowd":
        game = make_game(CROWD, pack={"mode": "ordered", "cards": crowded_pack()},
                         rules={"shoot": True})
        play_crowd_until_the_pack_runs_out(game)
    else:
        game = six_seats_four_hands_each()
        game.act("Banker", "draw")
    history = facts_of(game, game.deal_id)

    verified = verify_deal(history)

    assert isinstance(history[-2], f.CardDealt) and isinstance(history[-1], f.DealVoided)
    assert history[-2].rule == "R6.3" and game.deal.phase == "void"
    assert verified.replayed and verified.differences == [], verified.differences
    assert verified.chips_conserved


# --- R1.7 ordered packs --------------------------------------------------------------------

def test_r1_7_an_explicit_pack_order_is_dealt_exactly_as_given():
    """R1.7: an ordered table deals its pack top card first, in the order given."""
    pack = list(reversed(full_pack(1)))
    game = make_game(("Banker", "Pat", "Sam"), pack={"mode": "ordered", "cards": pack})

    game.start()
    game.act("Pat", "stake", amount=5)
    game.act("Sam", "stake", amount=5)

    assert dealt(facts_of(game, game.deal_id)) == pack[:6]


@pytest.mark.parametrize("cards", [
    full_pack(1)[:-1],                              # a card missing
    full_pack(1) + ["AS"],                          # a card too many
    ["AS"] + full_pack(1)[1:-1] + ["AS"],           # AS twice, KC missing
    full_pack(2),                                   # two packs on a one-pack table
    [],
])
def test_r1_7_an_ordered_pack_must_hold_every_card_exactly_once(cards):
    """R1.7: a pack order with a card missing, extra or twice is refused; no table opens."""
    error = open_refused(pack={"mode": "ordered", "cards": cards})

    assert error.rule == "R1.7"


def test_r1_7_check_ordered_pack_names_what_is_missing_and_extra():
    """R1.7: the refusal of a wrong pack names the missing and the extra cards."""
    cards = ["AS"] + full_pack(1)[1:-1] + ["AS"]

    with pytest.raises(InvalidSetup) as caught:
        check_ordered_pack(cards, 1)

    assert caught.value.rule == "R1.7"
    assert "KC" in caught.value.message and "AS" in caught.value.message


@pytest.mark.parametrize("pack", [
    {"mode": "shuffled", "cards": full_pack(1)},
    {"mode": "recorded", "cards": full_pack(1)},
    {"mode": "stacked"},
])
def test_r1_7_only_an_ordered_pack_takes_a_list_of_cards(pack):
    """R1.7: the pack modes are shuffled, ordered and recorded; only ordered takes cards."""
    error = open_refused(pack=pack)

    assert error.rule == "R1.7"


def test_r1_7_an_ordered_table_takes_no_cards_from_an_operator():
    """R1.7: cards sent with a deal's start at a table that deals its own are refused."""
    game = make_game(("Banker", "Pat"))

    refused(game, lambda: game.club.start_deal(game.table_id, cards=["AS", "KS"]),
            NotAllowed, "R1.7")


# --- R1.7 shuffled packs: commitment, reveal, re-run ---------------------------------------

def independent_shuffle(seed, packs):
    """The documented shuffle re-implemented from its description (engine.md, R1.7):
    Fisher-Yates, top card first, driven by HMAC-SHA256(seed, b"pontoon-shuffle-v1" ||
    counter as 8 big-endian bytes), each block read as four big-endian 64-bit numbers, with
    rejection sampling so no index is favoured."""
    def numbers():
        counter = 0
        while True:
            block = hmac.new(bytes.fromhex(seed), b"pontoon-shuffle-v1"
                             + counter.to_bytes(8, "big"), hashlib.sha256).digest()
            for offset in (0, 8, 16, 24):
                yield int.from_bytes(block[offset:offset + 8], "big")
            counter += 1

    stream = numbers()
    cards = [rank + suit for suit in "SHDC" for rank in
             ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")] * packs
    for i in range(len(cards) - 1, 0, -1):
        bound = i + 1
        limit = 2 ** 64 - 2 ** 64 % bound
        number = next(stream)
        while number >= limit:
            number = next(stream)
        j = number % bound
        cards[i], cards[j] = cards[j], cards[i]
    return cards


@pytest.mark.parametrize("packs", [1, 2])
def test_r1_7_anyone_can_re_run_the_named_shuffle_from_the_seed(packs):
    """R1.7: the shuffle is a Fisher-Yates shuffle on a named deterministic stream; an
    independent implementation from its description gives the very same pack."""
    seeds = [derived_seed("verify", n) for n in range(5)]

    for seed in seeds:
        assert shuffle_pack(seed, packs) == independent_shuffle(seed, packs)


def test_r1_7_the_shuffle_is_deterministic_and_each_seed_gives_its_own_order():
    """R1.7: the same seed always gives the same pack; different seeds give different packs,
    each a permutation of the whole pack."""
    seeds = [derived_seed("determinism", n) for n in range(20)]

    packs = [tuple(shuffle_pack(seed, 1)) for seed in seeds]

    assert packs == [tuple(shuffle_pack(seed, 1)) for seed in seeds]
    assert len(set(packs)) == 20
    assert all(sorted(pack) == sorted(ONE_PACK) for pack in packs)


def test_r1_7_the_commitment_is_the_sha256_of_the_seed():
    """R1.7: the commitment published is SHA-256 of the seed's bytes."""
    seed = derived_seed("commit")

    assert commitment(seed) == hashlib.sha256(bytes.fromhex(seed)).hexdigest()
    assert commitment(seed) != commitment(derived_seed("commit", 2))


def pontoon_seed():
    """A seed whose shuffle gives the banker A + ten-card at a Banker-and-Pat table: the
    banker's cards are the 2nd and 4th dealt (R3.4, R3.7)."""
    return pontoon_seeds(1)[0]


def pontoon_seeds(count):
    found = []
    for n in range(10_000):
        seed = derived_seed("banker pontoon", n)
        pack = shuffle_pack(seed, 1)
        ranks = {pack[1][:-1], pack[3][:-1]}
        if "A" in ranks and ranks & {"10", "J", "Q", "K"}:
            found.append(seed)
            if len(found) == count:
                return found
    raise AssertionError("no seed found")


def shuffled_game(seeds):
    """Banker and Pat at a shuffled table whose club draws its secret seeds from `seeds`, then
    from spares: the Ledger draws one as the table opens, as each deal starts and as each
    deal ends, and shuffles with it only when the pack must be shuffled (R1.4, decision 135)."""
    supply = chain(seeds, (derived_seed("spare", n) for n in count()))
    club = LedgerClub(new_seed=lambda: next(supply))
    ids = {name: club.register_player(name) for name in ("Banker", "Pat")}
    for player in ids.values():
        club.buy_in(player, 100)
    table_id = club.open_table("t", list(ids.values()), banker=ids["Banker"],
                               pack={"mode": "shuffled"})
    return club, ids, table_id


def test_r1_7_a_shuffled_pack_publishes_its_commitment_before_the_first_card():
    """R1.7: the table records the SHA-256 commitment of the seed before any card is dealt,
    and every card dealt comes from the committed shuffle."""
    first = derived_seed("secret", 1)
    club, ids, table_id = shuffled_game([first, derived_seed("secret", 2)])

    deal_id = club.start_deal(table_id)

    kinds = [type(x) for _, x in club.log]
    assert kinds.index(f.PackShuffled) < kinds.index(f.CardDealt)
    published = next(x for _, x in club.log if isinstance(x, f.PackShuffled))
    assert published.commitment == hashlib.sha256(bytes.fromhex(first)).hexdigest()
    assert club.table(table_id).commitment == published.commitment
    assert club.deal(deal_id).commitment == published.commitment
    assert club.table(table_id).revealed == []
    assert dealt([x for s, x in club.log if s == deal_id]) == shuffle_pack(first, 1)[:2]


def test_r1_7_the_seed_is_revealed_at_the_next_shuffle_and_reproduces_every_card_dealt():
    """R1.7: when the pack is next shuffled the old seed is revealed; it matches the
    commitment published earlier, and re-running the shuffle on it gives every card dealt."""
    first, second = pontoon_seed(), derived_seed("secret", 3)
    club, ids, table_id = shuffled_game([first, derived_seed("unused"), second])
    published = club.table(table_id).commitment
    deal_id = club.start_deal(table_id)
    club.act(deal_id, ids["Pat"], "stake", amount=5)
    assert club.deal(deal_id).phase == "settled"
    cards_dealt = dealt([x for s, x in club.log if s == deal_id])

    club.start_deal(table_id)

    table = club.table(table_id)
    assert table.revealed == [{"commitment": published, "seed": first}]
    reshuffle = [x for _, x in club.log if isinstance(x, f.PackShuffled)][-1]
    assert reshuffle.revealed_seed == first and reshuffle.commitment == commitment(second)
    revealed = table.revealed[0]["seed"]
    assert hashlib.sha256(bytes.fromhex(revealed)).hexdigest() == published
    assert shuffle_pack(revealed, 1)[:len(cards_dealt)] == cards_dealt
    assert table.commitment == commitment(second)


def test_r1_7_a_table_keeps_its_last_packs_revealed_and_every_seed_in_its_shuffle():
    """R1.7, decision 92: a table keeps only its last KEPT_PACKS earlier packs, newest last,
    so its state, snapshots and view stay the same size however long it is played; every
    seed revealed stays recorded by the shuffle that revealed it. A state saved with every
    earlier pack (a snapshot from before) is restored as a replay leaves it."""
    # Every pack gives the banker a pontoon: each deal ends at once, the next reshuffles.
    # A seed is drawn as each deal starts and as it ends (the one that reshuffles).
    club, ids, table_id = shuffled_game(pontoon_seeds(2 * (KEPT_PACKS + 6)))
    club.buy_in(ids["Pat"], 1000)
    for _ in range(KEPT_PACKS + 4):
        deal_id = club.start_deal(table_id)
        club.act(deal_id, ids["Pat"], "stake", amount=5)
        assert club.deal(deal_id).phase == "settled"
    club.start_deal(table_id)

    table = club.table(table_id)
    shuffles = [x for _, x in club.log if isinstance(x, f.PackShuffled)]
    revealed = [x.revealed_seed for x in shuffles if x.revealed_seed]
    assert len(revealed) == KEPT_PACKS + 4
    assert table.revealed == [{"commitment": commitment(seed), "seed": seed}
                              for seed in revealed[-KEPT_PACKS:]]
    history = [x for stream, x in club.log if stream == table_id]
    assert Table.replay(history).to_state() == table.to_state()
    before = {**table.to_state(), "revealed": [{"commitment": commitment(seed), "seed": seed}
                                               for seed in revealed]}
    assert Table.from_state(before).to_state() == table.to_state()


def test_r1_4_a_shuffled_pack_is_not_reshuffled_after_a_deal_without_a_pontoon():
    """R1.4, R1.7: without a pontoon the committed pack carries on into the next deal: no new
    shuffle, no new commitment, no seed revealed; the next deal comes off its top."""
    seed = next(s for s in (derived_seed("no ace", n) for n in range(1000))
                if not any(card[0] == "A" for card in shuffle_pack(s, 1)[:4]))
    club, ids, table_id = shuffled_game([seed, derived_seed("unused", 1),
                                         derived_seed("unused", 2)])
    published = club.table(table_id).commitment
    deal_id = club.start_deal(table_id)
    club.act(deal_id, ids["Pat"], "stake", amount=5)
    while (deal := club.deal(deal_id)).phase == "playing":
        cards = deal.hands[ids["Pat"]][0].cards
        club.act(deal_id, ids["Pat"], "stick" if value(cards) >= 15 else "twist")
    if deal.phase == "banker":
        club.act(deal_id, ids["Banker"], "stay")
    carried_on = list(club.table(table_id).pack)

    second = club.start_deal(table_id)

    table = club.table(table_id)
    assert [type(x) for _, x in club.log].count(f.PackShuffled) == 1
    assert table.commitment == published and table.revealed == []
    assert club.deal(second).commitment == published
    assert dealt([x for s, x in club.log if s == second]) == carried_on[:2]


# --- R1.7 recorded mode ----------------------------------------------------------------------

def recorded_game(players=("Banker", "Pat"), rules=None):
    return make_game(players, pack={"mode": "recorded"}, rules=rules)


def start_recorded(game, cards):
    game.deal_id = game.club.start_deal(game.table_id, cards=cards)
    return game.deal_id


def test_r1_7_a_recorded_table_deals_the_cards_the_operator_enters():
    """R1.7: in recorded mode the first round comes with the start, the second round with
    the last stake, and one card with each twist, in the order dealt."""
    game = recorded_game(("Banker", "Pat", "Sam"))

    start_recorded(game, ["9S", "8H", "7D"])
    game.act("Pat", "stake", amount=5)
    game.act("Sam", "stake", amount=5, cards=["4C", "5C", "10C"])
    game.act("Pat", "twist", cards=["2D"])

    assert game.hand("Pat").cards == ["9S", "4C", "2D"]
    assert game.hand("Sam").cards == ["8H", "5C"]
    assert game.deal.banker_cards == ["7D", "10C"]
    assert game.table.pack is None


@pytest.mark.parametrize("cards", [["9S"], ["9S", "8H", "7D"], [], None])
def test_r1_7_a_recorded_start_needs_exactly_the_first_rounds_cards(cards):
    """R1.7: too few or too many cards (two needed here) are refused and no deal opens."""
    game = recorded_game()

    refused(game, lambda: start_recorded(game, cards), NotAllowed, "R1.7")
    assert game.table.deal_id is None and game.club.deals == {}


def test_r1_7_a_recorded_start_refuses_a_card_the_pack_cannot_hold_twice():
    """R1.7: one pack holds one AS, so two are refused; nothing is recorded."""
    game = recorded_game()

    refused(game, lambda: start_recorded(game, ["AS", "AS"]), NotAllowed, "R1.7")


def test_r1_7_a_recorded_two_pack_table_holds_each_card_twice_but_not_three_times():
    """R1.7, R1.1: two packs hold two AS: a third is refused; the first two are dealt."""
    game = recorded_game(("Banker", "Pat"), rules={"packs": 2})
    start_recorded(game, ["AS", "AS"])
    game.act("Pat", "stake", amount=5, cards=["KS", "9D"])
    assert game.hand("Pat").cards == ["AS", "KS"]

    refused(game, lambda: game.act("Banker", "draw", cards=["AS"]), NotAllowed, "R1.7")
    assert game.deal.banker_cards == ["AS", "9D"]


def test_r1_7_a_recorded_card_in_bad_notation_is_refused():
    """R1.7, R1.3: a recorded card not in the notation is refused naming R1.3."""
    game = recorded_game()

    refused(game, lambda: start_recorded(game, ["AS", "1S"]), InvalidSetup, "R1.3")


def test_r1_7_the_last_stake_without_the_second_round_is_refused_and_changes_nothing():
    """R1.7: the last stake deals the second round, so it must bring its cards; refused, the
    stake is not taken and the deal is unchanged."""
    game = recorded_game(("Banker", "Pat", "Sam"))
    start_recorded(game, ["9S", "8H", "7D"])
    game.act("Pat", "stake", amount=5)

    refused(game, lambda: game.act("Sam", "stake", amount=5), NotAllowed, "R1.7")
    refused(game, lambda: game.act("Sam", "stake", amount=5, cards=["4C", "5C"]),
            NotAllowed, "R1.7")
    refused(game, lambda: game.act("Sam", "stake", amount=5, cards=["4C", "5C", "6C", "7C"]),
            NotAllowed, "R1.7")
    assert game.chips("Sam") == 100 and game.deal.phase == "staking"


def test_r1_7_a_stake_that_deals_nothing_takes_no_cards():
    """R1.7: Pat's stake is not the last and deals no card, so cards sent with it are refused."""
    game = recorded_game(("Banker", "Pat", "Sam"))
    start_recorded(game, ["9S", "8H", "7D"])

    refused(game, lambda: game.act("Pat", "stake", amount=5, cards=["4C"]), NotAllowed, "R1.7")
    assert game.chips("Pat") == 100


def test_r1_7_a_recorded_card_already_on_the_table_is_refused():
    """R1.7: a twist entering a card that is already in someone's hand is refused."""
    game = recorded_game()
    start_recorded(game, ["9S", "8H"])
    game.act("Pat", "stake", amount=5, cards=["4C", "10C"])

    refused(game, lambda: game.act("Pat", "twist", cards=["8H"]), NotAllowed, "R1.7")
    refused(game, lambda: game.act("Pat", "twist", cards=["2D", "3D"]), NotAllowed, "R1.7")
    refused(game, lambda: game.act("Pat", "twist"), NotAllowed, "R1.7")
    assert game.hand("Pat").cards == ["9S", "4C"]


def test_r1_7_a_busted_hands_recorded_cards_may_be_dealt_again():
    """R1.7 with R1.5: a busted hand's cards go back under the pack at once, so the operator
    may enter them again later in the same deal; cards still in a hand may not."""
    game = recorded_game(("Banker", "Pat", "Sam"))
    start_recorded(game, ["9S", "8H", "7D"])
    game.act("Pat", "stake", amount=5)
    game.act("Sam", "stake", amount=5, cards=["8C", "2C", "10C"])
    game.act("Pat", "twist", cards=["KD"])
    assert game.hand("Pat").status == "bust"
    refused(game, lambda: game.act("Sam", "twist", cards=["10C"]), NotAllowed, "R1.7")

    game.act("Sam", "twist", cards=["KD"])

    assert game.hand("Sam").cards == ["8H", "2C", "KD"]


def test_r1_7_a_copy_of_a_table_and_its_revealed_seeds_grow_apart():
    """The ledger decides on a copy of a table (domain/engine/facts.py): its revealed packs
    (at most KEPT_PACKS, decision 92), seats and pack are its own."""
    import copy

    from domain.engine.table_state import TableState

    table = TableState()
    table.seats, table.pack = ["ann", "pat"], ["AS", "2S"]
    table.revealed = [{"commitment": f"c{i}", "seed": f"s{i}"} for i in range(3)]

    clone = copy.deepcopy(table)
    clone.revealed.append({"commitment": "c3", "seed": "s3"})
    clone.revealed[0]["seed"] = "changed"
    clone.seats.append("sam")
    clone.pack.pop()

    assert table.revealed == [{"commitment": f"c{i}", "seed": f"s{i}"} for i in range(3)]
    assert table.seats == ["ann", "pat"] and table.pack == ["AS", "2S"]
