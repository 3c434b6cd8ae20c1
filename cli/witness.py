"""`pontoon witness`: a club member's check that the log only ever grows (README, "Running
a witness").

It keeps the last checkpoint it accepted in a state file. Each run reads the service's
latest checkpoint, checks its signature against the log's verifier key (--vkey, obtained
once, outside the service), and checks by a consistency proof that the new tree extends
the one it accepted: a history rewritten in the database, even with every hash chain
recomputed and every checkpoint signed again, cannot pass that. When it holds, the new
checkpoint becomes the state, and the witness cosigns it (c2sp.org/tlog-cosignature) with
its own key (--key, made on the first run, mode 0600) and posts the cosignature with a
witness token; the note then carries it. When it fails, the witness refuses, keeps its
state, and exits 1 saying what it saw.

Proofs are read with a club member's own token (a player's, or staff's), since a witness
token may only post cosignatures (docs/decisions.md 132).
"""

from __future__ import annotations

import contextlib
import json
import os
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import click

from cli.common import WITNESS, StoreError
from cli.main import main

TIMEOUT = 30.0


class Refused(Exception):
    """The new checkpoint does not extend the one accepted (or is not the log's)."""


class Transport(Protocol):
    def get(self, path: str, token: str | None, *, accept: str) -> str: ...

    def post(self, path: str, body: dict[str, Any], token: str) -> str: ...


@dataclass(frozen=True)
class Http:
    """The service over urllib (the standard library only)."""

    url: str

    def get(self, path: str, token: str | None, *, accept: str) -> str:
        return self._send(urllib.request.Request(self.url.rstrip("/") + path, headers={
            "Accept": accept, **_bearer(token)}))

    def post(self, path: str, body: dict[str, Any], token: str) -> str:
        return self._send(urllib.request.Request(
            self.url.rstrip("/") + path, data=json.dumps(body).encode(), method="POST",
            headers={"Content-Type": "application/json", **_bearer(token)}))

    def _send(self, request: urllib.request.Request) -> str:
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as answer:  # noqa: S310
                return str(answer.read().decode("utf-8"))
        except urllib.error.HTTPError as error:
            detail = error.read().decode("utf-8", "replace")
            with contextlib.suppress(ValueError, AttributeError):
                detail = json.loads(detail).get("detail", detail)
            raise click.ClickException(f"{request.get_method()} {request.full_url}: "
                                       f"{error.code} {detail}") from None
        except (urllib.error.URLError, OSError) as error:
            raise StoreError(f"cannot reach the service at {request.full_url}: {error}; "
                             "check --url") from None


def _bearer(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


def witness_once(transport: Transport, vkey: str, state: Path, key: Path, *,
                 read_token: str | None, witness_token: str | None,
                 name: str | None = None, now: int | None = None) -> list[str]:
    """One check of the latest checkpoint; returns what it did, line by line. Raises
    Refused (the state untouched) when the log does not extend the state's checkpoint."""
    from domain.merkle import ProofError, verify_consistency
    from projections.notes import NoteError, Verifier, cosign, open_checkpoint

    told: list[str] = []
    log_key = Verifier.parse(vkey)
    signer = witness_key(key, name, told)
    note = transport.get("/v1/checkpoints/latest", None, accept="text/plain")
    try:
        new, _ = open_checkpoint(note, log_key)
    except NoteError as error:
        raise Refused(f"the latest checkpoint is not signed by {log_key.name}: {error}"
                      ) from None
    old = accepted(state, log_key)
    if old is None:
        told.append(f"first run: accepting checkpoint {new.size} of {new.origin} as it is")
    else:
        if new.origin != old.origin:
            raise Refused(f"the log's origin changed from {old.origin!r} to {new.origin!r}")
        proof = _consistency(transport, old.size, new.size, read_token) \
            if old.size < new.size else []
        try:
            verify_consistency(old.size, new.size, old.root, new.root, proof)
        except ProofError as error:
            raise Refused(f"checkpoint {new.size} (root {new.root.hex()}) does not extend "
                          f"the checkpoint {old.size} (root {old.root.hex()}) accepted "
                          f"before: {error}") from None
        told.append(f"checkpoint {new.size} extends checkpoint {old.size}: consistent")
    _keep(state, note)
    line = cosign(new.text, signer, int(time.time()) if now is None else now).line
    if witness_token is None:
        told.append("not cosigned: no witness token (--token or PONTOON_WITNESS_TOKEN)")
        return told
    transport.post("/v1/checkpoints/cosignatures", {
        "size": new.size, "cosignature": line.rstrip("\n"),
        "vkey": signer.verifier.vkey}, witness_token)
    told.append(f"cosigned checkpoint {new.size} as {signer.name}")
    return told


def _consistency(transport: Transport, first: int, second: int,
                 token: str | None) -> list[bytes]:
    import base64
    import binascii

    query = urllib.parse.urlencode({"from": first, "to": second})
    answer = json.loads(transport.get(f"/v1/proofs/consistency?{query}", token,
                                      accept="application/json"))
    try:
        return [base64.b64decode(item, validate=True) for item in answer["proof"]]
    except (KeyError, TypeError, binascii.Error) as error:
        raise Refused(f"the consistency proof is malformed ({error})") from None


def accepted(state: Path, log_key: Any) -> Any:
    """The checkpoint in the state file, checked again (None: there is no state yet)."""
    from projections.notes import NoteError, open_checkpoint

    if not state.exists():
        return None
    try:
        return open_checkpoint(state.read_text(encoding="utf-8"), log_key)[0]
    except (NoteError, OSError, UnicodeDecodeError) as error:
        raise click.ClickException(f"the state file {state} does not hold a checkpoint "
                                   f"signed by {log_key.name}: {error}") from None


def _keep(state: Path, note: str) -> None:
    """Replace the state at once or not at all."""
    state.parent.mkdir(parents=True, exist_ok=True)
    partial = state.with_name(state.name + ".partial")
    partial.write_text(note, encoding="utf-8")
    partial.replace(state)


def witness_key(path: Path, name: str | None, told: list[str]) -> Any:
    """The witness's own cosigning key: read, or made on the first run (mode 0600)."""
    from projections.notes import COSIGNATURE_V1, NoteError, Signer

    if path.exists():
        try:
            signer = Signer.parse(path.read_text(encoding="ascii"))
        except (NoteError, OSError, UnicodeDecodeError) as error:
            raise click.ClickException(f"{path} is not a witness key: {error}") from None
        if signer.kind != COSIGNATURE_V1:
            raise click.ClickException(f"{path} is not a cosigning key (type 0x04)")
        return signer
    signer = Signer.generate(name or "pontoon-witness", COSIGNATURE_V1)
    path.parent.mkdir(parents=True, exist_ok=True)
    with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as f:
        f.write(signer.skey + "\n")
    told.append(f"new witness key in {path}; publish its verifier key: "
                f"{signer.verifier.vkey}")
    return signer


DEFAULT_KEY = Path("~/.config/pontoon-witness/witness-key")


@main.command(environment=WITNESS)
@click.option("--url", required=True, help="The service, e.g. https://ledger.example.")
@click.option("--vkey", required=True, help="The log's verifier key, as the treasurer "
              "published it (GET /v1/checkpoints/key).")
@click.option("--state", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="The last checkpoint this witness accepted (one file per log).")
@click.option("--key", type=click.Path(dir_okay=False, path_type=Path), default=DEFAULT_KEY,
              show_default=True, help="This witness's own Ed25519 key (made if absent).")
@click.option("--name", default=None, help="The new key's name (first run only).")
@click.option("--token", "witness_token", envvar="PONTOON_WITNESS_TOKEN", default=None,
              show_envvar=True, help="A witness token, to post the cosignature.")
@click.option("--read-token", envvar="PONTOON_READ_TOKEN", default=None, show_envvar=True,
              help="Your own player (or staff) token, to read consistency proofs.")
@click.option("--every", type=click.FloatRange(min=1), default=None,
              help="Check again every this many seconds, until Ctrl-C.")
def witness(url: str, vkey: str, state: Path, key: Path, name: str | None,
            witness_token: str | None, read_token: str | None, every: float | None) -> None:
    """Check that the log's latest checkpoint extends the last one accepted, and cosign it;
    refuse (exit 1, state kept) if it does not."""
    from projections.notes import NoteError

    while True:
        try:
            for line in witness_once(Http(url), vkey, state.expanduser(), key.expanduser(),
                                     read_token=read_token, witness_token=witness_token,
                                     name=name):
                click.echo(line)
        except NoteError as error:
            raise click.BadParameter(str(error), param_hint="--vkey") from None
        except Refused as refused:
            click.echo(f"REFUSED: {refused}; the state in {state} is kept", err=True)
            raise SystemExit(1) from None
        if every is None:
            return
        time.sleep(every)
