"""What the tests of signed checkpoints share: a store's settings with a signing key made
as `pontoon migrate` makes it, and a witness's transport over the Flask test client."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import click
from flask.testing import FlaskClient

from config import Settings
from projections.signing_key import ensure_key


def with_signing_key(settings: Settings, directory: Path) -> Settings:
    signed = replace(settings, signing_key_file=str(directory / "signing-key"))
    ensure_key(signed)
    return signed


@dataclass(frozen=True)
class ClientTransport:
    """`pontoon witness`'s requests, sent to the app in process (cli/witness.Transport)."""

    client: FlaskClient

    def get(self, path: str, token: str | None, *, accept: str) -> str:
        return self._text(self.client.get(path, headers={"Accept": accept, **_bearer(token)}))

    def post(self, path: str, body: dict[str, Any], token: str) -> str:
        return self._text(self.client.post(path, json=body, headers=_bearer(token)))

    def _text(self, answer: Any) -> str:
        if answer.status_code >= 400:
            raise click.ClickException(f"{answer.status_code} {answer.get_json()['detail']}")
        return str(answer.get_data(as_text=True))


def _bearer(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}
