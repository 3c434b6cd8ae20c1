"""What a script reads from `pontoon` (real subprocesses, on both stores): `--format json`
on verify, projections status, tokens list, checkpoint and report; standard output holding
only the answer when piped (no progress bar's frames); a table never cut to the width of a
terminal that is not there."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from application import Ledger
from config import Settings
from tests.integration.projection_session import PONTOON, play_session, pontoon, pontoon_env


def test_each_json_form_is_one_document_a_script_can_read(
        store_settings: Settings, ledger: Ledger, tmp_path: Path) -> None:
    play_session(ledger)
    made = ledger.create_token("operator", label="door").result
    sealed = ledger.recorder.checkpoint()

    answers = {name: pontoon(store_settings, *args, "--format", "json", cwd=tmp_path)
               for name, args in {"checkpoint": ["checkpoint"], "verify": ["verify"],
                                  "status": ["projections", "status"],
                                  "tokens": ["tokens", "list"], "report": ["report"]}.items()}

    for name, answer in answers.items():
        assert answer.returncode == 0, f"{name}: {answer.stderr}"
    read = {name: json.loads(answer.stdout) for name, answer in answers.items()}
    assert read["checkpoint"] == {"position": sealed.position, "hash": sealed.hash}
    verified = read["verify"]
    assert verified["ok"] is True and verified["failures"] == []
    assert verified["deals"] > 0 and verified["events"] >= sealed.position
    assert verified["checkpoint"]["position"] >= sealed.position
    models = read["status"]["read_models"]
    assert "balances" in models and set(models["balances"]) == {"position", "lag"}
    [door] = [t for t in read["tokens"]["items"] if t["label"] == "door"]
    assert door == {"id": made["id"], "role": "operator", "label": "door", "player_id": None,
                    "created_at": door["created_at"], "expires_at": None, "revoked": False}
    assert read["report"]["checks"]["balanced"] is True and read["report"]["items"]


def test_a_failed_verify_still_answers_its_json_and_exits_1(
        store_settings: Settings, ledger: Ledger, tmp_path: Path) -> None:
    """A checkpoint the log does not extend (R11.4): the failure is in the JSON."""
    play_session(ledger)
    forged = f"2 {'0' * 64}"

    checked = pontoon(store_settings, "verify", "--checkpoint", forged, "--format", "json",
                      cwd=tmp_path)

    assert checked.returncode == 1, checked.stderr
    answer = json.loads(checked.stdout)
    assert answer["ok"] is False and answer["extends"] == forged and answer["failures"]


def test_piped_output_holds_the_answer_alone_and_whole(
        store_settings: Settings, ledger: Ledger, tmp_path: Path) -> None:
    """No terminal: no progress bar anywhere, and the report's table at its full width
    however narrow COLUMNS says the terminal is."""
    play_session(ledger)
    env = {**pontoon_env(store_settings), "COLUMNS": "40"}

    verified, reported = (subprocess.run([str(PONTOON), *args], env=env, cwd=tmp_path,
                                         capture_output=True, text=True, timeout=120)
                          for args in (["verify"], ["report"]))

    assert verified.returncode == reported.returncode == 0, verified.stderr + reported.stderr
    assert verified.stdout.startswith("checked ") and verified.stderr == ""
    assert "\r" not in verified.stdout and "verify" not in verified.stdout.splitlines()[0]
    header = next(line for line in reported.stdout.splitlines() if "player" in line)
    for column in ("buy-ins", "cash-outs", "kitty put up", "kitty won", "disputes"):
        assert column in header, header
    assert "…" not in reported.stdout


def test_a_period_of_times_reversed_or_empty_is_refused_on_the_clubs_calendar(
        store_settings: Settings, ledger: Ledger, tmp_path: Path) -> None:
    """Times are placed on the club's calendar, read from the store; a period that ends
    where it starts, or before, is refused as usage (2), as the API refuses it (400)."""
    for start, end in (("2026-12-05T20:00", "2026-12-05T20:00"),
                       ("2026-12-05T21:00", "2026-12-05T20:00")):
        refused = pontoon(store_settings, "report", "--from", start, "--to", end,
                          cwd=tmp_path)

        assert refused.returncode == 2, refused.stderr
        assert len(refused.stderr.splitlines()) == 1 and "is not before --to" in refused.stderr
        assert refused.stdout == ""
