"""The key that signs the log's checkpoints, kept in a file and never in the store.

Whoever can write the database can rewrite the log and recompute every hash; what they
cannot do without this file is sign a checkpoint of the rewritten log. `pontoon migrate`
makes it once (mode 0600, never overwritten) at PONTOON_SIGNING_KEY_FILE, in the C2SP
signer-key form `PRIVATE+KEY+<name>+<hex key id>+base64(0x01 ‖ seed)`; the service reads
it to sign and to publish its verifier key. With PostgreSQL, every host that may be
elected to run the read models needs a copy of the same file (README, "Running a
witness"; docs/decisions.md 131).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from pathlib import Path

from config import Settings
from domain.errors import present
from projections.notes import NoteError, Signer, check_name


class KeyFileError(Exception):
    """The key file cannot be used: unreadable, malformed, or readable by others."""


def key_path(settings: Settings) -> Path:
    return Path(settings.signing_key_file)


def ensure_key(settings: Settings) -> tuple[Signer, bool]:
    """The signing key, made now if there is none (True); an existing file is never
    overwritten, however it reads."""
    path = key_path(settings)
    found = load_key(settings)
    if found is not None:
        return found, False
    signer = Signer.generate(_new_name(settings))
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process made it meanwhile: theirs stands
        return present(load_key(settings), "the signing key another process made"), False
    with os.fdopen(descriptor, "w", encoding="ascii") as handle:
        handle.write(signer.skey + "\n")
    return signer, True


def load_key(settings: Settings) -> Signer | None:
    """The signing key, or None if its file does not exist."""
    path = key_path(settings)
    try:
        mode = path.stat().st_mode
        text = path.read_text(encoding="ascii")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as error:
        raise KeyFileError(f"the signing key {path} cannot be read: {error}") from None
    if os.name == "posix" and stat.S_IMODE(mode) & 0o077:
        raise KeyFileError(f"the signing key {path} is readable by others: "
                           f"chmod 600 {path}")
    try:
        return Signer.parse(text)
    except NoteError as error:
        raise KeyFileError(f"the signing key {path} is not a signer key: {error}") from None


def _new_name(settings: Settings) -> str:
    """PONTOON_LOG_ORIGIN when it can name a key (no spaces, no '+'), else a name of its
    own, so that two clubs' logs never share one."""
    if settings.log_origin is not None:
        with contextlib.suppress(NoteError):
            return check_name(settings.log_origin)
    return f"pontoon-ledger/{secrets.token_hex(4)}"


def log_origin(settings: Settings, signer: Signer, in_use: str | None,
               club_name: str | None) -> str:
    """The first line of every checkpoint: PONTOON_LOG_ORIGIN; else the origin the log's
    checkpoints already carry, so that renaming the club does not make the log look new to
    its witnesses (decision 131); else the club's name when the first checkpoint is made;
    else the signing key's name."""
    return settings.log_origin or in_use or club_name or signer.name
