"""How good is seed 003's approximation of n-player play? Exact seat chances when one seat approximates.

Seed 003 ("Three or More Players") suggests playing n-player Pig with the optimal 2-player policy
against a single opponent holding the highest opponent score, and asks how good that is. Here one
seat plays exactly that (the approximate perfect player of ``pigdice.players.optimal``: the
2-player first-to-goal policy of the same variant and goal, read at (own score, highest opponent
score, turn total), rolling where that policy would pass at turn total 0), every other seat plays
the exact n-player policy (the choices ``PlayersPolicy.best`` gives), and the game's Markov chain
is pushed forward exactly (``nchain``): each seat's win probability, with no simulation. The loss
of a seat is the exact policy's chance in that seat minus the approximate player's.

First to the goal only: that is the n-player game solved exactly (``pigdice.solve.exact``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pigdice.errors import BadParameterError
from pigdice.rules.variant import Decision, Variant
from pigdice.solve.exact import exact_policy, exactness
from pigdice.solve.memory import (
    GiB,
    action_table_bytes,
    budget_bytes,
    check_memory,
    largest_goal,
    players_solver_bytes,
    players_values_bytes,
    turn_outcomes_bytes,
)
from pigdice.solve.n.nplayer import PlayersPolicy
from pigdice.solve.solver import solve
from pigdice.solve.tables import effect_table
from pigdice.study.analysis.nchain import ApproximateTurns, PushedGames, push_levels
from pigdice.study.analysis.turns import TurnOutcomes, turn_outcomes
from pigdice.study.question_limits import APPROXIMATION_BYTES

Progress = Callable[[float, str], None]

STILL_PLAYING = 1e-13  # passes (only variants with resets need more than one) stop below this
MAX_PASSES = 10_000
PROGRESS_STATES = 500_000  # score tuples pushed between progress reports
MAX_EVALUATION_PLAYERS = 10


@dataclass(frozen=True)
class Game:
    """One game to evaluate: which seat is tracked, and whether it plays the approximation."""

    seat: int  # 0 = the first player
    approximate: bool


@dataclass
class Evaluation:
    """Each seat's exact win probability in each evaluated game, and what the passes left."""

    games: list[Game]
    wins: np.ndarray  # (games, players): seat chances, seats in turn order
    still_playing: float  # probability left unpushed when the passes stopped (resets only)
    never_ends: float  # probability of play that never ends (turns that can change nothing, forever)
    passes: int
    sweeps: int
    seconds: float


def evaluation_bytes(goal: int, players: int, games: int) -> int:
    """Return the bytes of the pushed mass: (goal^players tuples, players offsets, games) float64."""
    return 8 * players * games * goal**players


def approximation_bytes(goal: int, players: int, resets: bool, games: int = 1) -> int:
    """Return the peak of an approximation study at ``goal``: the n-player solve, then its values plus the mass.

    The 2-player policy's action table and turn outcomes (goal^3 bytes and a few goal^2 arrays) count too.
    """
    two = action_table_bytes(goal) + turn_outcomes_bytes(goal)
    during = players_values_bytes(goal, players) + evaluation_bytes(goal, players, games)
    return max(players_solver_bytes(goal, players, resets), during) + two


def players_goal(variant: Variant, players: int, cap: int = APPROXIMATION_BYTES) -> int:
    """Return the largest goal (at most the variant's) whose n-player study fits under ``cap`` and the budget."""
    resets = effect_table(variant).has_reset
    fits = largest_goal(lambda g: approximation_bytes(g, players, resets), min(cap, budget_bytes()), variant.goal)
    if fits < 1:
        raise BadParameterError(f"no goal of {variant.name} with {players} players fits in memory")
    return fits


def choose_goal(variant: Variant, players: int, goal: int | None, cap: int = APPROXIMATION_BYTES) -> tuple[int, str]:
    """Return the goal of an n-player study and why: the one asked for, else the variant's or the largest that fits.

    Raises BadParameterError if the goal asked for does not fit under ``cap`` (or past the variant's goal).
    """
    fits = players_goal(variant, players, cap)
    if goal is None:
        if fits == variant.goal:
            return fits, f"the variant's goal {fits}"
        return (
            fits,
            f"goal {fits}: the largest whose arrays fit in {cap / GiB:.0f} GiB (the variant's is {variant.goal})",
        )
    if goal > variant.goal:
        raise BadParameterError(f"the goal for {players} players ({goal}) is past the variant's {variant.goal}")
    if goal > fits:
        raise BadParameterError(
            f"{players} players at goal {goal} need more than {cap / GiB:.0f} GiB here; the largest goal that fits "
            f"is {fits}"
        )
    return goal, f"goal {goal}, as asked"


def approximate_turns(variant: Variant, progress: Progress | None = None) -> TurnOutcomes:
    """Return the approximate player's turn outcomes from every (own score, highest other score).

    Its actions are the 2-player first-to-goal policy's; where that policy passes at turn total 0
    it rolls with the first dice choice, as ``players.optimal`` plays it.
    """
    policy = solve(variant.first_to_goal(), progress=progress)
    actions = policy.action_table(None if progress is None else lambda f: progress(f, "2-player actions"))
    if variant.decision is not Decision.DICE_PER_TURN:
        start = actions[:, :, 0]
        start[start == 0] = 1
    outcomes = turn_outcomes(variant.first_to_goal(), actions, visits=False)
    if outcomes.leftover > STILL_PLAYING:
        raise BadParameterError(f"{variant.name}: the 2-player policy has turns that never end")
    return outcomes


def _sum_chunks(goal: int, players: int) -> list[tuple[int, int, float]]:
    """Return runs of score sums (low, high, share of all tuples) of about ``PROGRESS_STATES`` tuples each."""
    counts = np.ones(1)
    for _ in range(players):
        counts = np.convolve(counts, np.ones(goal))
    total = float(counts.sum())
    chunks = []
    low = 0
    top = len(counts) - 1
    while low <= top:
        high = low
        size = counts[low]
        while high < top and size + counts[high + 1] <= PROGRESS_STATES:
            high += 1
            size += counts[high]
        chunks.append((low, high, size / total))
        low = high + 1
    return chunks


def evaluate_games(
    policy: PlayersPolicy,
    games: Sequence[Game],
    approximate: TurnOutcomes | None = None,
    progress: Progress | None = None,
) -> Evaluation:
    """Return each seat's exact win probability in each game (first to the goal), all games pushed together.

    A game with ``approximate`` set has its tracked seat play the approximate turns (required
    then); every other seat plays ``policy``'s exact choices.
    """
    if not isinstance(policy, PlayersPolicy):
        raise BadParameterError(f"expected an n-player policy, got {type(policy).__name__}")
    n, goal = policy.players, policy.goal
    games = list(games)
    if not games:
        raise BadParameterError("name at least one game to evaluate")
    for game in games:
        if not 0 <= game.seat < n:
            raise BadParameterError(f"seat {game.seat + 1} is not one of the {n} seats")
    if any(g.approximate for g in games) and approximate is None:
        raise BadParameterError("the approximate player's turn outcomes are needed")
    check_memory(f"evaluating {len(games)} {n}-player games", goal, lambda g: evaluation_bytes(g, n, len(games)))
    started = time.perf_counter()
    W = policy.values.reshape(-1, n)
    if approximate is not None:
        ap_win = np.ascontiguousarray(approximate.win).ravel()
        turns = ApproximateTurns(approximate.indptr, approximate.scores, approximate.probabilities, ap_win)
    else:
        turns = ApproximateTurns(np.zeros(1, np.int64), np.zeros(0, np.int64), np.zeros(0), np.zeros(0))
    tracked = np.array([g.seat for g in games], dtype=np.int64)
    approx = np.array([g.approximate for g in games], dtype=np.bool_)
    M = np.zeros((goal**n, n, len(games)))
    for b, game in enumerate(games):
        M[0, game.seat, b] = 1.0  # seat 0 moves first at (0, ..., 0): the tracked seat is game.seat places on
    pushed = PushedGames(M, tracked, approx, np.zeros((len(games), n)))
    decisions = policy.decision_overrides()
    stuck = 0.0
    sweeps = 0
    chunks = _sum_chunks(goal, n)
    passes = 0
    pending = 1.0
    while pending > STILL_PLAYING and passes < MAX_PASSES:
        passes += 1
        pending = 0.0
        done = 0.0
        for low, high, share in chunks:
            sent_back, never_ends, swept = push_levels(policy.players_game, W, low, high, pushed, turns, decisions)
            pending += sent_back
            stuck += never_ends
            sweeps += swept
            done += share
            if progress is not None:
                progress(done, f"{n} players: pass {passes}" if passes > 1 else f"{n} players: evaluation")
    still = float(M.sum()) / len(games)
    return Evaluation(games, pushed.wins, still, stuck / len(games), passes, sweeps, time.perf_counter() - started)


@dataclass
class SeatLoss:
    """The approximate player in one seat against the exact policy in that seat."""

    seat: int  # 0 = the first player
    optimal: float  # the exact policy's chance in this seat (everyone exact)
    approximate: float  # the approximate player's chance in this seat (the others exact)
    chances: list[float]  # every seat's chance in the game with the approximate player, in turn order

    @property
    def loss(self) -> float:
        """Return how much win probability the approximation costs this seat."""
        return self.optimal - self.approximate

    def to_json(self) -> dict[str, Any]:
        """Return the seat's figures as JSON-ready data (seats counted from 1)."""
        return {
            "seat": self.seat + 1,
            "optimal": self.optimal,
            "approximate": self.approximate,
            "loss": self.loss,
            "relative_loss": self.loss / self.optimal if self.optimal > 0 else 0.0,
            "seat_chances": self.chances,
        }


@dataclass
class Approximation:
    """Seed 003's n-player approximation measured exactly: each seat's loss, first to the goal."""

    variant: Variant  # the first-to-goal form at the evaluated goal
    players: int
    goal_note: str  # why this goal (the variant's, or the largest that fits)
    optimal: list[float]  # each seat's chance when everyone plays the exact policy
    seats: list[SeatLoss]
    check: float | None  # the largest |evaluated - solver| of each seat when everyone plays exactly
    regret: float  # the exact policy's regret (0: an equilibrium; see pigdice.solve.n.nplayer)
    unsettled: int | None  # cycles without consistent choices (None: the policy came from a cache)
    mixed: int | None  # of those, the cycles whose equilibrium mixes (pigdice.solve.n.mixing)
    still_playing: float
    never_ends: float
    passes: int
    solve_seconds: float
    seconds: float
    peak_bytes: int
    timings: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """Return the study as JSON-ready data."""
        return {
            "players": self.players,
            "goal": self.variant.goal,
            "goal_note": self.goal_note,
            "method": (
                "one seat plays the 2-player optimal policy against the highest opponent score, the others the "
                "exact n-player policy; exact forward propagation of the game's Markov chain"
            ),
            "optimal_seats": self.optimal,
            "seats": [s.to_json() for s in self.seats],
            "evaluation_check": self.check,
            "regret": self.regret,
            "unsettled_cycles": self.unsettled,
            "mixed_cycles": self.mixed,
            "still_playing": self.still_playing,
            "never_ends": self.never_ends,
            "passes": self.passes,
            "solve_seconds": self.solve_seconds,
            "seconds": self.seconds,
            "peak_bytes": self.peak_bytes,
        }


def approximation_study(
    variant: Variant,
    players: int,
    goal: int | None = None,
    progress: Progress | None = None,
    cap: int = APPROXIMATION_BYTES,
) -> Approximation:
    """Return each seat's exact loss when it plays seed 003's approximation against exact players.

    ``goal`` defaults to the variant's, lowered to the largest goal whose arrays fit under ``cap``.
    Raises BadParameterError where the n-player first-to-goal game has no exact solver.
    """
    if isinstance(players, bool) or not isinstance(players, int) or not 3 <= players <= MAX_EVALUATION_PLAYERS:
        raise BadParameterError(
            f"the approximation is studied for 3 to {MAX_EVALUATION_PLAYERS} players, not {players!r}"
        )
    base = variant.require_turns("the approximation study").first_to_goal()
    reason = exactness(base, players)
    if reason is not None:
        raise BadParameterError(reason)
    goal, note = choose_goal(base, players, goal, cap)
    study = base.with_goal(goal)
    started = time.perf_counter()

    def labelled(prefix: str) -> Progress | None:
        return None if progress is None else lambda f, what: progress(f, f"{prefix}{what}")

    exact = exact_policy(study, players, progress=labelled(f"{players} players: solve "))
    if not isinstance(exact, PlayersPolicy):
        raise BadParameterError(f"the exact {players}-player policy of {study.name} is not a first-to-goal one")
    solve_seconds = time.perf_counter() - started
    mark = time.perf_counter()
    turns = approximate_turns(study, labelled("2 players: "))
    games = [Game(seat, True) for seat in range(players)]
    resets = effect_table(study).has_reset
    budget = min(cap, budget_bytes())
    room = max(
        1, (budget - approximation_bytes(goal, players, resets, 0)) // max(1, evaluation_bytes(goal, players, 1))
    )
    with_check = room >= players + 1  # the all-exact game rides along when it costs no extra pass
    if with_check:
        games.append(Game(0, False))
    batch = max(1, min(len(games), int(room)))
    wins_rows: list[np.ndarray] = []
    still = never = 0.0
    passes = 0
    for first in range(0, len(games), batch):
        part = labelled(f"games {first + 1}-{min(first + batch, len(games))} of {len(games)}, ")
        evaluation = evaluate_games(exact, games[first : first + batch], turns, part)
        wins_rows.extend(evaluation.wins)
        still = max(still, evaluation.still_playing)
        never = max(never, evaluation.never_ends)
        passes = max(passes, evaluation.passes)
    optimal = exact.win_probability_by_seat()
    seats = [
        SeatLoss(seat, optimal[seat], float(wins_rows[seat][seat]), [float(v) for v in wins_rows[seat]])
        for seat in range(players)
    ]
    check = float(np.max(np.abs(wins_rows[players] - np.array(optimal)))) if with_check else None
    stats = exact.stats
    peak = approximation_bytes(goal, players, resets, batch)
    return Approximation(
        variant=study,
        players=players,
        goal_note=note,
        optimal=optimal,
        seats=seats,
        check=check,
        regret=exact.regret,
        unsettled=stats.unsettled if stats is not None else None,
        mixed=stats.mixed if stats is not None else None,
        still_playing=still,
        never_ends=never,
        passes=passes,
        solve_seconds=solve_seconds,
        seconds=time.perf_counter() - started,
        peak_bytes=peak,
        timings={"solve": solve_seconds, "evaluation": time.perf_counter() - mark},
    )
