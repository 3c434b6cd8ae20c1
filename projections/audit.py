"""Deals for dispute audits: each deal, its events in order, and the shuffle commitments of
its table with the seeds once revealed, the players' contributions to each pack and the
first deal dealt from it (R1.7, R7.5).

The audit itself is built when it is read: the timeline from the rows, every posting with its
rule and reason, and a verification that re-decides the deal from its facts.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Any
from uuid import UUID

from domain.aggregates import DealAggregate, TableAggregate, posting_id
from domain.engine import facts as f
from domain.engine.deal import Deal
from domain.engine.postings import Posting, net_changes, reason_in_words
from domain.engine.shuffle import mixed_seed
from domain.engine.verification import verify_deal
from domain.errors import PontoonError
from projections.base import ReadModel, at, dumps
from projections.disputes import disputes_of_deal, explanation
from projections.store import ReadStore, Statement
from projections.tables import fair_shuffle

DEAL_EVENTS = tuple(value for name, value in vars(DealAggregate).items()
                    if isinstance(value, type) and name[0].isupper() and name != "Event")


class AuditModel(ReadModel):
    name = "audit"
    reads = (*DEAL_EVENTS, TableAggregate.PackShuffled, TableAggregate.ContributionAdded)
    tables = ("deals", "deal_events", "shuffles", "pack_contributions")

    def statements(self, event: Any, position: int) -> Iterable[Statement]:
        kind = type(event).__name__
        if isinstance(event, TableAggregate.PackShuffled):
            yield from _shuffled(event, position)
            return
        if isinstance(event, TableAggregate.ContributionAdded):
            fact = event.fact
            yield ("INSERT INTO pack_contributions (table_id, commitment, position, player_id, "
                   "value, at) VALUES (%s, %s, %s, %s, %s, %s)",
                   (str(event.originator_id), fact["commitment"], position,
                    fact["player_id"], fact["value"], at(event)))
            return
        deal_id = str(event.originator_id)
        fact = event.fact
        if kind == "DealStarted":
            yield ("INSERT INTO deals (deal_id, table_id, number, banker, players, phase, "
                   "commitment, started_at, started_position) VALUES "
                   "(%s, %s, %s, %s, %s, 'open', %s, %s, %s)",
                   (deal_id, fact["table_id"], fact["number"], fact["banker"],
                    dumps(fact["players"]), fact["commitment"], at(event), position))
            if fact["commitment"] is not None:  # the pack's first deal closes it (R1.7)
                yield ("UPDATE shuffles SET dealt_position = %s WHERE table_id = %s AND "
                       "commitment = %s AND dealt_position IS NULL",
                       (position, fact["table_id"], fact["commitment"]))
        elif kind in ("DealSettled", "DealVoided"):
            yield ("UPDATE deals SET phase = %s, ended_at = %s, ended_position = %s "
                   "WHERE deal_id = %s",
                   ("settled" if kind == "DealSettled" else "void", at(event), position,
                    deal_id))
        yield ("INSERT INTO deal_events (deal_id, version, position, at, type, actor, fact) "
               "VALUES (%s, %s, %s, %s, %s, %s, %s)",
               (deal_id, event.originator_version, position, at(event), kind, event.actor,
                dumps(fact)))


    def compact(self, statements: list[Statement]) -> list[Statement]:
        """New rows first, then the updates that refer to them (each kind in log order), so
        a page writes in a few long runs; the rows written are the same."""
        def rank(statement: Statement) -> int:
            sql = statement[0]
            return (0 if sql.startswith("INSERT INTO deals ") else
                    1 if sql.startswith("INSERT INTO shuffles") else
                    2 if sql.startswith("INSERT INTO deal_events") else 3)
        return sorted(statements, key=rank)


def _shuffled(event: Any, position: int) -> Iterable[Statement]:
    table_id = str(event.originator_id)
    fact = event.fact
    yield ("INSERT INTO shuffles (table_id, commitment, shuffled_position) VALUES (%s, %s, %s)",
           (table_id, fact["commitment"], position))
    revealed = fact.get("revealed_seed")
    if revealed:
        yield ("UPDATE shuffles SET seed = %s, revealed_position = %s "
               "WHERE table_id = %s AND commitment = %s",
               (revealed, position, table_id,
                hashlib.sha256(bytes.fromhex(revealed)).hexdigest()))


# --- reading --------------------------------------------------------------------------

def deal_row(store: ReadStore, deal_id: str) -> dict[str, Any] | None:
    rows = store.rows("SELECT * FROM deals WHERE deal_id = %s", (deal_id,))
    return rows[0] if rows else None


def deal_history(store: ReadStore, deal_id: str) -> list[dict[str, Any]]:
    return store.rows("SELECT version, position, at, type, actor, fact FROM deal_events "
                      "WHERE deal_id = %s ORDER BY version", (deal_id,))


def revealed_seed(store: ReadStore, table_id: str, commitment: str | None) -> str | None:
    if commitment is None:
        return None
    rows = store.rows("SELECT seed FROM shuffles WHERE table_id = %s AND commitment = %s",
                      (table_id, commitment))
    return rows[0]["seed"] if rows else None


def audit(store: ReadStore, deal_id: str, *, names: dict[str, str]) -> dict[str, Any] | None:
    """The dispute audit of API.md, from the read model alone; None for an unknown deal."""
    deal = deal_row(store, deal_id)
    if deal is None:
        return None
    rows = deal_history(store, deal_id)
    history = [f.Fact.from_dict(row["type"], json.loads(row["fact"])) for row in rows]
    over = deal["phase"] in ("settled", "void")
    seed = revealed_seed(store, deal["table_id"], deal["commitment"])
    opened = history[0] if history and isinstance(history[0], f.DealStarted) else None
    contributions = list(opened.contributions) if opened else []
    verification = verify_deal(history) if history else None
    postings = _postings(deal_id, rows, history, names, _entries(store, deal_id))
    disputes = disputes_of_deal(store, deal_id, names)
    unseen = {fact.player for fact in history if isinstance(fact, f.PlayerSatOut)}
    return {
        "deal_id": deal_id, "table_id": deal["table_id"], "number": deal["number"],
        "phase": deal["phase"] if over else _phase(history), "banker": deal["banker"],
        "players": json.loads(deal["players"]),
        "timeline": [_moment(row, fact, over and not _unseen(fact, unseen), names)
                     for row, fact in zip(rows, history, strict=True)],
        "postings": postings,
        "pack": {"commitment": deal["commitment"], "seed": seed,
                 "seed_matches": None if seed is None else
                 hashlib.sha256(bytes.fromhex(seed)).hexdigest() == deal["commitment"],
                 "contributions": contributions,
                 "mixed_seed": None if seed is None else mixed_seed(seed, contributions)},
        "verification": verification.to_dict() if verification else
        {"replayed": False, "chips_conserved": False, "differences": ["no events"]},
        "fair_shuffle": fair_shuffle(store, deal["table_id"]),
        "disputes": [{"id": d["dispute_id"], **{key: d[key] for key in _DISPUTE_KEYS}}
                     for d in disputes],
        "net_after_corrections": _net(deal_id, postings, disputes),
    }


_DISPUTE_KEYS = ("status", "reason", "decision", "note", "allow_debt", "corrections",
                 "raised_by", "raised_at", "resolved_at")


def _net(deal_id: str, postings: list[dict[str, Any]], disputes: list[dict[str, Any]]
         ) -> dict[str, int]:
    """How the deal and its corrections moved each account, the deal's escrow left out
    once it is empty (R11.4)."""
    corrections = [c for d in disputes for c in d["corrections"]]
    net = net_changes(Posting.from_dict(p) for p in [*postings, *corrections])
    escrow = f"escrow:{deal_id}"
    if net.get(escrow) == 0:
        del net[escrow]
    return dict(sorted(net.items()))


_ACTIONS = {"StakePlaced": "stake", "ShootBetPlaced": "shoot", "ShootPassed": "pass",
            "CardBought": "buy", "HandTwisted": "twist", "HandSplit": "split",
            "HandBurned": "burn", "HandStuck": "stick", "BankerDoubled": "double",
            "BankerDeclinedToDouble": "decline", "BankerStayed": "stay"}


def _unseen(fact: f.Fact, sat_out: set[str]) -> bool:
    """R3.5: the first card of a player who sat the deal out went under the pack unseen."""
    return isinstance(fact, f.CardDealt) and fact.player in sat_out


def _moment(row: dict[str, Any], fact: f.Fact, shown: bool, names: dict[str, str]
            ) -> dict[str, Any]:
    """One event; a face-down card is `shown` once the deal is over (API.md), not before."""
    data = fact.to_dict()
    player = data.get("player") or data.get("banker")
    card = data.get("card")
    if isinstance(fact, f.CardDealt) and not fact.face_up and not shown:
        card = None
    cards = [card] if "card" in data else data.get("cards")
    amount = data.get("amount") or data.get("stake")
    return {"at": row["at"], "position": row["position"], "version": row["version"],
            "event": row["type"], "action": _ACTIONS.get(row["type"], row["type"]),
            "actor": row["actor"], "player_id": player,
            "player": names.get(player or ""), "hand": data.get("hand"),
            "cards": cards, "amount": amount, "rule": data.get("rule"),
            "automatic": data.get("automatic")}


def _phase(history: list[f.Fact]) -> str:
    """An open deal's phase in the deal view's words (staking, playing, banker, ...)."""
    try:
        return str(Deal.replay(history).phase)
    except (PontoonError, AssertionError, KeyError, IndexError, ValueError):
        return "playing"


def _entries(store: ReadStore, deal_id: str) -> dict[str, dict[str, Any]]:
    """Where each posting of the deal was recorded on an account: the entry that the
    balances apply it at (its credit, or its debit when the stakes on the table receive
    it), so a posting shows the same `at` and `position` in the audit and the statement."""
    entries: dict[str, dict[str, Any]] = {}
    for row in store.rows("SELECT posting_id, account, position, at, to_account FROM postings "
                          "WHERE deal_id = %s AND rule <> 'R11.4' ORDER BY position",
                          (deal_id,)):
        credit = row["account"] == row["to_account"]
        if credit or row["posting_id"] not in entries:
            entries[row["posting_id"]] = row
    return entries


def _postings(deal_id: str, rows: list[dict[str, Any]], history: list[f.Fact],
              names: dict[str, str], entries: dict[str, dict[str, Any]]
              ) -> list[dict[str, Any]]:
    out = []
    for row, fact in zip(rows, history, strict=True):
        for index, p in enumerate(fact.carried_postings()):
            key = posting_id(UUID(deal_id), row["version"], index)
            entry = entries.get(key, row)
            reason = reason_in_words(p.reason, p.hand)
            out.append({**p.to_dict(), "reason": reason, "id": key,
                        "at": entry["at"], "position": entry["position"], "deal_id": deal_id,
                        "explanation": explanation(p.to_dict(), reason, names)})
    return out


def escrow_balances_at(store: ReadStore, time: str) -> dict[str, int]:
    """The stakes waiting on each deal at a past time (deals settled by then hold none)."""
    rows = store.rows("SELECT e.deal_id, e.fact FROM deal_events e JOIN deals d "
                      "ON d.deal_id = e.deal_id WHERE e.at <= %s AND d.started_at <= %s "
                      "AND (d.ended_at IS NULL OR d.ended_at > %s)", (time, time, time))
    held: dict[str, int] = {}
    for row in rows:
        escrow = f"escrow:{row['deal_id']}"
        fact = json.loads(row["fact"])
        for p in [fact["posting"]] if fact.get("posting") else fact.get("postings", []):
            if p["to_account"] == escrow:
                held[escrow] = held.get(escrow, 0) + p["amount"]
            if p["from_account"] == escrow:
                held[escrow] = held.get(escrow, 0) - p["amount"]
    return held


def kitty_players(store: ReadStore, deal_ids: set[str]) -> dict[str, str]:
    """Whose hand each chip the kitty took from the stakes on a table came from, by posting
    id: a posting from the stakes names no player, the deal's facts do. A bust hand's shoot
    bet (R9.7) is in its HandBusted fact; a settlement's postings follow its results in
    table order, so each lost shoot bet is the next losing result with its hand."""
    found: dict[str, str] = {}
    if not deal_ids:
        return found
    marks = ", ".join(["%s"] * len(deal_ids))
    for row in store.rows("SELECT deal_id, version, type, fact FROM deal_events WHERE "
                          f"deal_id IN ({marks}) AND type IN ('HandBusted', 'DealSettled')",
                          sorted(deal_ids)):
        fact, deal = json.loads(row["fact"]), UUID(row["deal_id"])
        losers = [r for r in fact.get("results", []) if r.get("outcome") != "win"
                  and r.get("shoot_bet")]
        for index, p in enumerate(fact.get("postings", [])):
            if not (p["from_account"].startswith("escrow:") and
                    p["to_account"].startswith("kitty:")):
                continue
            if row["type"] == "HandBusted":
                player = fact.get("player")
            else:
                match = next((r for r in losers if r["hand"] == p.get("hand")), None)
                player = match["player"] if match else None
                if match:
                    losers.remove(match)
            if player:
                found[posting_id(deal, row["version"], index)] = player
    return found
