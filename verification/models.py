"""`pontoon verify` holds every read model against the log (API.md Additions): balances,
statements (a kitty's statement is its table's kitty history), disputes, and the lists of
tables and deals.

No second replay: `Expected` notes, from the events verify's one pass decodes anyway, what
each model's rows must say; then each model's table is read once, in its key's order (its
primary key's index), and compared row by row. Each difference is named (the model, the
row's key and column, what the row says and what the log gives); `pontoon projections
rebuild` rewrites the models from the log. A model is compared at the position verify read
the log to; one that stands elsewhere cannot be vouched for and is named too.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from domain.aggregates import TREASURY_ID, Account, DealAggregate, Dispute, TableAggregate
from domain.engine.postings import TREASURY
from projections.balances import _applies_posting, account_name
from projections.base import APPLICATION, at

Fail = Callable[[str], None]
MODELS = ("balances", "statements", "audit", "disputes", "tables")
NAMED_MOST = 20  # differences named per read model; the rest are counted
MENDS = "`pontoon projections rebuild` rewrites it from the log"
PAGE = 10_000  # statement rows read at a time

# The columns compared, in the order `Expected` keeps them (each model's key first).
ACCOUNTS = ("account", "kind", "owner", "name", "balance")
POSTINGS = ("account", "position", "posting_id", "at", "change", "balance_after",
            "from_account", "to_account", "amount", "rule", "reason", "deal_id", "table_id",
            "hand")
DEALS = ("deal_id", "table_id", "number", "banker", "players", "phase", "commitment",
         "started_at", "started_position", "ended_at", "ended_position")
TABLES = ("table_id", "name", "shoot", "banker", "kitty", "deals_played", "opened_at",
          "position", "pack_mode")
DISPUTES = ("dispute_id", "deal_id", "raised_by", "reason", "status", "decision", "note",
            "corrections", "resolved_by", "raised_at", "raised_position", "resolved_at",
            "resolved_position", "allow_debt")


class Expected:
    """Each read model's rows as the log gives them, by key (lists: the values after the
    key, in the columns' order). Fed every decoded event of the pass, in log order."""

    def __init__(self) -> None:
        self.head = 0
        self.accounts: dict[str, list[Any]] = {}
        self.postings: dict[str, list[tuple[Any, ...]]] = {}  # by account, position order
        self.deals: dict[str, list[Any]] = {}
        self.tables: dict[str, list[Any]] = {}
        self.disputes: dict[str, list[Any]] = {}
        self._treasury = 0  # the treasury's balance after its derived entries so far

    def noting(self, decode: Callable[[Any], Any]) -> Callable[[Any], Any]:
        """A decoder that also notes each event it decodes."""
        def decoded(note: Any) -> Any:
            event = decode(note)
            self.event(event, note.id)
            return event
        return decoded

    def event(self, event: Any, position: int) -> None:
        self.head = max(self.head, position)
        noted = _NOTED.get(type(event))
        if noted is not None:
            noted(self, event, position)

    def _opened(self, event: Any, position: int) -> None:
        row = self.accounts.setdefault(account_name(event.kind, event.owner),
                                       [None, None, None, 0])
        row[:3] = [event.kind, event.owner, event.name]

    def _entry(self, event: Any, position: int) -> None:
        if _applies_posting(event):
            for account, change in ((event.from_account, -event.amount),
                                    (event.to_account, event.amount)):
                row = self.accounts.get(account)
                if row is None:
                    kind, _, owner = account.partition(":")
                    row = self.accounts[account] = [kind, owner or None, TREASURY if
                                                    account == TREASURY else None, 0]
                row[3] += change
        if event.originator_id == TREASURY_ID:
            return  # a store's own treasury entries from before: never a statement's row
        credit = isinstance(event, Account.Credited)
        account = event.to_account if credit else event.from_account
        change = event.amount if credit else -event.amount
        when, posting = at(event), (event.from_account, event.to_account, event.amount,
                                    event.rule, event.reason, event.deal_id, event.table_id,
                                    event.hand)
        self.postings.setdefault(account, []).append(
            (position, event.posting_id, when, change, event.balance_after, *posting))
        if TREASURY in (event.from_account, event.to_account):
            self._treasury -= change
            self.postings.setdefault(TREASURY, []).append(
                (position, event.posting_id, when, -change, self._treasury, *posting))

    def _deal(self, event: Any, position: int) -> None:
        fact = event.fact
        if isinstance(event, DealAggregate.DealStarted):
            self.deals[str(event.originator_id)] = [
                fact["table_id"], fact["number"], fact["banker"], fact["players"], "open",
                fact["commitment"], at(event), position, None, None]
        elif (row := self.deals.get(str(event.originator_id))) is not None:
            row[4:5] = ["settled" if isinstance(event, DealAggregate.DealSettled) else "void"]
            row[8:] = [at(event), position]

    def _table(self, event: Any, position: int) -> None:
        fact, table_id = event.fact, str(event.originator_id)
        if isinstance(event, TableAggregate.TableOpened):
            self.tables[table_id] = [fact["name"], bool(fact["rules"].get("shoot")),
                                     fact["banker"], 0, 0, at(event), position,
                                     fact["pack_mode"]]
            return
        row = self.tables.get(table_id)
        if row is None:
            return
        if isinstance(event, TableAggregate.BankSold):
            row[2], row[3] = fact["buyer"], 0
        elif isinstance(event, TableAggregate.DealEnded):
            row[2], row[3], row[4] = fact["next_banker"], fact["kitty_after"], row[4] + 1
        else:
            row[3] = fact["kitty_after"]
        row[6] = position

    def _dispute(self, event: Any, position: int) -> None:
        dispute_id = str(event.originator_id)
        if isinstance(event, Dispute.Raised):
            self.disputes[dispute_id] = [event.deal_id, event.raised_by, event.reason, "open",
                                         None, None, None, None, at(event), position, None,
                                         None, None]
        elif (row := self.disputes.get(dispute_id)) is not None:
            row[3:8] = ["resolved", event.decision, event.note, list(event.corrections),
                        event.resolved_by]
            row[10:] = [at(event), position, bool(event.allow_debt)]


_NOTED: dict[type, Callable[[Expected, Any, int], None]] = {
    Account.Opened: Expected._opened, Account.Credited: Expected._entry,
    Account.Debited: Expected._entry, DealAggregate.DealStarted: Expected._deal,
    DealAggregate.DealSettled: Expected._deal, DealAggregate.DealVoided: Expected._deal,
    **{cls: Expected._table for cls in (TableAggregate.TableOpened, TableAggregate.KittyPutUp,
                                        TableAggregate.KittyCorrected, TableAggregate.BankSold,
                                        TableAggregate.DealEnded)},
    Dispute.Raised: Expected._dispute, Dispute.Resolved: Expected._dispute}


def held(store: Any, expected: Expected, head: int, fail: Fail) -> None:
    """Every read model standing at `head` against what the log gives; any other named."""
    names = [f"{APPLICATION}:{model}" for model in MODELS]
    positions = store.positions(names)
    for model, name in zip(MODELS, names, strict=True):
        position = positions.get(name, 0)
        if position != head:
            fail(f"the read model {model} has applied the log up to position {position}, not "
                 f"to {head} where verify read it: its rows were not compared (let it catch "
                 "up, and verify again when no service is writing)")
            continue
        named = Named(model, fail)
        _COMPARED[model](store, expected, named)
        named.finish()


class Named:
    """One model's differences: the first NAMED_MOST in full, then how many more."""

    def __init__(self, model: str, fail: Fail) -> None:
        self.model, self.fail, self.count = model, fail, 0

    def __call__(self, message: str) -> None:
        self.count += 1
        if self.count <= NAMED_MOST:
            self.fail(f"{message} (the read model {self.model}: {MENDS})")

    def finish(self) -> None:
        if self.count > NAMED_MOST:
            self.fail(f"the read model {self.model} differs from the log in "
                      f"{self.count - NAMED_MOST} more places ({MENDS})")


def _keyed(store: Any, named: Named, what: str, table: str, columns: Sequence[str],
           expected: dict[str, list[Any]], loads: Callable[[str, Any], Any]) -> None:
    """A table with one row per key, against the rows the log gives, by key."""
    found = {str(row[0]): [loads(c, v) for c, v in zip(columns[1:], row[1:], strict=True)]
             for row in store.values(f"SELECT {', '.join(columns)} FROM {table}")}
    for key in sorted(found.keys() | expected.keys()):
        shown, given = found.get(key), expected.get(key)
        if shown is None:
            named(f"{what} has no row for {key}, which the log gives")
        elif given is None:
            named(f"{what} has a row for {key} that no event of the log gives")
        elif shown != given:
            named(f"{what}, {key}: {_differing(columns[1:], shown, given)}")


def _accounts(store: Any, expected: Expected, named: Named) -> None:
    _keyed(store, named, "the balances", "accounts", ACCOUNTS, expected.accounts, _plain)


def _deals(store: Any, expected: Expected, named: Named) -> None:
    _keyed(store, named, "the list of deals", "deals", DEALS, expected.deals, _plain)


def _tables(store: Any, expected: Expected, named: Named) -> None:
    _keyed(store, named, "the list of tables", "tables", TABLES, expected.tables, _plain)


def _disputes(store: Any, expected: Expected, named: Named) -> None:
    _keyed(store, named, "the disputes", "disputes", DISPUTES, expected.disputes, _plain)


def _plain(column: str, value: Any) -> Any:
    """A stored value as the log gives it: JSON parsed, SQLite's 0/1 as a boolean."""
    if column in ("players", "corrections") and isinstance(value, str):
        return json.loads(value)
    if column in ("shoot", "allow_debt") and value is not None:
        return bool(value)
    return value


def _statements(store: Any, expected: Expected, named: Named) -> None:
    """Every statement's rows (kitty histories among them) in (account, position) order,
    merged with the log's entries of each account."""
    seen: set[str] = set()
    for account, rows in itertools.groupby(_postings(store), key=lambda row: row[0]):
        seen.add(account)
        _merged(named, account, [row[1:] for row in rows], expected.postings.get(account, []))
    for missing in sorted(expected.postings.keys() - seen):
        _left(named, missing, expected.postings[missing])


def _merged(named: Named, account: str, shown: list[tuple[Any, ...]],
            given: list[tuple[Any, ...]]) -> None:
    """One account's rows and the log's entries, both in position order."""
    index = 0
    for row in shown:
        while index < len(given) and given[index][0] < row[0]:
            _left(named, account, given[index:index + 1])
            index += 1
        if index < len(given) and given[index][0] == row[0]:
            if row != given[index]:
                named(f"{_statement(account)}, the row at position {row[0]}: "
                      f"{_differing(POSTINGS[2:], row[1:], given[index][1:])}")
            index += 1
        else:
            named(f"{_statement(account)} has a row at position {row[0]} that no entry of "
                  "the log gives")
    _left(named, account, given[index:])


def _postings(store: Any) -> Iterator[tuple[Any, ...]]:
    """The statements' rows in their primary key's order, a page at a time."""
    columns = ", ".join(POSTINGS)
    rows = store.values(f"SELECT {columns} FROM postings ORDER BY account, position LIMIT %s",
                        (PAGE,))
    while rows:
        yield from rows
        last = rows[-1]
        rows = store.values(f"SELECT {columns} FROM postings WHERE (account, position) > "
                            "(%s, %s) ORDER BY account, position LIMIT %s",
                            (last[0], last[1], PAGE))


def _left(named: Named, account: str, missing: Sequence[tuple[Any, ...]]) -> None:
    for entry in missing:
        named(f"{_statement(account)} has no row for the entry at position {entry[0]} "
              f"(posting {entry[1]})")


def _statement(account: str) -> str:
    kind, _, owner = account.partition(":")
    return {"kitty": f"the kitty history of table {owner}", "player": f"the statement of "
            f"player {owner}"}.get(kind, f"the statement of {account}")


def _differing(columns: Sequence[str], shown: Sequence[Any], given: Sequence[Any]) -> str:
    return "; ".join(f"{column} {_short(a)} where the log gives {_short(b)}"
                     for column, a, b in zip(columns, shown, given, strict=True) if a != b)


def _short(value: Any) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


_COMPARED: dict[str, Callable[[Any, Expected, Named], None]] = {
    "balances": _accounts, "statements": _statements, "audit": _deals,
    "disputes": _disputes, "tables": _tables}
