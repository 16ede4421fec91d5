"""README's short tour works as written: every line runs with the installed ``pigdice`` and exits 0.

The lines are read from README.md itself (the ```bash block under "A short tour"), so the tour
cannot drift from what the program accepts. Each line runs as a test of its own (a line reading a
file an earlier line wrote runs after it, in the same test) in a fresh folder with fresh policy,
game and data folders, as on a new install (numba's compiled kernels are kept: they live with the
installed package). A game reads ``q`` and quits; ``pigdice serve`` is stopped with Ctrl-C once it
answers, and must exit 0 too.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
LINE_SECONDS = 900  # a generous bound per line: the first solve on a machine compiles the solver
SERVE_SECONDS = 120  # how long `pigdice serve` may take to answer /healthz
SOURCE_ID = re.compile(r"(?i)\bseeds? 00[0-4]|\b00[0-4]_[0-9a-f]{6}")


def tour_lines(text: str) -> list[str]:
    """Return the commands of the ```bash block under the 'A short tour' heading, comments removed."""
    section = text.split("## A short tour", 1)
    if len(section) < 2:
        raise AssertionError("README.md has no '## A short tour' section")
    found = re.search(r"```bash\n(.*?)```", section[1], re.S)
    if found is None:
        raise AssertionError("the tour has no ```bash block")
    lines = [shlex.join(shlex.split(line, comments=True)) for line in found.group(1).splitlines()]
    return [line.replace("'&&'", "&&") for line in lines if line]


def test_tour_lines_are_parsed_from_readme() -> None:
    lines = tour_lines(README.read_text(encoding="utf-8"))
    assert len(lines) >= 10 and all(line.startswith("pigdice ") for line in lines), lines
    assert not any("#" in line for line in lines)
    assert any(line.startswith("pigdice design --space ") for line in lines)
    sample = "## A short tour\n\n```bash\npigdice rules pig   # a comment\n\npigdice a 'b c' && pigdice d\n```\n"
    assert tour_lines(sample) == ["pigdice rules pig", "pigdice a 'b c' && pigdice d"]


def _bin_folder(tmp: Path) -> Path:
    """Return a folder whose ``pigdice`` is the installed script, or a stand-in running this interpreter."""
    installed = Path(sys.executable).parent / "pigdice"
    if installed.exists():
        return installed.parent
    folder = tmp / "bin"
    folder.mkdir()
    script = folder / "pigdice"
    script.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m pigdice "$@"\n', encoding="utf-8")
    script.chmod(0o755)
    return folder


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _serve(line: str, env: dict[str, str], cwd: Path) -> tuple[int, str]:
    """Run a `pigdice serve` line on a free port until it answers, then stop it with Ctrl-C."""
    port = _free_port()
    args = [*shlex.split(line), "--port", str(port)]
    process = subprocess.Popen(args, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + SERVE_SECONDS
        while time.monotonic() < deadline and process.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as reply:
                    if reply.status == 200:
                        break
            except OSError:
                time.sleep(0.5)
        else:
            process.kill()
            return -1, "pigdice serve never answered /healthz: " + (process.communicate()[0] or "")
        process.send_signal(signal.SIGINT)
        output, _ = process.communicate(timeout=30)
        return process.returncode, output
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()


def _file_names(line: str) -> set[str]:
    """Return the file names a line names (arguments with a dot or a slash that are not options)."""
    return {word for word in shlex.split(line) if not word.startswith("-") and ("." in word or "/" in word)}


def tour_steps(lines: list[str]) -> list[list[str]]:
    """Group the tour into steps that run on their own: a line naming a file an earlier line names (the design
    space written, then read) runs after that line, in the same folder."""
    steps: list[list[str]] = []
    for line in lines:
        names = _file_names(line)
        before = [step for step in steps if names & set().union(*map(_file_names, step))]
        if before:
            before[-1].append(line)
        else:
            steps.append([line])
    return steps


def test_tour_steps_keep_a_file_with_the_line_that_wrote_it() -> None:
    lines = ["pigdice a --out x.json", "pigdice b", "pigdice c --space x.json --out d/", "pigdice e --out f.html"]
    assert tour_steps(lines) == [lines[0:1] + lines[2:3], lines[1:2], lines[3:4]]
    readme = tour_steps(tour_lines(README.read_text(encoding="utf-8")))
    assert sum(map(len, readme)) == len(tour_lines(README.read_text(encoding="utf-8")))
    assert max(map(len, readme)) <= 2, readme  # only the design example's space is written, then read


TOUR = tour_steps(tour_lines(README.read_text(encoding="utf-8")))


def _run_line(line: str, env: dict[str, str], work: Path) -> tuple[int, str]:
    """Run one tour line in ``work``: a game reads q and quits; ``pigdice serve`` stops on Ctrl-C."""
    if shlex.split(line)[:2] == ["pigdice", "serve"]:
        return _serve(line, env, work)
    done = subprocess.run(
        ["bash", "-c", line],
        cwd=work,
        env=env,
        input="q\n",  # a game reads q and quits
        capture_output=True,
        text=True,
        timeout=LINE_SECONDS,
    )
    return done.returncode, done.stdout + done.stderr


@pytest.mark.slow
@pytest.mark.e2e
@pytest.mark.timeout(60 * 60)
@pytest.mark.parametrize("step", TOUR, ids=[" && ".join(" ".join(line.split()[1:3]) for line in step) for step in TOUR])
def test_every_tour_line_runs(step: list[str], tmp_path: Path) -> None:
    """One step of the tour (a line, or the lines sharing a file) on a new install: exits 0, names no source id."""
    home = tmp_path / "home"
    work = tmp_path / "work"
    work.mkdir()
    env = {
        **os.environ,
        "PATH": f"{_bin_folder(tmp_path)}{os.pathsep}{os.environ.get('PATH', '')}",
        "PIGDICE_CACHE_DIR": str(home / "cache"),  # nothing solved yet, as on a new install
        "PIGDICE_GAMES_DIR": str(home / "games"),
        "XDG_DATA_HOME": str(home / "data"),  # the web app's database
        "COLUMNS": "100",
    }
    failed, seconds = [], {}
    for line in step:
        start = time.monotonic()
        code, output = _run_line(line, env, work)
        seconds[line] = round(time.monotonic() - start, 1)
        if code != 0:
            failed.append(f"{line}\n  exit {code}: {output[-1500:]}")
        written = [file.read_text(encoding="utf-8", errors="replace") for file in work.rglob("*.html")]
        for text in (output, *written):  # players' words: sources by title, never by file id
            if SOURCE_ID.search(text):
                failed.append(f"{line}\n  names a source by its id: {SOURCE_ID.search(text)}")
    print("seconds per tour line:", seconds)
    assert not failed, "\n".join(failed)
