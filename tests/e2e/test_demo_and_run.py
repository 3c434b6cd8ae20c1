"""What `make run` and `make demo` say and how they stop: the service's first lines name the
API docs and the pages on lines of their own, `GET /` leads to the pages, and a Ctrl-C that
ends the demo is a clean stop (exit 0, so make reports no error)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.e2e.test_serve import _serve, _wait_until_healthy, free_port

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def test_serve_names_the_docs_and_the_pages_on_lines_of_their_own(tmp_path: Path) -> None:
    for server in _serve(f"sqlite:///{tmp_path}/x.sqlite3", tmp_path, migrate=True):
        _wait_until_healthy(server)
        root = server.call("GET", "/v1/health")

        log = server.log.read_text()
        assert root.status == 200
        assert f"API docs: {server.base}/docs\n" in log
        assert f"treasurer's pages: {server.base}/web/" in log


def test_the_root_address_leads_to_the_pages(client) -> None:  # type: ignore[no-untyped-def]
    answer = client.get("/")

    assert answer.status_code == 302 and answer.headers["Location"].endswith("/web/")


@pytest.mark.slow
def test_ctrl_c_ends_the_demo_cleanly(tmp_path: Path) -> None:
    if shutil.which("setsid") is None:
        pytest.skip("the demo script runs the service in a session of its own (setsid)")
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "demo.sh", tmp_path / "scripts" / "demo.sh")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PONTOON_")}
    env.update(BIN=str(BIN), PONTOON_PORT=str(free_port()), DEMO_PLAYERS="2", DEMO_DEALS="2")
    # A terminal's shell starts the demo with Ctrl-C at its default; a test runner started
    # in the background without job control (`make test &`) passes SIGINT on ignored, and a
    # shell cannot trap a signal ignored when it started.
    demo = subprocess.Popen(["bash", str(tmp_path / "scripts" / "demo.sh")], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    lines = []
    try:
        assert demo.stdout is not None
        deadline = time.monotonic() + 120
        for line in demo.stdout:
            lines.append(line)
            if "Ctrl-C stops the service" in line or time.monotonic() > deadline:
                break
        os.killpg(demo.pid, signal.SIGINT)  # what a terminal's Ctrl-C sends

        rest, _ = demo.communicate(timeout=60)
    finally:
        if demo.poll() is None:
            os.killpg(demo.pid, signal.SIGKILL)

    output = "".join(lines) + rest
    assert demo.returncode == 0, output
    assert "service stopped" in output
