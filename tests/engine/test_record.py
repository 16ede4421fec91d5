"""Game records: written, read back, replayed and verified; damaged or tampered records are refused or caught."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pigdice.engine.fairness import dice_statistics, record_dice_statistics, verify_record
from pigdice.engine.game import apply, dice_rng, new_game, robot_rng
from pigdice.engine.record import (
    MAX_RECORD_BYTES,
    Commitment,
    GameRecord,
    RecordError,
    SeatEntry,
    commitment_digest,
    load_record,
    parse_record,
    record_game,
    replay_record,
    save_record,
)
from pigdice.players.specs import parse_players
from pigdice.rules import find_variant

SEATS = (SeatEntry("You", "you", "human"), SeatEntry("Wilbur", "hold:20", "robot"))


def robot_game(name: str = "pig", specs: str = "hold:20,hold:15", seed: int = 11, goal: int = 40) -> GameRecord:
    """Play a game between robots with ``seed`` and return its record (with a commitment)."""
    variant = find_variant(name, goal=goal)
    players = parse_players(specs, variant)
    state, dice, robots, actions = new_game(variant, len(players)), dice_rng(seed), robot_rng(seed), []
    while not state.is_terminal():
        action = players[state.current].choose(state, robots)
        actions.append(action)
        state, _ = apply(state, action, dice)
    seats = [SeatEntry(f"P{i}", spec, "robot") for i, spec in enumerate(specs.split(","))]
    return record_game(variant, seats, seed, actions, commitment=Commitment.make(seed))


def test_a_record_survives_the_file_and_verifies(tmp_path: Path) -> None:
    record = robot_game()
    path = tmp_path / "game.json"
    save_record(record, path)
    again = load_record(path)
    assert again == record
    assert json.loads(path.read_text())["seed"] == str(record.seed)  # a string: JavaScript rounds above 2^53
    checked = verify_record(again)
    assert checked.ok and checked.commitment == "matches"
    assert checked.moves_checked == len(record.moves) and checked.throws_checked > 0
    state, _ = replay_record(again)
    assert state.winners == record.winners and state.scores == record.scores


def test_a_changed_die_is_caught() -> None:
    data = robot_game().to_json()
    forged = copy.deepcopy(data)
    for move in forged["moves"]:
        rolled = [e for e in move["events"] if e["type"] == "Rolled"]
        if rolled and rolled[0]["faces"] == [1]:
            rolled[0]["faces"] = [6]  # the bust becomes a six
            break
    else:
        pytest.fail("the game never rolled a 1")
    checked = verify_record(GameRecord.from_json(forged))
    assert not checked.ok
    assert "differs from the dice of the seed" in checked.problems[0]


def test_a_seed_that_is_not_the_promised_one_is_caught() -> None:
    data = robot_game().to_json()
    data["seed"] = str(int(data["seed"]) + 1)
    checked = verify_record(GameRecord.from_json(data))
    assert checked.commitment == "does not match" and not checked.ok


def test_a_changed_result_is_caught() -> None:
    data = robot_game().to_json()
    data["result"]["winners"] = [1 - data["result"]["winners"][0]]
    assert "recorded result" in verify_record(GameRecord.from_json(data)).problems[-1]


def test_the_commitment_is_sha256_of_salt_and_seed() -> None:
    import hashlib

    assert commitment_digest(42, "ab") == hashlib.sha256(b"ab:42").hexdigest()
    promise = Commitment.make(42)
    assert promise.matches(42) and not promise.matches(43)
    assert not Commitment(None, promise.digest).matches(42)  # the salt still secret


def test_a_running_game_keeps_its_seed_secret() -> None:
    variant = find_variant("pig", goal=20)
    record = record_game(variant, SEATS, 5, ["roll"], commitment=Commitment(None, "0" * 64), reveal_seed=False)
    data = record.to_json()
    assert data["seed"] is None and data["commitment"]["salt"] is None
    assert verify_record(GameRecord.from_json(data)).commitment == "secret"
    with pytest.raises(RecordError, match="secret"):
        replay_record(record)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(format="chess"), "not a pigdice game record"),
        (lambda d: d.update(version=9), "version 9"),
        (lambda d: d.update(seed="12x"), "seed"),
        (lambda d: d.update(seed=str(2**64)), "outside"),
        (lambda d: d.update(seats=[]), "1 to 10"),
        (lambda d: d["moves"][0].update(seat=7), "seat 7"),
        (lambda d: d["moves"][0].update(action="jump"), "cannot read action"),
        (lambda d: d.update(goal="100"), "goal"),
        (lambda d: d.update(variant="chess"), "unknown variant"),
        (lambda d: d["commitment"].update(digest="zz"), "hexadecimal"),
        (lambda d: d["seats"][0].update(kind="ghost"), "neither human nor robot"),
        (lambda d: d["result"].update(scores=[1]), "one whole number per seat"),
    ],
)
def test_a_damaged_record_is_refused_with_the_reason(change, message: str) -> None:
    data = robot_game().to_json()
    change(data)
    with pytest.raises(RecordError, match=message):
        record = GameRecord.from_json(data)
        replay_record(record)


def test_files_that_are_not_records_are_refused(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match="not JSON"):
        parse_record(b"{not json")
    with pytest.raises(RecordError, match="JSON object"):
        parse_record(b"[1, 2]")
    with pytest.raises(RecordError, match="cannot read"):
        load_record(tmp_path / "missing.json")
    big = tmp_path / "big.json"
    with big.open("wb") as stream:
        stream.truncate(MAX_RECORD_BYTES + 1)
    with pytest.raises(RecordError, match="at most"):
        load_record(big)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**63 - 1),
    name=st.sampled_from(["pig", "two-dice-pig", "hog", "pass-the-pigs", "pig-dice"]),
)
def test_any_seeded_robot_game_round_trips_and_verifies(seed: int, name: str) -> None:
    specs = "dice:5,dice:3" if name == "hog" else "hold:20,rolls:2"
    record = robot_game(name, specs, seed, goal=30)
    again = parse_record(json.dumps(record.to_json()))
    assert again == record and verify_record(again).ok


def test_fair_dice_pass_the_chi_square_test_and_loaded_dice_fail() -> None:
    variant = find_variant("pig")
    fair = [{"type": "Rolled", "dice": 1, "faces": [1 + i % 6]} for i in range(600)]
    statistics = dice_statistics([(variant, fair)])
    assert statistics.throws == 600 and statistics.degrees_of_freedom == 5
    assert statistics.chi_square == pytest.approx(0.0) and statistics.p_value == pytest.approx(1.0)
    loaded = [{"type": "Rolled", "dice": 1, "faces": [6 if i % 2 else 1 + i % 6]} for i in range(600)]
    assert dice_statistics([(variant, loaded)]).p_value < 1e-6
    junk = [{"type": "Rolled", "dice": 1, "faces": [9]}, {"type": "Rolled", "dice": 1, "faces": "x"}]
    assert "2 throws could not be read" in dice_statistics([(variant, junk)]).notes[0]


def test_dice_statistics_count_every_kind_of_die() -> None:
    record = robot_game("pig-dice", "hold:20,hold:10", 3, goal=60)
    statistics = record_dice_statistics([record])
    assert {row.die for row in statistics.faces} == {"head", "tail"}  # Pig Dice's two special dice
    per_die: dict[str, int] = {}
    for row in statistics.faces:
        per_die[row.die] = per_die.get(row.die, 0) + row.seen
    assert set(per_die.values()) == {statistics.throws}  # one of each die per throw
    assert statistics.p_value is not None and 0 <= statistics.p_value <= 1
