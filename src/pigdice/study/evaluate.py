"""Compare strategies: exact head-to-head, Monte Carlo with a Wilson 95% interval, and tournaments.

Exact numbers come from ``pigdice.solve.two.headtohead`` (2 players, first to the goal, strategies with
action tables), and in 2-player Swine Herd from ``pigdice.study.analysis.swineherd`` (the perfect
player's equilibrium and hold:N as sit tables). Simulations use the fast numba simulator
(``pigdice.study.fastsim``) when every player has a table and the game ends first-to-goal (or, in
roll-or-hold games, with a final round or equal turns between robots that chase in their last turn),
and the plain engine loop otherwise (``rolls:N``, ``random``, final-round and equal-turns endings,
Swine Herd). Every simulated match seats each player first equally often, so first-player advantage
cancels out.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pigdice.errors import BadParameterError, BadStrategyError
from pigdice.players.base import Strategy, chases_in_last_turn, is_human
from pigdice.players.tables import action_table, has_table
from pigdice.rules.variant import Decision, Endgame, Variant
from pigdice.solve.memory import action_table_bytes, check_memory, head_to_head_bytes
from pigdice.solve.solver import TOLERANCE
from pigdice.solve.two.headtohead import HeadToHead, head_to_head
from pigdice.study.fastsim import head_to_head_sim, simulate_tables
from pigdice.study.limits import check_games
from pigdice.study.simulate import SimulationResult, play_game

Z95 = 1.959963984540054
MAX_MATCHES = 10_000  # matches in one tournament (100 strategies in 2-player games make 4950)
Progress = Callable[[float, str], None]  # fraction done, what is running
GamesProgress = Callable[[int], None]  # games played so far


def wilson_interval(successes: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """Return the Wilson score interval of a binomial proportion (95% by default)."""
    if trials <= 0:
        return (0.0, 1.0)
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


# -- tables -------------------------------------------------------------------------------------
def table_or_none(
    strategy: Strategy, variant: Variant, cache: dict[str, np.ndarray] | None = None
) -> np.ndarray | None:
    """Return the strategy's action table for ``variant``, or None if it has none."""
    if variant.is_simultaneous or not has_table(strategy):
        return None
    key = strategy.name
    if cache is not None and key in cache:
        return cache[key]
    check_memory(f"the action table of {strategy.name}", variant.goal, action_table_bytes)
    table = action_table(strategy, variant)
    if cache is not None:
        cache[key] = table
    return table


def herd_table(strategy: Strategy, variant: Variant, seat: int, cache: dict[Any, Any] | None = None) -> Any:
    """Return the strategy's Swine Herd sit table for ``seat`` (0 or 1): the exact 2-player equilibrium for
    the perfect player, hold:N's for hold:N, a level's (``pigdice.study.herdlevels``) for level:N; None for
    any other strategy (simulate those)."""
    from pigdice.players.fixed import HoldAt
    from pigdice.players.levels import TOP, LevelPlayer
    from pigdice.players.optimal import Optimal
    from pigdice.solve.exact import exact_policy, exactness
    from pigdice.study.analysis.swineherd import equilibrium_table, hold_at_table

    key = (strategy.name, seat)
    if cache is not None and key in cache:
        return cache[key]
    table = None
    if isinstance(strategy, HoldAt) and strategy.dice is None:
        table = hold_at_table(variant, strategy.threshold)
    elif isinstance(strategy, LevelPlayer) and strategy.level < TOP and exactness(variant, 2) is None:
        from pigdice.study.herdlevels import level_sit_table

        table = level_sit_table(exact_policy(variant, 2).solved, seat, strategy.allowance)  # type: ignore[attr-defined]
    elif isinstance(strategy, Optimal) and exactness(variant, 2) is None:
        table = equilibrium_table(exact_policy(variant, 2).solved, seat)  # type: ignore[attr-defined]
    if cache is not None:
        cache[key] = table
    return table


def exact_herd(variant: Variant, a: Strategy, b: Strategy, cache: dict[Any, Any] | None = None) -> HeadToHead | None:
    """Return A's exact chance against B in 2-player Swine Herd in either seat (a shared win counts one
    half), or None unless both have sit tables (``herd_table``) and the goal is one the exact solver takes.

    Raises BadStrategyError if the game can go on for ever (without the house rule, players who never
    sit first): a chance means nothing there.
    """
    from pigdice.solve.exact import exactness
    from pigdice.study.analysis.swineherd import evaluate_pair

    if exactness(variant, 2) is not None:
        return None
    tables = [herd_table(s, variant, seat, cache) for s, seat in ((a, 0), (b, 1), (b, 0), (a, 1))]
    if any(t is None for t in tables):
        return None
    a_seat_a = evaluate_pair(variant, tables[0], tables[1])
    a_seat_b = evaluate_pair(variant, tables[2], tables[3])
    never = max(a_seat_a.never, a_seat_b.never)
    if never > TOLERANCE:
        raise BadStrategyError(
            f"{a.name} against {b.name} never ends with probability {never:.3g}: without the house rule "
            "neither sits down first once both have reached the goal"
        )
    return HeadToHead(a_seat_a.chance_a, a_seat_b.chance_b, 0, 0.0)


def exact_compare(variant: Variant, a: Strategy, b: Strategy) -> HeadToHead:
    """Return the exact probability that A beats B with A starting, with B starting, and averaged."""
    exact = variant.first_to_goal()
    check_memory("exact comparison", exact.goal, lambda g: action_table_bytes(g, 2) + head_to_head_bytes(g))
    return head_to_head(exact, action_table(a, exact), action_table(b, exact))


# -- simulation ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class SimulatedComparison:
    """A's simulated win rates against B, each side starting half the games."""

    games: int
    a_first_games: int
    a_first_wins: float
    b_first_games: int
    b_first_wins: float  # games A won when B moved first (ties count half)
    engine: str  # "fast" (numba) or "engine" (the game engine loop)
    mean_turns: float
    seed: int | None = None

    @property
    def a_first(self) -> float:
        """Return A's win rate when A moves first."""
        return self.a_first_wins / self.a_first_games

    @property
    def b_first(self) -> float:
        """Return A's win rate when B moves first."""
        return self.b_first_wins / self.b_first_games

    @property
    def average(self) -> float:
        """Return A's win rate with each side starting half the games (the two halves weighted equally)."""
        return (self.a_first + self.b_first) / 2

    @property
    def ci95(self) -> tuple[float, float]:
        """Return the Wilson 95% interval of A's overall win rate."""
        return wilson_interval(self.a_first_wins + self.b_first_wins, self.games)

    def to_json(self) -> dict[str, Any]:
        """Return the JSON shape used by ``pigdice compare --json``."""
        return {
            "games": self.games,
            "a_first": self.a_first,
            "b_first": self.b_first,
            "average": self.average,
            "ci95": list(self.ci95),
            "engine": self.engine,
            "mean_turns": self.mean_turns,
            "seed": self.seed,
        }


def _engine_match(
    variant: Variant,
    seats: Sequence[Strategy],
    games: int,
    rng: np.random.Generator,
    progress: GamesProgress | None = None,
) -> tuple[list[float], int]:
    """Play ``games`` engine-loop games with this seating; return win shares per seat and total turns."""
    wins = [0.0] * len(seats)
    turns = 0
    dice_rng, choice_rng = rng.spawn(2)
    for played in range(games):
        if progress is not None and played % 50 == 0:
            progress(played)
        state = play_game(variant, seats, dice_rng, choice_rng)
        winners = state.winners or ()
        for p in winners:
            wins[p] += 1.0 / len(winners)
        turns += state.turns_taken
    return wins, turns


def can_fast_simulate(
    variant: Variant, tables: Sequence[np.ndarray | None], strategies: Sequence[Strategy] = ()
) -> bool:
    """Return True if the fast simulator can play this game: a table for everyone; first to the goal, or
    a final round / equal turns in a roll-or-hold game where every strategy chases in its last turn."""
    if variant.is_simultaneous or any(t is None for t in tables):
        return False
    if variant.endgame is Endgame.FIRST_TO_GOAL:
        return True
    chasing = bool(strategies) and all(chases_in_last_turn(s) for s in strategies)
    return chasing and variant.decision is Decision.ROLL_HOLD


def simulate_with_tables(
    variant: Variant, strategies: Sequence[Strategy], games: int, seed: int | None
) -> SimulationResult | None:
    """Simulate with the numba simulator if every robot has a table (first to the goal), else return None."""
    tables = [table_or_none(s, variant) for s in strategies]
    if not can_fast_simulate(variant, tables, strategies):
        return None
    result = simulate_tables(variant, [t for t in tables if t is not None], games, seed)
    return SimulationResult(
        games=games,
        wins=list(result.wins),
        ties=result.ties,
        outright=list(result.outright),
        shared=list(result.shared),
        total_turns=int((np.arange(len(result.lengths.histogram)) * result.lengths.histogram).sum()),
    )


def simulate_compare(
    variant: Variant,
    a: Strategy,
    b: Strategy,
    games: int,
    seed: int | None = None,
    tables: tuple[np.ndarray | None, np.ndarray | None] | None = None,
    progress: GamesProgress | None = None,
) -> SimulatedComparison:
    """Simulate ``games`` games of A against B (A first in the first half, rounded up).

    ``progress`` hears the games played so far (engine loop only: the fast simulator takes
    about a second per million games).
    """
    games = check_games(games, 2, "--games", " (each side starts half)")
    if any(is_human(s) for s in (a, b)):
        raise BadStrategyError("simulations need robots only; 'you'/'human' cannot be simulated")
    variant.check_players(2)
    rng = np.random.default_rng(seed)
    if tables is None:
        tables = (table_or_none(a, variant), table_or_none(b, variant))
    if can_fast_simulate(variant, tables, (a, b)):
        ta, tb = tables
        assert ta is not None and tb is not None  # for mypy: checked by can_fast_simulate
        fast = head_to_head_sim(variant, ta, tb, games, rng)
        return SimulatedComparison(
            games,
            fast.a_first_games,
            float(fast.a_first_wins),
            fast.b_first_games,
            float(fast.b_first_wins),
            "fast",
            fast.lengths.mean,
            seed,
        )
    first = (games + 1) // 2
    rng_one, rng_two = rng.spawn(2)
    wins_one, turns_one = _engine_match(variant, [a, b], first, rng_one, progress)
    later = None if progress is None else (lambda done: progress(first + done))
    wins_two, turns_two = _engine_match(variant, [b, a], games - first, rng_two, later)
    if progress is not None:
        progress(games)
    return SimulatedComparison(
        games, first, wins_one[0], games - first, wins_two[1], "engine", (turns_one + turns_two) / games, seed
    )


# -- compare --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Comparison:
    """Exact and/or simulated results of A against B."""

    variant: Variant
    a: str
    b: str
    exact: HeadToHead | None
    simulated: SimulatedComparison | None
    notes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """Return the JSON shape of ``pigdice compare --json``."""
        exact = None
        if self.exact is not None:
            exact = {"a_first": self.exact.a_first, "b_first": self.exact.b_first, "average": self.exact.average}
        return {
            "variant": self.variant.name,
            "goal": self.variant.goal,
            "a": self.a,
            "b": self.b,
            "exact": exact,
            "simulated": None if self.simulated is None else self.simulated.to_json(),
            "endgame": str(self.variant.endgame),
            "notes": list(self.notes),
        }


def compare(
    variant: Variant,
    a: Strategy,
    b: Strategy,
    games: int | None = None,
    seed: int | None = None,
    progress: GamesProgress | None = None,
) -> Comparison:
    """Compare A with B: exactly when both have tables, and by ``games`` simulated games if given."""
    variant.check_players(2)
    if games is not None:
        games = check_games(games, 2, "--games", " (each side starts half)")  # before any exact work
    if any(is_human(s) for s in (a, b)):
        raise BadStrategyError("compare robots: a human ('you'/'human') has no strategy to evaluate")
    notes: list[str] = []
    tables = table_a, table_b = (table_or_none(a, variant), table_or_none(b, variant))
    exact = None
    if variant.is_simultaneous:
        exact = exact_herd(variant, a, b)
        if exact is None and games is None:
            raise BadStrategyError(
                f"{variant.name} is played by everyone at once: only optimal and hold:N are evaluated exactly, "
                "up to goal 200; compare by simulation with --games N"
            )
    elif table_a is not None and table_b is not None:
        exact = head_to_head(variant.first_to_goal(), table_a, table_b)
        if variant.endgame is not Endgame.FIRST_TO_GOAL:
            notes.append(f"exact values are for the first-to-goal ending; simulations play {variant.endgame}")
    elif games is None:
        missing = [s.name for s, t in zip((a, b), tables, strict=True) if t is None]
        if variant.is_simultaneous:
            why = f"{variant.name} is played by everyone at once, so there are no action tables"
        else:
            why = f"{' and '.join(missing)} {'has' if len(missing) == 1 else 'have'} no action table"
        raise BadStrategyError(f"{why}: compare by simulation with --games N")
    simulated = None
    if games is not None:
        simulated = simulate_compare(variant, a, b, games, seed, tables, progress)
        if simulated.engine == "engine" and all(t is not None for t in tables):
            notes.append(
                "simulated with the engine loop (the fast simulator plays other endings only in roll-or-hold "
                "games between robots that chase in their last turn: hold:N, keep-pace, max-score)"
            )
    return Comparison(variant, a.name, b.name, exact, simulated, tuple(notes))


# -- tournaments --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Match:
    """One match of a tournament: each player's win rate over every seating."""

    players: tuple[str, ...]
    win_rates: tuple[float, ...]
    method: str  # "exact" or "simulated"
    games: int  # simulated games (0 for exact)
    ci95: tuple[tuple[float, float], ...] | None = None
    first_mover: tuple[float, ...] | None = None  # 2-player exact: each player's win rate when moving first

    def to_json(self) -> dict[str, Any]:
        """Return the match as JSON-ready data."""
        return {
            "players": list(self.players),
            "win_rates": list(self.win_rates),
            "method": self.method,
            "games": self.games,
            "ci95": None if self.ci95 is None else [list(ci) for ci in self.ci95],
        }


@dataclass(frozen=True)
class Standing:
    """One strategy's result over all its matches."""

    rank: int
    name: str
    win_rate: float  # mean win rate over its matches
    matches: int
    par: float  # the win rate of an even match: 1 / players

    def to_json(self) -> dict[str, Any]:
        """Return the standing as JSON-ready data."""
        return {"rank": self.rank, "strategy": self.name, "win_rate": self.win_rate, "matches": self.matches}


@dataclass
class TournamentResult:
    """A round robin: every combination of ``players`` strategies, seats rotated."""

    variant: Variant
    players: int
    strategies: list[str]
    games: int
    seed: int | None
    matches: list[Match] = field(default_factory=list)

    @property
    def standings(self) -> list[Standing]:
        """Return the strategies ranked by mean win rate (best first; equal rates share a rank)."""
        totals: dict[str, list[float]] = {name: [] for name in self.strategies}
        for match in self.matches:
            for name, rate in zip(match.players, match.win_rates, strict=True):
                totals[name].append(rate)
        rows = sorted(
            ((name, sum(r) / len(r) if r else 0.0, len(r)) for name, r in totals.items()),
            key=lambda row: -row[1],
        )
        standings: list[Standing] = []
        for index, (name, rate, count) in enumerate(rows):
            rank = standings[-1].rank if standings and abs(standings[-1].win_rate - rate) < 1e-12 else index + 1
            standings.append(Standing(rank, name, rate, count, 1 / self.players))
        return standings

    def pairwise(self) -> dict[tuple[str, str], float]:
        """Return P(row beats column) for 2-player tournaments."""
        result: dict[tuple[str, str], float] = {}
        for match in self.matches:
            if len(match.players) == 2:
                a, b = match.players
                result[(a, b)] = match.win_rates[0]
                result[(b, a)] = match.win_rates[1]
        return result

    def to_json(self) -> dict[str, Any]:
        """Return the JSON shape of ``pigdice tournament --json``."""
        return {
            "variant": self.variant.name,
            "goal": self.variant.goal,
            "players": self.players,
            "games": self.games,
            "seed": self.seed,
            "strategies": self.strategies,
            "standings": [s.to_json() for s in self.standings],
            "matches": [m.to_json() for m in self.matches],
        }

    def csv_rows(self) -> list[dict[str, Any]]:
        """Return one CSV row per player per match (with the player's final rank)."""
        ranks = {s.name: s.rank for s in self.standings}
        rows = []
        for number, match in enumerate(self.matches, start=1):
            for seat, name in enumerate(match.players):
                ci = match.ci95[seat] if match.ci95 is not None else (None, None)
                rows.append(
                    {
                        "match": number,
                        "strategy": name,
                        "opponents": ";".join(p for p in match.players if p != name),
                        "win_rate": match.win_rates[seat],
                        "ci95_low": ci[0],
                        "ci95_high": ci[1],
                        "method": match.method,
                        "games": match.games,
                        "rank": ranks[name],
                    }
                )
        return rows


CSV_FIELDS = ("match", "strategy", "opponents", "win_rate", "ci95_low", "ci95_high", "method", "games", "rank")


def _simulated_match(
    variant: Variant,
    strategies: Sequence[Strategy],
    tables: Sequence[np.ndarray | None],
    games: int,
    rng: np.random.Generator,
) -> Match:
    """Simulate a match, rotating seats so each player moves first equally often."""
    count = len(strategies)
    per_rotation = max(1, -(-games // count))
    wins = [0.0] * count
    fast = can_fast_simulate(variant, tables, strategies)
    for shift, child in zip(range(count), rng.spawn(count), strict=True):
        order = [(shift + seat) % count for seat in range(count)]
        if fast:
            result = simulate_tables(variant, [tables[n] for n in order], per_rotation, child)  # type: ignore[misc]
            seat_wins: Sequence[float] = result.wins
        else:
            seat_wins, _ = _engine_match(variant, [strategies[n] for n in order], per_rotation, child)
        for seat, n in enumerate(order):
            wins[n] += seat_wins[seat]
    played = per_rotation * count
    return Match(
        tuple(s.name for s in strategies),
        tuple(w / played for w in wins),
        "simulated",
        played,
        tuple(wilson_interval(w, played) for w in wins),
    )


def _exact_match(members: Sequence[Strategy], h: HeadToHead) -> Match:
    """Return a 2-player match evaluated exactly: each side's win rate, and each one's when it moves first."""
    return Match(
        (members[0].name, members[1].name),
        (h.average, 1 - h.average),
        "exact",
        0,
        first_mover=(h.a_first, 1 - h.b_first),
    )


def tournament(
    variant: Variant,
    strategies: Sequence[Strategy],
    players: int = 2,
    games: int = 2000,
    seed: int | None = None,
    progress: Progress | None = None,
    exact: bool = True,
) -> TournamentResult:
    """Play a round robin: every combination of ``players`` strategies, seats rotated.

    Two-player matches are exact when both sides have action tables and the game ends
    first-to-goal (``exact=False`` simulates them too); the rest play ``games`` games each.
    """
    names = [s.name for s in strategies]
    if len(strategies) < 2:
        raise BadParameterError("a tournament needs at least two strategies")
    if len(set(names)) != len(names):
        raise BadParameterError(f"strategies must differ; got {', '.join(names)}")
    if any(is_human(s) for s in strategies):
        raise BadStrategyError("a tournament is for robots; 'you'/'human' cannot play")
    variant.check_players(players)
    if players > len(strategies):
        raise BadParameterError(f"{players}-player games need at least {players} strategies, got {len(strategies)}")
    games = check_games(games, 1, "--games")
    matches = math.comb(len(strategies), players)
    if matches > MAX_MATCHES:
        raise BadParameterError(
            f"{len(strategies)} strategies in {players}-player games make {matches} matches; "
            f"a tournament plays at most {MAX_MATCHES}"
        )
    check_games(matches * games, 1, f"a tournament's games in all ({matches} matches x {games})")
    cache: dict[str, np.ndarray] = {}
    herd_cache: dict[Any, Any] = {}  # Swine Herd's sit tables by (strategy, seat)
    combos = list(itertools.combinations(range(len(strategies)), players))
    rngs = np.random.default_rng(seed).spawn(len(combos))
    result = TournamentResult(variant, players, names, games, seed)
    for number, (combo, rng) in enumerate(zip(combos, rngs, strict=True)):
        members = [strategies[n] for n in combo]
        label = " vs ".join(s.name for s in members)
        if progress is not None:
            progress(number / len(combos), label)
        tables = [table_or_none(s, variant, cache) for s in members]
        herd = (
            exact_herd(variant, members[0], members[1], herd_cache)
            if exact and players == 2 and variant.is_simultaneous
            else None
        )
        if herd is not None:
            result.matches.append(_exact_match(members, herd))
        elif exact and players == 2 and variant.endgame is Endgame.FIRST_TO_GOAL and all(t is not None for t in tables):
            h = head_to_head(variant.first_to_goal(), tables[0], tables[1])  # type: ignore[arg-type]
            result.matches.append(_exact_match(members, h))
        else:
            result.matches.append(_simulated_match(variant, members, tables, games, rng))
    if progress is not None:
        progress(1.0, "done")
    return result
