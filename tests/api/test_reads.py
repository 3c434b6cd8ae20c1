"""The projection-backed reads over HTTP, on both stores (API.md: statement, balances,
kitty history, disputes, the event feed, `min_position`, health).

Every read of our own writes passes `min_position=<position of the last command>`, as a client
of the API must (read-your-writes). One app per store serves a whole module: each test builds
its own players and tables, so they do not see each other's chips. The audits are in
test_reads_audit.py, which uses the `Api` client and the games built here.
"""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta, timezone
from typing import Any
from uuid import uuid4

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.conftest import TREASURER_TOKEN, postgres_url
from tests.ledger_club import stacked_pack

PROBLEM = "application/problem+json"
TREASURER = {"Authorization": f"Bearer {TREASURER_TOKEN}"}
NOBODY: dict[str, str] = {}
FAR_AHEAD = 2**40
RULE_ID = r"^R\d+(\.\d+)*$"
EVERY_ACCOUNT: dict[str, Any] = {"kind": "player,kitty,treasury,escrow", "limit": 500}

# Bea banks; the first round goes Pat, Quinn, Bea, the second the same (R3.4, R3.7).
# Pat 10-9 (19) and Quinn 10-7 (17) stick, Bea stays on 10-8 (18): Pat wins, Quinn loses.
PLAIN_TOP = ("10H", "10S", "10D", "9H", "7S", "8D")
# As PLAIN_TOP, but Pat holds 10-2 (12) and twists a 5S face up (17) before sticking.
TWIST_TOP = ("10H", "10S", "10D", "2H", "7S", "8D", "5S")


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def parse_time(text: str) -> datetime:
    """RFC 3339 with an offset (API.md: times are RFC 3339 UTC)."""
    when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    assert when.tzinfo is not None and when.utcoffset() == timedelta(0), text
    return when


def assert_problem(answer: Any, status: int, rule: str | None = None) -> dict[str, Any]:
    text = answer.get_data(as_text=True)
    assert answer.status_code == status, text
    assert answer.mimetype == PROBLEM, (answer.mimetype, text)
    body = answer.get_json()
    assert {"type", "title", "status", "detail"} <= body.keys(), body
    assert body["status"] == status, body
    if rule is not None:
        assert body.get("rule") == rule, body
    return body  # type: ignore[no-any-return]


@dataclass(frozen=True)
class Player:
    id: str
    name: str
    headers: dict[str, str]

    @property
    def account(self) -> str:
        return f"player:{self.id}"


class Api:
    """The API as another app uses it, remembering the position of its last command."""

    def __init__(self, app: Flask, store: str) -> None:
        self.app, self.store = app, store
        self.client: FlaskClient = app.test_client()
        self.position = self.tables = 0
        self.operator = bearer(self.post("/v1/tokens", {"role": "operator"}, status=201)["token"])

    # --- plumbing -----------------------------------------------------------------------

    def post(self, path: str, body: dict[str, Any], headers: dict[str, str] = TREASURER,
             status: int = 200) -> dict[str, Any]:
        """A command that must succeed; its `position` becomes the next reads' minimum."""
        answer = self.client.post(path, json=body, headers=headers)
        assert answer.status_code == status, \
            f"POST {path} {body}: {answer.status_code} {answer.get_data(as_text=True)}"
        data: dict[str, Any] = answer.get_json()
        assert isinstance(data.get("position"), int), f"POST {path}: no position in {data}"
        self.position = max(self.position, data["position"])
        return data

    def attempt(self, path: str, body: dict[str, Any], headers: dict[str, str]) -> Any:
        """A command that may be refused: the answer as it comes."""
        answer = self.client.post(path, json=body, headers=headers)
        if answer.status_code < 300:
            self.position = max(self.position, answer.get_json()["position"])
        return answer

    def get(self, path: str, headers: dict[str, str] = TREASURER, **query: Any
            ) -> dict[str, Any]:
        """A read that must succeed, of our own writes (`min_position` = our last command)."""
        answer = self.read(path, headers, **query)
        assert answer.status_code == 200, f"GET {path} {query}: {answer.status_code} " \
                                          f"{answer.get_data(as_text=True)}"
        assert answer.mimetype == "application/json"
        return answer.get_json()  # type: ignore[no-any-return]

    def read(self, path: str, headers: dict[str, str] = TREASURER, **query: Any) -> Any:
        query.setdefault("min_position", self.position)
        return self.client.get(path, query_string=query, headers=headers)

    def head(self) -> int:
        return int(self.get("/v1/health", TREASURER)["position"])

    def pages(self, path: str, limit: int, headers: dict[str, str] = TREASURER,
              after: int = 0) -> list[list[dict[str, Any]]]:
        """Follow `next` from `after` until it is null; every page's items."""
        pages = []
        for _ in range(10_000):
            page = self.get(path, headers, after=after, limit=limit)
            assert set(page) >= {"items", "next"}, page
            assert len(page["items"]) <= limit
            pages.append(page["items"])
            if page["next"] is None:
                return pages
            assert isinstance(page["next"], int) and page["next"] > after, (after, page["next"])
            after = page["next"]
        raise AssertionError(f"{path}: `next` never ran out")

    # --- the club -----------------------------------------------------------------------

    def player(self, name: str, chips: int = 100) -> Player:
        created = self.post("/v1/players", {"name": name}, status=201)
        assert created["name"] == name and created["token"]
        player = Player(created["id"], name, bearer(created["token"]))
        if chips:
            self.buy_in(player, chips)
        return player

    def buy_in(self, player: Player, amount: int) -> dict[str, Any]:
        return self.post(f"/v1/players/{player.id}/buy-ins", {"amount": amount}, status=201)

    def cash_out(self, player: Player, amount: int) -> dict[str, Any]:
        return self.post(f"/v1/players/{player.id}/cash-outs", {"amount": amount}, status=201)

    def table(self, seats: Sequence[Player], *, rules: dict[str, Any] | None = None,
              top: Sequence[str] = (), pack: dict[str, Any] | None = None) -> dict[str, Any]:
        """The first seat banks; the pack is `top` then a new pack's order (R1.7)."""
        self.tables += 1  # open tables have unique names (decision 143)
        name = "Friday school" if self.tables == 1 else f"Friday school {self.tables}"
        body: dict[str, Any] = {"name": name, "seats": [p.id for p in seats],
                                "banker": seats[0].id, "rules": rules or {},
                                "pack": pack or {"mode": "ordered",
                                                 "cards": stacked_pack(top)}}
        # Only the treasurer opens a table with an ordered pack (API.md Additions).
        return self.post("/v1/tables", body, TREASURER, status=201)

    def start(self, table_id: str) -> dict[str, Any]:
        return self.post(f"/v1/tables/{table_id}/deals", {}, self.operator, status=201)

    def act(self, deal_id: str, who: Player, action: str, **body: Any) -> dict[str, Any]:
        return self.post(f"/v1/deals/{deal_id}/actions",
                         {"player_id": who.id, "action": action, **body}, who.headers)

    def statement(self, player: Player, headers: dict[str, str] = TREASURER
                  ) -> list[dict[str, Any]]:
        [page] = self.pages(f"/v1/players/{player.id}/statement", 500, headers)
        return page

    def balances(self) -> dict[str, int]:
        found = self.get("/v1/balances", **EVERY_ACCOUNT)
        return {row["account"]: row["balance"] for row in found["accounts"]}


@dataclass
class Trio:
    """Bea banks for Pat and Quinn (clockwise) at a table of their own."""

    api: Api
    bea: Player
    pat: Player
    quinn: Player
    table_id: str
    deal_id: str = ""

    @property
    def players(self) -> tuple[Player, Player, Player]:
        return self.bea, self.pat, self.quinn

    def start(self) -> dict[str, Any]:
        deal = self.api.start(self.table_id)
        self.deal_id = deal["id"]
        return deal

    def act(self, who: Player, action: str, **body: Any) -> dict[str, Any]:
        return self.api.act(self.deal_id, who, action, **body)


def trio(api: Api, top: Sequence[str] = PLAIN_TOP, *, rules: dict[str, Any] | None = None,
         pack: dict[str, Any] | None = None) -> Trio:
    tag = uuid4().hex[:6]  # names are for reading; ids tell the players apart
    bea, pat, quinn = (api.player(f"{name} {tag}") for name in ("Bea", "Pat", "Quinn"))
    table = api.table([bea, pat, quinn], rules=rules, top=top, pack=pack)
    return Trio(api, bea, pat, quinn, table["id"])


def plain_deal(api: Api) -> Trio:
    """A settled deal: stakes of 5; Pat (19) beats Bea (18), Quinn (17) does not (R7.2)."""
    game = trio(api)
    game.start()
    game.act(game.pat, "stake", amount=5)
    game.act(game.quinn, "stake", amount=5)
    game.act(game.pat, "stick")
    game.act(game.quinn, "stick")
    settled = game.act(game.bea, "stay")
    assert settled["phase"] == "settled", settled
    return game


def twist_deal_open(api: Api) -> Trio:
    """An open deal, Quinn to act: Pat twisted 5S face up (R4.4) and stuck on 17."""
    game = trio(api, TWIST_TOP)
    game.start()
    game.act(game.pat, "stake", amount=5)
    game.act(game.quinn, "stake", amount=5)
    game.act(game.pat, "twist")
    view = game.act(game.pat, "stick")
    assert view["phase"] == "playing" and view["turn"]["player_id"] == game.quinn.id, view
    return game


# --- one app per store for a module ------------------------------------------------------

def serve(store: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    """A migrated store of each kind with the app on it, projections in-process."""
    from api import create_app
    from application.store import migrate
    from config import Settings

    schema = None
    if store == "sqlite":
        folder = tmp_path_factory.mktemp("reads")
        settings = Settings(database_url=f"sqlite:///{folder}/ledger.sqlite3")
    else:
        import psycopg

        url = postgres_url()
        schema = f"test_{uuid4().hex[:12]}"
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA "{schema}"')
        settings = Settings(database_url=f"{url}?schema={schema}", pool_size=2,
                            pool_overflow=12)
    # No signing key: never the checkout's var/signing-key (a `make run` makes one there).
    settings = replace(settings, signing_key_file=str(tmp_path_factory.mktemp("no-key") / "key"))
    try:
        settings = replace(settings, treasurer_token=TREASURER_TOKEN, projections="in-process")
        migrate(settings)
        before = set(threading.enumerate())
        app = create_app(settings)
        runners = [t for t in threading.enumerate()
                   if t not in before and t.name == "projections"]
        try:
            yield Api(app, store)
        finally:
            stop(app, runners)
    finally:
        if schema is not None:
            import psycopg

            with psycopg.connect(postgres_url(), autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


def stop(app: Flask, runners: list[threading.Thread]) -> None:
    """Stop the projection runner before closing the store. At commit 8df331d
    `Services.close` closes the store while the runner may still be writing to it, which
    crashes SQLite now and then (a segmentation fault in `SQLiteReadStore.write`), so the
    runner is joined first (redundant once `Services.close` joins it itself)."""
    services = app.extensions["pontoon"]
    services._stop.set()
    for thread in runners:
        thread.join(timeout=10)
    services.close()


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def api(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
        ) -> Iterator[Api]:
    yield from serve(request.param, tmp_path_factory)


# --- statements ---------------------------------------------------------------------------

def test_a_statement_lists_each_posting_with_the_running_balance(api: Api) -> None:
    """R11.1: every chip movement of a player, oldest first, with the balance after it; the
    last running balance is the player's balance."""
    game = plain_deal(api)
    pat = game.pat
    api.cash_out(pat, 3)
    api.buy_in(pat, 20)
    items = api.statement(pat)

    posting_keys = {"id", "at", "position", "from_account", "to_account", "amount", "rule",
                    "deal_id", "hand", "reason"}
    escrow = f"escrow:{game.deal_id}"
    assert Counter((i["from_account"], i["to_account"], i["amount"]) for i in items) == Counter([
        ("treasury", pat.account, 100), (pat.account, escrow, 5), (escrow, pat.account, 5),
        (game.bea.account, pat.account, 5), (pat.account, "treasury", 3),
        ("treasury", pat.account, 20)])
    balance, last_position = 0, 0
    for item in items:
        assert posting_keys <= item.keys(), item
        assert item["position"] > last_position, "oldest first, by position"
        last_position = item["position"]
        parse_time(item["at"])
        assert item["rule"] and item["reason"], item
        assert pat.account in (item["from_account"], item["to_account"])
        balance += item["amount"] if item["to_account"] == pat.account else -item["amount"]
        assert item["balance"] == balance, f"running balance of {item}"
        in_deal = escrow in (item["from_account"], item["to_account"]) or \
            game.bea.account in (item["from_account"], item["to_account"])
        assert item["deal_id"] == (game.deal_id if in_deal else None), item
        if in_deal:
            assert item["hand"] == 0, item
    rules = [i["rule"] for i in items if i["deal_id"]]
    assert sorted(rules) == ["R3.5", "R7.2", "R7.2"]
    assert balance == 122 == api.get(f"/v1/players/{pat.id}")["balance"]


def test_a_statement_pages_by_cursor(api: Api) -> None:
    """`after` and `limit` page a statement; `next` is the cursor of the next page and null on
    the last; the pages together are the whole statement (R11.1)."""
    pat = api.player("Pat", 10)
    for amount in range(1, 7):
        api.buy_in(pat, amount)
    whole = api.statement(pat)
    assert [i["amount"] for i in whole] == [10, 1, 2, 3, 4, 5, 6]
    path = f"/v1/players/{pat.id}/statement"
    pages = api.pages(path, 3)
    assert [len(p) for p in pages][:2] == [3, 3]
    assert [i for p in pages for i in p] == whole
    first = api.get(path, limit=3)
    assert first["next"] == whole[2]["position"]
    after = api.get(path, after=whole[4]["position"], limit=50)
    assert after == {"items": whole[5:], "next": None}
    assert api.get(path, after=whole[-1]["position"]) == {"items": [], "next": None}
    for bad in ({"limit": 0}, {"limit": "many"}, {"after": -1}):
        assert_problem(api.read(path, **bad), 400)


def test_a_player_sees_only_their_own_statement_and_the_treasurer_any(api: Api) -> None:
    """Roles (api-notes.md): a player reads their own statement only (403 otherwise), an
    operator none, the treasurer every player's."""
    pat, quinn = api.player("Pat", 7), api.player("Quinn", 8)
    own = api.statement(pat, pat.headers)
    assert [i["amount"] for i in own] == [7]
    assert api.statement(quinn) == api.statement(quinn, quinn.headers)
    assert [i["amount"] for i in api.statement(quinn)] == [8]
    assert_problem(api.read(f"/v1/players/{quinn.id}/statement", pat.headers), 403)
    assert_problem(api.read(f"/v1/players/{pat.id}/statement", api.operator), 403)
    assert_problem(api.read(f"/v1/players/{pat.id}/statement", NOBODY), 401)
    assert_problem(api.read(f"/v1/players/{uuid4()}/statement"), 404)


# --- balances -----------------------------------------------------------------------------

def test_balances_show_every_account_and_sum_to_zero(api: Api) -> None:
    """R11.1: every account, the treasury's, the kitties' and the stakes on the table
    (escrows) included, and all of them sum to zero, in the middle of a deal and after it."""
    game = trio(api, PLAIN_TOP, rules={"shoot": True})
    api.post(f"/v1/tables/{game.table_id}/kitty", {"amount": 20}, game.bea.headers)
    game.start()
    game.act(game.pat, "stake", amount=5)
    game.act(game.quinn, "stake", amount=4)
    escrow, kitty = f"escrow:{game.deal_id}", f"kitty:{game.table_id}"

    found = api.get("/v1/balances", **EVERY_ACCOUNT)
    names = [row["account"] for row in found["accounts"]]
    assert len(names) == len(set(names)), "each account once"
    held = {row["account"]: row["balance"] for row in found["accounts"]}
    assert found["total"] == 0 == sum(held.values())
    assert {"treasury", kitty, escrow} <= held.keys()
    assert (held[kitty], held[escrow]) == (20, 9)
    assert (held[game.bea.account], held[game.pat.account], held[game.quinn.account]) == \
        (80, 95, 96)
    for player in game.players:
        assert held[player.account] == api.get(f"/v1/players/{player.id}")["balance"]
    kinds = {row["account"]: row["kind"] for row in found["accounts"]}
    assert (kinds["treasury"], kinds[kitty], kinds[escrow], kinds[game.pat.account]) == \
        ("treasury", "kitty", "escrow", "player")

    game.act(game.pat, "pass")
    game.act(game.quinn, "pass")
    game.act(game.pat, "stick")
    game.act(game.quinn, "stick")
    game.act(game.bea, "stay")
    after = api.balances()
    assert sum(after.values()) == 0 == api.get("/v1/balances")["total"]
    assert after[escrow] == 0, "a settled deal leaves nothing on the table"
    assert (after[game.bea.account], after[game.pat.account], after[game.quinn.account]) == \
        (80 - 5 + 4, 105, 96)


def test_balances_are_for_the_treasurer_only(api: Api) -> None:
    """Roles (api-notes.md): GET /v1/balances is the treasurer's."""
    pat = api.player("Pat", 1)
    assert_problem(api.read("/v1/balances", api.operator), 403)
    assert_problem(api.read("/v1/balances", pat.headers), 403)
    assert_problem(api.read("/v1/balances", NOBODY), 401)


def test_a_balance_as_of_a_time_or_a_position_is_the_balance_then(api: Api) -> None:
    """R11.1, R11.4: a past balance, at an RFC 3339 time (`as_of`) or a log position
    (`position`), is the balance after the last posting at or before it."""
    pat = api.player("Pat", 0)
    moves = [api.buy_in(pat, 100), api.buy_in(pat, 50), api.cash_out(pat, 30)]
    entries = api.statement(pat)
    assert [e["balance"] for e in entries] == [100, 150, 120]
    path = f"/v1/players/{pat.id}/balance"

    def at_position(position: int) -> int:
        found = api.get(path, position=position)
        assert found["player_id"] == pat.id and "position" in found, found
        return int(found["balance"])

    def as_of(when: str, headers: dict[str, str] = TREASURER) -> int:
        found = api.get(path, headers, as_of=when)
        assert found["player_id"] == pat.id and "position" in found, found
        return int(found["balance"])

    before = 0
    for move, entry in zip(moves, entries, strict=True):
        assert at_position(move["position"]) == entry["balance"] == move["balance"]
        assert at_position(entry["position"]) == entry["balance"]
        assert at_position(entry["position"] - 1) == before
        when = parse_time(entry["at"])
        assert as_of(entry["at"]) == entry["balance"]
        assert as_of(when.isoformat().replace("+00:00", "Z")) == entry["balance"]
        two_hours_east = when.astimezone(timezone(timedelta(hours=2))).isoformat()
        assert as_of(two_hours_east) == entry["balance"], two_hours_east
        assert as_of((when - timedelta(microseconds=1)).isoformat()) == before
        before = entry["balance"]
    assert as_of("2000-01-01T00:00:00Z") == 0
    assert as_of((datetime.now(UTC) + timedelta(days=1)).isoformat(), pat.headers) == 120
    assert api.get(path)["balance"] == 120
    for bad in ("yesterday", "2026-01-01T00:00:00", "2026-13-01T00:00:00Z"):
        assert_problem(api.read(path, as_of=bad), 400)


# --- kitty history ------------------------------------------------------------------------

def test_the_kitty_history_lists_every_change_with_its_reason_and_rule(api: Api) -> None:
    """R9.1, R9.8, R9.9: the kitty put up, a shoot bet paid from it, a lost shoot bet paid
    into it, a top-up; each with its reason, rule and the kitty after it; cursor paging."""
    game = trio(api, PLAIN_TOP, rules={"shoot": True})
    path = f"/v1/tables/{game.table_id}/kitty-history"
    assert api.get(path) == {"items": [], "next": None}
    api.post(f"/v1/tables/{game.table_id}/kitty", {"amount": 20}, game.bea.headers)
    game.start()
    game.act(game.pat, "stake", amount=5)
    game.act(game.quinn, "stake", amount=5)
    game.act(game.pat, "shoot", amount=5)
    game.act(game.quinn, "shoot", amount=4)
    game.act(game.pat, "stick")
    game.act(game.quinn, "stick")
    assert game.act(game.bea, "stay")["phase"] == "settled"
    api.post(f"/v1/tables/{game.table_id}/kitty", {"amount": 10}, game.bea.headers)

    items = api.get(path, limit=500)["items"]
    assert [(i["change"], i["rule"], i["deal_id"]) for i in items] == [
        (20, "R9.1", None), (-5, "R9.8", game.deal_id), (4, "R9.8", game.deal_id),
        (10, "R9.9", None)]
    kitty, position = 0, 0
    for item in items:
        assert {"at", "position", "deal_id", "change", "kitty_after", "reason", "rule"} <= \
            item.keys()
        parse_time(item["at"])
        assert item["position"] > position
        position = item["position"]
        kitty += item["change"]
        assert item["kitty_after"] == kitty, item
        assert isinstance(item["reason"], str) and item["reason"], item
    assert kitty == 29 == api.get(f"/v1/tables/{game.table_id}")["kitty"]
    assert api.balances()[f"kitty:{game.table_id}"] == 29
    pages = api.pages(path, 1)
    assert [i for p in pages for i in p] == items
    assert api.get(path, limit=2)["next"] == items[1]["position"]


# --- disputes -----------------------------------------------------------------------------

def raise_dispute(api: Api, deal_id: str, headers: dict[str, str], reason: str
                  ) -> dict[str, Any]:
    raised = api.post(f"/v1/deals/{deal_id}/disputes", {"reason": reason}, headers, 201)
    assert raised["status"] == "open" and raised["id"], raised
    return raised


def disputes(api: Api, status: str | None = None) -> dict[str, dict[str, Any]]:
    query = {"status": status} if status else {}
    return {d["id"]: d for d in api.get("/v1/disputes", **query)["items"]}


def test_players_of_the_deal_and_staff_raise_disputes_and_others_may_not(api: Api) -> None:
    """API.md: a player of the deal (banker included), an operator or the treasurer raises a
    dispute: 201 {"id", "status": "open"}; another player may not (403)."""
    game = plain_deal(api)
    outsider = api.player("Olly", 0)
    path = f"/v1/deals/{game.deal_id}/disputes"
    raised = [raise_dispute(api, game.deal_id, who, "Quinn's 17 was counted as 16")
              for who in (game.quinn.headers, game.bea.headers, api.operator, TREASURER)]
    assert len({r["id"] for r in raised}) == 4
    head = api.head()
    assert_problem(api.client.post(path, json={"reason": "I was not there"},
                                   headers=outsider.headers), 403)
    assert_problem(api.client.post(path, json={"reason": "?"}, headers=NOBODY), 401)
    assert_problem(api.client.post(f"/v1/deals/{uuid4()}/disputes", json={"reason": "?"},
                                   headers=TREASURER), 404)
    assert_problem(api.client.post(path, json={}, headers=TREASURER), 400)
    assert api.head() == head, "a refused dispute records nothing"
    listed = disputes(api, "open")
    for r in raised:
        assert listed[r["id"]]["status"] == "open"
        assert listed[r["id"]]["deal_id"] == game.deal_id
        assert listed[r["id"]]["reason"] == "Quinn's 17 was counted as 16"


def test_the_treasurer_lists_disputes_by_status(api: Api) -> None:
    """API.md: GET /v1/disputes?status=open|resolved is the treasurer's queue (a player's
    own list: tests/api/test_players_and_integrators.py)."""
    game = plain_deal(api)
    kept = raise_dispute(api, game.deal_id, game.pat.headers, "kept open")
    done = raise_dispute(api, game.deal_id, game.quinn.headers, "to be rejected")
    api.post(f"/v1/disputes/{done['id']}/resolution",
             {"decision": "rejected", "note": "the cards were right"})
    opened, resolved, every = disputes(api, "open"), disputes(api, "resolved"), disputes(api)
    assert kept["id"] in opened and kept["id"] not in resolved
    assert done["id"] in resolved and done["id"] not in opened
    assert {kept["id"], done["id"]} <= every.keys()
    assert all(d["status"] == "open" for d in opened.values())
    assert all(d["status"] == "resolved" for d in resolved.values())
    assert resolved[done["id"]]["decision"] == "rejected"
    assert_problem(api.read("/v1/disputes", api.operator, status="open"), 403)
    assert_problem(api.read("/v1/disputes", NOBODY), 401)
    assert_problem(api.read("/v1/disputes", status="closed"), 400)


def test_an_upheld_dispute_corrects_with_new_postings_and_changes_no_history(
        api: Api) -> None:
    """R11.4: the correction is a new posting, on both players' statements, with rule R11.4
    and a reason naming the dispute; balances move; every earlier entry and the deal's audit
    stay exactly as they were."""
    game = plain_deal(api)
    bea, quinn = game.bea, game.quinn
    raised = raise_dispute(api, game.deal_id, quinn.headers, "my 17 beat the banker's 16")
    before = {p.id: api.statement(p) for p in game.players}
    audit_before = api.get(f"/v1/deals/{game.deal_id}/audit")
    balances_before = api.balances()

    resolution = api.post(f"/v1/disputes/{raised['id']}/resolution", {
        "decision": "upheld", "note": "the banker held 16, not 18",
        "corrections": [{"from_account": bea.account, "to_account": quinn.account,
                         "amount": 10}]})
    assert (resolution["id"], resolution["status"], resolution["decision"]) == \
        (raised["id"], "resolved", "upheld")
    [posted] = resolution["corrections"]
    assert (posted["from_account"], posted["to_account"], posted["amount"]) == \
        (bea.account, quinn.account, 10)

    for player, change in ((quinn, 10), (bea, -10)):
        after = api.statement(player)
        old = before[player.id]
        assert after[:len(old)] == old, "earlier entries are never changed (R11.4)"
        [entry] = after[len(old):]
        assert (entry["id"], entry["rule"], entry["amount"], entry["change"]) == \
            (posted["id"], "R11.4", 10, change)
        assert (entry["from_account"], entry["to_account"]) == (bea.account, quinn.account)
        assert raised["id"] in entry["reason"], entry["reason"]
        assert entry["deal_id"] == game.deal_id, "the correction references its deal"
        assert entry["balance"] == old[-1]["balance"] + change
        assert api.get(f"/v1/players/{player.id}")["balance"] == entry["balance"]
    balances_after = api.balances()
    assert balances_after[quinn.account] == balances_before[quinn.account] + 10
    assert balances_after[bea.account] == balances_before[bea.account] - 10
    assert sum(balances_after.values()) == 0
    assert api.statement(game.pat) == before[game.pat.id]
    audit_after = api.get(f"/v1/deals/{game.deal_id}/audit")
    corrected = ("disputes", "net_after_corrections")  # they show the correction (API.md)
    assert {k: v for k, v in audit_after.items() if k not in corrected} == \
        {k: v for k, v in audit_before.items() if k not in corrected}, \
        "the deal's recorded history is unchanged (R11.4)"
    [listed] = [d for d in api.get("/v1/disputes", status="resolved")["items"]
                if d["id"] == raised["id"]]
    assert (listed["decision"], listed["note"]) == ("upheld", "the banker held 16, not 18")
    assert listed["corrections"] == [posted]


def test_a_rejected_dispute_moves_no_chips(api: Api) -> None:
    """R11.4: a rejection with no corrections resolves the dispute and posts nothing."""
    game = plain_deal(api)
    raised = raise_dispute(api, game.deal_id, game.pat.headers, "I think I was short-paid")
    before = {p.id: api.statement(p) for p in game.players}
    balances = api.balances()
    resolution = api.post(f"/v1/disputes/{raised['id']}/resolution",
                          {"decision": "rejected", "note": "paid as the rules say",
                           "corrections": []})
    assert (resolution["status"], resolution["decision"], resolution["corrections"]) == \
        ("resolved", "rejected", [])
    assert {p.id: api.statement(p) for p in game.players} == before
    assert api.balances() == balances
    assert raised["id"] in disputes(api, "resolved")
    assert raised["id"] not in disputes(api, "open")


def test_a_dispute_is_resolved_once(api: Api) -> None:
    """API.md 409: resolving a resolved dispute is not expected now; nothing is recorded."""
    game = plain_deal(api)
    raised = raise_dispute(api, game.deal_id, game.quinn.headers, "recount please")
    path = f"/v1/disputes/{raised['id']}/resolution"
    api.post(path, {"decision": "rejected", "note": "recounted"})
    head = api.head()
    for body in ({"decision": "rejected", "note": "again"},
                 {"decision": "upheld", "note": "changed my mind", "corrections": [
                     {"from_account": game.bea.account, "to_account": game.quinn.account,
                      "amount": 1}]}):
        assert_problem(api.client.post(path, json=body, headers=TREASURER), 409)
    assert api.head() == head


def test_corrections_name_real_accounts_other_than_a_deals_stakes(api: Api) -> None:
    """R11.4: a correction moves chips between players, kitties or the treasury; one naming a
    deal's escrow or an account that does not exist is refused (422) and records nothing.
    Only the treasurer resolves (403)."""
    game = plain_deal(api)
    raised = raise_dispute(api, game.deal_id, game.pat.headers, "wrong payout")
    path = f"/v1/disputes/{raised['id']}/resolution"
    quinn = game.quinn.account
    head = api.head()
    for wrong in (f"escrow:{game.deal_id}", f"player:{uuid4()}", "player:not-an-id",
                  "bank", f"kitty:{uuid4()}"):
        for source, target in ((wrong, quinn), (quinn, wrong)):
            body = {"decision": "upheld", "note": "correction",
                    "corrections": [{"from_account": source, "to_account": target,
                                     "amount": 2}]}
            assert_problem(api.client.post(path, json=body, headers=TREASURER), 422)
    upheld = {"decision": "upheld", "note": "n", "corrections": []}
    for who in (api.operator, game.pat.headers):
        assert_problem(api.client.post(path, json=upheld, headers=who), 403)
    assert api.head() == head, "a refused resolution records nothing"
    assert raised["id"] in disputes(api, "open")
    assert_problem(api.client.post(f"/v1/disputes/{uuid4()}/resolution",
                                   json=upheld, headers=TREASURER), 404)


# --- the event feed -----------------------------------------------------------------------

def feed(api: Api, after: int, limit: int = 500, headers: dict[str, str] = TREASURER
         ) -> list[dict[str, Any]]:
    return [item for page in api.pages("/v1/events", limit, headers, after) for item in page]


def test_the_event_feed_pages_in_order(api: Api) -> None:
    """API.md: the global log in order, `{position, at, stream_id, type, data}`, paged by
    `after`/`limit` with `next` the cursor of the next page (null at the end)."""
    start = api.head()
    game = plain_deal(api)
    everything = feed(api, start)
    positions = [e["position"] for e in everything]
    assert positions == sorted(set(positions)), "in order, each event once"
    assert start < positions[0] and positions[-1] == api.head()
    for event in everything:
        assert set(event) >= {"position", "at", "stream_id", "type", "data"}, event
        parse_time(event["at"])
        assert isinstance(event["data"], dict)
    deal_types = [e["type"] for e in everything if e["stream_id"] == game.deal_id]
    assert deal_types[0] == "Deal.DealStarted" and deal_types[-1] == "Deal.DealSettled"
    assert deal_types.count("Deal.StakePlaced") == 2
    for limit in (1, 4):
        pages = api.pages("/v1/events", limit, after=start)
        assert [e for p in pages for e in p] == everything
    first = api.get("/v1/events", after=start, limit=3)
    assert first["next"] is not None and first["next"] >= first["items"][-1]["position"]
    rest = api.get("/v1/events", after=first["next"], limit=500)["items"]
    assert first["items"] + rest == everything
    assert api.get("/v1/events", after=api.head()) == {"items": [], "next": None}


def test_the_feed_shows_face_down_cards_only_once_the_deal_is_settled(api: Api) -> None:
    """API.md: secret card fields are null in the feed while the deal is open (R3.4, R3.7,
    R4.3), face-up cards are shown (R4.4); once settled every card is shown."""
    start = api.head()
    game = twist_deal_open(api)

    def dealt() -> list[dict[str, Any]]:
        return [e["data"]["fact"] for e in feed(api, start)
                if e["stream_id"] == game.deal_id and e["type"] == "Deal.CardDealt"]

    open_cards = dealt()
    assert [c["face_up"] for c in open_cards] == [False] * 6 + [True]
    assert [c["card"] for c in open_cards] == [None] * 6 + ["5S"]
    game.act(game.quinn, "stick")
    assert game.act(game.bea, "stay")["phase"] == "settled"
    assert [c["card"] for c in dealt()] == list(TWIST_TOP)


def test_no_event_of_the_feed_reveals_a_face_down_card_of_an_open_deal(api: Api) -> None:
    """API.md: while a deal is open its face-down cards appear nowhere in the feed: neither in
    its own events nor in its table's (at an ordered table the pack's order is the deal's
    cards, R1.7)."""
    start = api.head()
    game = twist_deal_open(api)
    face_down = [c for c in TWIST_TOP if c != "5S"]
    leaks = {f"{e['position']} {e['type']}": found for e in feed(api, start)
             if (found := [c for c in face_down if f'"{c}"' in json.dumps(e["data"])])}
    assert not leaks, f"face-down cards of the open deal {game.deal_id} in the feed: {leaks}"


def test_the_feed_never_carries_a_pack_or_a_seed(api: Api) -> None:
    """API.md, R1.7: the pack order a deal starts from or leaves, and a pack's seed, are
    secret: no event of the feed carries a `pack`, `pack_after` or `seed` field."""
    start = api.head()
    shuffled = trio(api, pack={"mode": "shuffled"})
    shuffled.start()
    plain_deal(api)
    events = feed(api, start)
    assert {e["type"] for e in events} >= {"Table.PackShuffled", "Deal.DealStarted"}

    def keys(value: Any) -> Iterator[str]:
        if isinstance(value, dict):
            for key, inner in value.items():
                yield key
                yield from keys(inner)
        elif isinstance(value, list):
            for inner in value:
                yield from keys(inner)

    found = Counter(k for e in events for k in keys(e["data"]))
    assert not {"pack", "pack_after", "seed"} & found.keys(), found
    [shuffle] = [e for e in events if e["type"] == "Table.PackShuffled"]
    commitment = api.get(f"/v1/tables/{shuffled.table_id}")["pack"]["commitment"]
    assert shuffle["data"]["fact"]["commitment"] == commitment


def test_the_feed_is_for_staff(api: Api) -> None:
    """Roles (api-notes.md): operators and the treasurer read the feed, players do not."""
    pat = api.player("Pat", 1)
    assert feed(api, api.position - 2, headers=api.operator)
    assert_problem(api.read("/v1/events", pat.headers), 403)
    assert_problem(api.read("/v1/events", NOBODY), 401)


# --- read-your-writes ---------------------------------------------------------------------

def test_a_read_beyond_the_end_of_the_log_is_refused_at_once_with_409(api: Api) -> None:
    """API.md: a projection-backed read waits, briefly and bounded, for `min_position`. A
    position the log itself has not reached yet cannot be waited for: 409 problem+json at
    once, saying to pass a position a command answered (docs/decisions.md 16)."""
    game = plain_deal(api)
    dispute = raise_dispute(api, game.deal_id, game.pat.headers, "slow")
    assert dispute["id"]
    reads: list[tuple[str, dict[str, Any]]] = [
        (f"/v1/players/{game.pat.id}/statement", {}),
        (f"/v1/players/{game.pat.id}/balance", {"as_of": "2030-01-01T00:00:00Z"}),
        (f"/v1/players/{game.pat.id}/balance", {"position": FAR_AHEAD, "min_position": None}),
        ("/v1/balances", {}),
        (f"/v1/tables/{game.table_id}/kitty-history", {}),
        (f"/v1/deals/{game.deal_id}/audit", {}),
        ("/v1/disputes", {"status": "open"}),
        ("/v1/events", {}),
    ]

    def timed(path: str, query: dict[str, Any]) -> tuple[Any, float]:
        client = api.app.test_client()
        query = {"min_position": FAR_AHEAD, **query}
        query = {k: v for k, v in query.items() if v is not None}
        began = time.monotonic()
        answer = client.get(path, query_string=query, headers=TREASURER)
        return answer, time.monotonic() - began

    with ThreadPoolExecutor(len(reads)) as pool:
        answers = list(pool.map(lambda read: timed(*read), reads))
    for (path, _), (answer, seconds) in zip(reads, answers, strict=True):
        assert_problem(answer, 409)
        assert "beyond the end of the event log" in answer.get_json()["detail"], path
        assert seconds < 2, f"{path}: answered 409 after {seconds:.1f} s"
    assert api.get(f"/v1/players/{game.pat.id}/statement")["items"], \
        "with the position reached the same read succeeds"


def test_health_lists_each_read_model_with_its_lag(api: Api) -> None:
    """API.md: GET /v1/health with a staff token reports each read model's lag behind the
    log (and the webhook outbox's): 0 once it has caught up."""
    from projections.runner import MODELS, OUTBOXES

    api.player("Pat", 5)
    api.get("/v1/balances", min_position=api.head())
    health = api.get("/v1/health", TREASURER)
    assert health["status"] == "ok" and health["store"] == api.store
    assert set(health["projections"]) == {m.name for m in (*MODELS, *OUTBOXES)}
    assert {health["projections"][m.name] for m in MODELS} == {0}


def test_a_lagging_read_model_answers_503_until_it_catches_up(store_settings: Any) -> None:
    """API.md: a read asking for a position the read models have not applied waits, then
    answers 503 with Retry-After; GET /v1/health shows the lag; once the service's runner
    (the `Projections` that `pontoon projections run` follows the log with) catches up, the
    lag is 0 and the read answers."""
    from api import create_app

    settings = replace(store_settings, treasurer_token=TREASURER_TOKEN, projections="off")
    app = create_app(settings)
    try:
        api = Api(app, settings.store)
        pat = api.player("Pat", 25)
        head = api.head()
        lags = api.get("/v1/health", TREASURER)["projections"]
        assert lags and all(lag == head for lag in lags.values()), (head, lags)
        began = time.monotonic()
        answer = api.read(f"/v1/players/{pat.id}/statement")
        assert_problem(answer, 503)
        assert answer.headers.get("Retry-After"), answer.headers
        assert 0.5 <= time.monotonic() - began <= 15
        app.extensions["pontoon"].projections.catch_up()
        assert set(api.get("/v1/health", TREASURER)["projections"].values()) == {0}
        assert [i["amount"] for i in api.statement(pat)] == [25]
    finally:
        app.extensions["pontoon"].close()
