"""Every CSV the service writes keeps a spreadsheet formula as text (API.md Additions,
"Service under hostile clients"): a cell whose first character after any leading white
space is =, +, -, @, a tab or a carriage return, or a full-width form of them, is written
behind an apostrophe. The API's downloads and the pages' downloads, on both stores; the
shell's exports are in tests/integration/test_cli_texts.py."""

from __future__ import annotations

import csv
import io

import pytest
from flask.testing import FlaskClient

from projections.spreadsheet import cell
from tests.api.helpers import (  # noqa: F401
    KITTY_EMPTIED_TOP,
    Club,
    Game,
    send_sign_in,
    shared_client,
)
from tests.conftest import TREASURER_TOKEN

# What slipped through before: a leading space, and full-width signs.
NAMES = (" =1+1", "\uff1dSUM(A1:A9)", "\u3000@cmd", "\u2003-2", " \uff0b3")
TABLE = " +Friday"


def dangerous(text: str) -> bool:
    """A cell a spreadsheet could run, as written (numbers are numbers)."""
    try:
        int(text)
        return False
    except ValueError:
        return cell(text) != text


@pytest.fixture
def club(shared_client: FlaskClient) -> Club:  # noqa: F811
    return Club(shared_client)


def formula_game(club: Club) -> Game:
    """Three players named as formulas at a table named as one; a kitty put up, one deal."""
    banker, pat, quinn = (club.player(name) for name in NAMES[:3])
    table = club.table([banker, pat, quinn], rules={"shoot": True}, top=KITTY_EMPTIED_TOP,
                       name=TABLE)
    club.kitty(table["id"], 10)
    played = Game(club, banker, pat, quinn, table)
    played.start()
    played.stakes()
    played.act(pat, "shoot", amount=10)  # R9: Pat shoots the kitty and wins it
    played.act(pat, "stick")
    played.act(quinn, "stick")
    played.act(banker, "stay")
    for name in NAMES[3:]:
        club.player(name, chips=1)
    return played


def downloads(club: Club, g: Game) -> dict[str, str]:
    at = club.head()
    paths = {"balances": "/v1/balances", "statement": f"/v1/players/{g.pat.id}/statement",
             "results": f"/v1/players/{g.pat.id}/statement/by-deal",
             "kitty": f"/v1/tables/{g.table_id}/kitty-history",
             "kitty by deal": f"/v1/tables/{g.table_id}/kitty-history/by-deal",
             "period report": "/v1/reports/period"}
    found = {}
    for name, path in paths.items():
        answer = club.client.get(path, query_string={"format": "csv", "min_position": at},
                                 headers=club.treasurer)
        assert answer.status_code == 200 and answer.mimetype == "text/csv", (name, answer.data)
        found[name] = answer.get_data(as_text=True)
    return found


def page_downloads(club: Club, g: Game) -> dict[str, str]:
    browser = club.client.application.test_client()
    send_sign_in(browser, TREASURER_TOKEN)
    paths = {"balances page": "/web/balances.csv",
             "statement page": f"/web/players/{g.pat.id}/statement.csv",
             "kitty page": f"/web/tables/{g.table_id}/kitty.csv",
             "period report page": "/web/reports/period.csv"}
    found = {}
    for name, path in paths.items():
        answer = browser.get(path)
        assert answer.status_code == 200 and answer.mimetype == "text/csv", (name, answer.data)
        found[name] = answer.get_data(as_text=True)
    return found


def test_every_csv_download_keeps_formulas_behind_an_apostrophe(club: Club) -> None:
    g = formula_game(club)

    written = {**downloads(club, g), **page_downloads(club, g)}

    for name, text in written.items():
        cells = [c for row in csv.reader(io.StringIO(text)) for c in row]
        assert [c for c in cells if dangerous(c)] == [], name
    everything = "".join(written.values())
    for formula in (*NAMES, TABLE):
        assert f"'{formula}" in everything, formula
    balances = written["balances"]
    assert all(f"'{formula}" in balances for formula in NAMES)


@pytest.mark.parametrize("text", [" =1+1", "  @SUM", "\u3000-1", "\uff1d1", "\uff0b1",
                                  "\uff0d1", "\uff20x", "\t1", "\r1", " \t=1", "\u00a0+1"])
def test_a_formula_after_white_space_or_in_full_width_is_escaped(text: str) -> None:
    assert cell(text) == "'" + text


@pytest.mark.parametrize("text", ["Bea", "x=1", "1 - 2", "Ana-Maria", "", "\u00e9=1"])
def test_plain_text_is_written_as_it_is(text: str) -> None:
    assert cell(text) == text
    assert cell(-5) == -5 and cell(None) == ""
