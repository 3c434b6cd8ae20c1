"""Commands a second of this tree's service against another tree's, alternated in one run.

`benchmarks/service.py` measures the service against a minimal Flask app; this measures one
change against the code before it, when the question is "does it cost commands anything":
two `pontoon serve` (their defaults: gunicorn, 2 workers × 4 threads), one from this tree
and one from `--against` (a source tree, e.g. `git archive main | tar -x -C /tmp/main`), run
by this virtualenv's Python, each on its own database of one throwaway PostgreSQL cluster,
driven in turn by the same clients (`benchmarks/service_workloads.py`: complete Shoot
Pontoon deals, no think time), window after window, alternating which goes first, so both
share the machine's noise. Each server elects its own read-model runner, so each pays for
its own read models (and checkpoints) as in production. Reported: POSTs a second and p50/p99
per window, and the ratio of this tree's median to the other's.
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import statistics
import sys
import tempfile
import threading
from contextlib import ExitStack
from pathlib import Path

_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))

from benchmarks.service_client import Run, run_clients  # noqa: E402
from benchmarks.service_processes import Cluster, Server, free_port, postgres_bin  # noqa: E402
from benchmarks.service_workloads import PontoonTable  # noqa: E402
from benchmarks.stores import machine  # noqa: E402

ROOT = _HERE.parent
# `pontoon` from the tree in the working directory (it comes first on sys.path), whatever
# the virtualenv's editable install points at.
PONTOON = [sys.executable, "-c", "import sys; from cli.main import main; "
                                 "sys.argv[0] = 'pontoon'; main()"]


def start(name: str, tree: Path, cluster: Cluster, folder: Path, token: str,
          stack: ExitStack) -> Server:
    import subprocess

    cluster.create_database(name)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PONTOON_")}
    env.update(PONTOON_DATABASE_URL=cluster.url(name), PONTOON_TREASURER_TOKEN=token,
               PONTOON_SIGNING_KEY_FILE=str(folder / f"{name}-signing-key"))
    subprocess.run([*PONTOON, "migrate"], env=env, cwd=tree, check=True,
                   stdout=subprocess.DEVNULL)
    port = free_port()
    server = Server(name, [*PONTOON, "serve"], env={**env, "PONTOON_PORT": str(port)},
                    port=port, log=folder / f"{name}.log", cwd=tree)
    stack.callback(server.stop)
    server.wait_ready("/v1/health")
    return server


def window(server: Server, token: str, clients: int, seed: int, args: argparse.Namespace,
           stop: threading.Event) -> Run:
    return run_clients(lambda http, i: PontoonTable(http, token, i, seed + i), clients,
                       host="127.0.0.1", port=server.port, warmup=args.warmup,
                       duration=args.duration, stop=stop)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", type=Path, required=True, help="the other source tree")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=4, help="windows of each server")
    parser.add_argument("--duration", type=float, default=20.0)
    parser.add_argument("--warmup", type=float, default=3.0)
    args = parser.parse_args()
    binaries = postgres_bin()
    if binaries is None:
        raise SystemExit("no PostgreSQL binaries under /usr/lib/postgresql/*/bin")
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    print(machine())
    stop, token = threading.Event(), "pt_" + secrets.token_urlsafe(32)
    with ExitStack() as stack:
        folder = Path(tempfile.mkdtemp(prefix="pontoon-against."))
        stack.callback(shutil.rmtree, folder, ignore_errors=True)
        cluster = Cluster(binaries)
        stack.callback(cluster.stop)
        cluster.start()
        servers = {"this tree": start("ours", ROOT, cluster, folder, token, stack),
                   "the other": start("theirs", args.against.resolve(), cluster, folder,
                                      token, stack)}
        rates: dict[str, list[float]] = {name: [] for name in servers}
        for turn in range(args.rounds):
            order = list(servers) if turn % 2 == 0 else list(servers)[::-1]
            for name in order:
                run = window(servers[name], token, args.clients, 1000 * turn + 7, args, stop)
                rates[name].append(run.posts_per_second)
                print(f"round {turn + 1}, {name}: {run.posts_per_second:.1f} POST/s, p50 "
                      f"{run.percentile_ms(50):.1f} ms, p99 {run.percentile_ms(99):.1f} ms, "
                      f"{run.errors} errors, {run.refused} refused")
        ours, theirs = (statistics.median(rates[n]) for n in servers)
        print(f"median POST/s at {args.clients} clients: this tree {ours:.1f}, the other "
              f"{theirs:.1f}; ratio {ours / theirs:.3f}")
        print(f"checkpoints this tree's service signed meanwhile: {signed(servers['this tree'])}")


def signed(server: Server) -> str:
    """How many checkpoints a service lists (none before issue 26's checkpoints)."""
    import json
    import urllib.error
    import urllib.request

    count, after = 0, 0
    try:
        while True:
            with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/v1/checkpoints?"
                                        f"limit=500&after={after}", timeout=10) as answer:
                page = json.loads(answer.read())
            count += len(page["items"])
            if page["next"] is None:
                return str(count)
            after = page["next"]
    except urllib.error.HTTPError as error:
        return f"none listed ({error.code})"


if __name__ == "__main__":
    main()
