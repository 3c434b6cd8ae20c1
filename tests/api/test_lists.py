"""API.md, "Lists, filters, downloads": every list is `{"items", "next"}` with cursor paging
(`limit` 1–500), filters and searches, periods (`from` inclusive, `to` exclusive, compared
with `at`), both orders, CSV downloads, the per-deal net view and the period report; an
unknown query parameter is 400 on every operation. Over HTTP on both stores.

Seats are Bea (banker), Pat, Quinn; in PLAIN_TOP Pat (19) wins 5 and Quinn (17) loses 5 to
Bea's 18.
"""

from __future__ import annotations

import csv
import io
from typing import Any
from uuid import uuid4

import pytest
from flask.testing import FlaskClient

from tests.api.helpers import Club, Game, game, ok, problem, shared_client  # noqa: F401

PLAIN_TOP = ("10H", "10S", "10D", "9H", "7S", "8D")


def played(club: Club, name: str = "Friday school") -> Game:
    g = game(club, top=PLAIN_TOP, start=False)
    g.start()
    g.stakes()
    g.act(g.pat, "stick")
    g.act(g.quinn, "stick")
    g.act(g.banker, "stay")
    return g


def get(club: Club, path: str, headers: dict[str, str] | None = None, **query: Any
        ) -> dict[str, Any]:
    query.setdefault("min_position", club.head())
    return ok(club.client.get(path, query_string=query, headers=headers or club.treasurer))


def every_page(club: Club, path: str, limit: int, **query: Any) -> list[dict[str, Any]]:
    items, after = [], None
    for _ in range(1000):
        page = get(club, path, limit=limit, **({"after": after} if after else {}), **query)
        assert set(page) >= {"items", "next"} and len(page["items"]) <= limit
        items += page["items"]
        if page["next"] is None:
            return items
        after = page["next"]
    raise AssertionError("the pages never end")


def csv_rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


@pytest.fixture
def club(shared_client: FlaskClient) -> Club:  # noqa: F811
    return Club(shared_client)


# --- unknown query parameters ---------------------------------------------------------------

def test_every_operation_refuses_an_unknown_query_parameter(club: Club) -> None:
    """API.md: an unknown query parameter is 400, as an unknown body field is."""
    g = played(club)
    spec = ok(club.client.get("/openapi.json"))
    ids = {"player_id": g.pat.id, "table_id": g.table_id, "deal_id": g.deal_id,
           "dispute_id": str(uuid4()), "token_id": str(uuid4()), "webhook_id": str(uuid4()),
           "date": "2026-12-05"}

    for path, operations in spec["paths"].items():
        for method in operations.keys() - {"parameters"}:
            url = path.format(**ids) + "?no_such_parameter=1"
            answer = club.client.open(url, method=method.upper(), json={},
                                      headers=club.treasurer)
            body = problem(answer, 400)
            assert "no_such_parameter" in body["errors"], (method, path, body)


def test_reads_of_the_event_store_accept_min_position_as_every_read_does(club: Club) -> None:
    g = played(club)

    found = get(club, f"/v1/deals/{g.deal_id}")

    assert found["phase"] == "settled"


# --- players and tables -------------------------------------------------------------------

def test_players_are_found_by_a_case_insensitive_prefix_of_their_name(club: Club) -> None:
    prefix = f"Zed{uuid4().hex[:6]}"
    made = [club.player(f"{prefix}{suffix}", chips=0) for suffix in ("a", "B", "c")]
    club.player(f"Other{prefix}", chips=0)

    found = every_page(club, "/v1/players", 2, name=prefix.lower())

    assert [p["name"] for p in found] == [p.name for p in made]
    assert {p["id"] for p in found} == {p.id for p in made}
    assert set(found[0]) == {"id", "name", "balance"}


def test_a_name_search_treats_like_wildcards_as_letters(club: Club) -> None:
    club.player("100%_sure", chips=0)

    found = get(club, "/v1/players", name="100%_")["items"]
    nothing = get(club, "/v1/players", name="1_0")["items"]

    assert [p["name"] for p in found] == ["100%_sure"] and nothing == []


def test_players_may_be_listed_by_staff_only(club: Club) -> None:
    pat = club.player("Pat", chips=0)

    problem(club.client.get("/v1/players", headers=pat.headers), 403)
    problem(club.client.get("/v1/players"), 401)


def test_tables_are_listed_the_last_opened_first_and_found_by_name(club: Club) -> None:
    name = f"Night {uuid4().hex[:6]}"
    first = game(club, start=False, rules=None)
    first_table = club.table([first.banker, first.pat], name=name)
    second_table = club.table([first.banker, first.pat], name=f"{name.upper()} UPSTAIRS")

    found = every_page(club, "/v1/tables", 1, name=name.lower())

    assert [t["id"] for t in found] == [second_table["id"], first_table["id"]]
    assert set(found[0]) >= {"id", "name", "shoot", "banker", "kitty", "deals_played",
                             "opened_at"}


def test_a_tables_deals_are_all_listed_by_number_in_either_order(club: Club) -> None:
    g = played(club)
    g.start()

    ascending = every_page(club, f"/v1/tables/{g.table_id}/deals", 1)
    descending = every_page(club, f"/v1/tables/{g.table_id}/deals", 1, order="desc")

    assert [d["number"] for d in ascending] == [1, 2]
    assert [d["number"] for d in descending] == [2, 1]
    assert ascending[1]["phase"] == g.view()["phase"] == "staking"  # one vocabulary
    assert ascending[0]["phase"] == "settled" and ascending[0]["id"] == played_id(club, g)
    assert ascending[0]["players"] == [g.pat.id, g.quinn.id]


def played_id(club: Club, g: Game) -> str:
    return str(get(club, f"/v1/tables/{g.table_id}/deals")["items"][0]["id"])


def test_a_tables_deals_are_filtered_by_the_time_they_started(club: Club) -> None:
    g = played(club)
    first = get(club, f"/v1/tables/{g.table_id}/deals")["items"][0]
    g.start()
    second = get(club, f"/v1/tables/{g.table_id}/deals", order="desc")["items"][0]

    late = get(club, f"/v1/tables/{g.table_id}/deals", **{"from": second["started_at"]})
    early = get(club, f"/v1/tables/{g.table_id}/deals", to=second["started_at"])
    by_date = get(club, f"/v1/tables/{g.table_id}/deals", to=first["started_at"][:10])

    assert [d["number"] for d in late["items"]] == [2]
    assert [d["number"] for d in early["items"]] == [1]
    assert [d["number"] for d in by_date["items"]] == [1, 2]  # a date `to` is its day's end


# --- disputes and balances ------------------------------------------------------------------

def test_disputes_are_paged_and_filtered_by_deal_and_status(club: Club) -> None:
    g, other = played(club), played(club)
    raised = [ok(club.client.post(f"/v1/deals/{deal}/disputes", json={"reason": reason},
                                  headers=club.treasurer), 201)
              for deal, reason in ((g.deal_id, "one"), (g.deal_id, "two"),
                                   (other.deal_id, "three"))]

    about_g = every_page(club, "/v1/disputes", 1, deal_id=g.deal_id)
    open_other = get(club, "/v1/disputes", deal_id=other.deal_id, status="open")

    assert [d["id"] for d in about_g] == [raised[0]["id"], raised[1]["id"]]
    assert [d["reason"] for d in open_other["items"]] == ["three"]
    assert open_other["next"] is None


def test_balances_list_players_kitties_and_the_treasury_unless_escrows_are_asked(
        club: Club) -> None:
    """R11.1: `total` covers every account whatever the filter, and is 0."""
    g = played(club)
    g.start()
    g.act(g.pat, "stake", amount=3)

    default = every_page(club, "/v1/balances", 500)
    escrows = every_page(club, "/v1/balances", 500, kind="escrow")
    page = get(club, "/v1/balances", kind="escrow", limit=1)

    assert {row["kind"] for row in default} <= {"player", "kitty", "treasury"}
    kinds = [row["kind"] for row in default]
    assert kinds == sorted(kinds, key=["player", "kitty", "treasury"].index)
    assert {row["kind"] for row in escrows} == {"escrow"}
    assert {row["account"]: row["balance"] for row in escrows}[f"escrow:{g.deal_id}"] == 3
    assert page["total"] == 0 and page["accounts"] == page["items"]
    assert sum(row["balance"] for row in default + escrows) == 0


def test_balances_refuse_an_unknown_kind(club: Club) -> None:
    body = problem(club.client.get("/v1/balances?kind=player,bank", headers=club.treasurer),
                   400)

    assert "kind" in body["errors"]


def test_balances_download_as_csv_with_names(club: Club) -> None:
    g = played(club)

    answer = club.client.get(f"/v1/balances?min_position={club.head()}&limit=1",
                             headers={**club.treasurer, "Accept": "text/csv"})

    assert answer.status_code == 200 and answer.mimetype == "text/csv"
    rows = csv_rows(answer.get_data(as_text=True))
    assert len(rows) > 1, "a download is the whole list, not one page"
    named = {row["account"]: row["name"] for row in rows}
    assert named[f"player:{g.pat.id}"] in ("Pat", f"Pat ({g.pat.id[:6]})")


def test_players_who_share_a_name_are_told_apart_in_downloads(club: Club) -> None:
    name = f"Bob{uuid4().hex[:4]}"
    first, second = club.player(name, chips=1), club.player(name, chips=1)

    answer = club.client.get(f"/v1/balances?format=csv&min_position={club.head()}",
                             headers=club.treasurer)

    named = {row["account"]: row["name"] for row in csv_rows(answer.get_data(as_text=True))}
    assert named[f"player:{first.id}"] == f"{name} ({first.id[:6]})"
    assert named[f"player:{second.id}"] == f"{name} ({second.id[:6]})"


# --- statements and kitty history ---------------------------------------------------------

def test_a_statement_is_read_newest_first_in_pages(club: Club) -> None:
    g = played(club)
    path = f"/v1/players/{g.pat.id}/statement"

    oldest_first = every_page(club, path, 2)
    newest_first = every_page(club, path, 2, order="desc")

    assert newest_first == list(reversed(oldest_first))
    assert [e["balance"] for e in oldest_first] == [100, 95, 100, 105]


def test_a_statement_period_compares_with_each_postings_at(club: Club) -> None:
    g = played(club)
    path = f"/v1/players/{g.pat.id}/statement"
    entries = every_page(club, path, 50)
    stake = entries[1]

    from_stake = every_page(club, path, 50, **{"from": stake["at"]})
    before_stake = every_page(club, path, 50, to=stake["at"])
    whole_day = every_page(club, path, 50, **{"from": stake["at"][:10], "to": stake["at"][:10]})
    next_year = every_page(club, path, 50, **{"from": f"{int(stake['at'][:4]) + 1}-01-01"})

    assert from_stake == entries[1:] and before_stake == entries[:1]
    assert whole_day == entries
    assert next_year == []


@pytest.mark.parametrize("query", ["from=yesterday", "to=2026-12-01T20:00",
                                   "from=2026-12-02&to=2026-12-01", "order=up", "limit=0",
                                   "limit=501", "format=xml"])
def test_a_statement_refuses_a_malformed_period_order_or_page(club: Club, query: str) -> None:
    pat = club.player("Pat", chips=1)

    problem(club.client.get(f"/v1/players/{pat.id}/statement?{query}",
                            headers=club.treasurer), 400)


@pytest.mark.parametrize(("query", "field"), [("from=2026-13-01", "from"),
                                              ("to=2026-02-30", "to")])
def test_a_date_that_names_no_club_day_is_refused_naming_the_field(club: Club, query: str,
                                                                   field: str) -> None:
    pat = club.player("Pat", chips=1)

    refused = problem(club.client.get(f"/v1/players/{pat.id}/statement?{query}",
                                      headers=club.treasurer), 422)

    assert list(refused["errors"]) == [field]


def test_a_statement_downloads_as_csv_with_names_beside_ids(club: Club) -> None:
    g = played(club)
    path = f"/v1/players/{g.pat.id}/statement"

    by_format = club.client.get(f"{path}?format=csv&min_position={club.head()}",
                                headers=club.treasurer)
    by_accept = club.client.get(f"{path}?min_position={club.head()}",
                                headers={**club.treasurer, "Accept": "text/csv"})

    assert by_format.mimetype == by_accept.mimetype == "text/csv"
    assert "attachment" in by_format.headers["Content-Disposition"]
    rows = csv_rows(by_format.get_data(as_text=True))
    assert rows == csv_rows(by_accept.get_data(as_text=True))
    assert [row["balance_after"] for row in rows] == ["100", "95", "100", "105"]
    assert rows[3]["from_name"].startswith("Bea") and rows[3]["to_name"].startswith("Pat")
    assert rows[1]["table"] == g.table["name"] and rows[1]["deal_number"] == "1"


def test_a_players_statement_by_deal_nets_each_deal(club: Club) -> None:
    """A deal's stake, stake returned and payment are one row: Pat won 5 in deal 1."""
    g = played(club)

    rows = get(club, f"/v1/players/{g.pat.id}/statement/by-deal")["items"]
    quinn = get(club, f"/v1/players/{g.quinn.id}/statement/by-deal", order="desc")["items"]

    assert [(r["kind"], r["net"], r["balance"]) for r in rows] == [
        ("posting", 100, 100), ("deal", 5, 105)]
    assert rows[1]["deal_id"] == g.deal_id and rows[1]["number"] == 1
    assert rows[0]["rule"] == "R11.1" and rows[1]["rule"] is None
    assert [(r["kind"], r["net"]) for r in quinn] == [("deal", -5), ("posting", 100)]


def test_a_correction_is_a_row_of_its_own_in_the_per_deal_view(club: Club) -> None:
    """R11.4: a correction names the disputed deal but is recorded later, on its own."""
    g = played(club)
    raised = ok(club.client.post(f"/v1/deals/{g.deal_id}/disputes", json={"reason": "r"},
                                 headers=club.treasurer), 201)
    ok(club.client.post(f"/v1/disputes/{raised['id']}/resolution", json={
        "decision": "upheld", "note": "refund", "corrections": [
            {"from_account": f"player:{g.banker.id}", "to_account": f"player:{g.quinn.id}",
             "amount": 5}]}, headers=club.treasurer))

    rows = get(club, f"/v1/players/{g.quinn.id}/statement/by-deal")["items"]

    assert [(r["kind"], r["net"]) for r in rows] == [
        ("posting", 100), ("deal", -5), ("correction", 5)]
    assert rows[2]["rule"] == "R11.4" and rows[2]["deal_id"] == g.deal_id


def test_the_kitty_history_has_periods_orders_a_per_deal_view_and_csv(club: Club) -> None:
    g = game(club, top=PLAIN_TOP, rules={"shoot": True}, start=False)
    club.kitty(g.table_id, 20)
    g.start()
    g.stakes()
    g.act(g.pat, "shoot", amount=4)
    g.act(g.quinn, "shoot", amount=3)
    g.act(g.pat, "stick")
    g.act(g.quinn, "stick")
    g.act(g.banker, "stay")
    path = f"/v1/tables/{g.table_id}/kitty-history"

    changes = every_page(club, path, 1)
    newest = every_page(club, path, 2, order="desc")
    per_deal = get(club, f"{path}/by-deal")["items"]
    download = club.client.get(f"{path}?format=csv&min_position={club.head()}",
                               headers=club.treasurer)

    assert newest == list(reversed(changes))
    assert [c["kitty_after"] for c in changes][0] == 20
    assert [(r["kind"], r["balance"]) for r in per_deal] == [
        ("posting", 20), ("deal", changes[-1]["kitty_after"])]
    assert per_deal[1]["net"] == changes[-1]["kitty_after"] - 20
    assert len(csv_rows(download.get_data(as_text=True))) == len(changes)


# --- the period report ----------------------------------------------------------------------

REPORT_FIELDS = {"player_id", "name", "net", "deals", "buy_ins", "cash_outs", "kitty_put_up",
                 "kitty_won", "disputes_raised", "disputes", "corrections"}


def test_the_period_report_gives_each_players_result_and_checks_the_period_balances(
        club: Club) -> None:
    g = played(club)
    first = get(club, f"/v1/players/{g.pat.id}/statement")["items"][0]
    ok(club.client.post(f"/v1/players/{g.quinn.id}/cash-outs", json={"amount": 95},
                        headers=club.treasurer), 201)
    ok(club.client.post(f"/v1/deals/{g.deal_id}/disputes", json={"reason": "slow"},
                        headers=g.quinn.headers), 201)

    report = get(club, "/v1/reports/period", **{"from": first["at"]})

    rows = {row["player_id"]: row for row in report["items"]}
    assert all(set(row) == REPORT_FIELDS for row in report["items"])
    assert {k: rows[g.pat.id][k] for k in ("net", "deals", "buy_ins", "cash_outs")} == {
        "net": 5, "deals": 1, "buy_ins": 100, "cash_outs": 0}
    assert (rows[g.quinn.id]["net"], rows[g.quinn.id]["cash_outs"],
            rows[g.quinn.id]["disputes_raised"]) == (-5, 95, 1)
    assert rows[g.banker.id]["net"] == 0 and rows[g.banker.id]["deals"] == 1
    assert set(report["checks"]) >= {"chips_issued", "chips_redeemed", "chips_held",
                                     "balanced"}
    assert report["checks"]["balanced"] is True
    checks = report["checks"]
    assert checks["chips_held_before"] + checks["chips_issued"] - checks["chips_redeemed"] \
        == checks["chips_held"]
    assert report["dispute_counts"]["raised"] == 1 and report["deals"] >= 1


def test_a_period_before_anything_happened_is_empty_and_balanced(club: Club) -> None:
    report = get(club, "/v1/reports/period", to="2000-01-01")

    assert report["items"] == [] and report["checks"] == {
        "chips_issued": 0, "chips_redeemed": 0, "chips_held": 0, "chips_held_before": 0,
        "balanced": True}


def test_the_period_report_downloads_as_csv_and_is_the_treasurers(club: Club) -> None:
    g = played(club)

    answer = club.client.get(f"/v1/reports/period?format=csv&min_position={club.head()}",
                             headers=club.treasurer)

    rows = csv_rows(answer.get_data(as_text=True))
    assert set(rows[0]) == REPORT_FIELDS
    assert any(row["player_id"] == g.pat.id for row in rows)
    problem(club.client.get("/v1/reports/period", headers=club.operator), 403)
    problem(club.client.get("/v1/reports/period", headers=g.pat.headers), 403)


# --- one posting, one time and place --------------------------------------------------------

def test_the_audit_and_the_statements_agree_on_each_postings_at_and_position(
        club: Club) -> None:
    g = played(club)
    audit = get(club, f"/v1/deals/{g.deal_id}/audit")
    entries = {}
    for player in g.players:
        for entry in every_page(club, f"/v1/players/{player.id}/statement", 50):
            entries.setdefault(entry["id"], []).append(entry)

    for posting in audit["postings"]:
        shown = [(e["at"], e["position"]) for e in entries[posting["id"]]]
        assert (posting["at"], posting["position"]) in shown, posting


# --- words -----------------------------------------------------------------------------------

def test_refusals_and_reasons_use_the_right_article_and_number(club: Club) -> None:
    pat = club.player("Pat", chips=1)

    refused = problem(club.client.get("/v1/balances", headers=club.operator), 403)
    entry = get(club, f"/v1/players/{pat.id}/statement")["items"][0]

    assert refused["detail"].startswith("an operator may not do this")
    assert entry["reason"] == "the treasurer issues 1 chip to Pat"


def test_kitty_changes_name_the_player_whose_bet_they_were(club: Club) -> None:
    """R9.7: Quinn busts with a shoot bet of 3; the kitty history names Quinn."""
    g = game(club, top=("10H", "10S", "10D", "9H", "7S", "8D", "KC"), rules={"shoot": True},
             start=False)
    club.kitty(g.table_id, 20)
    g.start()
    g.stakes()
    g.act(g.pat, "pass")
    g.act(g.quinn, "shoot", amount=3)
    g.act(g.pat, "stick")
    g.act(g.quinn, "twist")

    changes = every_page(club, f"/v1/tables/{g.table_id}/kitty-history", 50)

    bust = [c for c in changes if c["rule"] == "R9.7"]
    assert [c["player_id"] for c in bust] == [g.quinn.id]
    assert changes[0]["player_id"] == g.banker.id  # the banker's put-up (R9.1)


def test_a_period_ending_while_stakes_are_on_the_table_still_balances(club: Club) -> None:
    """R11.1: chips staked in an open deal are held (by its escrow) at the period's end."""
    from datetime import datetime, timedelta

    g = played(club)
    g.start()
    g.act(g.pat, "stake", amount=4)
    stake = get(club, f"/v1/players/{g.pat.id}/statement", order="desc")["items"][0]
    end = (datetime.fromisoformat(stake["at"]) + timedelta(microseconds=1)).isoformat()

    at_end = get(club, "/v1/reports/period", to=end)["checks"]
    now = get(club, "/v1/reports/period")["checks"]

    assert at_end["balanced"] is True and now["balanced"] is True
    assert at_end["chips_held"] == at_end["chips_issued"] - at_end["chips_redeemed"]
