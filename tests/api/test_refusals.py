"""Refusals made precise (API.md Additions) over HTTP, on both stores, for every action.

- A player who holds no hand in the deal and is not its banker (never seated, left the
  table, a former banker who left) is 409 naming R3.1: never expected to act in it.
- A `hand` the sender does not hold is 422 naming the action's rule; one held but not in
  turn is 409 (R4.9).
- An `amount` on an action that takes none is 422 naming the action's rule.
- None of these refusals names a face-down card, to staff or to other players.
A refusal records nothing.

The table began with Ex (banker), Bea, Pat, Quinn, Una; Ex sold the bank to Bea and left,
Una left, Tom never sat. Shoot Pontoon, the banker may double, burns on a hard 13, so every
action has its moment: staking, doubling, the first shoot round, the players' turns (Pat
holds 8-8, Quinn 6-7) and the banker's turn (Bea holds 10-7).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from flask.testing import FlaskClient

from domain.engine.deal import ACTIONS
from tests.api.helpers import Club, Player, ok, problem, shared_client
from tests.api.test_errors import records_nothing
from tests.unit.test_r3_refusals_for_every_action import AMOUNT_OF, PHASE_OF, RULE_OF, RULES, TOP

__all__ = ["shared_client"]

# The table, pack and rules of the rule tests: the same refusals, over HTTP.
HIDDEN = ["8S", "8H", "6C", "7D", "10D", "7S"]  # face down once the second round is out
STEPS = [("pat", "stake", {"amount": 5}), ("quinn", "stake", {"amount": 5}),
         ("bea", "decline", {}), ("pat", "pass", {}), ("quinn", "pass", {}),
         ("pat", "stick", {}), ("quinn", "twist", {}), ("quinn", "stick", {})]


@dataclass
class Deal:
    club: Club
    people: dict[str, Player]
    table_id: str
    deal_id: str
    view: dict[str, Any]

    # `records_nothing` (tests/api/test_errors.py) reads these
    @property
    def players(self) -> tuple[Player, ...]:
        return tuple(self.people.values())

    def send(self, who: str, action: str, headers: dict[str, str] | None = None,
             **body: Any) -> Any:
        return self.club.send(self.deal_id, self.people[who], action, headers=headers,
                              **{k: v for k, v in body.items() if v is not None})

    @property
    def in_turn(self) -> str:
        turn = self.view["turn"]["player_id"]
        return next(name for name, p in self.people.items() if p.id == turn)


@pytest.fixture(scope="module")
def club(shared_client: FlaskClient) -> Club:
    return Club(shared_client)


def deal_at(club: Club, phase: str) -> Deal:
    """The module's deal, played on until it is in `phase`."""
    assert club.operator  # issued now, not inside a `records_nothing` block
    people = {name: club.player(name.capitalize())
              for name in ("ex", "bea", "pat", "quinn", "una", "tom")}
    table = club.table([people[n] for n in ("ex", "bea", "pat", "quinn", "una")],
                       rules=RULES, top=TOP)
    tid = table["id"]
    ok(club.client.post(f"/v1/tables/{tid}/bank-sales",
                        json={"buyer_id": people["bea"].id, "price": 1},
                        headers=people["ex"].headers))
    for leaver in ("ex", "una"):
        ok(club.client.delete(f"/v1/tables/{tid}/seats/{people[leaver].id}",
                              headers=people[leaver].headers))
    club.kitty(tid, 50)
    view = club.deal(tid)
    for name, action, body in STEPS:
        if view["phase"] == phase:
            break
        view = club.act(view["id"], people[name], action, **body)
    assert view["phase"] == phase, view
    return Deal(club, people, tid, view["id"], view)


@pytest.mark.parametrize("action", ACTIONS)
def test_r3_1_an_action_by_someone_holding_no_hand_in_the_deal_is_409(club: Club,
                                                                       action: str) -> None:
    """R3.1 (API.md, Refusals made precise): Tom (never seated), Una (left the table) and
    Ex (the former banker, who left) are never expected to act in the deal, even when the
    action is expected of someone now: 409 naming R3.1, sent by themselves or by an
    operator for them, and nothing is recorded."""
    d = deal_at(club, PHASE_OF[action])

    with records_nothing(d):  # type: ignore[arg-type]
        answers = [d.send(name, action, headers=headers, amount=AMOUNT_OF.get(action))
                   for name in ("tom", "una", "ex")
                   for headers in (None, club.operator)]

    for response in answers:
        assert "is not playing in this deal" in problem(response, 409, "R3.1")["detail"]


@pytest.mark.parametrize("action", ACTIONS)
def test_r3_5_r4_r6_r9_r10_a_hand_the_sender_does_not_hold_is_422_naming_its_rule(
        club: Club, action: str) -> None:
    """API.md: a `hand` the sender does not hold is 422 naming the action's rule: a stake
    (R3.5), a first-round shoot or pass (R9.3) on hand 1 before any split; the banker's
    double, decline (R10.3), draw or stay (R6.3) on hand 1, the banker holding hand 0 only;
    a split, buy, twist, stick or burn on hand 1 before any split (R5.1, R4.3, R4.4, R4.6,
    R10.8). Hand 3, which nobody holds here, likewise."""
    d = deal_at(club, PHASE_OF[action])
    who = d.in_turn

    with records_nothing(d):  # type: ignore[arg-type]
        answers = [d.send(who, action, hand=hand, amount=AMOUNT_OF.get(action))
                   for hand in (1, 3)]

    for hand, response in zip((1, 3), answers, strict=True):
        assert f"holds no hand {hand}" in problem(response, 422, RULE_OF[action])["detail"]


@pytest.mark.parametrize("action", ["split", "buy", "twist", "stick", "burn", "shoot"])
def test_r4_9_a_hand_held_but_not_in_turn_is_409(club: Club, action: str) -> None:
    """R4.9 (API.md): Pat splits 8-8 and holds hands 0 and 1; hand 0 is in turn, so any
    action on hand 1 is 409 naming R4.9."""
    d = deal_at(club, "playing")
    d.view = ok(d.send("pat", "split"))
    assert d.view["turn"] == {"player_id": d.people["pat"].id, "hand": 0}

    with records_nothing(d):  # type: ignore[arg-type]
        response = d.send("pat", action, hand=1, amount=AMOUNT_OF.get(action))

    problem(response, 409, "R4.9")


@pytest.mark.parametrize("action", ["pass", "twist", "stick", "burn", "double", "decline",
                                    "draw", "stay"])
def test_r3_1_an_amount_on_an_action_that_takes_none_is_422_naming_its_rule(
        club: Club, action: str) -> None:
    """API.md (docs/api-notes.md): `amount` belongs to stake, buy, shoot and split; on any
    other action, sent by whoever is expected now, it is 422 naming the action's rule
    (R9.3, R4.4, R4.6, R10.8, R10.3, R6.3) rather than ignored."""
    d = deal_at(club, PHASE_OF[action])

    with records_nothing(d):  # type: ignore[arg-type]
        response = d.send(d.in_turn, action, amount=5)

    assert "takes no amount" in problem(response, 422, RULE_OF[action])["detail"]


def test_r3_1_these_refusals_name_no_face_down_card_to_staff_or_other_players(
        club: Club) -> None:
    """API.md (Secret cards): in the players' turns every card is face down. Refusals of
    outsiders (R3.1), of hands not held (R4.4, R5.1, R10.8), of a hand not in turn (R4.9)
    and of an amount on a twist (R4.4), answered to the treasurer, an operator or another
    player, name none of them."""
    d = deal_at(club, "playing")
    staff = (club.treasurer, club.operator)
    refusals = [
        *[(d.send(name, "twist", headers=h), 409, "R3.1") for name in ("tom", "ex")
          for h in staff],
        *[(d.send("pat", action, headers=h, hand=2), 422, rule) for h in staff
          for action, rule in (("twist", "R4.4"), ("split", "R5.1"), ("burn", "R10.8"))],
        (d.send("quinn", "twist", hand=1), 422, "R4.4"),
        (d.send("quinn", "stick", hand=0), 409, "R3.1"),
        (d.send("pat", "twist", headers=club.operator, amount=3), 422, "R4.4"),
    ]
    d.view = ok(d.send("pat", "split", headers=club.operator))
    refusals.append((d.send("pat", "stick", headers=club.operator, hand=1), 409, "R4.9"))
    refusals.append((d.send("quinn", "twist", hand=2), 422, "R4.4"))

    for response, status, rule in refusals:
        problem(response, status, rule)
        text = response.get_data(as_text=True)
        assert not [card for card in HIDDEN if card in text], text
