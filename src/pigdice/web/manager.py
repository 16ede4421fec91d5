"""The room manager: the life of rooms. It creates them (and their rematches) within the server's bounds, finds
them (replaying them from the database after a restart, setting damaged ones aside), keeps at most so many in
memory, resumes robots in the background and closes idle rooms.

It leans on three helpers: ``Persistence`` (every database call, moves by group commit), ``PerfectPlayer``
(robots' policies from the solve pool, hints, reviews) and the ``Rematch`` of each room (offers answered yes or
no). The dice of every new game come from a seed source: secret random seeds by default, a seeded generator's
draws where a test wants reproducible games.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any, Literal

import numpy as np

from pigdice.engine.events import Event, event_to_json
from pigdice.engine.game import Hold, Resign, Roll, apply, new_game, parse_move
from pigdice.errors import PigdiceError, UnknownVariantError
from pigdice.players.optimal import Optimal
from pigdice.rules.registry import find_variant, params_to_store, stored_params
from pigdice.rules.variant import Variant
from pigdice.web.collector import LONG_GAME, is_long_game, release, without_collection
from pigdice.web.config import Settings
from pigdice.web.errors import WebError
from pigdice.web.limits import ClientRooms
from pigdice.web.longjobs import LongJobs
from pigdice.web.perfect import PerfectPlayer
from pigdice.web.persistence import Persistence
from pigdice.web.rematch import Answer, moved_seat, next_link
from pigdice.web.rooms import GameRequest, Room, Timing
from pigdice.web.schema import ABORTED, EXPIRED
from pigdice.web.seats import CODE_RE, Seat, hash_token, new_code, parse_web_strategy, plan_seats
from pigdice.web.store import DamagedGameError, GameRecord, MoveRecord, SeatRecord, Store, StoreError

log = logging.getLogger("pigdice.web")

RESUME_CHUNK = 10  # rooms resumed between two yields to the event loop (~20 ms of replay)
MAX_SEED = 2**62  # seeds are drawn below this (a database BIGINT holds them)

SeedSource = Callable[[], int]  # returns the dice seed of the next new game


def secret_seed() -> int:
    """Return a secret random seed for a new game's dice (nobody can predict it)."""
    return secrets.randbelow(MAX_SEED)


def seeds_from(rng: np.random.Generator) -> SeedSource:
    """Return a seed source drawing from ``rng``: reproducible games, for tests and demonstrations."""
    return lambda: int(rng.integers(MAX_SEED))


def timing_of(settings: Settings) -> Timing:
    """Return the pace of a room under ``settings``."""
    return Timing(settings.robot_delay, settings.turn_seconds, settings.skips_to_free_seat, settings.away_seconds)


class RoomManager:
    """Creates rooms, finds them (loading from the database after a restart) and runs their robots."""

    def __init__(self, store: Store, settings: Settings, seeds: SeedSource = secret_seed) -> None:
        self.store = store
        self.settings = settings
        self.seeds = seeds
        self.persistence = Persistence(store, settings)
        self.perfect = PerfectPlayer(settings)
        self.pool = self.perfect.pool  # the explorer and the health check share it
        self.long_jobs = LongJobs()  # long games' records and verifications, in their own worker
        self.rooms: dict[str, Room] = {}
        self._loading: dict[str, asyncio.Lock] = {}
        self._checkpointer: asyncio.Task[None] | None = None
        self.client_rooms = ClientRooms(settings.rooms_per_client, settings.client_window_seconds)
        self._background: set[asyncio.Task[Any]] = set()
        self.resumed = 0  # rooms loaded at start-up so far (their robots carry on)
        self.quarantined = 0

    def start(self) -> None:
        """Start background work: SQLite checkpoints off the event loop, room expiry, the solve pool's worker."""
        if self.store.is_sqlite and self._checkpointer is None:
            self._checkpointer = asyncio.create_task(self.persistence.checkpoints())
        self._spawn(self._expire_rooms())
        if self.settings.warm_solver:
            self.pool.start()

    def _spawn(self, work: Any) -> asyncio.Task[Any]:
        """Run the coroutine ``work`` in the background, keeping a reference until it ends."""
        task = asyncio.create_task(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return task

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
        codes = await self.persistence.db(
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

    # -- create ----------------------------------------------------------------------------
    async def create(
        self,
        game: GameRequest,
        players: list[str],
        your_name: str | None,
        client: str = "local",
        kept: Mapping[int, tuple[str, str]] | None = None,
    ) -> tuple[Room, dict[int, str]]:
        """Create a room for ``client`` (an address); return it and the tokens of the seats the creator took.

        ``kept`` (a rematch) maps seat numbers to (name, token hash) of people who keep their seat: they hold it
        at once, with the token they already have.
        """
        variant = self._variant(game)
        plans = plan_seats(players, variant, your_name)
        settings = self.settings
        solved = any(isinstance(p.strategy, Optimal) for p in plans)
        if solved:
            problem = self.perfect.unsolvable(variant)
            if problem:
                raise WebError("bad_parameter", f"the optimal robot is not available: {problem}")
        if all(p.kind == "robot" for p in plans):
            self._check_robot_room(variant.goal)
        self.client_rooms.check(client)
        if await self.persistence.db(self.store.count_open_games) >= settings.max_open_rooms:
            raise WebError("server_full", "this server has too many unfinished games; try again later", 503)
        # a new Hog variant's first fingerprint reads every outcome (up to half a second at 100 dice): off the loop
        fingerprint = await asyncio.to_thread(variant.fingerprint)
        if solved:
            self.perfect.check_room(variant, len(plans))
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
        stored = params_to_store(variant, dict(game.params))
        request = GameRequest(
            variant.name, variant.goal, str(variant.endgame), str(variant.ties), str(variant.final_turn), stored
        )
        seed = self.seeds()
        record = GameRecord(
            code=new_code(),
            variant=variant.name,
            goal=variant.goal,
            endgame=str(variant.endgame),
            ties=str(variant.ties),
            final_turn=str(variant.final_turn),
            params=stored,
            fingerprint=fingerprint,
            seed=seed,
            seats=[SeatRecord(s.index, s.kind, s.spec, s.name, s.token_hash) for s in seats],
            to_move=0,
            creator=hash_token(client)[:16],
            salt=secrets.token_hex(16),  # the dice commitment's secret salt, revealed with the seed at the end
        )
        game_id = await self.persistence.db(self.store.create_game, record)
        self.client_rooms.add(client)
        room = Room(
            code=record.code,
            game_id=game_id,
            variant=variant,
            request=request,
            seed=seed,
            salt=record.salt,
            seats=seats,
            state=new_game(variant, len(seats)),
            rng=np.random.default_rng(seed),
            storage=self.persistence,
            timing=timing_of(settings),
            created_at=time.time(),
        )
        self._keep(room)
        room.arm_timer()  # a rematch starts with every seat taken: the first person's clock runs at once
        return room, tokens

    def _variant(self, game: GameRequest) -> Variant:
        """Return the variant a request asks for, or raise a web error naming what is wrong."""
        try:
            return find_variant(
                game.variant,
                goal=game.goal,
                endgame=game.endgame,
                ties=game.ties,
                final_turn=game.final_turn,
                **dict(game.params),
            )
        except PigdiceError as exc:
            code = "unknown_variant" if isinstance(exc, UnknownVariantError) else "bad_parameter"
            raise WebError(code, str(exc)) from None
        except TypeError as exc:
            raise WebError("bad_parameter", f"bad variant parameter: {exc}") from None

    def _keep(self, room: Room) -> None:
        """Keep a new or loaded room in memory and let its perfect player and robots start."""
        self.rooms[room.code] = room
        self._evict()
        self.perfect.prepare(room)
        room.kick_robots()

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

    # -- rematch -----------------------------------------------------------------------------
    async def rematch(
        self, room: Room, tokens: Mapping[str, str], answer: Answer, client: str = "local"
    ) -> dict[str, Any]:
        """Answer the rematch of a finished ``room`` for the seats whose ``tokens`` (seat number as text -> token)
        the caller holds: yes (offer, or accept the open offer) or no (withdraw or decline). Once every person
        holding a seat said yes the next game starts, once, whoever asks and however often. Return what the
        caller needs: the rematch as everyone sees it and, once it started, the caller's tokens in it."""
        async with room.lock:
            mine = self._rematch_seats(room, tokens)
            rematch = room.rematch
            if rematch.next_code is None:
                if answer == "no":
                    if rematch.offer is None:
                        raise WebError("no_offer", "nobody has offered a rematch; there is nothing to decline", 409)
                    ended = rematch.say_no(mine, room.names)
                    room.broadcast({"type": "rematch", **ended, "rematch": rematch.to_json(room.seats, room.claims)})
                else:
                    rematch.say_yes(mine)
                    if rematch.waiting_for(room.seats, room.claims):
                        room.broadcast({"type": "rematch", "rematch": rematch.to_json(room.seats, room.claims)})
                    else:
                        await self._start_rematch(room, client)
            moved = (
                {}
                if rematch.next_code is None
                else {moved_seat(old, len(room.seats)): tokens[str(old)] for old in mine}
            )
            return {
                "rematch": rematch.to_json(room.seats, room.claims),
                "tokens": {str(seat): token for seat, token in moved.items()},
            }

    def _rematch_seats(self, room: Room, tokens: Mapping[str, str]) -> list[int]:
        """Return the seats ``tokens`` hold in a finished ``room`` (raise for a running game or a wrong token)."""
        if room.aborted:
            raise WebError("room_closed", "this game was called off; start a new one", 410)
        if not room.state.is_terminal():
            raise WebError("not_over", "a rematch can be offered once the game is over", 409)
        mine: list[int] = []
        for key, token in tokens.items():
            if not key.isdecimal() or not key.isascii():
                raise WebError("bad_seat", f"seat {key!r} is not a number")
            room.authorize(int(key), token)
            if int(key) in room.claims:
                name = room.seats[int(key)].name
                raise WebError("not_seated", f"{name} left this game, so has no say in its rematch", 403)
            mine.append(int(key))
        if not mine:
            raise WebError("not_seated", "only a player of this game can answer its rematch", 403)
        return sorted(mine)

    async def _start_rematch(self, room: Room, client: str) -> None:
        """Create the next game of ``room`` (every seat moved one place, the people keeping theirs) and tell
        everyone in the old room where to go (the caller holds the old room's lock)."""
        n = len(room.seats)
        order = sorted(range(n), key=lambda old: moved_seat(old, n))  # new seat -> old seat
        players = [room.seats[old].spec for old in order]  # robots keep their spec, people "you" or "friend"
        kept = {
            moved_seat(old, n): (seat.name, seat.token_hash)
            for old, seat in enumerate(room.seats)
            if not seat.is_robot and seat.token_hash is not None and old not in room.claims
        }
        new_room, _ = await self.create(room.request, players, None, client, kept=kept)
        names = [room.seats[old].name for old in order]  # open seats keep their old names too
        if new_room.names != names:
            for seat, name in zip(new_room.seats, names, strict=True):
                seat.name = name
            await self.persistence.db(self.store.rename_seats, new_room.game_id, new_room.names)
        await self.persistence.db(self.store.link_rematch, room.game_id, new_room.code)
        room.rematch.next_code = new_room.code
        room.rematch.offer = None
        room.broadcast({"type": "again", **next_link(new_room.code, n), "state": room.snapshot()})

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
                    self.rooms[room.code] = room
                    room.arm_timer()  # a person to move gets a fresh clock after a restart
                    self._evict()
        finally:
            self._loading.pop(code, None)
        self.perfect.prepare(room)
        room.kick_robots()
        return room

    async def _load(self, code: str) -> Room:
        """Read and replay a stored room; a damaged one is set aside (quarantined) and refused with 410."""
        try:
            # a long game's rows: off the loop, no garbage collection over them stalls it meanwhile nor after
            record = await self.persistence.read(
                partial(without_collection, keep=is_long_game), self.store.load_game, code
            )
        except DamagedGameError as exc:
            await self._quarantine(code, str(exc))
            raise WebError("room_damaged", "this game's record is damaged and was set aside", 410) from None
        if record is None:
            raise WebError("unknown_room", "no room has that code", 404)
        if record.status == "quarantined":
            raise WebError("room_damaged", "this game's record is damaged and was set aside", 410)
        try:
            # 100,000 moves replay in seconds: off the loop; the room is then left out of later full collections
            room = await asyncio.to_thread(without_collection, self._restore, record, keep=is_long_game(record))
        except Exception as exc:  # any failure to rebuild it: keep the row, mark it, carry on
            await self._quarantine(code, f"replay failed: {type(exc).__name__}: {exc}")
            raise WebError("room_damaged", "this game's record is damaged and was set aside", 410) from None
        await asyncio.to_thread(release, record.moves)  # its rows are freed off the loop, not as ``record`` goes
        if len(room.actions) >= LONG_GAME:
            self.long_jobs.start()  # its record or verification may be asked for next: the worker gets ready
        if record.status == EXPIRED:
            room.closed = record.closed_reason or "nobody moved for a long time"
        elif record.status == ABORTED:
            room.closed = record.closed_reason or "the game was called off before it began"
            room.aborted = True
        elif record.to_move is None and not room.state.is_terminal():  # a game stored before schema 2
            await self.persistence.db(self.store.set_to_move, record.id, room.state.current)
        return room

    async def _quarantine(self, code: str, reason: str) -> None:
        """Mark a damaged game in the store (it is kept) and log it."""
        log.error("room %s is damaged and set aside: %s", code, reason)
        self.quarantined += 1
        try:
            await self.persistence.db(self.store.quarantine, code, reason[:500])
        except StoreError as exc:
            log.error("room %s could not be marked as damaged: %s", code, exc)

    def _restore(self, record: GameRecord) -> Room:
        """Rebuild a room by replaying its seed and action log (the dice generator continues exactly)."""
        params = stored_params(record.variant, record.params)
        request = GameRequest(record.variant, record.goal, record.endgame, record.ties, record.final_turn, params)
        try:
            variant = self._variant(request)
        except WebError as exc:
            raise DamagedGameError(record.code, record.id, f"its variant cannot be rebuilt: {exc}") from None
        seats: list[Seat] = []
        for s in record.seats:
            strategy = parse_web_strategy(s.spec, variant) if s.kind == "robot" else None
            kind: Literal["human", "robot"] = "robot" if s.kind == "robot" else "human"
            seats.append(Seat(s.seat, kind, s.spec, s.name, s.token_hash, strategy))
        rng = np.random.default_rng(record.seed)
        replay = Replay(variant, seats)
        for move in record.moves:
            replay.play(move, rng)
        if replay.mismatch or variant.fingerprint() != record.fingerprint:
            log.warning("room %s: replaying the log does not give the stored events (rules changed?)", record.code)
        room = Room(
            code=record.code,
            game_id=record.id,
            variant=variant,
            request=request,
            seed=record.seed,
            salt=record.salt,
            seats=seats,
            state=replay.state,
            rng=rng,
            storage=self.persistence,
            timing=timing_of(self.settings),
            history=replay.history,
            actions=replay.actions,
            replay_mismatch=replay.mismatch or variant.fingerprint() != record.fingerprint,
            created_at=record.created_at,
            person_moved=replay.person_moved,
            claims=replay.claims,
        )
        if room.step > 0:  # a person's seat open during the game was opened after timeouts
            room.freed = {s.index for s in seats if not s.is_taken and s.index not in room.state.resigned}
        room.rematch.next_code = record.next_code
        return room

    def resume_in_background(self) -> asyncio.Task[int]:
        """Resume, in the background, the unfinished games whose robots are to move (others load when asked)."""
        return self._spawn(self.resume_all())

    async def resume_all(self) -> int:
        """Load the unfinished games where a robot is to move, yielding to the event loop between chunks;
        return how many were loaded. Games waiting for a person load when someone opens them."""
        codes = await self.persistence.db(self.store.robot_turn_codes, self.settings.max_rooms_in_memory)
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
                if not r.connections
                and not r.lock.locked()
                and (r.robot_task is None or r.robot_task.done())
                and r.rematch.offer is None  # an open offer lives in memory only
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
            for task in (r.robot_task, r.timer, *r.away_timers.values())
            if task is not None and not task.done()
        ]
        if self._checkpointer is not None:
            tasks.append(self._checkpointer)
        tasks.extend(self._background)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await self.perfect.close()
        self.long_jobs.close()
        self.persistence.close()


class Replay:
    """A stored game replayed move by move: its state, events, actions, and what the moves tell of the people."""

    def __init__(self, variant: Variant, seats: list[Seat]) -> None:
        self.seats = seats
        self.state = new_game(variant, len(seats))
        self.history: list[tuple[int, Event]] = []
        self.actions: list[str] = []
        self.mismatch = False
        self.person_moved = False  # a person made a decision (the game can no longer be called off)
        self.claims: dict[int, int] = {}  # a seat that left -> the seat that claimed it

    def play(self, move: MoveRecord, rng: np.random.Generator) -> None:
        """Replay one stored move with the game's dice, noting a person's decision and a claimed seat."""
        action = parse_move(move.action)
        before = self.state
        if isinstance(action, Roll | Hold) and not self.seats[move.seat].is_robot:
            first_roll = before.variant.is_simultaneous and before.rolls_this_turn == 0  # the rules' own roll
            self.person_moved = self.person_moved or not first_roll
        if isinstance(action, Resign) and action.seat != move.seat:
            self.claims[action.seat] = move.seat
        self.state, events = apply(before, action, rng)
        if [event_to_json(ev) for ev in events] != move.events:
            self.mismatch = True
        self.history.extend((move.step, ev) for ev in events)
        self.actions.append(move.action)
