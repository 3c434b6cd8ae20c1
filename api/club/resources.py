"""The club's name and calendar (API.md, "The club's calendar")."""

from __future__ import annotations

from typing import Any

from api.auth import principal, require
from api.club.schemas import ClubChangedSchema, ClubChangeSchema, ClubSchema
from api.common import Blueprint, Shown, etag, if_match, ledger
from application import Outcome

blp = Blueprint("club", __name__, url_prefix="/v1/club", description="The club")


@blp.read("", ClubSchema, etag=True)
def get_club() -> Shown:
    """The club's name, time zone and the hour its days start (anyone with a token)."""
    principal()
    club = ledger().club()
    return {**club.as_dict(), "simulated": ledger().simulated()}, etag(club.version)


@blp.command("", ClubChangeSchema, ClubChangedSchema, method="PATCH", guarded=True)
def change_club(body: dict[str, Any]) -> Outcome:
    """The treasurer names the club or sets its calendar. Nights already closed keep the
    days they were closed with; every later day follows the new settings."""
    who = require("treasurer")
    return ledger().change_club(changed_by=who.id, expected_version=if_match(), **body)
