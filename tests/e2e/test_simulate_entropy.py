"""`pontoon simulate`'s bots add their own randomness to each new pack (R1.7's December
Decision), each with its own player token, as a real process against `pontoon serve`."""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.test_serve import PONTOON, TOKEN, Server, _serve, _wait_until_healthy
from tests.e2e.test_simulate import SIMULATE_TIMEOUT, _events


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    yield from _serve(f"sqlite:///{tmp_path}/entropy.sqlite3", tmp_path, migrate=True)


@pytest.mark.slow
def test_simulated_bots_add_their_randomness_to_the_first_pack(server: Server,
                                                               tmp_path: Path) -> None:
    _wait_until_healthy(server)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PONTOON_")}
    env["PONTOON_TREASURER_TOKEN"] = TOKEN
    run = subprocess.run([str(PONTOON), "simulate", "--players", "3", "--deals", "2",
                          "--url", server.base, "--seed", "entropy"], env=env, cwd=tmp_path,
                         capture_output=True, text=True, timeout=SIMULATE_TIMEOUT, check=False)
    output = run.stdout + run.stderr
    assert run.returncode == 0, f"{output}\n{server.log_tail()}"
    found = re.search(r"table ([0-9a-f-]{36})", run.stdout)
    assert found, output

    table = server.expect(200, "GET", f"/v1/tables/{found.group(1)}")
    head = server.expect(200, "GET", "/v1/health")["position"]
    packs = server.expect(200, "GET", f"/v1/tables/{table['id']}/packs?min_position={head}")
    added = [e for e in _events(server, head) if e["type"] == "Table.ContributionAdded"]

    first = packs["items"][0]["contributions"]
    assert sorted(c["player_id"] for c in first) == sorted(table["seats"])
    assert all(re.fullmatch(r"[0-9a-f]{64}", c["value"]) for c in first)
    assert len({c["value"] for c in first}) == 3
    assert all(e["data"]["actor"] == f"player:{e['data']['fact']['player_id']}"
               for e in added) and len(added) >= 3
