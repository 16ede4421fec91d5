"""The room manager: creates rooms (and their follow-up games) within the server's bounds, finds them
(replaying them from the database after a restart, setting damaged ones aside), writes moves with group
commit, resumes robots in the background, closes idle rooms, and answers hints from the solve pool.

The perfect player (robots and hints) plays a room's game exactly where ``pigdice.solve.exact`` has a
solver for it and the solve fits ``Settings.max_exact_states``; otherwise it plays the 2-player
first-to-goal policy, approximately, and its hints say so.

Rooms do not know the manager: it hands each room itself as the room's ``RoomStorage``."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import secrets
import time
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Literal, TypeVar

import numpy as np

from pigdice.engine.events import Event, event_to_json
from pigdice.engine.game import apply, new_game, parse_move
from pigdice.engine.simultaneous import seat_view
from pigdice.errors import PigdiceError, UnknownVariantError
from pigdice.players.optimal import Optimal, approximation_note, in_play, position_of, seat_chances
from pigdice.rules.registry import find_variant, params_to_store, stored_params
from pigdice.rules.variant import Decision, Variant
from pigdice.solve.exact import ExactPolicy, FirstToGoalPolicy, exactness
from pigdice.solve.policy import Policy
from pigdice.solve.tables import effect_table
from pigdice.web.config import Settings
from pigdice.web.errors import WebError
from pigdice.web.limits import ClientRooms
from pigdice.web.rooms import Room
from pigdice.web.seats import CODE_RE, Seat, hash_token, new_code, parse_web_strategy, plan_seats
from pigdice.web.solving import SolvePool, exact_job_key
from pigdice.web.store import DamagedGameError, GameRecord, MoveWrite, SeatRecord, Store, StoreError

log = logging.getLogger("pigdice.web")

MAX_BATCH = 500  # moves written in one transaction at most
TRUNCATE_SECONDS = 60.0  # a large SQLite log is truncated at most this often (it pauses writers briefly)
RESUME_CHUNK = 10  # rooms resumed between two yields to the event loop (~20 ms of replay)
BUSY_RETRY_SECONDS = 30.0  # a room whose perfect player was refused (pool busy) asks again after this
MAX_FAILED_SOLVES = 1000  # exact solves that failed here, remembered so rooms play the approximation at once

T = TypeVar("T")


def optimal_seats(room: Room) -> list[Optimal]:
    """Return the perfect-player strategies of the room's robots."""
    return [s.strategy for s in room.seats if s.is_robot and isinstance(s.strategy, Optimal)]


def handed(policy: ExactPolicy) -> Policy | ExactPolicy:
    """Return what a perfect player is handed: the plain ``Policy`` of a 2-player first-to-goal solve (its
    approximations read that one), else the exact policy itself."""
    return policy.policy if isinstance(policy, FirstToGoalPolicy) else policy


@functools.lru_cache(maxsize=256)
def has_reset(variant: Variant) -> bool:
    """Return True if a roll of ``variant`` can reset a score (its exact solve then repeats passes)."""
    return effect_table(variant).has_reset


def tables_reach_far(variant: Variant) -> bool:
    """Return True if the exact solve of ``variant`` follows long totals past the goal: an ending (final round,
    equal turns) where the turn total can double or fall (Pig Dice), so the sweeps there are long and repeated."""
    from pigdice.rules.variant import Endgame

    return variant.endgame is not Endgame.FIRST_TO_GOAL and not effect_table(variant).monotone


def largest_exact_goal(max_states: int, players: int) -> int:
    """Return the largest goal whose exact solve for ``players`` players has at most ``max_states`` score tuples."""
    goal = round(max_states ** (1 / players))
    while goal > 0 and goal**players > max_states:
        goal -= 1
    while (goal + 1) ** players <= max_states:
        goal += 1
    return goal


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
        self._checkpointer: asyncio.Task[None] | None = None
        self._pending: list[tuple[list[MoveWrite], asyncio.Future[None]]] = []
        self._writer: asyncio.Task[None] | None = None
        self._executor = ThreadPoolExecutor(max_workers=1 if store.is_sqlite else 4, thread_name_prefix="pigdice-db")
        self.pool = SolvePool(settings.solve_workers, settings.max_solve_jobs)
        self.client_rooms = ClientRooms(settings.rooms_per_client, settings.client_window_seconds)
        self._ready: dict[str, asyncio.Task[Policy | ExactPolicy]] = {}  # room code -> its perfect player's solve
        self._exact_failed: dict[str, str] = {}  # exact job key -> why its solve failed here (oldest first)
        self._background: set[asyncio.Task[Any]] = set()
        self.resumed = 0  # rooms loaded at start-up so far (their robots carry on)
        self.quarantined = 0

    def start(self) -> None:
        """Start background work: SQLite checkpoints off the event loop, room expiry, the solve pool's worker."""
        if self.store.is_sqlite and self._checkpointer is None:
            self._checkpointer = asyncio.create_task(self._checkpoints())
        self._spawn(self._expire_rooms())
        if self.settings.warm_solver:
            self.pool.start()

    def _spawn(self, work: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        """Run ``work`` in the background, keeping a reference until it ends."""
        task = asyncio.create_task(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return task

    async def _checkpoints(self) -> None:
        """Checkpoint the SQLite log in the database thread, so its fsync never stalls a move.

        A passive checkpoint every few seconds never blocks a writer, but under a steady stream of moves the
        log is never rewound and grows without end (375 MB in 51 s, issue 9). So once the log passes
        ``wal_truncate_bytes`` a RESTART rewinds it (a 6-20 ms pause for writers, bench/wal_load.py), and at
        most once a minute a TRUNCATE gives the disk space back (~80-150 ms).
        """
        loop = asyncio.get_running_loop()
        last_truncate = time.monotonic()
        while True:
            await asyncio.sleep(self.settings.checkpoint_seconds)
            try:
                size = await loop.run_in_executor(self._executor, self.store.checkpoint, "PASSIVE")
                if size > self.settings.wal_truncate_bytes:
                    mode = "TRUNCATE" if time.monotonic() - last_truncate > TRUNCATE_SECONDS else "RESTART"
                    await loop.run_in_executor(self._executor, self.store.checkpoint, mode)
                    if mode == "TRUNCATE":
                        last_truncate = time.monotonic()
            except Exception:
                log.exception("SQLite checkpoint failed")

    async def _expire_rooms(self) -> None:
        """Close idle rooms and robots-only rooms past their time, every ``expiry_check_seconds``."""
        while True:
            try:
                await self.expire_now()
            except Exception:
                log.exception("closing idle rooms failed")
            await asyncio.sleep(self.settings.expiry_check_seconds)

    async def expire_now(self, now: float | None = None) -> list[str]:
        """Mark idle and over-age robots-only games expired in the store and close their rooms; return the codes."""
        now = time.time() if now is None else now
        settings = self.settings
        codes = await self.db(
            self.store.expire_idle, now - settings.idle_room_seconds, now - settings.robot_room_seconds
        )
        for code in codes:
            room = self.rooms.get(code)
            if room is not None:
                room.closed = (
                    "robot-only games end after an hour" if room.robots_only else "nobody moved for a long time"
                )
                room.stop_robots()
                room.broadcast({"type": "closed", "state": room.snapshot()})
        if codes:
            log.info("closed %d idle rooms", len(codes))
        return codes

    async def write_moves(self, moves: list[MoveWrite]) -> None:
        """Store one room's consecutive moves together (all or none): at once for SQLite; for a server database,
        the moves of many rooms waiting at once are written in one transaction (group commit) by a thread."""
        if self._inline:  # SQLite: a write takes tens of microseconds; doing it now saves event-loop round trips
            self.store.record_moves(moves)
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending.append((moves, future))
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._write_pending())
        await future

    async def _write_pending(self) -> None:
        """Write queued moves in batches until none are left (a room's moves stay together)."""
        while self._pending:
            batch, self._pending = self._pending[:MAX_BATCH], self._pending[MAX_BATCH:]
            try:
                await self.db(self.store.record_moves, [move for moves, _ in batch for move in moves])
                outcomes: list[BaseException | None] = [None] * len(batch)
            except Exception:
                outcomes = []
                for moves, _ in batch:  # find the bad one(s); the others still get written
                    try:
                        await self.db(self.store.record_moves, moves)
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

    async def free_seat(self, game_id: int, seat: int) -> None:
        """Store that a person's seat is open again (RoomStorage)."""
        await self.db(self.store.free_seat, game_id, seat)

    async def claim_seat(self, game_id: int, seat: int, name: str, token_hash: str) -> bool:
        """Store a claimed open seat; return False if someone took it meanwhile."""
        return await self.db(self.store.claim_seat, game_id, seat, name, token_hash)

    async def db(self, fn: Callable[..., T], *args: Any) -> T:
        """Run a database call: inline for SQLite, in a thread pool for server databases (PostgreSQL)."""
        if self._inline:
            return fn(*args)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, fn, *args)

    # -- create ----------------------------------------------------------------------------
    async def create(
        self,
        variant_name: str,
        goal: int | None,
        endgame: str | None,
        ties: str | None,
        final_turn: str | None,
        params: dict[str, Any],
        players: list[str],
        your_name: str | None,
        client: str = "local",
        kept: dict[int, tuple[str, str]] | None = None,
    ) -> tuple[Room, dict[int, str]]:
        """Create a room for ``client`` (an address); return it and the tokens of the seats the creator took.

        ``kept`` (a rematch) maps seat numbers to (name, token hash) of people who keep their seat: they hold it
        at once, with the token they already have.
        """
        try:
            variant = find_variant(variant_name, goal=goal, endgame=endgame, ties=ties, final_turn=final_turn, **params)
        except PigdiceError as exc:
            code = "unknown_variant" if isinstance(exc, UnknownVariantError) else "bad_parameter"
            raise WebError(code, str(exc)) from None
        except TypeError as exc:
            raise WebError("bad_parameter", f"bad variant parameter: {exc}") from None
        plans = plan_seats(players, variant, your_name)
        settings = self.settings
        solved = any(isinstance(p.strategy, Optimal) for p in plans)
        if solved:
            problem = self.unsolvable(variant)
            if problem:
                raise WebError("bad_parameter", f"the optimal robot is not available: {problem}")
        if all(p.kind == "robot" for p in plans):
            self._check_robot_room(variant.goal)
        self.client_rooms.check(client)
        if await self.db(self.store.count_open_games) >= settings.max_open_rooms:
            raise WebError("server_full", "this server has too many unfinished games; try again later", 503)
        # a new Hog variant's first fingerprint reads every outcome (up to half a second at 100 dice): off the loop
        fingerprint = await asyncio.to_thread(variant.fingerprint)
        if solved:
            target = self.solve_for(variant, len(plans))
            if not self.pool.exact_ready(*target):
                self.pool.check_exact_room(*target)
        tokens: dict[int, str] = {}
        seats: list[Seat] = []
        for index, plan in enumerate(plans):
            seat = Seat(index, plan.kind, plan.spec, plan.name, strategy=plan.strategy)
            if kept and index in kept:
                seat.name, seat.token_hash = kept[index]
            elif plan.mine:
                tokens[index] = secrets.token_urlsafe(24)
                seat.token_hash = hash_token(tokens[index])
            seats.append(seat)
        request = {
            "variant": variant.name,
            "goal": variant.goal,
            "endgame": str(variant.endgame),
            "ties": str(variant.ties),
            "final_turn": str(variant.final_turn),
            "params": params_to_store(variant, params),
        }
        seed = secrets.randbelow(2**62)
        salt = secrets.token_hex(16)  # the dice commitment's secret salt, revealed with the seed at the end
        record = GameRecord(
            code=new_code(),
            variant=variant.name,
            goal=variant.goal,
            endgame=str(variant.endgame),
            ties=str(variant.ties),
            final_turn=str(variant.final_turn),
            params=params_to_store(variant, params),
            fingerprint=fingerprint,
            seed=seed,
            seats=[SeatRecord(s.index, s.kind, s.spec, s.name, s.token_hash) for s in seats],
            to_move=0,
            creator=hash_token(client)[:16],
            salt=salt,
        )
        game_id = await self.db(self.store.create_game, record)
        self.client_rooms.add(client)
        room = Room(
            code=record.code,
            game_id=game_id,
            variant=variant,
            request=request,
            seed=seed,
            salt=salt,
            seats=seats,
            state=new_game(variant, len(seats)),
            rng=np.random.default_rng(seed),
            storage=self,
            robot_delay=self.settings.robot_delay,
            turn_seconds=self.settings.turn_seconds,
            skips_to_free_seat=self.settings.skips_to_free_seat,
        )
        self.rooms[room.code] = room
        self._evict()
        self._prepare(room)
        room.kick_robots()
        room.arm_timer()  # a rematch starts with every seat taken: the first person's clock runs at once
        return room, tokens

    def unsolvable(self, variant: Variant) -> str | None:
        """Return why this server will not solve ``variant`` (goal or dice beyond its bounds), or None."""
        settings = self.settings
        if variant.goal > settings.max_hint_goal:
            return f"the perfect player plays goals up to {settings.max_hint_goal} here"
        if variant.chooses_dice and max(variant.choices) > settings.max_solver_dice:
            # seed 003: Hog's optimal play does not change beyond 26 dice
            return f"the perfect player plays with up to {settings.max_solver_dice} dice here"
        return None

    def exact_refusal(self, variant: Variant, players: int) -> str | None:
        """Return why the perfect player of ``variant`` with ``players`` players is not exact on this server (no
        exact solver, a solve past ``max_exact_states``, or one that failed here), or None if it is exact."""
        reason = exactness(variant, players)
        if reason is not None:
            return reason
        settings, states = self.settings, variant.goal**players
        if states > settings.max_exact_states:
            limit = largest_exact_goal(settings.max_exact_states, players)
            return f"this server solves {players}-player games exactly up to goal {limit}"
        if states > settings.max_exact_reset_states and has_reset(variant):
            limit = largest_exact_goal(settings.max_exact_reset_states, players)
            return f"this server solves {players}-player games whose rolls can reset a score exactly up to goal {limit}"
        if players > 2 and states > settings.max_exact_far_states and tables_reach_far(variant):
            limit = largest_exact_goal(settings.max_exact_far_states, players)
            return (
                f"this server solves {players}-player games with a last round whose turn totals can double or fall "
                f"exactly up to goal {limit}"
            )
        return self._exact_failed.get(exact_job_key(variant, players))

    def solve_for(self, variant: Variant, players: int) -> tuple[Variant, int]:
        """Return the game the perfect player's policy solves: this one where it is exact here (``exact_refusal``),
        else the 2-player first-to-goal game its approximation reads."""
        if self.exact_refusal(variant, players) is None:
            return variant, players
        if variant.is_simultaneous and self.exact_refusal(variant, 2) is None:
            return variant, 2  # Swine Herd with 3+: the 2-player equilibrium against the highest score
        return variant.roll_hold_form(), 2

    def _fall_back(self, room: Room, reason: str) -> None:
        """Remember that the exact solve of the room's game failed: its rooms play the approximation from now on."""
        log.warning("room %s: the exact solve failed, the approximation plays: %s", room.code, reason)
        while len(self._exact_failed) >= MAX_FAILED_SOLVES:
            self._exact_failed.pop(next(iter(self._exact_failed)))
        key = exact_job_key(room.variant, room.state.players)
        self._exact_failed[key] = f"the exact solve failed on this server ({reason})"

    def _check_robot_room(self, goal: int) -> None:
        """Raise unless one more robots-only room fits (they are capped in number and goal, and expire)."""
        settings = self.settings
        if goal > settings.max_robot_room_goal:
            raise WebError(
                "bad_parameter",
                f"games with robots only are limited to goals up to {settings.max_robot_room_goal}",
            )
        playing = sum(1 for r in self.rooms.values() if r.robots_only and not r.state.is_terminal() and not r.closed)
        if playing >= settings.max_robot_rooms:
            raise WebError(
                "too_many_rooms",
                f"{playing} games with robots only are playing on this server already; try again later",
                429,
            )

    async def play_again(
        self, room: Room, tokens: dict[str, str], client: str = "local"
    ) -> tuple[Room, dict[int, str]]:
        """Start the rematch of a finished ``room``, tell everyone in it; return the new room and the caller's tokens.

        The seats move one place, so the first player of the rematch is the old game's second (over several
        rematches everyone starts in turn). Every person keeps their seat with the token they hold (their name
        too), robots stay robots, and a seat nobody had claimed stays open. ``tokens`` (seat number as text ->
        token) must hold at least one seat of the old room; they come back renumbered for the new one, and the
        ``again`` message tells the other clients where their seats went.
        """
        if not room.state.is_terminal():
            raise WebError("not_over", "a rematch can start only once the game is over", 409)
        mine: dict[int, str] = {}
        for key, token in tokens.items():
            if not key.isdecimal() or not key.isascii():
                raise WebError("bad_seat", f"seat {key!r} is not a number")
            room.authorize(int(key), token)
            mine[int(key)] = token
        if not mine:
            raise WebError("not_seated", "only a player of this game can start its rematch", 403)
        n = len(room.seats)
        moved = {old: (old - 1) % n for old in range(n)}  # old seat -> new seat: the old second player starts
        order = sorted(range(n), key=lambda old: moved[old])
        # robots keep their spec; people keep "you" (the creator's seats: hot-seat, untimed) or "friend"
        players = [room.seats[old].spec for old in order]
        kept = {
            moved[old]: (seat.name, seat.token_hash)
            for old, seat in enumerate(room.seats)
            if not seat.is_robot and seat.token_hash is not None
        }
        request = room.request
        new_room, _ = await self.create(
            request["variant"],
            request["goal"],
            request["endgame"],
            request["ties"],
            request["final_turn"],
            request["params"],
            players,
            None,
            client,
            kept=kept,
        )
        names = [room.seats[old].name for old in order]  # open seats keep their old names too
        if new_room.names != names:
            for seat, name in zip(new_room.seats, names, strict=True):
                seat.name = name
            await self.db(self.store.rename_seats, new_room.game_id, new_room.names)
        seats = {str(old): new for old, new in moved.items()}
        room.broadcast({"type": "again", "code": new_room.code, "url": f"/play/{new_room.code}", "seats": seats})
        return new_room, {moved[old]: token for old, token in mine.items()}

    # -- the perfect player ---------------------------------------------------------------------
    def _in_memory(self, room: Room) -> Policy | ExactPolicy | None:
        """Return the policy the room's perfect player uses (``solve_for``) if it is in memory, else None."""
        target = self.solve_for(room.variant, room.state.players)
        if not self.pool.exact_ready(*target):
            return None
        return handed(self.pool.cached_exact(*target))

    def _prepare(self, room: Room, for_hint: bool = False) -> asyncio.Task[Policy | ExactPolicy] | None:
        """Make sure the room's perfect player (a robot, or the hints when ``for_hint``) gets its policy: at
        once if it is in memory, else from a job in the solve pool (the room is marked preparing, and told
        when it is ready). Return the task to wait for, or None if there is nothing to wait for."""
        task = self._ready.get(room.code)
        if task is not None:
            return task
        robots = optimal_seats(room)
        if not robots and not for_hint:
            return None
        policy = self._in_memory(room)
        if policy is not None:
            for strategy in robots:
                strategy.use_policy(policy)
            return None
        room.preparing = True
        task = asyncio.create_task(self._get_ready(room))
        self._ready[room.code] = task
        task.add_done_callback(lambda _: self._ready.pop(room.code, None))
        return task

    async def _get_ready(self, room: Room) -> Policy | ExactPolicy:
        """Wait for the room's policy (asking again while the pool is busy; the approximation if the exact solve
        fails), then let its robots play."""
        variant, players = room.variant, room.state.players
        while True:
            exact = self.exact_refusal(variant, players) is None
            try:
                policy = handed(await self.pool.exact(*self.solve_for(variant, players)))
                break
            except WebError as exc:
                if exact and exc.code != "busy":  # the worker died in the exact solve (out of memory?)
                    self._fall_back(room, "its solving process stopped")
                    continue
                log.warning("room %s: the perfect player is not ready: %s", room.code, exc)
                await asyncio.sleep(BUSY_RETRY_SECONDS)  # the pool is busy or broke: ask again later
            except Exception as exc:  # e.g. too little memory on this machine for the exact solve
                if not exact:
                    raise  # the approximation failed: there is nothing else to play
                self._fall_back(room, str(exc) if isinstance(exc, PigdiceError) else "an internal error")
        for strategy in optimal_seats(room):
            strategy.use_policy(policy)
        room.preparing = False
        room.broadcast({"type": "ready", "state": room.snapshot()})
        room.kick_robots()
        return policy

    # -- find / restore ----------------------------------------------------------------------
    async def get(self, code: str) -> Room:
        """Return the room with this code, loading and replaying it from the database if needed."""
        room = self.rooms.get(code)
        if room is not None:
            return room
        if not CODE_RE.match(code):
            raise WebError("unknown_room", "no room has that code", 404)
        lock = self._loading.setdefault(code, asyncio.Lock())
        try:
            async with lock:
                room = self.rooms.get(code)
                if room is None:
                    room = await self._load(code)
                    self.rooms[code] = room
                    room.arm_timer()  # a person to move gets a fresh clock after a restart
                    self._evict()
        finally:
            self._loading.pop(code, None)
        self._prepare(room)
        room.kick_robots()
        return room

    async def _load(self, code: str) -> Room:
        """Read and replay a stored room; a damaged one is set aside (quarantined) and refused with 410."""
        try:
            record = await self.db(self.store.load_game, code)
        except DamagedGameError as exc:
            await self._quarantine(code, str(exc))
            raise WebError("room_damaged", "this game's record is damaged and was set aside", 410) from None
        if record is None:
            raise WebError("unknown_room", "no room has that code", 404)
        if record.status == "quarantined":
            raise WebError("room_damaged", "this game's record is damaged and was set aside", 410)
        try:
            room = self._restore(record)
        except Exception as exc:  # any failure to rebuild it: keep the row, mark it, carry on
            await self._quarantine(code, f"replay failed: {type(exc).__name__}: {exc}")
            raise WebError("room_damaged", "this game's record is damaged and was set aside", 410) from None
        if record.status == "expired":
            room.closed = record.closed_reason or "nobody moved for a long time"
        elif record.to_move is None and not room.state.is_terminal():  # a game stored before schema 2
            await self.db(self.store.set_to_move, record.id, room.state.current)
        return room

    async def _quarantine(self, code: str, reason: str) -> None:
        """Mark a damaged game in the store (it is kept) and log it."""
        log.error("room %s is damaged and set aside: %s", code, reason)
        self.quarantined += 1
        try:
            await self.db(self.store.quarantine, code, reason[:500])
        except StoreError as exc:
            log.error("room %s could not be marked as damaged: %s", code, exc)

    def _restore(self, record: GameRecord) -> Room:
        """Rebuild a room by replaying its seed and action log (the dice generator continues exactly)."""
        try:
            variant = find_variant(
                record.variant,
                goal=record.goal,
                endgame=record.endgame,
                ties=record.ties,
                final_turn=record.final_turn,
                **stored_params(record.variant, record.params),
            )
        except PigdiceError as exc:
            raise DamagedGameError(record.code, record.id, f"its variant cannot be rebuilt: {exc}") from None
        seats: list[Seat] = []
        for s in record.seats:
            strategy = parse_web_strategy(s.spec, variant) if s.kind == "robot" else None
            kind: Literal["human", "robot"] = "robot" if s.kind == "robot" else "human"
            seats.append(Seat(s.seat, kind, s.spec, s.name, s.token_hash, strategy))
        rng = np.random.default_rng(record.seed)
        state = new_game(variant, len(seats))
        history: list[tuple[int, Event]] = []
        actions: list[str] = []
        mismatch = variant.fingerprint() != record.fingerprint
        for move in record.moves:
            state, events = apply(state, parse_move(move.action), rng)
            if [event_to_json(ev) for ev in events] != move.events:
                mismatch = True
            history.extend((move.step, ev) for ev in events)
            actions.append(move.action)
        if mismatch:
            log.warning("room %s: replaying the log does not give the stored events (rules changed?)", record.code)
        request = {
            "variant": record.variant,
            "goal": record.goal,
            "endgame": record.endgame,
            "ties": record.ties,
            "final_turn": record.final_turn,
            "params": record.params,
        }
        return Room(
            code=record.code,
            game_id=record.id,
            variant=variant,
            request=request,
            seed=record.seed,
            salt=record.salt,
            seats=seats,
            state=state,
            rng=rng,
            storage=self,
            robot_delay=self.settings.robot_delay,
            turn_seconds=self.settings.turn_seconds,
            skips_to_free_seat=self.settings.skips_to_free_seat,
            history=history,
            actions=actions,
            replay_mismatch=mismatch,
        )

    def resume_in_background(self) -> asyncio.Task[int]:
        """Resume, in the background, the unfinished games whose robots are to move (others load when asked)."""
        return self._spawn(self.resume_all())

    async def resume_all(self) -> int:
        """Load the unfinished games where a robot is to move, yielding to the event loop between chunks;
        return how many were loaded. Games waiting for a person load when someone opens them."""
        codes = await self.db(self.store.robot_turn_codes, self.settings.max_rooms_in_memory)
        for number, code in enumerate(codes, start=1):
            try:
                await self.get(code)
                self.resumed += 1
            except (WebError, StoreError, PigdiceError) as exc:
                log.error("room %s could not be resumed: %s", code, exc)
            if number % RESUME_CHUNK == 0:
                await asyncio.sleep(0)
        if self.resumed:
            log.info("resumed %d unfinished games with a robot to move", self.resumed)
        return self.resumed

    def _evict(self) -> None:
        """Forget the least recently used idle rooms when too many are in memory (they reload on demand)."""
        limit = self.settings.max_rooms_in_memory
        if len(self.rooms) <= limit:
            return
        idle = sorted(
            (
                r
                for r in self.rooms.values()
                if not r.connections and not r.lock.locked() and (r.robot_task is None or r.robot_task.done())
            ),
            key=lambda r: (bool(r.choices), r.last_active),  # a Swine Herd moment's hidden choices live in memory
        )
        for room in idle[: len(self.rooms) - limit]:
            room.stop_robots()  # its turn timer too: the room reloads from the database when asked
            self.rooms.pop(room.code, None)

    async def close(self) -> None:
        """Stop robot tasks, background work, the solve pool and the database threads."""
        tasks: list[asyncio.Task[Any]] = [
            task
            for r in self.rooms.values()
            for task in (r.robot_task, r.timer)
            if task is not None and not task.done()
        ]
        if self._checkpointer is not None:
            tasks.append(self._checkpointer)
        tasks.extend(self._background)
        tasks.extend(self._ready.values())
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self.pool.close()
        with contextlib.suppress(Exception):
            self.store.checkpoint("TRUNCATE")
        self._executor.shutdown(wait=True)

    # -- hints --------------------------------------------------------------------------------
    async def _advisor(self, room: Room) -> Optimal:
        """Return a perfect player holding the room's policy, asking the solve pool for it if needed.

        If the policy is not ready within ``hint_wait_seconds`` the answer is 503 ``preparing`` and the room is
        told (``ready``) when it is.
        """
        variant = room.variant
        problem = self.unsolvable(variant)
        if problem:
            raise WebError("no_hint", f"no hints for this game: {problem}", 409)
        policy = self._in_memory(room)
        if policy is None:
            self.pool.check_exact_room(*self.solve_for(variant, room.state.players))
            task = self._prepare(room, for_hint=True)
            if task is None:  # it was in memory after all
                policy = self._in_memory(room)
            else:
                try:
                    policy = await asyncio.wait_for(asyncio.shield(task), self.settings.hint_wait_seconds)
                except TimeoutError:
                    advice = "the perfect player is preparing its advice; you will be told when it is ready"
                    raise WebError("preparing", advice, 503) from None
        if policy is None:
            raise WebError("solve_failed", "the perfect player's policy is not in memory; try again", 503)
        advisor = Optimal(variant)
        advisor.use_policy(policy)
        return advisor

    async def review(self, room: Room) -> dict[str, Any]:
        """Return the review of the room's game so far (every decision against the perfect player), as JSON.

        The policy comes as for a hint; the review itself runs in a worker thread, off the event loop.
        """
        from pigdice.study.review import review_game

        advisor = await self._advisor(room)
        actions = [parse_move(a) for a in list(room.actions)]
        names = room.names
        humans = [s.kind == "human" for s in room.seats]
        review = await asyncio.to_thread(review_game, room.variant, names, humans, room.seed, actions, advisor)
        data = review.to_json()
        note = approximation_note(room.variant, room.state.players)
        data["approximate"] = review.approximate or note
        data["exact"] = data["approximate"] is None
        data["finished"] = room.state.is_terminal() and len(actions) == room.state.step
        data["step"] = len(actions)
        return data

    async def hint(self, room: Room, seat_index: int) -> dict[str, Any]:
        """Return the perfect player's hint and the win chance of ``seat_index`` in the room's current state.

        A policy not yet solved is asked of the solve pool; if it is not ready within ``hint_wait_seconds``
        the answer is 503 ``preparing`` and the room is told (``ready``) when it is.
        """
        variant = room.variant
        if room.state.is_terminal():
            raise WebError("game_over", "the game is over", 409)
        advisor = await self._advisor(room)
        state = room.state  # read after the wait: the game may have moved on
        if state.is_terminal():
            raise WebError("game_over", "the game is over", 409)
        mine = seat_index in room.choosing()  # in Swine Herd every standing seat chooses, on the same state
        view = seat_view(state, seat_index) if mine and variant.is_simultaneous else state
        hint = advisor.hint(view)
        exact = advisor.exact(len(in_play(state)))  # never solves: the advisor was handed its policy
        win: float | None
        if seat_index in state.resigned:
            win = 0.0
        elif mine:
            win = hint.win_probability
        elif exact is not None:  # everyone's chance, the mover first
            win = seat_chances(state, exact.win_vector(position_of(state)))[seat_index]
        elif len(in_play(state)) == 2 and variant.decision is not Decision.SIMULTANEOUS:
            win = 1.0 - hint.win_probability
        else:
            win = None
        note = hint.approximate or approximation_note(variant, state.players)
        refusal = self.exact_refusal(variant, state.players)
        if note and refusal and exactness(variant, state.players) is None:
            note += f"; {refusal}"  # the game has an exact solver, but not on this server
        return {
            "type": "hint",
            "step": state.step,
            "seat": seat_index,
            "your_turn": mine,
            "best": hint.best if mine else None,
            "values": hint.values if mine else None,
            "win_probability": win,
            "approximate": note,
            "mix": hint.mix if mine else None,  # Swine Herd: the equilibrium's chance of each option, where it mixes
        }
