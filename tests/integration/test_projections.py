"""The read models (projections/) after a realistic session, on SQLite and PostgreSQL: balances,
statements and past balances, kitty history, deal audits, shuffles, disputes; exactly-once
application of the event log; rebuilds; the event feed. See projection_session.py for the
session played."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from typing import Any

import pytest
from eventsourcing.persistence import IntegrityError, Tracking

from domain.aggregates import DealAggregate, Dispute, TableAggregate
from domain.engine.shuffle import commitment
from projections.audit import audit
from projections.disputes import disputes
from projections.feed import events
from projections.statements import balance_at, statement
from projections.store import TABLES, ReadStore, read_store
from tests.integration.ledger_views import events_of, head, notifications, past_balance, topic
from tests.integration.projection_session import (
    OPEN_SEED,
    PONTOON_SEED,
    TOP,
    Session,
    aggregate_balances,
    count_rows,
    dump,
    entries_of,
    play_session,
    projections,
    read_balances,
    same_balances,
    total,
)
from tests.ledger_club import stacked_pack


@pytest.fixture
def store(ledger, store_settings) -> ReadStore:
    found = read_store(ledger, store_settings)
    assert found is not None
    return found


@pytest.fixture
def session(ledger) -> Session:
    return play_session(ledger)


@pytest.fixture
def caught_up(ledger, store, session) -> Session:
    projections(ledger, store).catch_up()
    return session


def accounts_of(session: Session) -> list[str]:
    return [*(session.account(name) for name in session.ids), session.kitty, "treasury"]


def read_model(runner, name: str):  # type: ignore[no-untyped-def]
    return next(model for model in runner.models if model.name == name)


# --- where the rows go ---------------------------------------------------------------------------

def test_the_read_models_are_written_beside_the_events_in_the_stores_own_tables(
        ledger, store, store_settings, session):
    """The read store lives in the ledger's own database (projections/store.py): the SQLite
    file, or the PostgreSQL schema that PONTOON_DATABASE_URL names with `?schema=`, where
    `pontoon migrate` created its tables."""
    runner = projections(ledger, store)

    runner.catch_up()

    assert count_rows(store_settings, "accounts") == len(aggregate_balances(ledger)) == 12
    assert count_rows(store_settings, "deals") == 5
    assert count_rows(store_settings, "disputes") == 2


# --- balances (R11.1) ---------------------------------------------------------------------------

def test_balances_equal_the_aggregates_and_sum_to_zero_after_every_catch_up(ledger, store):
    """R11.1: after every command of the session and a catch-up, each account's row (players,
    treasury, kitty, every deal's escrow) holds the aggregates' balance, and all rows sum
    to zero."""
    runner = projections(ledger, store)
    seen: list[tuple[int, dict[str, int], dict[str, int]]] = []

    def check() -> None:
        runner.catch_up()
        seen.append((total(store), read_balances(store), aggregate_balances(ledger)))

    session = play_session(ledger, after_command=check)

    assert len(seen) == len(session.positions) > 40
    for index, (summed, read, aggregates) in enumerate(seen):
        assert summed == 0, f"after command {index + 1}"
        assert same_balances(read, aggregates), f"after command {index + 1}"
    final = read_balances(store)
    assert final[f"escrow:{session.open_deal}"] == 2
    assert final[session.account("Sam")] == 58 and final[session.kitty] == 3
    assert {row for row in final if row.startswith("escrow:")} == {
        f"escrow:{deal}" for deal in session.deals + session.shuffled_deals}


def test_balances_sum_to_zero_after_every_single_event_not_only_every_command(
        ledger, store, session):
    """R11.1: applied one event at a time (pages of one), the balances still sum to zero
    between the events of one command, and at each command's last event they equal every
    player's past balance (R11)."""
    runner = projections(ledger, store, page=1)
    balances = read_model(runner, "balances")
    totals, at_commands = [], {}

    while runner.step(balances):
        totals.append(total(store))
        position = runner.position(balances)
        if position in session.positions:
            at_commands[position] = read_balances(store)

    assert len(totals) == head(ledger) > 150
    assert set(totals) == {0}
    assert set(at_commands) == set(session.positions)
    for position, read in at_commands.items():
        for name, player in session.ids.items():
            assert read.get(session.account(name), 0) == past_balance(
                ledger, player, position=position), (name, position)
    assert same_balances(read_balances(store), aggregate_balances(ledger))


# --- statements, past balances, kitty history ----------------------------------------------------

def test_statements_chain_their_running_balances_and_page_by_cursor(ledger, store, caught_up):
    """R11: an account's statement lists every entry of the account's own events, oldest
    first, each balance after = the one before + the change; pages of 3 cursored by
    position give the same entries as one long page."""
    session = caught_up

    statements = {account: statement(store, account, limit=1000)
                  for account in accounts_of(session)}
    paged: dict[str, list[dict[str, Any]]] = {}
    for account in statements:
        pages, after = [], 0
        while page := statement(store, account, after=after, limit=3):
            assert len(page) <= 3
            pages.append(page)
            after = page[-1]["position"]
        paged[account] = [entry for page in pages for entry in page]

    for account, entries in statements.items():
        assert paged[account] == entries
        expected = entries_of(ledger, account)
        assert [(e["position"], e["posting_id"], e["change"], e["balance_after"], e["rule"],
                 e["reason"], e["from_account"], e["to_account"], e["amount"])
                for e in entries] == [
            (position, ev.posting_id, ev.amount if type(ev).__name__ == "Credited"
             else -ev.amount, ev.balance_after, ev.rule, ev.reason, ev.from_account,
             ev.to_account, ev.amount) for position, ev in expected], account
        running = 0
        for entry in entries:
            running += entry["change"]
            assert entry["balance_after"] == running, (account, entry)
        assert running == read_balances(store)[account]
    assert sum(len(entries) for entries in statements.values()) > 50


def test_balance_at_a_position_or_a_time_is_the_aggregates_past_balance(
        ledger, store, caught_up):
    """R11: a past balance by position matches the account's own entries at every
    position; by time, the balance after the last entry at or before that time (at each
    entry's own time, and before the first entry 0)."""
    session = caught_up
    last = head(ledger)

    by_position = {name: [balance_at(store, session.account(name), position=p)
                          for p in range(0, last + 1)] for name in session.ids}

    for name, player in session.ids.items():
        assert by_position[name] == [past_balance(ledger, player, position=p)
                                     for p in range(0, last + 1)], name
    for account in accounts_of(session):
        entries = entries_of(ledger, account)
        first = entries[0][1].timestamp
        assert balance_at(store, account, time=_iso(first.replace(microsecond=0)
                                                    - _second())) == 0
        for position, event in entries:
            assert balance_at(store, account, position=position) == event.balance_after
            assert balance_at(store, account, time=_iso(event.timestamp)) == \
                _balance_at_time(entries, event.timestamp)
        for name, player in session.ids.items():
            if account == session.account(name):
                for _, event in entries:
                    assert balance_at(store, account, time=_iso(event.timestamp)) == \
                        past_balance(ledger, player, at=event.timestamp)


def _second():  # type: ignore[no-untyped-def]
    from datetime import timedelta

    return timedelta(seconds=1)


def _iso(moment) -> str:  # type: ignore[no-untyped-def]
    from datetime import UTC

    return str(moment.astimezone(UTC).isoformat(timespec="microseconds"))


def _balance_at_time(entries: list[tuple[int, Any]], moment) -> int:  # type: ignore[no-untyped-def]
    balance = 0
    for _, event in entries:
        if event.timestamp <= moment:
            balance = event.balance_after
    return balance


def test_the_kitty_statement_is_its_history_with_every_change_its_reason_and_rule(
        ledger, store, caught_up):
    """R9.1 put up, R9.7 a busted hand's shoot bet, R9.9 a top-up, R9.8 shoot bets lost and
    won at settlement, R9.11 the old banker takes the kitty when the bank is sold, R9.1 the
    new banker's kitty, R11.4 a correction: every change of the kitty, in order, with its
    deal and reason."""
    session = caught_up
    d1, d2, d3 = session.deals

    history = statement(store, session.kitty, limit=100)

    assert [(e["change"], e["balance_after"], e["rule"], e["deal_id"]) for e in history] == [
        (20, 20, "R9.1", None), (5, 25, "R9.7", d1), (5, 30, "R9.9", None),
        (3, 33, "R9.8", d2), (-33, 0, "R9.11", None), (10, 10, "R9.1", None),
        (-4, 6, "R9.8", d3), (-3, 3, "R11.4", d1)]
    reasons = [e["reason"] for e in history]
    assert "bust" in reasons[1] and "shoot bet of 5" in reasons[1]
    assert "tops up" in reasons[2] and "old banker takes the 33" in reasons[4]
    assert "did not beat" in reasons[3] and "beat the banker" in reasons[6]
    assert session.upheld in reasons[7]
    assert all(e["table_id"] == session.table_id for e in history[:7])
    assert {e["to_account"] for e in history if e["change"] > 0} == {session.kitty}
    assert [e["posting_id"] for e in history] == [
        event.posting_id for _, event in entries_of(ledger, session.kitty)]


def test_after_a_correction_out_of_the_kitty_the_table_knows_the_kittys_chips(
        ledger, store, caught_up):
    """R11.4 with R9.2: the upheld dispute moved 3 chips out of the kitty (decisions.md 19:
    corrections move chips between players, kitties and the treasury). The kitty's history
    ends at 3, and the table's kitty, which limits shoot bets (R9.2), and the tables read
    model must say the same, or a player may shoot chips the kitty does not hold."""
    session = caught_up

    history = statement(store, session.kitty, limit=100)
    [listed] = [row for row in store.rows("SELECT table_id, kitty FROM tables")
                if row["table_id"] == session.table_id]

    assert history[-1]["balance_after"] == 3
    assert ledger.table(session.table_id).engine.kitty == 3
    assert listed["kitty"] == 3


# --- deals, their events and shuffles (R1.7, R7.5) -----------------------------------------------

def test_deals_and_their_events_are_recorded_in_order_with_their_positions(
        ledger, store, caught_up):
    """R7.5: one row per deal (table, number, banker, players, phase, commitment, start and
    end positions) and every event of each deal in version order, with its position, type,
    actor and fact; an audit built from them replays every deal."""
    session = caught_up
    position_of = {(str(n.originator_id), n.originator_version): n.id
                   for n in notifications(ledger)}
    names = {player: name for name, player in session.ids.items()}
    all_deals = session.deals + session.shuffled_deals

    rows = {row["deal_id"]: row for row in store.rows("SELECT * FROM deals")}
    events_rows = {deal: store.rows("SELECT * FROM deal_events WHERE deal_id = %s "
                                    "ORDER BY version", (deal,)) for deal in all_deals}

    assert set(rows) == set(all_deals)
    for deal_id in all_deals:
        row, recorded = rows[deal_id], events_of(ledger, deal_id)
        engine = ledger.deal(deal_id).engine
        assert (row["table_id"], row["number"], row["banker"], json.loads(row["players"])) == (
            engine.table_id, engine.number, engine.banker, recorded[0].fact["players"])
        assert row["commitment"] == recorded[0].fact["commitment"]
        assert row["started_position"] == position_of[(deal_id, 1)]
        assert [(r["version"], r["position"], r["type"], r["actor"], json.loads(r["fact"]))
                for r in events_rows[deal_id]] == [
            (e.originator_version, position_of[(deal_id, e.originator_version)],
             type(e).__name__, e.actor, e.fact) for e in recorded]
        if deal_id == session.open_deal:
            assert (row["phase"], row["ended_position"], row["ended_at"]) == (
                "open", None, None)
            continue
        assert row["phase"] == "settled"
        assert row["ended_position"] == position_of[(deal_id, len(recorded))]
        assert row["started_at"] < row["ended_at"]
        report = audit(store, deal_id, names=names)
        assert report is not None and report["verification"] == {
            "replayed": True, "chips_conserved": True, "differences": []}
    assert [rows[d]["number"] for d in session.deals] == [1, 2, 3]
    assert [rows[d]["banker"] for d in session.deals] == [
        session.ids["Ann"], session.ids["Ann"], session.ids["Pat"]]
    assert rows[session.shuffled_deals[0]]["commitment"] == commitment(PONTOON_SEED)
    assert rows[session.open_deal]["commitment"] == commitment(OPEN_SEED)


def test_shuffles_are_recorded_with_their_commitment_and_the_seed_once_revealed(
        ledger, store, caught_up):
    """R1.7: each shuffle's commitment is recorded when the pack is shuffled; its seed only
    when the next shuffle reveals it (R1.4, after Dan's pontoon). An ordered table records
    no shuffle until it reshuffles."""
    session = caught_up
    shuffled = [n.id for n in notifications(ledger, topics=[topic(TableAggregate.PackShuffled)])]

    rows = store.rows("SELECT table_id, commitment, seed, shuffled_position, revealed_position "
                      "FROM shuffles ORDER BY shuffled_position")

    assert rows == [
        {"table_id": session.shuffled_table, "commitment": commitment(PONTOON_SEED),
         "seed": PONTOON_SEED, "shuffled_position": shuffled[0],
         "revealed_position": shuffled[1]},
        {"table_id": session.shuffled_table, "commitment": commitment(OPEN_SEED),
         "seed": None, "shuffled_position": shuffled[1], "revealed_position": None}]
    report = audit(store, session.shuffled_deals[0], names={})
    assert report is not None
    assert report["pack"] == {"commitment": commitment(PONTOON_SEED), "seed": PONTOON_SEED,
                              "seed_matches": True, "contributions": [],
                              "mixed_seed": PONTOON_SEED}


# --- disputes (R11.4) ----------------------------------------------------------------------------

def test_a_dispute_is_open_until_resolved_and_its_corrections_are_new_postings(
        ledger, store, caught_up):
    """R11.4: a raised dispute is an open row; the treasurer's resolution makes it resolved
    with its decision, note and corrections, which appear as new R11.4 entries on both
    accounts (nothing recorded is changed)."""
    session = caught_up
    runner = projections(ledger, store)
    ann, sam = session.account("Ann"), session.account("Sam")
    before = {a: statement(store, a, limit=100) for a in (ann, sam)}

    raised = ledger.raise_dispute(session.deals[2], "Ann's 7D was face up",
                                  raised_by=ann)
    runner.catch_up()
    opened = disputes(store, "open")
    resolved = ledger.resolve_dispute(
        raised.result["id"], decision="upheld", note="exposed card",
        corrections=[{"from_account": sam, "to_account": ann, "amount": 1}],
        resolved_by="treasurer")
    runner.catch_up()

    assert [(d["dispute_id"], d["deal_id"], d["raised_by"], d["reason"], d["status"],
             d["decision"], d["corrections"], d["raised_position"], d["resolved_position"])
            for d in opened] == [
        (raised.result["id"], session.deals[2], ann, "Ann's 7D was face up", "open", None, [],
         raised.position, None)]
    rows = {d["dispute_id"]: d for d in disputes(store)}
    assert disputes(store, "open") == []
    assert [d["dispute_id"] for d in disputes(store, "resolved")] == [
        session.upheld, session.rejected, raised.result["id"]]
    latest = rows[raised.result["id"]]
    [resolution] = [n.id for n in notifications(ledger, after=raised.position or 0)
                    if n.topic == topic(Dispute.Resolved)]
    assert (latest["status"], latest["decision"], latest["note"], latest["resolved_by"],
            latest["resolved_position"]) == (
        "resolved", "upheld", "exposed card", "treasurer", resolution)
    assert resolution < (resolved.position or 0)
    assert latest["corrections"] == resolved.result["corrections"]
    [correction] = latest["corrections"]
    assert (rows[session.rejected]["decision"], rows[session.rejected]["corrections"]) == (
        "rejected", [])
    assert len(rows[session.upheld]["corrections"]) == 2
    for account, change in ((ann, 1), (sam, -1)):
        after = statement(store, account, limit=100)
        assert after[:-1] == before[account]
        assert (after[-1]["posting_id"], after[-1]["change"], after[-1]["rule"]) == (
            correction["id"], change, "R11.4")
        assert raised.result["id"] in after[-1]["reason"]
    assert total(store) == 0


# --- exactly once ---------------------------------------------------------------------------------

def _page_statements(ledger, model, start: int, limit: int):  # type: ignore[no-untyped-def]
    """What a runner reads for one model: a page of the log and the rows it writes."""
    page = ledger.recorder.select_notifications(start=start, limit=limit)
    rows = [row for n in page if n.topic in model.topics
            for row in model.statements(ledger.mapper.to_domain_event(n), n.id)]
    return page, rows


def test_a_page_applied_twice_is_refused_by_the_tracking_and_rows_do_not_double(
        ledger, store, session):
    """Exactly once (R11.1): writing a page's rows again with the page's position is refused
    (the tracking row's IntegrityError) and rolls back; a second runner finds nothing to do."""
    runner = projections(ledger, store)
    pages = {m.name: _page_statements(ledger, m, 1, 1000) for m in runner.models}
    runner.catch_up()
    before = dump(store)

    for model in runner.models:
        page, rows = pages[model.name]
        with pytest.raises(IntegrityError):
            store.write(rows, Tracking(model.tracking_name, page[-1].id), after=0)
    second = projections(ledger, store)

    assert second.catch_up() == 0
    assert dump(store) == before
    assert same_balances(read_balances(store), aggregate_balances(ledger))


def test_a_runner_whose_page_overlaps_events_another_runner_applied_does_not_apply_them_again(
        ledger, store, session):
    """Exactly once with two runners (R11.1; docs/architecture.md: "a page applied twice is
    refused by the tracking row"). Two runners follow one store (a service's in-process
    runner and `pontoon projections run`, or two hosts): runner A reads the whole log as
    its page, the same rows `Projections.step` builds; meanwhile runner B, whose page is
    half as long, applies the first half. A's write must then not apply that half a second
    time (refused, or no row changed): balances stay the aggregates' and the tables stay
    what a rebuild makes."""
    runner_a = projections(ledger, store, page=1000)
    read_by_a = {m.name: _page_statements(ledger, m, 1, 1000) for m in runner_a.models}
    runner_b = projections(ledger, store, page=head(ledger) // 2)
    for model in runner_b.models:
        runner_b.step(model)

    for model in runner_a.models:
        page, rows = read_by_a[model.name]
        with contextlib.suppress(IntegrityError):
            store.write(rows, Tracking(model.tracking_name, page[-1].id), after=0)
    runner_a.catch_up()

    assert same_balances(read_balances(store), aggregate_balances(ledger))
    assert total(store) == 0
    applied = dump(store)
    runner_a.rebuild()
    assert applied == dump(store)


def test_two_runners_taking_turns_each_find_where_the_other_left_the_models(
        ledger, store, session):
    """Exactly once (R11.1) with positions remembered: a runner keeps the positions it
    wrote rather than reading them every step, so after another runner moved the models
    its next write is refused (the tracking check) and it reads them again. Taking turns
    a page at a time, the two end with the tables a rebuild makes."""
    runner_a = projections(ledger, store, page=9)
    runner_b = projections(ledger, store, page=13)
    turns = 0
    while (runner_a.step() + runner_b.step()) > 0:
        turns += 1
    assert turns > 3  # each found the other's pages many times over
    assert runner_a.lags() == {m.name: 0 for m in runner_a.models}
    assert same_balances(read_balances(store), aggregate_balances(ledger))
    applied = dump(store)
    runner_a.rebuild()
    assert applied == dump(store)


def test_a_runner_finds_the_models_moved_back_behind_its_back(ledger, store, session):
    """A runner that remembers its positions still notices a rebuild made elsewhere (the
    CLI's, stopped part way): `catch_up` starts from the store's positions, and a runner
    following the log reads them again once it finds nothing new, on its next step."""
    runner = projections(ledger, store)
    runner.catch_up()
    before = dump(store)

    store.clear(TABLES, [m.tracking_name for m in runner.read_models])
    assert runner.catch_up() == head(ledger)
    assert dump(store) == before

    store.clear(TABLES, [m.tracking_name for m in runner.read_models])
    assert runner.step() + runner.step() > 0  # following: at most one idle step lost
    runner.catch_up()
    assert dump(store) == before


def test_a_read_model_at_an_older_position_resumes_from_there(ledger, store, session):
    """Exactly once (R11.1): a read model stopped part way (each at its own position)
    carries on from its own position after a restart: the tables end as a rebuild makes
    them."""
    first = projections(ledger, store, page=7)
    steps = {"balances": 3, "statements": 1, "audit": 0, "disputes": 5}
    for model in first.models:
        for _ in range(steps.get(model.name, 2)):
            first.step(model)
    stopped = {name: state["position"] for name, state in first.status().items()}

    restarted = projections(ledger, store, page=50)
    for model in restarted.models:
        restarted.step(model)
    moved = {name: state["position"] for name, state in restarted.status().items()}
    restarted.catch_up()

    last = head(ledger)
    assert stopped == {m.name: min(7 * steps.get(m.name, 2), last) for m in first.models}
    assert moved == {name: min(position + 50, last) for name, position in stopped.items()}
    assert restarted.lags() == {m.name: 0 for m in restarted.models}
    resumed = dump(store)
    restarted.rebuild()
    assert resumed == dump(store)


# --- rebuild --------------------------------------------------------------------------------------

def test_a_rebuild_drops_every_row_and_applies_the_log_again_to_identical_tables(
        ledger, store, caught_up):
    """R11.4 (the log is the record, read models are derived): `Projections.rebuild()`
    gives exactly the tables the runner built as it followed, every read model at the head
    of the log."""
    runner = projections(ledger, store)
    before = dump(store)

    read = runner.rebuild()

    assert read == head(ledger)  # the log is read once for every model
    assert dump(store) == before
    assert all(before[table] for table in ("accounts", "postings", "deals", "deal_events",
                                           "shuffles", "disputes"))
    assert runner.status() == {m.name: {"position": head(ledger), "lag": 0}
                               for m in runner.models}


# --- the event feed -------------------------------------------------------------------------------

def _walk(value: Any) -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield key, item
            yield from _walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item)


def _feed(ledger, store, limit: int) -> list[dict[str, Any]]:  # type: ignore[no-untyped-def]
    items, after = [], 0
    while True:
        page, cursor = events(ledger, store, after=after, limit=limit)
        items.extend(page)
        if cursor is None:
            return items
        assert cursor > after
        after = cursor


def test_the_feed_pages_the_log_in_order_without_tokens_receipts_or_secrets(
        ledger, store, caught_up):
    """API.md `GET /v1/events`: every event in log order, cursor paging (pages of 7 give
    the same items as one page), no token, idempotency receipt or table name held (their
    bookkeeping), and no `pack`,
    `pack_after` or `seed` anywhere (R1.7: a seed is public only as `revealed_seed`)."""
    session = caught_up
    ledger.create_token("operator")
    ledger.register_player("Eve", with_token=True)
    ledger.buy_in(session.ids["Ann"], 5, key="feed-test-key")
    projections(ledger, store).catch_up()
    hidden = {n.id for n in notifications(ledger)
              if n.topic.startswith(("domain.aggregates:Token.", "domain.aggregates:Receipt.",
                                     "domain.aggregates:TableName."))}

    paged = _feed(ledger, store, limit=7)
    whole, cursor = events(ledger, store, after=0, limit=10_000)

    assert cursor is None and paged == whole
    positions = [item["position"] for item in whole]
    assert positions == sorted(positions) and len(set(positions)) == len(positions)
    assert set(positions) == set(range(1, head(ledger) + 1)) - hidden and len(hidden) >= 3
    assert not any(item["type"].startswith(("Token.", "Receipt.", "TableName."))
                   for item in whole)
    assert {"Deal.CardDealt", "Table.PackShuffled", "Account.Credited",
            "Dispute.Resolved"} <= {item["type"] for item in whole}
    secret = {key for item in whole for key, _ in _walk(item["data"])} & {
        "pack", "pack_after", "seed"}
    assert secret == set()
    revealed = [item["data"]["fact"]["revealed_seed"] for item in whole
                if item["type"] == "Table.PackShuffled"]
    assert revealed == [None, PONTOON_SEED]
    page, cursor = events(ledger, store, after=positions[3], limit=2)
    assert [item["position"] for item in page] == positions[4:6] and cursor == positions[5]


def test_the_feed_shows_face_down_cards_only_once_the_deal_is_settled(
        ledger, store, caught_up):
    """R3.4, R3.7 (cards dealt face down) and API.md secrecy: in the feed a face-down card
    is null while its deal is open, still null while the audit model has not seen the
    settlement, and shown once it has; face-up cards are always shown."""
    session = caught_up
    deal_id, cat, dan = session.open_deal, session.ids["Cat"], session.ids["Dan"]
    truth = [e.fact for e in events_of(ledger, deal_id)
             if isinstance(e, DealAggregate.CardDealt)]

    while_open = _dealt(_feed(ledger, store, limit=500), deal_id)
    ledger.act(deal_id, cat, "stick")
    ledger.act(deal_id, dan, "stay")
    before_catch_up = _dealt(_feed(ledger, store, limit=500), deal_id)
    projections(ledger, store).catch_up()
    settled = _dealt(_feed(ledger, store, limit=500), deal_id)

    assert ledger.deal(deal_id).engine.phase == "settled"
    assert any(not fact["face_up"] for fact in truth)
    assert while_open == [fact["card"] if fact["face_up"] else None for fact in truth]
    assert before_catch_up[:len(truth)] == while_open
    assert settled == [fact["card"] for fact in truth] + settled[len(truth):]
    assert None not in settled
    face_up_elsewhere = _dealt(_feed(ledger, store, limit=500), session.deals[0])
    assert None not in face_up_elsewhere


def _dealt(items: list[dict[str, Any]], deal_id: str) -> list[str | None]:
    return [item["data"]["fact"]["card"] for item in items
            if item["type"] == "Deal.CardDealt" and item["stream_id"] == deal_id]


def test_the_feed_does_not_give_away_the_order_of_an_ordered_tables_pack(
        ledger, store, caught_up):
    """R1.7, R3.4: the feed leaves out "the pack orders a deal starts from and leaves"
    (docs/architecture.md). An ordered table's arranged pack (`PackArranged.cards`) is the
    order its first deals are dealt from, so it must not appear in the feed either, or the
    face-down cards of an open deal could be read off it."""
    order = stacked_pack(TOP)

    whole, _ = events(ledger, store, after=0, limit=10_000)

    leaked = [(item["position"], item["type"], key) for item in whole
              for key, value in _walk(item["data"]) if value == order]
    assert leaked == []
