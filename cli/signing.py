"""The checkpoints' signing key, made by `pontoon migrate` (projections/signing_key.py)."""

from __future__ import annotations

from typing import Any

import click
from rich.console import Console


def ensure_signing_key(settings: Any, console: Console) -> None:
    """Make the signing key once (never overwritten) and say where it is and how to check
    the service's checkpoints with it."""
    from projections.signing_key import KeyFileError, ensure_key

    try:
        signer, made = ensure_key(settings)
    except (KeyFileError, OSError) as error:
        raise click.ClickException(str(error)) from None
    console.print(f"checkpoints are signed with the key in {settings.signing_key_file}"
                  f"{' (new: keep it, and never in the store)' if made else ''}; verifier "
                  f"key: {signer.verifier.vkey}", soft_wrap=True, highlight=False,
                  markup=False)


def read_checkpoint(given: str | None, vkey: str | None, settings: Any
                    ) -> tuple[Any, Any]:
    """`verify --checkpoint`: the old `POSITION HASH`, or a signed note (its text, a file
    holding it, or - for standard input) whose signature is checked here, against `vkey`
    or the service's own key. Returns (POSITION HASH, signed checkpoint), one of them."""
    import sys
    from pathlib import Path

    from domain.integrity import Checkpoint
    from projections.notes import NoteError, Verifier, open_checkpoint
    from projections.signing_key import KeyFileError, load_key

    if given is None:
        return None, None
    if given == "-":
        text = sys.stdin.read()
    elif "\n" in given:
        text = given
    elif Path(given).is_file():
        text = Path(given).read_text(encoding="utf-8")
    else:
        try:
            return Checkpoint.parse(given), None
        except ValueError as error:
            raise click.BadParameter(str(error), param_hint="--checkpoint") from None
    try:
        if vkey is not None:
            verifier = Verifier.parse(vkey)
        else:
            signer = load_key(settings)
            if signer is None:
                raise click.BadParameter(f"there is no signing key at "
                                         f"{settings.signing_key_file}: give --vkey",
                                         param_hint="--vkey")
            verifier = signer.verifier
        return None, open_checkpoint(text, verifier)[0]
    except (NoteError, KeyFileError) as error:
        raise click.BadParameter(f"not a checkpoint signed by the log's key: {error}",
                                 param_hint="--checkpoint") from None
