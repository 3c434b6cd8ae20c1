"""Disputes: raised about a deal, resolved by the treasurer with correcting postings that
reference the dispute; nothing recorded is ever changed (R11.4).

R11.4's Decision bounds a resolution: its corrections move chips only between the accounts
that took part in the disputed deal (its players, its banker, its table's kitty) and the
treasury, in all no more than the chips the deal moved, and never take a player below zero
(R11.2) unless the resolution allows the debt (R11.3). See docs/decisions.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from uuid import UUID, uuid4

from application.base import Decision, LedgerBase, Outcome, _account_id, _expect
from domain.aggregates import Account, DealAggregate, Dispute, TableAggregate
from domain.engine.postings import (
    TREASURY,
    Posting,
    check_amount,
    correction_reason,
    kitty_account,
    net_changes,
    parse_account,
    player_account,
)
from domain.errors import InsufficientChips, NotAllowed, NotNow, present


class DisputeCommands(LedgerBase):
    def raise_dispute(self, deal_id: str, reason: str, *, raised_by: str,
                      key: str | None = None, expected_version: int | None = None
                      ) -> Outcome:
        """A player of the deal, an operator or the treasurer disputes a deal (as it was at
        `expected_version`, If-Match, when given)."""
        def decide() -> Decision:
            self.deal(deal_id, expected_version)
            if not reason.strip():
                raise NotAllowed("a dispute needs a reason a treasurer can act on")
            dispute = Dispute.raise_about(id=uuid4(), deal_id=deal_id, raised_by=raised_by,
                                          reason=reason)
            return [dispute], {"id": str(dispute.id), "status": "open", "deal_id": deal_id}
        return self._command("raise_dispute", {"deal_id": deal_id, "reason": reason,
                                               "raised_by": raised_by}, key, decide)

    def dispute(self, dispute_id: str) -> Dispute:
        return self._load(Dispute, dispute_id, "dispute", False)

    def resolve_dispute(self, dispute_id: str, *, decision: str, note: str,
                        corrections: Sequence[Mapping[str, Any]], resolved_by: str,
                        allow_debt: bool = False, key: str | None = None,
                        expected_version: int | None = None) -> Outcome:
        """The treasurer upholds (with correcting postings) or rejects a dispute (R11.4).

        Corrections are new postings that reference the dispute; nothing recorded is changed.
        """
        request = {"dispute_id": dispute_id, "decision": decision, "note": note,
                   "corrections": [dict(c) for c in corrections], "resolved_by": resolved_by,
                   "allow_debt": allow_debt}

        def decide() -> Decision:
            dispute = _expect(self.dispute(dispute_id), expected_version)
            if dispute.status != "open":
                raise NotNow(f"dispute {dispute_id} is already resolved ({dispute.decision})")
            if decision not in ("upheld", "rejected"):
                raise NotAllowed("a decision is upheld or rejected")
            if decision == "rejected" and corrections:
                raise NotAllowed("a rejected dispute makes no corrections")
            postings = [_correction(c, dispute_id, note, allow_debt) for c in corrections]
            _within_the_deal(postings, self.deal(dispute.deal_id))
            accounts: dict[UUID, Account] = {}
            for posting in postings:
                for name in (posting.from_account, posting.to_account):
                    account_id = present(_account_id(name),
                                         "the account a correction moves chips to or from")
                    if account_id not in accounts and name != TREASURY:
                        accounts[account_id] = self._correctable(name, account_id)
            if not allow_debt:
                _no_new_debt(postings, accounts)
            tables = self._kitty_corrections(postings, dispute_id)
            version = dispute.version + 1
            ids = self._post(accounts, [(p, (dispute.id, version, i), dispute.deal_id, None)
                                        for i, p in enumerate(postings)])
            recorded = [{"id": pid, "from_account": p.from_account,
                         "to_account": p.to_account, "amount": p.amount}
                        for pid, p in zip(ids, postings, strict=True)]
            dispute.resolve(decision=decision, note=note, corrections=recorded,
                            resolved_by=resolved_by, allow_debt=allow_debt)
            return [dispute, *accounts.values(), *tables], {
                "id": dispute_id, "status": "resolved", "decision": decision,
                "corrections": recorded, "allow_debt": allow_debt}
        return self._command("resolve_dispute", request, key, decide)

    def _correctable(self, name: str, account_id: UUID) -> Account:
        """The account a correction names, existing and of the kind its name says (R11.4)."""
        kind, owner = parse_account(name)
        try:
            account = self._load(Account, str(account_id), "account", True)
        except NotAllowed:
            if kind != "kitty" or owner is None:
                raise
            # Only the deal's own table's kitty gets here: a table that never had one.
            table = self._load(TableAggregate, owner, "table", True).engine
            raise NotAllowed(f"the table “{table.name}” does not play Shoot Pontoon: it has no "
                             "kitty for a correction to move chips to or from (R9.12)",
                             "R9.12") from None
        if account.kind != kind:
            raise NotAllowed(f"{name} is not a {kind} account (R11.4)", "R11.4")
        return account

    def _kitty_corrections(self, postings: Sequence[Posting], dispute_id: str
                           ) -> list[TableAggregate]:
        """A correction into or out of a kitty also tells its table, whose kitty limits
        shoot bets (R9.2), in the same save."""
        changes: dict[str, int] = {}
        for posting in postings:
            for name, sign in ((posting.from_account, -1), (posting.to_account, 1)):
                if name.startswith("kitty:"):
                    table_id = name.removeprefix("kitty:")
                    changes[table_id] = changes.get(table_id, 0) + sign * posting.amount
        tables = []
        for table_id, change in changes.items():
            table = self._load(TableAggregate, table_id, "table", True)
            if change:
                table.record(table.trial().correct_kitty(change, dispute_id))
            tables.append(table)
        return tables


def _correction(correction: Mapping[str, Any], dispute_id: str, note: str,
                allow_debt: bool) -> Posting:
    """A correcting posting between accounts named exactly as API.md spells them: never a
    deal's escrow, never an id in another spelling (R11.4)."""
    source, target = str(correction.get("from_account")), str(correction.get("to_account"))
    amount = check_amount(correction.get("amount"), "a correction", "R11.4")
    for name in (source, target):
        try:
            parse_account(name)
        except ValueError:
            raise NotAllowed(f"{name} is not an account a correction can move chips to or "
                             "from: use player:<id>, kitty:<table id> or treasury, ids in "
                             "lower-case hyphenated form (R11.4)", "R11.4") from None
    if source == target:
        raise NotAllowed("a correction moves chips between two different accounts (R11.4)",
                         "R11.4")
    return Posting(source, target, amount, "R11.4",
                   correction_reason(dispute_id, note, allow_debt))


def deal_accounts(deal: DealAggregate) -> set[str]:
    """The accounts that took part in a deal, as R11.4's Decision names them."""
    engine = deal.engine
    players = {engine.banker, *engine.order}
    return {*(player_account(p) for p in players), kitty_account(engine.table_id), TREASURY}


def chips_moved(deal: DealAggregate) -> int:
    """The chips a deal moved: the sum of its postings (R11.4's Decision)."""
    return sum(posting.amount for posting in deal.engine.postings)


def _within_the_deal(postings: Sequence[Posting], deal: DealAggregate) -> None:
    """R11.4's Decision: only the deal's accounts and the treasury, no more than it moved."""
    allowed = deal_accounts(deal)
    for posting in postings:
        for name in (posting.from_account, posting.to_account):
            if name not in allowed:
                raise NotAllowed(f"{name} took no part in deal {deal.engine.deal_id}: a "
                                 "correction moves chips only between its players, its "
                                 "banker, its table's kitty and the treasury (R11.4)", "R11.4")
    total, moved = sum(p.amount for p in postings), chips_moved(deal)
    if total > moved:
        raise NotAllowed(f"the corrections move {total} chips in all, more than the {moved} "
                         f"deal {deal.engine.deal_id} moved (R11.4)", "R11.4")


def _no_new_debt(postings: Sequence[Posting], accounts: Mapping[UUID, Account]) -> None:
    """R11.2: a correction does not take a player below zero unless the resolution says
    `allow_debt` (then the debt is shown as such, R11.3)."""
    by_name = {player_account(a.owner or ""): a for a in accounts.values() if a.kind == "player"}
    for name, change in net_changes(postings).items():
        player = by_name.get(name)
        if player is not None and change < 0 and player.balance + change < 0:
            raise InsufficientChips(
                f"the corrections would take {player.name or player.owner} from "
                f"{player.balance} to {player.balance + change} chips (R11.2); resolve with "
                "allow_debt to record it as their debt (R11.3)")
