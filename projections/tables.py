"""Tables with their banker, kitty and deals played, for listing (the pages' index)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from domain.aggregates import TableAggregate
from projections.balances import like_prefix, name_key
from projections.base import ReadModel, at
from projections.store import ReadStore, Statement


class TablesModel(ReadModel):
    name = "tables"
    reads = (TableAggregate.TableOpened, TableAggregate.KittyPutUp, TableAggregate.BankSold,
             TableAggregate.DealEnded, TableAggregate.KittyCorrected)
    tables = ("tables",)

    def statements(self, event: Any, position: int) -> Iterable[Statement]:
        table_id, fact = str(event.originator_id), event.fact
        if isinstance(event, TableAggregate.TableOpened):
            yield ("INSERT INTO tables (table_id, name, name_key, shoot, banker, kitty, "
                   "deals_played, opened_at, position, pack_mode) "
                   "VALUES (%s, %s, %s, %s, %s, 0, 0, %s, %s, %s)",
                   (table_id, fact["name"], name_key(fact["name"]),
                    bool(fact["rules"].get("shoot")), fact["banker"], at(event), position,
                    fact["pack_mode"]))
        elif isinstance(event, TableAggregate.KittyPutUp | TableAggregate.KittyCorrected):
            yield ("UPDATE tables SET kitty = %s, position = %s WHERE table_id = %s",
                   (fact["kitty_after"], position, table_id))
        elif isinstance(event, TableAggregate.BankSold):
            yield ("UPDATE tables SET banker = %s, kitty = 0, position = %s WHERE table_id = %s",
                   (fact["buyer"], position, table_id))
        else:
            yield ("UPDATE tables SET banker = %s, kitty = %s, deals_played = deals_played + 1, "
                   "position = %s WHERE table_id = %s",
                   (fact["next_banker"], fact["kitty_after"], position, table_id))


def fair_shuffles(store: ReadStore) -> dict[str, bool]:
    """Each table's deals are dealt from a fair shuffle, except at an ordered table, whose
    reshuffles come from a seed every player can derive (docs/decisions.md)."""
    return {row["table_id"]: row["pack_mode"] != "ordered"
            for row in store.rows("SELECT table_id, pack_mode FROM tables")}


def fair_shuffle(store: ReadStore, table_id: str) -> bool | None:
    """None while the table is not in the read model yet: never a guess."""
    rows = store.rows("SELECT pack_mode FROM tables WHERE table_id = %s", (table_id,))
    return rows[0]["pack_mode"] != "ordered" if rows else None


def tables(store: ReadStore) -> list[dict[str, Any]]:
    return store.rows("SELECT * FROM tables ORDER BY opened_at")


def deals_of(store: ReadStore, table_id: str, limit: int = 100) -> list[dict[str, Any]]:
    return store.rows("SELECT deal_id, number, phase, banker, started_at, ended_at FROM deals "
                      "WHERE table_id = %s ORDER BY number DESC LIMIT %s", (table_id, limit))


def table_page(store: ReadStore, *, name: str | None = None, after: str | None = None,
               limit: int = 50) -> list[dict[str, Any]]:
    """Tables, the last opened first, optionally by name prefix; cursor: a table id."""
    where, params = "1 = 1", []
    if name:
        where += " AND name_key LIKE %s ESCAPE '\\'"
        params.append(like_prefix(name))
    if after is not None:
        where += (" AND (opened_at, table_id) < (SELECT opened_at, table_id FROM tables "
                  "WHERE table_id = %s)")
        params.append(after)
    rows = store.rows(f"SELECT * FROM tables WHERE {where} "
                      "ORDER BY opened_at DESC, table_id DESC LIMIT %s", (*params, limit))
    for row in rows:
        row["shoot"] = bool(row["shoot"])  # SQLite keeps a BOOLEAN as 0 or 1
    return rows


def table_row(store: ReadStore, table_id: str) -> dict[str, Any] | None:
    rows = store.rows("SELECT * FROM tables WHERE table_id = %s", (table_id,))
    return rows[0] if rows else None


def deal_page(store: ReadStore, table_id: str, *, start: str | None = None,
              end: str | None = None, descending: bool = False, after: int | None = None,
              limit: int = 50) -> list[dict[str, Any]]:
    """A table's deals by number, those started in [start, end) when given, each with the
    number of disputes raised about it; cursor: the number of the last deal of the previous
    page."""
    where, params = "table_id = %s", list[Any]([table_id])
    if start is not None:
        where += " AND started_at >= %s"
        params.append(start)
    if end is not None:
        where += " AND started_at < %s"
        params.append(end)
    if after is not None:
        where += " AND number < %s" if descending else " AND number > %s"
        params.append(after)
    order = "DESC" if descending else "ASC"
    return store.rows("SELECT deal_id, table_id, number, phase, banker, players, started_at, "
                      "started_position, ended_at, ended_position, (SELECT COUNT(*) FROM "
                      "disputes d WHERE d.deal_id = deals.deal_id) AS disputes FROM deals "
                      f"WHERE {where} ORDER BY number {order} LIMIT %s", (*params, limit))


def deal_count(store: ReadStore, table_id: str, *, start: str | None = None,
               end: str | None = None) -> int:
    """How many deals `deal_page` lists for the period, on all its pages."""
    where, params = "table_id = %s", list[Any]([table_id])
    for clause, value in (("started_at >= %s", start), ("started_at < %s", end)):
        if value is not None:
            where += f" AND {clause}"
            params.append(value)
    return int(store.rows(f"SELECT COUNT(*) AS n FROM deals WHERE {where}", params)[0]["n"])


def pack_page(store: ReadStore, table_id: str, *, after: int | None = None,
              limit: int = 50) -> list[dict[str, Any]]:
    """A table's packs in the order shuffled, each seed once the next shuffle revealed it
    and the players' contributions mixed into it (R1.7); cursor: the position of the last
    pack's shuffle."""
    where, params = "table_id = %s", list[Any]([table_id])
    if after is not None:
        where += " AND shuffled_position > %s"
        params.append(after)
    rows = store.rows("SELECT commitment, seed, shuffled_position, revealed_position, "
                      f"dealt_position FROM shuffles WHERE {where} "
                      "ORDER BY shuffled_position LIMIT %s", (*params, limit))
    mixed = contributions_to(store, table_id, [row["commitment"] for row in rows])
    for row in rows:
        row["contributions"] = mixed.get(row["commitment"], [])
    return rows


def contributions_to(store: ReadStore, table_id: str, commitments: list[str]
                     ) -> dict[str, list[dict[str, Any]]]:
    """The contributions to each of a table's packs, in the order recorded (R1.7)."""
    found: dict[str, list[dict[str, Any]]] = {}
    if not commitments:
        return found
    marks = ", ".join(["%s"] * len(commitments))
    for row in store.rows("SELECT commitment, player_id, value, position, at FROM "
                          f"pack_contributions WHERE table_id = %s AND commitment IN ({marks}) "
                          "ORDER BY position", (table_id, *commitments)):
        found.setdefault(row.pop("commitment"), []).append(row)
    return found


def packs_awaiting_a_deal(store: ReadStore) -> list[str]:
    """Tables whose current pack is committed to and not yet dealt from (R1.7)."""
    return [row["table_id"] for row in store.rows(
        "SELECT DISTINCT table_id FROM shuffles WHERE dealt_position IS NULL")]
