"""The pages of issue 13 in a real browser at a laptop's width (1,280 px) and a phone's
(375 px): nothing is cut off or scrolls sideways, the statement's table fits its box, a
five-digit timeline position never runs into the words, a player signs in with their own
token and raises a dispute, and the report prints without navigation or forms."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.e2e.test_browser import (
    TOKEN,
    Service,
    browser,
    service,
    shoot,
    signed_in,
    sync_api,
    urlpath,
)

__all__ = ["browser", "service", "sync_api"]

LAPTOP = {"width": 1280, "height": 800}
PHONE = {"width": 375, "height": 812}


def pages_of(club: Any) -> dict[str, str]:
    return {"players": "/web/players?name=p", "report": "/web/reports/period",
            "statement": f"/web/players/{club.players['Quinn']}",
            "per-deal": f"/web/players/{club.players['Quinn']}?view=deals&order=desc",
            "table": f"/web/tables/{club.table_id}?kitty_by=deal",
            "balances-escrow": "/web/balances?kind=player,kitty,treasury,escrow",
            "deal": f"/web/deals/{club.deals[1]}"}


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["1280px", "375px"])
def test_the_new_pages_fit_the_screen(browser: Any, service: Service,
                                      viewport: dict[str, int]) -> None:
    page = signed_in(browser, service, viewport)
    assert service.club is not None
    for name, path in pages_of(service.club).items():
        page.goto(path)

        width = page.evaluate("document.documentElement.scrollWidth")

        assert width <= viewport["width"], f"{path} is {width}px wide at {viewport}"
        shoot(page, f"{name}-{viewport['width']}")
    assert page.outside == [] and page.errors == [], (page.outside, page.errors)
    page.context.close()


def test_a_statement_fits_its_box_at_a_laptops_width(browser: Any, service: Service) -> None:
    page = signed_in(browser, service, LAPTOP)
    assert service.club is not None
    page.goto(f"/web/players/{service.club.players['Quinn']}")

    sizes = page.evaluate("""() => { const box = document.querySelector('.scroll');
        const table = box.querySelector('table');
        return [table.scrollWidth, box.clientWidth]; }""")

    assert sizes[0] <= sizes[1], f"the statement is {sizes[0]}px in a {sizes[1]}px box"
    page.context.close()


def test_a_timeline_position_never_runs_into_the_words(browser: Any, service: Service) -> None:
    page = signed_in(browser, service, LAPTOP)
    assert service.club is not None
    page.goto(f"/web/deals/{service.club.deals[3]}")
    page.evaluate("() => document.querySelectorAll('.timeline .pos').forEach("
                  "p => p.textContent = '#15016')")

    overlaps = page.evaluate("""() => [...document.querySelectorAll('.timeline li')].filter(li => {
        const pos = li.querySelector('.pos').getBoundingClientRect();
        const what = li.querySelector('.what').getBoundingClientRect();
        return pos.right > what.left && pos.bottom > what.top && pos.top < what.bottom;
      }).length""")

    assert overlaps == 0
    page.context.close()


def test_a_player_signs_in_with_their_token_and_raises_a_dispute(
        browser: Any, service: Service) -> None:
    club = service.club
    assert club is not None
    context = browser.new_context(viewport=PHONE, base_url=service.base)
    context.set_default_timeout(10_000)
    page = context.new_page()
    page.goto("/web/")
    page.get_by_label("Token").fill(club.tokens["Pat"])
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(re.compile(r"/web/$"))

    assert "Your balance" in page.content()
    page.get_by_role("link", name="Friday school, deal 4").click()
    page.get_by_label("what went wrong").fill("Pat thinks the banker drew twice")
    page.get_by_role("button", name="Raise dispute").click()

    page.wait_for_url(re.compile(r"/web/deals/"))
    assert "Dispute raised" in page.content()
    page.get_by_role("link", name="My statement").click()
    assert urlpath(page) == f"/web/players/{club.players['Pat']}"
    shoot(page, "player-statement-375")
    context.close()


def test_the_report_prints_without_navigation_or_forms(browser: Any, service: Service) -> None:
    page = signed_in(browser, service, LAPTOP)
    page.goto("/web/reports/period")

    page.emulate_media(media="print")

    assert not page.locator("header.site nav").is_visible()
    assert not page.locator("form.filters").is_visible()
    assert page.locator("table.data").first.is_visible()
    assert TOKEN not in page.content()
    page.context.close()
