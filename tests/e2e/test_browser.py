"""The treasurer's pages in a real browser: Playwright driving Debian's chromium against
`pontoon serve` as a subprocess.

The service runs on SQLite in a temporary folder; the club of tests/api/test_web_pages.py
is seeded over HTTP (an ordered pack, so the deals always play the same way). The browser
signs in by typing the treasurer token into the labelled field, reads balances, a table
with its kitty chart and a deal's audit, raises and resolves a dispute with a correction
and finds the correcting posting (R11.4) in the player's statement; at a phone's width no
page scrolls sideways.

Screenshots go to test-artifacts/browser/ (not committed); the table and deal audit pages
are also saved to docs/screenshots/ for the documentation when missing or when
PONTOON_UPDATE_SCREENSHOTS=1.

Without /usr/bin/chromium (or the playwright package) these tests skip, saying
`apt-get install chromium`; with PONTOON_REQUIRE_BROWSER=1 (set by .ci/run when chromium
is installed) they fail instead. `playwright install` is never used: its browser builds
are downloads from outside the package registries.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.api.test_web_pages import Seeded, seed

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--no-first-run"]
ARTIFACTS = ROOT / "test-artifacts" / "browser"
SCREENSHOTS = ROOT / "docs" / "screenshots"
PONTOON = Path(sys.executable).parent / "pontoon"
TOKEN = "pt_browser_treasurer_token_of_32_chars"
START_TIMEOUT = 30.0
WIDE = {"width": 1024, "height": 800}
PHONE = {"width": 375, "height": 812}


def _browser_or_skip() -> Any:
    """The playwright module, or skip (fail under PONTOON_REQUIRE_BROWSER=1)."""
    problem = None
    if not CHROMIUM.exists():
        problem = ("the browser tests need Debian's chromium at /usr/bin/chromium: "
                   "apt-get update && apt-get install chromium")
    try:
        from playwright import sync_api
    except ImportError:
        problem = problem or ("the browser tests need the playwright package: "
                              "pip install -e '.[test]' (and apt-get install chromium)")
        sync_api = None
    if problem:
        if os.environ.get("PONTOON_REQUIRE_BROWSER") == "1":
            pytest.fail(f"PONTOON_REQUIRE_BROWSER=1 but {problem}")
        pytest.skip(problem)
    return sync_api


@dataclass
class Service:
    base: str
    process: subprocess.Popen[bytes]
    log: Path
    club: Seeded | None = None

    def call(self, method: str, path: str, body: Any = None,
             headers: dict[str, str] | None = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method,
                                         headers=headers or {"Authorization": f"Bearer {TOKEN}"})
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=15) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as error:
            with error:
                raise AssertionError(f"{method} {path}: {error.code} {error.read()!r}\n"
                                     f"{self.log_tail()}") from None

    def log_tail(self) -> str:
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return "server log:\n" + "\n".join(text.splitlines()[-30:])


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_until_healthy(service: Service) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if service.process.poll() is not None:
            pytest.fail(f"pontoon serve exited with {service.process.returncode}\n"
                        f"{service.log_tail()}")
        try:
            with urllib.request.urlopen(service.base + "/v1/health", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.2)
    pytest.fail(f"pontoon serve did not answer within {START_TIMEOUT}s\n{service.log_tail()}")


@pytest.fixture(scope="module")
def sync_api() -> Any:
    return _browser_or_skip()


@pytest.fixture(scope="module")
def service(sync_api: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    """`pontoon serve` on SQLite with the seeded club; always stopped afterwards."""
    folder = tmp_path_factory.mktemp("browser")
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PONTOON_")}
    env.update(PONTOON_DATABASE_URL=f"sqlite:///{folder}/x.sqlite3",
               PONTOON_TREASURER_TOKEN=TOKEN)
    log = folder / "serve.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [str(PONTOON), "serve", "--migrate", "--port", str(port), "--workers", "1",
             "--threads", "4"], env=env, stdout=out, stderr=subprocess.STDOUT, cwd=folder,
            start_new_session=True)
    running = Service(f"http://127.0.0.1:{port}", process, log)
    try:
        _wait_until_healthy(running)
        running.club = seed(running.call)
        running.call("GET", f"/v1/balances?min_position={running.club.head}")
        yield running
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=20)


@pytest.fixture(scope="module")
def browser(sync_api: Any) -> Iterator[Any]:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    playwright = sync_api.sync_playwright().start()
    try:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                              args=ARGS)
        yield launched
        launched.close()
    finally:
        playwright.stop()


def signed_in(browser: Any, service: Service, viewport: dict[str, int]) -> Any:
    """A fresh browser context, signed in by typing the token into the labelled field."""
    context = browser.new_context(viewport=viewport, base_url=service.base,
                                  device_scale_factor=1)
    context.set_default_timeout(10_000)
    page = context.new_page()
    # Every request stays on the service (no CDN) and no page logs an error (such as a
    # resource the Content-Security-Policy refused).
    page.outside = []
    page.errors = []
    page.on("request", lambda r: None if r.url.startswith((service.base, "data:"))
            else page.outside.append(r.url))
    page.on("console", lambda m: page.errors.append(m.text) if m.type == "error" else None)
    page.goto("/web/balances")
    assert urlpath(page) == "/web/sign-in", page.url  # signed out: sent to sign in
    field = page.get_by_label("Token")
    field.click()
    field.press_sequentially(TOKEN)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(re.compile(r"/web/balances$"))
    return page


def urlpath(page: Any) -> str:
    from urllib.parse import urlsplit

    return urlsplit(page.url).path


def shoot(page: Any, name: str, *, docs: str | None = None) -> None:
    """A full-page screenshot in test-artifacts/browser/; with `docs`, also the committed
    one in docs/screenshots/ when it is missing or PONTOON_UPDATE_SCREENSHOTS=1 (times
    differ on every run, so a plain test run leaves the committed pictures alone)."""
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
    if docs:
        target = SCREENSHOTS / docs
        if os.environ.get("PONTOON_UPDATE_SCREENSHOTS") == "1" or not target.exists():
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(target), full_page=True)


def test_the_treasurer_signs_in_and_reads_the_balances(browser: Any, service: Service,
                                                      sync_api: Any) -> None:
    page = signed_in(browser, service, WIDE)
    sync_api.expect(page.get_by_role("heading", level=1)).to_have_text("Balances")
    assert page.locator("#total").inner_text().strip() == "0"
    rows = page.locator("table.data tbody tr")
    names = [rows.nth(i).locator("th").inner_text() for i in range(rows.count())]
    assert names[:3] == ["Bea", "Pat", "Quinn"], names
    assert "the treasury" in names
    cookies = page.context.cookies()
    [cookie] = [c for c in cookies if c["name"] == "pontoon_web_token"]
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
    assert page.evaluate("document.cookie") == ""  # no script can read the token
    shoot(page, "balances")
    page.get_by_role("button", name="Sign out").click()
    page.goto("/web/balances")
    assert urlpath(page) == "/web/sign-in"
    page.context.close()


def test_a_table_shows_its_seats_and_its_kitty_history_as_a_chart(browser: Any,
                                                                   service: Service) -> None:
    page = signed_in(browser, service, WIDE)
    page.get_by_role("link", name="Tables").click()
    page.get_by_role("link", name="Friday school").click()
    assert page.get_by_role("heading", level=1).inner_text() == "Friday school"
    seats = page.locator("ol.seats li")
    assert [seats.nth(i).inner_text().split()[0] for i in range(3)] == ["Bea", "Pat", "Quinn"]
    assert "banker" in seats.nth(0).inner_text()
    chart = page.locator("svg.chart")
    assert chart.count() == 1 and chart.is_visible()
    assert chart.locator("title").first.text_content().startswith("Kitty of Friday school")
    points = chart.locator("circle.point").count()
    history = page.locator("table[aria-labelledby], .scroll table").filter(
        has=page.locator("caption", has_text="Changes of the kitty")).locator("tbody tr")
    assert points == history.count() >= 8, (points, history.count())
    box = chart.bounding_box()
    assert box is not None and box["width"] > 300 and box["height"] > 100
    assert page.get_by_role("link", name="Audit of deal 1").count() == 1
    shoot(page, "table", docs="table.png")
    page.context.close()


def test_a_deal_audit_reads_as_a_timeline_and_is_verified(browser: Any,
                                                          service: Service) -> None:
    page = signed_in(browser, service, WIDE)
    assert service.club is not None
    page.goto(f"/web/tables/{service.club.table_id}")
    page.get_by_role("link", name="Audit of deal 2").click()
    assert page.get_by_role("heading", level=1).inner_text().startswith("Audit of deal 2")
    assert "Replayed: yes" in page.locator("#check-replayed").inner_text()
    assert "Chips conserved: yes" in page.locator("#check-chips").inner_text()
    assert "Differences: none" in page.locator("#check-differences").inner_text()
    events = page.locator("ol.timeline li")
    assert events.count() > 10
    texts = "\n".join(events.all_inner_texts())
    assert "Quinn is bust" in texts and "Pat stakes 5" in texts
    assert "Pat shoots 2 against the kitty" in texts
    # Cards are drawn as cards: hearts and diamonds in red.
    assert page.get_by_role("img", name=re.compile("^king of hearts")).first.is_visible()
    red = page.locator(".card.red").first
    assert page.evaluate("e => getComputedStyle(e).color", red.element_handle()) \
        == "rgb(179, 38, 30)"
    payments = page.locator("table").filter(
        has=page.locator("caption", has_text="Every posting of this deal"))
    assert "R9.7" in payments.inner_text() and "R4.7" in payments.inner_text()
    assert page.outside == [] and page.errors == [], (page.outside, page.errors)
    shoot(page, "deal-audit", docs="deal-audit.png")
    page.context.close()


def test_a_dispute_is_raised_then_resolved_with_a_correction_in_the_statement(
        browser: Any, service: Service) -> None:
    page = signed_in(browser, service, WIDE)
    club = service.club
    assert club is not None
    page.goto(f"/web/deals/{club.deals[0]}")
    page.get_by_label("what went wrong").fill("Quinn says Bea stayed before Quinn stuck")
    page.get_by_role("button", name="Raise dispute").click()
    page.wait_for_url(re.compile(r"/web/disputes\?"))
    article = page.locator("article.dispute").filter(has_text="Quinn says Bea stayed")
    assert article.count() == 1
    article.get_by_label("Upheld").check()
    article.get_by_label("Note").fill("Bea refunds Quinn's stake")
    article.get_by_label("Correction 1: from").select_option(label="Bea")
    article.get_by_label("to", exact=True).first.select_option(label="Quinn")
    article.get_by_label("chips").first.fill("5")
    shoot(page, "dispute-form")
    article.get_by_role("button", name="Resolve this dispute").click()
    done = page.locator("#done")
    assert "Dispute upheld" in done.inner_text()
    done.get_by_role("link", name="Quinn's statement").click()
    correction = page.locator("tr.correction")
    assert correction.count() == 1, page.content()
    text = correction.inner_text()
    assert "R11.4" in text and "+5" in text and "Decided in the dispute about" in text
    shoot(page, "statement-with-correction")
    page.context.close()


def test_a_refused_resolution_shows_the_rule_on_the_page(browser: Any,
                                                         service: Service) -> None:
    page = signed_in(browser, service, WIDE)
    club = service.club
    assert club is not None
    page.goto(f"/web/deals/{club.deals[2]}")
    page.get_by_label("what went wrong").fill("Pat asks for a recount")
    page.get_by_role("button", name="Raise dispute").click()
    article = page.locator("article.dispute").filter(has_text="Pat asks for a recount")
    article.get_by_label("Upheld").check()
    article.get_by_label("Note").fill("move chips to the same account")
    article.get_by_label("Correction 1: from").select_option(label="Pat")
    article.get_by_label("to", exact=True).first.select_option(label="Pat")
    article.get_by_label("chips").first.fill("3")
    article.get_by_role("button", name="Resolve this dispute").click()
    alert = page.get_by_role("alert")
    assert "R11.4" in alert.inner_text() and "two different accounts" in alert.inner_text()
    shoot(page, "refused-resolution")
    page.context.close()


def test_pages_fit_a_phone_and_show_focus(browser: Any, service: Service) -> None:
    page = signed_in(browser, service, PHONE)
    club = service.club
    assert club is not None
    pages = {"balances": "/web/balances", "tables": "/web/tables",
             "table-phone": f"/web/tables/{club.table_id}",
             "deal-phone": f"/web/deals/{club.deals[1]}", "disputes-phone": "/web/disputes",
             "statement-phone": f"/web/players/{club.players['Quinn']}", "home": "/web/"}
    for name, path in pages.items():
        page.goto(path)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], f"{path} is {width}px wide at {PHONE['width']}px"
        if name.endswith("-phone"):
            shoot(page, name)
    assert page.outside == [] and page.errors == [], (page.outside, page.errors)
    # Keyboard: the first Tab reaches the skip link, with a visible focus ring.
    page.goto("/web/")
    page.keyboard.press("Tab")
    focused = page.evaluate("() => [document.activeElement.className, "
                            "getComputedStyle(document.activeElement).outlineStyle]")
    assert focused == ["skip", "solid"], focused
    page.context.close()
