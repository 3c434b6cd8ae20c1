"""The OpenAPI document stays usable: a client generated from /openapi.json by a kept
generator (openapi-python-client, pinned in the test extras), the README's way, plays one
deal through the service with typed models and enums and downloads a CSV, and every
operation has an id, the documented headers and RFC 3339 formats, and declares its errors
as problem+json."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.api.helpers import build_app, close_app
from tests.conftest import TREASURER_TOKEN
from tests.ledger_club import stacked_pack

# Bea banks for Pat: Pat 10-9 (19) sticks, Bea stays on 10-8 (18): Pat wins his stake.
TOP = ("10H", "10D", "9H", "8D")
GENERATOR = Path(sys.executable).parent / "openapi-python-client"


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Any]:
    """The app on SQLite: the contract is the same on either store."""
    from application.store import migrate
    from config import Settings

    settings = Settings(database_url=f"sqlite:///{tmp_path}/ledger.sqlite3")
    migrate(settings)
    app = build_app(settings)
    yield app
    close_app(app)


def operations(spec: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            if method != "parameters":
                yield method, path, operation


def test_every_operation_has_a_unique_id_and_the_headers_of_api_md(service: Any) -> None:
    spec = service.test_client().get("/openapi.json").get_json()

    found = list(operations(spec))

    ids = [operation["operationId"] for _, _, operation in found]
    assert len(ids) == len(set(ids)) and all(ids)
    assert spec["servers"]
    for method, path, operation in found:
        headers = {p["name"] for p in operation.get("parameters", []) if p["in"] == "header"}
        if method == "post":
            assert "Idempotency-Key" in headers, path
    act = spec["paths"]["/v1/deals/{deal_id}/actions"]["post"]
    assert "If-Match" in {p["name"] for p in act["parameters"]}
    assert "ETag" in act["responses"]["200"]["headers"]
    assert "ETag" in spec["paths"]["/v1/tables/{table_id}"]["get"]["responses"]["200"]["headers"]
    posting = spec["components"]["schemas"]["Posting"]["properties"]["at"]
    assert posting["format"] == "date-time"


def test_errors_are_problem_json_csv_is_declared_and_closed_sets_are_named_enums(
        service: Any) -> None:
    """API.md Additions: every 4xx and 5xx is declared with the problem+json schema, every
    operation that answers CSV declares text/csv, every closed set of strings is an enum,
    and no nullable object is a bare object a client would decode into an empty model."""
    spec = service.test_client().get("/openapi.json").get_json()
    responses, schemas = spec["components"]["responses"], spec["components"]["schemas"]

    for method, path, operation in operations(spec):
        for code, answer in operation["responses"].items():
            if int(code) >= 400:
                name = answer["$ref"].rsplit("/", 1)[1]
                content = responses[name]["content"]
                assert list(content) == ["application/problem+json"], (path, code)
                assert content["application/problem+json"]["schema"]["$ref"].endswith(
                    "/Problem")
        assert "500" in operation["responses"], (method, path)
        if path.endswith(".csv"):
            assert list(operation["responses"]["200"]["content"]) == ["text/csv"], path
            assert "text/csv" in spec["paths"][path[:-4]]["get"]["responses"]["200"]["content"]
    for enum in ("Phase", "ActionName", "HandStatus", "DisputeStatus", "DisputeDecision",
                 "AccountKind", "TokenRole", "WebhookEvent", "WebhookStatus", "EventType"):
        assert schemas[enum]["type"] == "string" and schemas[enum]["enum"], enum
    assert "Deal.DealSettled" in schemas["EventType"]["enum"]
    assert not any(part.startswith(("Token.", "Receipt.")) for part in schemas["EventType"]["enum"])
    deal = schemas["Deal"]["properties"]
    assert deal["settlement"] == {"anyOf": [{"$ref": "#/components/schemas/Settlement"}],
                                  "nullable": True}
    assert deal["phase"]["allOf"] == [{"$ref": "#/components/schemas/Phase"}]
    assert '"type": "object", "nullable": true' not in json.dumps(spec)


def generate(document: Path, output: Path) -> subprocess.CompletedProcess[str]:
    """The README's recipe: the venv's commands first on PATH (the generator formats what it
    writes with the venv's ruff; without it on PATH it warns "some pieces may be missing"),
    whether or not the venv is activated."""
    env = {key: value for key, value in os.environ.items() if key != "VIRTUAL_ENV"}
    env["PATH"] = f"{GENERATOR.parent}{os.pathsep}/usr/bin{os.pathsep}/bin"
    return subprocess.run([str(GENERATOR), "generate", "--path", str(document),
                           "--output-path", str(output)], capture_output=True, text=True,
                          timeout=300, env=env)


@pytest.mark.slow
def test_a_client_generated_from_the_openapi_document_plays_a_deal(
        service: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """API.md Additions, Players and integrators: the generated client decodes a deal's
    settlement and turn into their own models and every closed set of words into an enum,
    declares problem+json on errors, and downloads a CSV."""
    import httpx

    document = tmp_path / "openapi.json"
    document.write_text(json.dumps(service.test_client().get("/openapi.json").get_json()))
    generated = generate(document, tmp_path / "pontoon-client")
    assert generated.returncode == 0, generated.stdout + generated.stderr
    said = generated.stdout + generated.stderr
    assert "Warning" not in said and "may be missing" not in said, said
    monkeypatch.syspath_prepend(str(tmp_path / "pontoon-client"))
    client_module = importlib.import_module("pontoon_chip_ledger_client")
    models = importlib.import_module("pontoon_chip_ledger_client.models")
    treasurer = client_module.AuthenticatedClient(
        base_url="http://pontoon.test", token=TREASURER_TOKEN,
        httpx_args={"transport": httpx.WSGITransport(app=service)})
    play = Deal(treasurer, models)
    bea, pat = play.player("Bea"), play.player("Pat")
    deal = play.start(play.table([bea, pat]))
    staked = play.act(deal, pat, "stake", amount=5)
    play.act(deal, pat, "stick")
    settled = play.act(deal, bea, "stay")

    assert isinstance(staked.turn, models.Turn) and staked.turn.player_id == pat.id
    assert isinstance(settled.settlement, models.Settlement) and settled.turn is None
    assert all(isinstance(p, models.Posting) for p in settled.settlement.postings)
    assert {(p.rule, p.amount) for p in settled.settlement.postings} == {("R7.2", 5)}
    match settled.phase:
        case models.Phase.SETTLED:
            pass
        case other:
            raise AssertionError(f"the deal is {other}, not settled")
    assert play.balance(pat) == 105 and play.balance(bea) == 95
    assert [e.balance for e in play.statement(pat)] == [100, 95, 100, 105]
    assert play.csv(pat).splitlines()[0].startswith("at,position,posting_id,deal_id,table,")
    [ended] = play.events([models.EventType.DEAL_DEALSETTLED])
    assert ended.type_ is models.EventType.DEAL_DEALSETTLED and ended.stream_id == deal.id
    refused = play.refused(deal, pat)
    assert isinstance(refused, models.Problem) and refused.status == 409


class Deal:
    """One deal played through the generated client's modules, as an integrator would."""

    def __init__(self, client: Any, models: Any) -> None:
        self.client, self.models = client, models

    def call(self, area: str, operation: str, *args: Any, **kwargs: Any) -> Any:
        module = importlib.import_module(f"pontoon_chip_ledger_client.api.{area}.{operation}")
        answer = module.sync_detailed(*args, client=self.client, **kwargs)
        assert answer.status_code < 300, answer.content
        return answer.parsed

    def player(self, name: str) -> Any:
        made = self.call("players", "register_player",
                         body=self.models.PlayerCreate(name=name))
        self.call("players", "buy_in", made.id, body=self.models.Amount(amount=100),
                  idempotency_key=f"buy-in-{made.id}")
        return made

    def table(self, seats: list[Any]) -> Any:
        body = self.models.TableCreate.from_dict({
            "name": "Generated", "seats": [seat.id for seat in seats], "banker": seats[0].id,
            "pack": {"mode": "ordered", "cards": stacked_pack(TOP)}})
        return self.call("tables", "open_table", body=body)

    def start(self, table: Any) -> Any:
        return self.call("tables", "start_deal", table.id,
                         body=self.models.DealCreate())

    def act(self, deal: Any, who: Any, action: str, **extra: Any) -> Any:
        body = self.models.Action.from_dict({"player_id": who.id, "action": action, **extra})
        return self.call("deals", "act", deal.id, body=body)

    def refused(self, deal: Any, who: Any) -> Any:
        """An action out of turn: the answer decodes into the Problem model (409)."""
        module = importlib.import_module("pontoon_chip_ledger_client.api.deals.act")
        body = self.models.Action(player_id=who.id, action=self.models.ActionName.TWIST)
        return module.sync(deal.id, client=self.client, body=body)

    def balance(self, who: Any) -> int:
        return int(self.call("players", "get_player", who.id).balance)

    def head(self) -> int:
        return int(self.call("health", "health").position)

    def statement(self, who: Any) -> list[Any]:
        return list(self.call("players", "player_statement", who.id,
                              min_position=self.head()).items)

    def csv(self, who: Any) -> str:
        text = self.call("players", "player_statement_csv", who.id, min_position=self.head())
        assert isinstance(text, str)
        return text

    def events(self, types: list[Any]) -> list[Any]:
        return list(self.call("events", "event_log", type_=types,
                              min_position=self.head()).items)
