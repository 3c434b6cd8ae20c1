"""The ledger's application service: one method per command (load, decide, one save).

It stands on the event-sourced aggregates of `domain.aggregates`, which record what the
rules engine (`domain.engine`) decides; `store.py` builds it on the configured store.
"""

from application.base import Outcome
from application.ledger import Ledger

__all__ = ["Ledger", "Outcome"]
