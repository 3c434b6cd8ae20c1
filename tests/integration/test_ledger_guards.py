"""Guards found in review: a sale never sells another banker's bank, corrections name real
accounts of the kind they say, and refused deal starts name the rule that applies."""

from __future__ import annotations

import pytest

from domain.errors import NotAllowed, NotNow
from tests.ledger_club import stacked_pack


def _players(ledger, *names: str, chips: int = 100) -> list[str]:
    ids = [ledger.register_player(name).result["id"] for name in names]
    for player_id in ids:
        ledger.buy_in(player_id, chips)
    return ids


def test_r8_2_a_sale_decided_after_the_bank_changed_hands_is_refused(ledger):
    """R8.2: the API sells the bank of the banker it checked; once Cat has bought it, Ann's
    second sale (to Bob) must not sell Cat's bank."""
    ann, bob, cat = _players(ledger, "Ann", "Bob", "Cat")
    table_id = ledger.open_table(name="T", seats=[ann, bob, cat], banker=ann,
                                 pack={"mode": "ordered", "cards": stacked_pack(())}
                                 ).result["table_id"]
    ledger.sell_bank(table_id, cat, 10, seller=ann)

    with pytest.raises(NotNow) as refused:
        ledger.sell_bank(table_id, bob, 10, seller=ann)

    assert refused.value.rule == "R8.2"
    assert ledger.table(table_id).engine.banker == cat
    assert ledger.player_account(bob).balance == 100


def test_r11_4_a_correction_must_name_an_account_of_the_kind_it_says(ledger):
    """R11.4: `player:<id>` of a kitty's account is refused, so a kitty cannot be changed
    behind its table's back."""
    ann, bob = _players(ledger, "Ann", "Bob")
    table_id = ledger.open_table(name="T", seats=[ann, bob], banker=ann,
                                 rules={"shoot": True}).result["table_id"]
    ledger.put_up_kitty(table_id, ann, 20)
    deal_id = ledger.start_deal(table_id).result["deal_id"]
    dispute = ledger.raise_dispute(deal_id, "wrong", raised_by="treasurer:x").result["id"]
    from domain.aggregates import kitty_id

    with pytest.raises(NotAllowed) as refused:
        ledger.resolve_dispute(dispute, decision="upheld", note="n", resolved_by="t", corrections=[
            {"from_account": "treasury", "to_account": f"player:{kitty_id(table_id)}",
             "amount": 5}])

    assert refused.value.rule == "R11.4"
    assert ledger.table(table_id).engine.kitty == 20


def test_r9_11_a_new_banker_must_put_up_a_kitty_before_dealing(ledger):
    """R9.11: after a sale the old banker took the kitty; the refused deal names R9.11."""
    ann, bob = _players(ledger, "Ann", "Bob")
    table_id = ledger.open_table(name="T", seats=[ann, bob], banker=ann,
                                 rules={"shoot": True}).result["table_id"]
    ledger.put_up_kitty(table_id, ann, 20)
    deal_id = ledger.start_deal(table_id).result["deal_id"]
    ledger.act(deal_id, bob, "stake", amount=1)
    while not ledger.deal(deal_id).engine.is_over:
        from domain.engine.legal import legal_actions

        action = legal_actions(ledger.deal(deal_id).engine)[0]
        amount = action.amount_min if action.action in ("stake", "buy") else None
        ledger.act(deal_id, action.player, action.action, hand=action.hand, amount=amount)
    banker = ledger.table(table_id).engine.banker
    buyer = bob if banker == ann else ann
    ledger.sell_bank(table_id, buyer, 5)

    with pytest.raises(NotNow) as refused:
        ledger.start_deal(table_id)

    assert refused.value.rule == "R9.11"
