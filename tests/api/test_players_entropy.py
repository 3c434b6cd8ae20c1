"""Players' entropy over HTTP, on both stores (API.md "Players' entropy", R1.7's December
Decision, docs/decisions.md 135): who may add a contribution and when, and that the pack is
shuffled with the seed mixed from the contributions in the order recorded, as the table
view, the packs list, the audit and verify's replay all say."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any
from uuid import uuid4

import pytest

from tests.api.history_reference import mixed_seed, shuffled
from tests.api.test_reads import TREASURER, Api, Player, assert_problem, serve
from tests.api.test_reads_audit import MAX_DEALS, play_out
from tests.ledger_club import stacked_pack

VALUES = ("0f" * 32, "a1" * 32, "5c" * 32)


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def api(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
        ) -> Iterator[Api]:
    yield from serve(request.param, tmp_path_factory)


def open_table(api: Api, seats: Sequence[Player], pack: dict[str, Any] | None = None
               ) -> dict[str, Any]:
    """A table of a name of its own (open tables have unique names), the first seat banks."""
    body = {"name": f"Entropy {uuid4().hex[:8]}", "seats": [p.id for p in seats],
            "banker": seats[0].id, "pack": pack or {"mode": "shuffled"}}
    return api.post("/v1/tables", body, TREASURER, status=201)


def contribute(api: Api, table_id: str, player: Player, value: str,
               headers: dict[str, str] | None = None) -> Any:
    return api.attempt(f"/v1/tables/{table_id}/contributions",
                       {"player_id": player.id, "value": value}, headers or player.headers)


def four(api: Api) -> list[Player]:
    tag = uuid4().hex[:6]
    return [api.player(f"E{i} {tag}", 1000) for i in range(4)]


def test_r1_7_a_seated_player_adds_randomness_once_between_the_commitment_and_the_first_card(
        api: Api) -> None:
    """R1.7: from the pack's commitment until its first card each seated player may add one
    contribution, banker included; the table shows them in the order recorded; a second
    from the same player, or any after the first card, is 409 naming R1.7."""
    players = four(api)
    table = open_table(api, players)
    assert table["pack"]["accepting_contributions"] is True
    assert table["pack"]["contributions"] == []

    first = contribute(api, table["id"], players[2], VALUES[0].upper())
    second = contribute(api, table["id"], players[0], VALUES[1])
    again = contribute(api, table["id"], players[2], VALUES[2])
    api.start(table["id"])
    late = contribute(api, table["id"], players[1], VALUES[2])

    assert first.status_code == second.status_code == 201, first.get_data(as_text=True)
    shown = second.get_json()["pack"]
    assert shown["contributions"] == [{"player_id": players[2].id, "value": VALUES[0]},
                                      {"player_id": players[0].id, "value": VALUES[1]}]
    assert shown["commitment"] == table["pack"]["commitment"]
    assert "already added" in assert_problem(again, 409, "R1.7")["detail"]
    assert "first card" in assert_problem(late, 409, "R1.7")["detail"]
    after = api.get(f"/v1/tables/{table['id']}")["pack"]
    assert after["accepting_contributions"] is False
    assert after["contributions"] == shown["contributions"]


def test_r1_7_a_contribution_is_the_players_own(api: Api) -> None:
    """Only the player's own token adds theirs: staff and another player are 403; a player
    not seated at the table is 422 naming R1.7; the table is unchanged."""
    players = four(api)
    outsider = api.player(f"Outsider {uuid4().hex[:6]}", 0)
    table = open_table(api, players[:3])

    by_staff = contribute(api, table["id"], players[1], VALUES[0], TREASURER)
    by_operator = contribute(api, table["id"], players[1], VALUES[0], api.operator)
    by_another = contribute(api, table["id"], players[1], VALUES[0], players[2].headers)
    unseated = contribute(api, table["id"], outsider, VALUES[0])

    assert_problem(by_staff, 403)
    assert_problem(by_operator, 403)
    assert_problem(by_another, 403)
    assert "not seated" in assert_problem(unseated, 422, "R1.7")["detail"]
    assert api.get(f"/v1/tables/{table['id']}")["pack"]["contributions"] == []


@pytest.mark.parametrize("pack", [{"mode": "recorded"},
                                  {"mode": "ordered", "cards": stacked_pack([])}],
                         ids=["recorded", "ordered"])
def test_r1_7_ordered_and_recorded_tables_take_no_contributions(api: Api,
                                                                pack: dict[str, Any]) -> None:
    """R1.7: only a pack the service shuffles is mixed: at an ordered or a recorded table a
    contribution is 409 naming R1.7."""
    players = four(api)
    table = open_table(api, players[:2], pack)

    refused = contribute(api, table["id"], players[1], VALUES[0])

    assert f"{pack['mode']} mode" in assert_problem(refused, 409, "R1.7")["detail"]
    assert table["pack"]["accepting_contributions"] is False


@pytest.mark.parametrize(("value", "status"), [("zz" * 32, 422), ("ab" * 31, 422),
                                               ("ab" * 33, 422), ("", 422), (12, 400),
                                               (None, 400)])
def test_a_malformed_contribution_is_refused_naming_the_value(api: Api, value: Any,
                                                              status: int) -> None:
    """API.md: a value is 64 hex digits: another string is 422 naming `value`, another type
    400 (decision 33)."""
    players = four(api)
    table = open_table(api, players[:2])

    refused = contribute(api, table["id"], players[1], value)

    assert "value" in assert_problem(refused, status)["errors"]


def test_r1_7_the_pack_is_shuffled_with_the_seed_mixed_from_the_contributions(
        api: Api) -> None:
    """R1.7: once revealed, the server seed hashes to the commitment and, mixed with the
    contributions in the order recorded (API.md), gives the shuffle every card of the
    pack's deals came from: the audit, the packs list and the table agree."""
    players = four(api)
    by_id = {p.id: p for p in players}
    table = open_table(api, players)
    for player, value in ((players[3], VALUES[0]), (players[1], VALUES[1])):
        assert contribute(api, table["id"], player, value).status_code == 201
    deals = []
    for _ in range(MAX_DEALS):
        deals.append(play_out(api, api.start(table["id"]), by_id)["id"])
        if api.get(f"/v1/tables/{table['id']}")["pack"]["revealed"]:
            break
    else:
        raise AssertionError(f"no pontoon in {MAX_DEALS} deals")

    packs = api.get(f"/v1/tables/{table['id']}/packs")["items"]
    audit = api.get(f"/v1/deals/{deals[0]}/audit")
    dealt = [c for m in audit["timeline"] if m["event"] == "CardDealt" for c in m["cards"]]
    seed = packs[0]["seed"]
    mixed = mixed_seed(seed, [{"player_id": players[3].id, "value": VALUES[0]},
                              {"player_id": players[1].id, "value": VALUES[1]}])
    assert [(c["player_id"], c["value"]) for c in packs[0]["contributions"]] == \
        [(players[3].id, VALUES[0]), (players[1].id, VALUES[1])]
    assert packs[0]["dealt_position"] > packs[0]["contributions"][-1]["position"]
    assert packs[1]["dealt_position"] is None and packs[1]["contributions"] == []
    assert audit["pack"]["mixed_seed"] == mixed != seed
    assert audit["pack"]["contributions"] == [{"player_id": players[3].id, "value": VALUES[0]},
                                              {"player_id": players[1].id, "value": VALUES[1]}]
    assert dealt == shuffled(mixed, 1)[:len(dealt)]
    assert dealt != shuffled(seed, 1)[:len(dealt)]


def test_r1_7_the_next_pack_is_committed_to_as_the_last_one_ends(api: Api) -> None:
    """Decision 135: the deal that ends a pack (a pontoon, R1.4) records the next pack's
    commitment and reveals the last seed at once, so players add to the next pack between
    deals; a deal that keeps the pack leaves its window closed."""
    players = four(api)
    by_id = {p.id: p for p in players}
    table = open_table(api, players)
    for _ in range(MAX_DEALS):
        play_out(api, api.start(table["id"]), by_id)
        now = api.get(f"/v1/tables/{table['id']}")
        if now["pack"]["revealed"]:
            break
        assert now["pack"]["accepting_contributions"] is False
        assert now["pack"]["commitment"] == table["pack"]["commitment"]
    else:
        raise AssertionError(f"no pontoon in {MAX_DEALS} deals")

    assert now["deal_id"] is None
    assert now["pack"]["accepting_contributions"] is True
    assert now["pack"]["commitment"] != table["pack"]["commitment"]
    assert contribute(api, table["id"], players[2], VALUES[2]).status_code == 201
