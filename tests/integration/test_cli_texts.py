"""Names a client wrote, in what the shell writes (real subprocesses, on both stores): a CSV
cell a spreadsheet would run as a formula is written as text, as the API's downloads write
it (CSV injection), and rich's markup in a name or label is printed as written, never
obeyed."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from application import Ledger
from config import Settings
from projections.spreadsheet import cell
from tests.integration.projection_session import pontoon

FORMULA = '=HYPERLINK("https://elsewhere.example/","click")'
# What slipped through before: a sign after white space, and full-width signs.
HIDDEN = (" =1+1", "\uff1d1+1", "\u3000@x", " \uff0b1")


def player(ledger: Ledger, name: str, chips: int) -> str:
    player_id = str(ledger.register_player(name).result["id"])
    ledger.buy_in(player_id, chips)
    return player_id


def cells(text: str) -> list[str]:
    return [cell for row in csv.reader(io.StringIO(text)) for cell in row]


def test_a_name_that_is_a_formula_is_exported_as_text(
        store_settings: Settings, ledger: Ledger, tmp_path: Path) -> None:
    """Every kind of export and the report, with names and a table's name a spreadsheet
    would run, the sign behind white space or in full width included."""
    banker = player(ledger, FORMULA, 15)
    ledger.cash_out(player(ledger, "-Minus", 3), 1)
    hidden = [player(ledger, name, 2) for name in HIDDEN]
    table = ledger.open_table(name=" @Friday", seats=[banker, hidden[0]], banker=banker,
                              rules={"shoot": True}).result["table_id"]
    ledger.put_up_kitty(table, banker, 10)

    exported = {kind: pontoon(store_settings, "export", "--kind", kind, cwd=tmp_path)
                for kind in ("statements", "balances", "kitty")}
    reported = pontoon(store_settings, "report", "--format", "csv", cwd=tmp_path)

    for answer in (*exported.values(), reported):
        assert answer.returncode == 0, answer.stderr
        written = cells(answer.stdout)
        assert "'" + FORMULA in written and FORMULA not in written
        assert not [c for c in written if c != cell(c) and not c.lstrip("-").isdigit()]
    for answer in (exported["statements"], exported["balances"], reported):
        written = cells(answer.stdout)
        assert "'-Minus" in written and "-Minus" not in written
        assert all("'" + name in written for name in HIDDEN), written
    assert "-1" in cells(exported["statements"].stdout)  # a number is never a formula


MARKUP = "[red]Bea[/red] [link=https://elsewhere.example/]x[/link]"


def test_markup_in_a_name_is_printed_as_written_in_the_report(
        store_settings: Settings, ledger: Ledger, tmp_path: Path) -> None:
    player(ledger, MARKUP, 5)

    reported = pontoon(store_settings, "report", cwd=tmp_path)

    assert reported.returncode == 0, reported.stderr
    assert MARKUP in reported.stdout


def test_markup_in_a_label_is_printed_as_written_in_the_token_list(
        store_settings: Settings, ledger: Ledger, tmp_path: Path) -> None:
    ledger.create_token("operator", label=MARKUP)

    listed = pontoon(store_settings, "tokens", "list", cwd=tmp_path)

    assert listed.returncode == 0, listed.stderr
    assert MARKUP in listed.stdout
