"""Balances as of a club day's end or an instant, totalling 0 at every instant (R11.1), and
the period report's count of disputes and corrections (API.md, "The club's calendar"); on
both stores."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from config import Settings
from tests.api.helpers import TREASURER, Club, game, ok
from tests.integration.nights import Night, local, night_on


@pytest.fixture
def night(store_settings: Settings) -> Iterator[Night]:
    found = night_on(store_settings, datetime(2026, 1, 2, 12, tzinfo=UTC), seed="as-of")
    yield found
    found.close()


def read(client: Any, position: int, path: str, **query: Any) -> Any:
    return ok(client.get(path, query_string={"min_position": position, **query},
                         headers=TREASURER))


def as_of(client: Any, position: int, when: str, kind: str = "player,kitty,treasury,escrow"
          ) -> dict[str, Any]:
    return read(client, position, "/v1/balances", as_of=when, limit=500, kind=kind)


def shifted(at: str, microseconds: int) -> str:
    return (datetime.fromisoformat(at) + timedelta(microseconds=microseconds)).isoformat()


def test_every_account_as_of_any_instant_inside_a_deal_totals_zero(client: Any,
                                                                   night: Night) -> None:
    """R11.1 at every instant: just before, at and just after each entry of a night at a
    Shoot Pontoon table, kitty put-ups, shoot bets and stakes on the table included."""
    night.at(datetime(2026, 1, 16, 19, tzinfo=UTC))
    night.players("Ann", "Bob", "Cat")
    table = night.table("Shoot school", ["Ann", "Bob", "Cat"], shoot=True, kitty=20)
    night.deals(table, 3, timedelta(minutes=7))
    head = night.ledger.recorder.max_notification_id()
    times = sorted({e["at"] for name in ("Ann", "Bob", "Cat") for e in read(
        client, head, f"/v1/players/{night.ids[name]}/statement", limit=500)["items"]})

    for at in times:
        for when in (shifted(at, -1), at, shifted(at, 1)):
            shown = as_of(client, head, when)
            total = sum(item["balance"] for item in shown["items"])
            assert shown["total"] == 0 == total, (when, shown["items"])
    mid_deal = [as_of(client, head, at) for at in times]
    assert any(item["kind"] == "escrow" and item["balance"] > 0
               for shown in mid_deal for item in shown["items"])


def test_a_posting_between_two_accounts_stands_from_its_second_entry(client: Any,
                                                                     night: Night) -> None:
    """A kitty put-up debits the banker and credits the kitty a tick apart; in between, the
    put-up has not happened for either (docs/decisions.md 106)."""
    night.at(datetime(2026, 1, 16, 19, tzinfo=UTC))
    ann, bob = night.players("Ann", "Bob")
    table = night.table("Shoot school", ["Ann", "Bob"], shoot=True, kitty=20)
    head = night.ledger.recorder.max_notification_id()
    [put_up] = [e for e in read(client, head, f"/v1/players/{ann}/statement")["items"]
                if e["rule"] == "R9.1"]
    [kitty_in] = read(client, head, f"/v1/tables/{table}/kitty-history")["items"]
    assert put_up["at"] < kitty_in["at"]

    between = {i["account"]: i["balance"] for i in as_of(client, head, put_up["at"])["items"]}
    after = {i["account"]: i["balance"] for i in as_of(client, head, kitty_in["at"])["items"]}

    assert (between[f"player:{ann}"], between[f"kitty:{table}"]) == (100, 0)
    assert (after[f"player:{ann}"], after[f"kitty:{table}"]) == (80, 20)
    assert sum(between.values()) == sum(after.values()) == 0


def test_balances_as_of_a_date_are_those_at_the_end_of_that_club_day(client: Any,
                                                                    night: Night) -> None:
    ok(client.patch("/v1/club", json={"time_zone": "America/New_York"}, headers=TREASURER))
    night.at(local("America/New_York", 2026, 1, 16, 23))
    ann, bob = night.players("Ann", "Bob")
    night.at(local("America/New_York", 2026, 1, 17, 5, 59))  # still Friday's club day
    night.ledger.buy_in(ann, 5)
    night.at(local("America/New_York", 2026, 1, 17, 6))  # Saturday's
    night.ledger.buy_in(bob, 7)
    head = night.ledger.recorder.max_notification_id()

    friday = as_of(client, head, "2026-01-16", kind="player")
    saturday = as_of(client, head, "2026-01-17", kind="player")
    before = as_of(client, head, "2026-01-15", kind="player")

    assert {i["name"]: i["balance"] for i in friday["items"]} == {"Ann": 105, "Bob": 100}
    assert {i["name"]: i["balance"] for i in saturday["items"]} == {"Ann": 105, "Bob": 107}
    assert {i["balance"] for i in before["items"]} == {0}
    assert friday["total"] == saturday["total"] == 0 and friday["position"] is None
    sheet = read(client, head, "/v1/days/2026-01-16")
    assert {p["name"]: p["held_at_end"] for p in sheet["players"]} == {"Ann": 105, "Bob": 100}
    download = client.get("/v1/balances", query_string={
        "as_of": "2026-01-16", "format": "csv", "min_position": head}, headers=TREASURER)
    assert ",105," in download.get_data(as_text=True)


# --- the period report's disputes ------------------------------------------------------------

PLAIN_TOP = ("10H", "10S", "10D", "9H", "7S", "8D")


def test_the_report_counts_each_dispute_for_every_player_of_its_deal_whoever_raised_it(
        client: Any) -> None:
    """The treasurer's dispute counts for Bea, Pat and Quinn, who played the deal; Quinn's
    own counts too, and the correction it brought is each player's net (R11.4)."""
    club = Club(client)
    g = game(club, top=PLAIN_TOP)
    g.stakes()
    g.act(g.pat, "stick")
    g.act(g.quinn, "stick")
    g.act(g.banker, "stay")
    by_staff = ok(client.post(f"/v1/deals/{g.deal_id}/disputes", json={"reason": "miscount"},
                              headers=TREASURER), 201)["id"]
    by_quinn = ok(client.post(f"/v1/deals/{g.deal_id}/disputes", json={"reason": "my 17"},
                              headers=g.quinn.headers), 201)["id"]
    ok(client.post(f"/v1/disputes/{by_quinn}/resolution", json={
        "decision": "upheld", "note": "recounted", "corrections": [
            {"from_account": f"player:{g.banker.id}", "to_account": f"player:{g.quinn.id}",
             "amount": 5}]}, headers=TREASURER))
    outsider = club.player("Sam")

    report = read(client, club.head(), "/v1/reports/period")

    rows = {row["name"]: row for row in report["items"]}
    assert {name: rows[name]["disputes"] for name in ("Bea", "Pat", "Quinn")} == {
        "Bea": 2, "Pat": 2, "Quinn": 2}
    assert {name: rows[name]["disputes_raised"] for name in ("Bea", "Pat", "Quinn")} == {
        "Bea": 0, "Pat": 0, "Quinn": 1}
    assert {name: rows[name]["corrections"] for name in ("Bea", "Pat", "Quinn")} == {
        "Bea": -5, "Pat": 0, "Quinn": 5}
    assert rows[outsider.name]["disputes"] == 0
    assert report["dispute_counts"] == {"raised": 2, "resolved": 1}
    listed = {d["id"]: d for d in report["disputes"]}
    assert {
        k: listed[by_quinn][k] for k in ("deal_id", "table_name", "deal_number", "status",
                                         "corrections_total")} == {
        "deal_id": g.deal_id, "table_name": "Friday school", "deal_number": 1,
        "status": "resolved", "corrections_total": 5}
    assert listed[by_staff]["status"] == "open" and listed[by_staff]["corrections_total"] == 0
    raised_at = datetime.fromisoformat(listed[by_staff]["raised_at"])
    assert listed[by_staff]["club_day"] == (raised_at - timedelta(hours=6)).date().isoformat()
    deals = read(client, club.head(), f"/v1/tables/{g.table_id}/deals")["items"]
    assert [(d["number"], d["disputed"], d["disputes"]) for d in deals] == [(1, True, 2)]
