"""Playing deals: the operator starts each one and every bot acts for its own seat.

Each bot reads the deal (`GET /v1/deals/{id}`) and what it may do (`GET .../legal-actions`)
with its own token, chooses with `choose_action` and posts the action; an action refused
with 409 or 422 is logged and the bot chooses again, without the refused one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import click

from cli.simulate.between_deals import BetweenDeals
from cli.simulate.client import ApiError
from cli.simulate.entropy import Contributions
from cli.simulate.strategy import choose_action

MAX_REFUSALS = 25  # refused actions in a row before a deal is given up as stuck
OVER = ("settled", "void")


class Simulation(Contributions, BetweenDeals):
    """A table of bots: set up (`Session`), kept between deals (`BetweenDeals`), and played."""

    def start_deal(self) -> dict[str, Any]:
        self.contribute()  # a fresh pack: the bots' randomness first (R1.7)
        self.dealt_by = self.table.get("banker")
        for attempt in range(3):
            try:
                return dict(self.api.post(f"/v1/tables/{self.table_id}/deals", {},
                                          self.operator))
            except ApiError as error:
                if error.status not in (409, 422) or attempt == 2:
                    raise
                self.log_refusal("the operator", "start a deal", error)
                self.table = self.api.get(f"/v1/tables/{self.table_id}", self.operator)
                if self.table.get("deal_id"):  # a deal left open: finish it first
                    return dict(self.api.get(f"/v1/deals/{self.table['deal_id']}",
                                             self.operator))
                self.between_deals()
        raise AssertionError("unreachable")

    def play_deal(self, view: dict[str, Any]) -> dict[str, Any]:
        """Each player in turn reads the deal and its legal actions with its own token."""
        deal_path = f"/v1/deals/{view['id']}"
        seen_by = self.operator
        refused: set[tuple[str, int]] = set()
        failures = 0
        while view["phase"] not in OVER:
            turn = view.get("turn")
            if turn is None:  # a moment between two steps: read again
                view, seen_by = self.api.get(deal_path, self.operator), self.operator
                failures += 1
                self._stuck(failures, view)
                continue
            actor = turn["player_id"]
            token = self.token_for(actor)
            if seen_by != token:
                view, seen_by = self.api.get(deal_path, token), token
                if view["phase"] in OVER:
                    break
            legal = self.api.get(deal_path + "/legal-actions", token)
            items = [item for item in legal["items"] if item["player_id"] == actor
                     and (item["action"], item["hand"]) not in refused]
            if not items:
                refused.clear()
                view, seen_by = self.api.get(deal_path, token), token
                failures += 1
                self._stuck(failures, view)
                continue
            item, amount = choose_action(view, items, self.rng)
            answer = self._act(deal_path, actor, token, item, amount)
            if answer is None:
                refused.add((item["action"], item["hand"]))
                failures += 1
                self._stuck(failures, view)
                view, seen_by = self.api.get(deal_path, token), token
                continue
            view, seen_by = answer, token
            self.tally.actions += 1
            refused.clear()
            failures = 0
        self._count(view)
        return view

    def _act(self, deal_path: str, actor: str, token: str, item: Mapping[str, Any],
             amount: int | None) -> Any:
        """The deal after the action; None when the service refused it (logged)."""
        body: dict[str, Any] = {"player_id": actor, "action": item["action"],
                                "hand": item["hand"]}
        if amount is not None:
            body["amount"] = amount
        try:
            return self.api.post(deal_path + "/actions", body, token)
        except ApiError as error:
            if error.status not in (409, 422):
                raise
            said = f" {amount}" if amount is not None else ""
            self.log_refusal(self.name_of(actor), f"{item['action']}{said}", error)
            return None

    def _stuck(self, failures: int, view: Mapping[str, Any]) -> None:
        if failures > MAX_REFUSALS:
            raise click.ClickException(f"deal {view.get('id')} is stuck in phase "
                                       f"{view.get('phase')} after {failures} refusals")

    def _count(self, view: Mapping[str, Any]) -> None:
        if view["phase"] == "void":
            self.tally.void += 1
        else:
            self.tally.settled += 1
        self.tally.deal_ids.append(view["id"])
