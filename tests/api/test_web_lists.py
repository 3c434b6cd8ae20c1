"""The pages at a real club's scale (issue 13): players found by name, statements by period,
newest first and per deal with CSV downloads, balances by kind, every deal of a table, the
kitty drawn per deal or day with reasons that name the player, and the period report. The
club of test_web_pages.py, on both stores."""

from __future__ import annotations

import csv
import io
import re

import pytest

from api.web.charts import kitty_chart_by
from tests.api.test_web_pages import Site, page, rows_of, sign_in, site, visible_text

__all__ = ["site"]


def csv_of(browser, path: str) -> list[dict[str, str]]:  # type: ignore[no-untyped-def]
    response = browser.get(path)
    assert response.status_code == 200 and response.mimetype == "text/csv", path
    return list(csv.DictReader(io.StringIO(response.get_data(as_text=True))))


def test_players_are_found_by_the_start_of_their_name(site: Site) -> None:
    browser = sign_in(site)

    html = page(browser, "/web/players?name=qu")

    rows = rows_of(html, "Players whose name starts with")
    assert [r[0] for r in rows] == ["Quinn"]
    assert f'href="/web/players/{site.club.players["Quinn"]}"' in html


@pytest.mark.parametrize("path", ["/web/players?name=a%00b", "/web/players?after=%00",
                                  "/web/tables?name=a%00", "/web/balances?after=player:%00",
                                  "/web/players?name=a%1Bb"],
                         ids=["player-name", "player-after", "table-name", "balance-after",
                              "escape"])
def test_a_search_field_with_a_control_character_is_refused_on_its_form(
        site: Site, path: str) -> None:
    """The pages check text as the API does (decision 32): a NUL never reaches the store."""
    browser = sign_in(site)

    html = page(browser, path, status=400)

    assert "control character" in visible_text(html)


def test_players_sharing_a_name_are_told_apart_on_the_pages(site: Site) -> None:
    twin = site.call("POST", "/v1/players", {"name": "Twin"})["id"]
    other = site.call("POST", "/v1/players", {"name": "twin"})["id"]
    browser = sign_in(site)

    head = site.call("GET", "/v1/health")["position"]
    html = page(browser, f"/web/players?name=twin&min_position={head}")

    names = [r[0] for r in rows_of(html, "Players whose name starts with")]
    assert sorted(names) == sorted([f"Twin ({twin[:6]})", f"twin ({other[:6]})"])


def test_a_statement_is_shown_newest_first_per_deal_and_for_a_period(site: Site) -> None:
    pat = site.club.players["Pat"]
    api = site.call("GET", f"/v1/players/{pat}/statement?limit=500")["items"]
    browser = sign_in(site)

    newest = rows_of(page(browser, f"/web/players/{pat}?order=desc"), "newest first")
    per_deal = rows_of(page(browser, f"/web/players/{pat}?view=deals"), "result in each deal")
    nothing = page(browser, f"/web/players/{pat}?from=2000-01-01&to=2000-01-31")

    assert [r[2] for r in newest] == [str(i["balance"]) for i in reversed(api)]
    assert [r[1] for r in per_deal][1:] == [f"Friday school, deal {n}" for n in (1, 2, 3, 4)]
    assert "No postings" in nothing


def test_every_money_page_links_a_csv_download(site: Site) -> None:
    pat = site.club.players["Pat"]
    browser = sign_in(site)
    pages = {f"/web/players/{pat}": f"/web/players/{pat}/statement.csv",
             "/web/balances": "/web/balances.csv",
             f"/web/tables/{site.club.table_id}": f"/web/tables/{site.club.table_id}/kitty.csv",
             "/web/reports/period": "/web/reports/period.csv"}

    for path, download in pages.items():
        html = page(browser, path)
        assert re.search(rf'href="{re.escape(download)}[^"]*" download', html), path

    statement = csv_of(browser, f"/web/players/{pat}/statement.csv?view=deals")
    assert [row["deal_number"] for row in statement][1:] == ["1", "2", "3", "4"]
    balances = csv_of(browser, "/web/balances.csv?kind=player")
    assert {row["kind"] for row in balances} == {"player"}
    kitty = csv_of(browser, f"/web/tables/{site.club.table_id}/kitty.csv")
    assert kitty[0]["rule"] == "R9.1" and kitty[0]["from_name"] == "Bea"


def test_the_balances_page_lists_escrows_only_when_asked(site: Site) -> None:
    browser = sign_in(site)

    default = rows_of(page(browser, "/web/balances"), "Account balances")
    escrows = page(browser, "/web/balances?kind=escrow")

    assert {r[1] for r in default} <= {"player", "kitty", "treasury"}
    assert "Total of every account" in escrows
    player = page(sign_in(site), "/web/balances?kind=dealers", 400)
    assert "kind" in player


def test_a_tables_deals_are_paged_by_number_and_found_by_date(
        site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("api.web.pages.tables.PAGE", 3)
    browser = sign_in(site)
    path = f"/web/tables/{site.club.table_id}"

    first = page(browser, f"{path}?order=asc")
    following = re.search(r'href="([^"]*after=3[^"]*)" rel="next"', first)
    assert following
    second = page(browser, following.group(1).replace("&amp;", "&"))
    none = page(browser, f"{path}?from=2000-01-01&to=2000-01-02")

    assert [r[0] for r in rows_of(first, "oldest first")] == ["1", "2", "3"]
    assert [r[0] for r in rows_of(second, "oldest first")] == ["4"]
    assert "No deals in this period" in none


def test_the_kitty_is_drawn_per_deal_or_per_day_when_asked(site: Site) -> None:
    browser = sign_in(site)
    path = f"/web/tables/{site.club.table_id}"

    by_deal = page(browser, f"{path}?kitty_by=deal")
    by_day = page(browser, f"{path}?kitty_by=day")

    chart = re.search(r"<svg\b.*?</svg>", by_deal, flags=re.S).group(0)  # type: ignore[union-attr]
    assert "Deal number" in chart and 'data-points="6"' in chart  # 2 put-ups and 4 deals
    assert "Day (UTC)" in by_day


def test_kitty_reasons_name_the_player_and_count_hands_from_one(site: Site) -> None:
    """Deal 2: Quinn busts with a shoot bet of 2, which goes into the kitty (R9.7)."""
    html = page(sign_in(site), f"/web/tables/{site.club.table_id}")

    reasons = [r[4] for r in rows_of(html, "Changes of the kitty")]

    assert "Quinn's hand 1 is bust: its shoot bet of 2 goes into the kitty" in reasons
    assert not any("hand 0" in reason for reason in reasons)


def test_the_period_report_page_shows_each_player_and_the_checks(site: Site) -> None:
    browser = sign_in(site)

    html = page(browser, "/web/reports/period")
    empty = page(browser, "/web/reports/period?from=2000-01-01&to=2000-01-31")

    rows = {r[0]: r for r in rows_of(html, "Each player's result")}
    api = {r["name"]: r for r in site.call("GET", "/v1/reports/period")["items"]}
    assert rows["Pat"][1] == f"+{api['Pat']['net']}" and rows["Pat"][2] == "4"
    assert "every chip issued is held or redeemed" in visible_text(html)
    assert "Nobody played" in empty
    assert page(browser, "/web/reports/period?from=someday", 400)


def test_a_chart_of_ten_thousand_deals_stays_one_readable_line() -> None:
    points = [(str(n), (n * 37) % 500) for n in range(1, 10_001)]

    chart = kitty_chart_by(points, by="deal", title="Kitty", chart_id="k")

    assert chart.count("<circle") == 0 and chart.count('class="series"') == 1
    assert len(re.findall(r'text-anchor="middle" fill="[^"]+">\d+</text>', chart)) <= 7
    assert len(chart) < 400_000
