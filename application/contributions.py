"""Players' entropy (R1.7's December Decision): a seated player's randomness for the pack
committed to and not yet dealt from, mixed into the seed it is shuffled with."""

from __future__ import annotations

from application.base import Decision, LedgerBase, Outcome


class ContributionCommands(LedgerBase):
    def contribute(self, table_id: str, player_id: str, value: str, *,
                   key: str | None = None, actor: str | None = None,
                   expected_version: int | None = None) -> Outcome:
        """Add `value` (64 hex digits) to the table's pack for `player_id` (R1.7)."""
        def decide() -> Decision:
            table = self.table(table_id, expected_version)
            table.record(table.trial().contribute(player_id, value), actor)
            engine = table.engine
            return [table], {"table_id": table_id, "version": table.version,
                             "commitment": engine.commitment,
                             "contributions": len(engine.contributions)}
        return self._command("contribute", {"table_id": table_id, "player_id": player_id,
                                            "value": value}, key, decide)
