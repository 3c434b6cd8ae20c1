"""`pontoon verify` (a real subprocess) re-checks the event store itself: an untouched store
verifies; one stored event altered by hand in the database is found and named in a readable
report, and the command exits non-zero (R1.7, R7.5, R11.1)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from eventsourcing.application import AggregateNotFoundError

from domain.aggregates import TREASURY_ID, Account, DealAggregate, TableAggregate
from domain.aggregates import posting_id as make_posting_id
from domain.engine.postings import TREASURY, player_account
from domain.engine.shuffle import commitment, derived_seed
from projections.runner import Projections
from projections.store import read_store
from projections.webhooks.payloads import payload
from tests.integration.ledger_views import notifications, seat_club, topic
from tests.integration.projection_session import Session, play_session, pontoon, rewrite_event
from tests.ledger_club import stacked_pack
from verification.integrity import named
from verification.verify import verify

Pick = Callable[[Session, list[Any]], Any]
Change = Callable[[dict[str, Any]], None]


def of(event_class: type, stream: Callable[[Session], str] | None = None, *, last: bool = False
       ) -> Pick:
    """The first (or last) stored event of a class, in one stream if given."""
    def pick(session: Session, stored: list[Any]) -> Any:
        found = [n for n in stored if n.topic == topic(event_class) and (
            stream is None or str(n.originator_id) == stream(session))]
        return found[-1] if last else found[0]
    return pick


def fact(key: str, value: Callable[[Any], Any]) -> Change:
    def change(state: dict[str, Any]) -> None:
        state["fact"][key] = value(state["fact"][key])
    return change


def first_posting_amount(state: dict[str, Any]) -> None:
    state["fact"]["postings"][0]["amount"] += 1


def balance_after(state: dict[str, Any]) -> None:
    state["balance_after"] += 7


OTHER_SEED = derived_seed("projection-tests", "not the seed dealt from")


def another_committed_seed(state: dict[str, Any]) -> None:
    state["fact"]["seed"] = OTHER_SEED
    state["fact"]["commitment"] = commitment(OTHER_SEED)


def other_card(card: str) -> str:
    return "QS" if card != "QS" else "QD"


# id: (which event, how it is altered, what the report must say, whose id it names)
TAMPERS: dict[str, tuple[Pick, Change, list[str], Callable[[Session], str]]] = {
    "an amount in a DealSettled posting": (
        of(DealAggregate.DealSettled), first_posting_amount,
        ["does not replay to its recorded", "DealSettled", "does not conserve chips (R11.1)",
         "does not match its account"], lambda s: s.deals[0]),
    "a card in a CardDealt": (
        of(DealAggregate.CardDealt, lambda s: s.deals[1]), fact("card", lambda _: "2C"),
        ["does not replay to its recorded", "CardDealt", "2C"], lambda s: s.deals[1]),
    "a balance_after in an Account.Credited": (
        of(Account.Credited), balance_after, ["says", "(R11.1)"], lambda s: s.ids["Ann"]),
    "a PackShuffled seed": (
        of(TableAggregate.PackShuffled), fact("seed", lambda _: OTHER_SEED),
        ["a seed does not match its commitment (R1.7)"], lambda s: s.shuffled_table),
    "a PackShuffled seed and its commitment, swapped for another pair": (
        of(TableAggregate.PackShuffled), another_committed_seed,
        ["did not start from the pack"], lambda s: s.shuffled_deals[0]),
    "a card dealt in a deal still in play": (
        of(DealAggregate.CardDealt, lambda s: s.open_deal, last=True),
        fact("card", other_card), ["does not replay to its recorded", "CardDealt"],
        lambda s: s.open_deal),
}


def test_an_untouched_store_verifies(store_settings, ledger, tmp_path):
    """R7.5, R11.1, R1.7: after the session every deal replays, chips are conserved and
    every seed matches its commitment: exit 0."""
    play_session(ledger)

    checked = pontoon(store_settings, "verify", cwd=tmp_path)

    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "checked" in checked.stdout and "4 deals" in checked.stdout
    assert "2 shuffles" in checked.stdout
    assert "all deals replay, chips are conserved, every seed matches its commitment" in \
        checked.stdout


@pytest.mark.parametrize("tamper", list(TAMPERS))
def test_an_event_altered_in_the_database_is_found_and_named(
        store_settings, ledger, tmp_path, tamper):
    """R11.4 nothing recorded is changed: `pontoon verify` finds one stored event altered
    by hand (a settlement's amount, a card, a running balance, a seed, a seed with a
    matching commitment, a card of an open deal), names the problem and the deal, table or
    account, and exits 1. (The architecture promises each of these checks: every deal
    re-decided, balance chains, postings matched to entries, seeds against commitments,
    each deal's pack against its table's shuffles.)"""
    pick, change, complaints, named = TAMPERS[tamper]
    session = play_session(ledger)
    rewrite_event(store_settings, pick(session, notifications(ledger)), change)

    checked = pontoon(store_settings, "verify", cwd=tmp_path)

    report = checked.stdout
    assert checked.returncode == 1, report + checked.stderr
    assert "Traceback" not in checked.stderr
    assert "problem(s):" in report
    for complaint in complaints:
        assert complaint in report, report
    assert named(session) in report, report


# 25 players and the banker take all 52 cards in two rounds; Sam's twist finds no card
# (R1.6, as in the rule tests).
def void_deal_pack() -> list[str]:
    fixed = ["AS", "2S", "4S", "KS", "3S", "5S"]
    rest = iter(c for c in stacked_pack([]) if c not in fixed)
    first = ["AS", "2S", *[next(rest) for _ in range(23)], "4S"]
    second = ["KS", "3S", *[next(rest) for _ in range(23)], "5S"]
    return first + second


def play_void_deal(ledger: Any) -> Any:
    """Each of 25 players stakes 3 of their 10 chips; Sam's twist finds the pack empty."""
    players = ("Banker", "Pat", "Sam", *(f"P{i}" for i in range(3, 26)))
    club = seat_club(ledger, players, chips=10,
                     pack={"mode": "ordered", "cards": void_deal_pack()})
    club.start()
    for name in players[1:]:
        club.act(name, "stake", amount=3)
    club.act("Sam", "twist")
    return club


def test_a_store_with_a_void_deal_verifies_and_the_audit_shows_it_void(
        store_settings, ledger, tmp_path):
    """R1.6: the pack runs out, the deal is void and every stake comes back; verify still
    replays it (exit 0) and the audit read model records it as void with its end."""
    club = play_void_deal(ledger)
    store = read_store(ledger, store_settings)
    assert store is not None
    Projections(ledger, store).catch_up()

    checked = pontoon(store_settings, "verify", cwd=tmp_path)

    assert club.deal.phase == "void"
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "1 deals" in checked.stdout
    [row] = store.rows("SELECT phase, ended_position FROM deals")
    assert row["phase"] == "void" and row["ended_position"] is not None
    assert {r["balance"] for r in store.rows("SELECT balance FROM accounts WHERE kind = %s",
                                             ("player",))} == {10}


def test_a_void_deal_is_told_to_webhooks_as_settled_with_its_stakes_returned(ledger):
    """Decision 81: R1.6 voids the deal; webhooks hear `deal.settled` with `void: true`, no
    results, the stakes' return postings, and neither a card nor the pack."""
    club = play_void_deal(ledger)

    told = [payload(ledger.mapper.to_domain_event(n)) for n in notifications(ledger)
            if n.topic == topic(DealAggregate.DealVoided)]

    [(kind, data)] = told
    assert kind == "deal.settled" and data["void"] is True and data["results"] == []
    assert data["deal_id"] == str(club.deal_id) and "R1.6" in data["reason"]
    assert sum(p["amount"] for p in data["postings"]) == 3 * 25
    assert not {"pack_after", "banker_hand", "cards"} & set(data)


def test_a_store_where_players_sat_out_verifies_and_the_kept_pack_is_dealt_next(
        store_settings, ledger, tmp_path):
    """R3.5: Pat holds 10 chips at two tables with a minimum stake of 10 and stakes them at
    A; at B his stake sits him out and, nobody else being left, B's deal is void with the
    pack kept. After a buy-in the next deal at B starts from that kept pack. `pontoon
    verify` re-decides every deal, the sit-out and both voids included, and checks each
    deal's pack against its table's: exit 0."""
    rules = {"min_stake": 10, "max_stake": 20}
    a = seat_club(ledger, ("Ann", "Pat"), rules=rules, chips={"Ann": 100, "Pat": 10},
                  banker="Ann")
    b_table = str(ledger.open_table(
        name="B", seats=[a.ids["Ann"], a.ids["Pat"]], banker=a.ids["Ann"], rules=rules,
        pack={"mode": "ordered", "cards": stacked_pack(["9C", "KD"])}).result["table_id"])
    a.start()
    b_deal = str(ledger.start_deal(b_table).result["deal_id"])
    a.act("Pat", "stake", amount=10)
    ledger.act(b_deal, a.ids["Pat"], "stake", amount=10)
    kept = ledger.table(b_table).engine.pack
    ledger.buy_in(a.ids["Pat"], 10)
    next_deal = str(ledger.start_deal(b_table).result["deal_id"])

    checked = pontoon(store_settings, "verify", cwd=tmp_path)

    assert ledger.deal(b_deal).engine.phase == "void"
    assert kept is not None and kept[-2:] == ["9C", "KD"]
    assert ledger.deal(next_deal).engine.banker_cards == [kept[1]]
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "all deals replay" in checked.stdout


# --- stores written before the treasury's balance was derived (decisions.md 67) ------------

def buy_in_the_old_way(ledger: Any, player_id: str, amount: int) -> None:
    """As a buy-in was saved before: the player's entry and the treasury's own, one save,
    the treasury's account opened by its first posting."""
    player = ledger.player_account(player_id)
    try:
        treasury = ledger.repository.get(TREASURY_ID)
    except AggregateNotFoundError:
        treasury = Account.open(id=TREASURY_ID, kind="treasury", owner=None, name="treasury")
    posting_id = make_posting_id(player.id, player.version + 1, 0)
    for account, credit in ((player, True), (treasury, False)):
        account.move(credit=credit, posting_id=posting_id, amount=amount,
                     from_account=TREASURY, to_account=player_account(player_id),
                     rule="R11.1", reason=f"the treasurer issues {amount} chips",
                     deal_id=None, table_id=None, hand=None)
    ledger.save(player, treasury)


def test_a_store_with_the_treasurys_own_entries_verifies(ledger):
    """R11.1: an old store's treasury account opens after its first counterpart's entry;
    its opening does not forget the chips that entry issued, and its own entries end where
    the derived balance does."""
    pat = str(ledger.register_player("Pat").result["id"])
    buy_in_the_old_way(ledger, pat, 100)
    buy_in_the_old_way(ledger, pat, 30)
    ledger.buy_in(pat, 20)

    report = verify(ledger)

    assert report.ok, report.failures
    assert report.accounts == 2


def test_a_failure_on_a_webhooks_event_names_it_a_webhook():
    """verify names the aggregate a failing event belongs to (R11.4)."""
    assert named("domain.aggregates:Webhook.Subscribed", TREASURY_ID).startswith("webhook ")
