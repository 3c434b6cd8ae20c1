"""The treasurer's web pages (/web) through the Flask test client, on both stores.

A module-scoped club per store: Bea banks a Shoot Pontoon table for Pat and Quinn from an
ordered pack (`TOP`), so the four deals below always play the same way (no pontoon, so
the pack is never reshuffled). Tests that change the ledger raise their own disputes.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from html.parser import HTMLParser
from typing import Any
from urllib.parse import parse_qs, urlsplit
from uuid import uuid4

import pytest
from flask.testing import FlaskClient

from tests.api.helpers import send_sign_in, sign_in_csrf
from tests.conftest import TREASURER_TOKEN, postgres_url
from tests.ledger_club import stacked_pack

Call = Callable[..., Any]  # (method, path, body, headers=None) -> JSON

# Seats Bea (banker), Pat, Quinn: each round is dealt Pat, Quinn, Bea (R3.4, R3.7), then
# players twist in turn. Everyone stakes 5 and shoots 2 in the first shoot round; a player
# sticks when allowed (15 or more), else twists; the banker stays.
DEALS = (
    # 1: Pat 10-9 (19) beats Bea 10-8 (18); Quinn 10-7 (17) loses.
    ("10H", "10S", "10D", "9H", "7S", "8D"),
    # 2: Pat 5-6-K (21) wins; Quinn 9-4-Q busts (R4.7, R9.7); Bea 10-7 (17) stays.
    ("5S", "9D", "10C", "6C", "4C", "7C", "KH", "QD"),
    # 3: Pat 8-8 (16) loses to Bea 9-7 (16); Quinn 2-3-4-5-6 is a five card trick.
    ("8H", "2D", "9S", "8S", "3D", "7H", "4D", "5D", "6D"),
    # 4: Pat J-7 (17) beats Bea Q-6 (16); Quinn 4-5-6 (15) loses.
    ("JD", "4H", "QH", "7D", "5H", "6S", "6H"),
)
TOP = tuple(card for deal in DEALS for card in deal)
KITTY, TOP_UP = 30, 10
STAKE, SHOOT = 5, 2


@dataclass
class Seeded:
    players: dict[str, str]  # name -> id
    tokens: dict[str, str]  # name -> the player's own token
    table_id: str
    deals: list[str]
    plain_table_id: str = ""
    head: int = 0


def play_deal(call: Call, table_id: str, tokens: dict[str, str]) -> str:
    """Start a deal and play it to settlement with the fixed policy above, each player with
    their own token (staff are not shown actions that depend on face-down cards)."""
    deal_id = call("POST", f"/v1/tables/{table_id}/deals", {})["id"]
    for _ in range(100):
        turn = call("GET", f"/v1/deals/{deal_id}", None)["turn"]
        if turn is None:
            return str(deal_id)
        own = {"Authorization": f"Bearer {tokens[turn['player_id']]}"}
        legal = call("GET", f"/v1/deals/{deal_id}/legal-actions", None, own)
        by_action = {item["action"]: item for item in legal["items"]}
        first = legal["items"][0]
        if "stake" in by_action:
            body: dict[str, Any] = {"action": "stake", "amount": STAKE}
        elif "decline" in by_action:
            body = {"action": "decline"}
        elif "pass" in by_action:
            body = {"action": "shoot", "amount": SHOOT} if "shoot" in by_action \
                else {"action": "pass"}
        elif "stay" in by_action:
            body = {"action": "stay"}
        elif "stick" in by_action:
            body = {"action": "stick"}
        else:
            body = {"action": "twist"}
        call("POST", f"/v1/deals/{deal_id}/actions",
             {**body, "player_id": first["player_id"], "hand": first["hand"]}, own)
    raise AssertionError(f"deal {deal_id} did not settle")


def seed(call: Call) -> Seeded:
    """Players with 100 chips each, the Shoot Pontoon table with a kitty of 30 (topped up
    by 10 before the third deal), four deals, and a plain Pontoon table beside it."""
    players, tokens = {}, {}
    for name in ("Bea", "Pat", "Quinn"):
        created = call("POST", "/v1/players", {"name": name})
        players[name], tokens[name] = created["id"], created["token"]
        call("POST", f"/v1/players/{created['id']}/buy-ins", {"amount": 100})
    seats = [players[n] for n in ("Bea", "Pat", "Quinn")]
    table = call("POST", "/v1/tables", {
        "name": "Friday school", "seats": seats, "banker": players["Bea"],
        "rules": {"shoot": True}, "pack": {"mode": "ordered", "cards": stacked_pack(TOP)}})
    call("POST", f"/v1/tables/{table['id']}/kitty", {"amount": KITTY})
    deals = []
    for number in range(len(DEALS)):
        if number == 2:  # the banker tops the kitty up between deals (R9.9)
            call("POST", f"/v1/tables/{table['id']}/kitty", {"amount": TOP_UP})
        deals.append(play_deal(call, table["id"],
                               {players[name]: tokens[name] for name in players}))
    plain = call("POST", "/v1/tables", {"name": "Side table", "seats": seats[:2],
                                        "banker": players["Bea"]})
    head = call("GET", "/v1/health", None)["position"]
    return Seeded(players, tokens, str(table["id"]), deals, str(plain["id"]), int(head))


# --- the app, the club and the browser-like client ---------------------------------------

def _close(services: Any) -> None:
    """Stop the projection thread before closing the store (as tests/api/helpers.py)."""
    services._stop.set()
    for thread in threading.enumerate():
        if thread.name == "projections" and thread is not threading.current_thread():
            thread.join(timeout=2)
    services.close()


@dataclass
class Site:
    client: FlaskClient
    club: Seeded

    def call(self, method: str, path: str, body: Any = None,
             headers: dict[str, str] | None = None) -> Any:
        response = self.client.open(path, method=method, json=body,
                                    headers=headers or TREASURER)
        assert response.status_code < 300, (path, response.status_code, response.get_json())
        return response.get_json()

    def browser(self) -> FlaskClient:
        """A client of its own (its own cookies), signed out."""
        return self.client.application.test_client()

    def head(self) -> int:
        """The position of the newest event: reads given it as `min_position` wait for the
        read models to apply everything recorded so far (an earlier test's commands too)."""
        return int(self.call("GET", "/v1/health")["position"])


TREASURER = {"Authorization": f"Bearer {TREASURER_TOKEN}"}


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def site(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
         ) -> Iterator[Site]:
    """One app and one seeded club per store for the whole module."""
    from api import create_app
    from application.store import migrate
    from config import Settings

    schema = None
    if request.param == "sqlite":
        path = tmp_path_factory.mktemp("web") / "ledger.sqlite3"
        settings = Settings(database_url=f"sqlite:///{path}")
    else:
        import psycopg

        url = postgres_url()
        schema = f"test_{uuid4().hex[:12]}"
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA "{schema}"')
        settings = Settings(database_url=f"{url}?schema={schema}", pool_size=2,
                            pool_overflow=10)
    # No signing key: never the checkout's var/signing-key (a `make run` makes one there).
    settings = replace(settings, signing_key_file=str(tmp_path_factory.mktemp("no-key") / "key"))
    migrate(settings)
    app = create_app(replace(settings, treasurer_token=TREASURER_TOKEN,
                             projections="in-process"))
    client = app.test_client()

    def call(method: str, path: str, body: Any, headers: dict[str, str] | None = None) -> Any:
        response = client.open(path, method=method, json=body, headers=headers or TREASURER)
        assert response.status_code < 300, (path, response.status_code, response.get_json())
        return response.get_json()

    club = seed(call)
    call("GET", f"/v1/balances?min_position={club.head}", None)
    yield Site(client, club)
    _close(app.extensions["pontoon"])
    if schema is not None:
        import psycopg

        with psycopg.connect(postgres_url(), autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


def sign_in(site: Site, token: str = TREASURER_TOKEN) -> FlaskClient:
    browser = site.browser()
    response = send_sign_in(browser, token, "/web/")
    assert response.status_code == 303, response.get_data(as_text=True)
    return browser


def page(browser: FlaskClient, path: str, status: int = 200) -> str:
    response = browser.get(path)
    text = response.get_data(as_text=True)
    assert response.status_code == status, (path, response.status_code, text[:2000])
    assert response.mimetype == "text/html", response.mimetype
    return text


def csrf(html: str) -> str:
    found = re.search(r'name="csrf" value="([0-9a-f]{64})"', html)
    assert found, "no form token on the page"
    return found.group(1)


def visible_text(html: str) -> str:
    """The page's text without tags, whitespace collapsed."""
    text = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    text = re.sub(r"<[^>]+>", " ", text)
    return re.sub(r"\s+", " ", text.replace("&#39;", "'").replace("&amp;", "&")).strip()


def rows_of(html: str, caption: str) -> list[list[str]]:
    """The body rows of the table with `caption` in its caption, as cell texts."""
    for table in re.findall(r"<table\b.*?</table>", html, flags=re.S):
        found = re.search(r"<caption\b[^>]*>(.*?)</caption>", table, flags=re.S)
        if found and caption in visible_text(found.group(1)):
            body = re.search(r"<tbody>(.*?)</tbody>", table, flags=re.S)
            assert body is not None
            return [[visible_text(cell) for cell in re.findall(
                r"<t[hd]\b[^>]*>(.*?)</t[hd]>", row, flags=re.S)]
                for row in re.findall(r"<tr\b.*?</tr>", body.group(1), flags=re.S)]
    raise AssertionError(f"no table captioned {caption!r}")


class Tags(HTMLParser):
    """Every start tag with its attributes, and the text inside each <label>."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {k: v or "" for k, v in attrs}))


def tags(html: str) -> list[tuple[str, dict[str, str]]]:
    parser = Tags()
    parser.feed(html)
    return parser.tags


# --- signing in and out ------------------------------------------------------------------

def test_pages_send_a_signed_out_visitor_to_sign_in(site: Site) -> None:
    browser = site.browser()
    response = browser.get("/web/balances")
    assert response.status_code == 302
    target = urlsplit(response.headers["Location"])
    assert target.path == "/web/sign-in"
    assert parse_qs(target.query)["next"] == ["/web/balances"]
    html = page(browser, "/web/sign-in?next=/web/balances")
    assert '<label for="token">Token</label>' in html
    assert re.search(r'<input id="token" name="token" type="password"', html)
    assert 'name="next" value="/web/balances"' in html


def test_the_treasurer_signs_in_with_a_strict_http_only_cookie_and_signs_out(
        site: Site) -> None:
    browser = site.browser()
    response = send_sign_in(browser, TREASURER_TOKEN, "/web/balances")
    assert response.status_code == 303 and response.headers["Location"] == "/web/balances"
    cookie = response.headers["Set-Cookie"]
    assert cookie.startswith("pontoon_web_token=")
    for flag in ("HttpOnly", "SameSite=Strict", "Path=/web"):
        assert flag in cookie, cookie
    html = page(browser, "/web/balances")
    assert "Balances" in html
    response = browser.post("/web/sign-out", data={"csrf": csrf(html)})
    assert response.status_code == 303
    assert "pontoon_web_token=;" in response.headers["Set-Cookie"]
    assert browser.get("/web/balances").status_code == 302
    assert "You have signed out" in page(browser, "/web/sign-in?signed_out=1")


def test_a_next_page_elsewhere_is_never_followed(site: Site) -> None:
    browser = site.browser()
    for target in ("https://elsewhere.example/", "//elsewhere.example/web/", "/v1/balances"):
        response = send_sign_in(browser, TREASURER_TOKEN, target)
        assert response.headers["Location"] == "/web/", target


@pytest.mark.parametrize("target", ["/web/balances\r\nSet-Cookie: x=1", "/web/\n",
                                    "/web/balances\x00", "/web/\x7f", "/web/\u2028"],
                         ids=["crlf", "newline", "nul", "delete", "line-separator"])
def test_a_next_page_with_a_control_character_falls_back_to_the_home_page(
        site: Site, target: str) -> None:
    browser = site.browser()

    response = send_sign_in(browser, TREASURER_TOKEN, target)
    form = browser.get("/web/sign-in", query_string={"next": target})

    assert response.status_code == 303 and response.headers["Location"] == "/web/"
    assert form.status_code == 200 and 'name="next" value="/web/"' in form.get_data(
        as_text=True)


def test_an_unknown_token_is_refused_on_the_form(site: Site) -> None:
    browser = site.browser()
    response = send_sign_in(browser, "pt_never_issued")
    assert response.status_code == 401 and response.mimetype == "text/html"
    assert "not known to the ledger" in response.get_data(as_text=True)
    assert "Set-Cookie" not in response.headers


def test_a_sign_in_posted_from_another_site_is_refused(site: Site) -> None:
    """Login CSRF: a form elsewhere cannot sign a visitor in with a token of its choosing;
    it can neither read the sign-in form's token nor set its cookie (SameSite=Strict)."""
    browser = site.browser()
    without = browser.post("/web/sign-in", data={"token": TREASURER_TOKEN})
    form = page(site.browser(), "/web/sign-in")  # another visitor's form token
    forged = browser.post("/web/sign-in", data={"token": TREASURER_TOKEN,
                                                "csrf": sign_in_csrf(form)})

    for response in (without, forged):
        assert response.status_code == 400 and "Reload the page" in response.get_data(
            as_text=True)
        assert "pontoon_web_token" not in response.headers.get("Set-Cookie", "")
    cookie = browser.get("/web/sign-in").headers.get("Set-Cookie", "")
    assert cookie == "" or all(flag in cookie for flag in ("HttpOnly", "SameSite=Strict"))


def test_signing_out_is_a_post_with_the_form_token(site: Site) -> None:
    browser = sign_in(site)

    by_link = browser.get("/web/sign-out")
    forged = browser.post("/web/sign-out", data={"csrf": "0" * 64})

    assert by_link.status_code in (404, 405)
    assert forged.status_code == 400
    assert page(browser, "/web/balances")  # still signed in


def test_a_player_signs_in_to_their_own_balance_statement_and_deals(site: Site) -> None:
    club = site.club
    browser = site.browser()
    response = send_sign_in(browser, club.tokens["Pat"])
    assert response.status_code == 303

    home = page(browser, "/web/")
    statement = page(browser, f"/web/players/{club.players['Pat']}")
    audit = page(browser, f"/web/deals/{club.deals[0]}")

    assert "Your balance" in home and f'href="/web/deals/{club.deals[0]}"' in home
    assert "Pat's statement" in statement
    assert "Verified" in audit and 'name="reason"' in audit
    for path in (f"/web/players/{club.players['Quinn']}", "/web/balances", "/web/tables",
                 "/web/disputes", "/web/players", "/web/reports/period"):
        assert page(browser, path, 403)
    assert 'href="/web/tables"' not in home  # no staff navigation for a player


def test_a_player_raises_a_dispute_about_their_deal_on_its_page(site: Site) -> None:
    club = site.club
    browser = site.browser()
    send_sign_in(browser, club.tokens["Quinn"])
    html = page(browser, f"/web/deals/{club.deals[1]}")

    response = browser.post(f"/web/deals/{club.deals[1]}/disputes",
                            data={"reason": "Quinn: my shoot bet went astray",
                                  "csrf": csrf(html)})

    assert response.status_code == 303
    assert "Dispute raised" in page(browser, response.headers["Location"])
    raised = [d for d in site.call("GET", "/v1/disputes?status=open&limit=500")["items"]
              if d["reason"] == "Quinn: my shoot bet went astray"]
    assert raised and raised[0]["raised_by"] == f"player:{club.players['Quinn']}"


def test_a_player_cannot_read_a_deal_they_did_not_play(site: Site) -> None:
    created = site.call("POST", "/v1/players", {"name": "Outsider"})
    browser = site.browser()
    send_sign_in(browser, created["token"])

    html = page(browser, f"/web/deals/{site.club.deals[0]}", 403)

    assert "deals they played in" in html


def test_an_operator_reads_tables_and_audits_but_not_money_pages(site: Site) -> None:
    created = site.call("POST", "/v1/tokens", {"role": "operator"})
    browser = sign_in(site, created["token"])
    home = page(browser, "/web/")
    assert "/web/tables" in home and "/web/balances" not in home
    assert "Friday school" in page(browser, "/web/tables")
    assert "Verified" in page(browser, f"/web/deals/{site.club.deals[0]}")
    for path in ("/web/balances", "/web/disputes", "/web/players", "/web/reports/period"):
        assert "this page is for the treasurer only" in page(browser, path, 403)
    assert "for the treasurer and for the player it belongs to" in page(
        browser, f"/web/players/{site.club.players['Pat']}", 403)
    # An operator raises a dispute from the deal page, but resolving is the treasurer's.
    html = page(browser, f"/web/deals/{site.club.deals[3]}")
    response = browser.post(f"/web/deals/{site.club.deals[3]}/disputes",
                            data={"reason": "the operator saw a card drop", "csrf": csrf(html)})
    assert response.status_code == 303
    assert "Dispute raised" in page(browser, response.headers["Location"])
    dispute = [d for d in site.call("GET", "/v1/disputes?status=open")["items"]
               if d["reason"] == "the operator saw a card drop"][0]
    response = browser.post(f"/web/disputes/{dispute['id']}/resolution",
                            data={"decision": "rejected", "note": "no", "csrf": csrf(html)})
    assert response.status_code == 403


# --- what each page shows ---------------------------------------------------------------

def test_the_home_page_links_every_page(site: Site) -> None:
    html = page(sign_in(site), "/web/")
    for path in ("/web/balances", "/web/tables", "/web/disputes"):
        assert f'href="{path}"' in html


def test_balances_list_every_account_with_a_zero_total_and_the_debts(site: Site) -> None:
    browser = sign_in(site)
    head = site.head()
    balances = site.call("GET", f"/v1/balances?min_position={head}")
    html = page(browser, f"/web/balances?min_position={head}")
    rows = {row[0]: row for row in rows_of(html, "Account balances")}
    for account in balances["accounts"]:
        if account["kind"] == "player":
            assert rows[account["name"]][2].split()[0] == str(account["balance"]) \
                .replace("-", "−")
    assert rows["kitty of Friday school"][2] == "40"
    assert rows["the treasury"][2] == "−300"
    assert re.search(r'<td class="n" id="total"><span class="num">0</span></td>', html)
    assert "balanced" in visible_text(html)
    debts = sum(a["balance"] for a in balances["accounts"]
                if a["kind"] == "player" and a["balance"] < 0)
    shown = re.search(r'id="debts"><span class="num[^"]*">([^<]+)</span>', html)
    assert shown and shown.group(1) == ("0" if debts == 0 else f"−{-debts}")


def test_a_debt_is_highlighted_on_the_balances_page(site: Site) -> None:
    """A correction may leave a debt when its resolution allows it (R11.4's Decision,
    R11.3): Pat cashes out every chip, then a correction takes 5 more."""
    club = site.club
    pat = club.players["Pat"]
    held = site.call("GET", f"/v1/players/{pat}")["balance"]
    if held > 0:
        site.call("POST", f"/v1/players/{pat}/cash-outs", {"amount": held})
    raised = site.call("POST", f"/v1/deals/{club.deals[0]}/disputes",
                       {"reason": "a debt for the balances page"})
    done = site.call("POST", f"/v1/disputes/{raised['id']}/resolution", {
        "decision": "upheld", "note": "Pat owes the treasury", "allow_debt": True,
        "corrections": [{"from_account": f"player:{pat}", "to_account": "treasury",
                         "amount": 5}]})
    html = page(sign_in(site), f"/web/balances?min_position={done['position']}")
    debt_rows = re.findall(r'<tr class="debt">(.*?)</tr>', html, flags=re.S)
    assert any(">Pat<" in row and "debt" in visible_text(row) for row in debt_rows)
    debts = sum(a["balance"] for a in site.call("GET", "/v1/balances")["accounts"]
                if a["kind"] == "player" and a["balance"] < 0)
    assert debts < 0
    assert re.search(rf'id="debts"><span class="num negative">−{-debts}</span>', html)
    assert re.search(r'<td class="n" id="total"><span class="num">0</span></td>', html)
    # Give the chips back so the other tests see the club as it was.
    back = site.call("POST", f"/v1/deals/{club.deals[0]}/disputes", {"reason": "undo"})
    site.call("POST", f"/v1/disputes/{back['id']}/resolution", {
        "decision": "upheld", "note": "undo", "corrections": [
            {"from_account": "treasury", "to_account": f"player:{pat}", "amount": 5}]})
    if held > 0:
        site.call("POST", f"/v1/players/{pat}/buy-ins", {"amount": held})


def test_a_statement_shows_each_posting_with_its_running_balance(
        site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    quinn = site.club.players["Quinn"]
    api = site.call("GET", f"/v1/players/{quinn}/statement?limit=500")["items"]
    browser = sign_in(site)
    html = page(browser, f"/web/players/{quinn}")
    assert "<h1>Quinn's statement</h1>" in html
    rows = rows_of(html, "Every posting on Quinn")
    assert len(rows) == len(api)
    first = rows[0]
    assert first[1:5] == ["+100", "100", "R11.1", "the treasurer issues 100 chips to Quinn"]
    for row, item in zip(rows, api, strict=True):
        assert row[2] == str(item["balance"]).replace("-", "−")
        assert row[3] == item["rule"]
    assert "Friday school, deal 3" in html  # the deals are named, and link to their audits
    assert f'href="/web/deals/{site.club.deals[2]}"' in html
    # Paging: `after` continues from a position, the balance brought forward first.
    monkeypatch.setattr("api.web.pages.balances.PAGE", 3)
    html = page(browser, f"/web/players/{quinn}")
    assert len(rows_of(html, "Every posting on Quinn")) == 3
    next_link = re.search(r'href="(/web/players/[^"]+after=(\d+))" rel="next"', html)
    assert next_link and int(next_link.group(2)) == api[2]["position"]
    html = page(browser, next_link.group(1).replace("&amp;", "&"))
    rows = rows_of(html, "Every posting on Quinn")
    assert [r[2] for r in rows] == [str(i["balance"]) for i in api[3:6]]
    assert re.search(rf"Brought forward</dt><dd><span class=\"num\">{api[2]['balance']}<",
                     html)


def test_the_tables_page_lists_every_table(site: Site) -> None:
    html = page(sign_in(site), "/web/tables")
    rows = rows_of(html, "Every table, the last opened first")
    assert [r[:5] for r in rows] == [["Side table", "Pontoon", "Bea", "no kitty", "0"],
                                     ["Friday school", "Shoot Pontoon", "Bea", "40", "4"]]
    assert f'href="/web/tables/{site.club.table_id}"' in html


def test_a_table_page_shows_seats_banker_kitty_chart_history_and_deals(site: Site) -> None:
    club = site.club
    html = page(sign_in(site), f"/web/tables/{club.table_id}")
    seats = re.search(r'<ol class="seats">(.*?)</ol>', html, flags=re.S)
    assert seats is not None
    items = re.findall(r"<li( class=\"banker\")?>(.*?)</li>", seats.group(1), flags=re.S)
    assert [visible_text(text) for _, text in items] == ["Bea banker", "Pat", "Quinn"]
    assert items[0][0] and not items[1][0]
    assert "<dt>Kitty</dt><dd><span class=\"num\">40</span></dd>" in html
    history = site.call("GET", f"/v1/tables/{club.table_id}/kitty-history")["items"]
    rows = list(reversed(rows_of(html, "Changes of the kitty, newest first")))
    assert [r[2] for r in rows] == [str(h["kitty_after"]) for h in history]
    assert [r[3] for r in rows] == [h["rule"] for h in history]
    assert rows[0][1] == "+30" and rows[5][1] == "+10" and rows[5][3] == "R9.9"
    # The chart: an accessible SVG with one point per change, axes and labels.
    svg = re.search(r"<svg\b.*?</svg>", html, flags=re.S)
    assert svg is not None
    chart = svg.group(0)
    assert 'role="img"' in chart and 'aria-labelledby="kitty-chart-title kitty-chart-desc"' \
        in chart
    assert '<title id="kitty-chart-title">Kitty of Friday school' in chart
    assert chart.count('<circle class="point"') == len(history)
    assert "Chips in the kitty" in chart and "Change number" in chart
    assert 'class="series"' in chart
    # Every deal links to its audit, newest first.
    deals = rows_of(html, "Deals 4 to 1, newest first")
    assert [r[0] for r in deals] == ["4", "3", "2", "1"]
    for deal_id in club.deals:
        assert f'href="/web/deals/{deal_id}"' in html


def test_a_plain_pontoon_table_has_no_kitty(site: Site) -> None:
    html = page(sign_in(site), f"/web/tables/{site.club.plain_table_id}")
    assert "<svg" not in html and "has no kitty (R9.12)" in html
    assert "No deals yet." in html


def test_a_deal_audit_is_a_readable_timeline_with_cards_payments_and_verification(
        site: Site) -> None:
    club = site.club
    audit = site.call("GET", f"/v1/deals/{club.deals[1]}/audit")
    html = page(sign_in(site), f"/web/deals/{club.deals[1]}")
    text = visible_text(html)
    assert "Audit of deal 2 at Friday school" in text
    assert "Verified" in text
    for check in ("Replayed: yes", "Chips conserved: yes", "Differences: none"):
        assert check in text
    # The timeline: one item per event, with time, player and what they did.
    items = re.findall(r'<li class="event ev-(\w+)">(.*?)</li>', html, flags=re.S)
    assert len(items) == len(audit["timeline"])
    said = [visible_text(body) for _, body in items]
    assert any("Pat stakes 5" in s for s in said)
    assert any("Quinn is bust" in s for s in said)
    assert any("Pat shoots 2 against the kitty in the first shoot round" in s for s in said)
    assert any("The deal is settled: the banker holds 10-7 (17)" in s for s in said)
    assert all(re.search(r"\d\d:\d\d:\d\d #\d+", s) for s in said)
    # Cards drawn as cards: rank and suit symbol, red for hearts and diamonds.
    assert ('<span class="card red" role="img" aria-label="king of hearts">'
            '<span class="rank" aria-hidden="true">K</span>'
            '<span class="suit" aria-hidden="true">♥</span></span>') in html
    assert 'aria-label="five of spades, dealt face down"' in html or \
        'aria-label="5 of spades, dealt face down"' in html
    assert re.search(r'class="card[^"]*"[^>]*aria-label="10 of clubs', html)
    assert "♦" in html and "♣" in html and "♠" in html
    # Every payment with its rule and explanation.
    rows = rows_of(html, "Every posting of this deal")
    assert len(rows) == len(audit["postings"])
    for row, posting in zip(rows, audit["postings"], strict=True):
        assert row[2] == str(posting["amount"]) and row[3] == posting["rule"]
        assert row[4] == posting["reason"]
    assert {r[3] for r in rows} >= {"R3.5", "R9.3", "R4.7", "R9.7", "R7.2", "R9.8"}
    assert ["the stakes on the table", "kitty of Friday school"] in [r[:2] for r in rows]
    # The pack and the hands at settlement.
    assert "Commitment (SHA-256 of the seed" in text
    results = rows_of(html, "Each hand at settlement")
    assert [r[0] for r in results] == ["Pat", "Quinn", "Bea banker"]
    assert [r[4] for r in results] == ["win", "bust", "holds"]


def test_an_open_deal_shows_face_down_cards_as_card_backs(site: Site) -> None:
    club = site.club
    site.call("POST", f"/v1/tables/{club.plain_table_id}/deals", {})
    deal_id = site.call("GET", f"/v1/tables/{club.plain_table_id}")["deal_id"]
    head = site.call("GET", "/v1/health")["position"]
    html = page(sign_in(site), f"/web/deals/{deal_id}?min_position={head}")
    back = '<span class="card back" role="img" aria-label="a face-down card">'
    assert html.count(back) == 4  # Pat's and Bea's first cards, in the hands and the timeline
    hands = re.search(r'<ul class="hands">(.*?)</ul>', html, flags=re.S)
    assert hands and hands.group(1).count(back) == 2
    assert "open" in visible_text(html)
    assert "Each hand at settlement" not in html
    # A shuffled pack: its commitment is shown; the seed only after the next shuffle (R1.7).
    commitment = site.call("GET", f"/v1/tables/{club.plain_table_id}")["pack"]["commitment"]
    assert re.fullmatch(r"[0-9a-f]{64}", commitment)
    assert f'<code class="hash">{commitment}</code>' in html
    assert "not revealed yet: it is revealed at the table's next shuffle (R1.7)" in \
        visible_text(html)


def test_a_dispute_raised_and_resolved_on_the_pages_corrects_the_statement(
        site: Site) -> None:
    club = site.club
    browser = sign_in(site)
    html = page(browser, f"/web/deals/{club.deals[0]}")
    assert '<label for="reason">' in html
    response = browser.post(f"/web/deals/{club.deals[0]}/disputes", data={
        "reason": "Quinn says Bea stayed before Quinn stuck", "csrf": csrf(html)})
    assert response.status_code == 303
    location = response.headers["Location"]
    assert location.startswith("/web/disputes?") and "min_position=" in location
    html = page(browser, location)
    assert "Dispute raised" in html
    articles = re.findall(r'<article class="dispute" id="d-([0-9a-f-]{36})"(.*?)</article>',
                          html, flags=re.S)
    [(dispute_id, article)] = [a for a in articles if "Quinn says Bea stayed" in a[1]]
    assert "Raised" in article and "by the treasurer" in visible_text(article)
    for name in ("decision", "note", "from_1", "to_1", "amount_1"):
        assert f'name="{name}"' in article
    response = browser.post(f"/web/disputes/{dispute_id}/resolution", data={
        "csrf": csrf(html), "decision": "upheld", "note": "Bea refunds Quinn's stake",
        "from_1": f"player:{club.players['Bea']}", "to_1": f"player:{club.players['Quinn']}",
        "amount_1": "5", "from_2": "", "to_2": "", "amount_2": ""})
    assert response.status_code == 303
    location = response.headers["Location"]
    assert "resolved=" + dispute_id in location and "min_position=" in location
    html = page(browser, location)
    done = re.search(r'<div class="alert ok" role="status" id="done">(.*?)</div>', html,
                     flags=re.S)
    assert done and "Dispute upheld" in done.group(1)
    assert "5 chips from Bea to Quinn" in visible_text(done.group(1))
    link = re.search(r'href="(/web/players/' + club.players["Quinn"] +
                     r'\?min_position=\d+)#statement-caption">Quinn\'s statement', html)
    assert link, done.group(1)
    statement = page(browser, link.group(1))
    rows = rows_of(statement, "Every posting on Quinn")
    [correction] = [r for r in rows if r[3].startswith("R11.4")]
    assert correction[1] == "+5" and correction[5] == "Bea"
    # The row names the disputed deal, which it links to, never the dispute's raw id.
    assert correction[4] == ("Decided in the dispute about Friday school, deal 1: "
                             "Bea refunds Quinn's stake")
    assert correction[6] == "Friday school, deal 1" and dispute_id not in visible_text(statement)
    assert f'/web/deals/{club.deals[0]}#dispute-{dispute_id}"' in statement
    assert '<tr id="p' in statement and 'class="correction"' in statement
    # The dispute is listed as resolved, and on its deal's page.
    resolved = rows_of(page(browser, "/web/disputes"), "resolved, newest first")
    assert any("Quinn says Bea stayed" in r[1] and r[2] == "upheld" for r in resolved)
    assert "upheld" in visible_text(page(browser, f"/web/deals/{club.deals[0]}"))


def test_a_refused_resolution_shows_the_rule_on_the_page_not_json(site: Site) -> None:
    club = site.club
    raised = site.call("POST", f"/v1/deals/{club.deals[2]}/disputes",
                       {"reason": "a recount"})
    browser = sign_in(site)
    html = page(browser, "/web/disputes?min_position=" + str(raised["position"]))
    pat = f"player:{club.players['Pat']}"
    form = {"csrf": csrf(html), "decision": "upheld", "note": "same account",
            "from_1": pat, "to_1": pat, "amount_1": "3"}
    response = browser.post(f"/web/disputes/{raised['id']}/resolution", data=form)
    text = response.get_data(as_text=True)
    assert response.status_code == 422 and response.mimetype == "text/html"
    problem = re.search(r'<div class="alert error error-summary" role="alert" id="problem" '
                        r'tabindex="-1" autofocus>(.*?)</div>', text, flags=re.S)
    assert problem, text
    assert "Refused: rule R11.4" in visible_text(problem.group(1))
    assert "two different accounts" in problem.group(1)
    # The form keeps what was entered, on the dispute that failed.
    assert 'value="3"' in text and "same account</textarea>" in text
    # A correction's amount that is no number: the summary links to the field, which is
    # marked invalid and described by its own message.
    response = browser.post(f"/web/disputes/{raised['id']}/resolution",
                            data={**form, "amount_1": "three"})
    text = response.get_data(as_text=True)
    amount = re.search(r'<input id="(d\d+-amount-1)"[^>]*aria-invalid[^>]*>', text)
    assert response.status_code == 400 and amount, text
    field = amount.group(1)
    assert f'<a href="#{field}">Correction 1: the amount must be a whole number' in text
    assert f'aria-invalid="true" aria-describedby="{field}-error"' in amount.group(0)
    assert f'<p class="field-error" id="{field}-error">Correction 1:' in text
    assert 'value="three"' in text
    # Amounts: zero is refused by the ledger (R11.4); words are refused by the form.
    response = browser.post(f"/web/disputes/{raised['id']}/resolution",
                            data={**form, "to_1": "treasury", "amount_1": "0"})
    assert response.status_code == 422 and "R11.4" in response.get_data(as_text=True)
    response = browser.post(f"/web/disputes/{raised['id']}/resolution",
                            data={**form, "amount_1": "five"})
    assert response.status_code == 400
    assert "whole number of chips" in response.get_data(as_text=True)
    response = browser.post(f"/web/disputes/{raised['id']}/resolution",
                            data={**form, "decision": "rejected"})
    assert response.status_code == 422
    assert "a rejected dispute makes no corrections" in response.get_data(as_text=True)
    # Nothing was recorded: the dispute is still open.
    assert raised["id"] in page(browser, "/web/disputes")
    response = browser.post(f"/web/disputes/{raised['id']}/resolution",
                            data={"csrf": csrf(html), "decision": "rejected",
                                  "note": "nothing wrong"})
    assert response.status_code == 303
    # Resolving it again is refused with the reason in sight, both while the read models
    # still show it open and once they show it resolved (its form is gone by then).
    again = browser.post(f"/web/disputes/{raised['id']}/resolution",
                         data={"csrf": csrf(html), "decision": "rejected", "note": "twice"})
    assert again.status_code == 409 and "already resolved" in again.get_data(as_text=True)
    assert "nothing wrong" in page(browser, response.headers["Location"])  # caught up
    again = browser.post(f"/web/disputes/{raised['id']}/resolution",
                         data={"csrf": csrf(html), "decision": "rejected", "note": "twice"})
    text = again.get_data(as_text=True)
    assert again.status_code == 409
    problem = re.search(r'<div class="alert error error-summary" role="alert" id="problem" '
                        r'tabindex="-1" autofocus>(.*?)</div>', text, flags=re.S)
    assert problem and "already resolved" in problem.group(1), text


def test_a_deal_page_shows_its_disputes_corrections_and_net_result(site: Site) -> None:
    """The deal page shows each dispute, its resolution and its correcting postings, and
    each account's net result after them (R11.4); the resolution form offers only the
    deal's accounts and the treasury, and a box to allow a debt (R11.4's Decision)."""
    club = site.club
    bea, quinn = club.players["Bea"], club.players["Quinn"]
    raised = site.call("POST", f"/v1/deals/{club.deals[1]}/disputes",
                       {"reason": "recount of deal two"})
    browser = sign_in(site)
    queue = page(browser, f"/web/disputes?min_position={raised['position']}")
    [article] = re.findall(r'<article class="dispute" id="d-' + raised["id"] +
                           r'"(.*?)</article>', queue, flags=re.S)
    assert 'name="allow_debt"' in article
    offered = set(re.findall(r'<option value="([^"]+)"', article))
    assert "treasury" in offered and f"player:{bea}" in offered
    assert not any(o.startswith("kitty:") and site.club.table_id not in o for o in offered)

    done = site.call("POST", f"/v1/disputes/{raised['id']}/resolution", {
        "decision": "upheld", "note": "Bea pays Quinn one chip", "corrections": [
            {"from_account": f"player:{bea}", "to_account": f"player:{quinn}", "amount": 1}]})
    html = page(browser, f"/web/deals/{club.deals[1]}?min_position={done['position']}")

    text = visible_text(html)
    assert "recount of deal two" in text and "Note: Bea pays Quinn one chip" in text
    assert "1 chips from Bea to Quinn" in text
    net = {row[0]: row[1] for row in rows_of(html, "net result of the deal")}
    assert {"Bea", "Quinn", "Pat"} <= net.keys(), net
    # Give the chip back so the other tests see the club as it was.
    back = site.call("POST", f"/v1/deals/{club.deals[1]}/disputes", {"reason": "undo"})
    site.call("POST", f"/v1/disputes/{back['id']}/resolution", {
        "decision": "upheld", "note": "undo", "corrections": [
            {"from_account": f"player:{quinn}", "to_account": f"player:{bea}", "amount": 1}]})


def test_a_deal_at_an_ordered_table_says_it_is_not_a_fair_shuffle(site: Site) -> None:
    """API.md Additions: the pages say "ordered pack: not a fair shuffle"."""
    browser = sign_in(site)

    deal = visible_text(page(browser, f"/web/deals/{site.club.deals[0]}"))
    table = visible_text(page(browser, f"/web/tables/{site.club.table_id}"))

    assert "ordered pack: not a fair shuffle" in deal.lower()
    assert "ordered pack: not a fair shuffle" in table.lower()


def test_a_form_without_its_form_token_is_refused(site: Site) -> None:
    browser = sign_in(site)
    response = browser.post(f"/web/deals/{site.club.deals[0]}/disputes",
                            data={"reason": "from another site"})
    assert response.status_code == 400
    assert "Reload the page" in response.get_data(as_text=True)


def test_an_empty_dispute_reason_is_shown_on_the_deal_page(site: Site) -> None:
    browser = sign_in(site)
    html = page(browser, f"/web/deals/{site.club.deals[0]}")
    response = browser.post(f"/web/deals/{site.club.deals[0]}/disputes",
                            data={"reason": "  ", "csrf": csrf(html)})
    text = response.get_data(as_text=True)
    assert response.status_code == 400 and "Write the reason for the dispute" in text
    assert 'aria-invalid="true"' in text


def test_a_dispute_reason_with_a_nul_is_refused_on_the_deal_page(site: Site) -> None:
    """The pages check text as the API does (decision 32): nothing is recorded."""
    browser = sign_in(site)
    html = page(browser, f"/web/deals/{site.club.deals[0]}")
    head = site.call("GET", "/v1/health")["position"]

    response = browser.post(f"/web/deals/{site.club.deals[0]}/disputes",
                            data={"reason": "x\x00y", "csrf": csrf(html)})

    assert response.status_code == 422
    assert "control character" in response.get_data(as_text=True)
    assert site.call("GET", "/v1/health")["position"] == head


def test_a_page_the_read_models_have_not_reached_says_so(
        site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    from api.services import ProjectionsBehind

    services = site.client.application.extensions["pontoon"]

    def behind(min_position: int | None, timeout: float = 5.0) -> None:
        if min_position is not None:
            raise ProjectionsBehind(f"the read models have not reached position "
                                    f"{min_position} yet; try again shortly")
    monkeypatch.setattr(services, "caught_up", behind)
    response = sign_in(site).get("/web/balances?min_position=999999")
    assert response.status_code == 503 and response.mimetype == "text/html"
    assert response.headers["Retry-After"] == "1"
    text = visible_text(response.get_data(as_text=True))
    assert "have not reached position 999999 yet" in text and "Try again" in text


def test_unknown_things_are_404_pages(site: Site) -> None:
    browser = sign_in(site)
    for path in (f"/web/deals/{uuid4()}", f"/web/tables/{uuid4()}",
                 f"/web/players/{uuid4()}", "/web/nowhere"):
        assert "Not found" in page(browser, path, 404), path
    assert "must be a whole number" in page(browser, "/web/balances?min_position=x", 400)


# --- every page: no outside addresses, accessible structure, out of the API spec ---------

def every_page(site: Site) -> dict[str, str]:
    club = site.club
    return {"sign-in": "/web/sign-in", "home": "/web/", "balances": "/web/balances",
            "statement": f"/web/players/{club.players['Quinn']}", "tables": "/web/tables",
            "table": f"/web/tables/{club.table_id}",
            "plain": f"/web/tables/{club.plain_table_id}",
            "deal": f"/web/deals/{club.deals[1]}", "disputes": "/web/disputes"}


def test_no_page_names_another_host(site: Site) -> None:
    browser = sign_in(site)
    for name, path in every_page(site).items():
        html = page(browser, path)
        outside = re.findall(r"(?:https?:)?//[a-z0-9.-]+", html, flags=re.I)
        assert outside == [], (name, outside)
        for _, attrs in tags(html):
            for attr in ("href", "src", "action"):
                value = attrs.get(attr)
                if value is not None:
                    # The verifier (/verify/) is the site's own page, outside /web.
                    assert value.startswith(("/web/", "#", "/verify/")), (name, attr, value)
    with browser.get("/web/static/style.css") as css:
        assert css.status_code == 200 and css.mimetype == "text/css"
        text = css.get_data(as_text=True)
    assert "http" not in text and "@import" not in text and "url(" not in text


def test_every_page_is_labelled_and_structured_for_assistive_technology(site: Site) -> None:
    browser = sign_in(site)
    for name, path in every_page(site).items():
        html = page(browser, path)
        found = tags(html)
        names = [tag for tag, _ in found]
        assert re.match(r'<!doctype html>\s*<html lang="en">', html), name
        assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in html
        assert names.count("h1") == 1, name
        assert names.count("main") == 1 and "header" in names and "footer" in names, name
        assert 'href="#main"' in html, name  # the skip link
        labels = {attrs.get("for") for tag, attrs in found if tag == "label"}
        for tag, attrs in found:
            if tag in ("input", "select", "textarea") and \
                    attrs.get("type") not in ("hidden", "radio"):
                assert attrs.get("id") in labels, (name, tag, attrs)
            if tag == "th":
                assert attrs.get("scope") in ("col", "row"), (name, attrs)
            if tag == "img":
                assert "alt" in attrs, (name, attrs)
        # Radio buttons are labelled by the <label> around them, in a <fieldset>/<legend>.
        radios = [a for t, a in found if t == "input" and a.get("type") == "radio"]
        assert len(re.findall(r'<label><input type="radio"[^>]*> \w+</label>', html)) \
            == len(radios), name
        assert names.count("fieldset") == names.count("legend"), name
        assert "<table" not in html or "<caption" in html, name


def test_the_pages_stay_out_of_the_api_description(site: Site) -> None:
    spec = site.client.get("/openapi.json").get_json()
    assert not [path for path in spec["paths"] if path.startswith("/web")]


def test_the_pages_are_not_cached_and_allow_no_script(site: Site) -> None:
    response = sign_in(site).get("/web/balances")
    assert response.headers["Cache-Control"] == "no-store"
    policy = response.headers["Content-Security-Policy"]
    assert "default-src 'self'" in policy and "script-src 'none'" in policy
    assert "<script" not in response.get_data(as_text=True)
