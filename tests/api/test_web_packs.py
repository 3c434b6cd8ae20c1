"""The players' pages for players' entropy, the audit page's way to the verifier, and the
verifier page as served, through the Flask test client on both stores (R1.7; API.md
"Players' entropy", "A verifier in the browser"; docs/decisions.md 135, 138)."""

from __future__ import annotations

import base64
import hashlib
import re
from html import unescape
from urllib.parse import unquote

from api.verify import NOBLE, NOBLE_SHA256
from tests.api.test_web_pages import Site, csrf, page, sign_in, site, visible_text

__all__ = ["site"]

VALUE = "c0ffee" + "0" * 58


def policy(response: object) -> str:
    return str(response.headers["Content-Security-Policy"])  # type: ignore[attr-defined]


def test_r1_7_a_player_adds_their_randomness_from_their_home_page(site: Site) -> None:
    """A seated player's home page lists the packs awaiting their randomness; the pack's
    page has a form whose field a script of the site's own fills from the browser (the
    only page that allows a script); the contribution is recorded as theirs and shown."""
    club = site.club
    pat = sign_in(site, club.tokens["Pat"])
    home = page(pat, "/web/")
    pack_path = f"/web/tables/{club.plain_table_id}/pack"
    assert f'href="{pack_path}"' in home and "Packs waiting for your randomness" in home

    form = pat.get(pack_path)
    html = form.get_data(as_text=True)
    assert 'src="/web/static/contribute.js"' in html and 'name="value"' in html
    assert "script-src 'self'" in policy(form)
    assert "script-src 'none'" in policy(pat.get("/web/"))
    sent = pat.post(f"/web/tables/{club.plain_table_id}/contributions",
                    data={"csrf": csrf(html), "value": VALUE})
    assert sent.status_code == 303, sent.get_data(as_text=True)
    after = page(pat, sent.headers["Location"])
    again = pat.post(f"/web/tables/{club.plain_table_id}/contributions",
                     data={"csrf": csrf(html), "value": VALUE})

    assert "Your randomness is recorded" in after and VALUE in after
    assert 'name="value"' not in after and "You have added your randomness" in after
    table = site.call("GET", f"/v1/tables/{club.plain_table_id}", None)
    assert table["pack"]["contributions"] == [{"player_id": club.players["Pat"], "value": VALUE}]
    assert pack_path not in page(pat, "/web/")
    assert again.status_code == 409 and "R1.7" in again.get_data(as_text=True)


def test_a_contribution_that_is_not_64_hex_digits_is_shown_on_its_form(site: Site) -> None:
    club = site.club
    bea = sign_in(site, club.tokens["Bea"])
    html = page(bea, f"/web/tables/{club.plain_table_id}/pack")

    refused = bea.post(f"/web/tables/{club.plain_table_id}/contributions",
                       data={"csrf": csrf(html), "value": "not hex"})

    text = refused.get_data(as_text=True)
    assert refused.status_code == 400 and "64 hex digits" in visible_text(text)
    assert 'aria-invalid="true"' in text


def test_staff_read_a_pack_but_add_nothing_and_a_player_reads_only_their_tables(
        site: Site) -> None:
    club = site.club
    treasurer = sign_in(site)
    quinn = sign_in(site, club.tokens["Quinn"])  # not seated at the side table

    shown = page(treasurer, f"/web/tables/{club.plain_table_id}/pack")
    posted = treasurer.post(f"/web/tables/{club.plain_table_id}/contributions",
                            data={"csrf": csrf(shown), "value": VALUE})

    assert 'name="value"' not in shown and "The players' randomness" in visible_text(shown)
    assert posted.status_code == 403
    assert quinn.get(f"/web/tables/{club.plain_table_id}/pack").status_code == 403
    ordered = page(treasurer, f"/web/tables/{club.table_id}/pack")
    assert "takes no contributions (R1.7)" in visible_text(ordered)


def test_a_deals_audit_page_links_to_the_verifier_with_its_hand_history(site: Site) -> None:
    """Each settled deal's audit page links to /verify/ with its history's address (in the
    fragment, which no server sees), which the player's signed-in browser fetches."""
    club = site.club
    pat = sign_in(site, club.tokens["Pat"])
    html = page(pat, f"/web/deals/{club.deals[0]}")
    found = re.search(r'href="/verify/#history=([^"]+)"', html)
    assert found, "no link to the verifier"
    address = unquote(unescape(found.group(1)))

    fetched = pat.get(address, headers={"Accept": "application/json"})
    history = fetched.get_json()
    api = site.call("GET", f"/v1/deals/{club.deals[0]}/history", None)

    assert address == f"/web/deals/{club.deals[0]}/history"
    assert fetched.status_code == 200 and fetched.mimetype == "application/json"
    assert history == api and history["format"] == "pontoon-hand-history-v1"
    assert history["pack"]["algorithm"] == "ordered"  # the given pack: no seed to reveal
    assert "Check this deal yourself" in visible_text(html)


def test_the_verifier_page_is_whole_and_allows_only_its_own_inline_scripts(site: Site
                                                                            ) -> None:
    """API.md: one static page; saved to disk it works offline, so every script is inline
    (the vendored noble-ed25519 exactly as published, by its pinned hash) and nothing is
    loaded from anywhere; the policy allows those scripts by hash and a fetch of the
    history the user asks for."""
    answer = site.browser().get("/verify/")
    html = answer.get_data(as_text=True)
    scripts = re.findall(r'<script type="module">(.*?)</script>', html, re.S)
    allowed = policy(answer)

    assert answer.status_code == 200 and answer.mimetype == "text/html"
    assert not re.search(r"<script[^>]*\bsrc=|<link\b|<img\b|@import|url\(", html)
    assert len(scripts) == 2 and all(
        f"'sha256-{base64.b64encode(hashlib.sha256(s.encode()).digest()).decode()}'" in allowed
        for s in scripts)
    assert NOBLE.read_text() in scripts[0]
    assert hashlib.sha256(NOBLE.read_bytes()).hexdigest() == NOBLE_SHA256 and \
        NOBLE_SHA256 in html and "noble-ed25519 version 3.2.0" in html
    assert (NOBLE.parent / "LICENSE.noble-ed25519").read_text().startswith("The MIT License")
    assert "default-src 'none'" in allowed and "connect-src *" in allowed
    assert site.browser().get("/verify").headers["Location"].endswith("/verify/")
