"""Published known answers for the tests' reference checker (tests/api/history_reference.py),
which the service's hand histories and the verifier page are held to: if it agrees with
these, a disagreement elsewhere is the service's or the page's.

Sources: RFC 8032 section 7.1 (Ed25519 tests 1 to 3); transparency-dev/merkle
(testonly/constants.go roots, proof/verify_test.go inclusion proofs) for RFC 6962; and
golang.org/x/mod/sumdb/note (note_test.go), the reference implementation of C2SP signed
notes. The same vectors are checked in the page's JavaScript by
tests/e2e/test_browser_verifier.py."""

from __future__ import annotations

import base64

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from tests.api import history_reference as ref
from tests.api.proof_vectors import (
    ENOCH,
    ENOCH_SIG,
    INCLUSION,
    NOTE_TEXT,
    PETER,
    PETER_SIG,
    RFC_8032,
    TREE_LEAVES,
    TREE_ROOTS,
)

SECRETS = ["9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
           "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
           "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7"]


@pytest.mark.parametrize(("secret", "vector"), list(zip(SECRETS, RFC_8032, strict=True)))
def test_ed25519_signs_and_verifies_rfc_8032s_vectors(secret: str,
                                                      vector: tuple[str, str, str]) -> None:
    public, message, signature = vector
    key = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(secret))
    verifier = Ed25519PublicKey.from_public_bytes(bytes.fromhex(public))

    assert key.public_key().public_bytes_raw().hex() == public
    assert key.sign(bytes.fromhex(message)).hex() == signature
    verifier.verify(bytes.fromhex(signature), bytes.fromhex(message))
    with pytest.raises(InvalidSignature):
        verifier.verify(bytes.fromhex(signature), bytes.fromhex(message) + b"!")


def test_the_rfc_6962_tree_gives_transparency_devs_roots_and_inclusion_proofs() -> None:
    leaves = [ref.leaf_hash(bytes.fromhex(data)) for data in TREE_LEAVES]

    roots = [ref.root(leaves[:size]).hex() for size in range(1, 9)]

    assert roots == TREE_ROOTS
    for index, size, path in INCLUSION:
        proof = [bytes.fromhex(h) for h in path]
        assert [h.hex() for h in ref.inclusion_path(leaves[:size], index)] == path
        assert ref.root_from_inclusion(index, size, leaves[index], proof) == \
            bytes.fromhex(TREE_ROOTS[size - 1])
        bent = [bytes([proof[0][0] ^ 8]) + proof[0][1:], *proof[1:]]
        assert ref.root_from_inclusion(index, size, leaves[index], bent) != \
            bytes.fromhex(TREE_ROOTS[size - 1])


def test_the_go_reference_signed_notes_verify_and_a_wrong_key_does_not() -> None:
    both = NOTE_TEXT + "\n" + PETER_SIG + ENOCH_SIG

    assert ref.note_verifies(both, PETER) and ref.note_verifies(both, ENOCH)
    assert not ref.note_verifies(NOTE_TEXT + "\n" + PETER_SIG, ENOCH)
    assert not ref.note_verifies(NOTE_TEXT.upper() + "\n" + PETER_SIG, PETER)
    assert not ref.note_verifies(both, PETER.replace("c74f20a3", "c74f20a4"))


def test_a_note_the_reference_signs_reads_as_the_go_reference_writes_it() -> None:
    """note_test.go's signer key (`PRIVATE+KEY+<name>+<key id>+base64(0x01 ‖ seed)`): Ed25519
    is deterministic, so signing the note's text again gives the published note exactly."""
    skey = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz"
    raw = base64.b64decode(skey.split("+", 4)[4])
    key = Ed25519PrivateKey.from_private_bytes(raw[1:])

    assert raw[0] == 1 and ref.vkey_of("PeterNeumann", key) == PETER
    assert ref.signed_note(NOTE_TEXT, "PeterNeumann", key) == NOTE_TEXT + "\n" + PETER_SIG
