"""Club nights on the pages, on both stores: the month's calendar, a night sheet in the
club's own time with its checkpoint, closing a night with a count, balances as of a club
day, the disputes page filtered and downloaded, and disputed deals marked."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from flask.testing import FlaskClient

from config import Settings
from tests.api.helpers import TREASURER, ok, send_sign_in
from tests.api.test_web_pages import csrf, page, rows_of, visible_text
from tests.conftest import TREASURER_TOKEN
from tests.integration.nights import Night, local, night_on

ZONE = "Europe/London"


@pytest.fixture
def night(store_settings: Settings, client: FlaskClient) -> Iterator[Night]:
    """A London club's Friday night, 16 January 2026, 19:00 to 01:40 on Saturday morning:
    six deals at the Friday school, Bob cashing out at the end."""
    ok(client.patch("/v1/club", json={"name": "The Anchor", "time_zone": ZONE},
                    headers=TREASURER))
    found = night_on(store_settings, local(ZONE, 2026, 1, 16, 18, 30), seed="pages")
    found.players("Ann", "Bob", "Cat")
    found.at(local(ZONE, 2026, 1, 16, 19))
    table = found.table("Friday school", ["Ann", "Bob", "Cat"])
    found.deals(table, 6, timedelta(minutes=80))
    found.ledger.cash_out(found.ids["Bob"], 10)
    yield found
    found.close()


def signed_in(client: FlaskClient, night: Night, token: str = TREASURER_TOKEN
              ) -> FlaskClient:
    assert send_sign_in(client, token).status_code == 303
    ok(client.get("/v1/balances", query_string={
        "min_position": night.ledger.recorder.max_notification_id()}, headers=TREASURER))
    return client


def test_the_month_links_each_night_with_play_to_its_sheet(client: FlaskClient,
                                                           night: Night) -> None:
    browser = signed_in(client, night)

    html = page(browser, "/web/days?month=2026-01")

    assert 'href="/web/days/2026-01-16"' in html
    assert "Friday 16 January 2026: 6 deals" in html
    assert 'href="/web/days/2026-01-17"' not in html  # after midnight is Friday's night
    assert "January 2026: 1 night with play" in visible_text(html)
    assert 'href="/web/days?month=2025-12"' in html and 'href="/web/days?month=2026-02"' in html
    page(browser, "/web/days?month=2026-13", status=400)


def test_a_night_sheet_shows_local_times_names_the_zone_and_carries_its_checkpoint(
        client: FlaskClient, night: Night) -> None:
    browser = signed_in(client, night)

    html = page(browser, "/web/days/2026-01-16")

    text = visible_text(html)
    assert "The Anchor: the night of Friday 16 January 2026" in text
    assert "From 2026-01-16 06:00:00 to 2026-01-17 06:00:00 (Europe/London" in text
    rows = {row[0]: row for row in rows_of(html, "Each player's night")}
    assert set(rows) == {"Ann", "Bob", "Cat"}
    assert rows["Bob"][4] == "10"  # cash-outs
    assert int(rows["Ann"][5]) == int(rows["Ann"][6]) - int(rows["Ann"][7])
    position = night.ledger.recorder.max_notification_id()
    assert f"Checkpoint as printed: {position} " in text
    download = browser.get("/web/days/2026-01-16.csv")
    assert download.mimetype == "text/csv"
    assert {r["name"] for r in csv.DictReader(io.StringIO(download.get_data(as_text=True)))
            } == {"Ann", "Bob", "Cat"}


def test_the_treasurer_closes_a_night_on_its_sheet_with_a_count(client: FlaskClient,
                                                                night: Night) -> None:
    browser = signed_in(client, night)
    html = page(browser, "/web/days/2026-01-16")
    ann = night.ids["Ann"]
    held = int({row[0]: row for row in rows_of(html, "Each player's night")}["Ann"][6])

    closed = browser.post("/web/days/2026-01-16/close", data={
        "csrf": csrf(html), f"counted_{ann}": str(held - 2), f"counted_{night.ids['Bob']}": ""})
    after = page(browser, closed.headers["Location"])

    assert closed.status_code == 303
    rows = {row[0]: row for row in rows_of(after, "Each player's night")}
    assert rows["Ann"][8:] == [str(held - 2), "−2"] and rows["Bob"][8:] == ["—", "—"]
    assert "Checkpoint when closed:" in visible_text(after)
    assert "Close the night" not in after
    again = browser.post("/web/days/2026-01-16/close", data={"csrf": csrf(after)})
    assert "already closed" in visible_text(page(browser, again.headers["Location"]))


def test_a_count_that_is_no_number_is_refused_on_the_sheet_as_typed(
        client: FlaskClient, night: Night) -> None:
    """Issue 27: the sheet comes back with the counts as typed, a summary linking to the
    count at fault, which is marked invalid and described by its own message; nothing is
    closed."""
    browser = signed_in(client, night)
    html = page(browser, "/web/days/2026-01-16")
    ann, bob = night.ids["Ann"], night.ids["Bob"]

    refused = browser.post("/web/days/2026-01-16/close", data={
        "csrf": csrf(html), f"counted_{ann}": "ninety", f"counted_{bob}": "12"})

    text = refused.get_data(as_text=True)
    assert refused.status_code == 400 and 'role="alert"' in text and "autofocus" in text
    assert f'<a href="#counted-{ann}">&#39;ninety&#39; is no count' in text
    assert f'aria-invalid="true" aria-describedby="counted-{ann}-error"' in text
    assert 'value="ninety"' in text and 'value="12"' in text
    assert "Close the night" in text and "Checkpoint when closed" not in text


def test_a_night_not_over_has_no_close_form(client: FlaskClient, night: Night) -> None:
    browser = signed_in(client, night)
    today = datetime.now(UTC).date() + timedelta(days=1)

    html = page(browser, f"/web/days/{today.isoformat()}")

    assert "Close the night" not in html
    assert "Nobody played" in visible_text(html)


def test_balances_on_the_page_as_of_a_club_day_and_a_local_time(client: FlaskClient,
                                                                night: Night) -> None:
    browser = signed_in(client, night)
    friday = ok(client.get("/v1/balances", query_string={"as_of": "2026-01-16",
                                                         "kind": "player"},
                           headers=TREASURER))

    html = page(browser, "/web/balances?kind=player&as_of=2026-01-16")
    early = page(browser, "/web/balances?kind=player&as_of=2026-01-16T18:45")

    shown = {row[0]: row[2] for row in rows_of(html, "Account balances")}
    assert shown == {item["name"]: str(item["balance"]) for item in friday["items"]}
    assert "Balances as of 2026-01-16" in visible_text(html)
    assert {row[2] for row in rows_of(early, "Account balances")} == {"100"}
    page(browser, "/web/balances?as_of=2026-02-30", status=400)


def test_the_disputes_page_filters_by_status_day_and_table_and_downloads_csv(
        client: FlaskClient, night: Night) -> None:
    deal_id = night.played[0]
    raised = night.ledger.raise_dispute(deal_id, "the count was off",
                                        raised_by="treasurer:x").result["id"]
    browser = signed_in(client, night)
    table = night.ledger.deal(deal_id).engine.table_id

    matching = page(browser, f"/web/disputes?status=open&day=2026-01-16&table={table}")
    other_day = page(browser, "/web/disputes?day=2026-01-17")
    resolved = page(browser, "/web/disputes?status=resolved")
    download = browser.get(f"/web/disputes.csv?status=open&day=2026-01-16&table={table}")

    assert f'id="d-{raised}"' in matching
    assert f'id="d-{raised}"' not in other_day and f'id="d-{raised}"' not in resolved
    [row] = csv.DictReader(io.StringIO(download.get_data(as_text=True)))
    assert (row["id"], row["club_day"], row["table"], row["status"]) == (
        raised, "2026-01-16", "Friday school", "open")
    page(browser, "/web/disputes?day=yesterday", status=400)
    deals = page(browser, f"/web/tables/{table}")
    assert "disputed" in visible_text(deals)
