"""Club nights in a real browser (issue 23): the month's calendar, a night sheet that prints
with its checkpoint, closing a night with a count from the page, balances as of a club day
and the disputes page's filters; every page fits a laptop and a phone and passes axe-core's
checks (the engine bundled in axe-playwright-python, run in the page).

The service of test_browser.py plays today's deals on the real clock; a London Friday night
of January 2026 is added to its store by a Ledger on a simulated clock
(tests/integration/nights.py), so there is a night that is over to close.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest

from config import Settings
from tests.e2e.test_browser import (
    TOKEN,
    Service,
    browser,
    service,
    shoot,
    signed_in,
    sync_api,
)
from tests.integration.nights import local, night_on

__all__ = ["browser", "service", "sync_api"]

LAPTOP = {"width": 1280, "height": 800}
PHONE = {"width": 375, "height": 812}
ZONE = "Europe/London"


@pytest.fixture(scope="module")
def friday(service: Service) -> Iterator[dict[str, str]]:
    """The service's club in London, and a Friday night played there in January 2026."""
    service.call("PATCH", "/v1/club", {"name": "The Anchor", "time_zone": ZONE})
    settings = Settings(database_url=f"sqlite:///{service.log.parent}/x.sqlite3")
    night = night_on(settings, local(ZONE, 2026, 1, 16, 18, 30), seed="browser")
    try:
        night.players("Ann", "Bob", "Cat")
        night.at(local(ZONE, 2026, 1, 16, 19))
        table = night.table("January school", ["Ann", "Bob", "Cat"], shoot=True, kitty=20)
        night.deals(table, 5, timedelta(minutes=75))  # to 00:15 on Saturday
        night.ledger.raise_dispute(night.played[0], "the kitty was short",
                                   raised_by="treasurer:browser")
        head = night.ledger.recorder.max_notification_id()
    finally:
        night.close()
    service.call("GET", f"/v1/balances?min_position={head}")
    yield {"table": table, **night.ids}


def axe_violations(page: Any) -> list[str]:
    """axe-core's violations of the page as loaded, one line each."""
    from axe_playwright_python.sync_playwright import Axe

    found = Axe().run(page).response["violations"]
    return [f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes']][:3]}"
            for v in found]


def paths(friday: dict[str, str]) -> dict[str, str]:
    return {"month": "/web/days?month=2026-01", "night": "/web/days/2026-01-16",
            "balances-as-of": "/web/balances?as_of=2026-01-16&kind=player",
            "disputes-filtered": f"/web/disputes?status=open&day=2026-01-16"
                                 f"&table={friday['table']}",
            "report-night": "/web/reports/period?from=2026-01-16&to=2026-01-16",
            "table-disputed": f"/web/tables/{friday['table']}"}


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["1280px", "375px"])
def test_the_nights_pages_fit_the_screen_and_pass_axe(browser: Any, service: Service,
                                                      friday: dict[str, str],
                                                      viewport: dict[str, int]) -> None:
    page = signed_in(browser, service, viewport)
    for name, path in paths(friday).items():
        page.goto(path)

        width = page.evaluate("document.documentElement.scrollWidth")
        violations = axe_violations(page)

        assert width <= viewport["width"], f"{path} is {width}px wide at {viewport}"
        assert violations == [], (path, violations)
        shoot(page, f"{name}-{viewport['width']}")
    assert page.outside == [] and page.errors == [], (page.outside, page.errors)
    page.context.close()


def test_the_calendar_leads_to_a_night_that_the_treasurer_closes_with_a_count(
        browser: Any, service: Service, friday: dict[str, str]) -> None:
    page = signed_in(browser, service, LAPTOP)
    page.goto("/web/days?month=2026-01")

    page.get_by_role("link", name=re.compile(r"^Friday 16 January 2026: 5 deals")).click()
    page.wait_for_url(re.compile(r"/web/days/2026-01-16$"))
    assert "The Anchor: the night of Friday 16 January 2026" in page.content()
    page.get_by_label(re.compile(r"^Ann \(the ledger says")).fill("0")
    page.get_by_role("button", name="Close the night").click()

    page.wait_for_url(re.compile(r"/web/days/2026-01-16\?min_position=\d+#closed$"))
    assert "Checkpoint when closed" in page.content()
    assert page.get_by_role("button", name="Close the night").count() == 0
    assert axe_violations(page) == []
    page.goto("/web/days?month=2026-01")
    assert page.get_by_role("link", name=re.compile(r"5 deals, closed$")).count() == 1
    page.context.close()


def test_a_night_sheet_prints_without_navigation_or_forms_but_with_its_checkpoint(
        browser: Any, service: Service, friday: dict[str, str]) -> None:
    page = signed_in(browser, service, LAPTOP)
    page.goto("/web/days/2026-01-16")

    page.emulate_media(media="print")

    assert not page.locator("header.site nav").is_visible()
    assert not page.locator("nav.pager").is_visible()
    assert page.locator("#checkpoint").is_visible()
    assert re.search(r"\d+ [0-9a-f]{64}", page.locator("#checkpoint").inner_text())
    assert page.locator("table.data").first.is_visible()
    assert TOKEN not in page.content()
    shoot(page, "night-sheet-print")
    page.context.close()
