"""Merkle proofs of the log (API.md, "Proofs anyone can check"): that an event is in the
tree a checkpoint signs, and that a newer checkpoint's tree extends an older one's. Staff
or any player; each is a few indexed reads of the Merkle log (projections/proofs.py)."""

from __future__ import annotations

import base64
from typing import Any

from api.auth import require
from api.common import Blueprint
from api.proofs.schemas import (
    ConsistencyQuerySchema,
    ConsistencySchema,
    InclusionQuerySchema,
    InclusionSchema,
)
from api.reads import read_store
from domain.errors import NotNow
from projections import proofs

blp = Blueprint("proofs", __name__, url_prefix="/v1/proofs", description="Merkle proofs")


def _encoded(hashes: list[bytes]) -> list[str]:
    return [base64.b64encode(h).decode() for h in hashes]


@blp.read("/inclusion", InclusionSchema, query=InclusionQuerySchema)
def inclusion_proof(query: dict[str, Any]) -> dict[str, Any]:
    """The leaf `index` and its path to the root of the tree of `size` leaves."""
    require("operator", "player")
    try:
        leaf, path = proofs.inclusion(read_store(None), query["index"], query["size"])
    except proofs.TreeTooSmall as error:
        raise NotNow(f"{error}: ask for a checkpoint's size") from None
    return {"index": query["index"], "size": query["size"],
            "leaf_hash": base64.b64encode(leaf).decode(), "proof": _encoded(path)}


@blp.read("/consistency", ConsistencySchema, query=ConsistencyQuerySchema)
def consistency_proof(query: dict[str, Any]) -> dict[str, Any]:
    """The hashes that show the tree of `from` leaves is the start of the tree of `to`."""
    require("operator", "player")
    try:
        path = proofs.consistency(read_store(None), query["first"], query["second"])
    except proofs.TreeTooSmall as error:
        raise NotNow(f"{error}: ask for a checkpoint's size") from None
    return {"first": query["first"], "second": query["second"], "proof": _encoded(path)}
