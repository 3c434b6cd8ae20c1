"""Signed notes (c2sp.org/signed-note), checkpoints (c2sp.org/tlog-checkpoint) and witness
cosignatures (c2sp.org/tlog-cosignature), with Ed25519 from pyca `cryptography`.

A note is text ending in a newline, a blank line, then signature lines
`— <key name> base64(4-byte key id ‖ signature)`; a key id is the first 4 bytes of
SHA-256(name ‖ 0x0A ‖ type ‖ public key), type 0x01 for a note signature, 0x04 for a
cosignature, whose signature is an 8-byte big-endian time then an Ed25519 signature of
"cosignature/v1\\ntime <time>\\n" ‖ the checkpoint. Verifier keys are
`<name>+<hex key id>+base64(type ‖ public key)`; signer keys (the key file)
`PRIVATE+KEY+<name>+<hex key id>+base64(type ‖ seed)`, as Go's golang.org/x/mod/sumdb/note.

Everything read here is refused unless exactly in form: a note, a key or a checkpoint is
what a forger hands a verifier.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

ED25519 = 0x01
COSIGNATURE_V1 = 0x04
DASH = "\u2014"
NOTE_MAX = 64 * 1024  # bytes: a checkpoint with a hundred cosignatures is under 15 kB
SIGNATURES_MAX = 100
_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f]")
_SIZE = re.compile(r"0|[1-9][0-9]{0,18}")


class NoteError(ValueError):
    """A note, key or signature that is malformed or does not verify."""


def key_id(name: str, kind: int, public: bytes) -> bytes:
    return hashlib.sha256(name.encode() + b"\n" + bytes([kind]) + public).digest()[:4]


def check_name(name: str) -> str:
    if not name or "+" in name or any(c.isspace() for c in name) or _CONTROL.search(name):
        raise NoteError(f"a key name is not empty and holds no space or '+': {name!r}")
    return name


def _b64(text: str, what: str) -> bytes:
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise NoteError(f"{what} is not base64") from None
    if base64.b64encode(raw).decode() != text:
        raise NoteError(f"{what} is not in canonical base64")
    return raw


@dataclass(frozen=True)
class Verifier:
    name: str
    kind: int
    public: bytes  # the 32-byte Ed25519 public key

    @property
    def key_id(self) -> bytes:
        return key_id(self.name, self.kind, self.public)

    @property
    def vkey(self) -> str:
        encoded = base64.b64encode(bytes([self.kind]) + self.public).decode()
        return f"{self.name}+{self.key_id.hex()}+{encoded}"

    @classmethod
    def parse(cls, vkey: str, *, kind: int = ED25519) -> Verifier:
        """A verifier key of the signature type `kind` (0x01 notes, 0x04 cosignatures)."""
        name, _, rest = vkey.strip().partition("+")
        hex_id, _, encoded = rest.partition("+")
        raw = _b64(encoded, "the verifier key")
        if len(raw) != 33 or raw[0] != kind or not re.fullmatch("[0-9a-f]{8}", hex_id):
            raise NoteError(f"a verifier key is <name>+<8 hex digits>+base64 of 0x{kind:02x} "
                            "and a 32-byte Ed25519 public key")
        verifier = cls(check_name(name), kind, raw[1:])
        if verifier.key_id.hex() != hex_id:
            raise NoteError(f"the verifier key's id {hex_id} is not the hash of its name and "
                            f"key ({verifier.key_id.hex()})")
        return verifier

    def verify(self, message: bytes, signature: bytes) -> bool:
        try:
            Ed25519PublicKey.from_public_bytes(self.public).verify(signature, message)
        except (InvalidSignature, ValueError):
            return False
        return True


@dataclass(frozen=True)
class Signer:
    name: str
    kind: int
    seed: bytes  # the 32-byte Ed25519 private key

    @classmethod
    def generate(cls, name: str, kind: int = ED25519) -> Signer:
        seed = Ed25519PrivateKey.generate().private_bytes_raw()
        return cls(check_name(name), kind, seed)

    @classmethod
    def parse(cls, skey: str) -> Signer:
        parts = skey.strip().split("+", 4)
        if len(parts) != 5 or parts[:2] != ["PRIVATE", "KEY"]:
            raise NoteError("a signer key is PRIVATE+KEY+<name>+<hex id>+base64")
        raw = _b64(parts[4], "the signer key")
        if len(raw) != 33 or raw[0] not in (ED25519, COSIGNATURE_V1):
            raise NoteError("a signer key holds an Ed25519 seed of 32 bytes")
        signer = cls(check_name(parts[2]), raw[0], raw[1:])
        if signer.verifier.key_id.hex() != parts[3]:
            raise NoteError("the signer key's id is not the hash of its name and key")
        return signer

    @property
    def skey(self) -> str:
        encoded = base64.b64encode(bytes([self.kind]) + self.seed).decode()
        return f"PRIVATE+KEY+{self.name}+{self.verifier.key_id.hex()}+{encoded}"

    @property
    def verifier(self) -> Verifier:
        public = Ed25519PrivateKey.from_private_bytes(self.seed).public_key()
        return Verifier(self.name, self.kind, public.public_bytes_raw())

    def sign(self, message: bytes) -> bytes:
        return Ed25519PrivateKey.from_private_bytes(self.seed).sign(message)


@dataclass(frozen=True)
class Signature:
    name: str
    key_id: bytes
    signature: bytes  # after the key id

    @property
    def line(self) -> str:
        encoded = base64.b64encode(self.key_id + self.signature).decode()
        return f"{DASH} {self.name} {encoded}\n"

    @classmethod
    def parse(cls, line: str) -> Signature:
        """One signature line, with or without its newline."""
        dash, _, rest = line.rstrip("\n").partition(" ")
        name, _, encoded = rest.partition(" ")
        if dash != DASH or not encoded:
            raise NoteError(f"a signature line is '{DASH} <name> <base64>': {line!r}")
        raw = _b64(encoded, "a signature")
        if len(raw) < 5:
            raise NoteError("a signature holds a key id and a signature")
        return cls(check_name(name), raw[:4], raw[4:])


@dataclass(frozen=True)
class Note:
    text: str  # ending in its newline
    signatures: tuple[Signature, ...]

    @classmethod
    def parse(cls, note: str | bytes) -> Note:
        if isinstance(note, bytes):
            try:
                note = note.decode("utf-8")
            except UnicodeDecodeError:
                raise NoteError("a note is UTF-8") from None
        if len(note.encode()) > NOTE_MAX or _CONTROL.search(note):
            raise NoteError(f"a note is at most {NOTE_MAX} bytes of text without control "
                            "characters but newlines")
        split = note.rfind("\n\n")
        if split < 0 or not note.endswith("\n"):
            raise NoteError("a note is text, a blank line and signature lines, each ending "
                            "in a newline")
        lines = note[split + 2:].splitlines(keepends=True)
        if not lines or len(lines) > SIGNATURES_MAX:
            raise NoteError(f"a note has 1 to {SIGNATURES_MAX} signature lines")
        return cls(note[:split + 1], tuple(Signature.parse(line) for line in lines))

    def __str__(self) -> str:
        return self.text + "\n" + "".join(s.line for s in self.signatures)

    def verified_by(self, verifier: Verifier) -> Signature:
        """The signature of `verifier`'s key; NoteError if there is none, or if one made
        in that key's name and id does not verify."""
        mine = [s for s in self.signatures
                if (s.name, s.key_id) == (verifier.name, verifier.key_id)]
        if not mine:
            raise NoteError(f"the note carries no signature of the key {verifier.name}+"
                            f"{verifier.key_id.hex()}")
        for signature in mine:
            if not verifier.verify(self.text.encode(), signature.signature):
                raise NoteError(f"the signature of {verifier.name} does not verify: the "
                                "note was changed, or signed by another key")
        return mine[0]


def sign(text: str, signer: Signer) -> Note:
    signature = Signature(signer.name, signer.verifier.key_id, signer.sign(text.encode()))
    return Note(text, (signature,))


@dataclass(frozen=True)
class Checkpoint:
    origin: str
    size: int
    root: bytes

    @property
    def text(self) -> str:
        return f"{self.origin}\n{self.size}\n{base64.b64encode(self.root).decode()}\n"

    @classmethod
    def parse(cls, text: str) -> Checkpoint:
        """A checkpoint's note text (extension lines are refused: this log writes none)."""
        lines = text.split("\n")
        if len(lines) != 4 or lines[3] != "" or not lines[0]:
            raise NoteError("a checkpoint is three lines: origin, tree size, root hash")
        if not _SIZE.fullmatch(lines[1]):
            raise NoteError(f"a checkpoint's tree size is a decimal number: {lines[1]!r}")
        root = _b64(lines[2], "the checkpoint's root hash")
        if len(root) != 32:
            raise NoteError("a checkpoint's root hash is 32 bytes")
        return cls(lines[0], int(lines[1]), root)


def open_checkpoint(note: str | bytes, verifier: Verifier) -> tuple[Checkpoint, Note]:
    """The checkpoint a note holds, once its signature by `verifier` is checked."""
    parsed = Note.parse(note)
    parsed.verified_by(verifier)
    return Checkpoint.parse(parsed.text), parsed


def cosigned_message(text: str, timestamp: int) -> bytes:
    return f"cosignature/v1\ntime {timestamp}\n{text}".encode()


def cosign(text: str, signer: Signer, timestamp: int) -> Signature:
    """A witness's cosignature (tlog-cosignature, Ed25519) of a checkpoint's text."""
    if signer.kind != COSIGNATURE_V1:
        raise NoteError("a cosignature is made with a key of type 0x04")
    stamp = timestamp.to_bytes(8, "big")
    return Signature(signer.name, signer.verifier.key_id,
                     stamp + signer.sign(cosigned_message(text, timestamp)))


def cosignature_time(text: str, signature: Signature, verifier: Verifier) -> int:
    """When `verifier`'s witness cosigned the checkpoint `text`; NoteError unless it did."""
    if (signature.name, signature.key_id) != (verifier.name, verifier.key_id) \
            or verifier.kind != COSIGNATURE_V1:
        raise NoteError(f"the cosignature is not made by the witness key {verifier.vkey}")
    if len(signature.signature) != 72:
        raise NoteError("a cosignature is an 8-byte time and a 64-byte signature")
    timestamp = int.from_bytes(signature.signature[:8], "big")
    if timestamp >= 2**63 or not verifier.verify(cosigned_message(text, timestamp),
                                                 signature.signature[8:]):
        raise NoteError(f"the cosignature of {verifier.name} does not verify for this "
                        "checkpoint")
    return timestamp
