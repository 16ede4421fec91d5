"""Drive the real `pigdice play` console script in a pseudo-terminal, as a person would."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest

pytestmark = pytest.mark.e2e

PROMPT = re.compile(r"\[q\]uit > ")
STAKE = re.compile(r"(\d+) \+ (\d+) · ")
GAME_OVER = "Game over"
RESULT = re.compile(r"  (You win!|\w+ wins\.|.+ share the victory\.)")


def pigdice_script() -> str:
    """Return the path of the installed `pigdice` script next to this Python."""
    sibling = Path(sys.executable).parent / "pigdice"
    found = str(sibling) if sibling.exists() else shutil.which("pigdice")
    if not found:
        pytest.skip("the pigdice console script is not installed")
    return found


def spawn(*args: str) -> pexpect.spawn:
    """Start `pigdice` with ``args`` in a pty, fast and without colours."""
    env = {**os.environ, "PIGDICE_FAST": "1", "TERM": "dumb", "NO_COLOR": "1", "COLUMNS": "120"}
    child = pexpect.spawn(pigdice_script(), list(args), env=env, encoding="utf-8", timeout=20, dimensions=(50, 120))
    return child


def finish(child: pexpect.spawn) -> int:
    """Wait for the process to end and return its exit status."""
    child.expect(pexpect.EOF)
    child.close()
    assert child.signalstatus is None
    return child.exitstatus


def _play_to_the_end(child: pexpect.spawn) -> None:
    """Play the person's moves (hold from 4 in hand) until the game is over and its result shown."""
    moves = 0
    while True:
        index = child.expect([PROMPT, GAME_OVER])
        if index == 1:
            child.expect(RESULT)
            return
        moves += 1
        assert moves < 200, "the game should end"
        line = child.before.rsplit("\n", 1)[-1]
        stake = STAKE.search(line)
        child.sendline("h" if stake and int(stake.group(2)) >= 4 else "r")


def test_a_person_plays_a_short_game_to_the_end_and_a_rematch() -> None:
    child = spawn("play", "pig", "--players", "you,hold:10", "--goal", "10", "--seed", "3")
    child.expect("seed 3")
    _play_to_the_end(child)
    child.expect("Rematch\\? The next player in turn starts")
    child.sendline("y")
    child.expect("seed 4")  # the next seed: the evening replays from the first one
    child.expect(r"Round 1 · Wilbur's turn")  # the seats moved one place: the robot starts
    _play_to_the_end(child)
    child.expect("Rematch\\?")
    child.sendline("n")
    transcript = child.before + child.after
    assert "Traceback" not in transcript
    assert finish(child) == 0


def test_quit_abandons_the_game_cleanly() -> None:
    child = spawn("play", "--players", "you,hold:20", "--seed", "7")
    child.expect("seed 7")
    child.expect(PROMPT)
    child.sendline("q")
    child.expect("abandoned")
    assert finish(child) == 0


def test_illegal_input_is_one_line_and_asks_again() -> None:
    child = spawn("play", "pig", "--players", "you,hold:20", "--seed", "7")
    child.expect(PROMPT)
    child.sendline("banana")
    child.expect("can't read 'banana'")
    child.expect(PROMPT)  # asked again, the game goes on
    child.sendline("roll:3")
    child.expect("always rolls 1 die")
    child.expect(PROMPT)
    child.sendline("?")
    child.expect("hint")
    child.expect(PROMPT)
    child.sendline("i")
    child.expect("Roll a 1")
    child.expect(PROMPT)
    child.sendeof()
    child.expect("abandoned")
    assert finish(child) == 0


def test_dice_choice_prompt_accepts_a_number() -> None:
    child = spawn("play", "hog", "--players", "you,dice:5", "--goal", "20", "--seed", "1")
    child.expect(r"\[1-26\] dice to throw \(Enter ends the number\)")
    child.expect(PROMPT)
    child.sendline("30")
    child.expect("not allowed now")
    child.expect(PROMPT)
    child.sendline("3")
    child.expect("You throw 3 dice")
    child.expect(PROMPT)
    child.sendline("q")
    assert finish(child) == 0


def test_hot_seat_swine_herd_asks_every_standing_person() -> None:
    child = spawn("play", "swine-herd", "--players", "human:Ann,human:Bob,hold:10", "--goal", "15", "--seed", "5")
    child.expect("Round 1")
    child.expect(r"Ann \d+ \+ \d+ · ")
    child.expect(PROMPT)
    child.sendline("r")
    child.expect("•")  # Ann's key is hidden from Bob, who chooses next on the same state
    child.expect(r"Bob \d+ \+ \d+ · ")
    assert "stays" not in str(child.before) and "sits" not in str(child.before)
    child.expect(PROMPT)
    child.sendline("s")
    child.expect("Bob sits down and banks")  # all choices are shown together, once everyone has chosen
    child.sendline("q")
    assert finish(child) == 0


@pytest.mark.slow
def test_a_saved_game_is_reviewed_verified_and_replayed(tmp_path: Path) -> None:
    saved = tmp_path / "my game.json"
    child = spawn("play", "pig", "--players", "you,hold:10", "--goal", "12", "--seed", "8", "--save", str(saved))
    for _ in range(200):
        if child.expect([PROMPT, GAME_OVER]) == 1:
            break
        child.sendline("h" if "+ " in child.before.rsplit("\n", 1)[-1] else "r")  # hold as soon as anything is won
    child.expect("Game saved")
    child.expect("pigdice review")  # how to look at the game again
    child.expect("Your review", timeout=180)  # goal 12 is not shipped: the review solves it (kernels may load)
    child.expect(r"You (gave away|played all)")
    child.expect("Rematch")
    child.sendline("n")
    assert finish(child) == 0
    record = json.loads(saved.read_text())
    assert record["format"] == "pigdice-game" and record["seed"] == "8" and record["seats"][0]["kind"] == "human"

    review = subprocess.run([pigdice_script(), "review", str(saved), "--json"], capture_output=True, text=True)
    assert review.returncode == 0, review.stderr
    decisions = json.loads(review.stdout)["decisions"]
    assert decisions and all(d["loss"] >= 0 for d in decisions)
    assert sum(1 for d in decisions if d["seat"] == 0) == json.loads(review.stdout)["seats"][0]["decisions"]

    text = subprocess.run([pigdice_script(), "review", str(saved)], capture_output=True, text=True)
    assert text.returncode == 0 and "Players: You · Wilbur, holds at 10" in text.stdout, text.stdout

    verify = subprocess.run([pigdice_script(), "verify", str(saved)], capture_output=True, text=True)
    assert verify.returncode == 0 and "commitment matches" in " ".join(verify.stdout.split()), verify.stdout

    replay = subprocess.run([pigdice_script(), "replay", str(saved)], capture_output=True, text=True)
    assert replay.returncode == 0 and "Game over" in replay.stdout and "seed 8" in replay.stdout

    record["moves"][0]["events"][0]["faces"] = [6 if record["moves"][0]["events"][0]["faces"] != [6] else 5]
    saved.write_text(json.dumps(record))
    tampered = subprocess.run([pigdice_script(), "verify", str(saved)], capture_output=True, text=True)
    assert tampered.returncode == 1 and "NOT verified" in tampered.stdout

    saved.write_text("{broken")
    broken = subprocess.run([pigdice_script(), "review", str(saved)], capture_output=True, text=True)
    assert broken.returncode == 2 and broken.stderr.startswith("error: ") and "not JSON" in broken.stderr
    assert "Traceback" not in broken.stderr


def test_on_a_terminal_a_move_is_one_key_without_enter() -> None:
    child = spawn("play", "pig", "--players", "you,hold:20", "--seed", "3")
    child.expect("Press a key, no Enter: r roll · h hold")
    child.expect(PROMPT)
    child.send("h")  # at turn total 0: asked first
    child.expect(r"Hold with nothing to bank\? Your turn passes\. \[y\]es / \[n\]o > ")
    child.send("n")
    child.expect("Not held: still your move.")
    child.expect(PROMPT)
    child.send("r")
    child.expect("You roll")
    child.expect(PROMPT)
    child.send("q")
    child.expect("abandoned")
    assert finish(child) == 0


def test_on_a_terminal_a_number_of_dice_ends_when_it_cannot_grow_on_enter_or_after_a_pause() -> None:
    child = spawn("play", "hog", "--players", "you,dice:5", "--goal", "200", "--seed", "1")
    child.expect(PROMPT)
    child.send("3")  # 30 would be too many: 3 at once
    child.expect("You throw 3 dice")
    child.expect(PROMPT)
    child.send("1")
    assert child.expect(["You throw", pexpect.TIMEOUT], timeout=0.5) == 1  # 1 may grow: it waits
    child.send("2")
    child.expect("You throw 12 dice")
    child.expect(PROMPT)
    child.send("2")
    child.expect("You throw 2 dice", timeout=10)  # after a short pause
    child.expect(PROMPT)
    child.send("1\r")
    child.expect("You throw 1 die")
    child.expect(PROMPT)
    child.sendeof()
    child.expect("abandoned")
    assert finish(child) == 0


SET_STAKE = re.compile(r"(\d+) \+ (\d+) with set ([12])|(\d+) with set ([12])")


def test_eight_players_with_two_sets_of_dice_play_to_the_end() -> None:
    robots = ",".join(f"hold:{limit}" for limit in (6, 8, 10, 12, 14, 16, 18))
    child = spawn(
        "play", "piggy-six", "--param", "dice_sets=2", "--players", f"you,{robots}", "--goal", "30", "--seed", "2"
    )
    child.expect(r"two\s+sets\s+of\s+dice\s+for\s+a\s+large\s+group")
    moves, sets_seen = 0, set()
    while True:
        if child.expect([PROMPT, GAME_OVER]) == 1:
            child.expect(RESULT)
            break
        moves += 1
        assert moves < 300, "the game should end"
        line = re.sub(r"\s+", " ", child.before.rsplit(" > ", 1)[-1])  # the prompt may wrap
        stakes = list(SET_STAKE.finditer(line))
        assert stakes, f"the prompt names the set in hand: {line!r}"
        stake = stakes[0]
        sets_seen.add(stake.group(3) or stake.group(5))
        child.sendline("h" if stake.group(2) and int(stake.group(2)) >= 6 else "r")
    child.expect("Rematch\\?")
    transcript = child.before
    child.sendline("n")
    assert finish(child) == 0
    assert "Traceback" not in transcript
    assert sets_seen == {"1", "2"}, "the person rolls with both sets in a game this long"
