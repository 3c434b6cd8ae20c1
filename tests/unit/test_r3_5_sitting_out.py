"""R3.5's Decision: a player who, when their turn to stake comes, no longer holds the minimum
stake sits the deal out. Their first card stays unseen and goes under the pack with the
other used cards at the end of the deal (R1.4, R1.5), the deal
records why, and staking goes on with the next player; with no player but the banker left
the deal is void (no refunds: nobody staked) and the pack is kept.

Pat holds 10 chips and sits at two tables with a minimum stake of 10: Ann banks table A,
Bob table B. Both deals start; Pat stakes his 10 at A, so at B he can no longer stake.
"""

from dataclasses import dataclass

import pytest

from domain.engine import facts as f
from domain.engine.deal import Deal
from domain.engine.legal import LegalAction, legal_actions
from domain.engine.verification import verify_deal
from domain.errors import InsufficientChips, NotNow
from tests.ledger_club import Game, LedgerClub, stacked_pack

RULES = {"min_stake": 10, "max_stake": 20}


@dataclass
class Tables:
    club: LedgerClub
    a: Game
    b: Game

    def id(self, name):
        return self.a.ids[name]


def two_tables(b_seats=("Bob", "Pat"), *, top=(), rules=None, pat=10, recorded=None):
    """Tables A (Ann, Pat) and B (`b_seats`, Bob banking), each with its deal started; B's
    pack is stacked with `top` (dealt in B's turn order), or B is in recorded mode and its
    first round is the cards `recorded`."""
    club = LedgerClub()
    ids = {name: club.register_player(name) for name in ("Ann", "Bob", "Pat", "Sam")}
    for name, player in ids.items():
        club.buy_in(player, pat if name == "Pat" else 100)
    a = club.open_table("A", [ids["Ann"], ids["Pat"]], banker=ids["Ann"], rules=RULES,
                        pack={"mode": "ordered", "cards": stacked_pack(())})
    b = club.open_table("B", [ids[n] for n in b_seats], banker=ids["Bob"],
                        rules={**RULES, **(rules or {})},
                        pack={"mode": "recorded"} if recorded else
                        {"mode": "ordered", "cards": stacked_pack(top)})
    names = {v: k for k, v in ids.items()}
    tables = Tables(club, Game(club, ids, a, names=names), Game(club, ids, b, names=names))
    tables.a.start()
    tables.b.deal_id = club.start_deal(b, cards=recorded)
    return tables


def history(game):
    return [fact for stream, fact in game.club.log if stream == game.deal_id]


def test_r3_5_a_player_whose_chips_went_to_another_table_sits_out_and_the_deal_is_void():
    """R3.5: Pat stakes his 10 chips at A; at B his turn to stake has come and he holds
    none. B offers Pat's stake only, without amounts; his stake is answered by his sitting
    out (the deal records why), and with nobody but the banker left the deal is void: no
    chips move, the pack is kept (Pat's card, then Bob's, under it) and no shuffle is due.
    A new deal at B is then refused until Pat buys chips or leaves (R3.5), and he may leave."""
    t = two_tables(top=["9C", "KD"])
    pat, bob = t.id("Pat"), t.id("Bob")
    t.a.act("Pat", "stake", amount=10)
    assert t.club.chips(pat) == 0
    assert legal_actions(t.b.deal, {pat: 0}) == [LegalAction(pat, 0, "stake")]
    pack = list(t.b.deal.pack)

    facts = t.b.act("Pat", "stake", amount=10)

    sat, voided = facts
    assert sat == f.PlayerSatOut(pat, "when their turn to stake came they held less than "
                                      "the minimum stake of 10 (R3.5)", "R3.5")
    assert isinstance(voided, f.DealVoided) and voided.postings == []
    assert voided.pack_after == [*pack, "9C", "KD"] and not voided.shuffle_needed
    deal, table = t.b.deal, t.b.table
    assert deal.phase == "void" and deal.sat_out == {pat: sat.reason} and deal.hands == {}
    assert (t.club.chips(pat), t.club.chips(bob)) == (0, 100) and t.club.total() == 0
    assert table.deal_id is None and table.pack == voided.pack_after
    assert not table.needs_shuffle and table.banker == bob
    with pytest.raises(NotNow) as refused:
        t.club.start_deal(t.b.table_id)
    assert refused.value.rule == "R3.5"
    t.club.leave(t.b.table_id, pat)
    assert t.b.table.seats == [bob]


def test_r3_5_staking_passes_over_a_short_player_in_the_stake_before_theirs():
    """R3.5: at B Sam stakes before Pat. Pat's chips went to A first, so Sam's stake brings
    staking to Pat, who sits out in the same command; the second round goes to Sam and the
    banker only, and Pat's first card is kept unseen for the end of the deal (R1.4)."""
    t = two_tables(("Bob", "Sam", "Pat"), top=["9S", "9C", "KD", "8S", "QD"])
    sam, pat = t.id("Sam"), t.id("Pat")
    t.a.act("Pat", "stake", amount=10)

    facts = t.b.act("Sam", "stake", amount=10)

    assert [type(x).__name__ for x in facts] == [
        "StakePlaced", "PlayerSatOut", "CardDealt", "CardDealt", "PlayersTurnsBegan"]
    assert facts[1].player == pat
    assert [(x.player, x.card) for x in facts[2:4]] == [(sam, "8S"), (t.id("Bob"), "QD")]
    deal = t.b.deal
    assert deal.order == [sam] and deal.dealt_in == [sam, pat]
    assert deal.turn == (sam, 0) and "9C" not in deal.pack and deal.unseen == {pat: ["9C"]}


def test_r3_5_staking_goes_on_with_the_next_player_after_one_sits_out():
    """R3.5: at B Pat stakes first but holds nothing: his stake sits him out and the turn
    to stake moves to Sam, whose stake brings the second round."""
    t = two_tables(("Bob", "Pat", "Sam"), top=["9C", "9S", "KD", "8S", "QD"])
    pat, sam = t.id("Pat"), t.id("Sam")
    t.a.act("Pat", "stake", amount=10)

    sat = t.b.act("Pat", "stake", amount=10)
    assert [type(x).__name__ for x in sat] == ["PlayerSatOut"]
    assert t.b.deal.turn == (sam, 0) and t.b.deal.phase == "staking"
    t.b.act("Sam", "stake", amount=10)

    assert t.b.deal.phase == "playing" and t.b.deal.order == [sam]
    assert t.b.deal.hands[sam][0].cards == ["9S", "8S"]
    assert t.club.chips(pat) == 0 and t.club.chips(sam) == 90


def test_r3_5_the_card_of_a_player_who_sat_out_goes_under_the_pack_with_the_used_cards():
    """R3.5 with R1.4, R1.5: Pat's first card stays unseen, never in a hand, and goes to the
    bottom of the pack with the other used cards at the end of the deal, in table order:
    Pat's place comes before Sam's, then the banker's cards."""
    t = two_tables(("Bob", "Pat", "Sam"), top=["9C", "9S", "KD", "8S", "QD"])
    t.a.act("Pat", "stake", amount=10)
    t.b.act("Pat", "stake", amount=10)
    t.b.act("Sam", "stake", amount=10)
    rest = list(t.b.deal.pack)
    assert "9C" not in rest

    t.b.act("Sam", "stick")
    t.b.act("Bob", "stay")

    assert t.b.deal.settlement.pack_after == [*rest, "9C", "9S", "8S", "KD", "QD"]
    assert t.b.table.pack == t.b.deal.settlement.pack_after
    assert {r["player"] for r in t.b.deal.settlement.results} == {t.id("Sam")}


def test_r3_5_a_player_who_sat_out_is_not_expected_in_the_deal_any_more():
    """R3.5 with R3.1: once Pat has sat the deal out, any action of his is 409 naming R3.1,
    and the refusal says he sat it out."""
    t = two_tables(("Bob", "Pat", "Sam"))
    t.a.act("Pat", "stake", amount=10)
    t.b.act("Pat", "stake", amount=10)
    t.club.buy_in(t.id("Pat"), 50)

    with pytest.raises(NotNow) as refused:
        t.b.act("Pat", "stake", amount=10)

    assert refused.value.rule == "R3.1" and "sat it out" in refused.value.message


def test_r3_5_holding_the_minimum_stake_is_enough_to_stake():
    """R3.5 with R11.2: Pat holds 12 after staking 10 at A; at B (minimum 10) he may stake
    12 but not 15, which is refused as more than he holds, not a reason to sit out."""
    t = two_tables(pat=22)
    t.a.act("Pat", "stake", amount=10)

    with pytest.raises(InsufficientChips) as refused:
        t.b.act("Pat", "stake", amount=15)
    t.b.act("Pat", "stake", amount=12)

    assert refused.value.rule == "R11.2"
    assert t.b.deal.sat_out == {} and t.b.deal.phase == "playing"


def test_r3_5_when_the_last_player_to_stake_sits_out_the_banker_may_double_next():
    """R3.5 with R3.6: Sam stakes, Pat sits out last in the round: the banker's decision to
    double comes next (R10.3), as after any last stake."""
    t = two_tables(("Bob", "Sam", "Pat"), rules={"banker_may_double": True})
    t.a.act("Pat", "stake", amount=10)

    t.b.act("Sam", "stake", amount=10)

    assert t.b.deal.phase == "doubling" and t.b.deal.sat_out.keys() == {t.id("Pat")}


@pytest.mark.parametrize("seats", [("Bob", "Pat"), ("Bob", "Sam", "Pat"), ("Bob", "Pat", "Sam")])
def test_r3_5_a_deal_with_a_player_who_sat_out_replays_and_decides_again(seats):
    """R3.5 with R7.5: the facts of a deal where Pat sat out rebuild it exactly, and the
    audit's verification decides the same facts again from them."""
    t = two_tables(seats)
    t.a.act("Pat", "stake", amount=10)
    for name in seats[1:]:
        if t.b.deal.phase == "staking":
            t.b.act(name, "stake", amount=10)
    facts = history(t.b)

    replayed = Deal.replay(facts)

    assert any(isinstance(x, f.PlayerSatOut) for x in facts)
    assert (replayed.order, replayed.sat_out, replayed.phase, list(replayed.pack or [])) == (
        t.b.deal.order, t.b.deal.sat_out, t.b.deal.phase, list(t.b.deal.pack or []))
    assert verify_deal(facts).replayed, verify_deal(facts).differences


def test_r3_5_at_a_recorded_table_the_second_round_leaves_out_who_sat_out():
    """R3.5 with R1.7: at a recorded table Sam's stake brings staking to Pat, who sits out;
    the operator enters the second round for Sam and the banker only, Pat's card stays one
    of this deal's used cards (R1.4), and the deal decides again from its facts."""
    t = two_tables(("Bob", "Sam", "Pat"), recorded=["9S", "9C", "KD"])
    t.a.act("Pat", "stake", amount=10)

    facts = t.b.act("Sam", "stake", amount=10, cards=["8S", "QD"])

    assert [type(x).__name__ for x in facts][:2] == ["StakePlaced", "PlayerSatOut"]
    assert t.b.deal.hands[t.id("Sam")][0].cards == ["9S", "8S"]
    assert t.b.deal.in_play["9C"] == 1 and t.b.deal.phase == "playing"
    assert verify_deal(history(t.b)).replayed, verify_deal(history(t.b)).differences
