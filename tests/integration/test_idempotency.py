"""Idempotency keys on the real stores (API.md, docs/architecture.md "Idempotency").

A command given a key is applied at most once: its `Receipt` is saved in the same transaction
as its events, last, so the position it is recorded at is the command's; a repeat answers
the stored result and that position, and the same key with a different request is refused
(422). Secrets are never kept in receipts or events.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest
from eventsourcing.application import AggregateNotFoundError

from application import Ledger, Outcome
from domain.aggregates import Account, Receipt, receipt_id
from domain.errors import InsufficientChips, NotAllowed
from tests.integration.ledger_views import race
from tests.ledger_club import stacked_pack

pytestmark = pytest.mark.timeout(60)


def new_player(ledger: Ledger, name: str, chips: int = 0) -> str:
    player_id = str(ledger.register_player(name).result["id"])
    if chips:
        ledger.buy_in(player_id, chips)
    return player_id


def entries(ledger: Ledger, player_id: str) -> list[str]:
    """The player's account entries after opening: Credited/Debited and their amounts."""
    return [f"{type(e).__name__} {e.amount}" for e in ledger.events.get(UUID(player_id))
            if isinstance(e, Account.Moved)]


def receipt(ledger: Ledger, key: str) -> Receipt | None:
    try:
        found: Any = ledger.repository.get(receipt_id(key))
    except AggregateNotFoundError:
        return None
    assert isinstance(found, Receipt)
    return found


def recorded_at(ledger: Ledger, key: str) -> int:
    """The position of the receipt's event in the log."""
    [position] = [n.id for n in ledger.recorder.select_notifications(start=1, limit=10_000)
                  if n.originator_id == receipt_id(key)]
    return position



def test_a_keyed_buy_in_sent_twice_is_applied_once_with_the_same_answer(ledger):
    """R11.1 and API.md: repeating a keyed buy-in answers the first result and position and
    issues the chips once."""
    player = new_player(ledger, "Pat")

    first = ledger.buy_in(player, 50, key="buy-in-1")
    repeat = ledger.buy_in(player, 50, key="buy-in-1")

    assert repeat == first
    assert first.result["balance"] == 50 and first.position is not None
    assert ledger.player_account(player).balance == 50
    assert entries(ledger, player) == ["Credited 50"]
    assert recorded_at(ledger, "buy-in-1") == first.position


def test_a_keyed_deal_action_sent_twice_is_applied_once(ledger):
    """R3.5 and API.md: a keyed stake repeated (a client retrying after a lost answer) is
    not a second stake and not refused as out of turn: the first answer comes back."""
    banker, player = new_player(ledger, "Banker", 100), new_player(ledger, "Pat", 100)
    table_id = ledger.open_table(name="t", seats=[banker, player], banker=banker,
                                 pack={"mode": "ordered", "cards": stacked_pack([])}
                                 ).result["table_id"]
    deal_id = ledger.start_deal(table_id).result["deal_id"]

    first = ledger.act(deal_id, player, "stake", amount=5, key="stake-1")
    repeat = ledger.act(deal_id, player, "stake", amount=5, key="stake-1")

    assert repeat == first
    assert ledger.player_account(player).balance == 95
    assert entries(ledger, player) == ["Credited 100", "Debited 5"]


@pytest.mark.parametrize("other", ["different body", "different command"])
def test_the_same_key_for_a_different_request_is_refused_as_not_allowed(ledger, other):
    """API.md: a key names one request; reusing it for another body or another command is
    refused as NotAllowed (HTTP 422) and changes nothing."""
    player = new_player(ledger, "Pat")
    ledger.buy_in(player, 50, key="key-1")
    send = (lambda: ledger.buy_in(player, 60, key="key-1")) if other == "different body" \
        else (lambda: ledger.cash_out(player, 50, key="key-1"))

    with pytest.raises(NotAllowed) as refused:
        send()

    assert refused.value.status == 422
    assert type(refused.value) is NotAllowed
    assert ledger.player_account(player).balance == 50
    assert entries(ledger, player) == ["Credited 50"]


def test_a_refused_command_keeps_no_receipt_so_its_key_can_be_used_later(ledger):
    """R11.2, R11.1 and docs/architecture.md: the receipt is saved in the same transaction as
    the command's events, so a command refused for want of chips records neither; its key
    stays free for a later valid command, even a different one."""
    player = new_player(ledger, "Pat", 10)

    with pytest.raises(InsufficientChips):
        ledger.cash_out(player, 30, key="key-2")
    receipt_after_refusal = receipt(ledger, "key-2")
    later = ledger.buy_in(player, 30, key="key-2")
    repeated = ledger.buy_in(player, 30, key="key-2")

    assert receipt_after_refusal is None
    assert later.result["balance"] == 40
    assert receipt(ledger, "key-2").result == later.result
    assert repeated == later
    assert entries(ledger, player) == ["Credited 10", "Credited 30"]


def test_a_keyed_stake_refused_for_want_of_chips_can_be_sent_again_after_a_buy_in(ledger):
    """R11.2: a keyed stake refused as InsufficientChips leaves no receipt; after a buy-in
    the same request with the same key is applied (once)."""
    banker, player = new_player(ledger, "Banker", 100), new_player(ledger, "Pat", 2)
    table_id = ledger.open_table(name="t", seats=[banker, player], banker=banker,
                                 pack={"mode": "ordered", "cards": stacked_pack([])}
                                 ).result["table_id"]
    deal_id = ledger.start_deal(table_id).result["deal_id"]

    with pytest.raises(InsufficientChips):
        ledger.act(deal_id, player, "stake", amount=5, key="stake-2")
    receipt_after_refusal = receipt(ledger, "stake-2")
    ledger.buy_in(player, 10)
    applied = ledger.act(deal_id, player, "stake", amount=5, key="stake-2")
    repeated = ledger.act(deal_id, player, "stake", amount=5, key="stake-2")

    assert receipt_after_refusal is None
    assert repeated == applied
    assert ledger.deal(deal_id).engine.hands[player][0].stake == 5
    assert ledger.player_account(player).balance == 7
    assert entries(ledger, player) == ["Credited 2", "Credited 10", "Debited 5"]


def test_eight_threads_sending_the_same_keyed_buy_in_apply_it_exactly_once(ledger):
    """R11.1 and API.md: eight simultaneous copies of one keyed buy-in issue the chips once;
    every copy gets the same result and the same position: the receipt's own."""
    player = new_player(ledger, "Pat")

    results = race([lambda: ledger.buy_in(player, 25, key="buy-in-8")] * 8)

    assert [r for r in results if not isinstance(r, Outcome)] == []
    assert ledger.player_account(player).balance == 25
    assert entries(ledger, player) == ["Credited 25"]
    stored = receipt(ledger, "buy-in-8")
    assert stored is not None
    assert {repr(r.result) for r in results} == {repr(stored.result)}
    assert stored.result["balance"] == 25
    assert {r.position for r in results} == {recorded_at(ledger, "buy-in-8")}
    assert ledger.buy_in(player, 25, key="buy-in-8").position == recorded_at(ledger, "buy-in-8")


def test_a_keyed_token_repeat_does_not_reveal_the_token_and_no_event_holds_it(ledger):
    """API.md: a new token is shown once; a keyed repeat answers without it, and neither the
    receipt nor any stored event contains the token (only its SHA-256 names the Token)."""
    player = new_player(ledger, "Pat")

    first = ledger.create_token("player", player_id=player, key="token-1")
    repeat = ledger.create_token("player", player_id=player, key="token-1")

    token = first.result["token"]
    assert isinstance(token, str) and token.startswith("pt_")
    assert repeat.result == {"token": None, "role": "player", "player_id": player,
                             "label": None, "expires_at": None, "id": first.result["id"]}
    assert repeat.position == first.position
    assert ledger.principal(token) is not None
    assert ledger.principal(token).player_id == player
    stored = ledger.recorder.select_notifications(start=1, limit=10_000)
    assert stored and all(token.encode() not in n.state for n in stored)
