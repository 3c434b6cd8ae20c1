"""Stored events stay readable: pinned topics, an upcaster for an older event version,
snapshots that read back exactly what the events replay, and balances as they stood."""

from __future__ import annotations

import json
from datetime import timedelta
from uuid import UUID

from eventsourcing.domain import DomainEvent
from eventsourcing.persistence import StoredEvent
from eventsourcing.utils import get_topic, resolve_topic

from domain.aggregates import (
    TREASURY_ID,
    Account,
    Club,
    DealAggregate,
    Dispute,
    Receipt,
    Simulation,
    TableAggregate,
    TableName,
    Token,
    Webhook,
)
from domain.engine import facts as f
from domain.engine.table import Table
from tests.integration.ledger_views import (
    events_of,
    fresh_ledger,
    notifications,
    past_balance,
    seat_club,
    table_picture,
    topic,
    treasury_balance,
)

AGGREGATES = (DealAggregate, TableAggregate, Account, Receipt, Token, Dispute, Webhook, Club,
              TableName, Simulation)
THREE = ("Banker", "Pat", "Sam")
SHOOT = {"shoot": True, "kitty_min": 10, "kitty_max": 50}

# Every event class the ledger declares. A rename must fail here: stored events name these.
PINNED_TOPICS = [
    "domain.aggregates:DealAggregate.DealStarted",
    "domain.aggregates:DealAggregate.CardDealt",
    "domain.aggregates:DealAggregate.StakePlaced",
    "domain.aggregates:DealAggregate.PlayerSatOut",
    "domain.aggregates:DealAggregate.BankerDoubled",
    "domain.aggregates:DealAggregate.BankerDeclinedToDouble",
    "domain.aggregates:DealAggregate.ShootBetPlaced",
    "domain.aggregates:DealAggregate.ShootPassed",
    "domain.aggregates:DealAggregate.CardBought",
    "domain.aggregates:DealAggregate.HandTwisted",
    "domain.aggregates:DealAggregate.HandSplit",
    "domain.aggregates:DealAggregate.HandBurned",
    "domain.aggregates:DealAggregate.HandStuck",
    "domain.aggregates:DealAggregate.HandFinished",
    "domain.aggregates:DealAggregate.HandBusted",
    "domain.aggregates:DealAggregate.PlayersTurnsBegan",
    "domain.aggregates:DealAggregate.BankerTurnBegan",
    "domain.aggregates:DealAggregate.BankerStayed",
    "domain.aggregates:DealAggregate.DealSettled",
    "domain.aggregates:DealAggregate.DealVoided",
    "domain.aggregates:TableAggregate.TableOpened",
    "domain.aggregates:TableAggregate.PackArranged",
    "domain.aggregates:TableAggregate.PackShuffled",
    "domain.aggregates:TableAggregate.PlayerSeated",
    "domain.aggregates:TableAggregate.PlayerLeft",
    "domain.aggregates:TableAggregate.KittyPutUp",
    "domain.aggregates:TableAggregate.BankSold",
    "domain.aggregates:TableAggregate.AuctionOpened",
    "domain.aggregates:TableAggregate.BidPlaced",
    "domain.aggregates:TableAggregate.AuctionClosed",
    "domain.aggregates:TableAggregate.DealOpened",
    "domain.aggregates:TableAggregate.DealEnded",
    "domain.aggregates:TableAggregate.KittyCorrected",
    "domain.aggregates:TableAggregate.ContributionAdded",
    "domain.aggregates:Account.Opened",
    "domain.aggregates:Account.Moved",
    "domain.aggregates:Account.Credited",
    "domain.aggregates:Account.Debited",
    "domain.aggregates:Receipt.Recorded",
    "domain.aggregates:Receipt.PositionNoted",
    "domain.aggregates:Token.Issued",
    "domain.aggregates:Token.Revoked",
    "domain.aggregates:Dispute.Raised",
    "domain.aggregates:Dispute.Resolved",
    "domain.aggregates:Webhook.Subscribed",
    "domain.aggregates:Webhook.Deleted",
    "domain.aggregates:Webhook.Enabled",
    "domain.aggregates:Webhook.Disabled",
    "domain.aggregates:Webhook.Replayed",
    "domain.aggregates:Club.Founded",
    "domain.aggregates:Club.SettingsChanged",
    "domain.aggregates:Club.DayClosed",
    "domain.aggregates:TableName.Reserved",
    "domain.aggregates:Simulation.Begun",
    "domain.aggregates:Simulation.RunBegun",
    "domain.aggregates:Simulation.RunEnded",
]


def declared_events(aggregate: type) -> dict[str, type]:
    """Event classes declared in the aggregate's body (not the library's own Event and
    Created bases, which it adds to every aggregate class)."""
    return {name: value for name, value in vars(aggregate).items()
            if isinstance(value, type) and issubclass(value, DomainEvent)
            and name not in ("Event", "Created")}


def all_declared_events() -> list[tuple[type, str, type]]:
    return [(aggregate, name, cls) for aggregate in AGGREGATES
            for name, cls in declared_events(aggregate).items()]


# --- (a) topics ----------------------------------------------------------------------------

def test_every_event_class_has_its_pinned_topic():
    """Stored events name their class by topic; renaming one would orphan stored events."""
    declared = all_declared_events()

    topics = [get_topic(cls) for _, _, cls in declared]

    assert topics == PINNED_TOPICS
    for aggregate, name, cls in declared:
        assert get_topic(cls) == f"domain.aggregates:{aggregate.__name__}.{name}"
        assert resolve_topic(get_topic(cls)) is cls


def test_every_fact_of_the_engine_has_an_event_of_the_same_name():
    """R7.5: every fact the engine decides is recorded as an event class of its own name."""
    events = {name for aggregate in (DealAggregate, TableAggregate)
              for name in declared_events(aggregate)}

    missing = sorted(set(f.FACT_TYPES) - events)

    assert missing == []
    assert set(f.FACT_TYPES) == events


def test_the_topics_a_played_deal_stores_are_all_pinned(ledger):
    """Whatever a real deal and its table store, every topic is one of the pinned topics."""
    club = seat_club(ledger, THREE, top=["10S", "10H", "10C", "9S", "7H", "8C"], rules=SHOOT,
                     kitty=10)
    club.start()
    for name, action, amount in [("Pat", "stake", 2), ("Sam", "stake", 2), ("Pat", "shoot", 10),
                                 ("Pat", "stick", None), ("Sam", "stick", None),
                                 ("Banker", "stay", None)]:
        club.act(name, action, **({} if amount is None else {"amount": amount}))
    ledger.create_token("operator", key="a-key")

    stored = {n.topic for n in notifications(ledger)}

    assert stored <= set(PINNED_TOPICS)
    assert {topic(DealAggregate.DealSettled), topic(Receipt.Recorded),
            topic(TableAggregate.KittyPutUp), topic(Token.Issued)} <= stored


# --- (b) an older event version ------------------------------------------------------------

def store_as_version_1(ledger, table_id: str, amount: int, old_posting_rule: str) -> None:
    """Decide a KittyPutUp as today, then store it as version 1 stored it: no class_version,
    no `rule` in the fact, and the posting's old rule."""
    table = ledger.table(table_id)
    table.record(table.trial().put_up_kitty(table.engine.banker, amount, None))
    [event] = table.collect_events()
    stored = ledger.mapper.to_stored_event(event)
    assert ledger.mapper.cipher is None and ledger.mapper.compressor is None
    state = ledger.mapper.transcoder.decode(stored.state)
    assert state.pop("class_version") == 2
    del state["fact"]["rule"]
    state["fact"]["posting"]["rule"] = old_posting_rule
    ledger.recorder.insert_events([StoredEvent(
        originator_id=stored.originator_id, originator_version=stored.originator_version,
        topic=stored.topic, state=ledger.mapper.transcoder.encode(state))])


def test_a_version_1_kitty_event_is_read_through_its_upcaster(ledger, store_settings):
    """R9.1, R9.9: version-1 KittyPutUp events carry no rule; reading them names R9.1 for a
    new kitty and R9.9 for a top-up, in the fact and in its posting."""
    club = seat_club(ledger, rules=SHOOT)
    store_as_version_1(ledger, club.table_id, 20, "R9.1")
    store_as_version_1(ledger, club.table_id, 15, "R9.1")
    raw = [json.loads(n.state) for n in notifications(ledger)
           if n.topic == topic(TableAggregate.KittyPutUp)]
    assert [("class_version" in s, "rule" in s["fact"]) for s in raw] == [(False, False)] * 2

    with fresh_ledger(store_settings) as again:
        table = again.repository.get(UUID(club.table_id))
        kitties = [e for e in events_of(again, club.table_id)
                   if isinstance(e, TableAggregate.KittyPutUp)]

    assert table.engine.kitty == 35
    assert [(e.fact["amount"], e.fact["rule"], e.fact["posting"]["rule"]) for e in kitties] == [
        (20, "R9.1", "R9.1"), (15, "R9.9", "R9.9")]
    assert [f.Fact.from_dict("KittyPutUp", e.fact).rule for e in kitties] == ["R9.1", "R9.9"]


def test_a_version_1_token_reads_with_its_aggregate_id_as_its_principal_id(ledger):
    """Version-1 tokens had no principal id; they read with the one they were shown by, and
    tokens issued today get a random one, unrelated to the token (decisions.md 24)."""
    from domain.aggregates import token_id

    token = Token.issue("ab" * 32, "operator", None)
    [event] = token.collect_events()
    stored = ledger.mapper.to_stored_event(event)
    state = ledger.mapper.transcoder.decode(stored.state)
    assert state.pop("class_version") == 3
    for added in ("principal_id", "label", "expires_at"):  # by versions 2 and 3
        del state[added]
    ledger.recorder.insert_events([StoredEvent(
        originator_id=stored.originator_id, originator_version=stored.originator_version,
        topic=stored.topic, state=ledger.mapper.transcoder.encode(state))])
    issued = ledger.create_token("operator").result["token"]

    old = ledger.repository.get(token_id("ab" * 32))
    new = ledger.principal(issued)

    assert old.principal_id == str(token_id("ab" * 32))
    assert (old.label, old.expires_at, old.revoked) == (None, None, False)
    assert new is not None and new.principal_id != str(new.id)


def test_a_version_1_dispute_resolution_reads_as_allowing_no_debt(ledger, store_settings):
    """R11.4's Decision: `allow_debt` is recorded with a resolution since version 2; a
    version-1 resolution allowed none on purpose and reads as false."""
    dispute = Dispute.raise_about(id=UUID(int=7), deal_id=str(UUID(int=8)),
                                  raised_by="treasurer:t", reason="recount")
    dispute.resolve(decision="rejected", note="as paid", corrections=[], resolved_by="t",
                    allow_debt=True)
    events = dispute.collect_events()
    stored = [ledger.mapper.to_stored_event(e) for e in events]
    state = ledger.mapper.transcoder.decode(stored[1].state)
    assert state.pop("class_version") == 2
    del state["allow_debt"]
    stored[1] = StoredEvent(originator_id=stored[1].originator_id,
                            originator_version=stored[1].originator_version,
                            topic=stored[1].topic, state=ledger.mapper.transcoder.encode(state))
    ledger.recorder.insert_events(stored)

    with fresh_ledger(store_settings) as again:
        read = again.repository.get(UUID(int=7))

    assert (read.status, read.decision, read.allow_debt) == ("resolved", "rejected", False)


def test_a_kitty_event_saved_today_is_stored_as_version_2(ledger):
    """The current KittyPutUp is class_version 2 and names its rule when stored (R9.1)."""
    club = seat_club(ledger, rules=SHOOT)

    ledger.put_up_kitty(club.table_id, club.ids["Banker"], 20)

    [raw] = [json.loads(n.state) for n in notifications(ledger)
             if n.topic == topic(TableAggregate.KittyPutUp)]
    assert raw["class_version"] == 2 and raw["fact"]["rule"] == "R9.1"


# --- (c) snapshots -------------------------------------------------------------------------

def test_an_account_is_snapshotted_every_100_events_and_read_back(ledger, store_settings):
    """Snapshots every 100 events: 250 buy-ins leave Pat's account at version 251 with
    snapshots at 100 and 200; a new application reads the same balance (R11.1)."""
    pat = str(ledger.register_player("Pat").result["id"])

    for _ in range(250):
        ledger.buy_in(pat, 2)

    snapshots = list(ledger.snapshots.get(UUID(pat)))
    assert [s.originator_version for s in snapshots] == [100, 200]
    assert [s.state["balance"] for s in snapshots] == [2 * 99, 2 * 199]
    assert list(ledger.snapshots.get(TREASURY_ID)) == []  # its balance is derived
    with fresh_ledger(store_settings) as again:
        account = again.player_account(pat)
        assert (account.version, account.balance) == (251, 500)
        assert treasury_balance(again) == -500
        assert again.repository.get(UUID(pat), version=150).balance == 2 * 149


def test_a_long_lived_table_is_snapshotted_and_reads_back_identically(ledger, store_settings):
    """A table past 100 events (a deal, joins and leaves, an auction open at the snapshot,
    R9.10) is snapshotted; the snapshot and the events replay to the same table."""
    club = seat_club(ledger, THREE, top=["10S", "10H", "10C", "9S", "7H", "8C"], rules=SHOOT,
                     kitty=10)
    club.start()
    for name, action, amount in [("Pat", "stake", 2), ("Sam", "stake", 2), ("Pat", "shoot", 10),
                                 ("Pat", "stick", None), ("Sam", "stick", None),
                                 ("Banker", "stay", None)]:
        club.act(name, action, **({} if amount is None else {"amount": amount}))
    cat = str(ledger.register_player("Cat").result["id"])
    while ledger.table(club.table_id).version < 97:
        if cat in club.table.seats:
            ledger.remove_player(club.table_id, cat)
        else:
            ledger.seat_player(club.table_id, cat, after=club.ids["Banker"])
    ledger.open_auction(club.table_id, club.ids["Banker"])
    ledger.bid(club.table_id, club.ids["Sam"], 5)
    ledger.bid(club.table_id, club.ids["Pat"], 7)

    ledger.close_auction(club.table_id, club.ids["Banker"])

    [snapshot] = ledger.snapshots.get(UUID(club.table_id))
    assert snapshot.originator_version == 100
    assert isinstance(snapshot.state["engine"], Table)
    assert snapshot.state["engine"].auction == [(club.ids["Sam"], 5), (club.ids["Pat"], 7)]
    facts = [f.Fact.from_dict(type(e).__name__, e.fact)
             for e in events_of(ledger, club.table_id)]
    assert len(facts) == 102  # the close adds AuctionClosed and BankSold
    with fresh_ledger(store_settings) as again:
        table = again.table(club.table_id)
        at_snapshot = again.repository.get(UUID(club.table_id), version=100)
    assert table.version == 102 and table.engine.banker == club.ids["Pat"]
    assert table_picture(table.engine) == table_picture(Table.replay(facts))
    assert table_picture(table.engine) == table_picture(club.table)
    assert table_picture(at_snapshot.engine) == table_picture(Table.replay(facts[:100]))


# --- (d) balances as they stood ------------------------------------------------------------

def test_a_balance_is_read_as_it_stood_at_a_past_position_or_time(ledger, store_settings):
    """R11.4: nothing recorded changes, so any past balance can be read: by the position a
    command answered, or by a time."""
    pat = str(ledger.register_player("Pat").result["id"])
    sam = str(ledger.register_player("Sam").result["id"])
    registered = ledger.buy_in(sam, 1).position

    first = ledger.buy_in(pat, 100).position
    between = ledger.buy_in(sam, 7).position
    second = ledger.buy_in(pat, 50).position
    third = ledger.cash_out(pat, 30).position

    assert [past_balance(ledger, pat, position=p) for p in (registered, first, between, second,
                                                         third)] == [0, 100, 100, 150, 120]
    assert past_balance(ledger, pat) == 120
    entries = events_of(ledger, pat)
    times = [e.timestamp for e in entries]
    with fresh_ledger(store_settings) as again:
        assert [past_balance(again, pat, at=t) for t in times] == [0, 100, 150, 120]
        assert past_balance(again, pat, at=times[0] - timedelta(seconds=1)) == 0
        assert past_balance(again, pat, at=times[2] + (times[3] - times[2]) / 2) == 150
        assert past_balance(again, pat, at=times[-1] + timedelta(days=1)) == 120
        assert past_balance(again, pat, position=second) == 150
