"""Signed notes, checkpoints and cosignatures (projections/notes.py) against known answers.

Known answers:
- RFC 8032, section 7.1, tests 1 to 3 and SHA(abc): Ed25519 public keys and signatures;
- golang.org/x/mod/sumdb/note, note_test.go (github.com/golang/mod, commit 02c9913): the
  signer and verifier keys of "PeterNeumann" and "EnochRoot" and the notes they sign, the
  format c2sp.org/signed-note specifies (its example key is not published);
- c2sp.org/tlog-checkpoint's example note text.
"""

from __future__ import annotations

import base64
import hashlib

import pytest

from projections.notes import (
    COSIGNATURE_V1,
    Checkpoint,
    Note,
    NoteError,
    Signature,
    Signer,
    Verifier,
    cosign,
    cosignature_time,
    open_checkpoint,
    sign,
)

RFC8032 = [  # seed, public key, message, signature (hex)
    ("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
     "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
     "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e3970"
     "1cf9b46bd25bf5f0595bbe24655141438e7a100b"),
    ("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
     "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
     "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613"
     "d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"),
    ("c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
     "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025", "af82",
     "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760"
     "984dc6594a7c15e9716ed28dc027beceea1ec40a"),
    ("833fe62409237b9d62ec77587520911e9a759cec1d19755b7da901b96dca3d42",
     "ec172b93ad5e563bf4932c70e1245034c35467ef2efd4d64ebf819683467e2bf",
     hashlib.sha512(b"abc").hexdigest(),
     "dc2a4459e7369633a52b1bf277839a00201009a3efbf3ecb69bea2186c26b58909351fc9ac90b3ecfdfbc7c6"
     "6431e0303dca179c138ac17ad9bef1177331a704"),
]
PETER_SKEY = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz"
PETER_VKEY = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"
ENOCH_VKEY = "EnochRoot+af0cfe78+ATtqJ7zOtqQtYqOo0CpvDXNlMhV3HeJDpjrASKGLWdop"
TEXT = ("If you think cryptography is the answer to your problem,\n"
        "then you don't know what your problem is.\n")
PETER_SIG = ("— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvq"
             "fqdngotpRZb6KE6RyyBwJnAM=\n")
ENOCH_SIG = ("— EnochRoot rwz+eBzmZa0SO3NbfRGzPCpDckykFXSdeX+MNtCOXm2/5n2tiOHp+vAF1aGrQ5ovTG01oOT"
             "GwnWLox33WWd1RvMc+QQ=\n")
SOFA = "example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n"


@pytest.mark.parametrize(("seed", "public", "message", "signature"), RFC8032)
def test_ed25519_keys_and_signatures_are_rfc_8032s(seed: str, public: str, message: str,
                                                  signature: str) -> None:
    signer = Signer("rfc8032", 1, bytes.fromhex(seed))

    assert signer.verifier.public.hex() == public
    assert signer.sign(bytes.fromhex(message)).hex() == signature
    assert signer.verifier.verify(bytes.fromhex(message), bytes.fromhex(signature))
    assert not signer.verifier.verify(bytes.fromhex(message) + b"!", bytes.fromhex(signature))


def test_a_signer_key_gives_go_sumdbs_verifier_key_and_signed_note() -> None:
    signer = Signer.parse(PETER_SKEY)

    assert signer.skey == PETER_SKEY
    assert signer.verifier.vkey == PETER_VKEY
    assert str(sign(TEXT, signer)) == TEXT + "\n" + PETER_SIG


def test_a_note_verifies_by_the_key_it_names_and_ignores_the_others() -> None:
    note = Note.parse(TEXT + "\n" + PETER_SIG + ENOCH_SIG)

    assert note.text == TEXT
    assert note.verified_by(Verifier.parse(PETER_VKEY)).name == "PeterNeumann"
    assert note.verified_by(Verifier.parse(ENOCH_VKEY)).name == "EnochRoot"
    assert str(note) == TEXT + "\n" + PETER_SIG + ENOCH_SIG


def test_a_note_signed_by_another_key_is_refused() -> None:
    other = Signer.generate("PeterNeumann")
    forged = str(sign(TEXT, other))

    with pytest.raises(NoteError, match="no signature of the key PeterNeumann"):
        Note.parse(forged).verified_by(Verifier.parse(PETER_VKEY))


def test_a_note_whose_text_or_signature_was_changed_is_refused() -> None:
    changed_text = TEXT.replace("answer", "question") + "\n" + PETER_SIG
    changed_signature = TEXT + "\n" + PETER_SIG[:60] + "ABCD" + PETER_SIG[60:]

    for note in (changed_text, changed_signature):
        with pytest.raises(NoteError, match="does not verify"):
            Note.parse(note).verified_by(Verifier.parse(PETER_VKEY))


@pytest.mark.parametrize("note", [
    TEXT, TEXT + "\n", TEXT + "\n" + PETER_SIG[:-1], "\x01" + TEXT + "\n" + PETER_SIG,
    TEXT + "\n" + PETER_SIG.replace("PeterNeumann", "Peter Neumann"),
    TEXT + "\n" + PETER_SIG + "Unexpected line.\n", TEXT + "\n" + PETER_SIG * 101,
    TEXT.encode() + b"\xff\n\n" + PETER_SIG.encode()])
def test_a_malformed_note_is_refused(note: str | bytes) -> None:
    """note_test.go's malformed notes: no signatures, an unterminated line, a control
    character, a name with a space, a stray line, too many signatures, invalid UTF-8."""
    with pytest.raises(NoteError):
        Note.parse(note)


def test_every_mangling_of_a_verifier_key_is_refused() -> None:
    """note_test.go TestNewVerifier: every proper substring, and every byte changed."""
    manglings = {PETER_VKEY[i:j] for i in range(len(PETER_VKEY))
                 for j in range(i + 1, len(PETER_VKEY) + 1)} - {PETER_VKEY}
    manglings |= {PETER_VKEY[:i] + chr(ord(PETER_VKEY[i]) + 1) + PETER_VKEY[i + 1:]
                  for i in range(len(PETER_VKEY))}

    accepted = []
    for mangled in manglings:
        try:
            Verifier.parse(mangled)
        except NoteError:
            continue
        accepted.append(mangled)

    assert accepted == []


def test_a_checkpoint_note_text_is_origin_size_and_base64_root() -> None:
    checkpoint = Checkpoint.parse(SOFA)

    assert (checkpoint.origin, checkpoint.size) == ("example.com/behind-the-sofa", 20852163)
    assert checkpoint.text == SOFA
    assert checkpoint.root == base64.b64decode("CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=")


@pytest.mark.parametrize("text", [
    SOFA.replace("20852163", "020852163"), SOFA.replace("20852163", "-1"),
    SOFA.replace("20852163", "2e6"), SOFA.replace("=\n", "\n"), SOFA + "extension\n",
    "\n" + SOFA.partition("\n")[2], SOFA.rstrip("\n"),
    SOFA.replace("CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=", base64.b64encode(bytes(31))
                 .decode())])
def test_a_checkpoint_not_exactly_in_form_is_refused(text: str) -> None:
    with pytest.raises(NoteError):
        Checkpoint.parse(text)


def test_a_checkpoint_opens_only_with_the_log_key() -> None:
    log_key = Signer.generate("club.example/log")
    note = str(sign(SOFA, log_key))

    checkpoint, _ = open_checkpoint(note, log_key.verifier)

    assert checkpoint.size == 20852163
    with pytest.raises(NoteError):
        open_checkpoint(note, Signer.generate("club.example/log").verifier)


def test_a_cosignature_is_timestamped_and_verifies_for_that_checkpoint_only() -> None:
    witness = Signer.generate("witness.example/w1", COSIGNATURE_V1)
    line = cosign(SOFA, witness, 1679315147).line
    signature = Signature.parse(line)
    vkey = Verifier.parse(witness.verifier.vkey, kind=COSIGNATURE_V1)

    assert cosignature_time(SOFA, signature, vkey) == 1679315147
    assert signature.signature[:8] == (1679315147).to_bytes(8, "big")
    assert vkey.key_id == hashlib.sha256(b"witness.example/w1\n\x04" + vkey.public).digest()[:4]
    with pytest.raises(NoteError, match="does not verify"):
        cosignature_time(SOFA.replace("20852163", "20852164"), signature, vkey)
    with pytest.raises(NoteError, match="not made by the witness key"):
        cosignature_time(SOFA, signature, Verifier.parse(
            Signer.generate("witness.example/w1", COSIGNATURE_V1).verifier.vkey,
            kind=COSIGNATURE_V1))
    with pytest.raises(NoteError):  # a note key is not a cosignature key
        Verifier.parse(witness.verifier.vkey)
