"""Club nights from the shell, on both stores: `pontoon days`, `pontoon night DATE` (and
`--close`) and `pontoon balances --as-of`, dates meaning club days (docs/decisions.md 110)."""

from __future__ import annotations

import csv
import io
import json
from datetime import timedelta
from pathlib import Path

from config import Settings
from tests.integration.nights import local, night_on
from tests.integration.test_cli import pontoon

ZONE = "America/New_York"


def new_york_nights(settings: Settings) -> dict[str, str]:
    """Two Friday nights in New York, 19:00 to past midnight (after 05:00 UTC)."""
    night = night_on(settings, local(ZONE, 2026, 1, 16, 18), seed="cli")
    try:
        night.ledger.change_club(changed_by="treasurer:test", time_zone=ZONE)
        night.players("Ann", "Bob")
        night.at(local(ZONE, 2026, 1, 16, 19))
        table = night.table("Friday school", ["Ann", "Bob"])
        night.deals(table, 4, timedelta(hours=2))  # 19:00 to 01:00
        night.at(local(ZONE, 2026, 1, 23, 23))
        night.deals(table, 2, timedelta(hours=1))
        return night.ids
    finally:
        night.close()


def test_the_days_with_play_from_the_shell_are_club_days(store_settings: Settings,
                                                         tmp_path: Path) -> None:
    new_york_nights(store_settings)

    listed = pontoon(store_settings.database_url, "days", "--format", "json", cwd=tmp_path)
    since = pontoon(store_settings.database_url, "days", "--from", "2026-01-20",
                    "--format", "csv", cwd=tmp_path)
    shown = pontoon(store_settings.database_url, "days", cwd=tmp_path)

    assert listed.returncode == 0, listed.stderr
    assert [(d["date"], d["deals"]) for d in json.loads(listed.stdout)] == [
        ("2026-01-23", 2), ("2026-01-16", 4)]
    assert [row["date"] for row in csv.DictReader(io.StringIO(since.stdout))] == [
        "2026-01-23"]
    assert "2026-01-16" in shown.stdout and "America/New_York" in shown.stdout


def test_a_night_is_shown_and_closed_from_the_shell_with_a_count(store_settings: Settings,
                                                                  tmp_path: Path) -> None:
    new_york_nights(store_settings)
    url = store_settings.database_url

    sheet = json.loads(pontoon(url, "night", "2026-01-16", "--format", "json",
                               cwd=tmp_path).stdout)
    ann = next(p for p in sheet["players"] if p["name"] == "Ann")
    closed = pontoon(url, "night", "2026-01-16", "--close", "--count",
                     f"Ann={ann['to_cash_out'] + 1}", cwd=tmp_path)
    again = pontoon(url, "night", "2026-01-16", "--close", cwd=tmp_path)
    nobody = pontoon(url, "night", "2026-01-23", "--close", "--count", "Zed=1", cwd=tmp_path)
    after = json.loads(pontoon(url, "night", "2026-01-16", "--format", "json",
                               cwd=tmp_path).stdout)

    assert sheet["deals"] == 4 and sheet["checks"]["balanced"] is True
    assert sheet["from"].startswith("2026-01-16T11:00")  # 06:00 in New York
    assert closed.returncode == 0, closed.stderr
    assert "closed" in closed.stdout and "checkpoint" in closed.stdout
    assert again.returncode != 0 and "already closed" in again.stderr
    assert nobody.returncode != 0 and "Zed" in nobody.stderr
    assert after["closed"]["differences"] == {f"player:{ann['player_id']}": 1}


def test_balances_from_the_shell_as_of_a_club_day_and_a_time(store_settings: Settings,
                                                             tmp_path: Path) -> None:
    ids = new_york_nights(store_settings)
    url = store_settings.database_url

    friday = json.loads(pontoon(url, "balances", "--as-of", "2026-01-16", "--format", "json",
                                cwd=tmp_path).stdout)
    before = json.loads(pontoon(url, "balances", "--as-of", "2026-01-16T18:30",
                                "--kind", "player", "--format", "json", cwd=tmp_path).stdout)
    bad = pontoon(url, "balances", "--as-of", "2026-02-30", cwd=tmp_path)

    assert friday["total"] == 0
    assert friday["as_of"] == "2026-01-17T11:00:00.000000+00:00"
    assert {row["name"]: row["balance"] for row in before["items"]} == {"Ann": 100, "Bob": 100}
    assert {row["account"] for row in before["items"]} == {f"player:{i}" for i in ids.values()}
    assert bad.returncode == 2 and "--as-of" in bad.stderr
