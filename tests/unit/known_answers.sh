#!/usr/bin/env bash
# The known answers of tests/unit/test_known_answers.py, computed without the project's code:
# SHA-256 and HMAC-SHA256 by openssl, big integers by bc, the Fisher-Yates shuffle and the
# cut for the bank (R1.7, R3.2) written again here from RULES.md and docs/engine.md. Run once
# (`bash tests/unit/known_answers.sh`); its output was pasted into the test.
set -euo pipefail

# The seed: SHA-256 of a text; "... seed 8" is the first of "pontoon known-answer seed N"
# whose cut for the bank among eight players has a tie, so the recut is covered too.
seed=$(printf 'pontoon known-answer seed 8' | openssl dgst -sha256 -r | cut -d' ' -f1)
echo "seed $seed"
# The commitment: SHA-256 of the seed's 32 bytes.
echo "commitment $(printf '%s' "$seed" | xxd -r -p | openssl dgst -sha256 -r | cut -d' ' -f1)"

# Block i of a stream: HMAC-SHA256(key = the seed's bytes, label || i as 8 big-endian bytes),
# read as four unsigned 64-bit big-endian numbers.
numbers=()
stream() {  # label, blocks: fills `numbers`
    numbers=()
    local label=$1 blocks=$2 i hex k
    for ((i = 0; i < blocks; i++)); do
        hex=$( { printf '%s' "$label"; printf '%016x' "$i" | xxd -r -p; } \
            | openssl dgst -sha256 -mac HMAC -macopt "hexkey:$seed" -r | cut -d' ' -f1)
        for k in 0 16 32 48; do
            numbers+=("$(echo "ibase=16; $(echo "${hex:k:16}" | tr 'a-f' 'A-F')" | bc)")
        done
    done
}

next=0
below() {  # bound: a uniform index by rejection sampling, into `index`
    local bound=$1 limit value
    limit=$(echo "2^64 - 2^64 % $bound" | bc)
    while true; do
        value=${numbers[next]}
        next=$((next + 1))
        if [[ $(echo "$value < $limit" | bc) -eq 1 ]]; then
            index=$(echo "$value % $bound" | bc)
            return
        fi
    done
}

stream pontoon-shuffle-v1 20
echo "shuffle stream ${numbers[*]:0:8}"

# A new pack: spades, hearts, diamonds, clubs; ace to king in each.
pack=()
for suit in S H D C; do
    for rank in A 2 3 4 5 6 7 8 9 10 J Q K; do pack+=("$rank$suit"); done
done
fresh=("${pack[@]}")

# Fisher-Yates from the last card down: swap card i with a uniform j in 0..i.
next=0
for ((i = 51; i > 0; i--)); do
    below $((i + 1))
    swap=${pack[i]}
    pack[i]=${pack[index]}
    pack[index]=$swap
done
echo "shuffled ${pack[*]}"

# R3.2: each player in turn takes a uniform card out of a fresh pack; the highest rank
# (aces high) banks; those tied for it cut again from a fresh pack, the stream going on.
cut_order() {
    case ${1%?} in A) echo 14 ;; J) echo 11 ;; Q) echo 12 ;; K) echo 13 ;; *) echo "${1%?}" ;; esac
}
stream pontoon-cut-v1 20
next=0
cutting=(ann bob cat dan eve fay gus hal)
while true; do
    left=("${fresh[@]}")
    best=0
    round=()
    for player in "${cutting[@]}"; do
        below ${#left[@]}
        card=${left[index]}
        left=("${left[@]:0:index}" "${left[@]:index+1}")
        round+=("$player:$card")
        order=$(cut_order "$card")
        ((order > best)) && best=$order
    done
    echo "cut round ${round[*]}"
    tied=()
    for cut in "${round[@]}"; do
        [[ $(cut_order "${cut#*:}") -eq $best ]] && tied+=("${cut%%:*}")
    done
    if ((${#tied[@]} == 1)); then
        echo "banker ${tied[0]}"
        break
    fi
    cutting=("${tied[@]}")
done
