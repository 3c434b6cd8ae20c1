"""Printouts a committee can file and forms found without sight, in chromium (issue 27).

Each printable page is printed to PDF (`page.pdf`, as a person's "Save as PDF" does) and
its text read back with pypdf: the club's name, the period, the time printed with its zone,
the checkpoint and numbered pages; no navigation or form; a statement longer than its page
says what it leaves out, and prints whole on asking; no heading, caption or table head is
the last line of a page. A refused form moves the focus to its error summary. axe-core
(WCAG 2.1 A and AA, bundled in axe-playwright-python) finds nothing on any page state, the
refused ones included.
"""

from __future__ import annotations

import io
import re
import unicodedata
from typing import Any

import pytest

from tests.api.test_web_printouts import PRINTED
from tests.e2e.test_browser import ARTIFACTS, Service, browser, service, signed_in, sync_api
from tests.e2e.test_browser_days import friday

__all__ = ["browser", "friday", "service", "sync_api"]

LAPTOP = {"width": 1280, "height": 800}
WCAG = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
BUY_INS = 70  # Pat's statement: more postings than a page of 50


@pytest.fixture(scope="module")
def long_statement(service: Service) -> str:
    """Pat, with more postings than a page shows."""
    assert service.club is not None
    pat = service.club.players["Pat"]
    for _ in range(BUY_INS):
        service.call("POST", f"/v1/players/{pat}/buy-ins", {"amount": 1})
    head = service.call("GET", "/v1/health")["position"]
    service.call("GET", f"/v1/balances?min_position={head}")
    return str(pat)


def pdf_pages(page: Any, name: str) -> list[str]:
    """The page printed to A4 as chromium prints it (kept in test-artifacts/browser/), each
    PDF page's text."""
    from pypdf import PdfReader

    printed = page.pdf(format="A4", prefer_css_page_size=True)
    (ARTIFACTS / f"{name}.pdf").write_bytes(printed)
    # NFKC: a ligature the fonts drew ("ﬀ" in an id) reads as its letters again.
    return [unicodedata.normalize("NFKC", sheet.extract_text())
            for sheet in PdfReader(io.BytesIO(printed)).pages]


def axe_violations(page: Any) -> list[str]:
    """axe-core's WCAG 2.1 A and AA violations of the page as it stands, one line each."""
    from axe_playwright_python.sync_playwright import Axe

    found = Axe().run(page, options={"runOnly": {"type": "tag", "values": WCAG}})
    return [f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes']][:3]}"
            for v in found.response["violations"]]


def printable(club: Any, pat: str) -> dict[str, str]:
    """Every page a committee prints; the night is the London Friday of `friday`."""
    return {"report": "/web/reports/period", "night": "/web/days/2026-01-16",
            "statement": f"/web/players/{pat}",
            "statement-whole": f"/web/players/{pat}?rows=all",
            "table": f"/web/tables/{club.table_id}",
            "deal": f"/web/deals/{club.deals[1]}"}


def test_every_printable_page_prints_what_a_committee_files(
        browser: Any, service: Service, long_statement: str, friday: dict[str, str]) -> None:
    page = signed_in(browser, service, LAPTOP)
    assert service.club is not None
    club_name = service.call("GET", "/v1/club")["name"]

    for name, path in printable(service.club, long_statement).items():
        page.goto(path)
        heads = {" ".join(text.split()) for text in page.locator(
            "main h2, main caption, main thead tr").all_inner_texts() if text.strip()}

        sheets = pdf_pages(page, f"printed-{name}")

        text = "\n".join(sheets)
        first = [line for line in sheets[0].splitlines() if not line.startswith("Page ")]
        assert first[0].startswith(club_name), (name, text[:300])
        assert "Period:" in text and re.search(PRINTED, " ".join(text.split())), name
        assert re.search(r"Checkpoint: \d+ [0-9a-f]{64}", text.replace("\n", "")), name
        for number, sheet in enumerate(sheets, start=1):
            assert f"Page {number} of {len(sheets)}" in sheet, (name, number, sheet[-200:])
            lines = [" ".join(line.split()) for line in sheet.splitlines()
                     if line.strip() and not line.strip().startswith("Page ")]
            assert lines[-1] not in heads, f"{name}: page {number} ends with {lines[-1]!r}"
        for left_out in ("Sign out", "Skip to the content", "Download CSV", "Raise dispute",
                         "Next page", "Close the night"):
            assert left_out not in text, (name, left_out)
        if name == "statement":
            assert len(sheets) >= 2
            assert re.search(r"This page shows 50 of the \d+ postings", text), text[-800:]
            assert f"/web/players/{long_statement}?rows=all" in text.replace("\n", "")
        if name == "statement-whole":
            assert "This page shows" not in text
            assert text.count("R11.1") >= BUY_INS  # every buy-in, each naming its rule
    page.context.close()


def test_a_refused_report_moves_the_focus_to_its_summary_and_keeps_the_dates(
        browser: Any, service: Service, sync_api: Any) -> None:
    page = signed_in(browser, service, LAPTOP)
    page.goto("/web/reports/period")
    page.get_by_label("From").fill("2026-12-06")
    page.get_by_label("To (inclusive)").fill("2026-12-05")

    page.get_by_role("button", name="Show").click()

    said = focus_goes_to_the_summary_then_its_field(page, sync_api)
    assert "must come before" in said
    sync_api.expect(page.get_by_label("From")).to_be_focused()
    assert page.get_by_label("From").input_value() == "2026-12-06"
    assert page.get_by_label("To (inclusive)").input_value() == "2026-12-05"
    page.context.close()


def focus_goes_to_the_summary_then_its_field(page: Any, sync_api: Any) -> str:
    """The summary of the refused form has the focus; its first link moves it to a field
    marked invalid; axe-core finds nothing. Returns what the summary says."""
    summary = page.get_by_role("alert")
    sync_api.expect(summary).to_be_focused()
    said = str(summary.inner_text())
    summary.get_by_role("link").first.click()
    assert page.evaluate("document.activeElement.getAttribute('aria-invalid')") == "true"
    assert axe_violations(page) == []
    return said


def test_a_refused_resolution_moves_the_focus_to_its_summary(
        browser: Any, service: Service, sync_api: Any) -> None:
    page = signed_in(browser, service, LAPTOP)
    club = service.club
    assert club is not None
    page.goto(f"/web/deals/{club.deals[3]}")
    page.get_by_label("what went wrong").fill("Bea asks for a recount")
    page.get_by_role("button", name="Raise dispute").click()
    article = page.locator("article.dispute").filter(has_text="Bea asks for a recount")
    article.get_by_label("Upheld").check()
    article.get_by_label("Note").fill("a recount")
    article.get_by_label("Correction 1: from").select_option(label="Bea")

    article.get_by_role("button", name="Resolve this dispute").click()

    said = focus_goes_to_the_summary_then_its_field(page, sync_api)
    assert "Correction 1: choose the account chips come from" in said
    page.context.close()


def test_a_refused_close_of_a_night_moves_the_focus_to_its_summary(
        browser: Any, service: Service, sync_api: Any, friday: dict[str, str]) -> None:
    page = signed_in(browser, service, LAPTOP)
    page.goto("/web/days/2026-01-16")
    page.get_by_label(re.compile(r"^Ann \(the ledger says")).fill("ninety")

    page.get_by_role("button", name="Close the night").click()

    said = focus_goes_to_the_summary_then_its_field(page, sync_api)
    assert "is no count" in said
    assert page.get_by_label(re.compile(r"^Ann \(the ledger says")).input_value() == "ninety"
    page.context.close()


def test_no_page_state_has_an_accessibility_violation(
        browser: Any, service: Service, long_statement: str, friday: dict[str, str]) -> None:
    """axe-core on every page, as it is first shown and as it is when a form is refused."""
    page = signed_in(browser, service, LAPTOP)
    club = service.club
    assert club is not None
    states = {**printable(club, long_statement),
              "home": "/web/", "balances": "/web/balances", "balances-all":
              "/web/balances?rows=all", "players": "/web/players", "tables": "/web/tables",
              "disputes": "/web/disputes", "per-deal": f"/web/players/{long_statement}"
              "?view=deals&order=desc", "report-refused": "/web/reports/period?from=x",
              "statement-refused": f"/web/players/{long_statement}?from=2026-12-06"
              "&to=2026-12-05", "table-refused": f"/web/tables/{club.table_id}?kitty_from="
              "2026-12-06&kitty_to=2026-12-05&from=nope",
              "pack": f"/web/tables/{club.table_id}/pack", "not-found": "/web/nowhere"}
    found = {}
    for name, path in states.items():
        page.goto(path)
        found[name] = axe_violations(page)
    page.context.clear_cookies()
    page.goto("/web/sign-in")
    page.get_by_label("Token").fill("pt_not_a_token")
    page.get_by_role("button", name="Sign in").click()
    found["sign-in-refused"] = axe_violations(page)

    assert {name: v for name, v in found.items() if v} == {}
    page.context.close()
