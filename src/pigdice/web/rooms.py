"""Rooms: one game each, with seats, the dice generator, the event history, connections and a lock.

Every action goes through ``Room.act`` (people) or the robot loop, both under the room's
``asyncio.Lock``: check the token and the expected step, apply the action with the server's
dice, write the move to the database, and only then push it to every connection.

Every game goes moment by moment: the seats that choose now (``choosing_seats``: the player to
move, or in Swine Herd every standing seat, person or robot, on the same state) each send a choice,
kept in the room's memory (everyone is told only who has chosen) until the last of them has chosen.
Then they are applied together in seat order (the engine's order, so the stored log replays),
written as one move per seat, all or none, and shown to everyone in one update. A choice is final
once sent. Where the two kinds of game differ is said in a few hooks: what identifies a moment
(``moment``), why a seat may not choose (``_refusal``), the update that shows a moment
(``_moment_update``) and whether a moment's clock runs on (``_clock_runs_on``).

A room knows nothing of the manager that keeps it: it writes through a ``RoomStorage``
(``pigdice.web.persistence``), so the dependency goes one way, manager -> rooms. Leaving a game
(abort, a seat that left, claims) is ``pigdice.web.leaving``; the rematch offer is
``pigdice.web.rematch``.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

import numpy as np

from pigdice.engine.events import Event, event_to_json
from pigdice.engine.game import (
    GameState,
    Hold,
    Move,
    Pass,
    Resign,
    Roll,
    apply,
    parse_action,
    parse_move,
)
from pigdice.engine.record import Commitment, GameRecord, SeatEntry, commitment_digest
from pigdice.engine.simultaneous import apply_each_choice, choosing_seats, rules_stand, seat_view
from pigdice.errors import IllegalActionError
from pigdice.players.optimal import Optimal
from pigdice.rules.variant import Variant
from pigdice.web.errors import WebError
from pigdice.web.lines import events_for_clients
from pigdice.web.live import Connection, OncePerBurst, dumps
from pigdice.web.longjobs import RecordOrder
from pigdice.web.rematch import Rematch
from pigdice.web.seats import Seat, clean_name, hash_token
from pigdice.web.store import GameAheadError, GameClosedError, MoveRecord, MoveWrite, faults

log = logging.getLogger("pigdice.web")

RECENT_EVENTS = 120  # events a welcome carries (the latest); older ones are sent a page at a time on request
WATCHERS_BURST_SECONDS = 0.25  # spectators coming and going within this are told to everyone in one message


def played_at(created_at: float | None) -> str | None:
    """Return when a game was played as ISO 8601 text (UTC, to the second), or None if not known."""
    if created_at is None:
        return None
    return datetime.fromtimestamp(created_at, UTC).isoformat(timespec="seconds")


def robot_rng(seed: int, step: int) -> np.random.Generator:
    """Return a generator for the robots of a room (separate from the dice), seeded from the seed and the step."""
    return np.random.default_rng([seed, step, 7])


@dataclass(frozen=True)
class GameRequest:
    """What a room is asked to play: the variant by name, its goal, ending, tie rule, final turn and parameters."""

    variant: str
    goal: int | None = None
    endgame: str | None = None
    ties: str | None = None
    final_turn: str | None = None
    params: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Timing:
    """How fast a room moves: robots' delay, a person's time per decision, and when a seat counts as left."""

    robot_delay: float = 0.0  # seconds before each robot action
    turn_seconds: float = 0.0  # online rooms: a person's time per decision, then the turn passes (0: no timer)
    skips_to_free_seat: int = 3  # timeouts in a row after which the seat opens for someone else
    away_seconds: float = 60.0  # online rooms: a person disconnected this long may be left behind (claimed)


class RoomStorage(Protocol):
    """Where a room writes what must survive a restart: its moves, the seats people claim, a game called off."""

    async def write_moves(self, moves: list[MoveWrite]) -> None:
        """Store one or more consecutive moves durably, all or none (raise if they could not be stored)."""

    async def claim_seat(self, game_id: int, seat: int, name: str, token_hash: str) -> bool:
        """Store a claimed open seat; return False if someone took it meanwhile."""

    async def free_seat(self, game_id: int, seat: int) -> None:
        """Store that a person's seat is open again (raise if it could not be stored)."""

    async def abort_game(self, code: str, reason: str) -> bool:
        """Store that a game was called off before it began; return False if it was not active."""


@dataclass
class Room:
    """A live game: variant, seats, state, the dice generator, the event history and connections."""

    code: str
    game_id: int
    variant: Variant
    request: GameRequest  # what the room was created with (its rematch asks for the same)
    seed: int
    seats: list[Seat]
    state: GameState
    rng: np.random.Generator
    storage: RoomStorage
    timing: Timing = field(default_factory=Timing)
    history: list[tuple[int, Event]] = field(default_factory=list)  # (step, event)
    actions: list[str] = field(default_factory=list)
    connections: set[Connection] = field(default_factory=set)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    robot_task: asyncio.Task[None] | None = None
    last_active: float = field(default_factory=time.monotonic)
    replay_mismatch: bool = False
    robot_rng: np.random.Generator | None = None  # robots' own generator (their moves are logged as actions)
    preparing: bool = False  # the perfect player is being solved (its robots wait; shown to players)
    closed: str | None = None  # why the room takes no more moves (expired, aborted), or None while it is open
    aborted: bool = False  # the game was called off before it began (``closed`` says by whom)
    salt: str | None = None  # the dice commitment's secret salt (None: a game from before commitments)
    created_at: float | None = None  # when the game was created (epoch seconds): the date it was played
    skips: dict[int, int] = field(default_factory=dict)  # seat -> timeouts in a row
    timer: asyncio.Task[None] | None = None
    deadline: float | None = None  # when the current person's time runs out (epoch seconds), if a timer runs
    timer_moment: tuple[int, ...] | None = None  # the moment (``moment()``) the running clock is for
    choices: dict[int, Move] = field(default_factory=dict)  # this moment's choices, hidden until all are in (memory)
    person_moved: bool = False  # a person has made a decision (rolled, held, chosen): the game can no longer abort
    freed: set[int] = field(default_factory=set)  # seats opened during the game (their holder timed out)
    claims: dict[int, int] = field(default_factory=dict)  # a seat left behind -> the seat that claimed it
    away: dict[int, float] = field(default_factory=dict)  # a person's seat -> when its last connection closed
    away_timers: dict[int, asyncio.Task[None]] = field(default_factory=dict)  # tell everyone when a seat has left
    rematch: Rematch = field(default_factory=Rematch)
    watchers_news: OncePerBurst = field(default_factory=lambda: OncePerBurst(WATCHERS_BURST_SECONDS))
    # the welcome's latest events as JSON text and what they were encoded for (``welcome_text``)
    welcome_events: tuple[tuple[Any, ...], str] | None = field(default=None, repr=False)

    # -- views ---------------------------------------------------------------------------
    @property
    def names(self) -> list[str]:
        """Return the seat names in seat order."""
        return [s.name for s in self.seats]

    @property
    def started(self) -> bool:
        """Return True once every seat is taken (robots wait until then); a seat out of the game needs nobody."""
        return all(s.is_taken or s.index in self.state.resigned for s in self.seats)

    @functools.cached_property
    def is_online(self) -> bool:
        """Return True if people play from different places (a seat was opened for a friend): turns are timed."""
        return any(s.kind == "human" and s.spec == "friend" for s in self.seats)

    @functools.cached_property
    def commitment(self) -> str | None:
        """Return the dice commitment published before the first roll (None for a game from before them)."""
        return None if self.salt is None else commitment_digest(self.seed, self.salt)

    @functools.cached_property
    def played_at(self) -> str | None:
        """Return when the game was played, as ISO 8601 text (None if not known)."""
        return played_at(self.created_at)

    @property
    def step(self) -> int:
        """Return the number of actions played so far."""
        return self.state.step

    @property
    def is_group(self) -> bool:
        """Return True for a game whose standing players choose at the same time (Swine Herd)."""
        return self.variant.is_simultaneous

    def choosing(self) -> list[int]:
        """Return the seats that choose now: in Swine Herd every standing seat still to decide on this roll (a
        game stored one seat at a time by an older server: not those before the mover), elsewhere the player to
        move (none once the game is over)."""
        return choosing_seats(self.state)

    def to_choose(self) -> list[int]:
        """Return the seats of this moment that have not chosen yet."""
        return [seat for seat in self.choosing() if seat not in self.choices]

    def moment(self) -> tuple[int, ...]:
        """Return what identifies the decision the game waits for: a Swine Herd moment (turn and roll; a
        resignation does not end it), else the step."""
        state = self.state
        return (state.turn, state.rolls_this_turn) if self.is_group else (state.step,)

    def rules_stand(self) -> bool:
        """Return True if, in Swine Herd, the rules leave no choice now (everyone stands for a turn's first roll)."""
        return rules_stand(self.state)

    def events_json(self, items: list[tuple[int, Event]]) -> list[dict[str, Any]]:
        """Return ``(step, event)`` pairs for clients: fields, step and a line of text (``pigdice.web.lines``)."""
        return events_for_clients(items, self.names, self.claims)

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
                "commitment": self.commitment,
                "salt": self.salt if state.is_terminal() else None,
                "preparing": self.preparing,
                "closed": self.closed,
                "spectators": self.spectators,
                "deadline": self.deadline,
                "turn_seconds": self.timing.turn_seconds if self.is_online else None,
                # who chooses now; in Swine Herd, which of them have chosen (their choices stay hidden until all have)
                "choosing": self.choosing(),
                "chosen": sorted(self.choices),
                "to_choose": self.to_choose(),
                # leaving: seats whose holder left (since when), those the others may now claim, claims made
                "away": {str(seat): since for seat, since in self.away.items()},
                "away_seconds": self.timing.away_seconds if self.is_online else None,
                "left_behind": self.left_behind(),
                "claims": {str(seat): by for seat, by in self.claims.items()},
                "freed": sorted(self.freed),
                "can_abort": self.can_abort(),
                "aborted": self.aborted,
                "rematch": self.rematch.to_json(self.seats, self.claims),
                "played_at": self.played_at,
            }
        )
        return data

    # -- leaving (the rules are pigdice.web.leaving's) --------------------------------------
    def can_abort(self) -> bool:
        """Return True while the game can be called off: open, not over, and no person has made a decision yet."""
        return self.closed is None and not self.state.is_terminal() and not self.person_moved

    def left_behind(self, now: float | None = None) -> list[int]:
        """Return the seats the others may claim now: a person away past the grace period, or a seat opened after
        timeouts, in a running online game (a person still connected never is)."""
        state = self.state
        if self.closed is not None or state.is_terminal() or not self.is_online:
            return []
        now = time.time() if now is None else now
        connected = self.connected_seats()
        seats = []
        for seat in self.seats:
            index = seat.index
            if seat.is_robot or index in state.resigned or index in connected:
                continue
            opened = index in self.freed and not seat.is_taken
            gone = index in self.away and now - self.away[index] >= self.timing.away_seconds
            if opened or gone:
                seats.append(index)
        return seats

    def stop_grace_timers(self) -> None:
        """Cancel every grace-period timer of the room (it closes or leaves memory)."""
        for timer in self.away_timers.values():
            timer.cancel()
        self.away_timers.clear()

    @property
    def spectators(self) -> int:
        """Return how many connections watch without holding a seat."""
        return sum(1 for conn in self.connections if not conn.seats)

    def broadcast_watchers(self) -> None:
        """Tell everyone how many are watching, once per burst of spectators coming or going (``OncePerBurst``)."""
        self.watchers_news.request(lambda: self.broadcast({"type": "watchers", "spectators": self.spectators}))

    def game_record(self) -> GameRecord:
        """Return the room's game as a record: the seed and salt only once the game is over."""
        return self.record_order().record()

    def record_order(self) -> RecordOrder:
        """Return what rebuilds the room's record, in this process or a worker (``pigdice.web.longjobs``)."""
        seats = tuple(SeatEntry(s.name, s.spec, s.kind) for s in self.seats)
        finished = self.state.is_terminal()
        commitment = None
        if self.salt is not None:  # the salt stays secret, like the seed, until the end
            commitment = Commitment(self.salt if finished else None, commitment_digest(self.seed, self.salt))
        actions = "\n".join(self.actions)  # one string: a worker receives it at the cost of a copy
        return RecordOrder(self.variant, seats, self.seed, actions, commitment, finished, self.code, self.played_at)

    def welcome(self) -> dict[str, Any]:
        """Return the first message of a connection: the full state and the latest ``RECENT_EVENTS`` events;
        ``earlier`` counts the events before them (``history_page`` sends them on request)."""
        return {"type": "welcome", "state": self.snapshot(), **self.history_page(len(self.history))}

    def welcome_text(self) -> str:
        """Return ``welcome()`` as JSON text, its events encoded once per move, not once per connection (50 visitors
        opening a room at once cost the event loop 50 encodings of 120 events with their lines)."""
        key = (len(self.history), tuple(self.names), tuple(self.claims.items()))
        if self.welcome_events is None or self.welcome_events[0] != key:
            page = self.history_page(len(self.history))
            self.welcome_events = (key, f'"events":{dumps(page["events"])},"earlier":{page["earlier"]}')
        return f'{{"type":"welcome","state":{dumps(self.snapshot())},{self.welcome_events[1]}}}'

    def history_page(self, before: int, size: int = RECENT_EVENTS) -> dict[str, Any]:
        """Return the ``size`` events before event number ``before`` (0 is the first) and how many are earlier:
        a game of 100,000 moves is sent a page at a time, never whole."""
        end = max(0, min(before, len(self.history)))
        start = max(0, end - size)
        following = end
        while following < len(self.history) and self.history[following][0] == self.history[end - 1][0]:
            following += 1  # an event's line may read the rest of its move (the house rule, a claim that ends it)
        events = self.events_json(self.history[start:following])[: end - start] if end else []
        return {"events": events, "earlier": start}

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
            self.freed.discard(seat.index)
            self.touch()
            self.arm_timer()
            self.broadcast({"type": "seats", "state": self.snapshot()})
        self.kick_robots()
        return seat, token

    # -- actions -------------------------------------------------------------------------
    async def act(self, index: int, token: str, action_text: str, expected_step: int) -> dict[str, Any]:
        """Take a person's choice for seat ``index`` (hidden until everyone of the moment has chosen); return the
        update."""
        async with self.lock:
            self.authorize(index, token)
            self.check_open()
            if self.state.is_terminal():
                raise WebError("game_over", "the game is over; offer a rematch or start a new game", 409)
            if not self.started:
                raise WebError("waiting_for_players", "the game starts when every seat is taken", 409)
            if expected_step != self.state.step:
                raise WebError(
                    "stale_step",
                    f"the game is at step {self.state.step}, not {expected_step}; your view was out of date",
                    409,
                )
            moved = self.person_moved  # a decision ends the time to call the game off: said with its update
            self.person_moved = moved or not self.rules_stand()  # the rules' first Swine Herd roll is nobody's
            try:
                update = await self._choose(index, action_text)
            except BaseException:
                self.person_moved = moved
                raise
            self.skips.pop(index, None)  # the person is back: their timeouts no longer count
        self.kick_robots()
        return update

    async def resign(self, index: int, token: str) -> dict[str, Any]:
        """Seat ``index`` resigns (at any moment): with one player left the game ends; return the update.

        In Swine Herd the seat leaves the moment too; if everyone else standing has chosen, the moment is
        revealed at once (a separate update)."""
        async with self.lock:
            self.authorize(index, token)
            self.check_open()
            if self.state.is_terminal():
                raise WebError("game_over", "the game is over", 409)
            if index in self.state.resigned:
                raise WebError("already_resigned", f"seat {index} has already resigned", 409)
            action = Resign(index)
            update = await self.play_locked(index, action)
            await self.reveal_if_complete()
        self.kick_robots()
        return update

    async def play_locked(self, index: int, action: Move) -> dict[str, Any]:
        """Apply, persist, then broadcast one move outside the moment's choices (a resignation, a claim; the
        caller holds the lock)."""
        saved = self.rng.bit_generator.state
        try:
            state, events = apply(self.state, action, self.rng)
        except IllegalActionError as exc:
            raise WebError("illegal_action", str(exc)) from None
        step = state.step
        stored = [event_to_json(ev) for ev in events]
        move = MoveWrite(
            self.game_id,
            step,
            index,
            str(action),
            stored,
            state.is_terminal(),
            None if state.winners is None else list(state.winners),
            to_move=None if state.is_terminal() else state.current,
        )
        await self._store([move], saved)
        before = self.moment()
        self.state = state
        self.actions.append(str(action))
        self.history.extend((step, ev) for ev in events)
        self._keep_choices(before)
        self.touch()
        self.arm_timer()  # before the snapshot: everyone is told the new deadline with the move
        update = {
            "type": "update",
            "step": step,
            "seat": index,
            "action": str(action),
            "events": self.events_json([(step, ev) for ev in events]),
            "state": self.snapshot(),
        }
        self.broadcast(update)
        return update

    async def _store(self, moves: list[MoveWrite], saved: Mapping[str, Any]) -> None:
        """Write moves before anyone sees them; if that fails, put the dice generator back to ``saved`` and refuse."""
        try:
            await self.storage.write_moves(moves)
        except GameClosedError as exc:
            self.rng.bit_generator.state = saved
            self.closed = exc.reason or f"the game is {exc.status}"
            raise WebError("room_closed", f"this game is closed: {self.closed}; start a new one", 410) from None
        except GameAheadError as exc:  # an earlier move reported failed was stored after all: read it back
            self.rng.bit_generator.state = saved
            self.catch_up(exc.moves)
            raise WebError("stale_step", f"the game moved on to step {self.state.step}; look again", 409) from None
        except Exception as exc:
            self.rng.bit_generator.state = saved  # nothing happened: the dice are rolled again next time
            message = f"the move could not be saved ({type(exc).__name__}); try again"
            raise WebError("storage_failed", message, 503) from None

    def catch_up(self, moves: list[MoveRecord]) -> None:
        """Play the stored ``moves`` that follow the room's step (the database's word is final) and tell everyone."""
        played: list[tuple[int, Event]] = []
        before = self.moment()
        for move in moves:
            if move.step != self.state.step + 1:
                break
            self.state, events = apply(self.state, parse_move(move.action), self.rng)
            self.actions.append(move.action)
            played.extend((self.state.step, ev) for ev in events)
        if not played:
            return
        log.warning("room %s: read back %d stored moves (to step %d)", self.code, len(moves), self.state.step)
        self.history.extend(played)
        self._keep_choices(before)
        self.arm_timer()
        self.broadcast(
            {
                "type": "update",
                "step": self.state.step,
                "seat": None,
                "action": None,
                "events": self.events_json(played),
                "state": self.snapshot(),
            }
        )

    # -- moments: the seats that choose now, their choices, then all applied at once --------------
    def _keep_choices(self, before: tuple[int, ...]) -> None:
        """After a move outside the moment's choices (a resignation), keep the hidden choices that still stand:
        none once the moment is over (the turn ended, a die was rolled, the game ended), else those of the
        seats still choosing."""
        if not self.choices:
            return
        if self.state.is_terminal() or self.moment() != before:
            self.choices = {}
            return
        choosing = set(self.choosing())
        self.choices = {seat: action for seat, action in self.choices.items() if seat in choosing}

    async def _choose(self, index: int, action_text: str) -> dict[str, Any]:
        """Take seat ``index``'s choice for this moment (the caller holds the lock and has checked the token and
        the step); play the moment once every seat of it has chosen. Return what was broadcast (while others are
        still to choose, the chooser's own choice added)."""
        if index not in self.to_choose():
            raise self._refusal(index)
        try:
            action = parse_action(action_text)
        except IllegalActionError as exc:
            raise WebError("illegal_action", str(exc)) from None
        self._check_choice(index, action)
        self.choices[index] = action
        if self.to_choose():
            self.arm_timer()  # the clock runs on for those who have not chosen (it stops if no person is left)
            return {**self._tell_chosen([index]), "action": str(action)}
        try:
            return await self._reveal()
        except WebError:
            self.choices.pop(index, None)  # nothing was played: the person may send their choice again
            raise

    def _refusal(self, index: int) -> WebError:
        """Return why seat ``index`` has no choice to make now: another's turn or, in Swine Herd, it resigned,
        chose already or sat down."""
        state = self.state
        if not self.is_group:
            who = self.seats[state.current].name
            return WebError("not_your_turn", f"it is {who}'s turn, not seat {index}'s", 409)
        name = self.seats[index].name
        if index in state.resigned:
            return WebError("resigned", f"{name}: resigned, so no longer takes part in the game", 409)
        if state.standing[index]:
            return WebError(
                "already_chosen",
                f"{name}: already chose for this roll; a choice is final, and all are shown once everyone has chosen",
                409,
            )
        return WebError("seated", f"{name}: sat down this turn, so waits for the others to finish it", 409)

    def _check_choice(self, index: int, action: Move) -> None:
        """Raise illegal_action unless ``action`` is a choice seat ``index`` may make now (checked by the engine)."""
        if isinstance(action, Hold) and self.rules_stand():
            nothing = "there is nothing to sit down with yet: everyone stands for the first roll"
            raise WebError("illegal_action", nothing)
        try:  # the engine's own check with a throwaway generator (the engine returns new states): nothing is kept
            apply(seat_view(self.state, index), action, np.random.default_rng(0))
        except IllegalActionError as exc:
            raise WebError("illegal_action", str(exc)) from None

    def _tell_chosen(self, seats: list[int]) -> dict[str, Any]:
        """Tell everyone that ``seats`` have chosen (not what); return the message."""
        message = {"type": "chosen", "seats": seats, "state": self.snapshot()}
        self.broadcast(message)
        return message

    async def _reveal(self) -> dict[str, Any]:
        """Apply every choice of the moment in seat order (the engine's), store them as one move per seat, all or
        none, then tell everyone at once; return the update (the caller holds the lock)."""
        choices = {seat: self.choices[seat] for seat in self.choosing()}
        saved = self.rng.bit_generator.state
        try:
            played = apply_each_choice(self.state, choices, self.rng)  # type: ignore[arg-type]
        except IllegalActionError as exc:
            self.rng.bit_generator.state = saved
            raise WebError("illegal_action", str(exc)) from None
        moves = [
            MoveWrite(
                self.game_id,
                step.state.step,
                step.seat,
                str(step.choice),
                [event_to_json(ev) for ev in step.events],
                step.state.is_terminal(),
                None if step.state.winners is None else list(step.state.winners),
                to_move=None if step.state.is_terminal() else step.state.current,
            )
            for step in played
        ]
        await self._store(moves, saved)
        self.state = played[-1].state
        self.choices = {}
        self.actions.extend(move.action for move in moves)
        for step in played:
            self.history.extend((step.state.step, ev) for ev in step.events)
        self.touch()
        self.arm_timer()  # before the snapshot: everyone is told the new moment's deadline with the reveal
        update = self._moment_update(moves, [(step.state.step, ev) for step in played for ev in step.events])
        self.broadcast(update)
        return update

    def _moment_update(self, moves: list[MoveWrite], events: list[tuple[int, Event]]) -> dict[str, Any]:
        """Return the update that shows a moment just played: the mover's move or, in Swine Herd, every choice."""
        update: dict[str, Any] = {"type": "update", "step": self.state.step}
        if self.is_group:  # everyone who stood chose: see "choices"
            choices = [{"seat": move.seat, "action": move.action, "step": move.step} for move in moves]
            update.update({"seat": None, "action": None, "choices": choices})
        else:
            [move] = moves
            update.update({"seat": move.seat, "action": move.action})
        update.update({"events": self.events_json(events), "state": self.snapshot()})
        return update

    def moment_complete(self) -> bool:
        """Return True if every seat of the moment has chosen but the moment is not played yet (its store failed,
        or the last seat of a Swine Herd moment left it)."""
        return bool(self.choices) and not self.to_choose() and not self.state.is_terminal()

    async def reveal_if_complete(self) -> None:
        """Reveal a moment whose last seat left it (resigned or timed out); if that cannot be stored now, the
        robot loop tries again (the caller holds the lock and kicks the robots)."""
        if not self.moment_complete() or not self.started or self.closed is not None:
            return
        try:
            await self._reveal()
        except WebError as exc:
            log.error("room %s: the moment could not be revealed yet: %s", self.code, exc)

    # -- the turn timer --------------------------------------------------------------------
    def timed_seats(self) -> list[int]:
        """Return the people the clock runs for now in an online room: the person to move or, in Swine Herd,
        everyone standing who has not chosen (nobody while the rules leave no choice)."""
        if not self.timing.turn_seconds or not self.is_online or not self.started or self.closed is not None:
            return []
        if self.state.is_terminal() or self.rules_stand():
            return []
        return [seat for seat in self.to_choose() if not self.seats[seat].is_robot]

    def arm_timer(self) -> None:
        """(Re)start the clock in an online room; stop it where nobody is to be waited for. In Swine Herd the
        moment's clock keeps running while people are still to choose (one deadline for all of them)."""
        timer = self.timer
        current = asyncio.current_task()
        waiting = self.timed_seats()
        if waiting and self._clock_runs_on():
            return
        if timer is not None and timer is not current:
            timer.cancel()
        self.timer = None
        self.deadline = None
        self.timer_moment = None
        if not waiting:
            return
        self.deadline = time.time() + self.timing.turn_seconds
        self.timer_moment = self.moment()
        self.timer = asyncio.create_task(self._time_out(self.moment()))

    def _clock_runs_on(self) -> bool:
        """Return True if the running clock is this moment's and keeps its deadline: in Swine Herd one deadline
        holds for everyone choosing (a turn-based game's clock starts afresh at every call)."""
        timer = self.timer
        if not self.is_group or timer is None or timer.done() or timer is asyncio.current_task():
            return False
        return self.timer_moment == self.moment()

    async def _time_out(self, moment: tuple[int, ...]) -> None:
        """After ``turn_seconds`` without a choice, every person of the moment who has not chosen passes (the
        turn passes; in Swine Herd they sit down with nothing); after repeated timeouts in a row, open the seat."""
        await asyncio.sleep(self.timing.turn_seconds)
        async with self.lock:
            if self.moment() != moment or self.state.is_terminal() or self.closed is not None:
                return
            late = self.timed_seats()
            if not late:
                return
            for seat in late:
                self.choices[seat] = Pass()
            if self.to_choose():  # robots not ready yet (their perfect player is being solved)
                self.arm_timer()
                self._tell_chosen(late)
            else:
                await self.reveal_if_complete()  # if that cannot be stored now, the robot loop tries again
            for seat in late:
                await self._skipped(seat)
        self.kick_robots()

    async def _skipped(self, index: int) -> None:
        """Count a timeout of seat ``index``; after ``skips_to_free_seat`` in a row, open the seat for someone else."""
        seat = self.seats[index]
        self.skips[index] = self.skips.get(index, 0) + 1
        if self.skips[index] < self.timing.skips_to_free_seat or seat.token_hash is None:
            return
        try:
            await self.storage.free_seat(self.game_id, index)
        except Exception:
            log.exception("room %s: could not open seat %s", self.code, index)
            return
        seat.token_hash = None
        self.skips.pop(index, None)
        self.freed.add(index)
        self.away.pop(index, None)
        for conn in self.connections:  # the seat's old holder no longer holds it (their page is told why)
            conn.seats.discard(index)
        self.arm_timer()  # the game now waits for someone to take the seat, or for the others to claim it
        reason = f"{seat.name} ran out of time {self.timing.skips_to_free_seat} times in a row"
        self.broadcast({"type": "seats", "state": self.snapshot(), "freed": index, "reason": reason})

    # -- robots --------------------------------------------------------------------------
    def _robot_ready(self, seat: Seat) -> bool:
        """Return True unless the robot is a perfect player whose policy is still being solved."""
        strategy = seat.strategy
        return not isinstance(strategy, Optimal) or strategy.is_ready_for(self.state.players)

    def server_choosers(self) -> list[int]:
        """Return the seats of the moment the server chooses for now: its robots that are ready and, when the
        rules leave no choice (everyone stands for a Swine Herd turn's first roll), everyone."""
        if self.state.is_terminal() or not self.started or self.closed is not None:
            return []
        if self.rules_stand():
            return self.to_choose()
        return [s for s in self.to_choose() if self.seats[s].is_robot and self._robot_ready(self.seats[s])]

    def robot_work(self) -> bool:
        """Return True if the robot loop has something to do: choices the server makes, or a complete moment
        whose store failed."""
        return bool(self.server_choosers()) or (self.moment_complete() and self.started and not self.closed)

    @property
    def robots_only(self) -> bool:
        """Return True if every seat is a robot (nobody plays: such rooms are capped and expire)."""
        return all(s.is_robot for s in self.seats)

    def stop_robots(self) -> None:
        """Cancel the robot loop, the turn timer and the grace timers, if they run (the room closes or leaves
        memory)."""
        self.stop_grace_timers()
        if self.robot_task is not None and not self.robot_task.done():
            self.robot_task.cancel()
        if self.timer is not None and not self.timer.done():
            self.timer.cancel()
        self.timer = None
        self.deadline = None
        self.timer_moment = None

    def kick_robots(self) -> None:
        """Start the robot loop if it has something to do and none is running."""
        if not self.robot_work():
            return
        if self.robot_task is None or self.robot_task.done():
            self.robot_task = asyncio.create_task(self._robots())

    async def _robots(self) -> None:
        """While the server has choices to make, make them every ``robot_delay`` seconds: every robot of the
        moment chooses at once, each on the moment's state as it is."""
        delay = self.timing.robot_delay
        while self.robot_work():
            await asyncio.sleep(delay)
            async with self.lock:
                try:
                    await self._server_choose()
                    continue
                except WebError as exc:
                    if exc.code == "stale_step":
                        continue  # the room read back moves stored after all: choose again
                    faults(f"robots {exc.code}", "room %s: the robots' choices failed: %s", self.code, exc)
                    if exc.code != "storage_failed":
                        return
                except Exception:
                    log.exception("room %s: the robots' choices failed", self.code)
                    return
            await asyncio.sleep(1.0)  # storage failed: try again (the choices are kept)

    async def _server_choose(self) -> None:
        """Make the choices the server makes now (robots, each on ``seat_view``: no choice of this moment is
        visible to them; everyone's when the rules leave no choice), then play the moment if all have chosen
        (the caller holds the lock)."""
        seats = self.server_choosers()
        if seats:
            if self.robot_rng is None:
                self.robot_rng = robot_rng(self.seed, self.state.step)
            stand = self.rules_stand()
            for index in seats:
                strategy = self.seats[index].strategy
                if stand or strategy is None:
                    self.choices[index] = Roll()
                else:
                    self.choices[index] = strategy.choose(seat_view(self.state, index), self.robot_rng)
        if self.to_choose():
            if seats:
                self.arm_timer()
                self._tell_chosen(seats)
            return
        if self.moment_complete():
            await self._reveal()
