"""The pages of issue 25, on both stores: the treasurer issues a player a new sign-in token
on the player's page (shown once), and a player's home page lists their tokens by label
and the disputes about the deals they played in (decisions 141, 142)."""

from __future__ import annotations

import re

from tests.api.helpers import send_sign_in
from tests.api.test_web_pages import Site, csrf, page, rows_of, sign_in, site, visible_text

__all__ = ["site"]


def issue(site: Site, player_id: str, **form: str) -> tuple[int, str]:
    browser = sign_in(site)
    html = page(browser, f"/web/players/{player_id}")
    response = browser.post(f"/web/players/{player_id}/tokens",
                            data={"csrf": csrf(html), "label": "", "expires": "", **form})
    return response.status_code, response.get_data(as_text=True)


def shown_token(html: str) -> str:
    found = re.search(r'<code class="hash" id="new-token">(pt_[A-Za-z0-9_-]+)</code>', html)
    assert found, html[:2000]
    return found.group(1)


def test_the_treasurer_issues_a_sign_in_token_on_a_players_page_shown_once(
        site: Site) -> None:
    made = site.call("POST", "/v1/players", {"name": "Tess"})

    status, html = issue(site, made["id"], label="tablet", expires="2099-12-31")

    assert status == 201
    token = shown_token(html)
    assert "tablet" in visible_text(html) and "2100-01-01" in html  # to the end of that day
    signed = site.browser()
    assert send_sign_in(signed, token).status_code == 303
    assert "Your balance" in page(signed, "/web/")
    statement = page(sign_in(site), f"/web/players/{made['id']}?min_position={site.head()}")
    listed = rows_of(statement, "Sign-in tokens")
    assert sorted(row[0] for row in listed) == ["no label", "tablet"], listed
    assert token not in statement and made["token"] not in statement


def test_a_token_form_that_is_wrong_is_refused_on_a_page(site: Site) -> None:
    made = site.call("POST", "/v1/players", {"name": "Wren"})

    assert issue(site, made["id"], expires="2001-01-01")[0] == 422  # an end in the past
    assert issue(site, made["id"], expires="soon")[0] == 400
    assert issue(site, made["id"], label="a\x07bell")[0] == 400
    tokens = [t for t in site.call("GET", f"/v1/tokens?limit=500&min_position={site.head()}"
                                   )["items"] if t["player_id"] == made["id"]]
    assert len(tokens) == 1  # only the registration's


def test_a_refused_token_form_comes_back_on_the_statement_as_typed(site: Site) -> None:
    """Issue 27: the statement again, the form as typed, a summary that takes the focus and
    links to the field at fault, which its own message describes; a refusal of the ledger
    (an end already past) is summarised too, naming no field."""
    made = site.call("POST", "/v1/players", {"name": "Yara"})

    status, html = issue(site, made["id"], label="tablet", expires="soon")
    past, refused = issue(site, made["id"], label="phone", expires="2001-01-01")

    assert status == 400 and "Yara's statement" in html
    assert '<a href="#token-expires">Give the last day the token works as a date' in html
    assert 'aria-invalid="true" aria-describedby="token-expires-error"' in html
    assert 'value="tablet"' in html and 'value="soon"' in html
    assert past == 422 and 'role="alert"' in refused and 'value="phone"' in refused
    assert "autofocus" in html and "autofocus" in refused


def test_only_the_treasurer_issues_a_token_on_the_pages(site: Site) -> None:
    club = site.club
    pat = site.browser()
    send_sign_in(pat, club.tokens["Pat"])
    home = page(pat, "/web/")

    refused = pat.post(f"/web/players/{club.players['Pat']}/tokens",
                       data={"csrf": csrf(home), "label": "mine"})

    assert refused.status_code == 403
    statement = page(pat, f"/web/players/{club.players['Pat']}")
    assert "Issue a new sign-in token" not in statement


def test_a_players_home_page_lists_their_tokens_and_the_disputes_about_their_deals(
        site: Site) -> None:
    club = site.club
    raised = site.call("POST", f"/v1/deals/{club.deals[2]}/disputes",
                       {"reason": "Quinn: the third deal's count"},
                       headers={"Authorization": f"Bearer {club.tokens['Quinn']}"})
    outsider = site.call("POST", "/v1/players", {"name": "Olga"})
    site.call("POST", f"/v1/players/{club.players['Pat']}/tokens", {"label": "phone"})
    head = site.head()
    pat, olga = site.browser(), site.browser()
    send_sign_in(pat, club.tokens["Pat"])
    send_sign_in(olga, outsider["token"])

    home = page(pat, f"/web/?min_position={head}")
    other = page(olga, f"/web/?min_position={head}")

    disputes = rows_of(home, "Disputes about your deals")
    [row] = [r for r in disputes if "third deal's count" in r[3]]
    assert row[0] == "Friday school, deal 3" and row[2] == "Quinn" and row[4] == "open"
    assert f'#dispute-{raised["id"]}"' in home
    assert "phone" in [r[0] for r in rows_of(home, "Sign-in tokens")]
    assert "third deal's count" not in other
    assert rows_of(other, "Disputes about your deals") == [
        ["No dispute has been raised about a deal you played in."]]
