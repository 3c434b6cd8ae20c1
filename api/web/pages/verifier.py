"""The checkpoints' verifier key in every page's footer, so that a player can copy it from
a page the club shows them and check the log with it (README, "Running a witness")."""

from __future__ import annotations

from typing import Any

from api.web.pages.lookups import services
from api.web.pages.site import bp
from projections.signing_key import KeyFileError, load_key


@bp.context_processor
def verifier_key() -> dict[str, Any]:
    try:
        signer = load_key(services().settings)
    except KeyFileError:
        signer = None
    return {"verifier_key": signer.verifier.vkey if signer is not None else None}
