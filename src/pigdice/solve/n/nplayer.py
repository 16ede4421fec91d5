"""The exact n-player solver: every player maximises their own win probability.

``solve_players(variant, players)`` returns a ``PlayersPolicy``: the turn-start win vectors
W[a_0, ..., a_{n-1}, r] (scores in turn order, the mover first; r = places after the mover), from
which every in-turn value and choice follows by one turn sweep, as ``Policy.turn`` does for 2
players. First to the goal, any number of players. With a final round or equal turns, 3 or 4 players:
banking T >= goal is worth the others' last turns (``pigdice.solve.n.finalturns``, a table over T
and the others' scores), the turn goes on past the goal to a proved stop (``nkernels.over_goal_top``),
and under equal turns the values get a seat axis, W[seat, a_0, ..., a_{n-1}, r]. The kernels and
the state/cycle design are in ``pigdice.solve.n.nkernels``; the rules every exact solver shares
(mover-first vectors, the tie-break) are in ``pigdice.solve.positions``.

With 3 or more players "each player maximises their own win probability" does not always pick one
answer. The players of a cycle (one score tuple's rotations, linked by busts) each choose given the
others' choices, and in a few cycles several choices are consistent (two players on 7 with the
third on 0 at goal 50: either one of them holds early and the other rolls on), or none is: every
deterministic choice leaves some player better off choosing otherwise (37 of the 333,400 cycles of
3-player Pig to 100). The solver takes the consistent choices policy iteration reaches (re-choosing
one player at a time once choosing all at once flips), and otherwise a mixed equilibrium
(``pigdice.solve.n.mixing``): players indifferent between two plans draw one, once per turn, with
the chance that keeps everyone's choices best replies. ``decisions`` keeps, for those turn starts,
the x (see ``nkernels``) at which each plan's choices are made and the chance of the second. Only
if no mixed equilibrium is found among the plans searched does the solver keep the profile of
choices with the smallest regret (the most a mover could gain at the start of a turn by choosing
otherwise), evaluated exactly, and ``regret`` says how far that is from an equilibrium.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from pigdice.errors import BadParameterError
from pigdice.rules.variant import Decision, Endgame, Variant
from pigdice.solve.memory import (
    banked_cells,
    check_memory,
    players_shares,
    players_solver_bytes,
    players_values_bytes,
)
from pigdice.solve.n import levels, nkernels
from pigdice.solve.n.levels import LevelSolver, plan_stages
from pigdice.solve.n.rows import (
    FIRST_TO_GOAL,
    NO_ANCHORS,
    NOTHING_SOLVED,
    LevelStats,
    Overrides,
    PlayersGame,
    anchors_for,
    doubles,
    overrides_for,
    players_game,
)
from pigdice.solve.policyreader import ArraySpec, Expected, Number, PolicySchema, read_bytes, read_policy_file
from pigdice.solve.positions import TRUNCATION_ERROR, Position
from pigdice.solve.solved import SolvedPolicy
from pigdice.solve.solver import TOLERANCE, Progress, fixed_point
from pigdice.solve.storage import RowCache, save_npz
from pigdice.solve.tables import EffectTable, effect_table
from pigdice.solve.threads import solver_threads

if TYPE_CHECKING:
    from pigdice.solve.n.finalturns import LastTurns

ENDING_PLAYERS = 4  # the final round and equal turns are solved for 3 to this many players (2: solve.two.endgame)
FIRST_WIDTH = 64  # totals past the goal the banked table covers at first; it doubles while too short
# ... where the turn total can double, stops lie far past the goal (Pig Dice: 150 to 250 past it at
# goals 20 to 100), so the table starts there rather than solving twice more
FIRST_WIDTH_DOUBLING = 512
MAX_WIDTH = 1 << 12
MAX_BANKED_BYTES = 4 << 30  # ... and while it stays below this
ACCEPTABLE_TRUNCATION = 1e-9  # a solve whose values may be off by more is refused
NO_LAST = np.zeros((0, 0))
MIN_OVERRIDES = 4096  # rows kept for decision points of unsettled cycles (at least; 1 per 1000 tuples)
MIN_PLAYERS = 2
MAX_PLAYERS = 10
# of the .npz files PlayersPolicy.save writes (apart from Policy's); 2 added the last turns, 3 mixed equilibria
FORMAT_VERSION = 3
# called by the solve after each score sum (W, s_high, s_low, banked): ``pigdice.solve.n.equilibria``
LevelHook = Callable[[np.ndarray, int, int, np.ndarray], None]
KIND = "players"  # the file's kind, so a 2-player Policy file is never read as one of these
SUM_SLACK = 1e-9  # a loaded state's win vector must sum to 1 this closely
SUM_CHUNK = 1 << 22  # ... checked this many values at a time


def rules_key(variant: Variant) -> str:
    """Return what identifies the rules solved: the fingerprint, with the ending, ties and final turn if any."""
    from pigdice.solve.two.endgame import endgame_key

    return variant.fingerprint() if variant.endgame is Endgame.FIRST_TO_GOAL else endgame_key(variant)


def check_players(variant: Variant, players: int) -> None:
    """Raise BadParameterError unless the n-player solver takes ``players`` for ``variant``."""
    if isinstance(players, bool) or not isinstance(players, int) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise BadParameterError(f"the n-player solver takes {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players!r}")
    variant.check_players(players)


def memory_need(
    players: int, resets: bool, width: int = 0, equal_turns: bool = False, shares: int | None = None
) -> Callable[[int], int]:
    """Return the solver's bytes as a function of the goal, for ``check_memory`` (with an ending: the
    banked table of ``width`` totals past the goal, the seat axis of equal turns, the longer rows;
    ``shares``: the entries kept per state, None: as ``players_shares``)."""
    if not width:
        return lambda goal: players_solver_bytes(goal, players, resets, shares)
    from pigdice.solve.n.finalturns import banked_bytes, levels_bytes

    seats = players if equal_turns else 1

    def need(goal: int) -> int:
        rows = 8 * goal * (goal + width + 1) * (players + 1)
        tables = banked_bytes(goal, width, equal_turns, players) + levels_bytes(goal, width, players)
        return seats * players_solver_bytes(goal, players, resets, shares) + tables + rows

    return need


def _states_at_sums(goal: int, players: int) -> np.ndarray:
    """Return how many score tuples (each below ``goal``) have each score sum 0 .. players (goal - 1)."""
    counts = np.ones(1)
    for _ in range(players):
        counts = np.convolve(counts, np.ones(goal))
    return counts


def players_form(variant: Variant, players: int) -> Variant:
    """Return the form of ``variant`` the n-player solver computes: first to the goal as it is; a final
    round or equal turns as they are for 3 or 4 players (raises BadParameterError for other counts)."""
    variant = variant.require_turns("the n-player solver")
    if variant.endgame is Endgame.FIRST_TO_GOAL:
        return variant.first_to_goal()
    if not 3 <= players <= ENDING_PLAYERS:
        raise BadParameterError(f"the {variant.endgame} ending is solved exactly for 2 to 4 players, not {players}")
    return variant


def solve_players(
    variant: Variant,
    players: int,
    progress: Progress | None = None,
    tolerance: float = TOLERANCE,
    cap: int = 0,
    level_hook: LevelHook | None = None,
    threads: int | None = None,
    compact: bool | None = None,
) -> PlayersPolicy:
    """Solve ``variant`` exactly for ``players`` players; return the policy.

    First to the goal any number of players; a final round or equal turns 3 or 4 players (the others' last
    turns: ``pigdice.solve.n.finalturns``; the banked table grows until every stop past the goal fits and
    the truncation is below TRUNCATION_ERROR, or refuses past ACCEPTABLE_TRUNCATION). Raises
    ResourceLimitError before allocating if the values would not fit in memory (the message names the
    largest goal that fits for this many players). ``cap`` > 0 (endings only, for the tests' reference):
    the player who reaches the goal, and a last turn with someone still to play after it, hold at totals
    at or past ``cap``. ``level_hook`` (W, s_high, s_low, banked) is called after each score sum is solved,
    one sum at a time, and may change the values just solved (``pigdice.solve.n.equilibria``: the solve
    under another choice of equilibria); the solve then follows the changed values. ``threads``: how many
    threads solve each sum's blocks (None: the setting PIGDICE_SOLVE_THREADS, else every core this process
    may use; ``pigdice.solve.n.levels``); any number gives the same values bit for bit. ``compact``: keep
    n - 1 entries of each win vector, the mover's own being 1 minus the others' (``nkernels.share``; the
    same values to rounding, a quarter less memory at 4 players); None: where the full vectors would take
    more than ``memory.COMPACT_BYTES``. A level hook reads full vectors: the solve then keeps them.
    """
    variant = players_form(variant, players)
    check_players(variant, players)
    threads = solver_threads(threads)
    table = effect_table(variant)
    if level_hook is not None or compact is False:
        shares: int | None = players
    else:
        shares = players - 1 if compact else None
    if variant.endgame is Endgame.FIRST_TO_GOAL:
        return _solve(variant, players, table, FIRST_TO_GOAL, NO_LAST, progress, tolerance, 0, level_hook, threads,
                      shares)  # fmt: skip
    from pigdice.solve.n.finalturns import banked_bytes, banked_tables

    equal_turns = variant.endgame is Endgame.EQUAL_TURNS
    if cap and cap <= variant.goal:
        raise BadParameterError(f"the cap must lie past the goal {variant.goal}, got {cap}")
    first = FIRST_WIDTH_DOUBLING if doubles(table) else FIRST_WIDTH
    width = max(first, 2 * cap - variant.goal + int(table.amounts.max()) + 1) if cap else first
    while True:
        need = memory_need(players, table.has_reset, width, equal_turns, shares)
        check_memory(f"solving {variant.name} ({variant.endgame}) for {players} players", variant.goal, need)
        if progress is not None:
            progress(0.0, "the last turns")
        banked, last, game = banked_tables(variant, table, width, cap, players)
        policy = _solve(variant, players, table, banked, last, progress, tolerance, cap, level_hook, threads, shares)
        policy.__dict__["last_turn_game"] = game  # the cached property, already built
        if (policy.truncation <= TRUNCATION_ERROR and not _at_end(policy)) or width >= MAX_WIDTH:
            break
        if banked_bytes(variant.goal, 2 * width, equal_turns, players) > MAX_BANKED_BYTES:
            break
        width *= 2
        del policy, banked, last, game  # the shorter table's solve goes before the longer one allocates
    if policy.truncation > ACCEPTABLE_TRUNCATION or _at_end(policy):
        raise BadParameterError(
            f"{variant.name} ({variant.endgame}) for {players} players: the totals past the goal reach beyond "
            f"what this solver follows (values may be off by {policy.truncation:.3g}); try a smaller goal"
        )
    return policy


def _at_end(policy: PlayersPolicy) -> bool:
    """Return True if a stop past the goal lay at the end of the policy's banked table."""
    return policy.stats is not None and policy.stats.at_end


def _solve(
    variant: Variant,
    players: int,
    table: EffectTable,
    banked: np.ndarray,
    last: np.ndarray,
    progress: Progress | None,
    tolerance: float,
    cap: int,
    level_hook: LevelHook | None = None,
    threads: int = 1,
    shares: int | None = None,
) -> PlayersPolicy:
    """Solve with the banked table ``banked`` (``nkernels.banked_share``), keeping ``shares`` entries of each
    win vector (None: as ``memory.players_shares``); return the policy."""
    from pigdice.solve.two.endgame import bust_chance

    goal = variant.goal
    ending = banked.shape[0] > 0
    width = banked.shape[1] if ending else 0
    if not ending:
        need = memory_need(players, table.has_reset, shares=shares)
        check_memory(f"solving {variant.name} for {players} players", goal, need)
    n = players
    kept = players_shares(goal, n) if shares is None else shares
    started = time.perf_counter()
    seats = n if variant.endgame is Endgame.EQUAL_TURNS else 1
    shape = (goal,) * n + (kept,) if seats == 1 and not ending else (seats,) + (goal,) * n + (kept,)
    values = np.full(shape, 1.0 / n)
    W = values.reshape(seats, goal**n, kept)  # a view
    one_throw = variant.decision is Decision.DICE_PER_TURN
    game = players_game(table, goal, n, one_throw, banked, bust_chance(table), cap, seats > 1)
    # with resets, where each cycle member's pure choices stood last pass (``nkernels._solve_cycle``)
    anchors = anchors_for(seats, goal**n) if table.has_reset else NO_ANCHORS
    overrides = overrides_for(max(MIN_OVERRIDES, goal**n // 1000))
    settling = [np.inf]  # how far the last pass moved the reset values
    last_pass = [NOTHING_SOLVED]  # what the last pass met, summed over its levels
    # a level hook sees one sum at a time; otherwise small sums are solved together
    stages = plan_stages(goal, n, levels.BLOCK_STATES, merge=level_hook is None)
    total = sum(task.states for stage in stages for task in stage)
    solver = LevelSolver(game, W, goal + width + (1 if ending else 0), threads, len(overrides.state))

    # A pass solves every cycle, high score sums first (Gauss-Seidel). Without resets every state a
    # cycle reads is solved before it, so one pass is exact and its residual is the largest cycle
    # residual (rounding); with resets the reset targets (a_1, ..., a_{n-1}, 0) lie at lower sums and
    # passes repeat until one moves them less than the tolerance, as in the 2-player solver.
    def one_pass(passes: int) -> float:
        totals = NOTHING_SOLVED  # the overrides and the unsettled cycles of this pass only
        reset_inputs = values[..., 0, :].copy() if table.has_reset else None
        keep = passes > 1 and settling[0] < nkernels.KEEP_AFTER
        done = 0.0
        for stage in stages:
            totals = solver.solve_stage(stage, passes == 1, anchors, keep, overrides, totals)
            if level_hook is not None:
                level_hook(W, stage[0].s_high, stage[0].s_low, banked)
            done += sum(task.states for task in stage)
            if progress is not None:
                progress(done / total, f"pass {passes}")
        last_pass[0] = totals
        return pass_residual(values, reset_inputs, settling, totals.residual, n - 1 if kept < n else 1)

    what = f"{variant.name} for {players} players"
    with solver:
        passes, residual = repeat_passes(one_pass, values, table.has_reset, tolerance, what)
    return policy_from_pass(variant, players, values, passes, residual, started, last_pass[0], overrides, banked,
                            last, cap)  # fmt: skip


def policy_from_pass(
    variant: Variant,
    players: int,
    values: np.ndarray,
    passes: int,
    residual: float,
    started: float,
    totals: LevelStats,
    overrides: Overrides,
    banked: np.ndarray = FIRST_TO_GOAL,
    last: np.ndarray = NO_LAST,
    cap: int = 0,
) -> PlayersPolicy:
    """Return the policy of a solve whose last pass met ``totals`` and wrote ``overrides`` (their first rows)."""
    written = totals.written
    if written > len(overrides.state):
        raise BadParameterError(
            f"{variant.name} for {players} players: {totals.unsettled} cycles have no consistent choices, more than "
            f"the solver keeps ({written} decision points past {len(overrides.state)})"
        )
    decisions = {
        int(state): Override(float(x), float(x_mixed), float(chance))
        for state, x, x_mixed, chance in zip(*(column[:written] for column in overrides), strict=True)
    }
    seconds = time.perf_counter() - started
    stats = SolveStats(totals.cycles, totals.sweeps, totals.unsettled, totals.regret, totals.at_end, totals.mixed,
                       totals.mix_gain, totals.kept)  # fmt: skip
    return PlayersPolicy(variant, players, values, passes, residual, seconds, regret=stats.regret,
                         decisions=decisions, stats=stats, banked=banked, last=last,
                         truncation=totals.truncation, cap=cap)  # fmt: skip


def pass_residual(
    values: np.ndarray, reset_inputs: np.ndarray | None, settling: list[float], residual: float, spread: int = 1
) -> float:
    """Return a pass's Bellman residual bound, noting in ``settling`` how far it moved the reset values
    (``spread``: n - 1 with compact values, whose unkept entry moves by at most the sum of the kept ones)."""
    if reset_inputs is None:
        return residual
    # given the reset values the pass started from, every other value is solved exactly: the
    # Bellman residual is at most how far the pass moved them (resets have probability <= 1)
    moved = float(np.max(np.abs(values[..., 0, :] - reset_inputs))) * spread
    settling[0] = moved
    return max(residual, moved)


def repeat_passes(
    one_pass: Callable[[int], float], values: np.ndarray, resets: bool, tolerance: float, what: str
) -> tuple[int, float]:
    """Repeat ``one_pass`` until the values settle (once without resets); return (passes, residual)."""
    return fixed_point(
        one_pass,
        not resets,
        [values[..., 0, :]] if resets else [],
        tolerance,
        f"{what} did not converge: residual {{residual:.3g}} after {{passes}} passes",
    )


class SolveStats(NamedTuple):
    """What a solve's last pass met: cycles, turn sweeps, cycles without consistent choices, their largest regret."""

    cycles: int
    sweeps: int
    unsettled: int
    regret: float
    at_end: bool = False  # a stop past the goal lay at the end of the banked table (a longer one may move it)
    mixed: int = 0  # cycles whose equilibrium mixes (``pigdice.solve.n.mixing``)
    # the most a mover of those, or of a kept cycle, could gain by another plan (INDIFFERENCE, to rounding;
    # at most nkernels.KEEP_GAIN where choices were kept)
    mix_gain: float = 0.0
    # cycles (with resets) whose choices of the pass before were kept: re-choosing gains at most KEEP_GAIN
    kept: int = 0


class Override(NamedTuple):
    """How the mover plays a turn start of a cycle that policy iteration left unsettled (``nkernels._solve_cycle``):
    the choices of the turn sweep at ``x``, or with chance ``chance`` those of the sweep at ``x_mixed``."""

    x: float
    x_mixed: float
    chance: float = 0.0


@dataclass(frozen=True)
class PlayersTurn:
    """The mover's turn at one score tuple: one entry per turn total k = 0 .. goal - score - 1 (Hog: k = 0)."""

    win: np.ndarray  # (k, players): the win vector under optimal play, mover first
    action: np.ndarray  # 0 = hold, c + 1 = roll with choice c
    hold: np.ndarray  # the mover's win probability if holding now (passing at k = 0; nan in Hog)
    rolls: np.ndarray  # (choices, k): the mover's win probability if rolling with each choice
    # a mixed equilibrium (``pigdice.solve.n.mixing``): at the totals where ``mixed`` differs from ``action``
    # the mover takes ``mixed`` with chance ``chance`` (both are best for the mover there)
    mixed: np.ndarray | None = None
    chance: float = 0.0


@dataclass
class PlayersPolicy(SolvedPolicy):
    """Win vectors of a solved n-player, first-to-goal variant, with in-turn values derived on demand."""

    variant: Variant
    players: int
    # W[a_0, ..., a_{n-1}, r], shape (goal,) * players + (players,), float64; compact: (players - 1,), entries
    # r = 1 .. players - 1 (the mover's own is 1 minus their sum: ``nkernels.share``, ``vector``)
    values: np.ndarray
    iterations: int = 0
    residual: float = 0.0
    seconds: float = 0.0
    from_cache: bool = False
    # the most any mover could gain at a turn start by choosing otherwise (0: every choice is a best reply)
    regret: float = 0.0
    # seat * goal^n + flat state index -> how the mover plays there, where it is not the sweep at their own
    # entry of the state their turn falls back to (cycles without consistent choices; the module docstring)
    decisions: dict[int, Override] = field(default_factory=dict)
    stats: SolveStats | None = None
    # with a final round or equal turns: the others' last turns (``pigdice.solve.n.finalturns``)
    banked: np.ndarray = field(default_factory=lambda: FIRST_TO_GOAL)  # FT[0, T - goal, cell, r]
    last: np.ndarray = field(default_factory=lambda: NO_LAST)  # L[t - 1, d]
    truncation: float = 0.0  # the most the stops past the goal may move a value (<= TRUNCATION_ERROR)
    cap: int = 0  # > 0: totals were cut there (tests, see solve_players)
    _rows: RowCache[tuple[int, ...], PlayersTurn] = field(default_factory=RowCache, repr=False)

    @property
    def mixed_cycles(self) -> int:
        """Return how many cycles the equilibrium mixes in (``pigdice.solve.n.mixing``)."""
        return 0 if self.stats is None else self.stats.mixed

    @property
    def kept_cycles(self) -> int:
        """Return how many cycles kept their choices across passes (``pigdice.solve.n.nkernels.KEEP_GAIN``)."""
        return 0 if self.stats is None else self.stats.kept

    @property
    def equilibrium_gain(self) -> float:
        """Return the most any mover of a mixed or kept cycle could gain by choosing otherwise."""
        return 0.0 if self.stats is None else self.stats.mix_gain

    @property
    def nbytes(self) -> int:
        """Return the bytes of the policy's arrays: the values, the last-turn tables and the cached turn rows."""
        return int(self.values.nbytes + self.banked.nbytes + self.last.nbytes) + self._rows.nbytes

    @property
    def ending(self) -> bool:
        """Return True under a final round or equal turns (False: first to the goal)."""
        return self.banked.shape[0] > 0

    @property
    def seats(self) -> int:
        """Return the size of the seat axis: the number of players under equal turns, else 1."""
        return self.players if self.variant.endgame is Endgame.EQUAL_TURNS else 1

    @property
    def W(self) -> np.ndarray:
        """Return the values as the kernels read them: (seats, goal ** players, entries kept per state)."""
        return self.values.reshape(self.seats, self.goal**self.players, self.values.shape[-1])

    @property
    def compact(self) -> bool:
        """Return True if the values keep players - 1 entries a state (``solve_players``' compact)."""
        return self.values.shape[-1] < self.players

    def vector(self, seat: int, index: int) -> np.ndarray:
        """Return the win vector (mover first) of the turn start at flat ``index`` with the mover in ``seat``."""
        stored = self.W[seat, index]
        if not self.compact:
            return stored.copy()
        return np.concatenate(([1.0 - float(stored.sum())], stored))

    def full_W(self) -> np.ndarray:
        """Return W with every entry, (seats, goal ** players, players): ``W`` itself unless compact (a new array)."""
        W = self.W
        if not self.compact:
            return W
        full = np.empty((*W.shape[:2], self.players))
        full[..., 1:] = W
        np.subtract(1.0, W.sum(axis=-1), out=full[..., 0])
        return full

    @cached_property
    def pbust(self) -> float:
        """Return the smallest bust chance of a roll choice."""
        from pigdice.solve.two.endgame import bust_chance

        return bust_chance(self.table)

    @property
    def states(self) -> int:
        """Return the number of decision points: (scores, k) with a_0 + k < goal, or the score tuples (Hog)."""
        g, n = self.goal, self.players
        if self.variant.decision is Decision.DICE_PER_TURN:
            return self.seats * g**n
        return self.seats * g ** (n - 1) * g * (g + 1) // 2

    @cached_property
    def table(self) -> EffectTable:
        """Return the numeric effect table the policy was solved with."""
        return effect_table(self.variant)

    @cached_property
    def last_turn_game(self) -> LastTurns:
        """Return what the last turns' kernel reads of this game (``finalturns.LastTurns``; endings only)."""
        from pigdice.solve.n.finalturns import last_turn_game

        return last_turn_game(self.variant, self.table, self.last, self.cap, self.banked.shape[1])

    @cached_property
    def players_game(self) -> PlayersGame:
        """Return what the kernels read of this game: the effects, goal, players and ending (``rows.PlayersGame``)."""
        return players_game(
            self.table,
            self.goal,
            self.players,
            self._one_throw,
            self.banked,
            self.pbust,
            self.cap,
            self.variant.endgame is Endgame.EQUAL_TURNS,
        )

    @property
    def _one_throw(self) -> bool:
        return self.variant.decision is Decision.DICE_PER_TURN

    def _names(self) -> list[str]:
        """Return the names of the roll options, in choice order ('roll' or 'roll:N')."""
        if not self.variant.chooses_dice:
            return ["roll"]
        return [f"roll:{dice}" for dice in self.variant.choices]

    def _check(self, position: Position) -> tuple[int, ...]:
        """Return the position's scores after checking that this policy answers for it."""
        if not isinstance(position, Position):
            raise BadParameterError(f"expected a Position, got {type(position).__name__}")
        if position.players != self.players:
            raise BadParameterError(
                f"this policy is for {self.players} players; the position has {position.players} scores"
            )
        if position.is_final and not self.ending:
            raise BadParameterError(
                f"{self.variant.name} is solved first to the goal: the first to bank {self.goal} wins at once, "
                "so there is no final round (the position has final set)"
            )
        if position.is_final:
            return self._check_final(position)
        for offset, score in enumerate(position.scores[1:], start=1):
            if score >= self.goal:
                raise BadParameterError(
                    f"the player {offset} after the mover has {score}, already at the goal {self.goal}: "
                    + (
                        "the final round is on: give the position's last turns"
                        if self.ending
                        else "under first to the goal the game is over"
                    )
                )
        if self._one_throw and position.turn_total:
            raise BadParameterError(f"{self.variant.name} has one throw per turn: the turn total must be 0")
        total = position.scores[0] + position.turn_total
        if self.ending and total >= self.goal + self.banked.shape[1]:
            # past the banked table a value would be read off its end
            top = self.goal + self.banked.shape[1] - 1
            first, divisor, _ = self.players_game.layout[self._seat(position)]
            sure = float(self.banked[0, -1, first + self._index(position.scores[1:]) // divisor, 0])
            raise BadParameterError(
                f"a total of {total} is past the {top} this solve follows; "
                f"holding there wins with probability at least {sure:.6f}"
            )
        return position.scores

    def _check_final(self, position: Position) -> tuple[int, ...]:
        """Check a last-turn position (someone has reached the goal): the mover and those owed are below it."""
        scores = position.scores
        best, _ = position.leaders(self.goal)
        if best < self.goal:
            raise BadParameterError(f"in the final round a player who has finished is at or past the goal {self.goal}")
        for offset in (0, *(position.final or ())):
            if scores[offset] >= self.goal:
                raise BadParameterError(
                    f"the player {offset} places after the mover is owed a last turn but has {scores[offset]}, "
                    f"at or past the goal {self.goal}"
                )
        if self._one_throw and position.turn_total:
            raise BadParameterError(f"{self.variant.name} has one throw per turn: the turn total must be 0")
        return scores

    def _index(self, scores: tuple[int, ...]) -> int:
        index = 0
        for score in scores:
            index = index * self.goal + score
        return index

    def _past_goal(self, position: Position) -> bool:
        return position.scores[0] + position.turn_total >= self.goal

    def _seat(self, position: Position) -> int:
        """Return the position's entry of the seat axis (its seat under equal turns, else 0)."""
        return position.seat if self.seats > 1 else 0

    def turn(self, scores: tuple[int, ...], seat: int = 0, min_top: int = 0) -> PlayersTurn:
        """Return the mover's optimal turn at ``scores`` (mover first; ``seat`` under equal turns) for every
        turn total up to the one from which they hold for sure (past the goal with a final round), or up to
        ``min_top`` (at most ``row_limit``) if that is further: the action values of later totals."""
        position = Position(tuple(scores), 0, seat)
        self._check(position)
        if scores[0] >= self.goal:
            raise BadParameterError(f"the mover's score {scores[0]} has already reached the goal {self.goal}")
        seat = self._seat(position)
        key = (seat, *scores)
        row = self._rows.get(key)
        min_top = min(min_top, self.row_limit)
        if row is None or len(row.win) < min_top:
            index = self._index(tuple(scores))
            override = self.decisions.get(seat * self.goal**self.players + index)
            if override is None:
                row = PlayersTurn(*self._rows_at(seat, index, scores[0], math.nan, min_top))
            else:
                row = self._mixed_turn(seat, index, scores[0], override, min_top)
            parts = (row.win, row.action, row.hold, row.rolls, row.mixed)
            row = self._rows.keep(key, row, sum(p.nbytes for p in parts if p is not None))
        return row

    def _rows_at(
        self, seat: int, index: int, a0: int, decide: float, min_top: int
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Return the turn sweep's rows (``nkernels.turn_rows``) with the choices made at ``decide``."""
        return nkernels.turn_rows(self.players_game, self.W, seat, index, a0, decide, min_top)

    def _mixed_turn(self, seat: int, index: int, a0: int, override: Override, min_top: int) -> PlayersTurn:
        """Return the turn at an override: the plan swept at its x, mixed with the one at x_mixed by its chance.

        The rows are the mixture (1 - q) a + q b of the two plans' rows, which is what mixing the one
        turn total where they differ gives (``pigdice.solve.n.mixing``)."""
        plan = self._rows_at(seat, index, a0, override.x, min_top)
        if override.chance == 0.0:
            return PlayersTurn(*plan)
        mixed = self._rows_at(seat, index, a0, override.x_mixed, max(min_top, len(plan[0])))
        if len(mixed[0]) > len(plan[0]):  # the plans' stops past the goal differ: both rows to the later one
            plan = self._rows_at(seat, index, a0, override.x, len(mixed[0]))
        q = override.chance
        win, hold, rolls = ((1.0 - q) * plan[i] + q * mixed[i] for i in (0, 2, 3))
        return PlayersTurn(win, plan[1], hold, rolls, mixed[1], q)

    @property
    def row_limit(self) -> int:
        """Return the most turn totals a row covers (past the proved stops only for hints' action values)."""
        return self.goal + self.banked.shape[1] + 1 if self.ending else self.goal

    def _banked(self, position: Position) -> np.ndarray:
        """Return the win vector of the mover holding at ``position`` (at or past the goal)."""
        scores = position.scores
        total = scores[0] + position.turn_total
        rest = self._index(scores[1:])
        return nkernels.banked_vector(self.players_game, total, rest, self._seat(position))

    def _last_turn(self, position: Position) -> tuple[PlayersTurn, np.ndarray]:
        """Return the mover's last turn (win rows as shares of: each old leader, the mover, each player after)
        and the matrix that turns those shares into the win vector, mover first."""
        from pigdice.rules.variant import TieRule
        from pigdice.solve.n import finalturns

        scores, final = position.scores, position.final or ()
        best, _ = position.leaders(self.goal)
        shared = self.variant.ties is TieRule.SHARED
        on_best = [r for r in position.finished() if scores[r] == best]
        holders = on_best if shared else on_best[:1]  # first to reach: the first to finish on it leads
        j = 1 + len(final)
        mapping = np.zeros((j + 1, self.players))
        mapping[0, holders] = 1.0
        for q, r in enumerate((0, *final), start=1):
            mapping[q, r] = 1.0
        playing = np.array([scores[r] for r in (0, *final)], dtype=np.int64)
        key = (-1, best, len(holders), *playing.tolist())
        row = self._rows.get(key)
        game = self.last_turn_game
        size = best + finalturns.rows_extent(game)
        min_top = min(position.turn_total + 1, size)
        if row is None or len(row.win) < min_top:
            rows = finalturns.last_turn_rows(size, len(self._names()), j + 1)
            top = finalturns.row(game, j, best, len(holders), playing, 0, min_top, rows)
            parts = (rows.win[:top].copy(), rows.act[:top].copy(), rows.hold[:top].copy(), rows.rolls[:, :top].copy())
            row = self._rows.keep(key, PlayersTurn(*parts), sum(p.nbytes for p in parts))
        return row, mapping

    def _final_hold(self, position: Position, mapping: np.ndarray) -> np.ndarray:
        """Return the win vector of the mover of a last turn holding at their turn total."""
        from pigdice.solve.n import finalturns

        scores, final = position.scores, position.final or ()
        best, _ = position.leaders(self.goal)
        t = int(mapping[0].sum())
        out = np.empty(mapping.shape[0])
        playing = np.array([scores[r] for r in (0, *final)], dtype=np.int64)
        finalturns.finish(self.last_turn_game, scores[0] + position.turn_total, best, t, len(playing), playing, 0, out)
        return out @ mapping

    def win_vector(self, position: Position) -> tuple[float, ...]:
        """Return every player's win probability at ``position`` under optimal play, the mover first."""
        scores = self._check(position)
        k = position.turn_total
        if position.is_final:
            row, mapping = self._last_turn(position)
            vector = row.win[k] @ mapping if k < len(row.win) else self._final_hold(position, mapping)
            return tuple(float(v) for v in vector)
        if self._past_goal(position) and not self.ending:
            return tuple(float(v) for v in self._banked(position))
        if k == 0:
            return tuple(float(v) for v in self.vector(self._seat(position), self._index(scores)))
        row = self.turn(scores, position.seat, position.turn_total + 1)
        if k >= len(row.win):
            return tuple(float(v) for v in self._banked(position))
        return tuple(float(v) for v in row.win[k])

    def action_values(self, position: Position) -> dict[str, float]:
        """Return the mover's win probability of every legal option: 'hold', 'roll' or 'roll:N'."""
        scores = self._check(position)
        names = self._names()
        k = position.turn_total
        if position.is_final:
            row, mapping = self._last_turn(position)
            if k >= row.hold.shape[0]:
                return {"hold": float(self._final_hold(position, mapping)[0])}
            hold, rolls = row.hold, row.rolls
        elif self._past_goal(position) and not self.ending:
            return {"hold": 1.0} if self.variant.can_hold else dict.fromkeys(names, 1.0)
        else:
            row = self.turn(scores, position.seat, position.turn_total + 1)
            if k >= row.hold.shape[0]:
                return {"hold": float(self._banked(position)[0])}
            hold, rolls = row.hold, row.rolls
        values: dict[str, float] = {}
        if self.variant.can_hold and not np.isnan(hold[k]):
            values["hold"] = float(hold[k])
        for index, name in enumerate(names):
            values[name] = float(rolls[index, k])
        return values

    def best(self, position: Position) -> str:
        """Return the option the tie-break picks at ``position`` (see ``pigdice.solve.positions``)."""
        return next(iter(self.strategy(position)))

    def strategy(self, position: Position) -> dict[str, float]:
        """Return the chance of each option the perfect player takes at ``position``, the tie-break's first.

        One option with chance 1, except at the few turn totals where the equilibrium mixes
        (``pigdice.solve.n.mixing``): there the mover is indifferent and takes another option with
        the chance that keeps the others' choices consistent."""
        scores = self._check(position)
        names = self._names()
        k = position.turn_total
        mixed = None
        if position.is_final:
            actions = self._last_turn(position)[0].action
        elif self._past_goal(position) and not self.ending:
            return {"hold" if self.variant.can_hold else names[0]: 1.0}
        else:
            row = self.turn(scores, position.seat, position.turn_total + 1)
            actions, mixed = row.action, row.mixed
        if k >= actions.shape[0]:
            return {"hold": 1.0}
        action = int(actions[k])
        name = "hold" if action == 0 else names[action - 1]
        if mixed is None or int(mixed[k]) == action:
            return {name: 1.0}
        other = int(mixed[k])
        return {name: 1.0 - row.chance, "hold" if other == 0 else names[other - 1]: row.chance}

    def play(self, position: Position, draw: Callable[[], float] | None) -> str:
        """Return the option the perfect player takes at ``position``: the tie-break's (``best``), except in a
        turn where the equilibrium mixes two plans; there ``draw()`` (uniform in [0, 1), the same for the
        whole turn) picks the plan: the mixed-in one if it falls below its chance."""
        options = self.strategy(position)
        if len(options) == 1 or draw is None:
            return next(iter(options))
        names = list(options)
        return names[1] if draw() < options[names[1]] else names[0]

    def decision_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """Return the overrides as arrays: the sorted states (int64) and their rows (x, x_mixed, chance)."""
        states = np.array(sorted(self.decisions), dtype=np.int64)
        rows = np.array([self.decisions[int(state)] for state in states], dtype=np.float64).reshape(-1, 3)
        return states, rows

    def decision_overrides(self) -> Overrides:
        """Return the overrides as the kernels read them: sorted by state, a column for each of x, x_mixed, chance."""
        states = sorted(self.decisions)
        rows = [self.decisions[state] for state in states]
        return Overrides(
            np.array(states, dtype=np.int64),
            np.array([row.x for row in rows], dtype=np.float64),
            np.array([row.x_mixed for row in rows], dtype=np.float64),
            np.array([row.chance for row in rows], dtype=np.float64),
        )

    def win_probability_by_seat(self) -> list[float]:
        """Return each seat's win probability at the start of the game, seats in turn order."""
        return [float(v) for v in self.vector(0, 0)]

    # -- persistence ---------------------------------------------------------------------
    def save(self, path: Path | str) -> None:
        """Save to ``path`` (.npz) with the variant's parameters, fingerprint, players and format version."""
        path = Path(path)
        meta = {
            "format": FORMAT_VERSION,
            "kind": KIND,
            "players": self.players,
            "fingerprint": rules_key(self.variant),
            "truncation": self.truncation,
            "variant": self.variant.describe(),
            "iterations": self.iterations,
            "residual": self.residual,
            "seconds": self.seconds,
            "regret": self.regret,
            "stats": None if self.stats is None else self.stats._asdict(),
            "saved": time.time(),
        }
        states, xs = self.decision_arrays()
        save_npz(path, meta, values=self.values, decision_states=states, decision_x=xs, banked=self.banked,
                 last=self.last)  # fmt: skip

    @classmethod
    def load(cls, path: Path | str, variant: Variant, players: int) -> PlayersPolicy:
        """Load a policy saved for ``variant`` and ``players``; raise BadParameterError if the file is not a sound one.

        The file is checked against ``players_schema`` (``pigdice.solve.policyreader``); on top of it every
        state's win vector must sum to 1 and a mixed decision's chance be a probability.
        """
        path = Path(path)
        variant = players_form(variant, players)
        check_players(variant, players)
        read = read_policy_file(path, players_schema(variant, players))
        values, xs = read.arrays["values"], read.arrays["decision_x"]
        kept = values.shape[-1]
        vectors = values.reshape(-1, kept)
        step = max(1, SUM_CHUNK // kept)
        for first in range(0, len(vectors), step):  # in chunks: a whole array of sums would be a quarter of W
            sums = vectors[first : first + step].sum(axis=-1)
            # compact values (players - 1 entries) leave the mover 1 minus the sum: at least 0
            off = np.abs(sums - 1.0) if kept == players else np.maximum(sums - 1.0, 0.0)
            if float(np.max(off, initial=0.0)) > SUM_SLACK:
                raise BadParameterError(f"{path}: a state's win probabilities do not sum to 1")
        if len(xs) and not (xs[:, 2].min() >= 0.0 and xs[:, 2].max() <= 1.0):
            raise BadParameterError(f"{path}: a mixed decision's chance is not a probability")
        try:
            stats = None if read.meta.get("stats") is None else SolveStats(**read.meta["stats"])
        except TypeError as exc:
            raise BadParameterError(f"{path}: damaged policy metadata (stats: {exc})") from None
        states = read.arrays["decision_states"]
        if len(states) != len(xs):
            raise BadParameterError(f"{path}: damaged decision points ({len(states)} states, {len(xs)} rows)")
        decisions = {int(state): Override(*(float(v) for v in x)) for state, x in zip(states, xs, strict=True)}
        numbers = read.numbers
        ending = variant.endgame is not Endgame.FIRST_TO_GOAL
        return cls(
            variant,
            players,
            values,
            int(numbers["iterations"]),
            numbers["residual"],
            numbers["seconds"],
            True,
            numbers["regret"],
            decisions,
            stats=stats,
            banked=read.arrays["banked"] if ending else FIRST_TO_GOAL,
            last=read.arrays["last"] if ending else NO_LAST,
            truncation=numbers["truncation"],
        )


def players_schema(variant: Variant, players: int) -> PolicySchema:
    """Return what an n-player policy file holds: the win vectors W, the decision overrides, the last-turn tables
    (with a final round or equal turns) and the solve's figures."""
    goal = variant.goal
    ending = variant.endgame is not Endgame.FIRST_TO_GOAL
    seats = players if variant.endgame is Endgame.EQUAL_TURNS else 1
    states = seats * goal**players
    count = range(states + 1)
    arrays = {
        # every player's entry, or compact: all but the mover's (``PlayersPolicy.compact``)
        "values": ArraySpec(((seats,) if ending else ()) + (goal,) * players + (range(players - 1, players + 1),)),
        "decision_states": ArraySpec((count,), "int64", 0, states - 1),
        "decision_x": ArraySpec((count, 3), low=None, high=None),
    }
    if ending:
        # one class of cells for every seat (``rows.banked_layout``; a file of the table per seat that equal turns
        # kept before is refused as stale, and solved again)
        cells = banked_cells(goal, players, seats > 1)
        arrays["banked"] = ArraySpec((1, range(MAX_WIDTH + 1), cells, players))
        arrays["last"] = ArraySpec((players - 1, range(goal + MAX_WIDTH + 4096 + 1)))
    elsewhere = f"solved for other parameters than {variant.name} goal {goal}"
    return PolicySchema(
        what=f"the {players}-player policy of {variant.name}",
        goal=goal,
        arrays=arrays,
        expected=(
            Expected("kind", KIND, "policy kind {found} is not " + repr(KIND)),
            Expected("format", FORMAT_VERSION, "policy format {found} is not " + str(FORMAT_VERSION)),
            Expected("players", players, f"solved for {{found}} players, not {players}"),
            Expected("fingerprint", rules_key(variant), elsewhere),
        ),
        numbers=(
            Number("iterations"),
            Number("residual"),
            Number("seconds"),
            Number("regret", 0.0, 1.0, "a probability"),
            Number("truncation", 0.0, ACCEPTABLE_TRUNCATION, "within what the solver accepts", default=0.0),
        ),
        memory=lambda g: read_bytes(seats * players_values_bytes(g, players)),
    )
