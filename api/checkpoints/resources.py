"""Signed checkpoints of the log (API.md, "Proofs anyone can check"): the latest, the list,
the verifier key (no token for these three), and witnesses' cosignatures (a witness token,
which may do nothing else)."""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

from flask import Response, current_app, request
from marshmallow import Schema

from api.auth import require
from api.checkpoints.schemas import (
    CheckpointSchema,
    CheckpointsQuerySchema,
    CheckpointsSchema,
    CosignatureSchema,
    VerifierKeySchema,
)
from api.common import IDEMPOTENCY_KEY, MIN_POSITION, Blueprint, idempotency_key
from api.reads import page, read_store
from domain.errors import NotFound
from projections.checkpoints import add_cosignature, checkpoints, latest
from projections.signing_key import KeyFileError, load_key

TEXT = {"text/plain": {"schema": {"type": "string"}}}


class CheckpointsBlueprint(Blueprint):
    def note(self, rule: str, answer: type[Schema]) -> Callable[[Callable[..., Any]], Any]:
        """A GET answering a signed note as text/plain, or JSON when asked."""
        return self._operation(rule, "GET", 200, answer, None,
                               doc={"responses": {200: {"content": TEXT}},
                                    "parameters": [MIN_POSITION]}, headers=None)

    def post(self, rule: str, body: type[Schema], answer: type[Schema]
             ) -> Callable[[Callable[..., Any]], Any]:
        """A POST that records nothing in the event log (201 and the view's answer)."""
        return self._operation(rule, "POST", 201, answer, (body, "json"),
                               doc={"parameters": [IDEMPOTENCY_KEY]}, headers=None)


blp = CheckpointsBlueprint("checkpoints", __name__, url_prefix="/v1/checkpoints",
                           description="Signed checkpoints of the log")


@blp.note("/latest", CheckpointSchema)
def latest_checkpoint() -> Any:
    """The newest signed checkpoint: the note as text/plain, or with `Accept:
    application/json` also its origin, size, root and time. No token needed."""
    found = latest(read_store(None))
    if found is None:
        raise NotFound("no checkpoint has been signed yet: one follows the first settled deal")
    if request.accept_mimetypes.best_match(["text/plain", "application/json"]) \
            == "application/json":
        return found
    return Response(found["note"], mimetype="text/plain")


@blp.read("/key", VerifierKeySchema)
def verifier_key() -> dict[str, Any]:
    """The key checkpoints are signed with, to check them by. No token needed."""
    try:
        signer = load_key(current_app.extensions["pontoon"].settings)
    except KeyFileError:
        signer = None
    if signer is None:
        raise NotFound("this service has no signing key (`pontoon migrate` makes it)")
    verifier = signer.verifier
    return {"name": verifier.name, "public_key": base64.b64encode(verifier.public).decode(),
            "vkey": verifier.vkey}


@blp.read("", CheckpointsSchema, query=CheckpointsQuerySchema)
def list_checkpoints(query: dict[str, Any]) -> dict[str, Any]:
    """Every signed checkpoint, oldest first, paged by size. No token needed."""
    items = checkpoints(read_store(query.get("min_position")), after=query["after"],
                        limit=query["limit"])
    return page(items, query["limit"], key="size")


@blp.post("/cosignatures", CosignatureSchema, CheckpointSchema)
def cosign_checkpoint(body: dict[str, Any]) -> dict[str, Any]:
    """A witness cosigns a checkpoint it checked (c2sp.org/tlog-cosignature): kept once it
    verifies against the witness's key, and served with the note from then on."""
    require("witness")
    return add_cosignature(read_store(None), body["size"], body["cosignature"], body["vkey"],
                           key=idempotency_key())
