"""Rooms: one game each, with seats, secret tokens, robots, live connections and a per-room lock.

Every action goes through ``Room.act`` (people) or the robot loop, both under the room's
``asyncio.Lock``: check the token and the expected step, apply the action with the server's
dice, write the move to the database, and only then push it to every connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging
import re
import secrets
import threading
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

import numpy as np

from pigdice.errors import IllegalActionError, PigdiceError
from pigdice.events import Event, describe_event, event_to_json
from pigdice.game import GameState, apply, new_game, parse_action
from pigdice.rules.registry import find_variant
from pigdice.rules.variant import Decision, Variant
from pigdice.strategies import Human, Strategy, parse_strategy
from pigdice.web.config import Settings
from pigdice.web.store import GameRecord, MoveWrite, SeatRecord, Store, StoreError

log = logging.getLogger("pigdice.web")

CODE_RE = re.compile(r"^[A-Za-z0-9_-]{8,64}$")
ROBOT_NAMES = ("Wilbur", "Babe", "Hamlet", "Truffle", "Porkchop", "Snout", "Trotter", "Oinkers", "Hamm", "Curly")
OPEN_WORDS = ("friend", "open", "human", "person", "guest")
YOU_WORDS = ("you", "me")
MAX_NAME = 24
MAX_BATCH = 500  # moves written in one transaction at most

T = TypeVar("T")


class WebError(PigdiceError):
    """A request the server refuses, with a machine-readable code and an HTTP status."""

    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        self.status = status

    def to_json(self) -> dict[str, Any]:
        """Return the error as the JSON body clients receive."""
        return {"code": self.code, "message": str(self)}


def hash_token(token: str) -> str:
    """Return the SHA-256 hex digest under which a seat token is stored."""
    return hashlib.sha256(token.encode()).hexdigest()


def new_code() -> str:
    """Return a fresh room code that cannot be guessed (72 random bits)."""
    return secrets.token_urlsafe(9)


def clean_name(name: str | None, fallback: str) -> str:
    """Return a display name: printable, trimmed to 24 characters, or ``fallback``."""
    if not name:
        return fallback
    text = " ".join("".join(ch for ch in name if ch.isprintable()).split())[:MAX_NAME]
    return text or fallback


# -- seats ------------------------------------------------------------------------------------
@dataclass
class Seat:
    """One seat: a person (open until someone takes it) or a robot."""

    index: int
    kind: Literal["human", "robot"]
    spec: str
    name: str
    token_hash: str | None = None
    strategy: Strategy | None = None

    @property
    def is_robot(self) -> bool:
        """Return True for a robot seat."""
        return self.kind == "robot"

    @property
    def is_taken(self) -> bool:
        """Return True once a person holds the seat (robots always do)."""
        return self.is_robot or self.token_hash is not None

    def check_token(self, token: str) -> bool:
        """Return True if ``token`` is this seat's secret (constant-time compare)."""
        return self.token_hash is not None and hmac.compare_digest(self.token_hash, hash_token(token))

    def public(self, connected: bool) -> dict[str, Any]:
        """Return what everyone may know about the seat (never the token)."""
        return {
            "seat": self.index,
            "kind": self.kind,
            "spec": self.spec,
            "name": self.name,
            "taken": self.is_taken,
            "connected": connected or self.is_robot,
        }


@dataclass
class SeatPlan:
    """A seat as requested when a room is created."""

    kind: Literal["human", "robot"]
    spec: str
    name: str
    mine: bool = False  # the creator takes it at once (hot-seat: several may be the creator's)
    strategy: Strategy | None = None


def plan_seats(specs: list[str], variant: Variant, your_name: str | None) -> list[SeatPlan]:
    """Turn player specs (you, friend, human:NAME, hold:20, optimal, ...) into seats; raise on bad specs."""
    plans: list[SeatPlan] = []
    robots = 0
    yours = sum(1 for s in specs if s.strip().lower() in YOU_WORDS)
    for number, raw in enumerate(specs, start=1):
        spec = raw.strip()
        word = spec.lower()
        if not spec:
            raise WebError("bad_strategy", f"player {number} is empty; use you, friend or a robot like hold:20")
        if word in YOU_WORDS:
            base = clean_name(your_name, "You")
            name = base if yours == 1 else f"{base} {sum(1 for p in plans if p.mine) + 1}"
            plans.append(SeatPlan("human", "you", name, mine=True))
            continue
        if word in OPEN_WORDS:
            plans.append(SeatPlan("human", "friend", f"Player {number}"))
            continue
        try:
            strategy = parse_strategy(spec, variant)
        except PigdiceError as exc:
            raise WebError("bad_strategy", f"player {number}: {exc}") from None
        if isinstance(strategy, Human):
            plans.append(SeatPlan("human", "friend", clean_name(strategy.label, f"Player {number}")))
            continue
        name = f"{ROBOT_NAMES[robots % len(ROBOT_NAMES)]} ({strategy.name})"
        robots += 1
        plans.append(SeatPlan("robot", strategy.name, name, strategy=strategy))
    if not plans:
        raise WebError("bad_strategy", "a game needs players: e.g. you, hold:20")
    try:
        variant.check_players(len(plans))
    except PigdiceError as exc:
        raise WebError("bad_players", str(exc)) from None
    return plans


# -- live connections -------------------------------------------------------------------------
class TokenBucket:
    """A token bucket: ``rate`` messages per second on average, bursts up to ``burst``."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.stamp = time.monotonic()

    def allow(self) -> bool:
        """Take one token if there is one; return whether the message may pass."""
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


class Connection:
    """One websocket: an outgoing queue drained by its own task, so a slow reader never blocks a room."""

    def __init__(self, send_text: Callable[[str], Awaitable[None]], max_queue: int = 1000) -> None:
        self._send_text = send_text
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(max_queue)
        self.seats: set[int] = set()  # seats this connection proved it holds
        self.closed = False
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start the task that writes queued messages to the socket."""
        self.task = asyncio.create_task(self._drain())

    async def _drain(self) -> None:
        while True:
            text = await self.queue.get()
            if text is None:
                return
            try:
                await self._send_text(text)
            except Exception:  # the peer went away; the reader loop notices and cleans up
                self.closed = True
                return

    def send(self, text: str) -> None:
        """Queue a message; a connection that falls 1000 messages behind is dropped."""
        if self.closed:
            return
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            self.closed = True

    async def stop(self) -> None:
        """Stop the writer task after it has sent what is queued."""
        self.closed = True
        if self.task is not None:
            with contextlib.suppress(asyncio.QueueFull):
                self.queue.put_nowait(None)
            try:
                await asyncio.wait_for(self.task, 2)
            except (TimeoutError, asyncio.CancelledError):
                self.task.cancel()


# -- the room ---------------------------------------------------------------------------------
def robot_rng(seed: int, step: int) -> np.random.Generator:
    """Return a generator for the robots of a room (separate from the dice), seeded from the seed and the step."""
    return np.random.default_rng([seed, step, 7])


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
    manager: RoomManager
    history: list[tuple[int, Event]] = field(default_factory=list)  # (step, event)
    actions: list[str] = field(default_factory=list)
    connections: set[Connection] = field(default_factory=set)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    robot_task: asyncio.Task[None] | None = None
    last_active: float = field(default_factory=time.monotonic)
    replay_mismatch: bool = False
    robot_rng: np.random.Generator | None = None  # robots' own generator (their moves are logged as actions)

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
                "seed": self.seed if state.is_terminal() else None,
            }
        )
        return data

    def welcome(self) -> dict[str, Any]:
        """Return the first message of a connection: full state and the full event history."""
        return {
            "type": "welcome",
            "state": self.snapshot(),
            "events": [self.event_json(step, ev) for step, ev in self.history],
        }

    def broadcast(self, message: dict[str, Any]) -> None:
        """Queue ``message`` for every connection of the room."""
        text = _dumps(message)
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

    async def join(self, index: int | None, name: str | None) -> tuple[Seat, str]:
        """Take an open seat (the first open one if ``index`` is None); return it and its new token."""
        async with self.lock:
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
            claimed = await self.manager.db(self.manager.store.claim_seat, self.game_id, seat.index, new_name, digest)
            if not claimed:
                raise WebError("seat_taken", f"seat {seat.index} was just taken", 409)
            seat.token_hash = digest
            seat.name = new_name
            self.touch()
            self.broadcast({"type": "seats", "state": self.snapshot()})
        self.kick_robots()
        return seat, token

    # -- actions -------------------------------------------------------------------------
    async def act(self, index: int, token: str, action_text: str, expected_step: int) -> dict[str, Any]:
        """Play a person's action for seat ``index``; return the update that was broadcast."""
        async with self.lock:
            self.authorize(index, token)
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
            await self.manager.write_move(
                MoveWrite(
                    self.game_id,
                    step,
                    index,
                    str(action),
                    events_json,
                    state.is_terminal(),
                    None if state.winners is None else list(state.winners),
                )
            )
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
        return update

    # -- robots --------------------------------------------------------------------------
    def robot_to_move(self) -> Seat | None:
        """Return the robot seat whose move it is, if any (and the game has started)."""
        if self.state.is_terminal() or not self.started:
            return None
        seat = self.seats[self.state.current]
        return seat if seat.is_robot else None

    def kick_robots(self) -> None:
        """Start the robot loop if a robot is to move and none is running."""
        if self.robot_to_move() is None:
            return
        if self.robot_task is None or self.robot_task.done():
            self.robot_task = asyncio.create_task(self._robots())

    async def _robots(self) -> None:
        delay = self.manager.settings.robot_delay
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


def _dumps(message: dict[str, Any]) -> str:
    import json

    return json.dumps(message, separators=(",", ":"))


# -- the manager ------------------------------------------------------------------------------
_solve_lock = threading.Lock()


def warm_policy(variant: Variant) -> None:
    """Solve (or load) the perfect player's policy for ``variant``, one solve at a time."""
    from pigdice.solve.optimal import policy_variant
    from pigdice.solve.solver import solve

    with _solve_lock:
        solve(policy_variant(variant))


class RoomManager:
    """Creates rooms, finds them (loading from the database after a restart) and runs their robots."""

    def __init__(self, store: Store, settings: Settings) -> None:
        self.store = store
        self.settings = settings
        self.rooms: dict[str, Room] = {}
        self._loading: dict[str, asyncio.Lock] = {}
        # SQLite writes take well under a millisecond and group commit batches them: doing them on the event
        # loop beats a thread, whose GIL hand-offs (5 ms switch interval) would stall every batch under load
        self._inline = store.is_sqlite
        self._pending: list[tuple[MoveWrite, asyncio.Future[None]]] = []
        self._writer: asyncio.Task[None] | None = None
        self._executor = ThreadPoolExecutor(max_workers=1 if store.is_sqlite else 4, thread_name_prefix="pigdice-db")

    async def write_move(self, move: MoveWrite) -> None:
        """Store a move; moves of many rooms waiting at once are written in one transaction (group commit)."""
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending.append((move, future))
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._write_pending())
        await future

    async def _write_pending(self) -> None:
        """Write queued moves in batches until none are left."""
        while self._pending:
            batch, self._pending = self._pending[:MAX_BATCH], self._pending[MAX_BATCH:]
            try:
                await self.db(self.store.record_moves, [move for move, _ in batch])
                outcomes: list[BaseException | None] = [None] * len(batch)
            except Exception:
                outcomes = []
                for move, _ in batch:  # find the bad one(s); the others still get written
                    try:
                        await self.db(self.store.record_moves, [move])
                        outcomes.append(None)
                    except Exception as exc:
                        outcomes.append(exc)
            for (_, future), outcome in zip(batch, outcomes, strict=True):
                if future.done():
                    continue
                if outcome is None:
                    future.set_result(None)
                else:
                    future.set_exception(outcome)

    async def db(self, fn: Callable[..., T], *args: Any) -> T:
        """Run a database call: inline for SQLite, in a thread pool for server databases (PostgreSQL)."""
        if self._inline:
            return fn(*args)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, fn, *args)

    # -- create ----------------------------------------------------------------------------
    async def create(
        self, variant_name: str, goal: int | None, endgame: str | None, ties: str | None, final_turn: str | None,
        params: dict[str, Any], players: list[str], your_name: str | None,
    ) -> tuple[Room, dict[int, str]]:
        """Create a room; return it and the tokens of the seats the creator took ('you')."""
        try:
            variant = find_variant(variant_name, goal=goal, endgame=endgame, ties=ties, final_turn=final_turn, **params)
        except PigdiceError as exc:
            code = "unknown_variant" if type(exc).__name__ == "UnknownVariantError" else "bad_parameter"
            raise WebError(code, str(exc)) from None
        except TypeError as exc:
            raise WebError("bad_parameter", f"bad variant parameter: {exc}") from None
        plans = plan_seats(players, variant, your_name)
        if any(p.spec == "optimal" for p in plans) and variant.goal > self.settings.max_hint_goal:
            raise WebError(
                "bad_parameter",
                "the optimal robot needs a solved policy; this server solves goals up to "
                f"{self.settings.max_hint_goal}",
            )
        tokens: dict[int, str] = {}
        seats: list[Seat] = []
        for index, plan in enumerate(plans):
            seat = Seat(index, plan.kind, plan.spec, plan.name, strategy=plan.strategy)
            if plan.mine:
                tokens[index] = secrets.token_urlsafe(24)
                seat.token_hash = hash_token(tokens[index])
            seats.append(seat)
        await self._warm(seats, variant)
        request = {
            "variant": variant.name, "goal": variant.goal, "endgame": str(variant.endgame), "ties": str(variant.ties),
            "final_turn": str(variant.final_turn), "params": dict(params),
        }
        seed = secrets.randbelow(2**62)
        record = GameRecord(
            code=new_code(), variant=variant.name, goal=variant.goal, endgame=str(variant.endgame),
            ties=str(variant.ties), final_turn=str(variant.final_turn), params=dict(params),
            fingerprint=variant.fingerprint(), seed=seed,
            seats=[SeatRecord(s.index, s.kind, s.spec, s.name, s.token_hash) for s in seats],
        )
        game_id = await self.db(self.store.create_game, record)
        room = Room(
            code=record.code, game_id=game_id, variant=variant, request=request, seed=seed, seats=seats,
            state=new_game(variant, len(seats)), rng=np.random.default_rng(seed), manager=self,
        )
        self.rooms[room.code] = room
        self._evict()
        room.kick_robots()
        return room, tokens

    async def _warm(self, seats: list[Seat], variant: Variant) -> None:
        """Solve the perfect player's policy in a thread before an optimal robot needs it."""
        if any(s.spec == "optimal" for s in seats):
            await asyncio.to_thread(warm_policy, variant)

    # -- find / restore ----------------------------------------------------------------------
    async def get(self, code: str) -> Room:
        """Return the room with this code, loading and replaying it from the database if needed."""
        room = self.rooms.get(code)
        if room is not None:
            return room
        if not CODE_RE.match(code):
            raise WebError("unknown_room", "no room has that code", 404)
        lock = self._loading.setdefault(code, asyncio.Lock())
        async with lock:
            room = self.rooms.get(code)
            if room is None:
                record = await self.db(self.store.load_game, code)
                if record is None:
                    self._loading.pop(code, None)
                    raise WebError("unknown_room", "no room has that code", 404)
                room = await self._restore(record)
                self.rooms[code] = room
                self._evict()
        self._loading.pop(code, None)
        room.kick_robots()
        return room

    async def _restore(self, record: GameRecord) -> Room:
        """Rebuild a room by replaying its seed and action log (the dice generator continues exactly)."""
        try:
            variant = find_variant(
                record.variant, goal=record.goal, endgame=record.endgame, ties=record.ties,
                final_turn=record.final_turn, **record.params,
            )
        except PigdiceError as exc:
            raise WebError("broken_room", f"this room's variant cannot be rebuilt: {exc}", 500) from None
        seats: list[Seat] = []
        for s in record.seats:
            strategy = parse_strategy(s.spec, variant) if s.kind == "robot" else None
            kind: Literal["human", "robot"] = "robot" if s.kind == "robot" else "human"
            seats.append(Seat(s.seat, kind, s.spec, s.name, s.token_hash, strategy))
        await self._warm(seats, variant)
        rng = np.random.default_rng(record.seed)
        state = new_game(variant, len(seats))
        history: list[tuple[int, Event]] = []
        actions: list[str] = []
        mismatch = variant.fingerprint() != record.fingerprint
        for move in record.moves:
            state, events = apply(state, parse_action(move.action), rng)
            if [event_to_json(ev) for ev in events] != move.events:
                mismatch = True
            history.extend((move.step, ev) for ev in events)
            actions.append(move.action)
        if mismatch:
            log.warning("room %s: replaying the log does not give the stored events (rules changed?)", record.code)
        request = {
            "variant": record.variant, "goal": record.goal, "endgame": record.endgame, "ties": record.ties,
            "final_turn": record.final_turn, "params": record.params,
        }
        return Room(
            code=record.code, game_id=record.id, variant=variant, request=request, seed=record.seed, seats=seats,
            state=state, rng=rng, manager=self, history=history, actions=actions, replay_mismatch=mismatch,
        )

    async def resume_all(self) -> int:
        """Load every unfinished game so robots whose turn it is carry on; return how many were loaded."""
        codes = await self.db(self.store.unfinished_codes, self.settings.max_rooms_in_memory)
        loaded = 0
        for code in codes:
            try:
                await self.get(code)
                loaded += 1
            except (WebError, StoreError, PigdiceError) as exc:
                log.error("room %s could not be resumed: %s", code, exc)
        return loaded

    def _evict(self) -> None:
        """Forget the least recently used idle rooms when too many are in memory (they reload on demand)."""
        limit = self.settings.max_rooms_in_memory
        if len(self.rooms) <= limit:
            return
        idle = sorted(
            (r for r in self.rooms.values() if not r.connections and not r.lock.locked()
             and (r.robot_task is None or r.robot_task.done())),
            key=lambda r: r.last_active,
        )
        for room in idle[: len(self.rooms) - limit]:
            self.rooms.pop(room.code, None)

    async def close(self) -> None:
        """Stop robot tasks and the database threads."""
        tasks = [r.robot_task for r in self.rooms.values() if r.robot_task is not None and not r.robot_task.done()]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._executor.shutdown(wait=True)

    # -- hints --------------------------------------------------------------------------------
    async def hint(self, room: Room, seat_index: int) -> dict[str, Any]:
        """Return the perfect player's hint and the win chance of ``seat_index`` in the room's current state."""
        from pigdice.solve.optimal import approximation_note, hint_for_state

        state = room.state
        variant = room.variant
        if state.is_terminal():
            raise WebError("game_over", "the game is over", 409)
        if variant.goal > self.settings.max_hint_goal:
            raise WebError("no_hint", f"hints are available for goals up to {self.settings.max_hint_goal}", 409)
        await asyncio.to_thread(warm_policy, variant)
        hint = await asyncio.to_thread(hint_for_state, state)
        mine = state.current == seat_index
        win: float | None
        if mine:
            win = hint.win_probability
        elif state.players == 2 and variant.decision is not Decision.SIMULTANEOUS:
            win = 1.0 - hint.win_probability
        else:
            win = None
        note = hint.approximate or approximation_note(variant, state.players)
        return {
            "type": "hint",
            "step": state.step,
            "seat": seat_index,
            "your_turn": mine,
            "best": hint.best if mine else None,
            "values": hint.values if mine else None,
            "win_probability": win,
            "approximate": note,
        }
