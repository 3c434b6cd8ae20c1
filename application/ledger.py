"""The ledger application: one method per command of API.md; load, decide, save once.

Players and chips, tables and deals are here; tokens in tokens.py, disputes in disputes.py,
the club and its nights in club.py; the mark of a simulated history in history.py; loading,
posting and the retried, idempotent running of a command in base.py.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from typing import Any
from uuid import UUID, uuid4

from eventsourcing.domain import Aggregate

from application.base import Decision, LedgerBase, Outcome, _expect, _hash, _postings_of
from application.club import ClubCommands
from application.contributions import ContributionCommands
from application.disputes import DisputeCommands
from application.eventstore import VersionConflict
from application.history import HistoryCommands
from application.names import TableNames
from application.tokens import TokenCommands
from application.webhooks import WebhookCommands
from domain.aggregates import (
    Account,
    DealAggregate,
    TableAggregate,
    TableName,
    Token,
    kitty_id,
)
from domain.engine import facts as f
from domain.engine.postings import TREASURY, Posting, check_amount, player_account
from domain.engine.table import Table
from domain.errors import of_kind

__all__ = ["Ledger", "Outcome"]


def chip_count(amount: int) -> str:
    """`1 chip`, `5 chips`: reasons are read by people."""
    return f"{amount} chip{'' if amount == 1 else 's'}"


class Ledger(TokenCommands, DisputeCommands, WebhookCommands, ContributionCommands,
             ClubCommands, TableNames, HistoryCommands, LedgerBase):
    name = "Ledger"

    # --- players and chips -------------------------------------------------------------

    def register_player(self, name: str, *, key: str | None = None,
                        with_token: bool = False) -> Outcome:
        """A player and their chip account; with a bearer token of their own if asked."""
        def decide() -> Decision:
            player_id = uuid4()
            account = Account.open(id=player_id, kind="player", owner=str(player_id),
                                   name=name)
            if not with_token:
                return [account], {"id": str(player_id), "name": name}
            secret = "pt_" + secrets.token_urlsafe(32)
            token = Token.issue(_hash(secret), "player", str(player_id))
            return [account, token], {"id": str(player_id), "name": name, "token": secret}
        return self._command("register_player", {"name": name, "with_token": with_token}, key,
                             decide, secret=("token",))

    def buy_in(self, player_id: str, amount: int, *, key: str | None = None,
               expected_version: int | None = None) -> Outcome:
        """The treasurer issues chips to a player (R11.1); `expected_version` is If-Match on
        the player's account."""
        return self._chips("buy_in", player_id, amount, key, expected_version, issue=True)

    def cash_out(self, player_id: str, amount: int, *, key: str | None = None,
                 expected_version: int | None = None) -> Outcome:
        """The treasurer redeems a player's chips; never more than they hold (R11.1, R11.2)."""
        return self._chips("cash_out", player_id, amount, key, expected_version, issue=False)

    def _chips(self, command: str, player_id: str, amount: int, key: str | None,
               expected_version: int | None, *, issue: bool) -> Outcome:
        def decide() -> Decision:
            player = _expect(self.player_account(player_id), expected_version)
            check_amount(amount, "a buy-in" if issue else "a cash-out", "R11.1")
            name = player.name or player_id
            chips = chip_count(amount)
            posting = Posting(TREASURY, player_account(player_id), amount, "R11.1",
                              f"the treasurer issues {chips} to {name}") if issue else \
                Posting(player_account(player_id), TREASURY, amount, "R11.1",
                        f"the treasurer redeems {chips} from {name}")
            # The treasury's side is the player's entry (see LedgerBase._post).
            [posting_id] = self._post({player.id: player},
                                      [(posting, (player.id, player.version + 1, 0), None,
                                        None)])
            return [player], {"posting_id": posting_id, "balance": player.balance,
                              "player_id": player_id, "version": player.version}
        return self._command(command, {"player_id": player_id, "amount": amount}, key, decide)

    # --- tables ------------------------------------------------------------------------

    def open_table(self, *, name: str, seats: Sequence[str], banker: str | None = None,
                   rules: Mapping[str, Any] | None = None,
                   pack: Mapping[str, Any] | None = None, key: str | None = None,
                   actor: str | None = None) -> Outcome:
        request = {"name": name, "seats": list(seats), "banker": banker,
                   "rules": dict(rules or {}), "pack": dict(pack or {})}

        def decide() -> Decision:
            for seat in seats:
                self.player_account(seat, referenced=True)
            table_id = str(uuid4())
            _, decided = Table.open(table_id=table_id, name=name, seats=seats, banker=banker,
                                    rules=rules, pack=pack, seed=self.new_seed())
            table = TableAggregate.begin(decided, actor)
            self._name_is_free(name)
            kitty = Account.open(id=kitty_id(table_id), kind="kitty", owner=table_id,
                                 name=f"kitty of {name}") if table.engine.rules.shoot else None
            return [table, kitty, TableName.reserve(name, table_id)], {
                "table_id": table_id, "version": table.version}
        return self._command("open_table", request, key, decide)

    def seat_player(self, table_id: str, player_id: str, after: str | None = None, *,
                    key: str | None = None, actor: str | None = None,
                    expected_version: int | None = None) -> Outcome:
        def decide() -> Decision:
            table = self.table(table_id, expected_version)
            self.player_account(player_id, referenced=True)
            table.record(table.trial().seat(player_id, after), actor)
            return [table], {"table_id": table_id, "version": table.version}
        return self._command("seat_player", {"table_id": table_id, "player_id": player_id,
                                             "after": after}, key, decide)

    def remove_player(self, table_id: str, player_id: str, *, key: str | None = None,
                      actor: str | None = None, expected_version: int | None = None
                      ) -> Outcome:
        def decide() -> Decision:
            table = self.table(table_id, expected_version)
            table.record(table.trial().leave(player_id), actor)
            return [table], {"table_id": table_id, "version": table.version}
        return self._command("remove_player", {"table_id": table_id, "player_id": player_id},
                             key, decide)

    def put_up_kitty(self, table_id: str, player_id: str, amount: int, *,
                     key: str | None = None, actor: str | None = None,
                     expected_version: int | None = None) -> Outcome:
        def decide() -> Decision:
            self._read_ahead(table_id, player_id)
            table = self.table(table_id, expected_version)
            accounts = self._accounts_of([player_id], referenced=True)
            chips = accounts[UUID(player_id)].balance
            return self._table_change(table, table.trial().put_up_kitty(player_id, amount, chips),
                                      accounts, actor)
        return self._command("put_up_kitty", {"table_id": table_id, "player_id": player_id,
                                              "amount": amount}, key, decide)

    def sell_bank(self, table_id: str, buyer_id: str, price: int, *,
                  seller: str | None = None, key: str | None = None,
                  actor: str | None = None, expected_version: int | None = None) -> Outcome:
        """R8.2; `seller`: the banker the request was made for (a race must not sell
        another banker's bank)."""
        def decide() -> Decision:
            table = self.table(table_id, expected_version)
            accounts = self._accounts_of([buyer_id], referenced=True)
            chips = accounts[UUID(buyer_id)].balance
            decided = table.trial().sell_bank(buyer_id, price, chips, seller=seller)
            return self._table_change(table, decided, accounts, actor)
        return self._command("sell_bank", {"table_id": table_id, "buyer_id": buyer_id,
                                           "price": price, "seller": seller}, key, decide)

    def open_auction(self, table_id: str, player_id: str, *, key: str | None = None,
        actor: str | None = None, expected_version: int | None = None
                     ) -> Outcome:
        def decide() -> Decision:
            table = self.table(table_id, expected_version)
            return self._table_change(table, table.trial().open_auction(player_id), {}, actor)
        return self._command("open_auction", {"table_id": table_id, "player_id": player_id},
                             key, decide)

    def bid(self, table_id: str, player_id: str, price: int, *, key: str | None = None,
        actor: str | None = None, expected_version: int | None = None
            ) -> Outcome:
        def decide() -> Decision:
            table = self.table(table_id, expected_version)
            accounts = self._accounts_of([player_id], referenced=True)
            chips = accounts[UUID(player_id)].balance
            return self._table_change(table, table.trial().bid(player_id, price, chips), {},
                                      actor)
        return self._command("bid", {"table_id": table_id, "player_id": player_id,
                                     "price": price}, key, decide)

    def close_auction(self, table_id: str, player_id: str, *, key: str | None = None,
        actor: str | None = None, expected_version: int | None = None
                      ) -> Outcome:
        def decide() -> Decision:
            table = self.table(table_id, expected_version)
            bidders = sorted({bidder for bidder, _ in table.engine.auction or []})
            accounts = self._accounts_of(bidders)
            chips = {bidder: accounts[UUID(bidder)].balance for bidder in bidders}
            decided = table.trial().close_auction(player_id, chips)
            saved, result = self._table_change(table, decided, accounts, actor)
            closed = of_kind(decided[0], f.AuctionClosed, "the fact that closes an auction")
            return saved, {**result, "sold_to": closed.sold_to, "price": closed.price}
        return self._command("close_auction", {"table_id": table_id, "player_id": player_id},
                             key, decide)

    def _table_change(self, table: TableAggregate, decided: list[f.Fact],
                      accounts: dict[UUID, Account], actor: str | None) -> Decision:
        first = table.version + 1
        table.record(decided, actor)
        self._post(accounts, _postings_of(decided, table.id, first, None,
                                          table.engine.table_id))
        return [table, *accounts.values()], {"table_id": table.engine.table_id,
                                             "version": table.version}

    # --- deals -------------------------------------------------------------------------

    def start_deal(self, table_id: str, *, cards: Sequence[str] | None = None,
                   key: str | None = None, actor: str | None = None,
                   expected_version: int | None = None) -> Outcome:
        def decide() -> Decision:
            known = self.cached(table_id)
            self._read_ahead(table_id, *(known.engine.seats if isinstance(
                known, TableAggregate) else ()))
            table = self.table(table_id, expected_version)
            others = [p for p in table.engine.seats if p != table.engine.banker]
            accounts = self._accounts_of(others)
            chips = {p: accounts[UUID(p)].balance for p in others}
            deal_id = str(uuid4())
            deal_engine, table_facts, deal_facts = table.trial().start_deal(
                deal_id=deal_id, chips=chips, seed=self.new_seed(), cards=cards)
            table.record(table_facts, actor)
            deal = DealAggregate.begin(deal_facts, actor)
            saved = self._after_deal_facts(deal, table, deal_facts, 1, {}, actor)
            return saved, {"deal_id": deal_id, "table_id": table_id, "version": deal.version}
        return self._command("start_deal", {"table_id": table_id, "cards": cards}, key, decide)

    def act(self, deal_id: str, player_id: str, action: str, *, hand: int | None = None,
            amount: int | None = None, cards: Sequence[str] | None = None,
            key: str | None = None, actor: str | None = None,
            expected_version: int | None = None) -> Outcome:
        """One action of a deal (API.md); chips are checked against the player's account."""
        request = {"deal_id": deal_id, "player_id": player_id, "action": action, "hand": hand,
                   "amount": amount, "cards": cards}

        def decide() -> Decision:
            self._read_ahead(deal_id, player_id, *self._act_hint(deal_id))
            deal = self.deal(deal_id, expected_version)
            accounts = self._accounts_of([player_id], referenced=True)
            chips = accounts[UUID(player_id)].balance
            # R3.5: staking passes over a player who no longer holds the minimum stake.
            to_stake = deal.engine.still_to_stake()
            accounts.update(self._accounts_of(p for p in to_stake if UUID(p) not in accounts))
            holdings = {p: accounts[UUID(p)].balance for p in to_stake}
            first = deal.version + 1
            decided = deal.trial().act(player_id, action, hand=hand, amount=amount,
                                       cards=cards, chips=chips, holdings=holdings)
            deal.record(decided, actor)
            saved = self._after_deal_facts(deal, None, decided, first, accounts, actor)
            return saved, {"deal_id": deal_id, "version": deal.version}
        return self._command("act", request, key, decide)

    def _act_hint(self, deal_id: str) -> list[str]:
        """What an action will likely read besides the deal and its player, by this
        process's last sight of the deal: the players still to stake, and the table when the
        banker's turn may end the deal. Read ahead with them; whatever else it needs it
        reads as it goes."""
        known = self.cached(deal_id)
        if not isinstance(known, DealAggregate):
            return []
        engine = known.engine
        return [*engine.still_to_stake(), *([engine.table_id] if engine.phase == "banker"
                                            else [])]

    def _after_deal_facts(self, deal: DealAggregate, table: TableAggregate | None,
                          decided: list[f.Fact], first: int, accounts: dict[UUID, Account],
                          actor: str | None) -> list[Aggregate | None]:
        """Post the facts' chips; when the deal ended, the table takes back banker and pack."""
        engine = deal.engine
        self._post(accounts, _postings_of(decided, deal.id, first, engine.deal_id,
                                          engine.table_id))
        if engine.is_over:
            table = table or self.table(engine.table_id)
            if table.engine.deal_id != engine.deal_id:
                # The table was read after a rival command ended this deal: the deal we
                # decided on is stale. Decide again from fresh state.
                raise VersionConflict(f"deal {engine.deal_id} already ended at its table")
            # A pack that must be shuffled is committed to now (R1.4, R1.7, decision 135).
            table.record(table.trial().end_deal(engine, seed=self.new_seed()), actor)
        return [deal, table, *accounts.values()]
