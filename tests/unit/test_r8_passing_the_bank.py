"""R8: passing the bank, by a pontoon (R8.1, R8.3) or by a sale (R8.2)."""

import pytest

from domain.engine import facts as f
from domain.errors import InsufficientChips, NotAllowed, NotNow
from tests.ledger_club import make_game

THREE = ("Banker", "Pat", "Sam")


def frozen(game):
    """Everything a refused command must leave as it was."""
    deal = game.club.deals.get(game.deal_id) if game.deal_id else None
    return (deal.version if deal else None, game.table.version,
            {name: game.chips(name) for name in game.ids}, len(game.club.postings),
            game.club.head)


def play_plain_deal(game):
    """Pat 10-9 sticks on 19; the banker stays on 10-8 = 18 (needs that top)."""
    game.start()
    game.act("Pat", "stake", amount=2)
    game.act("Pat", "stick")
    game.act("Banker", "stay")


PLAIN_TOP = ["10S", "10C", "9S", "8C"]


# --- R8.1 ----------------------------------------------------------------------------------

def test_r8_1_a_players_pontoon_takes_the_bank_from_the_next_deal():
    """R8.1: Pat's first-two-card pontoon, the banker holding none, makes Pat the banker."""
    game = make_game(top=["AS", "9C", "KS", "8C"])
    game.start()
    game.act("Pat", "stake", amount=5)
    assert game.table.banker == game.ids["Banker"]

    game.act("Banker", "stay")

    assert game.deal.phase == "settled"
    assert game.deal.settlement.bank_passed_by == "R8.1"
    assert game.table.banker == game.ids["Pat"]
    assert game.chips("Pat") == 110 and game.chips("Banker") == 90


def test_r8_1_among_several_pontoons_the_one_nearest_the_bankers_left_takes_the_bank():
    """R8.1: Sam is seated first, but Pat sits at the banker's left, so Pat's pontoon wins."""
    game = make_game(("Sam", "Banker", "Pat"), top=["AS", "AH", "9C", "KS", "KH", "8C"])
    game.start()
    game.act("Pat", "stake", amount=2)
    game.act("Sam", "stake", amount=2)

    game.act("Banker", "stay")

    assert game.hand("Pat").status == "pontoon" and game.hand("Sam").status == "pontoon"
    assert game.table.banker == game.ids["Pat"]


def test_r8_1_a_pontoon_on_a_split_hand_does_not_take_the_bank():
    """R8.1 (with R2.5): A-K formed by splitting aces is paid as a pontoon but the bank stays."""
    game = make_game(top=["AS", "9C", "AH", "8C", "KS", "5D"])
    game.start()
    game.act("Pat", "stake", amount=2)
    game.act("Pat", "split")
    game.act("Pat", "stick")

    game.act("Banker", "stay")

    assert game.hand("Pat", 0).status == "pontoon"
    assert game.deal.settlement.bank_passed_by is None
    assert game.table.banker == game.ids["Banker"]
    assert game.chips("Pat") == 100 + 4 - 2  # hand 0 paid double, hand 1 (16) loses


def test_r8_1_a_players_pontoon_does_not_take_the_bank_when_the_banker_has_a_pontoon():
    """R8.1: the banker's own pontoon (R3.8) beats Pat's pontoon and keeps the bank."""
    game = make_game(top=["AS", "AC", "KS", "KC"])
    game.start()

    game.act("Pat", "stake", amount=3)

    assert game.deal.phase == "settled"
    assert game.table.banker == game.ids["Banker"]
    assert game.chips("Pat") == 94


# --- R8.3 ----------------------------------------------------------------------------------

def test_r8_3_the_new_banker_deals_the_next_deal_from_a_reshuffled_pack():
    """R8.3: the bank changes as the deal is settled; the new banker deals next (R1.4 shuffle)."""
    game = make_game(THREE, top=["AS", "10H", "9C", "KS", "9H", "8C"])
    game.start()
    game.act("Pat", "stake", amount=2)
    game.act("Sam", "stake", amount=2)
    game.act("Sam", "stick")
    game.act("Banker", "stay")
    assert game.table.banker == game.ids["Pat"]

    game.start()

    assert game.deal.banker == game.ids["Pat"]
    assert game.deal.order == [game.ids["Sam"], game.ids["Banker"]]
    shuffles = [fact for _, fact in game.club.log if isinstance(fact, f.PackShuffled)]
    assert shuffles and shuffles[-1].rule == "R1.4"


def test_r8_3_a_pontoon_formed_after_burning_takes_the_bank():
    """R8.3 with R10.8: Pat burns 6-7 and is dealt A-K, a pontoon that takes the bank."""
    game = make_game(top=["6S", "9C", "7S", "8C", "AS", "KS"], rules={"burn": "13"})
    game.start()
    game.act("Pat", "stake", amount=2)

    game.act("Pat", "burn")
    game.act("Banker", "stay")

    assert game.hand("Pat").cards == ["AS", "KS"]
    assert game.table.banker == game.ids["Pat"]


def test_r8_3_after_a_sale_without_a_pontoon_the_new_banker_deals_from_the_pack_as_it_lies():
    """R8.3 with R1.4: no pontoon was held, so the new banker Pat deals the next cards of the
    pack unshuffled: first to the old banker (Pat's left), then to Pat."""
    game = make_game(top=PLAIN_TOP)
    play_plain_deal(game)
    game.club.sell_bank(game.table_id, game.ids["Pat"], 7)
    pack = list(game.table.pack)

    game.start()

    assert game.deal.banker == game.ids["Pat"]
    assert game.hand("Banker").cards == [pack[0]]
    assert game.deal.banker_cards == [pack[1]]
    assert not any(isinstance(fact, f.PackShuffled) for _, fact in game.club.log)


# --- R8.2 ----------------------------------------------------------------------------------

def test_r8_2_the_banker_sells_the_bank_between_deals_and_the_price_moves_buyer_to_seller():
    """R8.2: after a deal the bank is sold to Pat for 7; Pat pays 7 to the banker."""
    game = make_game(top=PLAIN_TOP)
    play_plain_deal(game)
    pat, banker = game.chips("Pat"), game.chips("Banker")

    game.club.sell_bank(game.table_id, game.ids["Pat"], 7)

    assert game.table.banker == game.ids["Pat"]
    assert game.chips("Pat") == pat - 7 and game.chips("Banker") == banker + 7
    game.start()
    assert game.deal.banker == game.ids["Pat"]


def test_r8_2_the_bank_is_not_sold_during_a_deal():
    """R8.2: a sale happens after a deal; while one is open it is refused (409)."""
    game = make_game(top=PLAIN_TOP)
    game.start()
    game.act("Pat", "stake", amount=2)
    before = frozen(game)

    with pytest.raises(NotNow) as refused:
        game.club.sell_bank(game.table_id, game.ids["Pat"], 7)

    assert refused.value.rule == "R8.2"
    assert frozen(game) == before


def test_r8_2_the_buyer_must_be_seated_at_the_table():
    """R8.2: a registered player with chips who holds no seat cannot buy the bank."""
    game = make_game(top=PLAIN_TOP)
    lee = game.club.register_player("Lee")
    game.club.buy_in(lee, 50)
    play_plain_deal(game)
    before = frozen(game)

    with pytest.raises(NotAllowed) as refused:
        game.club.sell_bank(game.table_id, lee, 7)

    assert refused.value.rule == "R8.2"
    assert frozen(game) == before and game.club.chips(lee) == 50


def test_r8_2_the_banker_cannot_buy_the_bank_from_themselves():
    """R8.2: the bank is sold to another player."""
    game = make_game(top=PLAIN_TOP)
    play_plain_deal(game)
    before = frozen(game)

    with pytest.raises(NotAllowed) as refused:
        game.club.sell_bank(game.table_id, game.ids["Banker"], 7)

    assert refused.value.rule == "R8.2"
    assert frozen(game) == before


def test_r8_2_the_buyer_must_hold_the_price():
    """R8.2 with R11.2: Pat holds 12 chips and cannot pay 13 for the bank."""
    game = make_game(top=PLAIN_TOP, chips={"Banker": 100, "Pat": 10})
    play_plain_deal(game)
    assert game.chips("Pat") == 12
    before = frozen(game)

    with pytest.raises(InsufficientChips) as refused:
        game.club.sell_bank(game.table_id, game.ids["Pat"], 13)

    assert refused.value.rule == "R11.2"
    assert frozen(game) == before
    assert game.table.banker == game.ids["Banker"]


def test_r8_2_the_banker_cannot_leave_without_first_passing_the_bank():
    """R8.2: the banker's leave is refused (409); once the bank is sold the old banker may go."""
    game = make_game(THREE, top=["10S", "10H", "10C", "9S", "8H", "8C"])
    game.start()
    game.act("Pat", "stake", amount=2)
    game.act("Sam", "stake", amount=2)
    game.act("Pat", "stick")
    game.act("Sam", "stick")
    game.act("Banker", "stay")
    before = frozen(game)

    with pytest.raises(NotNow) as refused:
        game.club.leave(game.table_id, game.ids["Banker"])

    assert refused.value.rule == "R8.2"
    assert frozen(game) == before
    game.club.sell_bank(game.table_id, game.ids["Sam"], 5)
    game.club.leave(game.table_id, game.ids["Banker"])
    assert game.table.seats == [game.ids["Pat"], game.ids["Sam"]]
