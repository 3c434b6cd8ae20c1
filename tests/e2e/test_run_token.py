"""`make run` (`pontoon serve --migrate --print-treasurer-token`, without
PONTOON_TREASURER_TOKEN) started twice: both starts print the same local treasurer token,
kept in var/treasurer-token, and it works; it is not a new permanent token each time."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from tests.e2e.test_serve import PONTOON, Server, _stop, _wait_until_healthy, free_port


def start_like_make_run(tmp_path: Path, run: int) -> tuple[str, int]:
    """One start of the service; the token it printed and its answer to GET /v1/tokens."""
    port, log = free_port(), tmp_path / f"run{run}.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PONTOON_")}
    env["PONTOON_DATABASE_URL"] = f"sqlite:///{tmp_path}/var/pontoon.sqlite3"
    env["COLUMNS"] = "200"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [str(PONTOON), "serve", "--migrate", "--print-treasurer-token", "--port", str(port),
             "--workers", "1", "--threads", "1"], env=env, stdout=out,
            stderr=subprocess.STDOUT, cwd=tmp_path, start_new_session=True)
    server = Server(f"http://127.0.0.1:{port}", process, log)
    try:
        _wait_until_healthy(server, auth={})  # its token is printed once it is up
        found = re.search(r"treasurer token \(local use, .*\): (pt_\S+)", log.read_text())
        assert found, server.log_tail()
        token = found.group(1)
        answer = server.call("GET", "/v1/tokens", headers={"Authorization": f"Bearer {token}"})
        return token, answer.status
    finally:
        assert _stop(process) == 0, server.log_tail()


def test_make_run_reuses_its_local_treasurer_token(tmp_path: Path) -> None:
    first, first_status = start_like_make_run(tmp_path, 1)
    second, second_status = start_like_make_run(tmp_path, 2)

    kept = tmp_path / "var" / "treasurer-token"
    assert first == second and kept.read_text().strip() == first
    assert first_status == second_status == 200
    assert oct(kept.stat().st_mode & 0o777) == "0o600"
    assert "new, kept in" in (tmp_path / "run1.log").read_text()
    assert "new, kept in" not in (tmp_path / "run2.log").read_text()
