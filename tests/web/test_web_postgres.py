"""PostgreSQL storage: the same schema, moves and restart on a throw-away local cluster (skipped without one)."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from webhelpers import create_game, free_port

from pigdice.web.app import create_app
from pigdice.web.config import Settings
from pigdice.web.store import SCHEMA_VERSION, Store

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]


def _pg_bin() -> Path | None:
    for folder in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True):
        if (folder / "initdb").exists() and (folder / "pg_ctl").exists():
            return folder
    found = shutil.which("initdb")
    return Path(found).parent if found and shutil.which("pg_ctl") else None


@pytest.fixture(scope="module")
def postgres_url() -> Iterator[str]:
    """Start a temporary PostgreSQL cluster on 127.0.0.1 (as the postgres user when run as root)."""
    pytest.importorskip("psycopg", reason="psycopg is not installed (pip install pigdice[postgres])")
    bin_dir = _pg_bin()
    if bin_dir is None:
        pytest.skip("PostgreSQL server binaries (initdb, pg_ctl) are not installed")
    as_user: list[str] = []
    if os.geteuid() == 0:
        if shutil.which("runuser") is None:
            pytest.skip("running as root without runuser: cannot start PostgreSQL")
        as_user = ["runuser", "-u", "postgres", "--"]
    folder = Path(tempfile.mkdtemp(prefix="pigdice-pg-"))
    data = folder / "data"
    if as_user:
        shutil.chown(folder, "postgres")
    port = free_port()
    try:
        subprocess.run(
            [*as_user, str(bin_dir / "initdb"), "-D", str(data), "-U", "pigdice", "--auth=trust"],
            check=True,
            capture_output=True,
            timeout=60,
        )
        subprocess.run(
            [
                *as_user,
                str(bin_dir / "pg_ctl"),
                "-D",
                str(data),
                "-l",
                str(folder / "log"),
                "-w",
                "-o",
                f"-p {port} -k {folder} -c listen_addresses=127.0.0.1",
                "start",
            ],
            check=True,
            capture_output=True,
            timeout=60,
        )
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as exc:
        shutil.rmtree(folder, ignore_errors=True)
        pytest.skip(f"could not start a PostgreSQL cluster: {exc}")
    try:
        yield f"postgresql+psycopg://pigdice@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(
            [*as_user, str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
            capture_output=True,
            timeout=60,
        )
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.slow  # starts a PostgreSQL server: 7 s warm
def test_postgres_schema_and_a_restarted_game(postgres_url: str) -> None:
    store = Store(postgres_url)
    assert store.migrate() == SCHEMA_VERSION
    assert store.safe_url().startswith("postgresql+psycopg://")
    settings = Settings(database_url=postgres_url, robot_delay=0.0)
    with TestClient(create_app(settings)) as client:
        data = create_game(client, players=["you", "hold:20"], goal=40)
        code, token = data["code"], data["tokens"]["0"]
        state = data["state"]
        for _ in range(6):
            reply = client.post(
                f"/api/games/{code}/actions",
                json={"seat": 0, "token": token, "action": "roll", "expected_step": state["step"]},
            )
            state = client.get(f"/api/games/{code}").json()["state"]
            assert reply.status_code == 200, reply.text
            if state["finished"]:
                break
            deadline = time.time() + 10
            while state["current"] != 0 and not state["finished"]:
                assert time.time() < deadline
                state = client.get(f"/api/games/{code}").json()["state"]
            if state["finished"]:  # the robot won on its turn: no more rolls to make
                break
        before = client.get(f"/api/games/{code}").json()
    with TestClient(create_app(settings)) as client:
        assert client.get(f"/api/games/{code}").json() == before
    record = Store(postgres_url).load_game(code)
    assert record is not None and len(record.moves) == before["state"]["step"]
