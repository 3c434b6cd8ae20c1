"""The hand-history verifier (/verify/) in Chromium (API.md "A verifier in the browser";
docs/decisions.md 138), against `pontoon serve` on SQLite with a shuffled table whose first
pack two players added to and whose seed a pontoon revealed.

- Known answers, computed by the page's own JavaScript: RFC 8032 section 7.1's Ed25519
  tests 1 to 3 (by WebCrypto and by the vendored noble-ed25519 alike); the RFC 6962 tree of
  transparency-dev/merkle (testonly/constants.go roots, proof/verify_test.go inclusion
  proofs); the signed notes of golang.org/x/mod/sumdb/note (note_test.go: PeterNeumann and
  EnochRoot), the reference C2SP signed-note implementation.
- A player's walk: the audit page's link, the history fetched with their sign-in, checked.
- A history signed and proved by the tests' reference (tests/api/history_reference.py, as
  the service will once the signed Merkle log is merged) passes every check, in the page as
  served and saved to disk (no request at all); each forged one fails the check it forges.
"""

from __future__ import annotations

import json
import re
import sqlite3
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

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
from tests.e2e.test_browser import TOKEN, WIDE, Service, browser, service, sync_api

__all__ = ["browser", "service", "sync_api"]

KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
ORIGIN = "pontoon.example/log"


@dataclass
class Dealt:
    player_token: str
    deal_id: str  # a deal of the revealed first pack
    signed: dict[str, Any]  # its history with a checkpoint and proofs by the reference


def _call(service: Service, method: str, path: str, body: Any = None,
          token: str = TOKEN) -> Any:
    return service.call(method, path, body, {"Authorization": f"Bearer {token}"})


def _play(service: Service, table_id: str, tokens: dict[str, str]) -> str:
    """A deal to its end: stakes of 1, stick when allowed, else twist; the banker stays."""
    deal = _call(service, "POST", f"/v1/tables/{table_id}/deals", {})
    for _ in range(100):
        if deal["phase"] in ("settled", "void"):
            return str(deal["id"])
        turn = deal["turn"]
        token = tokens[turn["player_id"]]
        base = {"player_id": turn["player_id"], "hand": turn["hand"]}
        legal = {i["action"] for i in _call(service, "GET", f"/v1/deals/{deal['id']}/"
                                            "legal-actions", None, token)["items"]}
        action = next(a for a in ("stake", "stay", "stick", "twist") if a in legal)
        body = {**base, "action": action, **({"amount": 1} if action == "stake" else {})}
        deal = _call(service, "POST", f"/v1/deals/{deal['id']}/actions", body, token)
    raise AssertionError(f"deal {deal['id']} did not end")


@pytest.fixture(scope="module")
def dealt(service: Service) -> Dealt:
    """Four players at a shuffled table; two add to the first pack; deals until a pontoon
    reveals its seed (R1.4, R1.7)."""
    tokens, ids = {}, []
    for number in range(4):
        created = _call(service, "POST", "/v1/players", {"name": f"Verifier {number}"})
        _call(service, "POST", f"/v1/players/{created['id']}/buy-ins", {"amount": 500})
        tokens[created["id"]] = created["token"]
        ids.append(created["id"])
    table = _call(service, "POST", "/v1/tables", {"name": "Checked table", "seats": ids,
                                                  "banker": ids[0]})
    for player, value in ((ids[3], "0f" * 32), (ids[1], "a1" * 32)):
        _call(service, "POST", f"/v1/tables/{table['id']}/contributions",
              {"player_id": player, "value": value}, tokens[player])
    first = None
    for _ in range(80):
        deal_id = _play(service, table["id"], tokens)
        first = first or deal_id
        if _call(service, "GET", f"/v1/tables/{table['id']}")["pack"]["revealed"]:
            break
    else:
        raise AssertionError("no pontoon in 80 deals")
    assert first is not None
    head = _call(service, "GET", "/v1/health")["position"]  # the reveal, read
    history = _call(service, "GET", f"/v1/deals/{first}/history?min_position={head}")
    return Dealt(tokens[ids[1]], first, ref.with_proofs(history, _log(service),
                                                        origin=ORIGIN, name=ORIGIN, key=KEY))


def _log(service: Service) -> list[tuple[int, bytes]]:
    """Every event's position and hash, read from the service's store file."""
    path = service.log.parent / "x.sqlite3"
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        return [(int(p), bytes(h)) for p, h in conn.execute(
            "SELECT notification_id, event_hash FROM event_hashes ORDER BY notification_id")]


@pytest.fixture(scope="module")
def verifier(browser: Any, service: Service) -> Iterator[Any]:
    """The page as served, every request it makes noted."""
    context = browser.new_context(viewport=WIDE, base_url=service.base)
    page = context.new_page()
    page.requests, page.errors = [], []
    page.on("request", lambda r: page.requests.append(r.url))
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.goto("/verify/")
    page.wait_for_selector("body[data-ready=true]")
    yield page
    context.close()


def checks(page: Any, history: dict[str, Any], vkey: str) -> dict[str, str]:
    """Paste the history and the key, press the button: each check's shown status."""
    page.fill("#history", json.dumps(history))
    page.fill("#vkey", vkey)
    page.get_by_role("button", name="Check the deal").click()
    page.wait_for_function("document.getElementById('verdict').textContent !== 'Checking…'")
    items = page.locator("#results li")
    return {items.nth(i).get_attribute("data-check"): items.nth(i).get_attribute("class")
            for i in range(items.count())}


def test_the_pages_ed25519_verifies_rfc_8032s_vectors_by_webcrypto_and_by_noble(
        verifier: Any) -> None:
    found = verifier.evaluate("""async (vectors) => {
        const V = PontoonVerify, out = [];
        for (const [key, message, sig] of vectors) {
          for (const engine of ["webcrypto", "noble"]) {
            const args = [V.fromHex(key), V.fromHex(message), V.fromHex(sig)];
            const bad = V.fromHex(sig); bad[0] ^= 1;
            out.push([engine, await V.ed25519Verify(...args, engine),
                      await V.ed25519Verify(args[0], args[1], bad, engine)]);
          }
        }
        return out;
    }""", RFC_8032)

    assert found == [[engine, True, False] for _ in RFC_8032 for engine in ("webcrypto", "noble")]


def test_the_pages_rfc_6962_hashing_gives_transparency_devs_roots_and_proofs(
        verifier: Any) -> None:
    found = verifier.evaluate("""async ([leaves, roots, proofs]) => {
        const V = PontoonVerify, out = [];
        for (const [index, size, path] of proofs) {
          const leaf = await V.leafHash(V.fromHex(leaves[index]));
          const root = await V.rootFromInclusion(index, size, leaf, path.map(V.fromHex));
          const bent = path.map(V.fromHex); bent[0][0] ^= 8;
          const wrong = await V.rootFromInclusion(index, size, leaf, bent);
          const moved = await V.rootFromInclusion(index + 1, size, leaf, path.map(V.fromHex));
          out.push([V.hex(root) === roots[size - 1], V.hex(wrong) === roots[size - 1],
                    moved !== null && V.hex(moved) === roots[size - 1]]);
        }
        const two = await V.nodeHash(await V.leafHash(V.fromHex(leaves[0])),
                                     await V.leafHash(V.fromHex(leaves[1])));
        out.push([V.hex(two) === roots[1], false, false]);
        return out;
    }""", [TREE_LEAVES, TREE_ROOTS, INCLUSION])

    assert found == [[True, False, False]] * (len(INCLUSION) + 1)


def test_the_page_verifies_the_reference_signed_notes_and_refuses_a_wrong_key(
        verifier: Any) -> None:
    found = verifier.evaluate("""async ([text, peter, enoch, peterSig, enochSig]) => {
        const V = PontoonVerify;
        const both = text + "\\n" + peterSig + enochSig;
        const ids = [V.hex((await V.parseVkey(peter)).keyId),
                     V.hex((await V.parseVkey(enoch)).keyId)];
        let bad;
        try { await V.parseVkey(peter.replace("c74f20a3", "c74f20a4")); bad = "accepted"; }
        catch (e) { bad = "refused"; }
        return [ids, (await V.verifyNote(both, peter)).ok, (await V.verifyNote(both, enoch)).ok,
                (await V.verifyNote(text + "\\n" + peterSig, enoch)).ok,
                (await V.verifyNote(text.replace("answer", "Answer") + "\\n" + peterSig, peter)).ok,
                bad];
    }""", [NOTE_TEXT, PETER, ENOCH, PETER_SIG, ENOCH_SIG])

    assert found == [["c74f20a3", "af0cfe78"], True, True, False, False, "refused"]


def test_a_player_walks_from_the_audit_page_to_the_verifier(browser: Any, service: Service,
                                                           dealt: Dealt, sync_api: Any) -> None:
    """README "Checking a deal yourself": signed in with their own token, the player opens
    the deal's audit, follows "Check this deal yourself", fetches the history with their
    sign-in and checks it: the commitment, the mixed seed, every event and every draw pass;
    without a signed checkpoint (issue 26's log) the signature and proofs are not checked."""
    context = browser.new_context(viewport=WIDE, base_url=service.base)
    page = context.new_page()
    page.goto("/web/sign-in")
    page.get_by_label("Token").fill(dealt.player_token)
    page.get_by_role("button", name="Sign in").click()
    page.goto(f"/web/deals/{dealt.deal_id}")
    page.get_by_role("link", name="Check this deal yourself").click()
    page.wait_for_selector("body[data-ready=true]")
    assert page.input_value("#url") == f"/web/deals/{dealt.deal_id}/history"
    page.get_by_role("button", name="Fetch it").click()
    sync_api.expect(page.locator("#fetched")).to_contain_text("Fetched")
    page.get_by_role("button", name="Check the deal").click()
    sync_api.expect(page.locator("#verdict")).to_contain_text("could not be made")

    items = page.locator("#results li")
    shown = {items.nth(i).get_attribute("data-check"): items.nth(i).get_attribute("class")
             for i in range(items.count())}
    assert shown == {"signature": "skip", "events": "pass", "inclusion": "skip",
                     "commitment": "pass", "mixed seed": "pass", "draws": "pass"}
    assert "2 contribution(s) mixed" in page.locator("li[data-check='mixed seed']").inner_text()
    context.close()


def test_a_signed_history_passes_every_check_and_each_forgery_fails_its_own(
        verifier: Any, dealt: Dealt) -> None:
    vkey = ref.vkey_of(ORIGIN, KEY)
    assert ref.check(dealt.signed, vkey) == dict.fromkeys(ref.check(dealt.signed, vkey), "pass")

    honest = checks(verifier, dealt.signed, vkey)
    verdict = verifier.locator("#verdict").inner_text()
    forged = {name: checks(verifier, ref.forged(dealt.signed, name), vkey)
              for name in ref.FORGERIES}
    impostor = Ed25519PrivateKey.from_private_bytes(bytes(range(1, 33)))
    body = dealt.signed["checkpoint"].split("\n\n")[0] + "\n"
    other_key = checks(verifier, dict(dealt.signed, checkpoint=ref.signed_note(
        body, ORIGIN, impostor)), vkey)

    assert honest == dict.fromkeys(honest, "pass") and len(honest) == 6
    assert verdict == "Every check passed."
    for name, (_, fails) in ref.FORGERIES.items():
        assert forged[name][fails] == "fail", (name, forged[name])
        assert ref.check(ref.forged(dealt.signed, name), vkey)[fails] == "fail"
    assert other_key["signature"] == "fail" and other_key["inclusion"] == "skip"
    assert [url for url in verifier.requests if not url.endswith("/verify/")] == []
    assert verifier.errors == []


def test_the_page_saved_to_disk_checks_offline(browser: Any, service: Service, dealt: Dealt,
                                               tmp_path: Any) -> None:
    """Saved to disk the page is whole: it checks the signed history with no request."""
    with urllib.request.urlopen(service.base + "/verify/", timeout=10) as answer:
        saved = tmp_path / "verify.html"
        saved.write_bytes(answer.read())
    context = browser.new_context(viewport=WIDE, offline=True)
    page = context.new_page()
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(saved.as_uri())
    page.wait_for_selector("body[data-ready=true]")

    found = checks(page, dealt.signed, ref.vkey_of(ORIGIN, KEY))

    assert found == dict.fromkeys(found, "pass") and len(found) == 6
    assert requests == [saved.as_uri()]
    assert re.search(r"noble-ed25519 version 3\.2\.0", saved.read_text())
    assert dealt.signed["events"][0]["state"] is not None  # revealed: every byte given
    context.close()


def _player_page(browser: Any, service: Service, token: str, *, scripts: bool = True) -> Any:
    context = browser.new_context(viewport=WIDE, base_url=service.base,
                                  java_script_enabled=scripts)
    page = context.new_page()
    page.errors = []
    page.on("console", lambda m: page.errors.append(m.text) if m.type == "error" else None)
    page.goto("/web/sign-in")
    page.get_by_label("Token").fill(token)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(re.compile(r"/web/$"))
    return page


def test_r1_7_a_player_adds_randomness_from_the_browser_with_or_without_javascript(
        browser: Any, service: Service) -> None:
    """The pack's page fills the field with 32 bytes of the browser's own randomness
    (crypto.getRandomValues); without JavaScript the player types their own, and the page
    works the same."""
    club = service.club
    assert club is not None
    with_js = _player_page(browser, service, club.tokens["Bea"])
    with_js.get_by_role("link", name="The pack at Side table").click()
    field = with_js.get_by_label("64 hex digits")
    filled = field.input_value()
    assert re.fullmatch(r"[0-9a-f]{64}", filled) and field.get_attribute("data-filled") == \
        "browser"
    with_js.get_by_role("button", name="Add my randomness").click()
    assert "Your randomness is recorded" in with_js.locator("main").inner_text()
    assert filled in with_js.locator("#contributions").inner_text()
    assert with_js.errors == []

    without = _player_page(browser, service, club.tokens["Pat"], scripts=False)
    without.get_by_role("link", name="The pack at Side table").click()
    assert without.get_by_label("64 hex digits").input_value() == ""
    without.get_by_label("64 hex digits").fill("ab" * 32)
    without.get_by_role("button", name="Add my randomness").click()
    listed = without.locator("#contributions li").all_inner_texts()
    assert [line.split(": ")[1] for line in listed] == [filled, "ab" * 32]
    with_js.context.close()
    without.context.close()


def test_before_the_seed_is_revealed_the_page_says_the_draws_cannot_be_checked_yet(
        verifier: Any, dealt: Dealt) -> None:
    """R1.7: the seed is revealed at the pack's next shuffle; until then a history has no
    seed, and the page says the commitment, the mix and the draws are not checked yet."""
    unrevealed = dict(dealt.signed, pack=dict(dealt.signed["pack"], server_seed=None))

    found = checks(verifier, unrevealed, ref.vkey_of(ORIGIN, KEY))

    assert found == {"signature": "pass", "events": "pass", "inclusion": "pass",
                     "commitment": "skip", "mixed seed": "skip", "draws": "skip"}
    assert "until the seed is revealed" in \
        verifier.locator("li[data-check='draws']").inner_text()
    assert "could not be made" in verifier.locator("#verdict").inner_text()
