"""Issue 25's pages in a real browser at a phone's width (390 px): a statement with a
correction, whose Rule, Reason and Deal fit the screen or wrap; the treasurer issuing a
player a second sign-in token, shown once; the player signing in with it and finding both
tokens (by label) and the disputes about their deals on their home page."""

from __future__ import annotations

import re
from typing import Any

from tests.e2e.test_browser import Service, browser, service, shoot, signed_in, sync_api

__all__ = ["browser", "service", "sync_api"]

PHONE = {"width": 390, "height": 844}

# Every cell of the page's tables marked to stack that lies beyond the screen's right edge.
BEYOND = """(width) => [...document.querySelectorAll(
        'table.stacks tbody td, table.stacks tbody th')]
    .filter(cell => cell.getClientRects().length && cell.getBoundingClientRect().right > width)
    .map(cell => (cell.dataset.label || '') + ': ' + cell.innerText)"""


def correct_quinn(service: Service) -> str:
    """A dispute about the first deal, upheld with 3 chips from Bea to Quinn (R11.4)."""
    club = service.club
    assert club is not None
    raised = service.call("POST", f"/v1/deals/{club.deals[0]}/disputes",
                          {"reason": "Quinn's hand was counted short"})
    resolved = service.call("POST", f"/v1/disputes/{raised['id']}/resolution", {
        "decision": "upheld", "note": "a long note that has to wrap on a phone's screen, "
                                      "as notes of treasurers often do",
        "corrections": [{"from_account": f"player:{club.players['Bea']}",
                         "to_account": f"player:{club.players['Quinn']}", "amount": 3}]})
    return f"min_position={resolved['position']}"


def fits(page: Any, width: int) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= width, page.url
    assert page.evaluate(BEYOND, width) == [], page.url
    for box in page.evaluate("""() => [...document.querySelectorAll('table.stacks')]
            .map(t => [t.scrollWidth, t.closest('.scroll').clientWidth])"""):
        assert box[0] <= box[1], f"a table of {box[0]}px in a box of {box[1]}px: {page.url}"


def test_a_statement_with_a_correction_fits_a_phones_width(browser: Any,
                                                           service: Service) -> None:
    """Rule, Reason and Deal of every row are on the screen: they wrap, never scroll off."""
    seen = correct_quinn(service)
    club = service.club
    assert club is not None
    page = signed_in(browser, service, PHONE)

    for view in ("", "&view=deals&order=desc"):
        page.goto(f"/web/players/{club.players['Quinn']}?{seen}{view}")

        fits(page, PHONE["width"])
        rows = page.locator("table.statement tbody tr.correction")
        assert rows.count() == 1
        row = rows.first.inner_text()
        assert "Friday school, deal 1" in row and "a long note" in row
        for label in (("Rule", "Reason", "Deal") if not view else ("Deal", "Net")):
            cell = rows.first.locator(f'td[data-label="{label}"]')
            box = cell.bounding_box()
            assert box is not None and box["x"] >= 0, label
            assert box["x"] + box["width"] <= PHONE["width"], label
        shoot(page, f"statement{'-by-deal' if view else ''}-390")
    page.context.close()


def test_a_player_with_two_tokens_sees_them_and_the_disputes_about_their_deals(
        browser: Any, service: Service, sync_api: Any) -> None:
    club = service.club
    assert club is not None
    pat = club.players["Pat"]
    raised = service.call("POST", f"/v1/deals/{club.deals[1]}/disputes",
                          {"reason": "Quinn says the second deal was misdealt"},
                          headers={"Authorization": f"Bearer {club.tokens['Quinn']}"})
    treasurer = signed_in(browser, service, PHONE)
    treasurer.goto(f"/web/players/{pat}")
    treasurer.get_by_label("Label (what it is for").fill("phone")
    treasurer.get_by_role("button", name="Issue a new sign-in token").click()

    new_token = treasurer.locator("#new-token").inner_text().strip()
    assert new_token.startswith("pt_") and new_token != club.tokens["Pat"]
    treasurer.get_by_role("link", name=re.compile("Back to Pat's")).click()
    listed = treasurer.locator("#tokens-list-caption").inner_text()
    assert "(2)" in listed, listed
    assert new_token not in treasurer.content()  # shown once, then never again
    treasurer.context.close()

    context = browser.new_context(viewport=PHONE, base_url=service.base)
    context.set_default_timeout(10_000)
    page = context.new_page()
    page.goto("/web/")
    page.get_by_label("Token").fill(new_token)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(re.compile(r"/web/$"))

    fits(page, PHONE["width"])
    labels = page.locator("table:has(#tokens-list-caption) tbody th").all_inner_texts()
    assert sorted(labels) == ["no label", "phone"], labels
    disputes = page.locator("table:has(#your-disputes-caption) tbody tr")
    assert disputes.count() >= 1
    text = disputes.all_inner_texts()
    assert any("misdealt" in row and "Friday school, deal 2" in row for row in text), text
    shoot(page, "player-home-tokens-disputes-390")
    link = page.locator(f'a[href*="#dispute-{raised["id"]}"]')
    assert link.count() == 1
    link.click()
    sync_api.expect(page.locator(f"#dispute-{raised['id']}")).to_be_visible()
    context.close()
