"""`pontoon simulate` as a real process against a real `pontoon serve` process.

The server runs on a temporary SQLite file and a free port (the fixture of test_serve.py
starts it, waits for it and always stops it). The bots play 15 Shoot Pontoon deals over
HTTP; the test then checks over HTTP that the table played them, that each bot acted with
its own player token, that the ledger's balances total 0 and that deals' audits replay.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_serve import PONTOON, TOKEN, Server, _serve, _wait_until_healthy

DEALS = 15
SIMULATE_TIMEOUT = 240


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    yield from _serve(f"sqlite:///{tmp_path}/simulate.sqlite3", tmp_path, migrate=True)


def _events(server: Server, head: int) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    after = 0
    while True:
        page = server.expect(200, "GET", f"/v1/events?after={after}&limit=500")
        items += page["items"]
        if page["next"] is None or not page["items"]:
            return items
        after = page["next"]
        assert after <= head


@pytest.mark.slow
def test_simulate_plays_shoot_pontoon_deals_through_the_api(server: Server,
                                                            tmp_path: Path) -> None:
    _wait_until_healthy(server)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PONTOON_")}
    env["PONTOON_TREASURER_TOKEN"] = TOKEN
    run = subprocess.run([str(PONTOON), "simulate", "--players", "4", "--deals", str(DEALS),
                          "--shoot", "--url", server.base, "--seed", "e2e"],
                         env=env, cwd=tmp_path, capture_output=True, text=True,
                         timeout=SIMULATE_TIMEOUT, check=False)
    output = run.stdout + run.stderr
    assert run.returncode == 0, f"{output}\n{server.log_tail()}"
    found = re.search(r"table ([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})",
                      run.stdout)
    assert found, output
    table_id = found.group(1)
    assert "total 0" in run.stdout, output
    assert "Traceback" not in output

    table = server.expect(200, "GET", f"/v1/tables/{table_id}")
    assert table["deals_played"] == DEALS
    assert table["deal_id"] is None
    assert table["rules"]["shoot"] is True and len(table["seats"]) == 4

    head = server.expect(200, "GET", "/v1/health")["position"]
    balances = server.expect(200, "GET", f"/v1/balances?min_position={head}"
                               "&kind=player,kitty,treasury,escrow&limit=500")
    assert balances["total"] == 0
    assert sum(a["balance"] for a in balances["accounts"]) == 0
    # Stakes sit in a deal's escrow only while it is open: every deal is over.
    assert all(a["balance"] == 0 for a in balances["accounts"] if a["kind"] == "escrow")

    events = _events(server, head)
    deal_ids = [e["data"]["fact"]["deal_id"] for e in events
                if e["type"] == "Table.DealOpened" and e["stream_id"] == table_id]
    assert len(deal_ids) == DEALS
    # Each bot acted with its own player token: stakes name the staking player as actor.
    stakes = [e["data"] for e in events if e["type"] == "Deal.StakePlaced"]
    assert len(stakes) >= DEALS
    assert all(s["actor"] == f"player:{s['fact']['player']}" for s in stakes)
    # The banker put up a kitty before the first deal (R9.1).
    assert any(e["type"] == "Table.KittyPutUp" and e["stream_id"] == table_id for e in events)

    for deal_id in deal_ids:
        assert server.expect(200, "GET", f"/v1/deals/{deal_id}")["phase"] in ("settled", "void")
    for deal_id in {deal_ids[0], deal_ids[len(deal_ids) // 2], *deal_ids[-3:]}:
        audit = server.expect(200, "GET", f"/v1/deals/{deal_id}/audit?min_position={head}")
        assert audit["verification"]["replayed"] is True, audit["verification"]
        assert audit["verification"]["chips_conserved"] is True, audit["verification"]


@pytest.mark.slow
def test_a_second_simulation_in_the_same_store_names_its_players_apart(
        server: Server, tmp_path: Path) -> None:
    """Issue 13: running simulate again must not make a second Alice and Bob."""
    _wait_until_healthy(server)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PONTOON_")}
    env["PONTOON_TREASURER_TOKEN"] = TOKEN
    for _ in range(2):
        run = subprocess.run([str(PONTOON), "simulate", "--players", "2", "--deals", "1",
                              "--url", server.base, "--seed", "twice"], env=env, cwd=tmp_path,
                             capture_output=True, text=True, timeout=SIMULATE_TIMEOUT,
                             check=False)
        assert run.returncode == 0, run.stdout + run.stderr

    head = server.expect(200, "GET", "/v1/health")["position"]
    players = server.expect(200, "GET", f"/v1/players?limit=500&min_position={head}")

    assert sorted(p["name"] for p in players["items"]) == ["Alice", "Alice 2", "Bob", "Bob 2"]


@pytest.mark.slow
def test_two_simulations_at_once_give_every_player_and_table_a_name_of_its_own(
        server: Server, tmp_path: Path) -> None:
    """Issue 25: two runs started together once made two "Alice 4"s and two tables of one
    name; now names are claimed (decision 146) and open tables' names are unique (143)."""
    _wait_until_healthy(server)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PONTOON_")}
    env["PONTOON_TREASURER_TOKEN"] = TOKEN
    runs = [subprocess.Popen([str(PONTOON), "simulate", "--players", "3", "--deals", "1",
                              "--shoot", "--url", server.base, "--seed", f"at-once-{n}"],
                             env=env, cwd=tmp_path, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True) for n in range(2)]
    for run in runs:
        output, _ = run.communicate(timeout=SIMULATE_TIMEOUT)
        assert run.returncode == 0, f"{output}\n{server.log_tail()}"
        assert "None store" not in output and "sqlite store" in output, output

    head = server.expect(200, "GET", "/v1/health")["position"]
    players = [p["name"] for p in server.expect(
        200, "GET", f"/v1/players?limit=500&min_position={head}")["items"]]
    tables = [t["name"] for t in server.expect(
        200, "GET", f"/v1/tables?limit=500&min_position={head}")["items"]]
    kitties = [k["name"] for k in server.expect(
        200, "GET", f"/v1/balances?kind=kitty&limit=500&min_position={head}")["items"]]

    assert len(players) == 6 and len(set(players)) == 6, players
    assert sorted(tables) == ["Simulated Shoot Pontoon school",
                              "Simulated Shoot Pontoon school 2"], tables
    assert sorted(kitties) == [f"kitty of {name}" for name in sorted(tables)], kitties
