"""Plays a scenario file (tests/scenarios/FORMAT.md) through the Ledger's commands.

On the in-memory store by default (tests/unit/test_scenarios.py), on SQLite and PostgreSQL
(tests/integration/test_scenarios_on_stores.py); the API tests play the same files over
HTTP. `play` answers what it checked, so a caller can see that every block was played and
every expectation read.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from domain.errors import PontoonError
from tests.ledger_club import LedgerClub

DATA = Path(__file__).parent / "data"


def scenario_files() -> list[Path]:
    return sorted(DATA.glob("*.json"))


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


# The expectations FORMAT.md defines; a block expecting anything else fails, never skips it.
EXPECTATIONS = frozenset({"balances", "kitty", "phase", "banker", "ledger_total"})


def play(scenario: dict[str, Any], club: LedgerClub | None = None) -> list[list[str]]:
    """Play on a `LedgerClub` (a fresh in-memory Ledger unless given one); answers, for each
    block, the expectations it checked."""
    club = club or LedgerClub()
    checked = []
    names = scenario["players"] + scenario.get("unseated", [])
    ids = {name: club.register_player(name) for name in names}
    for name, amount in scenario.get("buy_ins", {}).items():
        club.buy_in(ids[name], amount)
    table_id = club.open_table(
        scenario["name"], [ids[n] for n in scenario["players"]], banker=ids[scenario["banker"]],
        rules=scenario.get("table_rules", {}),
        pack={"mode": "ordered", "cards": scenario["pack"]})
    for number, block in enumerate(scenario["deals"]):
        deal_id: str | None = None
        where = f"{scenario['name']} block {number}"
        for step_number, step in enumerate(block["steps"]):
            label = f"{where} step {step_number} {step}"
            if "player" in step and "action" in step and deal_id is None:
                deal_id = club.start_deal(table_id)
            expected = step.get("expect_error")
            version = club.deal(deal_id).version if deal_id else None
            try:
                if step.get("when_open") and deal_id and not _turn_is(club, deal_id,
                                                                      ids[step["player"]]):
                    continue
                result = _step(club, table_id, ids, step, deal_id)
                if result is not None:
                    deal_id = result
            except PontoonError as error:
                assert expected, f"{label}: refused unexpectedly: {error} ({error.rule})"
                _check_refusal(label, error, expected)
                if deal_id and version is not None:
                    assert club.deal(deal_id).version == version, f"{label}: refusal changed it"
                continue
            assert not expected, f"{label}: expected a refusal {expected}, but it was accepted"
        checked.append(_check_expectations(club, table_id, ids, deal_id, block["expect"],
                                           where))
    return checked


def _turn_is(club: LedgerClub, deal_id: str, player: str) -> bool:
    turn = club.deal(deal_id).turn
    return turn is not None and turn[0] == player


def _step(club: LedgerClub, table_id: str, ids: dict[str, str], step: dict[str, Any],
          deal_id: str | None) -> str | None:
    if "action" in step:
        assert deal_id is not None
        club.act(deal_id, ids[step["player"]], step["action"], hand=step.get("hand"),
                 amount=step.get("amount"))
        return None
    kind = step["table"]
    if kind == "deal":
        return club.start_deal(table_id)
    if kind == "kitty":
        club.put_up_kitty(table_id, ids[step["player"]], step["amount"])
    elif kind == "bank_sale":
        club.sell_bank(table_id, ids[step["buyer"]], step["price"])
    elif kind == "join":
        club.seat(table_id, ids[step["player"]], ids[step["after"]] if "after" in step else None)
    elif kind == "leave":
        club.leave(table_id, ids[step["player"]])
    elif kind == "buy_in":
        club.buy_in(ids[step["player"]], step["amount"])
    elif kind == "auction":
        club.open_auction(table_id, club.table(table_id).banker)
    elif kind == "bid":
        club.bid(table_id, ids[step["player"]], step["price"])
    elif kind == "auction_close":
        sold_to, price = club.close_auction(table_id, club.table(table_id).banker)
        answer = step.get("answer")
        if answer is not None:
            if answer.get("sold_to") is None:
                assert sold_to is None, f"expected no sale, sold to {sold_to}"
            else:
                assert (sold_to, price) == (ids[answer["sold_to"]], answer["price"])
    else:
        raise AssertionError(f"unknown table step {kind}")
    return None


def _check_refusal(label: str, error: PontoonError, expected: dict[str, Any]) -> None:
    statuses = expected["status"] if isinstance(expected["status"], list) else [expected["status"]]
    assert error.status in statuses, f"{label}: status {error.status} not in {statuses}: {error}"
    if "rule" in expected:
        rules = expected["rule"] if isinstance(expected["rule"], list) else [expected["rule"]]
        assert error.rule in rules, f"{label}: rule {error.rule} not in {rules}: {error}"


def _check_expectations(club: LedgerClub, table_id: str, ids: dict[str, str],
                        deal_id: str | None, expect: dict[str, Any], where: str) -> list[str]:
    unknown = set(expect) - EXPECTATIONS
    assert not unknown, f"{where}: expectations FORMAT.md does not define: {sorted(unknown)}"
    for name, balance in expect.get("balances", {}).items():
        assert club.chips(ids[name]) == balance, \
            f"{where}: {name} holds {club.chips(ids[name])}, expected {balance}"
    table = club.table(table_id)
    if "kitty" in expect:
        assert table.kitty == expect["kitty"], f"{where}: kitty {table.kitty} != {expect['kitty']}"
    if "banker" in expect:
        assert table.banker == ids[expect["banker"]], f"{where}: banker is {table.banker}"
    if "phase" in expect:
        assert deal_id is not None
        assert club.deal(deal_id).phase == expect["phase"], \
            f"{where}: phase {club.deal(deal_id).phase} != {expect['phase']}"
    if "ledger_total" in expect:
        assert club.total() == expect["ledger_total"], f"{where}: ledger total {club.total()}"
    return sorted(expect)
