"""The ledger's consistency boundaries, event-sourced on the `eventsourcing` library.

`DealAggregate` and `TableAggregate` record the rules engine's facts as events of the same
name: each event carries its fact's fields in `fact` and applies it to the engine object
the aggregate holds, so replaying events rebuilds exactly the engine's state. `Account`
holds one balance (a player's, the treasury's or a table's kitty) moved by postings.
Receipts remember idempotent commands, tokens their principals, disputes their
resolutions, webhooks their subscribers; the club its calendar and closed nights; a
simulated store carries the mark of its simulation. See docs/architecture.md.

Every class here keeps the topic `domain.aggregates:<Class>` it was first stored under
(`base.pinned`), so this package re-exports them all.
"""

from domain.aggregates.account import SPENDING_RULES, Account
from domain.aggregates.base import (
    TREASURY_ID,
    FactAggregate,
    kitty_id,
    posting_id,
    receipt_id,
    token_id,
)
from domain.aggregates.club import CLUB_ID, Club
from domain.aggregates.deal import DealAggregate
from domain.aggregates.dispute import Dispute
from domain.aggregates.receipt import Receipt
from domain.aggregates.simulation import SIMULATION_ID, Simulation
from domain.aggregates.table import TableAggregate
from domain.aggregates.table_name import TableName, table_name_id
from domain.aggregates.token import Token
from domain.aggregates.webhook import Webhook

__all__ = ["CLUB_ID", "SIMULATION_ID", "SPENDING_RULES", "TREASURY_ID", "Account", "Club",
           "DealAggregate", "Dispute", "FactAggregate", "Receipt", "Simulation",
           "TableAggregate", "TableName", "Token", "Webhook", "kitty_id", "posting_id",
           "receipt_id", "table_name_id", "token_id"]
