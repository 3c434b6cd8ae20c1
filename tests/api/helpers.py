"""Building players, tables and deals over HTTP for the API tests (tests/api/).

Everything goes through the Flask test client, as another app would: no ledger calls.
Seats are `[banker, Pat, Quinn]` clockwise, so a deal's cards go Pat, Quinn, banker in the
first round (R3.4), the same in the second (R3.7), then one by one as players and the banker
ask for them: `top` lists them in that order and `stacked_pack` completes the pack.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any
from uuid import uuid4

import pytest
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from tests.conftest import TREASURER_TOKEN, UNLIMITED, postgres_url
from tests.ledger_club import stacked_pack

PROBLEM = "application/problem+json"
TREASURER = {"Authorization": f"Bearer {TREASURER_TOKEN}"}
UNKNOWN = {"Authorization": "Bearer pt_this_token_was_never_issued"}


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@dataclass(frozen=True)
class Player:
    id: str
    name: str
    token: str

    @property
    def headers(self) -> dict[str, str]:
        return bearer(self.token)


def problem(response: TestResponse, status: int, rule: str | None = None) -> dict[str, Any]:
    """Assert an RFC 9457 problem of `status` (naming `rule` if given); return its body."""
    text = response.get_data(as_text=True)
    assert response.status_code == status, text
    assert response.mimetype == PROBLEM, response.headers
    body = response.get_json()
    assert {"type", "title", "status", "detail"} <= body.keys(), body
    assert body["status"] == status
    assert isinstance(body["detail"], str) and body["detail"]
    if rule is not None:
        assert body.get("rule") == rule, body
    return body  # type: ignore[no-any-return]


def ok(response: TestResponse, status: int = 200) -> dict[str, Any]:
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == "application/json"
    return response.get_json()  # type: ignore[no-any-return]


def etag_version(response: TestResponse) -> int:
    etag = response.headers.get("ETag")
    assert etag is not None and etag.startswith('"') and etag.endswith('"'), etag
    return int(etag.strip('"'))


class Club:
    """A client with the treasurer's headers and builders for what a test needs."""

    def __init__(self, client: FlaskClient, treasurer: dict[str, str] = TREASURER) -> None:
        self.client = client
        self.treasurer = treasurer
        self._operator: dict[str, str] | None = None

    @property
    def operator(self) -> dict[str, str]:
        """Headers of an operator token the treasurer issued (made once per club)."""
        if self._operator is None:
            created = ok(self.client.post("/v1/tokens", json={"role": "operator"},
                                          headers=self.treasurer), 201)
            self._operator = bearer(created["token"])
        return self._operator

    # --- players and chips --------------------------------------------------------------

    def player(self, name: str = "Pat", chips: int = 100) -> Player:
        created = ok(self.client.post("/v1/players", json={"name": name},
                                      headers=self.treasurer), 201)
        player = Player(created["id"], name, created["token"])
        if chips:
            self.buy_in(player, chips)
        return player

    def buy_in(self, player: Player, amount: int) -> dict[str, Any]:
        return ok(self.client.post(f"/v1/players/{player.id}/buy-ins", json={"amount": amount},
                                   headers=self.treasurer), 201)

    def balance(self, player: Player) -> int:
        body = ok(self.client.get(f"/v1/players/{player.id}", headers=self.treasurer))
        return int(body["balance"])

    def balances(self, *players: Player) -> dict[str, int]:
        return {p.name: self.balance(p) for p in players}

    def head(self) -> int:
        """The head of the global event log (GET /v1/health `position`, shown to staff)."""
        return int(ok(self.client.get("/v1/health", headers=self.treasurer))["position"])

    # --- tables -------------------------------------------------------------------------

    def table(self, seats: Sequence[Player], *, banker: Player | None = None, cut: bool = False,
              rules: dict[str, Any] | None = None, top: Sequence[str] = (),
              pack: dict[str, Any] | None = None, name: str | None = None
              ) -> dict[str, Any]:
        """A table seating `seats` clockwise; the banker is the first seat unless `cut`.
        Open tables have unique names: "Friday school", then "Friday school 2", ..."""
        body: dict[str, Any] = {"seats": [p.id for p in seats]}
        if not cut:
            body["banker"] = (banker or seats[0]).id
        if rules is not None:
            body["rules"] = rules
        packs = (rules or {}).get("packs", 1)
        body["pack"] = pack or {"mode": "ordered", "cards": stacked_pack(top, packs)}
        config = self.client.application.config  # counted per app: clubs may share one
        while True:
            config["tests.tables"] = opened = config.get("tests.tables", 0) + 1
            body["name"] = name or ("Friday school" if opened == 1 else
                                    f"Friday school {opened}")
            answer = self.client.post("/v1/tables", json=body, headers=self.treasurer)
            if name is not None or answer.status_code != 409 or \
                    "open already" not in answer.get_data(as_text=True):
                # A store an earlier app opened tables in (a restart) holds the first names.
                return ok(answer, 201)

    def get_table(self, table_id: str, headers: dict[str, str] | None = None) -> dict[str, Any]:
        return ok(self.client.get(f"/v1/tables/{table_id}", headers=headers or self.treasurer))

    def kitty(self, table_id: str, amount: int) -> dict[str, Any]:
        return ok(self.client.post(f"/v1/tables/{table_id}/kitty", json={"amount": amount},
                                   headers=self.treasurer))

    # --- deals --------------------------------------------------------------------------

    def deal(self, table_id: str, headers: dict[str, str] | None = None,
             **body: Any) -> dict[str, Any]:
        return ok(self.client.post(f"/v1/tables/{table_id}/deals", json=body,
                                   headers=headers or self.treasurer), 201)

    def view(self, deal_id: str, headers: dict[str, str] | None = None) -> dict[str, Any]:
        return ok(self.client.get(f"/v1/deals/{deal_id}", headers=headers or self.treasurer))

    def send(self, deal_id: str, player: Player, action: str, *,
             headers: dict[str, str] | None = None, **body: Any) -> TestResponse:
        """POST an action for `player`, by default with the player's own token."""
        return self.client.post(f"/v1/deals/{deal_id}/actions",
                                json={"player_id": player.id, "action": action, **body},
                                headers=headers or player.headers)

    def act(self, deal_id: str, player: Player, action: str, *,
            headers: dict[str, str] | None = None, **body: Any) -> dict[str, Any]:
        return ok(self.send(deal_id, player, action, headers=headers, **body))


@dataclass
class Game:
    """A table of banker Bea, Pat and Quinn (clockwise) and, once started, its deal."""

    club: Club
    banker: Player
    pat: Player
    quinn: Player
    table: dict[str, Any]
    deal: dict[str, Any] = field(default_factory=dict)

    @property
    def players(self) -> tuple[Player, Player, Player]:
        return self.banker, self.pat, self.quinn

    @property
    def deal_id(self) -> str:
        return str(self.deal["id"])

    @property
    def table_id(self) -> str:
        return str(self.table["id"])

    def start(self, headers: dict[str, str] | None = None, **body: Any) -> dict[str, Any]:
        self.deal = self.club.deal(self.table_id, headers, **body)
        return self.deal

    def act(self, player: Player, action: str, **body: Any) -> dict[str, Any]:
        self.deal = self.club.act(self.deal_id, player, action, **body)
        return self.deal

    def send(self, player: Player, action: str, **body: Any) -> TestResponse:
        return self.club.send(self.deal_id, player, action, **body)

    def stakes(self, pat: int = 5, quinn: int = 5) -> dict[str, Any]:
        self.act(self.pat, "stake", amount=pat)
        return self.act(self.quinn, "stake", amount=quinn)

    def view(self, headers: dict[str, str] | None = None) -> dict[str, Any]:
        return self.club.view(self.deal_id, headers)

    def hand(self, view: dict[str, Any], player: Player, index: int = 0) -> dict[str, Any]:
        [seat] = [s for s in view["players"] if s["player_id"] == player.id]
        return seat["hands"][index]  # type: ignore[no-any-return]

    def cards(self, view: dict[str, Any], player: Player, index: int = 0) -> list[str | None]:
        if player == self.banker:
            return view["banker"]["cards"]  # type: ignore[no-any-return]
        return self.hand(view, player, index)["cards"]  # type: ignore[no-any-return]


def game(club: Club, *, top: Sequence[str] = (), rules: dict[str, Any] | None = None,
         chips: dict[str, int] | None = None, pack: dict[str, Any] | None = None,
         start: bool = True) -> Game:
    """Bea (banker), Pat and Quinn with 100 chips each (or `chips`), and a started deal."""
    chips = chips or {}
    banker, pat, quinn = (club.player(name, chips.get(name, 100))
                          for name in ("Bea", "Pat", "Quinn"))
    table = club.table([banker, pat, quinn], rules=rules, top=top, pack=pack)
    played = Game(club, banker, pat, quinn, table)
    if start:
        played.start()
    return played


def build_app(settings: Any) -> Any:
    """The app as tests/conftest.py's `app` builds it (projections in-process), remembering
    the projection runner threads it starts."""
    from api import create_app

    if "projections" in {f.name for f in fields(settings)}:
        settings = replace(settings, projections="in-process")
    before = set(threading.enumerate())
    app = create_app(replace(settings, treasurer_token=TREASURER_TOKEN,
                             auth_failure_limit=UNLIMITED))
    app.config["pontoon.runners"] = [t for t in threading.enumerate()
                                     if t not in before and t.name == "projections"]
    return app


def close_app(app: Any) -> None:
    """Stop the projection runner and join it before closing the store. `Services.close`
    sets the stop event but closes the ledger while the runner thread may still be reading
    or writing the store: on SQLite the interpreter then crashes (segmentation fault)."""
    services = app.extensions["pontoon"]
    stop = getattr(services, "_stop", None)
    if stop is not None:
        stop.set()
    for thread in app.config.get("pontoon.runners", []):
        thread.join(timeout=5)
    (services.close if hasattr(services, "close") else services.ledger.close)()


@pytest.fixture
def app(store_settings: Any) -> Iterator[Any]:
    """Overrides tests/conftest.py's `app` in the modules that import it, only to close the
    app safely (see `close_app`); drop it once `Services.close` joins its runner."""
    flask_app = build_app(store_settings)
    yield flask_app
    close_app(flask_app)


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def shared_client(request: pytest.FixtureRequest,
                  tmp_path_factory: pytest.TempPathFactory) -> Iterator[FlaskClient]:
    """One app per store for a whole module, for many small cases that each build their own
    players and tables (a fresh store per case would cost most of the time budget)."""
    from application.store import migrate
    from config import Settings

    schema = None
    if request.param == "sqlite":
        path = tmp_path_factory.mktemp("ledger") / "ledger.sqlite3"
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
    flask_app = build_app(settings)
    yield flask_app.test_client()
    close_app(flask_app)
    if schema is not None:
        import psycopg

        with psycopg.connect(postgres_url(), autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


# R9.10: Pat shoots the whole kitty of 10 in the first round and wins it (19 against the
# banker's 18), so the kitty runs empty in play and the banker may auction the bank.
KITTY_EMPTIED_TOP = ("10H", "10S", "10D", "9H", "7S", "8D")


def kitty_emptied_game(club: Club) -> Game:
    played = game(club, top=KITTY_EMPTIED_TOP, rules={"shoot": True}, start=False)
    club.kitty(played.table_id, 10)
    played.start()
    played.stakes()
    played.act(played.pat, "shoot", amount=10)
    played.act(played.pat, "stick")
    played.act(played.quinn, "stick")
    played.act(played.banker, "stay")
    assert played.deal["phase"] == "settled", played.deal
    assert played.deal["kitty"] == 0, played.deal
    return played


# --- the pages ---------------------------------------------------------------------------

def send_sign_in(browser: FlaskClient, token: str, target: str = "/web/") -> Any:
    """The sign-in form as a browser sends it: read first, then posted with its token."""
    form = browser.get("/web/sign-in").get_data(as_text=True)
    return browser.post("/web/sign-in", data={"token": token, "next": target,
                                              "csrf": sign_in_csrf(form)})


def sign_in_csrf(html: str) -> str:
    found = re.search(r'name="csrf" value="([A-Za-z0-9_-]{43})"', html)
    assert found, "no form token on the sign-in form"
    return found.group(1)


def eventually(check: Callable[[], Any], what: str, deadline: float = 30.0) -> Any:
    """`check()`'s first truthy answer, asked until `deadline` seconds have passed (generous:
    the read models and webhook sender are threads of the app)."""
    until = time.monotonic() + deadline
    while time.monotonic() < until:
        found = check()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"not within {deadline} s: {what}")
