"""Pages a committee can file and forms found without sight (issue 27), on both stores: a
reversed period refused on every page that takes one, as the API refuses it, with the form
kept; an error summary linking to each field at fault; a page of a longer list saying what
its printout leaves out, and every row on one page when asked; the printout's head (the
club, the period, the time printed with its zone, the checkpoint); the kitty chart's text
counting deals as the chart draws them."""

from __future__ import annotations

import re

import pytest

from api.web.charts import kitty_chart_by
from tests.api.test_web_pages import Site, page, rows_of, sign_in, site, visible_text
from tests.conftest import TREASURER_TOKEN

__all__ = ["site"]

# When a page was printed: the club's time, its zone named, with its offset.
PRINTED = r"Printed \d{4}-\d\d-\d\d \d\d:\d\d:\d\d [A-Za-z_/+-]+ \(UTC[+-]\d\d:\d\d\)"


@pytest.mark.parametrize("path, field", [
    ("/web/reports/period?from=2026-12-06&to=2026-12-05", "from"),
    ("/web/reports/period?from=2026-12-05T21:00&to=2026-12-05T20:00", "from"),
    ("/web/players/{Quinn}?from=2026-12-06&to=2026-12-05", "from"),
    ("/web/tables/{table}?from=2026-12-06&to=2026-12-05", "from"),
    ("/web/tables/{table}?kitty_from=2026-12-06&kitty_to=2026-12-05", "kitty_from"),
], ids=["report", "report-times", "statement", "table-deals", "table-kitty"])
def test_a_reversed_period_is_refused_on_its_form_as_typed(site: Site, path: str,
                                                           field: str) -> None:
    """The API says 400 with `from` named; the page says the same on its form, the dates
    as typed, and shows no figures for a period that does not exist."""
    club = site.club
    browser = sign_in(site)
    api = site.client.get("/v1/reports/period?from=2026-12-06&to=2026-12-05",
                          headers={"Authorization": f"Bearer {TREASURER_TOKEN}"})

    html = page(browser, path.format(Quinn=club.players["Quinn"], table=club.table_id), 400)

    assert api.status_code == 400 and "from" in api.get_json()["errors"]
    summary = re.search(r'<div class="alert error error-summary" role="alert" id="problem" '
                        r'tabindex="-1" autofocus>(.*?)</div>', html, flags=re.S)
    assert summary, html
    assert f'<a href="#{field}">' in summary.group(1)
    assert "must come before" in visible_text(summary.group(1))
    field_tag = re.search(rf'<input id="{field}"[^>]*>', html)
    assert field_tag and 'type="date"' in field_tag.group(0)
    assert f'aria-invalid="true" aria-describedby="{field}-error"' in field_tag.group(0)
    assert f'<p class="field-error" id="{field}-error">' in html
    if "T21:00" not in path:  # a date field shows a date as typed; a time it cannot hold
        assert 'value="2026-12-06"' in field_tag.group(0)
    assert "The period balances" not in html and "THESE DIFFER" not in html


def test_a_bad_date_keeps_the_report_form_and_names_the_field(site: Site) -> None:
    html = page(sign_in(site), "/web/reports/period?from=someday&to=2026-12-05", 400)

    assert '<a href="#from">From must be a date' in html
    assert 'value="someday"' in html and 'value="2026-12-05"' in html
    assert "Something in the request is not right" not in html  # not the generic page


def test_a_long_statement_says_what_its_printout_leaves_out_and_prints_whole_on_asking(
        site: Site) -> None:
    """Bea's statement of more postings than a page shows: the page names how many it shows
    of how many, with the address of all of them on one page (spelled out on paper) and the
    CSV; that page holds every one."""
    bea = site.club.players["Bea"]
    for _ in range(55):
        site.call("POST", f"/v1/players/{bea}/buy-ins", {"amount": 1})
    browser = sign_in(site)
    head = site.head()

    paged = page(browser, f"/web/players/{bea}?min_position={head}")
    whole = page(browser, f"/web/players/{bea}?rows=all&min_position={head}")

    total = len(rows_of(whole, "Every posting on Bea's account"))
    assert total > 60 and len(rows_of(paged, "Every posting on Bea's account")) == 50
    said = visible_text(re.search(r'<p class="left-out".*?</p>', paged, flags=re.S).group(0))
    assert f"This page shows 50 of the {total} postings" in said
    assert f"leaves out the other {total - 50}" in said and "download them all as CSV" in said
    assert f'href="http://localhost/web/players/{bea}?rows=all"' in paged
    assert "left-out" not in whole and 'rel="next"' not in whole


def test_a_printable_page_carries_the_club_the_period_the_time_and_the_checkpoint(
        site: Site) -> None:
    club = site.club
    browser = sign_in(site)
    checkpoint = site.head()
    pages = {"report": "/web/reports/period?from=2026-12-01&to=2026-12-31",
             "statement": f"/web/players/{club.players['Quinn']}?from=2026-12-01",
             "table": f"/web/tables/{club.table_id}", "deal": f"/web/deals/{club.deals[0]}",
             "balances": "/web/balances"}
    club_name = site.call("GET", "/v1/club")["name"]
    periods = {"report": "Period: 2026-12-01 to 2026-12-31 (inclusive)",
               "statement": "Period: from 2026-12-01 to now",
               "table": "Period: deals the first to now; the kitty from the first change to now",
               "deal": "Period: the deal, started 20", "balances": "Period: balances now"}

    for name, path in pages.items():
        head = re.search(r'<div class="print-head" id="print-head">(.*?)</div>',
                         page(browser, path), flags=re.S)
        assert head, name
        said = visible_text(head.group(1))
        assert said.startswith(club_name) and periods[name] in said, (name, said)
        assert re.search(PRINTED, said), said
        assert re.search(r"Checkpoint: \d+ [0-9a-f]{64}", said), said
        assert int(re.search(r"Checkpoint: (\d+)", said).group(1)) >= checkpoint


def test_the_kitty_charts_text_counts_deals_as_the_chart_draws_them() -> None:
    """A put-up between deals is a point of the chart but no deal: 200 deals and 44
    put-ups are said as such, never as 244 deals."""
    points: list[tuple[str, int]] = []
    for deal in range(1, 201):  # a top-up after each of the first 44 deals
        points += [(str(deal), deal % 40)] + ([("·", 30)] if deal <= 44 else [])
    deals = [label for label, _ in points if label != "·"]

    chart = kitty_chart_by(points, by="deal", title="Kitty", chart_id="k")

    desc = re.search(r'<desc id="k-desc">(.*?)</desc>', chart).group(1)
    assert len(deals) == 200 and len(points) == 244
    assert desc.startswith(f"The kitty after each of 200 deals, from deal {deals[0]} to "
                           f"deal {deals[-1]}, and after each of 44 put-ups between deals")
    assert "244" not in desc
