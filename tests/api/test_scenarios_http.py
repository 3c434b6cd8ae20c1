"""Every scenario of tests/scenarios/data played end to end over HTTP, on both stores.

The HTTP driver mirrors tests/scenarios/runner.py step for step, as FORMAT.md describes:
players are created with `POST /v1/players`, the treasurer buys their chips in, the table
is opened with the scenario's ordered pack and named banker, a deal is started right before
a block's first action (unless the block starts one with `{"table": "deal"}`), actions are
sent by an operator token, and every expectation is read back through the API.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.scenarios.runner import DATA, load, scenario_files

PROBLEM = "application/problem+json"


class HttpClub:
    """The REST API as a scenario sees it: names in, ids and status codes checked."""

    def __init__(self, client: Any, treasurer: dict[str, str]) -> None:
        self.client = client
        self.treasurer = treasurer
        answer = self.post("/v1/tokens", {"role": "operator"}, treasurer, expect=201)
        assert answer.json["role"] == "operator"
        self.operator = {"Authorization": f"Bearer {answer.json['token']}"}
        self.ids: dict[str, str] = {}
        self.tokens: dict[str, dict[str, str]] = {}

    # -- plumbing ----------------------------------------------------------------------------

    def post(self, path: str, body: dict[str, Any], headers: dict[str, str],
             expect: int | None = None) -> Any:
        answer = self.client.post(path, json=body, headers=headers)
        if expect is not None:
            assert answer.status_code == expect, \
                f"POST {path} {body}: {answer.status_code} {answer.get_data(as_text=True)}"
        return answer

    def get(self, path: str, headers: dict[str, str] | None = None) -> dict[str, Any]:
        answer = self.client.get(path, headers=headers or self.treasurer)
        assert answer.status_code == 200, \
            f"GET {path}: {answer.status_code} {answer.get_data(as_text=True)}"
        return answer.json  # type: ignore[no-any-return]

    def name_of(self, player_id: str | None) -> str | None:
        names = {pid: name for name, pid in self.ids.items()}
        return names.get(player_id, player_id) if player_id is not None else None

    # -- the club ----------------------------------------------------------------------------

    def register_player(self, name: str) -> None:
        answer = self.post("/v1/players", {"name": name}, self.operator, expect=201).json
        assert answer["name"] == name and answer["id"] and answer["token"]
        self.ids[name] = answer["id"]
        self.tokens[name] = {"Authorization": f"Bearer {answer['token']}"}

    def buy_in(self, name: str, amount: int) -> Any:
        return self.post(f"/v1/players/{self.ids[name]}/buy-ins", {"amount": amount},
                         self.treasurer)

    def open_table(self, scenario: dict[str, Any]) -> str:
        body = {"name": scenario["name"], "seats": [self.ids[n] for n in scenario["players"]],
                "banker": self.ids[scenario["banker"]],
                "rules": scenario.get("table_rules", {}),
                "pack": {"mode": "ordered", "cards": scenario["pack"]}}
        # Only the treasurer opens a table with an ordered pack (API.md Additions).
        table = self.post("/v1/tables", body, self.treasurer, expect=201).json
        assert table["seats"] == body["seats"]
        assert table["banker"] == body["banker"]
        assert table["pack"]["mode"] == "ordered"
        return table["id"]  # type: ignore[no-any-return]

    def start_deal(self, table_id: str) -> Any:
        return self.post(f"/v1/tables/{table_id}/deals", {}, self.operator)

    def banker_of(self, table_id: str) -> str:
        return self.get(f"/v1/tables/{table_id}")["banker"]  # type: ignore[no-any-return]

    def banker_token(self, table_id: str) -> dict[str, str]:
        """The headers of the player who banks now: table steps "by the banker"."""
        banker = self.name_of(self.banker_of(table_id))
        assert banker in self.tokens, f"the banker {banker} is not a scenario player"
        return self.tokens[banker]

    def deal(self, deal_id: str) -> dict[str, Any]:
        return self.get(f"/v1/deals/{deal_id}")

    def head(self) -> int | None:
        """The head of the global event log: a refused command must not move it."""
        return self.get("/v1/health", {})["position"]  # type: ignore[no-any-return]


def play_over_http(scenario: dict[str, Any], club: HttpClub) -> list[list[str]]:
    """runner.play, over HTTP; answers, for each block, the expectations it checked."""
    checked = []
    for name in scenario["players"] + scenario.get("unseated", []):
        club.register_player(name)
    for name, amount in scenario.get("buy_ins", {}).items():
        answer = club.buy_in(name, amount)
        assert answer.status_code == 201, answer.get_data(as_text=True)
        assert answer.json["balance"] == amount
    table_id = club.open_table(scenario)
    for number, block in enumerate(scenario["deals"]):
        deal_id: str | None = None
        where = f"{scenario['name']} block {number}"
        for step_number, step in enumerate(block["steps"]):
            label = f"{where} step {step_number} {step}"
            if "player" in step and "action" in step and deal_id is None:
                answer = club.start_deal(table_id)
                assert answer.status_code == 201, \
                    f"{label}: starting the deal: {answer.get_data(as_text=True)}"
                deal_id = answer.json["id"]
            if step.get("when_open") and deal_id and not _turn_is(club, deal_id,
                                                                  club.ids[step["player"]]):
                continue
            expected = step.get("expect_error")
            version = club.deal(deal_id)["version"] if expected and deal_id else None
            head = club.head() if expected else None
            answer, started = _step(club, table_id, step, deal_id)
            if answer.status_code >= 300:
                assert expected, (f"{label}: refused unexpectedly: {answer.status_code} "
                                  f"{answer.get_data(as_text=True)}")
                _check_refusal(label, answer, expected)
                if deal_id and version is not None:
                    after = club.deal(deal_id)["version"]
                    assert after == version, f"{label}: refusal moved the deal {version}->{after}"
                assert club.head() == head, f"{label}: a refusal recorded events"
                continue
            assert not expected, f"{label}: expected a refusal {expected}, but it was accepted"
            if started is not None:
                deal_id = started
        checked.append(_check_expectations(club, table_id, deal_id, block["expect"], where))
    return checked


def _turn_is(club: HttpClub, deal_id: str, player_id: str) -> bool:
    turn = club.deal(deal_id)["turn"]
    return turn is not None and turn["player_id"] == player_id


def _step(club: HttpClub, table_id: str, step: dict[str, Any],
          deal_id: str | None) -> tuple[Any, str | None]:
    """Send one step; the answer, and the id of a deal it started."""
    ids = club.ids
    if "action" in step:
        assert deal_id is not None
        body: dict[str, Any] = {"player_id": ids[step["player"]], "action": step["action"]}
        for key in ("hand", "amount"):
            if key in step:
                body[key] = step[key]
        answer = club.post(f"/v1/deals/{deal_id}/actions", body, club.operator)
        if answer.status_code == 200:
            assert answer.json["id"] == deal_id
            assert answer.headers["ETag"] == f'"{answer.json["version"]}"'
        return answer, None
    kind = step["table"]
    tables = f"/v1/tables/{table_id}"
    if kind == "deal":
        answer = club.start_deal(table_id)
        return answer, answer.json["id"] if answer.status_code == 201 else None
    if kind == "kitty":
        answer = club.post(f"{tables}/kitty", {"amount": step["amount"]},
                           club.tokens[step["player"]])
    elif kind == "bank_sale":
        answer = club.post(f"{tables}/bank-sales",
                           {"buyer_id": ids[step["buyer"]], "price": step["price"]},
                           club.banker_token(table_id))
    elif kind == "join":
        body = {"player_id": ids[step["player"]]}
        if "after" in step:
            body["after"] = ids[step["after"]]
        answer = club.post(f"{tables}/seats", body, club.operator)
    elif kind == "leave":
        answer = club.client.delete(f"{tables}/seats/{ids[step['player']]}",
                                    headers=club.operator)
    elif kind == "buy_in":
        answer = club.buy_in(step["player"], step["amount"])
        assert answer.status_code >= 300 or answer.status_code == 201
    elif kind in ("auction", "auction_close"):
        path = f"{tables}/auction" if kind == "auction" else f"{tables}/auction/close"
        answer = club.post(path, {}, club.banker_token(table_id))
        if kind == "auction_close" and answer.status_code == 200:
            _check_auction_answer(club, answer.json, step.get("answer"))
    elif kind == "bid":
        answer = club.post(f"{tables}/auction/bids",
                           {"player_id": ids[step["player"]], "price": step["price"]},
                           club.operator)
    else:
        raise AssertionError(f"unknown table step {kind}")
    if kind != "buy_in" and answer.status_code < 300:
        assert answer.status_code == 200, answer.get_data(as_text=True)
    return answer, None


def _check_auction_answer(club: HttpClub, got: dict[str, Any],
                          answer: dict[str, Any] | None) -> None:
    if answer is None:
        return
    if answer.get("sold_to") is None:
        assert got["sold_to"] is None, f"expected no sale, sold to {club.name_of(got['sold_to'])}"
    else:
        assert (got["sold_to"], got["price"]) == (club.ids[answer["sold_to"]], answer["price"]), \
            f"sold to {club.name_of(got['sold_to'])} for {got['price']}, expected {answer}"


def _check_refusal(label: str, answer: Any, expected: dict[str, Any]) -> None:
    statuses = expected["status"] if isinstance(expected["status"], list) else [expected["status"]]
    body = answer.get_data(as_text=True)
    assert answer.status_code in statuses, \
        f"{label}: status {answer.status_code} not in {statuses}: {body}"
    assert answer.mimetype == PROBLEM, f"{label}: a refusal is {answer.mimetype}, not {PROBLEM}"
    problem = answer.json
    assert problem["status"] == answer.status_code, f"{label}: {problem}"
    assert {"type", "title", "detail"} <= problem.keys(), f"{label}: {problem}"
    if "rule" in expected:
        rules = expected["rule"] if isinstance(expected["rule"], list) else [expected["rule"]]
        assert problem.get("rule") in rules, f"{label}: rule {problem.get('rule')} not in {rules}"


def _check_expectations(club: HttpClub, table_id: str, deal_id: str | None,
                        expect: dict[str, Any], where: str) -> list[str]:
    """Checks every expectation of a block; answers the ones it checked."""
    checked = sorted(set(expect) & {"balances", "kitty", "banker", "phase", "ledger_total"})
    assert checked == sorted(expect), f"{where}: expectations FORMAT.md does not define: " \
                                      f"{sorted(set(expect) - set(checked))}"
    for name, balance in expect.get("balances", {}).items():
        held = club.get(f"/v1/players/{club.ids[name]}/balance")
        assert held["player_id"] == club.ids[name]
        assert held["balance"] == balance, f"{where}: {name} holds {held['balance']}, " \
                                           f"expected {balance}"
    table = club.get(f"/v1/tables/{table_id}")
    if "kitty" in expect:
        assert table["kitty"] == expect["kitty"], f"{where}: kitty {table['kitty']} != " \
                                                  f"{expect['kitty']}"
    if "banker" in expect:
        assert table["banker"] == club.ids[expect["banker"]], \
            f"{where}: banker is {club.name_of(table['banker'])}, expected {expect['banker']}"
    if "phase" in expect:
        assert deal_id is not None, f"{where}: no deal to read the phase of"
        phase = club.deal(deal_id)["phase"]
        assert phase == expect["phase"], f"{where}: phase {phase} != {expect['phase']}"
    if "ledger_total" in expect:
        total = club.get("/v1/balances")["total"]
        assert total == expect["ledger_total"], f"{where}: ledger total {total}"
    return checked


@pytest.mark.parametrize("path", scenario_files(), ids=lambda p: p.stem)
def test_scenario_plays_to_its_expected_chips_over_http(client, treasurer, path: Path) -> None:
    scenario = load(path)

    checked = play_over_http(scenario, HttpClub(client, treasurer))

    assert checked == [sorted(block["expect"]) for block in scenario["deals"]]


def test_every_scenario_file_is_played_over_http(client, treasurer) -> None:
    """Every file in tests/scenarios/data, whatever its name or folder, is played here over
    HTTP, block by block, with every expectation each block states read back and met (one
    FORMAT.md does not define fails): a file that is not a scenario, or one a glob would
    miss, fails rather than goes unplayed."""
    files = sorted(path for path in DATA.rglob("*") if path.is_file())
    assert files, f"no scenario files in {DATA}"
    played, failed = {}, {}

    for path in files:
        name = str(path.relative_to(DATA))
        try:
            scenario = load(path)
            played[name] = (play_over_http(scenario, HttpClub(client, treasurer)),
                            [sorted(block["expect"]) for block in scenario["deals"]])
        except (AssertionError, ValueError, KeyError, TypeError) as error:
            failed[name] = f"{type(error).__name__}: {error}"

    assert failed == {}
    assert sorted(played) == [str(path.relative_to(DATA)) for path in files]
    for name, (checked, expected) in played.items():
        assert checked == expected and len(checked) >= 1, name
