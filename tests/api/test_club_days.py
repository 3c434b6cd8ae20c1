"""Club days (API.md, "The club's calendar"): nights that cross midnight, days with a change
of the clocks, the days with play, night sheets, closing a night, and the calendar's bad
input; on both stores. History is played at chosen instants by a second Ledger on a
simulated clock (tests/integration/nights.py), never by editing stored times."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from config import Settings
from tests.api.helpers import TREASURER, ok, problem
from tests.integration.nights import Night, local, night_on


@pytest.fixture
def night(store_settings: Settings) -> Iterator[Night]:
    found = night_on(store_settings, datetime(2026, 1, 2, 12, tzinfo=UTC))
    yield found
    found.close()


def read(client: Any, night: Night, path: str, **query: Any) -> Any:
    """A read once the app's read models hold everything the night recorded."""
    query.setdefault("min_position", night.ledger.recorder.max_notification_id())
    return ok(client.get(path, query_string=query, headers=TREASURER))


def set_club(client: Any, **settings: str) -> dict[str, Any]:
    return ok(client.patch("/v1/club", json=settings, headers=TREASURER))


def play_evening(night: Night, zone: str, day: tuple[int, int, int]) -> list[str]:
    """19:00 to 02:45 the next morning, local time: deals before and after midnight, a
    cash-out at the end."""
    night.at(local(zone, *day, 18, 45))
    ann, bob, cat = night.players("Ann", "Bob", "Cat")
    night.at(local(zone, *day, 19))
    table = night.table("Friday school", ["Ann", "Bob", "Cat"])
    deals = night.deals(table, 3, timedelta(minutes=90))  # 19:00, 20:30, 22:00
    night.at(local(zone, *day, 23, 50))
    deals.append(night.deal(table))
    night.at(local(zone, *day, 23, 50) + timedelta(minutes=40))  # 00:30 the next day
    deals += night.deals(table, 2, timedelta(minutes=60))  # 00:30, 01:30
    night.at(local(zone, *day, 19) + timedelta(hours=7, minutes=45))  # 02:45
    night.ledger.cash_out(bob, night.ledger.player_account(bob).balance)
    return deals


# --- the club's settings -------------------------------------------------------------------

def test_the_club_has_defaults_until_the_treasurer_sets_them(client: Any) -> None:
    shown = ok(client.get("/v1/club", headers=TREASURER))

    assert shown == {"name": "Pontoon club", "time_zone": "UTC", "day_starts_at": "06:00",
                     "simulated": False}

    changed = set_club(client, name="The Anchor", time_zone="Europe/London")

    assert {k: changed[k] for k in ("name", "time_zone", "day_starts_at")} == {
        "name": "The Anchor", "time_zone": "Europe/London", "day_starts_at": "06:00"}
    assert changed["position"] is not None
    assert ok(client.get("/v1/club", headers=TREASURER))["time_zone"] == "Europe/London"


@pytest.mark.parametrize(("body", "field"), [
    ({"time_zone": "Mars/Olympus_Mons"}, "time_zone"),
    ({"time_zone": "../../etc/passwd"}, "time_zone"),
    ({"day_starts_at": "6am"}, "day_starts_at"),
    ({"day_starts_at": "24:00"}, "day_starts_at"),
    ({"day_starts_at": "06:60"}, "day_starts_at"),
])
def test_an_unknown_time_zone_or_a_malformed_hour_is_refused_naming_the_field(
        client: Any, body: dict[str, str], field: str) -> None:
    refused = problem(client.patch("/v1/club", json=body, headers=TREASURER), 422)

    assert list(refused["errors"]) == [field]
    assert ok(client.get("/v1/club", headers=TREASURER))["time_zone"] == "UTC"


def test_only_the_treasurer_changes_the_club(client: Any) -> None:
    operator = ok(client.post("/v1/tokens", json={"role": "operator"}, headers=TREASURER),
                  201)["token"]

    problem(client.patch("/v1/club", json={"name": "Mine"},
                         headers={"Authorization": f"Bearer {operator}"}), 403)
    problem(client.patch("/v1/club", json={"name": "Mine"}), 401)


# --- nights across midnight ----------------------------------------------------------------

@pytest.mark.parametrize("zone", ["Europe/London", "America/New_York"])
def test_a_night_that_crosses_midnight_is_one_club_day(client: Any, night: Night,
                                                       zone: str) -> None:
    set_club(client, time_zone=zone)
    deals = play_evening(night, zone, (2026, 1, 16))

    days = read(client, night, "/v1/days")
    sheet = read(client, night, "/v1/days/2026-01-16")

    assert [d["date"] for d in days["items"]] == ["2026-01-16"]
    [day] = days["items"]
    assert day["deals"] == sheet["deals"] == len(deals) == 6
    assert day["chips_issued"] == 300 and day["chips_redeemed"] == sheet["checks"][
        "chips_redeemed"] > 0
    assert sheet["from"] == local(zone, 2026, 1, 16, 6).astimezone(UTC).isoformat(
        timespec="microseconds")
    assert sheet["checks"]["balanced"] is True and sheet["time_zone"] == zone
    by_name = {p["name"]: p for p in sheet["players"]}
    assert by_name["Bob"]["to_cash_out"] == 0 and by_name["Bob"]["cash_outs"] > 0
    assert sum(p["net"] for p in sheet["players"]) == 0  # no kitty at this table
    for p in sheet["players"]:
        assert p["held_at_end"] == p["buy_ins"] + p["net"] - p["cash_outs"]
        assert p["to_cash_out"] - p["debt_to_collect"] == p["held_at_end"]
    entries = read(client, night, f"/v1/players/{night.ids['Ann']}/statement", limit=500)
    assert {e["club_day"] for e in entries["items"]} == {"2026-01-16"}
    assert {e["at"][:10] for e in entries["items"]} == {"2026-01-16", "2026-01-17"} \
        if zone == "Europe/London" else {"2026-01-17"}


def test_on_utc_days_the_same_night_is_split_at_the_hour_days_start(
        client: Any, night: Night) -> None:
    """The default calendar: UTC, days from 06:00. A New York night (00:00 to 07:30 UTC)
    crosses 06:00 UTC: its end falls on the next club day."""
    play_evening(night, "America/New_York", (2026, 1, 16))

    days = read(client, night, "/v1/days")

    assert [d["date"] for d in days["items"]] == ["2026-01-17", "2026-01-16"]
    assert read(client, night, "/v1/days/2026-01-16")["time_zone"] == "UTC"


# --- days with a change of the clocks --------------------------------------------------------

@pytest.mark.parametrize(("zone", "day", "hours", "inside", "after"), [
    # London springs forward at 01:00 UTC on 29 March: Saturday's club day lasts 23 hours.
    ("Europe/London", (2026, 3, 28), 23, (2026, 3, 29, 5, 50), (2026, 3, 29, 6, 10)),
    # New York falls back at 06:00 UTC on 1 November: Saturday's club day lasts 25 hours.
    ("America/New_York", (2026, 10, 31), 25, (2026, 11, 1, 5, 50), (2026, 11, 1, 6, 10)),
])
def test_a_club_day_that_holds_a_change_of_the_clocks_runs_from_six_to_six_local_time(
        client: Any, night: Night, zone: str, day: tuple[int, int, int], hours: int,
        inside: tuple[int, ...], after: tuple[int, ...]) -> None:
    set_club(client, time_zone=zone)
    night.at(local(zone, *day, 22))
    ann, bob = night.players("Ann", "Bob")
    table = night.table("Late school", ["Ann", "Bob"])
    night.deal(table)
    night.at(local(zone, *inside))  # 05:50 local, after the change: still that club day
    night.ledger.buy_in(ann, 7)
    night.at(local(zone, *after))  # 06:10 local: the next club day
    night.ledger.buy_in(bob, 11)

    sheet = read(client, night, f"/v1/days/{datetime(*day).date().isoformat()}")
    days = read(client, night, "/v1/days")

    start, end = (datetime.fromisoformat(sheet[k]) for k in ("from", "to"))
    assert end - start == timedelta(hours=hours)
    assert start == local(zone, *day, 6) and end.astimezone(ZONE(zone)).hour == 6
    assert sheet["checks"]["chips_issued"] == 200 + 7
    assert [(d["date"], d["chips_issued"]) for d in days["items"]] == [
        (datetime(*after[:3]).date().isoformat(), 11),
        (datetime(*day).date().isoformat(), 207)]


def ZONE(name: str) -> Any:  # noqa: N802 (reads as the type it makes)
    from zoneinfo import ZoneInfo

    return ZoneInfo(name)


# --- the days with play ----------------------------------------------------------------------

def test_the_days_with_play_are_listed_newest_first_and_paged(client: Any,
                                                             night: Night) -> None:
    night.at(datetime(2026, 2, 3, 20, tzinfo=UTC))
    night.players("Ann", "Bob")
    table = night.table("School", ["Ann", "Bob"])
    for day in (3, 5, 10):
        night.at(datetime(2026, 2, day, 21, tzinfo=UTC))
        night.deal(table)

    first = read(client, night, "/v1/days", limit=2)
    rest = read(client, night, "/v1/days", limit=2, after=first["next"])
    period = read(client, night, "/v1/days", **{"from": "2026-02-04", "to": "2026-02-05"})
    instants = read(client, night, "/v1/days", **{"from": "2026-02-05T00:00:00Z"})

    assert [d["date"] for d in first["items"]] == ["2026-02-10", "2026-02-05"]
    assert first["next"] == "2026-02-05"
    assert [d["date"] for d in rest["items"]] == ["2026-02-03"] and rest["next"] is None
    assert [d["date"] for d in period["items"]] == ["2026-02-05"]
    assert [d["date"] for d in instants["items"]] == ["2026-02-10", "2026-02-05"]
    assert all(d["closed"] is False for d in first["items"])
    assert read(client, night, "/v1/days", to="2026-01-01")["items"] == []


# --- closing a night -------------------------------------------------------------------------

def test_a_night_is_closed_once_over_with_the_chips_counted_and_their_differences(
        client: Any, night: Night) -> None:
    set_club(client, time_zone="Europe/London")
    play_evening(night, "Europe/London", (2026, 1, 16))
    sheet = read(client, night, "/v1/days/2026-01-16")
    ann = next(p for p in sheet["players"] if p["name"] == "Ann")
    counted = {f"player:{ann['player_id']}": ann["to_cash_out"] + 3}

    today = ok(client.get("/v1/club", headers=TREASURER))  # the app runs on the real clock
    tonight = datetime.now(ZONE(today["time_zone"])).date() - timedelta(days=1)
    early = [client.post(f"/v1/days/{day.isoformat()}/close", json={}, headers=TREASURER)
             for day in (tonight + timedelta(days=1), tonight + timedelta(days=30))]
    closed = ok(client.post("/v1/days/2026-01-16/close", json={"counted": counted},
                            headers=TREASURER), 201)
    again = client.post("/v1/days/2026-01-16/close", json={}, headers=TREASURER)

    assert all("is not over until" in problem(answer, 409)["detail"] for answer in early)
    assert "already closed" in problem(again, 409)["detail"]
    shown = closed["closed"]
    assert shown["counted"] == counted
    assert shown["differences"] == {f"player:{ann['player_id']}": 3}
    position, digest = shown["checkpoint"].split()
    assert int(position) >= night.ledger.recorder.max_notification_id() - 1
    assert len(digest) == 64
    after = read(client, night, "/v1/days/2026-01-16", min_position=closed["position"])
    assert after["closed"]["differences"] == shown["differences"]
    assert after["players"] == sheet["players"]  # nothing posted
    assert read(client, night, "/v1/days")["items"][0]["closed"] is True


def test_a_night_on_a_simulated_clock_closes_only_once_its_clock_has_passed_the_days_end(
        client: Any, night: Night) -> None:
    from domain.errors import NotNow

    set_club(client, time_zone="America/New_York")
    night.at(local("America/New_York", 2026, 1, 16, 20))
    night.players("Ann")
    held = {"player:" + night.ids["Ann"]: 100}

    def close() -> Any:
        return night.ledger.close_day(datetime(2026, 1, 16).date(), counted=held,
                                      holdings=lambda start, end, accounts: held,
                                      closed_by="treasurer:test")

    night.at(local("America/New_York", 2026, 1, 17, 5, 59))
    with pytest.raises(NotNow, match="not over until 2026-01-17T11:00"):
        close()
    night.at(local("America/New_York", 2026, 1, 17, 6))
    assert close().result["date"] == "2026-01-16"
    assert read(client, night, "/v1/days/2026-01-16")["closed"]["differences"] == {
        "player:" + night.ids["Ann"]: 0}


@pytest.mark.parametrize("counted", [{"treasury": 1}, {"kitty:" + "0" * 8 + "-0000-4000-8000-"
                                                        + "0" * 12: 1}])
def test_a_count_of_an_account_that_is_not_a_players_is_refused(
        client: Any, night: Night, counted: dict[str, int]) -> None:
    night.players("Ann")
    night.at(datetime(2026, 1, 20, tzinfo=UTC))

    refused = problem(client.post("/v1/days/2026-01-16/close", json={"counted": counted},
                                  headers=TREASURER), 422)

    assert list(refused["errors"]) == ["counted"]


def test_a_count_of_an_unknown_player_or_a_negative_count_is_refused(
        client: Any, night: Night) -> None:
    [ann] = night.players("Ann")
    night.at(datetime(2026, 1, 20, tzinfo=UTC))
    nobody = "player:00000000-0000-4000-8000-000000000000"

    problem(client.post("/v1/days/2026-01-16/close", json={"counted": {nobody: 1}},
                        headers=TREASURER), 422)
    problem(client.post("/v1/days/2026-01-16/close", json={
        "counted": {f"player:{ann}": -1}}, headers=TREASURER), 422)
    ok(client.post("/v1/days/2026-01-16/close", json={"counted": {f"player:{ann}": 0}},
                   headers=TREASURER), 201)


def test_a_closed_night_keeps_its_day_when_the_time_zone_changes(client: Any,
                                                                night: Night) -> None:
    set_club(client, time_zone="Europe/London")
    play_evening(night, "Europe/London", (2026, 1, 16))
    night.at(local("Europe/London", 2026, 1, 20, 12))
    before = read(client, night, "/v1/days/2026-01-16")
    ok(client.post("/v1/days/2026-01-16/close", json={}, headers=TREASURER), 201)

    set_club(client, time_zone="America/New_York", day_starts_at="04:00")
    after = read(client, night, "/v1/days/2026-01-16")
    following = read(client, night, "/v1/days/2026-01-17")
    later = read(client, night, "/v1/days/2026-01-18")

    assert (after["from"], after["to"]) == (before["from"], before["to"])
    assert (after["time_zone"], after["day_starts_at"]) == ("Europe/London", "06:00")
    assert after["players"] == before["players"]
    assert following["from"] == before["to"]  # no gap, no overlap
    assert following["time_zone"] == "America/New_York"
    assert later["from"] == local("America/New_York", 2026, 1, 18, 4).astimezone(
        UTC).isoformat(timespec="microseconds")


# --- bad input -------------------------------------------------------------------------------

@pytest.mark.parametrize(("path", "status", "field"), [
    ("/v1/days/2026-02-30", 422, "date"),
    ("/v1/days/yesterday", 400, "date"),
    ("/v1/days?from=2026-02-30", 422, "from"),
    ("/v1/days?to=2026-12-01T20:00", 400, "to"),
    ("/v1/days?from=2026-12-02&to=2026-12-01", 400, "from"),
    ("/v1/balances?as_of=2026-13-01", 422, "as_of"),
    ("/v1/balances?as_of=2026-12-01T20:00", 400, "as_of"),
    ("/v1/reports/period?from=0001-01-01T00:00:00%2B01:00", 400, "from"),
])
def test_the_calendars_bad_input_is_refused_naming_the_field(
        client: Any, path: str, status: int, field: str) -> None:
    refused = problem(client.get(path, headers=TREASURER), status)

    assert list(refused["errors"]) == [field]


def test_a_day_before_the_first_the_calendar_can_place_is_refused(client: Any) -> None:
    set_club(client, time_zone="Asia/Tokyo")  # east of UTC: 0001-01-01 starts before it

    refused = problem(client.get("/v1/days/0001-01-01", headers=TREASURER), 422)

    assert list(refused["errors"]) == ["date"]
    assert ok(client.get("/v1/days/9999-12-30", headers=TREASURER))["players"] == []
