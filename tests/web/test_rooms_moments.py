"""Rooms play every game moment by moment: the seats that choose now, their choices, then all applied at once."""

from __future__ import annotations

import asyncio
from typing import Any

import numpy as np
import pytest

from pigdice.engine.game import Action, GameState, Move, apply, dice_rng, new_game, parse_move
from pigdice.players.fixed import HoldAt
from pigdice.rules import find_variant
from pigdice.rules.variant import Variant
from pigdice.web.errors import WebError
from pigdice.web.records import MoveWrite
from pigdice.web.rooms import GameRequest, Room
from pigdice.web.seats import Seat, hash_token


class FlakyStorage:
    """A room's storage that refuses the first ``failures`` writes, then keeps every move."""

    def __init__(self, failures: int = 0) -> None:
        self.failures = failures
        self.moves: list[MoveWrite] = []

    async def write_moves(self, moves: list[MoveWrite]) -> None:
        if self.failures:
            self.failures -= 1
            raise OSError("disk full")
        self.moves.extend(moves)

    async def claim_seat(self, game_id: int, seat: int, name: str, token_hash: str) -> bool:
        return True

    async def free_seat(self, game_id: int, seat: int) -> None:
        return None

    async def abort_game(self, code: str, reason: str) -> bool:
        return True


class Counting:
    """A robot that holds at 10 and counts how often it was asked."""

    name = "hold:10"

    def __init__(self, variant: Variant) -> None:
        self.inner = HoldAt(10)
        self.asked = 0

    def choose(self, state: GameState, rng: np.random.Generator) -> Action:
        self.asked += 1
        return self.inner.choose(state, rng)


def _room(variant: Variant, kinds: list[str], storage: FlakyStorage, seed: int = 5) -> Room:
    seats = []
    for index, kind in enumerate(kinds):
        if kind == "robot":
            seats.append(Seat(index, "robot", "hold:10", f"Robot {index}", strategy=Counting(variant)))
        else:
            seats.append(Seat(index, "human", "you", f"Person {index}", token_hash=hash_token(f"t{index}")))
    return Room(
        code="MOMENT",
        game_id=1,
        variant=variant,
        request=GameRequest(variant.name),
        seed=seed,
        seats=seats,
        state=new_game(variant, len(kinds)),
        rng=dice_rng(seed),
        storage=storage,
    )


def _replayed(variant: Variant, players: int, seed: int, moves: list[MoveWrite]) -> GameState:
    state, rng = new_game(variant, players), dice_rng(seed)
    for move in moves:
        state, _ = apply(state, parse_move(move.action), rng)
    return state


@pytest.mark.parametrize("name", ["pig", "swine-herd"])
def test_a_person_choice_goes_through_the_moment_and_is_stored_in_the_engines_order(name: str) -> None:
    variant = find_variant(name, goal=30)
    storage = FlakyStorage()
    room = _room(variant, ["you", "you"], storage)

    async def play() -> list[dict[str, Any]]:
        updates = []
        for _ in range(400):
            if room.state.is_terminal():
                break
            seat = room.to_choose()[0]
            action = "hold" if room.state.turn_total >= 8 else "roll"
            updates.append(await room.act(seat, f"t{seat}", action, room.state.step))
        return updates

    updates = asyncio.run(play())
    assert room.state.is_terminal()
    kinds = {update["type"] for update in updates}
    if variant.is_simultaneous:  # two people choose together: the first is told only who chose
        assert kinds == {"chosen", "update"}
        assert all("choices" in u for u in updates if u["type"] == "update")
    else:  # one person chooses: the move is shown at once, as the mover's
        assert kinds == {"update"}
        assert all(u["seat"] is not None and "choices" not in u for u in updates)
    assert [move.step for move in storage.moves] == list(range(1, len(storage.moves) + 1))
    replayed = _replayed(variant, 2, 5, storage.moves)
    assert replayed.scores == room.state.scores and replayed.winners == room.state.winners


@pytest.mark.parametrize("name", ["pig", "swine-herd"])
def test_robot_choices_that_could_not_be_stored_are_played_as_chosen_once_storage_is_back(name: str) -> None:
    variant = find_variant(name, goal=30)
    storage = FlakyStorage()
    room = _room(variant, ["robot", "robot"], storage)
    robots = [seat.strategy for seat in room.seats]

    def asked() -> int:
        return sum(robot.asked for robot in robots if isinstance(robot, Counting))

    async def play() -> tuple[dict[int, Move], int, int]:
        while room.rules_stand():  # Swine Herd's first roll of a turn is the rules' choice, not the robots'
            await room._server_choose()
        storage.failures = 1
        with pytest.raises(WebError) as failed:
            await room._server_choose()
        assert failed.value.code == "storage_failed"
        assert room.moment_complete() and room.robot_work()  # the robot loop tries the same choices again
        kept, before, stored = dict(room.choices), asked(), len(storage.moves)
        await room._server_choose()
        return kept, before, stored

    kept, before, stored = asyncio.run(play())
    assert kept and before and room.choices == {}
    assert asked() == before  # no robot was asked again
    assert [parse_move(m.action) for m in storage.moves[stored:]] == [kept[s] for s in sorted(kept)]


def test_refusals_say_why_a_seat_has_no_choice_now() -> None:
    pig = _room(find_variant("pig", goal=30), ["you", "you"], FlakyStorage())
    herd = _room(find_variant("swine-herd", goal=30), ["you", "you", "you"], FlakyStorage())

    async def refused(room: Room, seat: int, action: str) -> str:
        with pytest.raises(WebError) as error:
            await room.act(seat, f"t{seat}", action, room.state.step)
        return error.value.code

    async def play() -> None:
        assert await refused(pig, 1, "roll") == "not_your_turn"
        assert await refused(herd, 0, "hold") == "illegal_action"  # nothing to sit down with before the first roll
        for seat in (0, 1, 2):
            await herd.act(seat, f"t{seat}", "roll", herd.state.step)
        while herd.state.turn_total == 0:  # a first roll that busted: stand again
            for seat in (0, 1, 2):
                await herd.act(seat, f"t{seat}", "roll", herd.state.step)
        await herd.act(0, "t0", "roll", herd.state.step)
        assert await refused(herd, 0, "hold") == "already_chosen"
        await herd.resign(2, "t2")
        assert await refused(herd, 2, "roll") == "resigned"

    asyncio.run(play())
