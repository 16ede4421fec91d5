"""``pigdice serve`` as a stranger meets it (issue 32): bounded request heads, no proxy header believed by
default, and a server killed with ``kill -9`` leaves no process behind (its solve worker and resource tracker
die with it). These drive a real server process.
"""

from __future__ import annotations

import os
import signal
import socket
import time
from pathlib import Path

import httpx
import pytest
from webhelpers import free_port, start_server, wait_until

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def descendants(pid: int) -> set[int]:
    """Return the processes whose ancestry leads to ``pid`` (read from /proc)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        parents[int(entry.name)] = int(fields[1])
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        children = {child for child, parent in parents.items() if parent in frontier and child not in found}
        found |= children
        frontier = children
    return found


def alive(pid: int) -> bool:
    """Return True if ``pid`` runs (a zombie does not count)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs Linux's /proc")
def test_kill_9_of_the_server_leaves_no_process_behind(tmp_path: Path) -> None:
    port = free_port()
    server = start_server(tmp_path / "games.sqlite3", port, 0.0)  # its solve worker starts with it
    try:
        workers = wait_until(lambda: descendants(server.pid), "the solve worker to start", timeout=60)
        os.kill(server.pid, signal.SIGKILL)  # the server alone, as the kernel's OOM killer would
        server.wait(10)
        wait_until(lambda: not any(alive(pid) for pid in workers), "the server's children to die", timeout=20)
    finally:
        for pid in descendants(server.pid) if server.poll() is None else ():
            os.kill(pid, signal.SIGKILL)
        if server.poll() is None:
            server.kill()


@pytest.fixture(scope="module")
def limited(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """A server with a small room allowance per address and a 1-second limit on a request's head."""
    port = free_port()
    db = tmp_path_factory.mktemp("serve") / "games.sqlite3"
    server = start_server(db, port, 0.0, rooms_per_client="2", header_seconds="1", warm_solver="false")
    try:
        yield port
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(20)


def test_a_huge_header_is_refused(limited: int) -> None:
    with httpx.Client(timeout=10) as http:
        reply = http.get(f"http://127.0.0.1:{limited}/healthz", headers={"X-Big": "x" * (1024 * 1024)})
        assert reply.status_code == 431
        assert http.get(f"http://127.0.0.1:{limited}/healthz").status_code == 200


def test_a_slow_header_is_cut_off(limited: int) -> None:
    with socket.create_connection(("127.0.0.1", limited), timeout=10) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        started = time.monotonic()
        answer = b""
        try:
            while chunk := sock.recv(4096):  # a byte now and then would keep it open for ever without the limit
                answer += chunk
        except TimeoutError:
            pytest.fail("the server kept a connection whose headers never finished")
        assert time.monotonic() - started < 5
        assert answer.startswith(b"HTTP/1.1 408")


def test_forwarded_for_from_loopback_does_not_reset_the_room_limit(limited: int) -> None:
    base = f"http://127.0.0.1:{limited}"
    body = {"variant": "pig", "goal": 20, "players": ["you", "friend"]}
    with httpx.Client(timeout=20) as http:
        for _ in range(2):
            assert http.post(f"{base}/api/games", json=body).status_code == 201
        for forwarded in ("203.0.113.7", "198.51.100.1, 203.0.113.9"):
            reply = http.post(f"{base}/api/games", json=body, headers={"X-Forwarded-For": forwarded})
            assert reply.status_code == 429, reply.text
            assert reply.json()["error"]["code"] == "too_many_rooms"
