"""A deal's hand history (API.md `GET /v1/deals/{id}/history`): everything a player needs
to check the deal without trusting the service, in one document a verifier reads.

- `events`: every event of the deal's aggregate from version 1 with its stored bytes and
  recorded event hash, so each hash can be recomputed (domain/integrity.py) and, with the
  signed checkpoint and inclusion proofs (projections/history_proofs.py), tied to the log;
- `pack`: the commitment, the server seed once revealed, the players' contributions and
  the algorithm, so the shuffled order can be recomputed (domain/engine/shuffle.py);
- `draws`: every card taken from the pack, with its place in the pack's order since the
  shuffle (`pack_index`, docs/decisions.md 136);
- `actions` and `postings`, as the audit tells them.

Until the pack's seed is revealed (R1.7: at its next shuffle) the bytes of the events that
hold the pack's order (a deal's starting pack and the pack it leaves behind) and a sat-out
player's unseen card are withheld, their hashes given alone: they are the next deal's
cards (decision 137). Once revealed, all of them can be worked out from the seed anyway.
"""

from __future__ import annotations

import base64
import json
from typing import Any
from uuid import UUID

from domain.errors import NotNow
from projections.audit import audit, deal_history, deal_row
from projections.base import EventLog
from projections.history_proofs import leaf_indexes, proofs_for
from projections.store import ReadStore
from projections.stored_events import aggregate_events

FORMAT = "pontoon-hand-history-v1"
SHUFFLE = "pontoon-shuffle-v1"  # domain/engine/shuffle.py, with the mix "pontoon-mix-v1"
WITHHELD = ("it holds the pack's order (or a card dealt unseen), which stays secret until "
            "the pack's seed is revealed at its next shuffle (R1.7)")
ACTIONS = frozenset({"StakePlaced", "ShootBetPlaced", "ShootPassed", "CardBought",
                     "HandTwisted", "HandSplit", "HandBurned", "HandStuck", "BankerDoubled",
                     "BankerDeclinedToDouble", "BankerStayed"})


def hand_history(log: EventLog, store: ReadStore, deal_id: str, *,
                 names: dict[str, str]) -> dict[str, Any] | None:
    """The history of a settled or void deal (409 before); None while not read yet."""
    found = audit(store, deal_id, names=names)
    row = deal_row(store, deal_id)
    if found is None or row is None:
        return None
    if found["phase"] not in ("settled", "void"):
        raise NotNow(f"deal {found['number']} is still in play: its hand history is given "
                     "once it is settled or void")
    rows = deal_history(store, deal_id)
    facts = {r["version"]: (r["type"], json.loads(r["fact"])) for r in rows}
    opened = facts[1][1]
    seed = found["pack"]["seed"]
    mode = _mode(store, found["table_id"], opened)
    secret = seed is None  # not revealed yet, or never (a given or a recorded pack)
    events = _events(log, store, deal_id, facts, secret=secret)
    checkpoint, inclusion = proofs_for(store, events)
    return {
        "format": FORMAT,
        "deal": {"id": deal_id, "number": found["number"], "phase": found["phase"],
                 "banker": found["banker"], "players": found["players"],
                 "started_at": row["started_at"], "ended_at": row["ended_at"]},
        "table": {"id": found["table_id"], "name": _table_name(store, found["table_id"]),
                  "mode": mode},
        "pack": {"commitment": opened["commitment"], "server_seed": seed,
                 "contributions": opened.get("contributions", []),
                 "algorithm": SHUFFLE if opened["commitment"] else mode,
                 "packs": int(opened["rules"].get("packs", 1))},
        "draws": _draws(store, row, rows, facts, hide_unseen=secret),
        "actions": [_action(m) for m in found["timeline"] if m["event"] in ACTIONS],
        "postings": found["postings"],
        "events": events,
        "checkpoint": checkpoint,
        "inclusion": inclusion,
    }


def _events(log: EventLog, store: ReadStore, deal_id: str,
            facts: dict[int, tuple[str, dict[str, Any]]], *, secret: bool
            ) -> list[dict[str, Any]]:
    stored = aggregate_events(log.recorder, UUID(deal_id))
    indexes = leaf_indexes(log, store, [e.position for e in stored if e.position is not None])
    unseen = _sat_out(facts)
    out = []
    for event in stored:
        kind, fact = facts.get(event.version, ("", {}))
        withheld = secret and _holds_a_secret(kind, fact, unseen)
        out.append({"position": event.position, "index": indexes.get(event.position or 0),
                    "aggregate_id": deal_id, "version": event.version, "topic": event.topic,
                    "state": None if withheld else base64.b64encode(event.state).decode(),
                    "event_hash": None if event.event_hash is None else event.event_hash.hex(),
                    "withheld": WITHHELD if withheld else None})
    return out


def _holds_a_secret(kind: str, fact: dict[str, Any], unseen: set[str]) -> bool:
    """The pack's order (a deal's start and what it leaves behind) or an unseen card."""
    return fact.get("pack") is not None or fact.get("pack_after") is not None or \
        (kind == "CardDealt" and fact.get("player") in unseen)


def _sat_out(facts: dict[int, tuple[str, dict[str, Any]]]) -> set[str]:
    return {fact["player"] for kind, fact in facts.values() if kind == "PlayerSatOut"}


def _draws(store: ReadStore, deal: dict[str, Any], rows: list[dict[str, Any]],
           facts: dict[int, tuple[str, dict[str, Any]]], *, hide_unseen: bool
           ) -> list[dict[str, Any]]:
    """Every card taken from the pack in dealing order, with its place in the pack's order
    since the shuffle: the shuffled order first, then each card as it went back to the
    bottom (R1.4, R1.5). No place at a recorded table, which has no pack order."""
    opened = facts[1][1]
    first = None if opened.get("pack") is None else _drawn_before(store, deal)
    unseen = _sat_out(facts) if hide_unseen else set()
    draws: list[dict[str, Any]] = []
    for row in rows:
        kind, fact = facts[row["version"]]
        if kind != "CardDealt":
            continue
        draws.append({"pack_index": None if first is None else first + len(draws),
                      "card": None if fact["player"] in unseen else fact["card"],
                      "to": fact["player"], "hand": fact["hand"],
                      "position": row["position"], "version": row["version"]})
    return draws


def _drawn_before(store: ReadStore, deal: dict[str, Any]) -> int:
    """The cards taken from this deal's pack by the table's earlier deals."""
    same_pack = "d.commitment = %s" if deal["commitment"] is not None else \
        "d.commitment IS NULL"
    params = [deal["table_id"], deal["number"]]
    if deal["commitment"] is not None:
        params.append(deal["commitment"])
    rows = store.rows("SELECT COUNT(*) AS n FROM deal_events e JOIN deals d ON "
                      "d.deal_id = e.deal_id WHERE d.table_id = %s AND d.number < %s AND "
                      f"{same_pack} AND e.type = 'CardDealt'", params)
    return int(rows[0]["n"]) if rows else 0


def _action(moment: dict[str, Any]) -> dict[str, Any]:
    return {key: moment[key] for key in ("position", "version", "at", "action", "player_id",
                                         "hand", "amount", "actor")}


def _mode(store: ReadStore, table_id: str, opened: dict[str, Any]) -> str:
    rows = store.rows("SELECT pack_mode FROM tables WHERE table_id = %s", (table_id,))
    if rows:
        return str(rows[0]["pack_mode"])
    return "recorded" if opened.get("pack") is None else "shuffled"


def _table_name(store: ReadStore, table_id: str) -> str | None:
    rows = store.rows("SELECT name FROM tables WHERE table_id = %s", (table_id,))
    return str(rows[0]["name"]) if rows else None
