"""The bots' own randomness for each new pack (R1.7's December Decision): between a pack's
commitment and its first card every bot whose player token the simulation holds adds 32
random bytes of its own, drawn here (never from the service), with that token."""

from __future__ import annotations

import secrets

from cli.simulate.client import ApiError
from cli.simulate.session import Session


class Contributions(Session):
    contributions = 0  # added by the bots in this run

    def contribute(self) -> None:
        """Each bot adds to the table's pack while it takes contributions (the table as
        last read, between deals)."""
        pack = self.table.get("pack") or {}
        if not pack.get("accepting_contributions"):
            return
        added = {c["player_id"] for c in pack.get("contributions", [])}
        for player_id in self.table["seats"]:
            bot = self.bots.get(player_id)
            if bot is None or bot.token is None or player_id in added:
                continue  # an adopted table's seats: staff may not add a player's own
            try:
                self.table = self.api.post(f"/v1/tables/{self.table_id}/contributions",
                                           {"player_id": player_id,
                                            "value": secrets.token_hex(32)}, bot.token)
            except ApiError as error:
                if error.status not in (409, 422):
                    raise
                self.log_refusal(bot.name, "add randomness to the pack", error)
                continue
            self.contributions += 1
