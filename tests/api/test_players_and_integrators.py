"""API.md Additions, "Players and integrators", over HTTP on both stores: a player's several
sign-in tokens, a player's own disputes, correction rows that name their dispute and deal,
unique open table names, searching any word of a name, hands counted from 1 in words, the
feed's `type` filter and the `.csv` downloads (decisions 141-145).

Bea banks for Pat and Quinn (PLAIN_TOP: Pat 19 beats Bea's 18 and wins 5, Quinn's 17 loses
5); BUST_TOP: Pat twists 10-6 into a 10 and is bust (R4.7).
"""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import uuid4

import pytest
from flask.testing import FlaskClient

from tests.api.helpers import Club, Game, bearer, game, ok, problem, shared_client

__all__ = ["shared_client"]

PLAIN_TOP = ("10H", "10S", "10D", "9H", "7S", "8D")
BUST_TOP = ("10H", "10S", "10D", "6H", "7S", "8D", "10C")


@pytest.fixture(scope="module")
def club(shared_client: FlaskClient) -> Club:
    return Club(shared_client)


def settled(club: Club, top: tuple[str, ...] = PLAIN_TOP) -> Game:
    played = game(club, top=top)
    played.stakes()
    if top == BUST_TOP:
        played.act(played.pat, "twist")
    else:
        played.act(played.pat, "stick")
    played.act(played.quinn, "stick")
    played.act(played.banker, "stay")
    assert played.deal["phase"] == "settled", played.deal
    return played


def issue(club: Club, player_id: str, headers: dict[str, str] | None = None,
          **body: Any) -> Any:
    return club.client.post(f"/v1/players/{player_id}/tokens", json=body,
                            headers=headers or club.treasurer)


def read(club: Club, path: str, headers: dict[str, str] | None = None, **query: Any
         ) -> dict[str, Any]:
    query.setdefault("min_position", club.head())
    return ok(club.client.get(path, query_string=query, headers=headers or club.treasurer))


def dispute(g: Game, headers: dict[str, str], reason: str = "a card was missed") -> str:
    body = ok(g.club.client.post(f"/v1/deals/{g.deal_id}/disputes", json={"reason": reason},
                                 headers=headers), 201)
    return str(body["id"])


def uphold(g: Game, dispute_id: str, amount: int = 5) -> None:
    ok(g.club.client.post(f"/v1/disputes/{dispute_id}/resolution", json={
        "decision": "upheld", "note": "recounted", "corrections": [
            {"from_account": f"player:{g.banker.id}", "to_account": f"player:{g.quinn.id}",
             "amount": amount}]}, headers=g.club.treasurer))


# --- player tokens (decision 141) ---------------------------------------------------------

def test_the_treasurer_issues_a_player_more_tokens_each_shown_once(club: Club) -> None:
    """API.md: POST /v1/players/{id}/tokens {"label"?, "expires_at"?} is 201 {"id", "token",
    "role": "player", "player_id"}; the token signs in as that player."""
    pat = club.player("Pat", chips=7)
    expires = (datetime.now(UTC) + timedelta(days=30)).replace(microsecond=0)

    phone = ok(issue(club, pat.id, label="phone", expires_at=expires.isoformat()), 201)
    laptop = ok(issue(club, pat.id, label="laptop"), 201)

    for made in (phone, laptop):
        assert (made["role"], made["player_id"]) == ("player", pat.id)
        assert made["token"].startswith("pt_") and made["id"] and made["position"]
        seen = ok(club.client.get(f"/v1/players/{pat.id}", headers=bearer(made["token"])))
        assert seen["balance"] == 7
    assert phone["label"] == "phone" and datetime.fromisoformat(phone["expires_at"]) == expires
    assert len({phone["token"], laptop["token"], pat.token}) == 3
    listed = read(club, "/v1/tokens", limit=500)["items"]
    mine = [t for t in listed if t["player_id"] == pat.id]
    assert sorted(t["label"] or "" for t in mine) == ["", "laptop", "phone"]


def test_revoking_one_of_a_players_tokens_leaves_the_others_working(club: Club) -> None:
    pat = club.player("Pat", chips=0)
    phone = ok(issue(club, pat.id, label="phone"), 201)
    laptop = ok(issue(club, pat.id, label="laptop"), 201)

    assert club.client.delete(f"/v1/tokens/{phone['id']}",
                              headers=club.treasurer).status_code == 204

    assert problem(club.client.get(f"/v1/players/{pat.id}", headers=bearer(phone["token"])),
                   401)["detail"]
    for token in (laptop["token"], pat.token):
        ok(club.client.get(f"/v1/players/{pat.id}", headers=bearer(token)))


def test_a_token_for_an_unknown_player_is_404_and_a_past_expiry_422(club: Club) -> None:
    pat = club.player("Pat", chips=0)
    past = (datetime.now(UTC) - timedelta(minutes=1)).isoformat()

    problem(issue(club, str(uuid4()), label="phone"), 404)
    problem(issue(club, pat.id, expires_at=past), 422)
    problem(issue(club, pat.id, expires_at="2030-01-01T00:00:00"), 400)  # no zone
    problem(issue(club, pat.id, role="treasurer"), 400)  # the role is the path's
    problem(issue(club, pat.id, label="x" * 101), 422)


def test_only_the_treasurer_issues_player_tokens(club: Club) -> None:
    pat, quinn = club.player("Pat", chips=0), club.player("Quinn", chips=0)

    problem(issue(club, pat.id, club.operator), 403)
    problem(issue(club, pat.id, pat.headers), 403)
    problem(issue(club, pat.id, quinn.headers), 403)
    problem(club.client.post(f"/v1/players/{pat.id}/tokens", json={}), 401)


def test_a_player_token_is_still_not_issued_by_the_staff_token_route(club: Club) -> None:
    """POST /v1/tokens issues staff tokens; a player's come from their own route."""
    problem(club.client.post("/v1/tokens", json={"role": "player"}, headers=club.treasurer),
            400)


# --- a player's disputes and corrections (decision 142) -----------------------------------

def test_a_player_lists_the_disputes_on_the_deals_they_played_in(club: Club) -> None:
    """API.md: a player's GET /v1/disputes lists the disputes on deals they played in,
    whoever raised them; the banker played in the deal too; others see none of them."""
    g = settled(club)
    by_quinn = dispute(g, g.quinn.headers, "Quinn's 17 was counted as 16")
    by_staff = dispute(g, g.club.treasurer, "the treasurer checks the pack")
    elsewhere = settled(club)
    not_theirs = dispute(elsewhere, elsewhere.pat.headers)
    outsider = club.player("Olive", chips=0)

    seen = {who.name: [d["id"] for d in read(club, "/v1/disputes", who.headers)["items"]]
            for who in (g.pat, g.banker, outsider)}
    everything = [d["id"] for d in read(club, "/v1/disputes", limit=500)["items"]]

    assert seen["Pat"] == seen["Bea"] == [by_quinn, by_staff]
    assert seen["Olive"] == []
    assert {by_quinn, by_staff, not_theirs} <= set(everything)
    assert [d["id"] for d in read(club, "/v1/disputes", g.pat.headers, status="open",
                                  deal_id=elsewhere.deal_id)["items"]] == []
    problem(club.client.get("/v1/disputes", headers=club.operator), 403)


def test_a_correction_row_names_its_dispute_deal_table_and_deal_number(club: Club) -> None:
    """API.md: a correction row in a statement (and its per-deal view) carries
    "dispute_id", "deal_id", "table_name" and "deal_number"; so does its CSV."""
    g = settled(club)
    raised = dispute(g, g.quinn.headers)
    uphold(g, raised)
    path = f"/v1/players/{g.quinn.id}/statement"

    [entry] = [e for e in read(club, path)["items"] if e["rule"] == "R11.4"]
    [row] = [r for r in read(club, f"{path}/by-deal")["items"] if r["kind"] == "correction"]
    text = club.client.get(f"{path}.csv", headers=club.treasurer).get_data(as_text=True)
    [line] = [r for r in csv.DictReader(io.StringIO(text)) if r["rule"] == "R11.4"]

    expected = {"dispute_id": raised, "deal_id": g.deal_id, "table_name": g.table["name"],
                "deal_number": 1}
    assert {key: entry[key] for key in expected} == expected
    assert {key: row[key] for key in expected} == expected and row["number"] == 1
    assert (line["dispute_id"], line["deal_id"], line["table"], line["deal_number"]) == \
        (raised, g.deal_id, g.table["name"], "1")
    played = [e for e in read(club, path)["items"] if e["rule"] != "R11.4"]
    assert all(e["dispute_id"] is None for e in played)
    assert all((e["table_name"], e["deal_number"]) == (g.table["name"], 1)
               for e in played if e["deal_id"])


# --- names (decision 143) -----------------------------------------------------------------

def test_a_second_open_table_of_the_same_name_is_409_naming_the_first(club: Club) -> None:
    bea, pat = club.player("Bea", chips=0), club.player("Pat", chips=0)
    name = f"Saturday {uuid4().hex[:6]}"
    first = club.table([bea, pat], name=name)

    again = problem(club.client.post("/v1/tables", json={
        "name": f"  {name.upper()} ", "seats": [bea.id, pat.id]}, headers=club.operator), 409)

    assert name in again["detail"] and first["id"] in again["detail"]
    other = club.table([bea, pat], name=f"{name} upstairs")
    assert other["name"] == f"{name} upstairs"


def test_a_kitty_is_named_after_its_table(club: Club) -> None:
    bea, pat = club.player("Bea"), club.player("Pat")
    name = f"Shoot {uuid4().hex[:6]}"
    table = club.table([bea, pat], name=name, rules={"shoot": True})

    kitties = read(club, "/v1/balances", kind="kitty", limit=500)["items"]

    assert [k["name"] for k in kitties if k["owner"] == table["id"]] == [f"kitty of {name}"]


def test_a_player_is_found_by_the_start_of_any_word_of_their_name(club: Club) -> None:
    """API.md: GET /v1/players?name= matches, in any case, the start of any word of a name:
    "quinn" finds "Nora Quinn"."""
    tag = uuid4().hex[:6]
    nora = club.player(f"Nora Quinn{tag}", chips=0)
    jean = club.player(f"Jean-Quinn{tag} Roe", chips=0)
    club.player(f"Noraquinn{tag}", chips=0)  # the word starts elsewhere: not found

    found = read(club, "/v1/players", name=f"QUINN{tag}", limit=500)["items"]
    by_first = read(club, "/v1/players", name="nora qu", limit=500)["items"]

    assert {p["id"] for p in found} == {nora.id, jean.id}
    assert nora.id in {p["id"] for p in by_first}


# --- hands in words (decision 144) ----------------------------------------------------------

def test_a_reason_counts_hands_from_1_while_the_hand_index_stays_0_based(club: Club) -> None:
    g = settled(club, BUST_TOP)
    audit = read(club, f"/v1/deals/{g.deal_id}/audit")

    [bust] = [p for p in audit["postings"] if p["rule"] == "R4.7"]
    [entry] = [e for e in read(club, f"/v1/players/{g.banker.id}/statement")["items"]
               if e["rule"] == "R4.7"]

    assert bust["hand"] == entry["hand"] == 0
    assert bust["reason"].startswith("hand 1 is bust") and "hand 1 is bust" in \
        bust["explanation"]
    assert entry["reason"].startswith("hand 1 is bust")
    assert "hand 0" not in str(audit["postings"]) + str(entry)


# --- the feed and the downloads (decision 145) ------------------------------------------

def test_the_feed_lists_only_the_event_types_asked_for(club: Club) -> None:
    """API.md: GET /v1/events?type=<t>[,<t>...] filters the feed; an unknown type is 400."""
    g = settled(club)
    everything = read(club, "/v1/events", limit=500)
    start = min(e["position"] for e in everything["items"] if e["stream_id"] == g.deal_id)

    settled_only = read(club, "/v1/events", after=start, type="Deal.DealSettled")["items"]
    two = read(club, "/v1/events", after=start, type="Deal.DealSettled,Deal.StakePlaced")
    repeated = club.client.get(f"/v1/events?after={start}&type=Deal.DealSettled"
                               "&type=Deal.StakePlaced", headers=club.treasurer)

    assert everything["next"] is None  # a module's club: one page holds every event
    assert [(e["type"], e["stream_id"]) for e in settled_only] == [("Deal.DealSettled",
                                                                    g.deal_id)]
    assert [e["type"] for e in two["items"]] == ["Deal.StakePlaced"] * 2 + ["Deal.DealSettled"]
    assert ok(repeated)["items"] == two["items"]
    unknown = problem(club.client.get("/v1/events?type=Deal.Nothing", headers=club.treasurer),
                      400)
    assert "Deal.Nothing" in str(unknown["errors"])
    for hidden in ("Token.Issued", "Receipt.Recorded", "TableName.Reserved"):
        problem(club.client.get(f"/v1/events?type={hidden}", headers=club.treasurer), 400)


@pytest.mark.parametrize(("path", "refused"), [
    ("/v1/players/{pat}/statement", "quinn"), ("/v1/players/{pat}/statement/by-deal", "quinn"),
    ("/v1/balances", "operator"), ("/v1/reports/period", "operator"),
    ("/v1/tables/{table}/kitty-history", "nobody")])
def test_every_list_that_answers_csv_has_a_download_of_its_own(club: Club, path: str,
                                                              refused: str) -> None:
    """Decision 145: `<list>.csv` answers what `format=csv` does, and only CSV; who may
    read the list may download it, and no one else."""
    g = settled(club, top=BUST_TOP)
    address = path.format(pat=g.pat.id, table=g.table_id)

    head = club.head()
    download = club.client.get(f"{address}.csv?min_position={head}", headers=club.treasurer)
    asked = club.client.get(address, query_string={"format": "csv", "min_position": head},
                            headers=club.treasurer)

    assert download.status_code == 200 and download.mimetype == "text/csv"
    assert download.get_data() == asked.get_data()
    assert "attachment" in download.headers["Content-Disposition"]
    problem(club.client.get(f"{address}.csv?limit=5", headers=club.treasurer), 400)
    if refused == "nobody":  # a kitty's history is any token's to read
        problem(club.client.get(f"{address}.csv"), 401)
    else:
        stranger = club.operator if refused == "operator" else getattr(g, refused).headers
        problem(club.client.get(f"{address}.csv", headers=stranger), 403)
