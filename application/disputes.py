"""Disputes: raised about a deal, resolved by the treasurer with correcting postings that
reference the dispute; nothing recorded is ever changed (R11.4)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from uuid import UUID, uuid4

from application.base import Decision, LedgerBase, Outcome, _account_id
from domain.aggregates import TREASURY_ID, Account, Dispute, TableAggregate
from domain.engine.postings import Posting, check_amount
from domain.errors import NotAllowed, NotNow


class DisputeCommands(LedgerBase):
    def raise_dispute(self, deal_id: str, reason: str, *, raised_by: str,
                      key: str | None = None) -> Outcome:
        """A player of the deal, an operator or the treasurer disputes a deal."""
        def decide() -> Decision:
            self.deal(deal_id)
            if not reason.strip():
                raise NotAllowed("a dispute needs a reason a treasurer can act on")
            dispute = Dispute.raise_about(id=uuid4(), deal_id=deal_id, raised_by=raised_by,
                                          reason=reason)
            return [dispute], {"id": str(dispute.id), "status": "open", "deal_id": deal_id}
        return self._command("raise_dispute", {"deal_id": deal_id, "reason": reason,
                                               "raised_by": raised_by}, key, decide)

    def resolve_dispute(self, dispute_id: str, *, decision: str, note: str,
                        corrections: Sequence[Mapping[str, Any]], resolved_by: str,
                        key: str | None = None) -> Outcome:
        """The treasurer upholds (with correcting postings) or rejects a dispute (R11.4).

        Corrections are new postings that reference the dispute; nothing recorded is changed.
        """
        request = {"dispute_id": dispute_id, "decision": decision, "note": note,
                   "corrections": [dict(c) for c in corrections], "resolved_by": resolved_by}

        def decide() -> Decision:
            dispute = self._load(Dispute, dispute_id, "dispute", False)
            if dispute.status != "open":
                raise NotNow(f"dispute {dispute_id} is already resolved ({dispute.decision})")
            if decision not in ("upheld", "rejected"):
                raise NotAllowed("a decision is upheld or rejected")
            if decision == "rejected" and corrections:
                raise NotAllowed("a rejected dispute makes no corrections")
            postings = [_correction(c, dispute_id, note) for c in corrections]
            accounts: dict[UUID, Account] = {}
            for posting in postings:
                for name in (posting.from_account, posting.to_account):
                    account_id = _account_id(name)
                    assert account_id is not None
                    if account_id not in accounts:
                        accounts[account_id] = self._correctable(name, account_id)
            tables = self._kitty_corrections(postings, dispute_id)
            version = dispute.version + 1
            ids = self._post(accounts, [(p, (dispute.id, version, i), dispute.deal_id, None)
                                        for i, p in enumerate(postings)])
            recorded = [{"id": pid, "from_account": p.from_account,
                         "to_account": p.to_account, "amount": p.amount}
                        for pid, p in zip(ids, postings, strict=True)]
            dispute.resolve(decision=decision, note=note, corrections=recorded,
                            resolved_by=resolved_by)
            return [dispute, *accounts.values(), *tables], {
                "id": dispute_id, "status": "resolved", "decision": decision,
                "corrections": recorded}
        return self._command("resolve_dispute", request, key, decide)

    def _correctable(self, name: str, account_id: UUID) -> Account:
        """The account a correction names, of the kind its name says (R11.4)."""
        if account_id == TREASURY_ID:
            return self._treasury()
        account = self._load(Account, str(account_id), "account", True)
        kind = name.partition(":")[0]
        if account.kind != kind:
            raise NotAllowed(f"{name} is not a {kind}'s account (R11.4)", "R11.4")
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

def _correction(correction: Mapping[str, Any], dispute_id: str, note: str) -> Posting:
    """A correcting posting between real accounts (not a deal's escrow), R11.4."""
    source, target = str(correction.get("from_account")), str(correction.get("to_account"))
    amount = correction.get("amount")
    check_amount(amount, "a correction", "R11.4")
    for name in (source, target):
        if _account_id_or_none(name) is None:
            raise NotAllowed(f"{name} is not an account a correction can move chips to or "
                             "from: use player:<id>, kitty:<table id> or treasury (R11.4)",
                             "R11.4")
    if source == target:
        raise NotAllowed("a correction moves chips between two different accounts (R11.4)",
                         "R11.4")
    assert isinstance(amount, int)
    return Posting(source, target, amount, "R11.4",
                   f"correction decided in dispute {dispute_id}: {note}")

def _account_id_or_none(name: str) -> UUID | None:
    try:
        return _account_id(name)
    except ValueError:
        return None
