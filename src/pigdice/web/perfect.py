"""The perfect player's service: its policies from the solve pool, the robots that play them, hints and reviews.

The perfect player plays a room's game exactly where ``pigdice.solve.exact`` has a solver for it and the solve
fits the server's bounds (``pigdice.solve.cost``); otherwise it plays the 2-player first-to-goal policy (Swine
Herd: the 2-player equilibrium), approximately, and its hints say so. With three or more players in play and no
exact solver, the win chance shown is estimated for the whole table (``pigdice.players.tablechance``), never
the 2-player figure.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any

from pigdice.engine.game import parse_move
from pigdice.engine.simultaneous import seat_view
from pigdice.errors import PigdiceError
from pigdice.players.optimal import Optimal, approximation_note, in_play, position_of, seat_chances
from pigdice.players.tablechance import table_chances, table_note
from pigdice.rules.variant import Decision, Variant
from pigdice.solve.cost import SolveBounds, exact_refusal
from pigdice.solve.exact import ExactPolicy, exactness
from pigdice.solve.policy import Policy
from pigdice.web.config import Settings
from pigdice.web.errors import WebError
from pigdice.web.rooms import Room
from pigdice.web.solving import SolvePool, exact_job_key

log = logging.getLogger("pigdice.web")

BUSY_RETRY_SECONDS = 30.0  # a room whose perfect player was refused (pool busy) asks again after this
MAX_FAILED_SOLVES = 1000  # exact solves that failed here, remembered so rooms play the approximation at once
FAILED_SOLVE_SECONDS = 600.0  # ... for this long: then the exact solve is tried again


def optimal_seats(room: Room) -> list[Optimal]:
    """Return the perfect-player strategies of the room's robots."""
    return [s.strategy for s in room.seats if s.is_robot and isinstance(s.strategy, Optimal)]


def handed(policy: ExactPolicy) -> Policy | ExactPolicy:
    """Return what a perfect player is handed: the plain ``Policy`` of a 2-player first-to-goal solve (its
    approximations read that one), else the exact policy itself."""
    return policy.first_to_goal() or policy


def bounds_of(settings: Settings) -> SolveBounds:
    """Return the exact solves the server's settings allow."""
    return SolveBounds(settings.max_exact_states, settings.max_exact_reset_states, settings.max_exact_far_states)


class PerfectPlayer:
    """The perfect player of every room: which policy it plays, getting it from the pool, hints and reviews."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.bounds = bounds_of(settings)
        self.pool = SolvePool(settings.solve_workers, settings.max_solve_jobs)
        self._ready: dict[str, asyncio.Task[Policy | ExactPolicy]] = {}  # room code -> its perfect player's solve
        self._exact_failed: dict[str, tuple[str, float]] = {}  # exact job key -> why its solve failed here, when

    # -- what is played -------------------------------------------------------------------------
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
        exact solver, a solve past the server's bounds, or one that failed here), or None if it is exact."""
        reason = exact_refusal(variant, players, self.bounds)
        if reason:
            return reason
        key = exact_job_key(variant, players)
        failed = self._exact_failed.get(key)
        if failed is not None and time.monotonic() - failed[1] > FAILED_SOLVE_SECONDS:
            del self._exact_failed[key]  # long enough ago: the exact solve is tried again
            return None
        return None if failed is None else failed[0]

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
        self._exact_failed[key] = (f"the exact solve failed on this server ({reason})", time.monotonic())

    # -- getting the policy ------------------------------------------------------------------------
    def _in_memory(self, room: Room) -> Policy | ExactPolicy | None:
        """Return the policy the room's perfect player uses (``solve_for``) if it is in memory, else None."""
        target = self.solve_for(room.variant, room.state.players)
        if not self.pool.exact_ready(*target):
            return None
        return handed(self.pool.cached_exact(*target))

    def prepare(self, room: Room, for_hint: bool = False) -> asyncio.Task[Policy | ExactPolicy] | None:
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

    def check_room(self, variant: Variant, players: int) -> None:
        """Raise 503 ``busy`` if a new room with a perfect player could not get its policy now."""
        target = self.solve_for(variant, players)
        if not self.pool.exact_ready(*target):
            self.pool.check_exact_room(*target)

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
            task = self.prepare(room, for_hint=True)
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

    # -- answers -------------------------------------------------------------------------------
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
        players = room.state.players
        if players > 2 and advisor.exact(players) is None:  # the chart's chances are the table's estimate
            data["chart_note"] = table_note(room.variant, players)
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
        playing = len(in_play(state))
        exact = advisor.exact(playing)  # never solves: the advisor was handed its policy
        note_of_table: str | None = None
        win: float | None
        if seat_index in state.resigned:
            win = 0.0
        elif mine and exact is not None:
            win = hint.win_probability
        elif exact is not None:  # everyone's chance, the mover first
            win = seat_chances(state, exact.win_vector(position_of(state)))[seat_index]
        elif playing > 2:  # never the 2-player figure: an estimate for the whole table, said in words
            chances = table_chances(state, advisor)
            win = None if chances is None else chances[seat_index]
            note_of_table = table_note(variant, playing)
        elif mine:
            win = hint.win_probability
        elif variant.decision is not Decision.SIMULTANEOUS:
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
            "table_note": note_of_table,  # how the chance of a table of 3+ was estimated, where it was
            "mix": hint.mix if mine else None,  # Swine Herd: the equilibrium's chance of each option, where it mixes
        }

    async def close(self) -> None:
        """Stop the solves rooms wait for and the pool's worker processes."""
        tasks = list(self._ready.values())
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self.pool.close()
