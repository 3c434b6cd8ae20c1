"""Known answers for the seed's commitment, the shuffle's stream and pack, and the cut for the
bank (R1.7, R3.2), computed once without the project's code.

How they were obtained: `bash tests/unit/known_answers.sh`, which computes SHA-256 and
HMAC-SHA256 with openssl, the 64-bit numbers with bc, and writes the Fisher-Yates shuffle, the
rejection sampling and the cut again in bash from RULES.md: its output is pasted below. A
change to any of the three functions (the stream's label, the byte order of its counter, the
shuffle's direction, the pack's order, the tie-break) changes these answers, which the
function's own body cannot (a test that recomputes them with the same code would follow it).
"""

from __future__ import annotations

from itertools import islice

from domain.engine.shuffle import (
    CUT_STREAM,
    SHUFFLE_STREAM,
    commitment,
    cut_for_bank,
    shuffle_pack,
    stream,
)

# seed = SHA-256("pontoon known-answer seed 8")
SEED = "881d034dcc98943856c79929244a821de95ecd35860571837622410ac2079395"
COMMITMENT = "7183960be6482ab7139fed8aa7d3edd367cb9ed7b1f24a3ac38399efddd5c433"
SHUFFLE_NUMBERS = [18124854938593518846, 7825569234395053576, 7740453320849515834,
                   5864352654760110541, 16186810980174334554, 16424246272964712240,
                   3159147190715281691, 6640443237157969497]
# As the script prints it: the pack's cards top first, separated by spaces.
SHUFFLED_TEXT = ("7C 2C 7H 3H 9H 2D 2S AD JS KD 10C QH JD 5D 5S 7D AS JC 6S 6D 8H 2H 6C 7S 4D "
                 "8S 10D 9S 4S 5C 10H 6H 3S QD 5H AH QC QS 8C 10S 8D 3C KH AC 9C JH KS KC 4H "
                 "9D 3D 4C")
CUTTERS = ["ann", "bob", "cat", "dan", "eve", "fay", "gus", "hal"]
CUTS = [{"ann": "10D", "bob": "5S", "cat": "9S", "dan": "9D", "eve": "3C", "fay": "10C",
         "gus": "6S", "hal": "5D"},
        {"ann": "QC", "fay": "2H"}]


def test_r1_7_the_commitment_is_the_known_sha256_of_the_seed() -> None:
    assert commitment(SEED) == COMMITMENT


def test_r1_7_the_shuffle_stream_gives_the_known_numbers() -> None:
    assert SHUFFLE_STREAM == b"pontoon-shuffle-v1" and CUT_STREAM == b"pontoon-cut-v1"
    assert list(islice(stream(SEED, SHUFFLE_STREAM), 8)) == SHUFFLE_NUMBERS


def test_r1_7_the_seed_shuffles_the_pack_into_the_known_order() -> None:
    assert shuffle_pack(SEED, 1) == SHUFFLED_TEXT.split(" ")


def test_r3_2_the_cut_for_the_bank_gives_the_known_cards_and_recuts_a_tie() -> None:
    """Ann and Fay tie with tens; they cut again and Ann's queen takes the bank."""
    assert cut_for_bank(SEED, CUTTERS, 1) == ("ann", CUTS)
