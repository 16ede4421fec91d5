"""Every game ends: the engine stops a game at ``MOVE_LIMIT`` moves, the highest score winning (issue 32).

Holding at 0 is legal for ever, and so is rolling until you bust: players who never bank could play
without end (one client made 9,160 moves in a minute). The limit is a stated rule of every variant;
a record of the longest game the engine allows is read, verified and replayed.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from pigdice.engine import game as engine
from pigdice.engine.events import GameOver, GameStopped, describe_event
from pigdice.engine.fairness import verify_and_count
from pigdice.engine.game import Hold, Roll, apply, dice_rng, new_game
from pigdice.engine.record import MAX_MOVES, SeatEntry, load_record, record_game, save_record
from pigdice.rules.registry import find_variant


def test_a_game_nobody_banks_in_stops_at_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine, "MOVE_LIMIT", 40)
    variant = find_variant("pig", goal=20)
    state = new_game(variant, 2)
    rng = dice_rng(1)
    events: list = []
    while not state.is_terminal():
        state, happened = apply(state, Hold(), rng)  # holding at 0, for ever
        events.extend(happened)
    assert state.step == 40 and state.winners == (0, 1)  # 0 to 0: the highest scores share the win
    assert isinstance(events[-2], GameStopped) and isinstance(events[-1], GameOver)
    assert "40 moves" in describe_event(events[-2], ["Ann", "Bo"])


def test_the_leader_wins_a_stopped_game_and_the_turn_in_play_is_not_banked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine, "MOVE_LIMIT", 400)
    variant = find_variant("pig", goal=1000)
    state = new_game(variant, 2)
    rng = dice_rng(3)
    while not state.is_terminal():  # seat 0 banks after every roll that scores; seat 1 rolls until it busts
        action = Hold() if state.current == 0 and state.turn_total > 0 else Roll()
        state, _ = apply(state, action, rng)
    assert state.step == 400 and state.scores[1] == 0 and state.scores[0] > 0
    assert state.winners == (0,)


def test_a_game_that_ends_normally_is_untouched() -> None:
    variant = find_variant("pig", goal=30)
    state = new_game(variant, 2)
    rng = dice_rng(7)
    while not state.is_terminal():
        state, events = apply(state, Hold() if state.turn_total >= 20 else Roll(), rng)
        assert not any(isinstance(e, GameStopped) for e in events)
    assert max(state.scores) >= 30


def test_the_longest_record_the_engine_allows_is_read() -> None:
    assert engine.MOVE_LIMIT <= MAX_MOVES  # every game the engine (and so the server) plays has a readable record


@pytest.mark.slow
def test_a_20000_move_game_is_saved_loaded_verified_and_counted(tmp_path: Path) -> None:
    variant = find_variant("pig")
    state = new_game(variant, 2)
    rng = dice_rng(11)
    actions: list = []
    while len(actions) < 20_000:  # a roll now and then, held at once, else holding at 0: nobody reaches 100
        if state.turn_total:  # bank it, unless that would near the goal: then roll on until a 1
            action = Hold() if state.scores[state.current] + state.turn_total < 90 else Roll()
        else:
            action = Hold() if state.step % 5 else Roll()
        state, _ = apply(state, action, rng)
        actions.append(action)
    seats = [SeatEntry("Ann", "you", "human"), SeatEntry("Bo", "you", "human")]
    record = record_game(variant, seats, 11, actions)
    path = tmp_path / "long.json"
    save_record(record, path)
    started = time.perf_counter()
    loaded = load_record(path)
    checked, dice = verify_and_count(loaded)
    assert checked.ok and checked.moves_checked == 20_000, checked.problems
    assert dice is not None and dice.throws == checked.throws_checked > 1000
    assert time.perf_counter() - started < 30
