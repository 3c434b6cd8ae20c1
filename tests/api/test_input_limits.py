"""Input limits at the edge, over HTTP on both stores (API.md Additions, Input limits and
accounts): text without control characters, bounded integers, bounded nesting and size,
the token before the body, If-Match and Idempotency-Key, and ordered tables.
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.api.helpers import UNKNOWN, Club, game, ok, problem, shared_client
from tests.ledger_club import stacked_pack

__all__ = ["shared_client"]

JSON = "application/json"


@pytest.fixture(scope="module")
def club(shared_client: FlaskClient) -> Club:
    return Club(shared_client)


def raw(club: Club, path: str, text: str | bytes, headers: dict[str, str] | None = None
        ) -> Any:
    return club.client.post(path, data=text, content_type=JSON,
                            headers=club.treasurer if headers is None else headers)


def refused(response: Any, field: str) -> dict[str, Any]:
    """422 naming the field (API.md Additions)."""
    body = problem(response, 422)
    assert field in body.get("errors", {}), body
    return body


# --- text --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["a\x00b", "a\x07b", "a\nb", "a\x7fb", "a\x85b",
                                  "a\u202eb", "a\u2028b"],
                         ids=["nul", "bell", "newline", "delete", "c1", "bidi", "line-sep"])
def test_a_name_with_a_control_character_is_422_naming_the_field(club: Club, name: str
                                                                 ) -> None:
    head = club.head()

    response = club.client.post("/v1/players", json={"name": name}, headers=club.treasurer)

    refused(response, "name")
    assert club.head() == head


@pytest.mark.parametrize(("path", "field", "body"), [
    ("/v1/players", "name", '{"name": "a\\ud800b"}'),
    ("/v1/players", "name", '{"name": "\\udfff"}'),
    ("/v1/tables", "name", '{"name": "\\ud83d", "seats": []}'),
], ids=["player-high", "player-low", "table"])
def test_a_lone_surrogate_in_a_string_is_422_not_500(club: Club, path: str, field: str,
                                                    body: str) -> None:
    """The issue: a lone surrogate failed to encode when stored (500)."""
    refused(raw(club, path, body), field)


def test_a_lone_surrogate_or_nul_in_a_dispute_or_a_card_is_422(club: Club) -> None:
    g = game(club)
    deal = f"/v1/deals/{g.deal_id}"

    refused(raw(club, f"{deal}/disputes", '{"reason": "x\\u0000y"}'), "reason")
    refused(raw(club, f"{deal}/disputes", '{"reason": "x\\ud800y"}'), "reason")
    refused(raw(club, f"{deal}/actions",
                json.dumps({"player_id": g.pat.id, "action": "stake", "amount": 5})[:-1]
                + ', "card": "\\ud800"}'), "card")


def test_free_text_keeps_line_breaks_and_tabs(club: Club) -> None:
    """docs/decisions.md: a dispute's reason may run over lines; a name may not."""
    g = game(club)

    created = club.client.post(f"/v1/deals/{g.deal_id}/disputes",
                               json={"reason": "first line\n\tsecond line"},
                               headers=club.treasurer)

    ok(created, 201)


def test_a_blank_or_overlong_name_is_422(club: Club) -> None:
    refused(club.client.post("/v1/players", json={"name": "   "}, headers=club.treasurer),
            "name")
    refused(club.client.post("/v1/players", json={"name": "x" * 101},
                             headers=club.treasurer), "name")


# --- integers ----------------------------------------------------------------------------


@pytest.mark.parametrize("digits", [5000, 4301, 25])
def test_an_integer_with_thousands_of_digits_is_422_not_500(club: Club, digits: int) -> None:
    """The issue: a 5,000-digit amount raised ValueError (500). Integers are bounded before
    they are converted; outside its documented bounds an integer is 422."""
    pat = club.player("Pat", 0)

    response = raw(club, f"/v1/players/{pat.id}/buy-ins", '{"amount": ' + "9" * digits + "}")

    refused(response, "amount")
    assert club.balance(pat) == 0


def test_an_amount_above_its_bound_is_422_and_of_the_wrong_type_400(club: Club) -> None:
    pat = club.player("Pat", 0)
    path = f"/v1/players/{pat.id}/buy-ins"

    refused(club.client.post(path, json={"amount": 1_000_000_001}, headers=club.treasurer),
            "amount")
    problem(club.client.post(path, json={"amount": "5"}, headers=club.treasurer), 400)


# --- nesting, size and the token before the body -----------------------------------------


def test_deep_nesting_is_400_not_a_recursion_error(club: Club) -> None:
    """The issue: deeply nested arrays raised RecursionError (500)."""
    pat = club.player("Pat", 0)

    response = raw(club, f"/v1/players/{pat.id}/buy-ins", "[" * 30_000 + "]" * 30_000)

    body = problem(response, 400)
    assert "json" in body["errors"], body


def test_brackets_inside_strings_do_not_count_as_nesting(club: Club) -> None:
    created = raw(club, "/v1/players", json.dumps({"name": "[[[[[[[[[[[[{{{{{{"}))

    assert ok(created, 201)["name"] == "[[[[[[[[[[[[{{{{{{"


def test_a_body_above_64_kib_is_413(club: Club) -> None:
    pat = club.player("Pat", 0)

    response = raw(club, f"/v1/players/{pat.id}/buy-ins",
                   json.dumps({"amount": 5, "pad": "x" * 70_000}))

    problem(response, 413)
    assert club.balance(pat) == 0


def chunked(club: Club, path: str, body: bytes) -> Any:
    """A body sent without Content-Length (Transfer-Encoding: chunked), as a server that
    ends the stream itself hands it over."""
    return club.client.post(path, input_stream=io.BytesIO(body),
                            headers={**club.treasurer, "Transfer-Encoding": "chunked",
                                     "Content-Type": JSON},
                            environ_overrides={"wsgi.input_terminated": True})


def test_a_chunked_body_above_64_kib_is_413_and_one_below_is_read(club: Club) -> None:
    """The size is known only once 64 KiB have been read: then 413, as with Content-Length,
    never a 400 about the JSON cut short."""
    pat = club.player("Pat", 0)
    path = f"/v1/players/{pat.id}/buy-ins"

    large = chunked(club, path, json.dumps({"amount": 5, "pad": "x" * 70_000}).encode())
    small = chunked(club, path, json.dumps({"amount": 5}).encode())

    problem(large, 413)
    ok(small, 201)
    assert club.balance(pat) == 5


def test_nested_arrays_above_64_kib_are_413(club: Club) -> None:
    """The issue's 100,000 nested `[`: too large to be read at all."""
    problem(raw(club, "/v1/players", "[" * 100_000), 413)


def test_a_body_shorter_than_its_content_length_is_400_saying_so(club: Club) -> None:
    """A client that closes its connection before its Content-Length has arrived (under a
    WSGI server that hands the app a body still arriving; `pontoon serve` reads it whole
    first, decision 118): 400 saying the body stopped, nothing recorded."""
    before = club.head()
    answer = club.client.post("/v1/players", input_stream=io.BytesIO(b'{"na'),
                              headers={**club.treasurer, "Content-Type": JSON},
                              environ_overrides={"CONTENT_LENGTH": "100"})

    body = problem(answer, 400)
    assert "stopped before its Content-Length" in json.dumps(body), body
    assert club.head() == before


@pytest.mark.parametrize("headers", [{}, UNKNOWN], ids=["no-token", "unknown-token"])
@pytest.mark.parametrize("body", [b"x" * (1 << 20), b"[" * 100_000, b'{"name": "\\ud800"}'],
                         ids=["one-mebibyte", "deep", "surrogate"])
def test_without_a_valid_token_a_request_is_401_whatever_its_body(
        club: Club, headers: dict[str, str], body: bytes) -> None:
    """API.md Additions: the token is checked before the body is read."""
    response = raw(club, "/v1/players", body, headers)

    problem(response, 401)


# --- If-Match and Idempotency-Key ---------------------------------------------------------


@pytest.mark.parametrize("command", ["buy-ins", "cash-outs"])
def test_if_match_applies_to_buy_ins_and_cash_outs(club: Club, command: str) -> None:
    """The issue: If-Match was ignored on buy-ins and cash-outs. The player's ETag is their
    account's version; a stale one is 409, a malformed one 400, the current one succeeds."""
    pat = club.player("Pat", 50)
    shown = club.client.get(f"/v1/players/{pat.id}", headers=club.treasurer)
    assert shown.headers["ETag"] == '"2"'
    path = f"/v1/players/{pat.id}/{command}"

    def send(if_match: str) -> Any:
        return club.client.post(path, json={"amount": 5},
                                headers={**club.treasurer, "If-Match": if_match})

    problem(send('"1"'), 409)
    assert problem(send("garbage"), 400)["errors"].keys() == {"If-Match"}
    assert club.balance(pat) == 50
    ok(send(shown.headers["ETag"]), 201)
    assert club.balance(pat) == (55 if command == "buy-ins" else 45)


@pytest.mark.parametrize("command", ["buy-ins", "cash-outs"])
def test_a_buy_in_or_cash_out_answers_the_players_new_etag(club: Club, command: str) -> None:
    """So a treasurer can send the next one with If-Match without reading the player."""
    pat = club.player("Pat", 50)
    path = f"/v1/players/{pat.id}/{command}"

    first = club.client.post(path, json={"amount": 5}, headers=club.treasurer)
    second = club.client.post(path, json={"amount": 5},
                              headers={**club.treasurer, "If-Match": first.headers["ETag"]})

    ok(second, 201)
    shown = club.client.get(f"/v1/players/{pat.id}", headers=club.treasurer)
    assert second.headers["ETag"] == shown.headers["ETag"] == '"4"'


@pytest.mark.parametrize("value", ["garbage", "7", '"7', '"x7"', '""'])
def test_a_malformed_if_match_is_400_on_every_command(club: Club, value: str) -> None:
    """API.md Additions: a malformed If-Match is 400 (it was 422 on some commands)."""
    g = game(club)

    response = g.club.client.post(f"/v1/deals/{g.deal_id}/actions",
                                  json={"player_id": g.pat.id, "action": "stake", "amount": 5},
                                  headers={**g.pat.headers, "If-Match": value})

    assert problem(response, 400)["errors"].keys() == {"If-Match"}


@pytest.mark.parametrize("path, body", [
    ("/v1/players", {"name": "Quinn"}),
    ("/v1/tables", {"name": "Spare", "seats": []}),
    ("/v1/tokens", {"role": "operator"}),
    ("/v1/webhooks", {"url": "http://127.0.0.1:9/hook", "events": ["deal.settled"]}),
])
def test_a_malformed_if_match_is_400_on_a_command_that_creates(club: Club, path: str,
                                                               body: dict[str, object]) -> None:
    """API.md Additions: a malformed If-Match is 400 on every command; where the command
    creates an aggregate a well-formed one has nothing to match and is ignored, but a
    malformed one is refused and nothing is created."""
    before = club.head()

    response = club.client.post(path, json=body, headers={**club.treasurer, "If-Match": "x"})

    assert problem(response, 400)["errors"].keys() == {"If-Match"}
    assert club.head() == before


@pytest.mark.parametrize("key", ["", "k" * 201, "ké", "a\tb"],
                         ids=["empty", "long", "non-ascii", "tab"])
def test_a_malformed_idempotency_key_is_400(club: Club, key: str) -> None:
    """API.md Additions: a malformed Idempotency-Key is 400 (it was 422)."""
    pat = club.player("Pat", 0)

    response = club.client.post(f"/v1/players/{pat.id}/buy-ins", json={"amount": 5},
                                headers={**club.treasurer, "Idempotency-Key": key})

    assert problem(response, 400)["errors"].keys() == {"Idempotency-Key"}
    assert club.balance(pat) == 0


# --- ordered tables ------------------------------------------------------------------------


def test_only_the_treasurer_opens_an_ordered_table(club: Club) -> None:
    """The issue: an ordered table's reshuffles are predictable by every player, so only the
    treasurer opens one (403 for an operator); shuffled tables stay open to operators."""
    bea, pat = club.player("Bea"), club.player("Pat")
    body = {"name": "arranged", "seats": [bea.id, pat.id], "banker": bea.id,
            "pack": {"mode": "ordered", "cards": stacked_pack(())}}

    problem(club.client.post("/v1/tables", json=body, headers=club.operator), 403)
    ok(club.client.post("/v1/tables", json=body, headers=club.treasurer), 201)
    ok(club.client.post("/v1/tables", json={**body, "name": "shuffled",
                                            "pack": {"mode": "shuffled"}},
                        headers=club.operator), 201)


def test_deals_at_an_ordered_table_say_they_are_not_a_fair_shuffle(club: Club) -> None:
    """API.md Additions: its deal views and audits carry `"fair_shuffle": false`, as its
    list of packs does (decision 92); a deal at a shuffled table carries true."""
    arranged = game(club)
    shuffled = game(club, pack={"mode": "shuffled"})

    audit = ok(club.client.get(f"/v1/deals/{arranged.deal_id}/audit",
                               query_string={"min_position": club.head()},
                               headers=club.treasurer))

    assert arranged.deal["fair_shuffle"] is False
    assert arranged.view()["fair_shuffle"] is False
    assert audit["fair_shuffle"] is False
    assert shuffled.deal["fair_shuffle"] is True
    packs = ok(club.client.get(f"/v1/tables/{arranged.table['id']}/packs",
                               query_string={"min_position": club.head()},
                               headers=club.treasurer))
    assert packs == {"items": [], "next": None, "fair_shuffle": False}
