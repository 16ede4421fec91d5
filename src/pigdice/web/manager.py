"""The room manager: creates rooms (and their follow-up games), finds them (replaying them from the database
after a restart), writes moves with group commit, resumes robots on start, and answers hints.

Rooms do not know the manager: it hands each room itself as the room's ``RoomStorage``."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Literal, TypeVar

import numpy as np

from pigdice.engine.events import Event, event_to_json
from pigdice.engine.game import apply, new_game, parse_action
from pigdice.errors import PigdiceError, UnknownVariantError
from pigdice.rules.registry import find_variant
from pigdice.rules.variant import Decision, Variant
from pigdice.web.config import Settings
from pigdice.web.errors import WebError
from pigdice.web.rooms import Room
from pigdice.web.seats import CODE_RE, Seat, hash_token, new_code, parse_web_strategy, plan_seats
from pigdice.web.store import GameRecord, MoveWrite, SeatRecord, Store, StoreError

log = logging.getLogger("pigdice.web")

MAX_BATCH = 500  # moves written in one transaction at most
CHECKPOINT_SECONDS = 2.0

T = TypeVar("T")


_solve_lock = threading.Lock()


def warm_policy(variant: Variant) -> None:
    """Solve (or load) the perfect player's policy for ``variant``, one solve at a time."""
    from pigdice.solve.solver import solve

    with _solve_lock:
        solve(variant.roll_hold_form())


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
        self._pending: list[tuple[MoveWrite, asyncio.Future[None]]] = []
        self._writer: asyncio.Task[None] | None = None
        self._executor = ThreadPoolExecutor(max_workers=1 if store.is_sqlite else 4, thread_name_prefix="pigdice-db")

    def start(self) -> None:
        """Start background work: SQLite checkpoints off the event loop."""
        if self.store.is_sqlite and self._checkpointer is None:
            self._checkpointer = asyncio.create_task(self._checkpoints())

    async def _checkpoints(self) -> None:
        """Checkpoint the SQLite log every few seconds in the database thread (its fsync never stalls a move)."""
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(CHECKPOINT_SECONDS)
            try:
                await loop.run_in_executor(self._executor, self.store.checkpoint)
            except Exception:
                log.exception("SQLite checkpoint failed")

    async def write_move(self, move: MoveWrite) -> None:
        """Store a move: at once for SQLite; for a server database, moves of many rooms waiting at once are
        written in one transaction (group commit) by a thread."""
        if self._inline:  # SQLite: a write takes tens of microseconds; doing it now saves event-loop round trips
            self.store.record_moves([move])
            return
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
    ) -> tuple[Room, dict[int, str]]:
        """Create a room; return it and the tokens of the seats the creator took ('you')."""
        try:
            variant = find_variant(variant_name, goal=goal, endgame=endgame, ties=ties, final_turn=final_turn, **params)
        except PigdiceError as exc:
            code = "unknown_variant" if isinstance(exc, UnknownVariantError) else "bad_parameter"
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
            "variant": variant.name,
            "goal": variant.goal,
            "endgame": str(variant.endgame),
            "ties": str(variant.ties),
            "final_turn": str(variant.final_turn),
            "params": dict(params),
        }
        seed = secrets.randbelow(2**62)
        record = GameRecord(
            code=new_code(),
            variant=variant.name,
            goal=variant.goal,
            endgame=str(variant.endgame),
            ties=str(variant.ties),
            final_turn=str(variant.final_turn),
            params=dict(params),
            fingerprint=variant.fingerprint(),
            seed=seed,
            seats=[SeatRecord(s.index, s.kind, s.spec, s.name, s.token_hash) for s in seats],
        )
        game_id = await self.db(self.store.create_game, record)
        room = Room(
            code=record.code,
            game_id=game_id,
            variant=variant,
            request=request,
            seed=seed,
            seats=seats,
            state=new_game(variant, len(seats)),
            rng=np.random.default_rng(seed),
            storage=self,
            robot_delay=self.settings.robot_delay,
        )
        self.rooms[room.code] = room
        self._evict()
        room.kick_robots()
        return room, tokens

    async def play_again(self, room: Room, tokens: dict[str, str]) -> tuple[Room, dict[int, str]]:
        """Start the follow-up game of ``room`` (same variant and seats) and tell everyone in the old room.

        ``tokens`` (seat number as text -> token) are the seats the caller holds: they become the caller's
        seats in the new room; other people's seats open for them, robots stay robots, names are kept.
        """
        mine: set[int] = set()
        for key, token in tokens.items():
            if not key.isdecimal():
                raise WebError("bad_seat", f"seat {key!r} is not a number")
            room.authorize(int(key), token)
            mine.add(int(key))
        players = ["you" if seat.index in mine else seat.spec if seat.is_robot else "friend" for seat in room.seats]
        request = room.request
        new_room, new_tokens = await self.create(
            request["variant"],
            request["goal"],
            request["endgame"],
            request["ties"],
            request["final_turn"],
            request["params"],
            players,
            None,
        )
        for seat in new_room.seats:  # "you" seats are renumbered in order: keep each person's old name
            old = room.seats[seat.index]
            if not old.is_robot:
                seat.name = old.name
        await self.db(self.store.rename_seats, new_room.game_id, new_room.names)
        room.broadcast({"type": "again", "code": new_room.code, "url": f"/play/{new_room.code}"})
        return new_room, new_tokens

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
                record.variant,
                goal=record.goal,
                endgame=record.endgame,
                ties=record.ties,
                final_turn=record.final_turn,
                **record.params,
            )
        except PigdiceError as exc:
            raise WebError("broken_room", f"this room's variant cannot be rebuilt: {exc}", 500) from None
        seats: list[Seat] = []
        for s in record.seats:
            strategy = parse_web_strategy(s.spec, variant) if s.kind == "robot" else None
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
            seats=seats,
            state=state,
            rng=rng,
            storage=self,
            robot_delay=self.settings.robot_delay,
            history=history,
            actions=actions,
            replay_mismatch=mismatch,
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
            (
                r
                for r in self.rooms.values()
                if not r.connections and not r.lock.locked() and (r.robot_task is None or r.robot_task.done())
            ),
            key=lambda r: r.last_active,
        )
        for room in idle[: len(self.rooms) - limit]:
            self.rooms.pop(room.code, None)

    async def close(self) -> None:
        """Stop robot tasks and the database threads."""
        tasks = [r.robot_task for r in self.rooms.values() if r.robot_task is not None and not r.robot_task.done()]
        if self._checkpointer is not None:
            tasks.append(self._checkpointer)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        with contextlib.suppress(Exception):
            self.store.checkpoint("TRUNCATE")
        self._executor.shutdown(wait=True)

    # -- hints --------------------------------------------------------------------------------
    async def hint(self, room: Room, seat_index: int) -> dict[str, Any]:
        """Return the perfect player's hint and the win chance of ``seat_index`` in the room's current state."""
        from pigdice.players.optimal import approximation_note, hint_for_state

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
