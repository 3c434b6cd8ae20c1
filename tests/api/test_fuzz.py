"""Schemathesis against the app's own /openapi.json, on both stores.

Every operation gets a bounded number of generated requests (valid and invalid), each sent
with the treasurer's bearer token. Before fuzzing the store is seeded with real players, a
table and a deal in play, and about half the generated requests have their ids replaced by
those real ids, so handlers get past "404 unknown id" and into their rules.

Checks: no 5xx (API.md: "No input, however malformed, yields a 500"), every response
conforms to the schema documented for its status, its status code is documented, a success
has its documented content type, and every error is an RFC 9457 problem (API.md, Errors).
A separate test checks that the document describes errors as application/problem+json.
"""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.conftest import TREASURER_TOKEN

AUTH = {"Authorization": f"Bearer {TREASURER_TOKEN}"}
PROBLEM = "application/problem+json"


def success_content_type_conformance(ctx: Any, response: Any, case: Any) -> None:
    """A success has the documented content type (errors are checked by `errors_are_problems`)."""
    if response.status_code < 400:
        content_type_conformance(ctx, response, case)


def errors_are_problems(ctx: Any, response: Any, case: Any) -> None:
    """API.md, Errors: application/problem+json with type, title, status and detail."""
    if response.status_code < 400:
        return
    content_type = response.headers.get("content-type", [""])[0]
    assert content_type.split(";")[0].strip() == PROBLEM, \
        f"{response.status_code} answered with {content_type!r}, not {PROBLEM}"
    body = response.json()
    assert isinstance(body, dict), body
    missing = {"type", "title", "status", "detail"} - body.keys()
    assert not missing, f"the problem lacks {sorted(missing)}: {body}"
    assert body["status"] == response.status_code, body
    if response.status_code == 400:
        assert isinstance(body.get("errors"), dict), f"a 400 names the fields in `errors`: {body}"


CHECKS = [not_a_server_error, response_schema_conformance, status_code_conformance,
          success_content_type_conformance, errors_are_problems]

# A pack with a known top, so the seeded deal is in a predictable place: two players, the
# banker third; Pat and Sam stake, everyone is still in play.
PACK = ["9C", "10C", "JD", "4C", "8C", "7D", "KC", "AS", "2S", "3S", "4S", "5S", "6S", "7S",
        "8S", "9S", "10S", "JS", "QS", "KS", "AH", "2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H",
        "10H", "JH", "QH", "KH", "AD", "2D", "3D", "4D", "5D", "6D", "8D", "9D", "10D", "QD",
        "KD", "AC", "2C", "3C", "5C", "6C", "7C", "JC", "QC"]


def _created(answer: Any, status: int = 201) -> dict[str, Any]:
    assert answer.status_code == status, answer.get_data(as_text=True)
    return answer.json  # type: ignore[no-any-return]


@pytest.fixture
def seeded(client) -> dict[str, list[str]]:  # type: ignore[no-untyped-def]
    """Real ids of each kind, for the path parameters and id fields of generated requests."""
    players = [_created(client.post("/v1/players", json={"name": name}, headers=AUTH))["id"]
               for name in ("Banker", "Pat", "Sam", "Una")]
    for player in players:
        _created(client.post(f"/v1/players/{player}/buy-ins", json={"amount": 500},
                             headers=AUTH))
    shoot = _created(client.post("/v1/tables", headers=AUTH, json={
        "name": "shoot", "seats": players[:3], "banker": players[0],
        "rules": {"shoot": True}, "pack": {"mode": "ordered", "cards": PACK}}))
    _created(client.post(f"/v1/tables/{shoot['id']}/kitty", json={"amount": 20}, headers=AUTH),
             200)
    plain = _created(client.post("/v1/tables", headers=AUTH, json={
        "name": "plain", "seats": players[:3], "banker": players[0],
        "pack": {"mode": "ordered", "cards": PACK}}))
    deal = _created(client.post(f"/v1/tables/{plain['id']}/deals", json={}, headers=AUTH))
    for player in players[1:3]:
        _created(client.post(f"/v1/deals/{deal['id']}/actions", headers=AUTH, json={
            "player_id": player, "action": "stake", "amount": 2}), 200)
    return {"player_id": players, "table_id": [shoot["id"], plain["id"]], "deal_id": [deal["id"]]}


def _document() -> dict[str, Any]:
    """The OpenAPI document, read once at collection from an app on the in-memory store.

    `schemathesis.pytest.from_fixture` (a schema per store fixture) fails under pytest 9.2
    (it sets `Function._nodeid`), so the schema is loaded eagerly and every generated request
    is sent to the `app` fixture of each store instead (`app=` below).
    """
    from api import create_app
    from config import Settings

    app = create_app(Settings(database_url="memory://"))
    try:
        answer = app.test_client().get("/openapi.json")
        assert answer.status_code == 200
        return answer.json  # type: ignore[no-any-return]
    finally:
        app.extensions["pontoon"].ledger.close()


schema = schemathesis.openapi.from_dict(_document())
schema.config.update(headers=AUTH)


def _use_real_ids(case: Any, seeded: dict[str, list[str]], draw: Any) -> None:
    """Swap generated ids (path parameters and id fields of the body) for seeded ones."""
    for name in list(case.path_parameters or {}):
        if name in seeded:
            case.path_parameters[name] = draw(st.sampled_from(seeded[name]))
    if not isinstance(case.body, dict):
        return
    players = seeded["player_id"]
    for name in ("player_id", "buyer_id", "after", "banker"):
        if isinstance(case.body.get(name), str):
            case.body[name] = draw(st.sampled_from(players))
    if isinstance(case.body.get("seats"), list):
        case.body["seats"] = draw(st.permutations(players))[:max(2, len(case.body["seats"]))]


def _keep_webhooks_on_this_machine(case: Any) -> None:
    """A subscription made by the fuzzer would be delivered to by the service's sender: its
    URL is replaced by a closed port on loopback, so no request leaves the machine."""
    if case.path == "/v1/webhooks" and isinstance(case.body, dict) \
            and isinstance(case.body.get("url"), str):
        case.body["url"] = "http://127.0.0.1:9/fuzzed"


@schema.parametrize()
@schema.given(real_ids=st.booleans(), data=st.data())
@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.filter_too_much])
def test_no_request_makes_a_server_error_or_an_undocumented_answer(
        case, app, seeded, real_ids, data) -> None:  # type: ignore[no-untyped-def]
    if real_ids:
        _use_real_ids(case, seeded, data.draw)
    _keep_webhooks_on_this_machine(case)
    case.call_and_validate(app=app, headers=AUTH, checks=CHECKS)


def test_the_document_describes_errors_as_problem_json() -> None:
    """API.md: errors are application/problem+json, and /openapi.json must describe API.md."""
    document = schema.raw_schema
    wrong = []
    responses = document.get("components", {}).get("responses", {})
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            if method == "parameters":
                continue
            for status, answer in operation["responses"].items():
                if status.startswith(("2", "3")):
                    continue
                if "$ref" in answer:
                    answer = responses[answer["$ref"].rsplit("/", 1)[-1]]
                media = sorted(answer.get("content", {}))
                if media and PROBLEM not in media:
                    wrong.append(f"{method.upper()} {path} {status}: {', '.join(media)}")
    assert not wrong, "error answers documented without application/problem+json:\n" + \
        "\n".join(wrong)
