"""The OpenAPI document stays usable: a client generated from /openapi.json by a kept
generator (openapi-python-client, pinned in the test extras) plays one deal through the
service, and every operation has an id, the documented headers and RFC 3339 formats."""

from __future__ import annotations

import importlib
import json
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


@pytest.mark.slow
def test_a_client_generated_from_the_openapi_document_plays_a_deal(
        service: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import httpx

    document = tmp_path / "openapi.json"
    document.write_text(json.dumps(service.test_client().get("/openapi.json").get_json()))
    config = tmp_path / "generator.yaml"
    config.write_text("post_hooks: []\npackage_name_override: pontoon_client\n"
                      "project_name_override: pontoon-client\n")
    generated = subprocess.run(
        [str(GENERATOR), "generate", "--path", str(document), "--config", str(config),
         "--output-path", str(tmp_path / "client")], capture_output=True, text=True,
        timeout=120)
    assert generated.returncode == 0, generated.stdout + generated.stderr
    assert "Warning" not in generated.stdout, generated.stdout
    monkeypatch.syspath_prepend(str(tmp_path / "client"))
    client_module = importlib.import_module("pontoon_client")
    models = importlib.import_module("pontoon_client.models")
    transport = httpx.WSGITransport(app=service)

    treasurer = client_module.AuthenticatedClient(
        base_url="http://pontoon.test", token=TREASURER_TOKEN,
        httpx_args={"transport": transport})
    play = Deal(treasurer, models)
    bea, pat = play.player("Bea"), play.player("Pat")
    table = play.table([bea, pat])
    deal = play.start(table)
    play.act(deal, pat, "stake", amount=5)
    play.act(deal, pat, "stick")
    settled = play.act(deal, bea, "stay")

    assert settled.phase == "settled"
    assert play.balance(pat) == 105 and play.balance(bea) == 95
    assert [e.balance for e in play.statement(pat)] == [100, 95, 100, 105]


class Deal:
    """One deal played through the generated client's modules, as an integrator would."""

    def __init__(self, client: Any, models: Any) -> None:
        self.client, self.models = client, models

    def call(self, area: str, operation: str, *args: Any, **kwargs: Any) -> Any:
        module = importlib.import_module(f"pontoon_client.api.{area}.{operation}")
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

    def balance(self, who: Any) -> int:
        return int(self.call("players", "get_player", who.id).balance)

    def statement(self, who: Any) -> list[Any]:
        head = self.call("health", "health").position
        return list(self.call("players", "player_statement", who.id, min_position=head).items)
