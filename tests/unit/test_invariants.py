"""Invariants are checks that raise a named error, and stay under `python -O` (STYLE.md 6).

Each check here is broken on purpose, on the pure engine: a posting of no chips, chips left
in a settled deal's escrow, a card dealt out of the pack's order, a player sitting out out
of turn, a table ending a deal that is not its open one, balances asked by an unknown kind.
tests/unit/test_optimised_python.py runs this file (and the ledger's tests) under `-O`.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from domain.engine import facts as f
from domain.engine.cards import full_pack
from domain.engine.deal import Deal
from domain.engine.postings import Posting
from domain.engine.rules import TableRules
from domain.engine.table import Table
from domain.errors import (
    ChipsNotConserved,
    InvalidPosting,
    InvariantBroken,
    PackOutOfOrder,
    PontoonError,
)
from projections.balances import balance_page

BANKER, PAT = "banker-id", "pat-id"
# Pat 10H 7H (17), the banker 9H 8H (17): nobody has pontoon.
TOP = ("10H", "9H", "7H", "8H")


def pack(top: tuple[str, ...] = TOP) -> list[str]:
    rest = [card for card in full_pack(1) if card not in top]
    return [*top, *rest]


def started() -> tuple[Deal, list[f.Fact]]:
    return Deal.start(deal_id="deal-1", table_id="table-1", number=1, banker=BANKER,
                      seats=[BANKER, PAT], rules=TableRules(), pack=pack(), kitty=0,
                      commitment=None)


def test_an_invariant_is_a_500_naming_what_should_hold_not_a_refusal() -> None:
    broken = ChipsNotConserved("the escrow holds 3 chips", "R11.1")

    assert isinstance(broken, InvariantBroken) and isinstance(broken, PontoonError)
    assert broken.status == 500 and broken.rule == "R11.1"
    assert broken.invariant == "chips are conserved"
    assert InvariantBroken("x", invariant="y").invariant == "y"


@pytest.mark.parametrize(("amount", "source", "target"), [
    (0, "player:a", "treasury"), (-5, "player:a", "treasury"), ("5", "player:a", "treasury"),
    (5, "player:a", "player:a")])
def test_r11_1_a_posting_moves_a_positive_whole_amount_between_two_accounts(
        amount: Any, source: str, target: str) -> None:
    with pytest.raises(InvalidPosting) as broken:
        Posting(source, target, amount, "R11.1", "a buy-in")

    assert broken.value.rule == "R11.1"


def test_a_posting_is_frozen() -> None:
    posting = Posting("treasury", "player:a", 5, "R11.1", "a buy-in")

    with pytest.raises(dataclasses.FrozenInstanceError):
        posting.amount = 50  # type: ignore[misc]


def test_r1_4_a_card_dealt_that_is_not_the_packs_top_card_breaks_the_packs_order() -> None:
    _, history = started()
    first = next(i for i, fact in enumerate(history) if isinstance(fact, f.CardDealt))
    dealt = history[first]
    assert isinstance(dealt, f.CardDealt)
    tampered = [*history[:first], dataclasses.replace(dealt, card="AS"), *history[first + 1:]]

    with pytest.raises(PackOutOfOrder) as broken:
        Deal.replay(tampered)

    assert broken.value.rule == "R1.4" and "AS" in broken.value.message


def test_r11_1_chips_left_in_escrow_at_settlement_break_conservation() -> None:
    deal, _ = started()
    deal.act(PAT, "stake", amount=5, chips=100)
    # Three more chips reach the escrow than any hand staked: settlement cannot pay them out.
    deal.postings.append(Posting(f"player:{PAT}", deal.escrow, 3, "R3.5", "not a stake"))
    deal.act(PAT, "stick")

    with pytest.raises(ChipsNotConserved) as broken:
        deal.act(BANKER, "stay")

    assert "holds 3 chips" in broken.value.message


def test_r3_5_only_the_player_in_turn_sits_out() -> None:
    _, history = started()
    stranger = f.PlayerSatOut("someone-else", "holds nothing", "R3.5")

    with pytest.raises(InvariantBroken) as broken:
        Deal.replay([*history, stranger])

    assert broken.value.invariant == "only the player in turn sits out"


def test_a_table_ends_only_its_open_deal_once_it_is_finished() -> None:
    table, _ = Table.open(table_id="table-1", name="t", seats=[BANKER, PAT], banker=BANKER,
                          rules=None, pack={"mode": "ordered", "cards": pack()}, seed="00" * 32)
    deal, _, _ = table.start_deal(deal_id="deal-1", chips={PAT: 100}, seed="11" * 32)

    with pytest.raises(InvariantBroken) as broken:
        table.end_deal(deal)  # still staking

    assert "only the table's open deal ends" in broken.value.invariant


def test_balances_are_listed_by_known_kinds_of_account_only() -> None:
    with pytest.raises(InvariantBroken):
        balance_page(None, ["bogus"])  # type: ignore[arg-type]
    with pytest.raises(InvariantBroken):
        balance_page(None, [])  # type: ignore[arg-type]
