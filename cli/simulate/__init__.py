"""`pontoon simulate`: bots play complete deals through the REST API, and nothing else.

Each bot is a player with a token of its own (`POST /v1/players` answers it), so it sees its
own face-down cards and acts only for its own seat, as a person with a client app would: it
reads the deal (`GET /v1/deals/{id}`) and what it may do (`GET .../legal-actions`), chooses
with `choose_action` and posts the action. A treasurer token registers the players, buys
their chips and creates an operator token; the operator opens the table and starts each
deal. Between deals the banker puts up or tops up the kitty (R9.1, R9.9, R9.10), now and then
offers the bank at an auction when the kitty ran empty (R9.10) or sells it (R8.2), and the
treasurer buys chips for players who run short (R3.5, R11.1).

Only the standard library speaks HTTP here (urllib.request, JSON). Every POST carries an
`Idempotency-Key` and is sent once more, with the same key, after a 409 or a dropped
connection; an action refused with 409 or 422 is logged and the bot chooses again.

The modules, in the order a run uses them: `client` (HTTP), `session` (the state and the
set-up), `between_deals` (chips, bank sales, the kitty and auctions), `simulation` (playing
deals), `strategy` (each bot's choice), `report` (progress and summary), `run`.
"""

from cli.simulate.client import Api, ApiError
from cli.simulate.run import run_simulation
from cli.simulate.session import Bot
from cli.simulate.simulation import Simulation
from cli.simulate.strategy import choose_action

__all__ = ["Api", "ApiError", "Bot", "Simulation", "choose_action", "run_simulation"]
