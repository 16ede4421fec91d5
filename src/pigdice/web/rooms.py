"""Rooms: one game each, with seats, the dice generator, the event history, connections and a lock.

Every action goes through ``Room.act`` (people) or the robot loop, both under the room's
``asyncio.Lock``: check the token and the expected step, apply the action with the server's
dice, write the move to the database, and only then push it to every connection.

A room knows nothing of the manager that keeps it: it writes through a ``RoomStorage`` (the
manager is one), so the dependency goes one way, manager -> rooms.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from pigdice.engine.events import Event, describe_event, event_to_json
from pigdice.engine.game import GameState, Pass, Resign, apply, parse_action
from pigdice.engine.record import Commitment, GameRecord, SeatEntry, commitment_digest, record_game
from pigdice.errors import IllegalActionError
from pigdice.players.optimal import Optimal
from pigdice.rules.variant import Variant
from pigdice.web.errors import WebError
from pigdice.web.live import Connection, dumps
from pigdice.web.seats import Seat, clean_name, hash_token
from pigdice.web.store import GameClosedError, MoveWrite

log = logging.getLogger("pigdice.web")


def robot_rng(seed: int, step: int) -> np.random.Generator:
    """Return a generator for the robots of a room (separate from the dice), seeded from the seed and the step."""
    return np.random.default_rng([seed, step, 7])


class RoomStorage(Protocol):
    """Where a room writes what must survive a restart: its moves and the seats people claim."""

    async def write_move(self, move: MoveWrite) -> None:
        """Store one move durably (raise if it could not be stored)."""

    async def claim_seat(self, game_id: int, seat: int, name: str, token_hash: str) -> bool:
        """Store a claimed open seat; return False if someone took it meanwhile."""

    async def free_seat(self, game_id: int, seat: int) -> None:
        """Store that a person's seat is open again (raise if it could not be stored)."""


@dataclass
class Room:
    """A live game: variant, seats, state, the dice generator, the event history and connections."""

    code: str
    game_id: int
    variant: Variant
    request: dict[str, Any]  # what the room was created with (variant name, goal, endgame, params)
    seed: int
    seats: list[Seat]
    state: GameState
    rng: np.random.Generator
    storage: RoomStorage
    robot_delay: float = 0.0  # seconds before each robot action
    history: list[tuple[int, Event]] = field(default_factory=list)  # (step, event)
    actions: list[str] = field(default_factory=list)
    connections: set[Connection] = field(default_factory=set)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    robot_task: asyncio.Task[None] | None = None
    last_active: float = field(default_factory=time.monotonic)
    replay_mismatch: bool = False
    robot_rng: np.random.Generator | None = None  # robots' own generator (their moves are logged as actions)
    preparing: bool = False  # the perfect player is being solved (its robots wait; shown to players)
    closed: str | None = None  # why the room takes no more moves (expired), or None while it is open
    salt: str | None = None  # the dice commitment's secret salt (None: a game from before commitments)
    turn_seconds: float = 0.0  # online rooms: a person's time per decision, then the turn passes (0: no timer)
    skips_to_free_seat: int = 3  # timeouts in a row after which the seat opens for someone else
    skips: dict[int, int] = field(default_factory=dict)  # seat -> timeouts in a row
    timer: asyncio.Task[None] | None = None
    deadline: float | None = None  # when the current person's time runs out (epoch seconds), if a timer runs

    # -- views ---------------------------------------------------------------------------
    @property
    def names(self) -> list[str]:
        """Return the seat names in seat order."""
        return [s.name for s in self.seats]

    @property
    def started(self) -> bool:
        """Return True once every seat is taken (robots wait until then)."""
        return all(s.is_taken for s in self.seats)

    @property
    def is_online(self) -> bool:
        """Return True if people play from different places (a seat was opened for a friend): turns are timed."""
        return any(s.kind == "human" and s.spec == "friend" for s in self.seats)

    @property
    def step(self) -> int:
        """Return the number of actions played so far."""
        return self.state.step

    def event_json(self, step: int, event: Event, data: dict[str, Any] | None = None) -> dict[str, Any]:
        """Return an event for clients: its fields, the step that made it, and a line of text (``line``)."""
        data = dict(event_to_json(event) if data is None else data)
        data["step"] = step
        data["line"] = describe_event(event, self.names)
        return data

    def connected_seats(self) -> set[int]:
        """Return the seats that have a live connection."""
        seats: set[int] = set()
        for conn in self.connections:
            seats |= conn.seats
        return seats

    def snapshot(self) -> dict[str, Any]:
        """Return the full public state (no tokens; the seed only once the game is over)."""
        state = self.state
        variant = self.variant
        data = state.to_json()
        connected = self.connected_seats()
        data.update(
            {
                "code": self.code,
                "step": state.step,
                "title": variant.title,
                "decision": str(variant.decision),
                "chooses_dice": variant.chooses_dice,
                "choices": list(variant.choices),
                "can_hold": variant.can_hold,
                "endgame": str(variant.endgame),
                "players": state.players,
                "seats": [s.public(s.index in connected) for s in self.seats],
                "started": self.started,
                "finished": state.is_terminal(),
                "waiting_for": [s.index for s in self.seats if not s.is_taken],
                # the seed as text: JavaScript numbers lose integers above 2^53
                "seed": str(self.seed) if state.is_terminal() else None,
                "commitment": None if self.salt is None else commitment_digest(self.seed, self.salt),
                "salt": self.salt if state.is_terminal() else None,
                "preparing": self.preparing,
                "closed": self.closed,
                "spectators": self.spectators,
                "deadline": self.deadline,
                "turn_seconds": self.turn_seconds if self.is_online else None,
            }
        )
        return data

    @property
    def spectators(self) -> int:
        """Return how many connections watch without holding a seat."""
        return sum(1 for conn in self.connections if not conn.seats)

    def broadcast_watchers(self) -> None:
        """Tell everyone how many are watching (sent when a spectator comes or goes)."""
        self.broadcast({"type": "watchers", "spectators": self.spectators})

    def game_record(self) -> GameRecord:
        """Return the room's game as a record: the seed and salt only once the game is over."""
        seats = [SeatEntry(s.name, s.spec, s.kind) for s in self.seats]
        finished = self.state.is_terminal()
        commitment = None
        if self.salt is not None:  # the salt stays secret, like the seed, until the end
            commitment = Commitment(self.salt if finished else None, commitment_digest(self.seed, self.salt))
        return record_game(
            self.variant,
            seats,
            self.seed,
            self.actions,
            commitment=commitment,
            reveal_seed=finished,
            origin="web",
            room=self.code,
        )

    def welcome(self) -> dict[str, Any]:
        """Return the first message of a connection: full state and the full event history."""
        return {
            "type": "welcome",
            "state": self.snapshot(),
            "events": [self.event_json(step, ev) for step, ev in self.history],
        }

    def broadcast(self, message: dict[str, Any]) -> None:
        """Queue ``message`` for every connection of the room."""
        text = dumps(message)
        for conn in list(self.connections):
            conn.send(text)

    def touch(self) -> None:
        """Mark the room as recently used."""
        self.last_active = time.monotonic()

    # -- seats ---------------------------------------------------------------------------
    def seat(self, index: int) -> Seat:
        """Return a seat by index or raise a clear error."""
        if not 0 <= index < len(self.seats):
            raise WebError("bad_seat", f"there is no seat {index}; seats are 0 to {len(self.seats) - 1}")
        return self.seats[index]

    def authorize(self, index: int, token: str) -> Seat:
        """Return the seat if ``token`` is its secret, else raise wrong_token."""
        seat = self.seat(index)
        if seat.is_robot:
            raise WebError("wrong_token", f"seat {index} is a robot; nobody acts for it", 403)
        if not seat.check_token(token):
            raise WebError("wrong_token", f"that token does not hold seat {index}", 403)
        return seat

    def check_open(self) -> None:
        """Raise 410 if the room takes no more moves (it expired)."""
        if self.closed is not None:
            raise WebError("room_closed", f"this game is closed: {self.closed}; start a new one", 410)

    async def join(self, index: int | None, name: str | None) -> tuple[Seat, str]:
        """Take an open seat (the first open one if ``index`` is None); return it and its new token."""
        async with self.lock:
            self.check_open()
            if index is None:
                open_seats = [s for s in self.seats if not s.is_taken]
                if not open_seats:
                    raise WebError("room_full", "every seat in this room is taken; you can still watch", 409)
                seat = open_seats[0]
            else:
                seat = self.seat(index)
                if seat.is_taken:
                    what = "a robot" if seat.is_robot else "taken"
                    raise WebError("seat_taken", f"seat {seat.index} is {what}; pick an open seat", 409)
            token = secrets.token_urlsafe(24)
            digest = hash_token(token)
            new_name = clean_name(name, seat.name)
            claimed = await self.storage.claim_seat(self.game_id, seat.index, new_name, digest)
            if not claimed:
                raise WebError("seat_taken", f"seat {seat.index} was just taken", 409)
            seat.token_hash = digest
            seat.name = new_name
            self.touch()
            self.arm_timer()
            self.broadcast({"type": "seats", "state": self.snapshot()})
        self.kick_robots()
        return seat, token

    # -- actions -------------------------------------------------------------------------
    async def act(self, index: int, token: str, action_text: str, expected_step: int) -> dict[str, Any]:
        """Play a person's action for seat ``index``; return the update that was broadcast."""
        async with self.lock:
            self.authorize(index, token)
            self.check_open()
            if self.state.is_terminal():
                raise WebError("game_over", "the game is over; start a new one with play again", 409)
            if not self.started:
                raise WebError("waiting_for_players", "the game starts when every seat is taken", 409)
            if expected_step != self.state.step:
                raise WebError(
                    "stale_step",
                    f"the game is at step {self.state.step}, not {expected_step}; your view was out of date",
                    409,
                )
            if self.state.current != index:
                who = self.seats[self.state.current].name
                raise WebError("not_your_turn", f"it is {who}'s turn, not seat {index}'s", 409)
            try:
                action = parse_action(action_text)
            except IllegalActionError as exc:
                raise WebError("illegal_action", str(exc)) from None
            update = await self._play(index, action_text, action)
            self.skips.pop(index, None)  # the person is back: their timeouts no longer count
        self.kick_robots()
        return update

    async def resign(self, index: int, token: str) -> dict[str, Any]:
        """Seat ``index`` resigns (at any moment): with one player left the game ends; return the update."""
        async with self.lock:
            self.authorize(index, token)
            self.check_open()
            if self.state.is_terminal():
                raise WebError("game_over", "the game is over", 409)
            if index in self.state.resigned:
                raise WebError("already_resigned", f"seat {index} has already resigned", 409)
            action = Resign(index)
            update = await self._play(index, str(action), action)
        self.kick_robots()
        return update

    async def _play(self, index: int, action_text: str, action: Any) -> dict[str, Any]:
        """Apply, persist, then broadcast one action (the caller holds the lock)."""
        saved = self.rng.bit_generator.state
        try:
            state, events = apply(self.state, action, self.rng)
        except IllegalActionError as exc:
            raise WebError("illegal_action", str(exc)) from None
        step = state.step
        events_json = [event_to_json(ev) for ev in events]
        try:
            await self.storage.write_move(
                MoveWrite(
                    self.game_id,
                    step,
                    index,
                    str(action),
                    events_json,
                    state.is_terminal(),
                    None if state.winners is None else list(state.winners),
                    to_move=None if state.is_terminal() else state.current,
                )
            )
        except GameClosedError as exc:
            self.rng.bit_generator.state = saved
            self.closed = exc.reason or f"the game is {exc.status}"
            raise WebError("room_closed", f"this game is closed: {self.closed}; start a new one", 410) from None
        except Exception as exc:
            self.rng.bit_generator.state = saved  # nothing happened: the dice are rolled again next time
            log.exception("room %s: could not store step %s", self.code, step)
            message = f"the move could not be saved ({type(exc).__name__}); try again"
            raise WebError("storage_failed", message, 503) from None
        self.state = state
        self.actions.append(str(action))
        self.history.extend((step, ev) for ev in events)
        self.touch()
        update = {
            "type": "update",
            "step": step,
            "seat": index,
            "action": str(action),
            "events": [self.event_json(step, ev, js) for ev, js in zip(events, events_json, strict=True)],
            "state": self.snapshot(),
        }
        self.broadcast(update)
        self.arm_timer()
        return update

    # -- the turn timer --------------------------------------------------------------------
    def arm_timer(self) -> None:
        """(Re)start the current person's clock in an online room; stop it where nobody is to be waited for."""
        if self.timer is not None and self.timer is not asyncio.current_task():
            self.timer.cancel()
        self.timer = None
        self.deadline = None
        if not self.turn_seconds or not self.is_online or not self.started or self.closed is not None:
            return
        if self.state.is_terminal() or self.seats[self.state.current].is_robot:
            return
        self.deadline = time.time() + self.turn_seconds
        self.timer = asyncio.create_task(self._time_out(self.state.step))

    async def _time_out(self, step: int) -> None:
        """After ``turn_seconds`` without a move, pass the person's turn; after repeated timeouts, open the seat."""
        await asyncio.sleep(self.turn_seconds)
        async with self.lock:
            if self.state.step != step or self.state.is_terminal() or self.closed is not None:
                return
            index = self.state.current
            seat = self.seats[index]
            if seat.is_robot:
                return
            try:
                await self._play(index, "pass", Pass())
            except WebError as exc:
                log.error("room %s: the timeout of seat %s could not be played: %s", self.code, index, exc)
                return
            self.skips[index] = self.skips.get(index, 0) + 1
            if self.skips[index] >= self.skips_to_free_seat and seat.token_hash is not None:
                try:
                    await self.storage.free_seat(self.game_id, index)
                except Exception:
                    log.exception("room %s: could not open seat %s", self.code, index)
                    return
                seat.token_hash = None
                self.skips.pop(index, None)
                self.arm_timer()  # the game now waits for someone to take the seat
                self.broadcast({"type": "seats", "state": self.snapshot(), "freed": index})
        self.kick_robots()

    # -- robots --------------------------------------------------------------------------
    def robot_to_move(self) -> Seat | None:
        """Return the robot seat whose move it is, if any (the game has started and its robots are ready)."""
        if self.state.is_terminal() or not self.started or self.closed is not None:
            return None
        seat = self.seats[self.state.current]
        if isinstance(seat.strategy, Optimal) and not seat.strategy.is_ready_for(self.state.players):
            return None  # its policy is being solved in the solve pool; the room is kicked when it is ready
        return seat if seat.is_robot else None

    @property
    def robots_only(self) -> bool:
        """Return True if every seat is a robot (nobody plays: such rooms are capped and expire)."""
        return all(s.is_robot for s in self.seats)

    def stop_robots(self) -> None:
        """Cancel the robot loop and the turn timer, if they run (the room closes or leaves memory)."""
        if self.robot_task is not None and not self.robot_task.done():
            self.robot_task.cancel()
        if self.timer is not None and not self.timer.done():
            self.timer.cancel()
        self.timer = None
        self.deadline = None

    def kick_robots(self) -> None:
        """Start the robot loop if a robot is to move and none is running."""
        if self.robot_to_move() is None:
            return
        if self.robot_task is None or self.robot_task.done():
            self.robot_task = asyncio.create_task(self._robots())

    async def _robots(self) -> None:
        """Play robot moves, one every ``robot_delay`` seconds, while a robot is to move."""
        delay = self.robot_delay
        while self.robot_to_move() is not None:
            await asyncio.sleep(delay)
            async with self.lock:
                seat = self.robot_to_move()
                if seat is None or seat.strategy is None:
                    return
                try:
                    if self.robot_rng is None:
                        self.robot_rng = robot_rng(self.seed, self.state.step)
                    action = seat.strategy.choose(self.state, self.robot_rng)
                    await self._play(seat.index, str(action), action)
                except WebError as exc:
                    log.error("room %s: robot %s failed: %s", self.code, seat.name, exc)
                    if exc.code == "storage_failed":
                        await asyncio.sleep(1.0)
                        continue
                    return
                except Exception:
                    log.exception("room %s: robot %s failed", self.code, seat.name)
                    return
