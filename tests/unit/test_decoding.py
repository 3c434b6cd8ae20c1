"""The read side's fast decoder (projections/decoding.py) gives exactly what the library's
mapper gives: for every event type the ledger stores, old versions through their upcasters,
odd texts, and stored states it must hand back to the mapper (which then decides, or
raises its own error)."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from typing import Any
from uuid import UUID, uuid4

import pytest
from eventsourcing.persistence import Notification
from eventsourcing.utils import get_topic

from application import Ledger
from application.store import build_ledger
from config import Settings
from domain.aggregates import Account, DealAggregate, Dispute, Receipt, TableAggregate, Token
from domain.engine.legal import legal_actions
from domain.errors import InsufficientChips
from projections.decoding import Decoder
from tests.integration.test_events_and_snapshots import PINNED_TOPICS
from tests.integration.test_verify import void_deal_pack
from tests.ledger_club import LedgerClub, stacked_pack
from tests.scenarios.runner import load, play, scenario_files

BASES = {"domain.aggregates:Account.Moved"}  # declared as a base, never stored itself
# An auction opens only when a Shoot Pontoon kitty runs empty (R9.10): not reached here.
# Their events are facts like every table event here, decoded the same way.
NOT_PLAYED = {f"domain.aggregates:TableAggregate.{name}"
              for name in ("AuctionOpened", "BidPlaced", "AuctionClosed")}
# Written by stores before docs/decisions.md 69 only; still read (decoded below).
OLD_STORES_ONLY = {"domain.aggregates:Receipt.PositionNoted"}


def all_notes(ledger: Ledger) -> list[Any]:
    return list(ledger.recorder.select_notifications(start=1, limit=1_000_000))


def seat(ledger: Ledger, names: list[str], pack: list[str], chips: int = 100) -> tuple[
        dict[str, str], str]:
    ids = {name: str(ledger.register_player(name).result["id"]) for name in names}
    for player in ids.values():
        ledger.buy_in(player, chips)
    table_id = str(ledger.open_table(name=f"decoding {uuid4().hex[:8]}", seats=list(ids.values()),
                                     banker=ids[names[0]],
                                     pack={"mode": "ordered", "cards": pack}
                                     ).result["table_id"])
    return ids, table_id


def play_the_rest(ledger: Ledger) -> None:
    """Tokens, a dispute upheld with corrections (a kitty's too), a webhook, a void deal,
    the club's calendar set and a night closed with a count."""
    ids, table_id = seat(ledger, ["Banker", "Pat"], stacked_pack(["10S", "9H", "10C", "8D"]))
    deal_id = str(ledger.start_deal(table_id).result["deal_id"])
    ledger.act(deal_id, ids["Pat"], "stake", amount=2)
    issued = ledger.create_token("operator", label="bar \"_type_\" staff",
                                 expires_at=datetime.now(UTC) + timedelta(days=1))
    secret = issued.result["token"]
    ledger.revoke_token(_token_key(ledger, secret), issued.result["id"], by="treasurer:t")
    ledger.create_token("player", player_id=ids["Pat"])
    webhook = ledger.create_webhook("https://example.com/hook", ["deal.settled"],
                                    created_by="treasurer:t")
    ledger.enable_webhook(str(webhook.result["id"]), False, by="treasurer:t")
    ledger.enable_webhook(str(webhook.result["id"]), True, by="treasurer:t")
    ledger.replay_webhook(str(webhook.result["id"]), 1, by="treasurer:t")
    ledger.delete_webhook(str(webhook.result["id"]), deleted_by="treasurer:t")
    ledger.change_club(changed_by="treasurer:t", name="The \"_type_\" club",
                       time_zone="Europe/London")
    counted = {f"player:{ids['Pat']}": 7}
    ledger.close_day(date(2026, 1, 16), counted=counted, closed_by="treasurer:t",
                     holdings=lambda start, end, accounts: {a: 5 for a in accounts})
    settled = str(ledger.start_deal(table_id).result["deal_id"]) if _over(ledger, deal_id) \
        else deal_id
    upheld(ledger, settled, "a misread total: {\"_type_\": \"x\"}", "one back",
           f"player:{ids['Banker']}", f"player:{ids['Pat']}")
    names = ["Banker", "Pat", "Sam", *(f"P{i}" for i in range(3, 26))]
    ids, table_id = seat(ledger, names, void_deal_pack(), chips=10)
    deal_id = str(ledger.start_deal(table_id).result["deal_id"])
    for name in names[1:]:
        ledger.act(deal_id, ids[name], "stake", amount=3)
    ledger.act(deal_id, ids["Sam"], "twist")


SHOOT = {"min_stake": 1, "max_stake": 10, "shoot": True, "kitty_min": 20, "kitty_max": 200,
         "split": "pairs", "burn": "13", "banker_may_double": True, "royal_pontoon": True}


def play_at_random(ledger: Ledger, deals: int, seed: int = 11) -> None:
    """Deals at a shuffled Shoot Pontoon table, each action drawn among the legal ones (and
    sent with an idempotency key); then the table's seats, bank and kitty change hands."""
    rng = random.Random(seed)
    ids = {f"R{i}": str(ledger.register_player(f"R{i}").result["id"]) for i in range(6)}
    for player in ids.values():
        ledger.buy_in(player, 5_000)
    seats = list(ids.values())
    table_id = str(ledger.open_table(name="random", seats=seats, banker=seats[0], rules=SHOOT,
                                     pack={"mode": "shuffled"}).result["table_id"])
    for number in range(deals):
        table = ledger.table(table_id).engine
        if table.kitty_needed:
            ledger.put_up_kitty(table_id, table.banker, 50)
        if table.contributions_open:  # a fresh pack: a player adds to it (R1.7)
            ledger.contribute(table_id, seats[1 + number % 5], f"{rng.getrandbits(256):064x}")
        deal_id = str(ledger.start_deal(table_id).result["deal_id"])
        for step in range(200):
            deal = ledger.deal(deal_id).engine
            if deal.is_over:
                break
            options = legal_actions(deal, None)
            choice = options[rng.randrange(len(options))]
            amount = None if choice.amount_min is None else rng.randint(
                choice.amount_min, choice.amount_max or choice.amount_min)
            try:  # the options' amounts ignore chips: one a player cannot pay is refused
                ledger.act(deal_id, choice.player, choice.action, hand=choice.hand,
                           amount=amount, key=f"random-{number}-{step}")
            except InsufficientChips:
                continue
    late = str(ledger.register_player("Late").result["id"])
    ledger.buy_in(late, 500)
    ledger.seat_player(table_id, late)
    banker = ledger.table(table_id).engine.banker
    seats = [seat for seat in seats if seat != banker]
    ledger.remove_player(table_id, seats[4])
    ledger.sell_bank(table_id, late if banker != late else seats[2], 3)
    upheld(ledger, deal_id, "the kitty was miscounted", "kitty back",
           f"player:{seats[1]}", f"kitty:{table_id}")


def upheld(ledger: Ledger, deal_id: str, reason: str, note: str, source: str,
           target: str) -> None:
    """A dispute raised and upheld by the treasurer, moving one chip (R11.4)."""
    raised = ledger.raise_dispute(deal_id, reason, raised_by="treasurer:t")
    ledger.resolve_dispute(str(raised.result["id"]), decision="upheld", note=note,
                           corrections=[{"from_account": source, "to_account": target,
                                         "amount": 1}],
                           resolved_by="treasurer:t", allow_debt=True)


def sit_out(ledger: Ledger) -> None:
    """R3.5: Pat's 10 chips are staked at table A, so at B his stake sits him out."""
    rules = {"min_stake": 10, "max_stake": 20}
    ann, pat = (str(ledger.register_player(name).result["id"]) for name in ("Ann", "Pat"))
    ledger.buy_in(ann, 100)
    ledger.buy_in(pat, 10)
    a, b = (str(ledger.open_table(name=name, seats=[ann, pat], banker=ann, rules=rules,
                                  pack={"mode": "ordered", "cards": stacked_pack([])}
                                  ).result["table_id"]) for name in ("A", "B"))
    a_deal, b_deal = (str(ledger.start_deal(t).result["deal_id"]) for t in (a, b))
    ledger.act(a_deal, pat, "stake", amount=10)
    ledger.act(b_deal, pat, "stake", amount=10)


def _over(ledger: Ledger, deal_id: str) -> bool:
    return bool(ledger.deal(deal_id).engine.is_over)


def _token_key(ledger: Ledger, secret: str) -> UUID:
    principal = ledger.principal(secret)
    assert principal is not None
    return UUID(str(principal.id))


@pytest.fixture(scope="module")
def ledger() -> Iterator[Ledger]:
    ledger = build_ledger(Settings(database_url="memory://"))
    # A simulated run first (a simulation plays into a store with no real-clock events),
    # so the log holds the Simulation events too.
    ledger.begin_simulation({"first_night": "2026-11-06", "nights": 1})
    ledger.end_simulation({"deals": 0})
    ledger.begin_simulation({"first_night": "2026-11-07", "nights": 1})  # a second run
    ledger.end_simulation({"deals": 0})
    # Shuffles from seeds of a seeded generator: the random deals are the same every run
    # (with fresh seeds a random stake could now and then exceed what a player holds).
    seeds = random.Random(7)
    ledger.new_seed = lambda: f"{seeds.getrandbits(256):064x}"
    for path in scenario_files():
        play(load(path), LedgerClub(ledger))
    play_the_rest(ledger)
    play_at_random(ledger, 40)
    sit_out(ledger)
    yield ledger
    ledger.close()


def outcome(decode: Any, note: Any) -> tuple[Any, ...]:
    """The event's class and attributes, or the class of the error raised."""
    try:
        event = decode(note)
    except Exception as error:  # noqa: BLE001 (the two must fail alike)
        return ("raised", type(error))
    return (type(event), repr(vars(event)))


def stored(ledger: Ledger, event_class: type) -> list[Any]:
    topic = get_topic(event_class)
    found = [n for n in all_notes(ledger) if n.topic == topic]
    assert found, topic
    return found


def restated(note: Any, change: Any, *, raw: bytes | str | None = None) -> Notification:
    """The note with its stored state changed by `change(state)`, or replaced by `raw`."""
    if raw is None:
        state = json.loads(note.state)
        change(state)
        raw = json.dumps(state, ensure_ascii=False, separators=(",", ":")).encode()
    return Notification(id=note.id, originator_id=note.originator_id,
                        originator_version=note.originator_version, topic=note.topic,
                        state=raw)  # type: ignore[arg-type]


# --- every event the ledger stores ---------------------------------------------------------

def test_the_played_log_holds_every_event_type_the_ledger_declares(ledger):
    topics = {n.topic for n in all_notes(ledger)} - OLD_STORES_ONLY

    assert topics == set(PINNED_TOPICS) - BASES - NOT_PLAYED - OLD_STORES_ONLY


def test_a_receipt_position_noted_by_an_older_store_decodes_as_the_mapper_decodes_it(ledger):
    """Decision 69: receipts no longer note their position by a second event, but stores
    written before hold such events, and the read side and verify still read them."""
    receipt = Receipt.record("an-old-key", "0" * 64, {"balance": 5})
    receipt.trigger_event(Receipt.PositionNoted, position=41)
    ledger.save(receipt)
    [note] = [n for n in all_notes(ledger) if n.topic in OLD_STORES_ONLY]

    decoded = Decoder(ledger.mapper)(note)

    assert outcome(Decoder(ledger.mapper), note) == outcome(ledger.mapper.to_domain_event, note)
    assert isinstance(decoded, Receipt.PositionNoted) and decoded.position == 41


def test_every_stored_event_decodes_to_exactly_what_the_mapper_gives(ledger):
    decoder = Decoder(ledger.mapper)
    notes = all_notes(ledger)

    differing = [(n.id, n.topic) for n in notes
                 if outcome(decoder, n) != outcome(ledger.mapper.to_domain_event, n)]

    assert len(notes) > 1000
    assert differing == []


# --- older versions, through their upcasters -----------------------------------------------

def as_token_v1(state: dict[str, Any]) -> None:
    del state["class_version"], state["principal_id"], state["label"], state["expires_at"]


def as_token_v2(state: dict[str, Any]) -> None:
    state["class_version"] = 2
    del state["label"], state["expires_at"]


def as_kitty_v1(state: dict[str, Any]) -> None:
    del state["class_version"], state["fact"]["rule"]
    state["fact"]["posting"]["rule"] = "R9.1"


def as_resolution_v1(state: dict[str, Any]) -> None:
    del state["class_version"], state["allow_debt"]


@pytest.mark.parametrize(("event_class", "older"), [
    (Token.Issued, as_token_v1), (Token.Issued, as_token_v2),
    (TableAggregate.KittyPutUp, as_kitty_v1), (Dispute.Resolved, as_resolution_v1)],
    ids=["token v1", "token v2", "kitty v1", "resolution v1"])
def test_an_older_version_is_upcast_as_the_mapper_upcasts_it(ledger, event_class, older):
    decoder = Decoder(ledger.mapper)

    for note in stored(ledger, event_class):
        old = restated(note, older)
        decoded = outcome(decoder, old)

        assert decoded == outcome(ledger.mapper.to_domain_event, old)
        assert decoded[0] is event_class


# --- odd texts -----------------------------------------------------------------------------

TEXTS = ['"_type_"', '{"_type_": "datetime_iso", "_data_": "2020-01-01T00:00:00+00:00"}',
         "_type_", "_data_", "back\\slash", "ends with \\", 'a "quote"', "new\nline\ttab",
         "\\u005ftype_", "é ü ß 😀", "\u2028\u2029", "\x00\x1f", "", "0" * 25]


@pytest.mark.parametrize("text", TEXTS)
def test_an_odd_text_decodes_as_the_mapper_decodes_it(ledger, text):
    decoder = Decoder(ledger.mapper)
    entry = stored(ledger, Account.Credited)[0]
    fact = stored(ledger, DealAggregate.StakePlaced)[0]

    for note in (restated(entry, lambda s: s.update(reason=text)),
                 restated(entry, lambda s: s.update({text: text})),
                 restated(fact, lambda s: s["fact"].update(note=text, rules={text: [text]}))):
        assert outcome(decoder, note) == outcome(ledger.mapper.to_domain_event, note)


# --- states the decoder hands back to the mapper -------------------------------------------

AT = {"_type_": "datetime_iso", "_data_": "2026-01-01T00:00:00+00:00"}
CHANGES = {
    "a transcoded datetime nested in an object": lambda s: s.update(x={"at": AT}),
    "a transcoded datetime in a list": lambda s: s.update(seen=[AT]),
    "a top-level decimal": lambda s: s.update(price={"_type_": "decimal_str", "_data_": "1.5"}),
    "a transcoding never registered": lambda s: s.update(x={"_type_": "nope", "_data_": 1}),
    "a transcoded-looking object with one key": lambda s: s.update(x={"_type_": "uuid_hex"}),
    "a timestamp that is a plain text": lambda s: s.update(timestamp="2026-01-01"),
    "the whole state a transcoded datetime": lambda s: (s.clear(), s.update(AT)),
    "an integer beyond 64 bits": lambda s: s.update(amount=2 ** 70),
    "an integer just beyond 64 bits": lambda s: s.update(amount=2 ** 64),
    "a negative integer beyond 64 bits": lambda s: s.update(amount=-(2 ** 63) - 1),
    "a float": lambda s: s.update(amount=1.5),
    "class_version 0": lambda s: s.update(class_version=0),
    "class_version as text": lambda s: s.update(class_version="1"),
    "class_version from the future": lambda s: s.update(class_version=99),
    "class_version true": lambda s: s.update(class_version=True),
    "an originator_id in the state": lambda s: s.update(originator_id="x"),
}
RAW = {
    "a key spelled with escapes": b'{"timestamp":{"\\u005ftype_":"datetime_iso",'
                                  b'"_data_":"2026-01-01T00:00:00+00:00"},"amount":1}',
    "NaN": b'{"amount":NaN}',
    "an overflowing exponent": b'{"amount":1E400}',
    "a lone surrogate": b'{"reason":"\\ud800"}',
    "a duplicate key": b'{"amount":1,"amount":2}',
    "a list, not an object": b"[1, 2]",
    "not UTF-8": b'{"reason":"\xff"}',
    "not JSON": b"{",
    "text instead of bytes": '{"amount":1}',
}


@pytest.mark.parametrize("change", list(CHANGES.values()), ids=list(CHANGES))
def test_a_state_the_decoder_cannot_vouch_for_decodes_as_the_mapper_decodes_it(ledger,
                                                                                change):
    decoder = Decoder(ledger.mapper)

    for event_class in (DealAggregate.StakePlaced, Account.Credited):
        note = restated(stored(ledger, event_class)[0], change)

        assert outcome(decoder, note) == outcome(ledger.mapper.to_domain_event, note)


@pytest.mark.parametrize("raw", list(RAW.values()), ids=list(RAW))
def test_stored_bytes_the_decoder_cannot_vouch_for_decode_as_the_mapper_decodes_them(ledger,
                                                                                     raw):
    decoder = Decoder(ledger.mapper)
    note = restated(stored(ledger, Account.Credited)[0], None, raw=raw)

    assert outcome(decoder, note) == outcome(ledger.mapper.to_domain_event, note)


def test_an_unknown_topic_raises_as_the_mapper_raises(ledger):
    decoder = Decoder(ledger.mapper)
    entry = stored(ledger, Account.Credited)[0]
    note = Notification(id=entry.id, originator_id=entry.originator_id,
                        originator_version=entry.originator_version,
                        topic="domain.aggregates:Account.Vanished", state=entry.state)

    assert outcome(decoder, note) == outcome(ledger.mapper.to_domain_event, note)
    assert outcome(decoder, note)[0] == "raised"
